import { data, type LoaderFunctionArgs } from '@remix-run/node'
import { Link, useLoaderData, useLocation } from '@remix-run/react'
import { ConfigType, HealthBadge, KeyValueChips } from '#app/components/catalog/catalog-badges.tsx'
import { CatalogFilters } from '#app/components/catalog/catalog-filters.tsx'
import { CatalogNav } from '#app/components/catalog/catalog-nav.tsx'
import { UrlTable, type UrlColumn } from '#app/components/data-table/url-table.tsx'
import { DateTime } from '#app/components/date-time.tsx'
import { GeneralErrorBoundary } from '#app/components/error-boundary.tsx'
import { Badge } from '#app/components/ui/badge.tsx'
import { buttonVariants } from '#app/components/ui/button.tsx'
import { Eye, EyeOff, X } from '#app/components/ui/icons.tsx'
import { Input } from '#app/components/ui/input.tsx'
import { Label } from '#app/components/ui/label.tsx'
import { parseCatalogListParams } from '#app/lib/catalog-search.ts'
import { getCatalogSummary, listConfigs, listTypeStatuses, type ConfigListRow, type TypeSummary } from '#app/lib/catalog-screens.server.ts'
import { CATALOG_PAGE_SIZES, CONFIG_HEALTHS, catalogTypeHref, countOf, formatCost, hrefWith, type CatalogListParams } from '#app/lib/catalog-vocabulary.ts'
import { getPreferences } from '#app/lib/preferences.server.ts'
import type { RouteHandle } from '#app/lib/route-handle.ts'
import { requireAccess, toErrorResponse } from '#app/lib/session.server.ts'

export const handle = { title: 'Catalog', feature: 'config', resource: 'database' } satisfies RouteHandle

/**
 * /catalog (spec 000 §2, issue 14 item 6): the summary of every config type with its count,
 * health, changes, insights and cost; a type (or a search or filter) turns it into the list of
 * items, filtered, sorted and paged in the URL. Deleted items show when the "Show deleted
 * configs" preference is on, or `showDeleted=yes` says so for this list.
 */
export async function loader(args: LoaderFunctionArgs) {
  await requireAccess(args, handle)
  const params = parseCatalogListParams(new URL(args.request.url).searchParams)
  const showDeleted = params.showDeleted ?? getPreferences(args.request).showDeletedConfigs
  const isList = Boolean(params.type || params.search || params.health.length || params.status.length || params.label.length || params.tag.length || params.agent_id)
  try {
    if (!isList) return data({ view: 'summary' as const, params, showDeleted, summary: await getCatalogSummary(args, { showDeleted }), rows: [], total: 0, statuses: [] })
    const [{ rows, total }, statuses] = await Promise.all([listConfigs(args, params, showDeleted), params.type ? listTypeStatuses(args, params.type) : Promise.resolve([])])
    return data({ view: 'list' as const, params, showDeleted, summary: [], rows, total, statuses })
  } catch (error) {
    throw toErrorResponse(error)
  }
}

const HEALTH_ORDER = ['unhealthy', 'warning', 'healthy', 'unknown']

function HealthCounts({ health }: { health: TypeSummary['health'] }) {
  const entries = Object.entries(health)
    .filter(([, count]) => (count ?? 0) > 0)
    .sort(([a], [b]) => HEALTH_ORDER.indexOf(a) - HEALTH_ORDER.indexOf(b))
  return (
    <span className="flex flex-wrap gap-1" data-testid="type-health">
      {entries.map(([name, count]) => (
        <Badge key={name} variant={name === 'healthy' ? 'success' : name === 'unhealthy' ? 'danger' : name === 'warning' ? 'warning' : 'outline'} title={name}>
          {count} {name}
        </Badge>
      ))}
    </span>
  )
}

const summaryColumns: UrlColumn<TypeSummary>[] = [
  {
    id: 'type',
    header: 'Type',
    cell: ({ row }) => (
      <Link to={catalogTypeHref(row.original.type)} className="font-medium hover:underline" data-testid="type-link">
        <ConfigType type={row.original.type} />
      </Link>
    ),
  },
  { id: 'count', header: 'Items', cell: ({ row }) => <span className="tabular-nums" data-testid="type-count">{row.original.count}</span> },
  { id: 'health', header: 'Health', cell: ({ row }) => <HealthCounts health={row.original.health} /> },
  { id: 'changes', header: 'Changes (30d)', cell: ({ row }) => <span className="tabular-nums">{row.original.changes || ''}</span> },
  { id: 'analysis', header: 'Insights', cell: ({ row }) => <span className="tabular-nums">{row.original.analysis || ''}</span> },
  { id: 'cost_30d', header: 'Cost (30d)', cell: ({ row }) => <span className="tabular-nums">{formatCost(row.original.cost_30d)}</span> },
  { id: 'updated_at', header: 'Updated', cell: ({ row }) => <DateTime value={row.original.updated_at} className="whitespace-nowrap tabular-nums" /> },
]

function listColumns(search: string, withType: boolean): UrlColumn<ConfigListRow>[] {
  return [
    {
      id: 'name',
      header: 'Name',
      enableSorting: true,
      cell: ({ row }) => (
        <Link to={`/catalog/${row.original.id}`} className="font-medium hover:underline" data-testid="config-link">
          {row.original.name ?? row.original.id}
          {row.original.deleted_at ? (
            <Badge variant="outline" className="ml-2">
              deleted
            </Badge>
          ) : null}
        </Link>
      ),
    },
    ...(withType ? [{ id: 'type', header: 'Type', enableSorting: true, cell: ({ row }: { row: { original: ConfigListRow } }) => <ConfigType type={row.original.type} /> } satisfies UrlColumn<ConfigListRow>] : []),
    { id: 'health', header: 'Health', enableSorting: true, cell: ({ row }) => <HealthBadge health={row.original.health} testId="config-health" /> },
    { id: 'status', header: 'Status', enableSorting: true, cell: ({ row }) => <span className="whitespace-nowrap">{row.original.status}</span> },
    { id: 'tags', header: 'Tags', enableSorting: false, cell: ({ row }) => <KeyValueChips values={row.original.tags} filterParam="tag" search={search} limit={3} /> },
    { id: 'labels', header: 'Labels', enableSorting: false, cell: ({ row }) => <KeyValueChips values={row.original.labels} filterParam="label" search={search} limit={3} /> },
    { id: 'changes', header: 'Changes (7d)', enableSorting: true, cell: ({ row }) => <span className="tabular-nums">{row.original.changes || ''}</span> },
    { id: 'insights', header: 'Insights', enableSorting: false, cell: ({ row }) => <span className="tabular-nums">{countOf(row.original.analysis) || ''}</span> },
    { id: 'cost_total_30d', header: 'Cost (30d)', enableSorting: true, cell: ({ row }) => <span className="tabular-nums">{formatCost(row.original.cost_total_30d)}</span> },
    { id: 'updated_at', header: 'Updated', enableSorting: true, cell: ({ row }) => <DateTime value={row.original.updated_at} className="whitespace-nowrap tabular-nums" /> },
  ]
}

/** The show-deleted switch: a link, so it works without JavaScript. */
function ShowDeletedLink({ showDeleted, search }: { showDeleted: boolean; search: string }) {
  return (
    <Link to={hrefWith(search, { showDeleted: showDeleted ? 'no' : 'yes' })} preventScrollReset className={buttonVariants({ variant: 'outline', size: 'sm' })} data-testid="show-deleted" aria-pressed={showDeleted}>
      {showDeleted ? <EyeOff aria-hidden="true" /> : <Eye aria-hidden="true" />}
      {showDeleted ? 'Hide deleted' : 'Show deleted'}
    </Link>
  )
}

/** The label and tag filters in force, each removable. */
function ActivePairs({ params, search }: { params: CatalogListParams; search: string }) {
  const pairs = [...params.label.map((value) => ['label', value] as const), ...params.tag.map((value) => ['tag', value] as const)]
  if (pairs.length === 0) return null
  return (
    <ul className="flex flex-wrap gap-1" data-testid="active-pairs">
      {pairs.map(([param, value]) => (
        <li key={`${param}-${value}`}>
          <Link
            to={hrefWith(search, { [param]: params[param].filter((other) => other !== value) })}
            preventScrollReset
            className="inline-flex items-center gap-1 rounded border bg-muted px-1.5 py-0.5 font-mono text-xs hover:bg-accent"
            aria-label={`Remove ${param} ${value}`}
          >
            {param}: {value}
            <X aria-hidden="true" className="size-3" />
          </Link>
        </li>
      ))}
    </ul>
  )
}

export default function CatalogRoute() {
  const { view, params, showDeleted, summary, rows, total, statuses } = useLoaderData<typeof loader>()
  const { search } = useLocation()
  const pageCount = Math.max(1, Math.ceil(total / params.pageSize))
  return (
    <div className="flex flex-col">
      <CatalogNav />
      <section className="flex flex-col gap-4 p-6" data-testid={view === 'summary' ? 'catalog-summary' : 'catalog-list'}>
        <div className="flex flex-wrap items-center justify-between gap-2">
          <div className="flex items-center gap-2">
            {params.type ? (
              <>
                <Link to="/catalog" className="text-sm text-muted-foreground hover:underline" data-testid="catalog-all-types">
                  All types
                </Link>
                <span aria-hidden="true" className="text-muted-foreground">
                  /
                </span>
                <h1 className="text-lg font-semibold" data-testid="catalog-type-title">
                  <ConfigType type={params.type} iconClassName="size-5" />
                </h1>
              </>
            ) : (
              <h1 className="text-lg font-semibold">{view === 'summary' ? 'Config types' : 'Config items'}</h1>
            )}
          </div>
          <ShowDeletedLink showDeleted={showDeleted} search={search} />
        </div>
        <CatalogFilters
          testId="catalog-filters"
          search={params.search}
          searchPlaceholder="Search by name"
          selects={[
            { name: 'health', label: 'Health', value: params.health[0] ?? '', options: CONFIG_HEALTHS },
            ...(params.type ? [{ name: 'status', label: 'Status', value: params.status[0] ?? '', options: statuses }] : []),
          ]}
        >
          <div className="flex w-40 flex-col gap-1">
            <Label htmlFor="catalog-filters-label">Label</Label>
            <Input id="catalog-filters-label" name="label" placeholder="key=value" data-testid="catalog-filters-label" />
          </div>
          <div className="flex w-40 flex-col gap-1">
            <Label htmlFor="catalog-filters-tag">Tag</Label>
            <Input id="catalog-filters-tag" name="tag" placeholder="key=value" data-testid="catalog-filters-tag" />
          </div>
        </CatalogFilters>
        <ActivePairs params={params} search={search} />
        {view === 'summary' ? (
          <UrlTable data={summary} columns={summaryColumns} getRowId={(row) => row.type} rowHref={(row) => catalogTypeHref(row.type)} testId="catalog-types-table" caption="Config types" />
        ) : (
          <UrlTable
            data={rows}
            columns={listColumns(search, !params.type)}
            getRowId={(row) => row.id}
            rowHref={(row) => `/catalog/${row.id}`}
            urlSorting={{ id: params.sortBy, desc: params.sortDesc }}
            pagination={{ page: params.page, pageCount, pageSize: params.pageSize, pageSizes: CATALOG_PAGE_SIZES, totalRows: total }}
            testId="catalog-items-table"
            caption="Config items"
          />
        )}
      </section>
    </div>
  )
}

export function ErrorBoundary() {
  return <GeneralErrorBoundary />
}
