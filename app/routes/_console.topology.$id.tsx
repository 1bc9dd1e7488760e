import { data, type LoaderFunctionArgs, type MetaFunction } from '@remix-run/node'
import { useLoaderData } from '@remix-run/react'
import { Suspense } from 'react'
import { GeneralErrorBoundary } from '#app/components/error-boundary.tsx'
import { ComponentHeader, ComponentSidePanel, type SidePanelData } from '#app/components/topology/component-side-panel.tsx'
import { cardProperties } from '#app/components/topology/topology-model.ts'
import { TopologyCardList } from '#app/components/topology/topology-toolbar.tsx'
import { canLinkToIncident } from '#app/lib/incidents.server.ts'
import { getPreferences } from '#app/lib/preferences.server.ts'
import type { RouteHandle } from '#app/lib/route-handle.ts'
import { hasAccess } from '#app/lib/access.ts'
import { errorResponse, requireAccess, toErrorResponse } from '#app/lib/session.server.ts'
import { parseTopologyParams } from '#app/lib/topology-search.ts'
import { getComponentPanel, loadTopologyPage, toCard } from '#app/lib/topology.server.ts'
import { isUuid } from '#contract/uuid.ts'

export const handle = { title: 'Topology', feature: 'topology', resource: 'topologies' } satisfies RouteHandle

/**
 * /topology/{id} (spec 000 §2, issue 15 item 4): the component's header, its children as cards
 * (filtered and paged like the dashboard) and the side panel of everything linked to it.
 */
export async function loader(args: LoaderFunctionArgs) {
  const session = await requireAccess(args, handle)
  const id = args.params.id ?? ''
  // Component ids are UUIDs; anything else cannot exist, and must not reach a filter expression.
  if (!isUuid(id)) throw errorResponse(404, { message: 'No such component' })
  const params = parseTopologyParams(new URL(args.request.url).searchParams)
  const preferences = getPreferences(args.request)
  const showHidden = params.showHidden ?? preferences.showHiddenComponents
  try {
    const pending = loadTopologyPage(args, params, { id, showHidden })
    const [page, panel, canLink] = await Promise.all([pending, getComponentPanel(args, id, pending.then((result) => result?.root ?? null), hasAccess(session, 'playbook_runs', 'write')), canLinkToIncident(args)])
    if (!page?.root || !panel) throw errorResponse(404, { message: 'No such component' })
    const root = page.root
    const header = toCard(root)
    const sidePanel: SidePanelData = {
      id,
      name: header.name,
      properties: cardProperties(panel.properties, 100),
      checks: panel.checks,
      configs: panel.configs.flatMap((row) => (row.config ? [row.config] : [])),
      incidents: panel.incidents,
      insights: panel.insights,
      teams: panel.teams,
      playbooks: panel.playbooks,
      logs: panel.logs,
      canLink,
      description: `${header.type} ${header.name} is ${header.health}`,
    }
    return data({
      params,
      showHidden,
      cardWidth: preferences.cardWidth,
      header,
      parentId: root.parent_id ?? null,
      createdAt: root.created_at,
      description: root.description ?? null,
      page: { cards: page.cards, total: page.total, page: page.page, pageCount: page.pageCount, facets: page.facets },
      sidePanel,
      title: `Topology / ${header.name}`,
    })
  } catch (error) {
    throw toErrorResponse(error)
  }
}

export default function TopologyComponentRoute() {
  const { params, showHidden, cardWidth, header, parentId, createdAt, description, page, sidePanel } = useLoaderData<typeof loader>()
  return (
    <div className="flex flex-col gap-4 p-6" data-testid="topology-component">
      <Suspense fallback={null}>
        <ComponentHeader header={header} parentId={parentId} createdAt={createdAt} description={description} />
      </Suspense>
      <div className="flex flex-col gap-4 lg:flex-row lg:items-start">
        <section className="flex min-w-0 flex-1 flex-col gap-3" aria-label="Components" data-testid="component-children">
          <TopologyCardList
            params={params}
            page={page}
            showHidden={showHidden}
            cardWidth={cardWidth}
            emptyText={page.total === 0 && !params.search && !params.status && !params.type && !params.team && !params.label ? 'This component has no child components.' : 'No components match these filters.'}
          />
        </section>
        <ComponentSidePanel panel={sidePanel} />
      </div>
    </div>
  )
}

export const meta: MetaFunction<typeof loader> = ({ data: loaderData }) => [{ title: loaderData?.title ?? 'Topology' }]

export function ErrorBoundary() {
  return <GeneralErrorBoundary />
}
