import { data, type LoaderFunctionArgs } from '@remix-run/node'
import { Link, useLoaderData } from '@remix-run/react'
import { CatalogFilters } from '#app/components/catalog/catalog-filters.tsx'
import { CatalogNav } from '#app/components/catalog/catalog-nav.tsx'
import type { DataColumn } from '#app/components/data-table/data-table.tsx'
import { DateTime } from '#app/components/date-time.tsx'
import { GeneralErrorBoundary } from '#app/components/error-boundary.tsx'
import { ListPage } from '#app/components/list-page/list-page.tsx'
import { Badge } from '#app/components/ui/badge.tsx'
import { hasAccess } from '#app/lib/access.ts'
import { parseScraperListParams } from '#app/lib/catalog-search.ts'
import { listScrapers, type ScraperRow } from '#app/lib/catalog-screens.server.ts'
import { CATALOG_PAGE_SIZES } from '#app/lib/catalog-vocabulary.ts'
import type { RouteHandle } from '#app/lib/route-handle.ts'
import { requireAccess, toErrorResponse } from '#app/lib/session.server.ts'
import { readToast } from '#app/lib/toast.server.ts'

export const handle = { title: 'Catalog Scrapers', feature: 'settings.config_scraper', resource: 'config_scrapers' } satisfies RouteHandle

/** /catalog/scrapers: every scraper with its schedule, last run, its status and how many items it keeps. */
export async function loader(args: LoaderFunctionArgs) {
  const session = await requireAccess(args, handle)
  const params = parseScraperListParams(new URL(args.request.url).searchParams)
  const { toast, headers } = readToast(args.request)
  try {
    const { rows, total } = await listScrapers(args, params)
    return data({ rows, total, params, toast, canWrite: hasAccess(session, 'config_scrapers', 'write') }, { headers })
  } catch (error) {
    throw toErrorResponse(error)
  }
}

const JOB_TONE: Record<string, 'success' | 'danger' | 'warning' | 'secondary'> = { SUCCESS: 'success', FAILED: 'danger', WARNING: 'warning', RUNNING: 'secondary' }

/** The scraper kinds a spec holds (`file`, `http`, `kubernetes`…): every key that is not a common setting. */
function scraperKinds(spec: ScraperRow['spec']): string[] {
  return Object.keys(spec ?? {}).filter((key) => !['schedule', 'retention', 'full', 'logLevel'].includes(key) && Array.isArray((spec as Record<string, unknown>)[key]))
}

const columns: DataColumn<ScraperRow>[] = [
  {
    id: 'name',
    header: 'Name',
    accessorFn: (row) => row.name,
    cell: ({ row }) => (
      <Link to={`/catalog/scrapers/${row.original.id}`} className="font-medium hover:underline" data-testid="scraper-link">
        {row.original.namespace ? <span className="text-muted-foreground">{row.original.namespace}/</span> : null}
        {row.original.name}
      </Link>
    ),
  },
  { id: 'kinds', header: 'Scrapes', enableSorting: false, cell: ({ row }) => <span className="text-muted-foreground">{scraperKinds(row.original.spec).join(', ')}</span> },
  { id: 'schedule', header: 'Schedule', enableSorting: false, cell: ({ row }) => <span className="font-mono text-xs">{row.original.spec?.schedule ?? ''}</span> },
  { id: 'source', header: 'Source', accessorFn: (row) => row.source },
  { id: 'job_time_start', header: 'Last run', accessorFn: (row) => row.job_time_start, cell: ({ row }) => <DateTime value={row.original.job_time_start} className="whitespace-nowrap tabular-nums" testId="scraper-last-run" /> },
  {
    id: 'job_status',
    header: 'Status',
    accessorFn: (row) => row.job_status,
    cell: ({ row }) => (row.original.job_status ? <Badge variant={JOB_TONE[row.original.job_status] ?? 'outline'} data-testid="scraper-status">{row.original.job_status}</Badge> : null),
  },
  { id: 'items', header: 'Items', enableSorting: false, cell: ({ row }) => <span className="tabular-nums" data-testid="scraper-items">{row.original.items ?? ''}</span> },
  {
    id: 'counts',
    header: 'Last run result',
    enableSorting: false,
    cell: ({ row }) =>
      row.original.job_status ? (
        <span className="whitespace-nowrap text-xs text-muted-foreground">
          {row.original.job_success_count ?? 0} ok, {row.original.job_error_count ?? 0} errors
        </span>
      ) : null,
  },
]

export default function CatalogScrapersRoute() {
  const { rows, total, params, toast, canWrite } = useLoaderData<typeof loader>()
  const pageCount = Math.max(1, Math.ceil(total / params.pageSize))
  return (
    <div className="flex flex-col">
      <CatalogNav />
      <ListPage
        testId="scrapers-page"
        addAction={canWrite ? { label: 'Add Scraper', to: '/catalog/scrapers/new', testId: 'scraper-add' } : null}
        filterBar={<CatalogFilters testId="scraper-filters" search={params.search} searchPlaceholder="Search by name" selects={[]} />}
        table={{
          data: rows,
          columns,
          getRowId: (row) => row.id,
          rowHref: (row) => `/catalog/scrapers/${row.id}`,
          urlSorting: { id: params.sortBy, desc: params.sortDesc },
          pagination: { page: params.page, pageCount, pageSize: params.pageSize, pageSizes: CATALOG_PAGE_SIZES, totalRows: total },
          testId: 'scrapers-table',
          rowTestId: 'scraper-row',
        }}
        toast={toast}
      />
    </div>
  )
}

export function ErrorBoundary() {
  return <GeneralErrorBoundary />
}
