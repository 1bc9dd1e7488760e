import type { LoaderFunctionArgs } from '@remix-run/node'
import { Form, Link, useLoaderData, useLocation, useSubmit } from '@remix-run/react'
import { lazy, Suspense } from 'react'
import { requireSettingsAccess } from '#app/components/access/require-settings-access.server.ts'
import type { DataColumn } from '#app/components/data-table/data-table.tsx'
import { DateTime } from '#app/components/date-time.tsx'
import { GeneralErrorBoundary } from '#app/components/error-boundary.tsx'
import { ListPage } from '#app/components/list-page/list-page.tsx'
import { JobDetailsDialog as ServerRenderedJobDetailsDialog } from '#app/components/jobs/job-details-dialog.tsx'
import {
  ALL_JOB_STATUSES,
  DEFAULT_JOB_PAGE_SIZE,
  JOB_DURATIONS,
  JOB_PAGE_SIZES,
  JOB_RANGES,
  JOB_RESOURCE_TYPES,
  JOB_STATUSES,
  jobDetailTabs,
  jobResourceHref,
  jobStatusVariant,
  type JobDetailTab,
} from '#app/components/jobs/job-vocabulary.ts'
import { Badge } from '#app/components/ui/badge.tsx'
import { buttonVariants } from '#app/components/ui/button.tsx'
import { Label } from '#app/components/ui/label.tsx'
import { formatDuration } from '#app/lib/format.ts'
import { jobHistoryBounds, parseJobHistorySearch } from '#app/lib/job-history-search.ts'
import { getJobHistory, listJobHistory, listJobNames, type JobHistoryListRow } from '#app/lib/jobs.server.ts'
import type { RouteHandle } from '#app/lib/route-handle.ts'
import { toErrorResponse } from '#app/lib/session.server.ts'

// The details dialog loads when it opens; the server renders it in place, so the no-JS page and
// hydration see the same markup (decisions 007, 014).
const JobDetailsDialog = import.meta.env.SSR
  ? ServerRenderedJobDetailsDialog
  : /* @__PURE__ */ lazy(() => import('#app/components/jobs/job-details-dialog.tsx').then((module) => ({ default: module.JobDetailsDialog })))

export const handle = { title: 'Jobs History', feature: 'settings.job_history', resource: 'database' } satisfies RouteHandle

const PAGE = '/settings/jobs'

/**
 * /settings/jobs (spec 002 §2 "Job history", §9): every engine's runs from `job_histories`,
 * filtered by status (SUCCESS by default), time range (last 2 days by default), least duration,
 * resource type and name, sorted and paged (150 a page) in the URL. `?job={id}` opens
 * 'Details for job {name}' over the list when that job has errors or summaries to show.
 */
export async function loader(args: LoaderFunctionArgs) {
  await requireSettingsAccess(args, handle)
  const search = parseJobHistorySearch(new URL(args.request.url).searchParams)
  const now = new Date()
  try {
    const [page, names, job] = await Promise.all([
      listJobHistory(args, { ...search, ...jobHistoryBounds(search, now) }),
      listJobNames(args),
      search.job ? getJobHistory(args, search.job) : Promise.resolve(null),
    ])
    const opened = job && jobDetailTabs(job.details).length > 0 ? { id: job.id, name: job.name ?? job.id, details: job.details! } : null
    return {
      search,
      rows: page.rows,
      total: page.total,
      pageCount: Math.max(1, Math.ceil(page.total / search.pageSize)),
      names,
      job: opened,
      now: now.toISOString(),
    }
  } catch (error) {
    throw toErrorResponse(error)
  }
}

function withParams(search: string, changes: Record<string, string | null>): string {
  const params = new URLSearchParams(search)
  for (const [name, value] of Object.entries(changes)) {
    if (value === null) params.delete(name)
    else params.set(name, value)
  }
  const text = params.toString()
  return text ? `${PAGE}?${text}` : PAGE
}

function columns(search: string, now: Date): DataColumn<JobHistoryListRow>[] {
  return [
    {
      id: 'name',
      accessorFn: (row) => row.name,
      header: 'Name',
      cell: ({ row }) =>
        row.original.tabs.length > 0 ? (
          <Link to={withParams(search, { job: row.original.id, tab: null })} preventScrollReset className="font-medium hover:underline" data-testid="job-details-link">
            {row.original.name}
          </Link>
        ) : (
          <span className="font-medium">{row.original.name}</span>
        ),
    },
    {
      id: 'resource_type',
      accessorFn: (row) => row.resource_type,
      header: 'Resource',
      cell: ({ row }) => {
        const { resource_type: type, resource_id: id, resource_name: name } = row.original
        if (!type) return null
        const href = jobResourceHref(type, id)
        const label = name ?? id ?? ''
        return (
          <span className="flex items-center gap-1.5">
            <Badge variant="outline">{type}</Badge>
            {href ? (
              <Link to={href} className="max-w-xs truncate hover:underline" data-testid="job-resource-link" title={id ?? undefined}>
                {label}
              </Link>
            ) : (
              <span className="max-w-xs truncate">{label}</span>
            )}
          </span>
        )
      },
    },
    {
      id: 'status',
      accessorFn: (row) => row.status,
      header: 'Status',
      cell: ({ row }) => (
        <Badge variant={jobStatusVariant(row.original.status)} data-testid="job-status">
          {row.original.status}
        </Badge>
      ),
    },
    { id: 'time_start', header: 'Started', accessorFn: (row) => row.time_start, cell: ({ row }) => <DateTime value={row.original.time_start ?? row.original.created_at} now={now} className="whitespace-nowrap tabular-nums" /> },
    { id: 'duration_millis', header: 'Duration', accessorFn: (row) => row.duration_millis, cell: ({ row }) => <span className="tabular-nums">{row.original.duration_millis === null ? '' : formatDuration(row.original.duration_millis)}</span> },
    { id: 'success_count', header: 'Success', accessorFn: (row) => row.success_count, cell: ({ row }) => <span className="tabular-nums">{row.original.success_count ?? ''}</span> },
    { id: 'error_count', header: 'Errors', accessorFn: (row) => row.error_count, cell: ({ row }) => <span className="tabular-nums">{row.original.error_count ?? ''}</span> },
    { id: 'hostname', header: 'Host', enableSorting: false, cell: ({ row }) => <span className="text-xs text-muted-foreground">{row.original.agent?.name ?? row.original.hostname ?? ''}</span> },
  ]
}

export default function JobsHistoryRoute() {
  const { search, rows, total, pageCount, names, job, now } = useLoaderData<typeof loader>()
  const location = useLocation()
  const submit = useSubmit()
  const autoSubmit = (event: React.ChangeEvent<HTMLSelectElement>) => submit(event.currentTarget.form, { replace: true, preventScrollReset: true })
  const select = 'flex h-8 rounded-md border border-input bg-card px-2 text-sm'
  const listUrl = withParams(location.search, { job: null, tab: null })
  return (
    <ListPage
      testId="jobs-page"
      description={
        <span data-testid="jobs-total">
          {total} {total === 1 ? 'run' : 'runs'} of health checks, scrapers, topologies, playbooks, notifications and retention.
        </span>
      }
      filterBar={
        <Form method="get" action={PAGE} className="flex flex-wrap items-end gap-3" data-testid="jobs-filters">
          <div className="flex flex-col gap-1">
            <Label htmlFor="jobs-name">Name</Label>
            <select id="jobs-name" name="name" defaultValue={search.name ?? ''} onChange={autoSubmit} className={select} data-testid="jobs-filter-name">
              <option value="">All</option>
              {names.map((name) => (
                <option key={name} value={name}>
                  {name}
                </option>
              ))}
            </select>
          </div>
          <div className="flex flex-col gap-1">
            <Label htmlFor="jobs-resource-type">Resource type</Label>
            <select id="jobs-resource-type" name="resourceType" defaultValue={search.resourceType ?? ''} onChange={autoSubmit} className={select} data-testid="jobs-filter-resource-type">
              <option value="">All</option>
              {JOB_RESOURCE_TYPES.map((type) => (
                <option key={type} value={type}>
                  {type}
                </option>
              ))}
            </select>
          </div>
          <div className="flex flex-col gap-1">
            <Label htmlFor="jobs-status">Status</Label>
            <select id="jobs-status" name="status" defaultValue={search.status ?? ALL_JOB_STATUSES} onChange={autoSubmit} className={select} data-testid="jobs-filter-status">
              <option value={ALL_JOB_STATUSES}>All</option>
              {JOB_STATUSES.map((status) => (
                <option key={status} value={status}>
                  {status}
                </option>
              ))}
            </select>
          </div>
          <div className="flex flex-col gap-1">
            <Label htmlFor="jobs-range">Time range</Label>
            <select id="jobs-range" name="range" defaultValue={search.range} onChange={autoSubmit} className={select} data-testid="jobs-filter-range">
              {JOB_RANGES.map(([range, label]) => (
                <option key={range} value={range}>
                  {label}
                </option>
              ))}
            </select>
          </div>
          <div className="flex flex-col gap-1">
            <Label htmlFor="jobs-duration">Duration</Label>
            <select id="jobs-duration" name="duration" defaultValue={search.duration ?? ''} onChange={autoSubmit} className={select} data-testid="jobs-filter-duration">
              <option value="">None</option>
              {JOB_DURATIONS.map(([duration]) => (
                <option key={duration} value={duration}>
                  {`≥ ${duration}`}
                </option>
              ))}
            </select>
          </div>
          {search.pageSize !== DEFAULT_JOB_PAGE_SIZE ? <input type="hidden" name="pageSize" value={search.pageSize} /> : null}
          {search.sortBy ? <input type="hidden" name="sortBy" value={search.sortBy} /> : null}
          {search.sortBy ? <input type="hidden" name="sortDesc" value={String(search.sortDesc)} /> : null}
          <button type="submit" className={buttonVariants({ variant: 'outline', size: 'sm' })} data-testid="jobs-filters-apply">
            Apply
          </button>
          <Link to={PAGE} className={buttonVariants({ variant: 'ghost', size: 'sm' })} data-testid="jobs-filters-reset">
            Reset
          </Link>
        </Form>
      }
      table={{
        data: rows,
        columns: columns(location.search, new Date(now)),
        getRowId: (row) => row.id,
        // A run with details opens them on a row click too (the name stays the no-JS link).
        rowHref: (row) => (row.tabs.length > 0 ? withParams(location.search, { job: row.id, tab: null }) : undefined),
        urlSorting: { id: search.sortBy, desc: search.sortDesc },
        pagination: { page: search.page, pageCount, pageSize: search.pageSize, pageSizes: JOB_PAGE_SIZES, totalRows: total, testId: 'jobs-pagination' },
        testId: 'jobs-table',
        rowTestId: 'job-row',
        rowAttributes: (row) => ({ 'data-status': row.status ?? '' }),
        caption: 'Jobs history',
      }}
    >
      {job ? (
        <Suspense fallback={null}>
          <JobDetailsDialog
            name={job.name}
            details={job.details}
            tab={search.tab}
            closeTo={listUrl}
            tabHref={(tab: JobDetailTab) => withParams(location.search, { job: job.id, tab })}
          />
        </Suspense>
      ) : null}
    </ListPage>
  )
}

export function ErrorBoundary() {
  return <GeneralErrorBoundary />
}
