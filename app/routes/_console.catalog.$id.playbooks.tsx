import { data, type LoaderFunctionArgs } from '@remix-run/node'
import { Link, useLoaderData } from '@remix-run/react'
import { UrlTable, type UrlColumn } from '#app/components/data-table/url-table.tsx'
import { DateTime } from '#app/components/date-time.tsx'
import { GeneralErrorBoundary } from '#app/components/error-boundary.tsx'
import { Badge } from '#app/components/ui/badge.tsx'
import { getConfigPlaybooks, type PlaybookRunRow } from '#app/lib/catalog-screens.server.ts'
import type { RouteHandle } from '#app/lib/route-handle.ts'
import { requireAccess, toErrorResponse } from '#app/lib/session.server.ts'

export const handle = { feature: 'config', resource: 'database' } satisfies RouteHandle

/** The item's Playbooks tab: the runs against it, newest first, and the playbooks that may run on it. */
export async function loader(args: LoaderFunctionArgs) {
  await requireAccess(args, handle)
  try {
    return data(await getConfigPlaybooks(args, args.params.id ?? ''))
  } catch (error) {
    throw toErrorResponse(error)
  }
}

const RUN_TONE: Record<string, 'success' | 'danger' | 'warning' | 'secondary'> = { completed: 'success', failed: 'danger', running: 'warning', cancelled: 'secondary' }

const columns: UrlColumn<PlaybookRunRow>[] = [
  {
    id: 'playbook',
    header: 'Playbook',
    cell: ({ row }) => (
      <Link to={`/playbooks/runs/${row.original.id}`} className="font-medium hover:underline" data-testid="config-run-link">
        {row.original.playbook?.title || row.original.playbook?.name || row.original.id}
      </Link>
    ),
  },
  { id: 'status', header: 'Status', cell: ({ row }) => <Badge variant={RUN_TONE[row.original.status ?? ''] ?? 'outline'}>{row.original.status}</Badge> },
  { id: 'start_time', header: 'Started', cell: ({ row }) => <DateTime value={row.original.start_time ?? row.original.created_at} className="whitespace-nowrap tabular-nums" /> },
  { id: 'end_time', header: 'Ended', cell: ({ row }) => <DateTime value={row.original.end_time} className="whitespace-nowrap tabular-nums" /> },
]

export default function CatalogItemPlaybooksRoute() {
  const { runs, playbooks } = useLoaderData<typeof loader>()
  return (
    <section className="flex flex-col gap-4 p-6" data-testid="config-playbooks">
      {playbooks && playbooks.length ? (
        <div className="flex flex-col gap-2">
          <h2 className="text-sm font-semibold">Playbooks for this item</h2>
          <ul className="flex flex-wrap gap-2" data-testid="config-playbook-options">
            {playbooks.map((playbook) => (
              <li key={playbook.id}>
                <Link to={`/playbooks/runs?${new URLSearchParams({ playbook: playbook.id }).toString()}`} className="rounded-md border bg-card px-2 py-1 text-sm hover:bg-muted">
                  {playbook.title || playbook.name}
                </Link>
              </li>
            ))}
          </ul>
        </div>
      ) : null}
      <h2 className="text-sm font-semibold">Runs</h2>
      <UrlTable data={runs} columns={columns} getRowId={(row) => row.id} rowHref={(row) => `/playbooks/runs/${row.id}`} testId="config-runs-table" caption="Playbook runs against this item" />
    </section>
  )
}

export function ErrorBoundary() {
  return <GeneralErrorBoundary />
}
