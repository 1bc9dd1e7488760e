import type { LoaderFunctionArgs } from '@remix-run/node'
import { Form, Link, useLoaderData, useSubmit } from '@remix-run/react'
import { UrlTable, type UrlColumn } from '#app/components/data-table/url-table.tsx'
import { DateTime } from '#app/components/date-time.tsx'
import { GeneralErrorBoundary } from '#app/components/error-boundary.tsx'
import { formatRunDuration, RUN_RANGES, RunStatusBadge } from '#app/components/playbooks/run-status.tsx'
import { buttonVariants } from '#app/components/ui/button.tsx'
import { Label } from '#app/components/ui/label.tsx'
import { RUN_STATUSES } from '#contract/playbook/playbook-vocabulary.ts'
import { parseRunsSearch, rangeStart } from '#app/lib/playbook-runs-search.ts'
import { listPlaybooks, listRunResources, listRuns, type RunListRow } from '#app/lib/playbooks.server.ts'
import type { RouteHandle } from '#app/lib/route-handle.ts'
import { requireAccess, toErrorResponse } from '#app/lib/session.server.ts'

export const handle = { title: 'Playbook Runs', feature: 'playbooks', resource: 'playbook_runs' } satisfies RouteHandle

/** /playbooks/runs (issue 16 item 6): every top-level run, newest first, filtered and paged in the URL. */
export async function loader(args: LoaderFunctionArgs) {
  await requireAccess(args, handle)
  const search = parseRunsSearch(new URL(args.request.url).searchParams)
  const now = new Date()
  try {
    const [page, playbooks, resources] = await Promise.all([
      listRuns(args, { ...search, since: rangeStart(search.range, now) }),
      listPlaybooks(args),
      listRunResources(args),
    ])
    return {
      search,
      rows: page.rows,
      total: page.total,
      pageCount: Math.max(1, Math.ceil(page.total / search.pageSize)),
      playbooks: playbooks.map((row) => ({ id: row.id, title: row.title || row.name })),
      resources,
      now: now.toISOString(),
    }
  } catch (error) {
    throw toErrorResponse(error)
  }
}

function resourceOf(row: RunListRow): { name: string; href: string } | null {
  if (row.config) return { name: row.config.name, href: `/catalog/${row.config.id}` }
  if (row.component) return { name: row.component.name, href: `/topology/${row.component.id}` }
  if (row.check) return { name: row.check.name, href: `/health?${new URLSearchParams({ checkId: row.check.id }).toString()}` }
  return null
}

function columns(now: Date): UrlColumn<RunListRow>[] {
  return [
    {
      id: 'playbook',
      header: 'Playbook',
      cell: ({ row }) => (
        <Link to={`/playbooks/runs/${row.original.id}`} className="font-medium hover:underline" data-testid="run-link">
          {row.original.playbooks?.title || row.original.playbooks?.name || row.original.id}
        </Link>
      ),
    },
    { id: 'status', header: 'Status', cell: ({ row }) => <RunStatusBadge status={row.original.status} testId="run-status" /> },
    {
      id: 'resource',
      header: 'Resource',
      cell: ({ row }) => {
        const resource = resourceOf(row.original)
        return resource ? (
          <Link to={resource.href} className="hover:underline">
            {resource.name}
          </Link>
        ) : null
      },
    },
    { id: 'created_at', header: 'Created', cell: ({ row }) => <DateTime value={row.original.created_at} now={now} className="whitespace-nowrap tabular-nums" /> },
    { id: 'duration', header: 'Duration', cell: ({ row }) => <span className="tabular-nums">{formatRunDuration(row.original.start_time, row.original.end_time, now)}</span> },
    { id: 'created_by', header: 'Run by', cell: ({ row }) => row.original.created_by?.name ?? '' },
  ]
}

export default function PlaybookRunsRoute() {
  const { search, rows, total, pageCount, playbooks, resources, now } = useLoaderData<typeof loader>()
  const submit = useSubmit()
  const autoSubmit = (event: React.ChangeEvent<HTMLSelectElement>) => submit(event.currentTarget.form, { replace: true, preventScrollReset: true })
  const select = 'flex h-8 rounded-md border border-input bg-card px-2 text-sm'
  return (
    <div className="flex flex-col gap-4 p-6" data-testid="playbook-runs-page">
      <header className="flex flex-wrap items-center justify-between gap-3">
        <div className="flex flex-col gap-1">
          <h1 className="text-lg font-semibold">Playbook Runs</h1>
          <p className="text-sm text-muted-foreground" data-testid="runs-total">
            {total} runs ·{' '}
            <Link to="/playbooks" className="hover:underline">
              Playbooks
            </Link>
          </p>
        </div>
      </header>
      <Form method="get" className="flex flex-wrap items-end gap-3" data-testid="runs-filters">
        <div className="flex flex-col gap-1">
          <Label htmlFor="runs-playbook">Playbook</Label>
          <select id="runs-playbook" name="playbook" defaultValue={search.playbook ?? ''} onChange={autoSubmit} className={select} data-testid="runs-filter-playbook">
            <option value="">All</option>
            {playbooks.map((playbook) => (
              <option key={playbook.id} value={playbook.id}>
                {playbook.title}
              </option>
            ))}
          </select>
        </div>
        <div className="flex flex-col gap-1">
          <Label htmlFor="runs-status">Status</Label>
          <select id="runs-status" name="status" defaultValue={search.status ?? ''} onChange={autoSubmit} className={select} data-testid="runs-filter-status">
            <option value="">All</option>
            {RUN_STATUSES.map((status) => (
              <option key={status} value={status}>
                {status.replaceAll('_', ' ')}
              </option>
            ))}
          </select>
        </div>
        <div className="flex flex-col gap-1">
          <Label htmlFor="runs-resource">Resource</Label>
          <select id="runs-resource" name="resource" defaultValue={search.resource ?? ''} onChange={autoSubmit} className={select} data-testid="runs-filter-resource">
            <option value="">All</option>
            {resources.map((resource) => (
              <option key={resource.id} value={resource.id}>
                {resource.name} ({resource.kind})
              </option>
            ))}
          </select>
        </div>
        <div className="flex flex-col gap-1">
          <Label htmlFor="runs-range">Time range</Label>
          <select id="runs-range" name="range" defaultValue={search.range ?? ''} onChange={autoSubmit} className={select} data-testid="runs-filter-range">
            <option value="">Any time</option>
            {RUN_RANGES.map(([range, label]) => (
              <option key={range} value={range}>
                {label}
              </option>
            ))}
          </select>
        </div>
        {search.pageSize !== 50 ? <input type="hidden" name="pageSize" value={search.pageSize} /> : null}
        <button type="submit" className={buttonVariants({ variant: 'outline', size: 'sm' })} data-testid="runs-filters-apply">
          Apply
        </button>
        <Link to="/playbooks/runs" className={buttonVariants({ variant: 'ghost', size: 'sm' })}>
          Reset
        </Link>
      </Form>
      <UrlTable
        data={rows}
        columns={columns(new Date(now))}
        getRowId={(row) => row.id}
        rowHref={(row) => `/playbooks/runs/${row.id}`}
        pagination={{ page: search.page, pageCount, pageSize: search.pageSize, totalRows: total, testId: 'runs-pagination' }}
        testId="runs-table"
        caption="Playbook runs"
      />
    </div>
  )
}

export function ErrorBoundary() {
  return <GeneralErrorBoundary />
}
