import { Link } from '@remix-run/react'
import type { DataColumn } from '#app/components/data-table/data-table.tsx'
import { ChevronRight } from '#app/components/ui/icons.tsx'
import { DateTime } from '#app/components/date-time.tsx'
import { LinkToIncident } from '#app/components/incidents/attach-evidence.tsx'
import { ConfigType, SeverityBadge } from './catalog-badges.tsx'
import { DiffView } from './diff-view.tsx'

/** What a change row shows; the loader's `ChangeRow` (catalog-screens.server.ts) satisfies it. */
export type ChangeListItem = {
  id: string
  config_id: string
  name: string | null
  type: string | null
  change_type: string | null
  severity: string | null
  source: string | null
  summary: string | null
  diff: string | null
  details: unknown
  created_at: string
  external_created_by: string | null
  count: number | null
}

/**
 * A change's summary with its diff and details folded under it (`<details>`, so the diff opens
 * without JavaScript) and the way to attach it to an incident (evidence type config_change).
 */
function ChangeSummary({ change, canLink }: { change: ChangeListItem; canLink: boolean }) {
  const hasDetails = change.details !== null && change.details !== undefined && !(typeof change.details === 'object' && Object.keys(change.details as object).length === 0)
  const text = change.summary || change.change_type || 'Change'
  if (!change.diff && !hasDetails && !canLink) return <span>{text}</span>
  return (
    <details className="group" data-testid="change-details">
      <summary className="flex cursor-pointer list-none items-start gap-1 hover:underline" data-testid="change-summary">
        <ChevronRight aria-hidden="true" className="mt-0.5 size-4 shrink-0 transition-transform [details[open]>summary>&]:rotate-90" />
        {text}
      </summary>
      <div className="mt-2 flex max-w-3xl flex-col gap-2">
        {change.diff ? <DiffView diff={change.diff} /> : null}
        {hasDetails ? <pre className="max-h-64 overflow-auto rounded-md border bg-card p-2 font-mono text-xs">{JSON.stringify(change.details, null, 2)}</pre> : null}
        <div>
          <LinkToIncident
            canLink={canLink}
            target={{ type: 'config_change', config_change_id: change.id, description: `${change.change_type ?? 'Change'} on ${change.name ?? change.config_id}: ${change.summary ?? ''}`.trim() }}
          />
        </div>
      </div>
    </details>
  )
}

/** The change table's columns, for /catalog/changes and an item's Changes tab (without the item column). */
export function changeColumns({ canLink, withItem }: { canLink: boolean; withItem: boolean }): DataColumn<ChangeListItem>[] {
  return [
    {
      id: 'created_at',
      header: 'Created',
      accessorFn: (row) => row.created_at,
      cell: ({ row }) => <DateTime value={row.original.created_at} className="whitespace-nowrap tabular-nums" />,
    },
    ...(withItem
      ? [
          {
            id: 'name',
            header: 'Item',
            accessorFn: (row: ChangeListItem) => row.name,
            cell: ({ row }: { row: { original: ChangeListItem } }) => (
              <Link to={`/catalog/${row.original.config_id}`} className="flex flex-col hover:underline" data-testid="change-item">
                <span className="font-medium">{row.original.name ?? row.original.config_id}</span>
                <ConfigType type={row.original.type} className="text-xs text-muted-foreground" iconClassName="size-3" />
              </Link>
            ),
          } satisfies DataColumn<ChangeListItem>,
        ]
      : []),
    { id: 'change_type', header: 'Change', accessorFn: (row) => row.change_type, cell: ({ row }) => <span className="whitespace-nowrap">{row.original.change_type}</span> },
    { id: 'severity', header: 'Severity', accessorFn: (row) => row.severity, cell: ({ row }) => <SeverityBadge severity={row.original.severity} /> },
    { id: 'summary', header: 'Summary', enableSorting: false, cell: ({ row }) => <ChangeSummary change={row.original} canLink={canLink} /> },
    { id: 'source', header: 'Source', accessorFn: (row) => row.source, cell: ({ row }) => <span className="text-muted-foreground">{row.original.source}</span> },
    {
      id: 'created_by',
      header: 'By',
      enableSorting: false,
      cell: ({ row }) => <span className="text-muted-foreground">{row.original.external_created_by ?? ''}</span>,
    },
    { id: 'count', header: 'Count', accessorFn: (row) => row.count, cell: ({ row }) => <span className="tabular-nums">{row.original.count ?? 1}</span> },
  ]
}
