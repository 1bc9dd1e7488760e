import { Link } from '@remix-run/react'
import { UrlTable, type UrlColumn } from '#app/components/data-table/url-table.tsx'
import { ChevronRight } from '#app/components/ui/icons.tsx'
import { CATALOG_PAGE_SIZES, type ChangeRow, type ChangeListParams } from '#app/lib/catalog-vocabulary.ts'
import { DateTime } from '#app/components/date-time.tsx'
import { AttachEvidenceLink } from './attach-link.tsx'
import { ConfigType, SeverityBadge } from './catalog-badges.tsx'
import { DiffView } from './diff-view.tsx'


/**
 * A change's summary with its diff and details folded under it (`<details>`, so the diff opens
 * without JavaScript) and the way to attach it to an incident (evidence type config_change).
 */
function ChangeSummary({ change, canLink }: { change: ChangeRow; canLink: boolean }) {
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
          <AttachEvidenceLink
            canLink={canLink}
            target={{ type: 'config_change', config_change_id: change.id, description: `${change.change_type ?? 'Change'} on ${change.name ?? change.config_id}: ${change.summary ?? ''}`.trim() }}
          />
        </div>
      </div>
    </details>
  )
}

/** The change table's columns, for /catalog/changes and an item's Changes tab (without the item column). */
export function changeColumns({ canLink, withItem }: { canLink: boolean; withItem: boolean }): UrlColumn<ChangeRow>[] {
  return [
    {
      id: 'created_at',
      header: 'Created',
      enableSorting: true,
      cell: ({ row }) => <DateTime value={row.original.created_at} className="whitespace-nowrap tabular-nums" />,
    },
    ...(withItem
      ? [
          {
            id: 'name',
            header: 'Item',
            enableSorting: true,
            cell: ({ row }: { row: { original: ChangeRow } }) => (
              <Link to={`/catalog/${row.original.config_id}`} className="flex flex-col hover:underline" data-testid="change-item">
                <span className="font-medium">{row.original.name ?? row.original.config_id}</span>
                <ConfigType type={row.original.type} className="text-xs text-muted-foreground" iconClassName="size-3" />
              </Link>
            ),
          } satisfies UrlColumn<ChangeRow>,
        ]
      : []),
    { id: 'change_type', header: 'Change', enableSorting: true, cell: ({ row }) => <span className="whitespace-nowrap">{row.original.change_type}</span> },
    { id: 'severity', header: 'Severity', enableSorting: true, cell: ({ row }) => <SeverityBadge severity={row.original.severity} /> },
    { id: 'summary', header: 'Summary', enableSorting: false, cell: ({ row }) => <ChangeSummary change={row.original} canLink={canLink} /> },
    { id: 'source', header: 'Source', enableSorting: true, cell: ({ row }) => <span className="text-muted-foreground">{row.original.source}</span> },
    {
      id: 'created_by',
      header: 'By',
      enableSorting: false,
      cell: ({ row }) => <span className="text-muted-foreground">{row.original.external_created_by ?? ''}</span>,
    },
    { id: 'count', header: 'Count', enableSorting: true, cell: ({ row }) => <span className="tabular-nums">{row.original.count ?? 1}</span> },
  ]
}

/** The change table alone: sort and paging links in the URL, each row's diff unfolding in place. */
export function ChangesTable({ rows, total, params, canLink, withItem }: { rows: ChangeRow[]; total: number; params: Pick<ChangeListParams, 'sortBy' | 'sortDesc' | 'page' | 'pageSize'>; canLink: boolean; withItem: boolean }) {
  return (
    <UrlTable
      data={rows}
      columns={changeColumns({ canLink, withItem })}
      getRowId={(row) => row.id}
      urlSorting={{ id: params.sortBy, desc: params.sortDesc }}
      pagination={{ page: params.page, pageCount: Math.max(1, Math.ceil(total / params.pageSize)), pageSize: params.pageSize, pageSizes: CATALOG_PAGE_SIZES, totalRows: total }}
      testId="changes-table"
      caption="Config changes"
    />
  )
}
