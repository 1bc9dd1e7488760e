import type { ColumnDef } from '@tanstack/react-table'
import { Link } from '@remix-run/react'
import { DataTable } from '#app/components/data-table/data-table.tsx'
import { Badge } from '#app/components/ui/badge.tsx'
import { timeAgo } from '#app/lib/format.ts'
import { jobStatusTone, sourceInfo, type ResourceKind, type ResourceRow } from '#app/lib/resource-editor.ts'

export type ResourceListProps = {
  kind: ResourceKind
  rows: ResourceRow[]
  /** Render time, so the server and the browser print the same ages. */
  now: string
}

function text(value: unknown): string {
  return typeof value === 'string' ? value : ''
}

/** The settings list of one table (spec 002 §2): name, where it came from, its last job and age. */
export function ResourceList({ kind, rows, now }: ResourceListProps) {
  const at = new Date(now)
  const hrefOf = (row: ResourceRow) => `/settings/${kind.table}/${row.id}`
  const columns: ColumnDef<ResourceRow, unknown>[] = [
    {
      id: 'name',
      accessorFn: (row) => text(row.name),
      header: 'Name',
      enableSorting: true,
      cell: ({ row }) => (
        <Link to={hrefOf(row.original)} className="font-medium hover:underline" data-testid="resource-link">
          {text(row.original.name) || row.original.id}
        </Link>
      ),
    },
  ]
  if (kind.namespaced) columns.push({ id: 'namespace', accessorFn: (row) => text(row.namespace), header: 'Namespace', enableSorting: true })
  columns.push(
    {
      id: 'source',
      accessorFn: (row) => text(row.source),
      header: 'Source',
      enableSorting: true,
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
      enableSorting: true,
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
    { id: 'updated_at', accessorFn: (row) => text(row.updated_at), header: 'Updated', enableSorting: true, cell: ({ row }) => timeAgo(text(row.original.updated_at) || null, at) ?? '' },
    { id: 'created_at', accessorFn: (row) => text(row.created_at), header: 'Created', enableSorting: true, cell: ({ row }) => timeAgo(text(row.original.created_at) || null, at) ?? '' },
  )
  return (
    <DataTable
      data={rows}
      columns={columns}
      getRowId={(row) => String(row.id)}
      rowHref={hrefOf}
      localPageSize={100}
      emptyMessage="No resources found"
      testId="resource-table"
      caption={kind.label}
    />
  )
}
