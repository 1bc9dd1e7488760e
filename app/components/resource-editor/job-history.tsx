import { Link } from '@remix-run/react'
import { DataTable, type DataColumn } from '#app/components/data-table/data-table.tsx'
import { Modal } from '#app/components/modal/modal.tsx'
import { Badge } from '#app/components/ui/badge.tsx'
import { formatDuration, timeAgo } from '#app/lib/format.ts'
import { JOB_HISTORY_PAGE_SIZE, jobDetailsTabs, jobStatusTone, type JobHistoryRow } from '#app/lib/resource-editor-shapes.ts'
import { cn } from '#app/lib/cn.ts'

export type JobHistoryProps = {
  rows: JobHistoryRow[]
  total: number | null
  page: number
  now: string
  /** The URL of this tab without the job parameters; links add `job` and `jobTab` to it. */
  baseHref: string
  openJobId: string | null
  openJobTab: string | null
}

function withParams(base: string, params: Record<string, string>): string {
  const [path, query = ''] = base.split('?')
  const search = new URLSearchParams(query)
  for (const [name, value] of Object.entries(params)) search.set(name, value)
  return `${path}?${search.toString()}`
}

/** The Job History tab (spec 002 §2): runs of this resource, newest first, 150 a page. */
export function JobHistory({ rows, total, page, now, baseHref, openJobId, openJobTab }: JobHistoryProps) {
  const at = new Date(now)
  const columns: DataColumn<JobHistoryRow>[] = [
    { id: 'name', accessorFn: (row) => row.name ?? '', header: 'Name' },
    {
      id: 'status',
      accessorFn: (row) => row.status ?? '',
      header: 'Status',
      cell: ({ row }) => (
        <Badge variant={jobStatusTone(row.original.status)} data-testid="job-status" data-status={row.original.status ?? ''}>
          {row.original.status ?? 'UNKNOWN'}
        </Badge>
      ),
    },
    { id: 'time_start', accessorFn: (row) => row.time_start ?? '', header: 'Started', cell: ({ row }) => <span title={row.original.time_start ?? undefined}>{timeAgo(row.original.time_start ?? row.original.created_at ?? null, at) ?? ''}</span> },
    { id: 'duration', accessorFn: (row) => row.duration_millis ?? 0, header: 'Duration', cell: ({ row }) => formatDuration(row.original.duration_millis ?? null) },
    { id: 'success_count', accessorFn: (row) => row.success_count ?? 0, header: 'Success' },
    { id: 'error_count', accessorFn: (row) => row.error_count ?? 0, header: 'Errors' },
    { id: 'hostname', accessorFn: (row) => row.hostname ?? '', header: 'Host' },
    {
      id: 'details',
      header: '',
      cell: ({ row }) =>
        jobDetailsTabs(row.original.details).length > 0 ? (
          <Link to={withParams(baseHref, { job: row.original.id })} preventScrollReset className="text-sm underline-offset-4 hover:underline" data-testid="job-details-link">
            Details
          </Link>
        ) : null,
    },
  ]
  const pageCount = Math.max(1, Math.ceil((total ?? rows.length) / JOB_HISTORY_PAGE_SIZE))
  const open = openJobId ? rows.find((row) => row.id === openJobId) : undefined
  return (
    <div className="flex flex-col gap-2" data-testid="job-history" data-total={total ?? ''}>
      <DataTable
        data={rows}
        columns={columns}
        getRowId={(row) => row.id}
        emptyMessage="No job history for this resource yet"
        testId="job-history-table"
        pagination={{ page, pageCount, pageSize: JOB_HISTORY_PAGE_SIZE, pageSizes: [JOB_HISTORY_PAGE_SIZE], totalRows: total ?? undefined, testId: 'job-pagination' }}
      />
      {open ? <JobDetails job={open} tab={openJobTab} baseHref={baseHref} /> : null}
    </div>
  )
}

function JobDetails({ job, tab, baseHref }: { job: JobHistoryRow; tab: string | null; baseHref: string }) {
  const tabs = jobDetailsTabs(job.details)
  // A job with nothing to show gets no modal (spec 002 §2).
  if (tabs.length === 0) return null
  const current = tabs.find((entry) => entry.id === tab) ?? tabs[0]!
  return (
    <Modal title={`Details for job ${job.name ?? job.id}`} closeTo={baseHref} size="medium" testId="job-details">
      <nav aria-label="Job details" className="mb-3 flex gap-1 border-b">
        {tabs.map((entry) => (
          <Link
            key={entry.id}
            to={withParams(baseHref, { job: job.id, jobTab: entry.id })}
            preventScrollReset
            aria-current={entry.id === current.id ? 'page' : undefined}
            data-testid={`job-tab-${entry.id}`}
            className={cn('-mb-px border-b-2 px-3 py-1.5 text-sm', entry.id === current.id ? 'border-primary font-medium' : 'border-transparent text-muted-foreground hover:text-foreground')}
          >
            {entry.label}
          </Link>
        ))}
      </nav>
      {current.id === 'errors' && Array.isArray(current.content) ? (
        <ul className="flex flex-col gap-1 text-sm text-danger" data-testid="job-errors">
          {current.content.map((line, index) => (
            <li key={index} className="whitespace-pre-wrap break-words font-mono text-xs">
              {typeof line === 'string' ? line : JSON.stringify(line)}
            </li>
          ))}
        </ul>
      ) : (
        <pre className="overflow-auto rounded-md bg-muted p-3 text-xs" data-testid={`job-${current.id}`}>
          {typeof current.content === 'string' ? current.content : JSON.stringify(current.content, null, 2)}
        </pre>
      )}
    </Modal>
  )
}
