import type { LoaderFunctionArgs } from '@remix-run/node'
import { Link, NavLink, Outlet, useLoaderData } from '@remix-run/react'
import { lazy, Suspense } from 'react'
import { AttachEvidenceLink } from '#app/components/catalog/attach-link.tsx'
import { ConfigType, HealthBadge, KeyValueChips, tabLinkClass } from '#app/components/catalog/catalog-badges.tsx'
import { DateTime } from '#app/components/date-time.tsx'
import { GeneralErrorBoundary } from '#app/components/error-boundary.tsx'
import { Badge } from '#app/components/ui/badge.tsx'
import { Icon } from '#app/components/ui/icons.tsx'
import { PlaybooksMenu as ServerRenderedPlaybooksMenu } from '#app/components/playbooks/playbooks-menu.tsx'
import { getConfigDetail, listConfigViewTabs } from '#app/lib/catalog-screens.server.ts'
import { configTypeIcon, formatCost } from '#app/lib/catalog-vocabulary.ts'
import { canLinkToIncident } from '#app/lib/incidents.server.ts'
import { hasAccess } from '#app/lib/access.ts'
import { listPlaybooksFor } from '#app/lib/playbooks.server.ts'
import type { RouteHandle } from '#app/lib/route-handle.ts'
import { errorResponse, requireAccess, toErrorResponse } from '#app/lib/session.server.ts'
import { isUuid } from '#contract/uuid.ts'

// The Playbooks drop-down is static markup the server renders in place; the browser loads its code
// on demand, which keeps the item's pages within the JavaScript budget (decisions 007, 016).
const PlaybooksMenu = import.meta.env.SSR
  ? ServerRenderedPlaybooksMenu
  : /* @__PURE__ */ lazy(() => import('#app/components/playbooks/playbooks-menu.tsx').then((module) => ({ default: module.PlaybooksMenu })))

export const handle = {
  title: (data) => (data && typeof data === 'object' && 'title' in data && typeof data.title === 'string' ? data.title : 'Catalog'),
  feature: 'config',
  resource: 'database',
} satisfies RouteHandle

/** What the item's tabs read from this layout (`useRouteLoaderData(CATALOG_ITEM_ROUTE)`). */
export const CATALOG_ITEM_ROUTE = 'routes/_console.catalog.$id'

/**
 * /catalog/{id} (spec 000 §2, §3): the item's header — type icon, name, health, status, labels,
 * tags, cost, where it was scraped from — and its tabs: Spec, Changes, Insights, Relationships,
 * Playbooks, Checks and any custom views that apply to it.
 */
export async function loader(args: LoaderFunctionArgs) {
  const session = await requireAccess(args, handle)
  const id = args.params.id ?? ''
  // Config ids are UUIDs; anything else cannot exist, and must not reach a filter expression.
  if (!isUuid(id)) throw errorResponse(404, { message: 'No such catalog item' })
  try {
    const [item, canLink, views, playbooks] = await Promise.all([
      getConfigDetail(args, id),
      canLinkToIncident(args),
      listConfigViewTabs(args, id),
      hasAccess(session, 'playbook_runs', 'write') ? listPlaybooksFor(args, { config_id: id }) : null,
    ])
    if (!item) throw errorResponse(404, { message: 'No such catalog item' })
    return { id, item, canLink, views, playbooks, title: `Catalog / ${item.name ?? id}` }
  } catch (error) {
    throw toErrorResponse(error)
  }
}

export type CatalogItemLayoutData = Awaited<ReturnType<typeof loader>>

function Figure({ label, children, testId }: { label: string; children: React.ReactNode; testId?: string }) {
  return (
    <div className="flex flex-col gap-0.5" data-testid={testId}>
      <dt className="text-xs text-muted-foreground">{label}</dt>
      <dd className="text-sm">{children}</dd>
    </div>
  )
}

export default function CatalogItemLayout() {
  const { id, item, canLink, views, playbooks } = useLoaderData<typeof loader>()
  const summary = item.summary ?? {}
  const tabs = [
    { to: '.', label: 'Spec', end: true, count: undefined },
    { to: 'changes', label: 'Changes', count: summary.changes },
    { to: 'insights', label: 'Insights', count: summary.analysis },
    { to: 'relationships', label: 'Relationships', count: summary.relationships },
    { to: 'playbooks', label: 'Playbooks', count: summary.playbook_runs },
    { to: 'checks', label: 'Checks', count: summary.checks },
    ...views.map((view) => ({ to: `view/${view.id}`, label: view.title || view.name, count: undefined })),
  ]
  const costs = [
    ['per minute', item.cost_per_minute],
    ['1 day', item.cost_total_1d],
    ['7 days', item.cost_total_7d],
    ['30 days', item.cost_total_30d],
  ].filter(([, value]) => formatCost(value))
  return (
    <div className="flex flex-col" data-testid="catalog-item" data-config-id={id}>
      <div className="flex flex-col gap-3 border-b bg-card px-6 pt-4">
        <div className="flex flex-wrap items-start justify-between gap-3">
          <div className="flex items-center gap-3">
            <Icon name={configTypeIcon(item.type)} aria-hidden="true" className="size-8 text-muted-foreground" />
            <div className="flex flex-col gap-1">
              <div className="flex flex-wrap items-center gap-2">
                <h1 className="text-lg font-semibold" data-testid="config-name">
                  {item.name ?? id}
                </h1>
                <HealthBadge health={item.health} testId="config-health" />
                {item.status ? (
                  <Badge variant="secondary" data-testid="config-status">
                    {item.status}
                  </Badge>
                ) : null}
                {item.deleted_at ? <Badge variant="danger">deleted</Badge> : null}
              </div>
              <Link to={`/catalog?${new URLSearchParams({ type: item.type }).toString()}`} className="text-sm text-muted-foreground hover:underline" data-testid="config-type">
                <ConfigType type={item.type} iconClassName="size-3" />
              </Link>
            </div>
          </div>
          <div className="flex items-center gap-2">
            <Suspense fallback={null}>
              <PlaybooksMenu playbooks={playbooks} target={{ config_id: id }} returnTo={`/catalog/${id}`} />
            </Suspense>
            <AttachEvidenceLink canLink={canLink} target={{ type: 'config', config_id: id, description: `${item.type} ${item.name ?? id} is ${item.health ?? 'unknown'}` }} />
          </div>
        </div>
        {item.description ? <p className="text-sm text-muted-foreground">{item.description}</p> : null}
        <dl className="flex flex-wrap gap-x-8 gap-y-2">
          {item.config_class ? <Figure label="Class">{item.config_class}</Figure> : null}
          {costs.length ? (
            <Figure label="Cost" testId="config-cost">
              {costs.map(([label, value]) => `${formatCost(value)} ${label}`).join(' · ')}
            </Figure>
          ) : null}
          {item.scraper ? (
            <Figure label="Scraper">
              <Link to={`/catalog/scrapers/${item.scraper.id}`} className="hover:underline">
                {item.scraper.name}
              </Link>
            </Figure>
          ) : null}
          {item.agent_name ? <Figure label="Agent">{item.agent_name}</Figure> : null}
          <Figure label="Created">
            <DateTime value={item.created_at} />
          </Figure>
          {item.updated_at ? (
            <Figure label="Updated">
              <DateTime value={item.updated_at} />
            </Figure>
          ) : null}
          {item.last_scraped_time ? (
            <Figure label="Last scraped">
              <DateTime value={item.last_scraped_time} />
            </Figure>
          ) : null}
        </dl>
        {item.tags && Object.keys(item.tags).length ? (
          <div className="flex items-center gap-2 text-xs">
            <span className="text-muted-foreground">Tags</span>
            <KeyValueChips values={item.tags} testId="config-tags" />
          </div>
        ) : null}
        {item.labels && Object.keys(item.labels).length ? (
          <div className="flex items-center gap-2 text-xs">
            <span className="text-muted-foreground">Labels</span>
            <KeyValueChips values={item.labels} testId="config-labels" />
          </div>
        ) : null}
        <nav aria-label="Catalog item sections">
          <ul className="-mb-px flex flex-wrap gap-1">
            {tabs.map((tab) => (
              <li key={tab.to}>
                <NavLink to={tab.to} end={'end' in tab ? tab.end : false} className={({ isActive }) => tabLinkClass(isActive)} data-testid={`config-tab-${tab.label.toLowerCase()}`}>
                  {tab.label}
                  {tab.count ? <span className="ml-1.5 rounded bg-muted px-1 text-xs tabular-nums">{tab.count}</span> : null}
                </NavLink>
              </li>
            ))}
          </ul>
        </nav>
      </div>
      <Outlet />
    </div>
  )
}

export function ErrorBoundary() {
  return <GeneralErrorBoundary />
}
