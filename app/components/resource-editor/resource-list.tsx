import { Link } from '@remix-run/react'
import type { DataColumn, DataTableProps } from '#app/components/data-table/data-table.tsx'
import { Badge } from '#app/components/ui/badge.tsx'
import { timeAgo } from '#app/lib/format.ts'
import { jobStatusTone, RESOURCE_LIST_PAGE_SIZES, resourceListColumns, sourceInfo, type ResourceKind, type ResourceListSearch, type ResourceRow } from '#app/lib/resource-editor-shapes.ts'

export type ResourceListTableOptions = {
  kind: ResourceKind
  rows: ResourceRow[]
  total: number
  search: ResourceListSearch
  /** Render time, so the server and the browser print the same ages. */
  now: string
}

function text(value: unknown): string {
  return typeof value === 'string' ? value : ''
}

/**
 * The settings list of one table (spec 002 §2) as `DataTable` props for `ListPage`: name, where
 * it came from, its last job and age, sorted and paged on the server through the URL.
 */
export function resourceListTable({ kind, rows, total, search, now }: ResourceListTableOptions): DataTableProps<ResourceRow> {
  const at = new Date(now)
  const sortable = new Set<string>(resourceListColumns(kind))
  const hrefOf = (row: ResourceRow) => `/settings/${kind.table}/${row.id}`
  const columns: DataColumn<ResourceRow>[] = [
    {
      id: 'name',
      accessorFn: (row) => text(row.name),
      header: 'Name',
      cell: ({ row }) => (
        <Link to={hrefOf(row.original)} className="font-medium hover:underline" data-testid="resource-link">
          {text(row.original.name) || row.original.id}
        </Link>
      ),
    },
  ]
  if (kind.namespaced) columns.push({ id: 'namespace', accessorFn: (row) => text(row.namespace), header: 'Namespace' })
  columns.push(
    {
      id: 'source',
      accessorFn: (row) => text(row.source),
      header: 'Source',
      cell: ({ row }) => {
        const info = sourceInfo(row.original)
        return (
          <span className="inline-flex items-center gap-1.5" data-testid="resource-source" data-read-only={info.readOnly}>
            {text(row.original.source) || 'UI'}
          </span>
        )
      },
    },
    {
      id: 'status',
      accessorFn: (row) => text(row.job_status),
      header: 'Last run',
      cell: ({ row }) => {
        const status = text(row.original.job_status)
        if (!status) return <span className="text-muted-foreground">—</span>
        const ran = timeAgo(text(row.original.job_time_start) || null, at)
        return (
          <span className="inline-flex items-center gap-2">
            <Badge variant={jobStatusTone(status)} data-testid="resource-job-status">
              {status}
            </Badge>
            {ran ? <span className="text-xs text-muted-foreground">{ran}</span> : null}
          </span>
        )
      },
    },
    { id: 'updated_at', accessorFn: (row) => text(row.updated_at), header: 'Updated', cell: ({ row }) => timeAgo(text(row.original.updated_at) || null, at) ?? '' },
    { id: 'created_at', accessorFn: (row) => text(row.created_at), header: 'Created', cell: ({ row }) => timeAgo(text(row.original.created_at) || null, at) ?? '' },
  )
  // Sorting is the server's (URL mode); the accessors only let the table offer the sort links.
  for (const column of columns) column.enableSorting = sortable.has(column.id!)
  return {
    data: rows,
    columns,
    getRowId: (row) => String(row.id),
    rowHref: hrefOf,
    urlSorting: { id: search.sortBy, desc: search.sortDesc },
    pagination: { page: search.page, pageCount: Math.max(1, Math.ceil(total / search.pageSize)), pageSize: search.pageSize, pageSizes: RESOURCE_LIST_PAGE_SIZES, totalRows: total, testId: 'resource-pagination' },
    emptyMessage: 'No resources found',
    testId: 'resource-table',
    caption: kind.label,
  }
}
