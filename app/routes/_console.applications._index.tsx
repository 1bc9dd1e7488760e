import { data, type LoaderFunctionArgs } from '@remix-run/node'
import { Link, useLoaderData } from '@remix-run/react'
import { CatalogFilters } from '#app/components/catalog/catalog-filters.tsx'
import { KeyValueChips } from '#app/components/catalog/catalog-badges.tsx'
import type { DataColumn } from '#app/components/data-table/data-table.tsx'
import { DateTime } from '#app/components/date-time.tsx'
import { GeneralErrorBoundary } from '#app/components/error-boundary.tsx'
import { ListPage } from '#app/components/list-page/list-page.tsx'
import { parseApplicationListParams } from '#app/lib/application-search.ts'
import { listApplications, type ApplicationRow } from '#app/lib/applications.server.ts'
import { CATALOG_PAGE_SIZES } from '#app/lib/catalog-vocabulary.ts'
import type { RouteHandle } from '#app/lib/route-handle.ts'
import { requireAccess, toErrorResponse } from '#app/lib/session.server.ts'

export const handle = { title: 'Applications', feature: 'applications', resource: 'database' } satisfies RouteHandle

/** /applications: the stored Application resources, each linking to its audit report. */
export async function loader(args: LoaderFunctionArgs) {
  await requireAccess(args, handle)
  const params = parseApplicationListParams(new URL(args.request.url).searchParams)
  try {
    const { rows, total } = await listApplications(args, params)
    return data({ rows, total, params })
  } catch (error) {
    throw toErrorResponse(error)
  }
}

function reportHref(row: ApplicationRow): string {
  return `/applications/${encodeURIComponent(row.namespace ?? 'default')}/${encodeURIComponent(row.name)}`
}

const columns: DataColumn<ApplicationRow>[] = [
  {
    id: 'name',
    header: 'Name',
    accessorFn: (row) => row.name,
    cell: ({ row }) => (
      <Link to={reportHref(row.original)} className="font-medium hover:underline" data-testid="application-link">
        {row.original.name}
      </Link>
    ),
  },
  { id: 'namespace', header: 'Namespace', accessorFn: (row) => row.namespace },
  { id: 'description', header: 'Description', enableSorting: false, cell: ({ row }) => <span className="text-muted-foreground">{row.original.description ?? ''}</span> },
  { id: 'labels', header: 'Labels', enableSorting: false, cell: ({ row }) => <KeyValueChips values={row.original.labels} limit={3} /> },
  { id: 'source', header: 'Source', accessorFn: (row) => row.source },
  { id: 'updated_at', header: 'Updated', accessorFn: (row) => row.updated_at, cell: ({ row }) => <DateTime value={row.original.updated_at ?? row.original.created_at} className="whitespace-nowrap tabular-nums" /> },
]

export default function ApplicationsRoute() {
  const { rows, total, params } = useLoaderData<typeof loader>()
  const pageCount = Math.max(1, Math.ceil(total / params.pageSize))
  return (
    <ListPage
      testId="applications-page"
      description="Applications group configs by their selectors; each opens an audit report of its configs, backups, incidents, insights and changes."
      filterBar={<CatalogFilters testId="application-filters" search={params.search} searchPlaceholder="Search by name" selects={[]} />}
      table={{
        data: rows,
        columns,
        getRowId: (row) => row.id,
        rowHref: reportHref,
        urlSorting: { id: params.sortBy, desc: params.sortDesc },
        pagination: { page: params.page, pageCount, pageSize: params.pageSize, pageSizes: CATALOG_PAGE_SIZES, totalRows: total },
        testId: 'applications-table',
        rowTestId: 'application-row',
      }}
    />
  )
}

export function ErrorBoundary() {
  return <GeneralErrorBoundary />
}
