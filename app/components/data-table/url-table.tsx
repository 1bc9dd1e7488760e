import { Link, useLocation, useNavigate } from '@remix-run/react'
import { ArrowDown, ArrowUp, ArrowUpDown, ChevronDown, ChevronRight } from '#app/components/ui/icons.tsx'
import { type KeyboardEvent, type MouseEvent, type ReactNode } from 'react'
import { useHydrated } from 'remix-utils/use-hydrated'
import { Table, TableBody, TableCell, TableHead, TableHeader, TableRow } from '#app/components/ui/table.tsx'
import { cn } from '#app/lib/cn.ts'
import type { PaginationProps } from './pagination.tsx'
import { EmptyTableRow, TableFrame, VirtualSpacer } from './table-parts.tsx'
import { ROW_ESTIMATE_PX, useVirtualWindow } from './use-virtual-window.ts'

/** Row height estimate and overscan of the virtual mode (spec 002 §9). */

/** Sorting kept in the URL: the page reads it back in its loader (spec 002 §3 "state kept outside"). */
export type UrlSorting = {
  id: string | null
  desc: boolean
  sortByParam?: string
  sortDescParam?: string
}

/** A column of a URL-mode table; the cell gets `{ row: { original } }` like the tanstack tables. */
export type UrlColumn<T> = {
  id: string
  header: ReactNode | (() => ReactNode)
  cell: (context: { row: { original: T } }) => ReactNode
  enableSorting?: boolean
  size?: number
}

export type UrlTableProps<T> = {
  data: T[]
  columns: UrlColumn<T>[]
  getRowId: (row: T) => string
  getSubRows?: (row: T) => T[] | undefined
  urlSorting?: UrlSorting
  pagination?: PaginationProps
  /** Which rows are open, and the link that toggles one. */
  isExpanded?: (row: T) => boolean
  expandHref?: (row: T) => string
  /** Where a row click goes (the first cell also carries it as a link for no-JS use). */
  rowHref?: (row: T) => string | undefined
  rowClassName?: (row: T) => string | undefined
  virtual?: boolean
  emptyMessage?: ReactNode
  testId?: string
  caption?: string
}

export function nextSortHref(search: string, column: string, sorting: UrlSorting): string {
  const params = new URLSearchParams(search)
  const byParam = sorting.sortByParam ?? 'sortBy'
  const descParam = sorting.sortDescParam ?? 'sortDesc'
  params.delete('page')
  // Single-column sort with removal: asc → desc → none.
  if (sorting.id !== column) {
    params.set(byParam, column)
    params.set(descParam, 'false')
  } else if (!sorting.desc) {
    params.set(descParam, 'true')
  } else {
    params.delete(byParam)
    params.delete(descParam)
  }
  return `?${params.toString()}`
}

export function SortIcon({ state }: { state: false | 'asc' | 'desc' }) {
  if (state === 'asc') return <ArrowUp aria-hidden="true" className="size-3" />
  if (state === 'desc') return <ArrowDown aria-hidden="true" className="size-3" />
  return <ArrowUpDown aria-hidden="true" className="size-3 opacity-40" />
}

type FlatRow<T> = { id: string; original: T; depth: number; canExpand: boolean; expanded: boolean }

/** Parents, then the children of open parents, in order (what an expanded row model yields). */
function flatten<T>(data: T[], props: Pick<UrlTableProps<T>, 'getRowId' | 'getSubRows' | 'isExpanded'>, depth = 0, out: FlatRow<T>[] = []): FlatRow<T>[] {
  for (const original of data) {
    const children = props.getSubRows?.(original) ?? []
    const expanded = children.length > 0 && Boolean(props.isExpanded?.(original))
    out.push({ id: props.getRowId(original), original, depth, canExpand: children.length > 0, expanded })
    if (expanded) flatten(children, props, depth + 1, out)
  }
  return out
}

/**
 * The shared table's URL mode without a client-side row model: the server has already
 * sorted, paged and expanded the rows, so the browser only renders them (sort, paging and
 * expansion are links). Keeps the DOM and test ids of DataTable, so pages can switch freely.
 * Only for JavaScript-budgeted pages whose loader shapes every row (/health); everything else
 * uses DataTable (docs/decisions/010-server-shaped-tables.md).
 */
export function UrlTable<T>(props: UrlTableProps<T>) {
  const { data, columns, urlSorting, pagination, expandHref, rowHref, rowClassName, virtual, emptyMessage = 'No data available', testId = 'data-table', caption } = props
  const { search } = useLocation()
  const navigate = useNavigate()
  const hydrated = useHydrated()
  const rows = flatten(data, props)
  const { scroller, useVirtual, first, last } = useVirtualWindow(rows.length, Boolean(virtual && hydrated))
  const visible = rows.slice(first, last)

  const rowClick = (row: FlatRow<T>) => (event: MouseEvent<HTMLTableRowElement> | KeyboardEvent<HTMLTableRowElement>) => {
    if ((event.target as HTMLElement).closest('a,button,input,select,label')) return
    if ('key' in event && event.key !== 'Enter') return
    const href = row.canExpand ? expandHref?.(row.original) : rowHref?.(row.original)
    if (href) navigate(href, { preventScrollReset: true })
  }

  const body = (
    <Table data-testid={testId} aria-rowcount={rows.length}>
      {caption ? <caption className="sr-only">{caption}</caption> : null}
      <TableHeader>
        <TableRow>
          {columns.map((column) => {
            const state = urlSorting && urlSorting.id === column.id ? (urlSorting.desc ? 'desc' : 'asc') : false
            const label = typeof column.header === 'function' ? column.header() : column.header
            return (
              <TableHead key={column.id} aria-sort={state === 'asc' ? 'ascending' : state === 'desc' ? 'descending' : undefined} style={column.size ? { width: column.size } : undefined}>
                {column.enableSorting && urlSorting ? (
                  <Link to={nextSortHref(search, column.id, urlSorting)} preventScrollReset className="inline-flex items-center gap-1 hover:text-foreground" data-testid={`sort-${column.id}`}>
                    {label}
                    <SortIcon state={state} />
                  </Link>
                ) : (
                  label
                )}
              </TableHead>
            )
          })}
        </TableRow>
      </TableHeader>
      <TableBody>
        {rows.length === 0 ? <EmptyTableRow colSpan={columns.length} testId={testId} message={emptyMessage} /> : null}
        {useVirtual ? <VirtualSpacer rows={first} /> : null}
        {visible.map((row) => (
          <TableRow
            key={row.id}
            data-row-id={row.id}
            data-depth={row.depth}
            data-expanded={row.canExpand ? row.expanded : undefined}
            tabIndex={hydrated ? 0 : undefined}
            onClick={hydrated ? rowClick(row) : undefined}
            onKeyDown={hydrated ? rowClick(row) : undefined}
            className={cn(hydrated && 'cursor-pointer', row.depth > 0 && 'bg-muted/30', rowClassName?.(row.original))}
            style={useVirtual ? { height: ROW_ESTIMATE_PX } : undefined}
          >
            {columns.map((column) => (
              <TableCell key={column.id}>{column.cell({ row })}</TableCell>
            ))}
          </TableRow>
        ))}
        {useVirtual ? <VirtualSpacer rows={rows.length - last} /> : null}
      </TableBody>
    </Table>
  )

  return <TableFrame table={body} useVirtual={useVirtual} scroller={scroller} testId={testId} pagination={pagination} />
}

/** The expander cell of URL-mode tables: a link that opens or closes the row's children. */
export function ExpanderLink({ href, expanded, label }: { href: string; expanded: boolean; label: string }) {
  return (
    <Link to={href} preventScrollReset aria-expanded={expanded} aria-label={`${expanded ? 'Collapse' : 'Expand'} ${label}`} data-testid="row-expander" className="inline-flex rounded p-0.5 hover:bg-muted">
      {expanded ? <ChevronDown aria-hidden="true" className="size-4" /> : <ChevronRight aria-hidden="true" className="size-4" />}
    </Link>
  )
}
