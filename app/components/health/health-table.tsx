import { Link, useLocation } from '@remix-run/react'
import { Activity } from '#app/components/ui/icons.tsx'
import { ExpanderLink, UrlTable, type UrlColumn } from '#app/components/data-table/url-table.tsx'
import { Badge } from '#app/components/ui/badge.tsx'
import { cn } from '#app/lib/cn.ts'
import { formatLatency, formatPercent, timeAgo } from '#app/lib/format.ts'
import type { PaginationProps } from '#app/components/data-table/pagination.tsx'
import { showRuntimeAge, showTransitionAge, withParams, type CheckRow, type HealthRow, type SortColumn } from './health-model.ts'
import { StatusDot } from './status-dot.tsx'

export type HealthTableProps = {
  rows: HealthRow[]
  sortBy: SortColumn | null
  sortDesc: boolean
  expanded: string[]
  pagination: PaginationProps
  now: Date
}

const rowId = (row: HealthRow) => (row.kind === 'group' ? `group:${row.key}` : row.id)

/** A check's link: the panel opens on a 1 h range (spec 001 §2). */
export function checkHref(search: string, id: string): string {
  return withParams(search, { checkId: id, timeRange: '1h', checkTab: null, historyPage: null, historyStatus: null, historyDuration: null, historyDurationCustom: null }, true)
}

export function expandHref(search: string, expanded: string[], key: string): string {
  const next = expanded.includes(key) ? expanded.filter((item) => item !== key) : [...expanded, key]
  return withParams(search, { expanded: next.length ? next.join(',') : null }, true)
}

function NameCell({ row, search }: { row: HealthRow; search: string }) {
  if (row.kind === 'group') {
    return (
      <span className="flex items-center gap-2 font-medium" data-testid="group-name">
        <Activity aria-hidden="true" className="size-4 text-muted-foreground" />
        {row.name}
        <Badge variant="secondary">{row.childCount}</Badge>
        {row.namespaces.slice(0, 3).map((namespace) => (
          <Badge key={namespace} variant="outline">
            {namespace}
          </Badge>
        ))}
      </span>
    )
  }
  return (
    <Link to={checkHref(search, row.id)} preventScrollReset className={cn('flex items-center gap-2 hover:underline', row.deleted && 'line-through opacity-70')} data-testid="check-link" data-check-id={row.id}>
      <Activity aria-hidden="true" className="size-4 shrink-0 text-muted-foreground" />
      <span className="truncate">{row.name}</span>
      {row.deleted ? <Badge variant="danger">deleted</Badge> : null}
      {row.namespace ? <Badge variant="outline">{row.namespace}</Badge> : null}
    </Link>
  )
}

function uptimeText(row: HealthRow): string {
  if (row.kind === 'group') return `${row.passingChildren}/${row.childCount}`
  return formatPercent(row.passed, row.passed + row.failed) ?? ''
}

export function healthColumns(search: string, expanded: string[], now: Date): UrlColumn<HealthRow>[] {
  return [
    {
      id: 'expander',
      header: () => <span className="sr-only">Expand</span>,
      enableSorting: false,
      size: 32,
      cell: ({ row }) =>
        row.original.kind === 'group' ? <ExpanderLink href={expandHref(search, expanded, row.original.key)} expanded={row.original.expanded} label={row.original.name} /> : null,
    },
    { id: 'name', header: 'Checks', enableSorting: true, cell: ({ row }) => <NameCell row={row.original} search={search} /> },
    {
      id: 'health',
      header: 'Health',
      enableSorting: true,
      size: 140,
      cell: ({ row }) => {
        const item = row.original
        const runtime = item.kind === 'check' && showRuntimeAge(item.lastRuntime, now) ? timeAgo(item.lastRuntime, now) : null
        return (
          <span className="flex items-center gap-2" data-testid="health-cell" data-status={item.status}>
            <StatusDot status={item.status} />
            {runtime ? <span className="text-xs text-muted-foreground">{runtime}</span> : null}
          </span>
        )
      },
    },
    { id: 'uptime', header: 'Uptime', enableSorting: true, size: 100, cell: ({ row }) => <span data-testid="uptime-cell">{uptimeText(row.original)}</span> },
    { id: 'latency', header: 'Latency', enableSorting: true, size: 100, cell: ({ row }) => <span data-testid="latency-cell">{formatLatency(row.original.latency)}</span> },
    {
      id: 'transition',
      header: 'Transition',
      enableSorting: false,
      size: 110,
      cell: ({ row }) => {
        const item = row.original
        if (item.kind !== 'check' || !showTransitionAge(item.lastTransition, now)) return null
        return <span className="text-xs text-muted-foreground">{timeAgo(item.lastTransition, now)}</span>
      },
    },
  ]
}

/** The table layout of the health list (spec 001 §2 "Check list"). */
export function HealthTable({ rows, sortBy, sortDesc, expanded, pagination, now }: HealthTableProps) {
  const { search } = useLocation()
  return (
    <UrlTable<HealthRow>
      data={rows}
      columns={healthColumns(search, expanded, now)}
      getRowId={rowId}
      getSubRows={(row) => (row.kind === 'group' ? (row.children as HealthRow[]) : undefined)}
      isExpanded={(row) => row.kind === 'group' && row.expanded}
      expandHref={(row) => (row.kind === 'group' ? expandHref(search, expanded, row.key) : '')}
      rowHref={(row) => (row.kind === 'check' ? checkHref(search, row.id) : undefined)}
      urlSorting={{ id: sortBy, desc: sortDesc }}
      pagination={pagination}
      virtual
      testId="health-table"
      caption="Health checks"
    />
  )
}

/** Card layout: one card per row of the page; groups list their children when expanded. */
export function HealthCards({ rows, expanded, now }: { rows: HealthRow[]; expanded: string[]; now: Date }) {
  const { search } = useLocation()
  if (rows.length === 0) return <p className="py-10 text-center text-muted-foreground" data-testid="health-empty">No data available</p>
  const card = (row: CheckRow) => (
    <li key={row.id} className="rounded-lg border bg-card p-3 shadow-sm" data-testid="health-card" data-status={row.status}>
      <div className="flex items-center gap-2">
        <StatusDot status={row.status} />
        <NameCell row={row} search={search} />
      </div>
      <dl className="mt-2 grid grid-cols-3 gap-1 text-xs">
        <div>
          <dt className="text-muted-foreground">Uptime</dt>
          <dd>{uptimeText(row) || '—'}</dd>
        </div>
        <div>
          <dt className="text-muted-foreground">Latency</dt>
          <dd>{formatLatency(row.latency) || '—'}</dd>
        </div>
        <div>
          <dt className="text-muted-foreground">Transition</dt>
          <dd>{showTransitionAge(row.lastTransition, now) ? timeAgo(row.lastTransition, now) : '—'}</dd>
        </div>
      </dl>
    </li>
  )
  return (
    <ul className="grid grid-cols-[repeat(auto-fill,minmax(18rem,1fr))] gap-3" data-testid="health-cards">
      {rows.map((row) =>
        row.kind === 'check' ? (
          card(row)
        ) : (
          <li key={row.key} className="col-span-full rounded-lg border bg-muted/30 p-3" data-testid="health-card-group" data-status={row.status}>
            <div className="flex items-center gap-2">
              <ExpanderLink href={expandHref(search, expanded, row.key)} expanded={row.expanded} label={row.name} />
              <StatusDot status={row.status} />
              <NameCell row={row} search={search} />
              <span className="ml-auto text-xs text-muted-foreground">
                {uptimeText(row)} passing · {formatLatency(row.latency)}
              </span>
            </div>
            {row.expanded ? <ul className="mt-3 grid grid-cols-[repeat(auto-fill,minmax(18rem,1fr))] gap-3">{row.children.map(card)}</ul> : null}
          </li>
        ),
      )}
    </ul>
  )
}
