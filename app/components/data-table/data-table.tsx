import { Link, useLocation, useNavigate } from '@remix-run/react'
import { useEffect, useMemo, useState, type KeyboardEvent, type MouseEvent, type ReactNode } from 'react'
import { useHydrated } from 'remix-utils/use-hydrated'
import { Table, TableBody, TableCell, TableHead, TableHeader, TableRow } from '#app/components/ui/table.tsx'
import { cn } from '#app/lib/cn.ts'
import type { PaginationProps } from './pagination.tsx'
import { nextSortHref, SortIcon, type UrlColumn, type UrlSorting } from './url-table.tsx'
import { EmptyTableRow, TableFrame, VirtualSpacer } from './table-parts.tsx'
import { ROW_ESTIMATE_PX, useVirtualWindow } from './use-virtual-window.ts'

/**
 * A column: the URL-mode column plus an optional accessor. As in TanStack Table (whose column
 * definitions these stay a subset of), a column sorts only when it has an accessor and does not
 * set `enableSorting: false`, and a column without `cell` shows its accessor's value as text.
 */
export type DataColumn<T> = Omit<UrlColumn<T>, 'cell'> & {
  accessorFn?: (row: T) => unknown
  cell?: UrlColumn<T>['cell']
}

export type DataTableProps<T> = {
  data: T[]
  columns: DataColumn<T>[]
  getRowId: (row: T) => string
  /** URL mode: sort links instead of local sorting. Omit for local sorting. */
  urlSorting?: UrlSorting
  /** URL mode paging controls. */
  pagination?: PaginationProps
  /** Where a row click goes (the first cell also carries it as a link for no-JS use). */
  rowHref?: (row: T) => string | undefined
  rowClassName?: (row: T) => string | undefined
  virtual?: boolean
  /** Virtual mode: called when the last row scrolls into view (the caller may double the page size). */
  onReachEnd?: () => void
  emptyMessage?: ReactNode
  testId?: string
  /** A data-testid on every body row (e.g. 'token-row'), for pages whose tests count rows. */
  rowTestId?: string
  /** Extra data-* attributes per body row (e.g. a row's e-mail, so tests can find it). */
  rowAttributes?: (row: T) => Record<`data-${string}`, string>
  caption?: string
}

type LocalSorting = { id: string; desc: boolean } | null

const collator = new Intl.Collator(undefined, { numeric: true, sensitivity: 'base' })

/**
 * TanStack's 'auto' sorting, by hand: text compares naturally and case-insensitively, anything
 * else by value; the first click sorts text ascending and numbers, dates and flags descending.
 * The table library cost 15 KB gzip on every settings page for these few lines (decision 014).
 */
function compareValues(a: unknown, b: unknown): number {
  if (typeof a === 'string' && typeof b === 'string') return collator.compare(a, b)
  if (a === b) return 0
  if (a === undefined || a === null) return 1
  if (b === undefined || b === null) return -1
  return (a as number) > (b as number) ? 1 : -1
}

function canSort<T>(column: DataColumn<T>): boolean {
  return column.enableSorting !== false && Boolean(column.accessorFn)
}

function renderCell<T>(column: DataColumn<T>, original: T): ReactNode {
  if (column.cell) return column.cell({ row: { original } })
  const value = column.accessorFn?.(original)
  return value === undefined || value === null ? null : String(value)
}

/**
 * The shared table (spec 002 §2 "Table"): URL mode for server-rendered pages (sort links, paging
 * links; the loader sorts and pages), local mode for small in-memory lists (sort buttons once
 * JavaScript runs); optional virtual rows once JavaScript runs. Same markup and test ids as
 * `UrlTable` (decision 010).
 */
export function DataTable<T>(props: DataTableProps<T>) {
  const { data, columns, getRowId, urlSorting, pagination, rowHref, rowClassName, virtual, onReachEnd, emptyMessage = 'No data available', testId = 'data-table', rowTestId, rowAttributes, caption } = props
  const { search } = useLocation()
  const navigate = useNavigate()
  const hydrated = useHydrated()
  const [localSorting, setLocalSorting] = useState<LocalSorting>(null)
  const sorting: LocalSorting = urlSorting ? (urlSorting.id ? { id: urlSorting.id, desc: urlSorting.desc } : null) : localSorting

  const rows = useMemo(() => {
    const column = !urlSorting && localSorting ? columns.find((candidate) => candidate.id === localSorting.id) : undefined
    if (!column?.accessorFn || !localSorting) return data
    const accessor = column.accessorFn
    const direction = localSorting.desc ? -1 : 1
    return [...data].sort((a, b) => direction * compareValues(accessor(a), accessor(b)))
  }, [data, columns, urlSorting, localSorting])

  const { scroller, useVirtual, first, last } = useVirtualWindow(rows.length, Boolean(virtual && hydrated))
  useEffect(() => {
    if (useVirtual && last >= rows.length && onReachEnd) onReachEnd()
  }, [useVirtual, last, rows.length, onReachEnd])
  const visible = rows.slice(first, last)

  /** Local mode: first click by the value's natural direction, then the other, then unsorted. */
  const toggleSort = (column: DataColumn<T>) => () => {
    setLocalSorting((current) => {
      const sample = data.length > 0 ? column.accessorFn?.(data[0]!) : undefined
      const firstDesc = typeof sample !== 'string'
      if (current?.id !== column.id) return { id: column.id, desc: firstDesc }
      if (current.desc === firstDesc) return { id: column.id, desc: !firstDesc }
      return null
    })
  }

  const rowClick = (original: T) => (event: MouseEvent<HTMLTableRowElement> | KeyboardEvent<HTMLTableRowElement>) => {
    if ((event.target as HTMLElement).closest('a,button,input,select,label')) return
    if ('key' in event && event.key !== 'Enter') return
    const href = rowHref?.(original)
    if (href) navigate(href, { preventScrollReset: true })
  }

  // Rows that do not open anything stay plain rows: no pointer, no tab stop.
  const clickable = hydrated && Boolean(rowHref)
  const body = (
    <Table data-testid={testId} aria-rowcount={rows.length}>
      {caption ? <caption className="sr-only">{caption}</caption> : null}
      <TableHeader>
        <TableRow>
          {columns.map((column) => {
            const state = sorting?.id === column.id ? (sorting.desc ? 'desc' : 'asc') : false
            const label = typeof column.header === 'function' ? column.header() : column.header
            const sortable = canSort(column)
            return (
              <TableHead key={column.id} aria-sort={state === 'asc' ? 'ascending' : state === 'desc' ? 'descending' : undefined} style={column.size ? { width: column.size } : undefined}>
                {sortable && urlSorting ? (
                  <Link to={nextSortHref(search, column.id, urlSorting)} preventScrollReset className="inline-flex items-center gap-1 hover:text-foreground" data-testid={`sort-${column.id}`}>
                    {label}
                    <SortIcon state={state} />
                  </Link>
                ) : sortable ? (
                  <button type="button" onClick={toggleSort(column)} className="inline-flex items-center gap-1 hover:text-foreground" data-testid={`sort-${column.id}`}>
                    {label}
                    <SortIcon state={state} />
                  </button>
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
        {visible.map((original) => {
          const id = getRowId(original)
          return (
            <TableRow
              key={id}
              data-row-id={id}
              data-testid={rowTestId}
              {...rowAttributes?.(original)}
              data-depth={0}
              tabIndex={clickable ? 0 : undefined}
              onClick={clickable ? rowClick(original) : undefined}
              onKeyDown={clickable ? rowClick(original) : undefined}
              className={cn(clickable && 'cursor-pointer', rowClassName?.(original))}
              style={useVirtual ? { height: ROW_ESTIMATE_PX } : undefined}
            >
              {columns.map((column) => (
                <TableCell key={column.id}>{renderCell(column, original)}</TableCell>
              ))}
            </TableRow>
          )
        })}
        {useVirtual ? <VirtualSpacer rows={rows.length - last} /> : null}
      </TableBody>
    </Table>
  )

  return <TableFrame table={body} useVirtual={useVirtual} scroller={scroller} testId={testId} pagination={pagination} />
}
