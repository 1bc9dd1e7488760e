import {
  flexRender,
  getCoreRowModel,
  getExpandedRowModel,
  getGroupedRowModel,
  getPaginationRowModel,
  getSortedRowModel,
  useReactTable,
  type ColumnDef,
  type ExpandedState,
  type Row,
  type SortingState,
} from '@tanstack/react-table'
import { Link, useLocation, useNavigate } from '@remix-run/react'
import { ChevronDown, ChevronRight } from '#app/components/ui/icons.tsx'
import { useEffect, useMemo, useState, type KeyboardEvent, type MouseEvent, type ReactNode } from 'react'
import { useHydrated } from 'remix-utils/use-hydrated'
import { Table, TableBody, TableCell, TableHead, TableHeader, TableRow } from '#app/components/ui/table.tsx'
import { cn } from '#app/lib/cn.ts'
import type { PaginationProps } from './pagination.tsx'
import { nextSortHref, SortIcon, type UrlSorting } from './url-table.tsx'
import { EmptyTableRow, TableFrame, VirtualSpacer } from './table-parts.tsx'
import { ROW_ESTIMATE_PX, useVirtualWindow } from './use-virtual-window.ts'

export type DataTableProps<T> = {
  data: T[]
  // eslint-disable-next-line @typescript-eslint/no-explicit-any -- tanstack column value types vary per column
  columns: ColumnDef<T, any>[]
  getRowId: (row: T) => string
  getSubRows?: (row: T) => T[] | undefined
  /** URL mode: sort links instead of local sorting. Omit for local sorting. */
  urlSorting?: UrlSorting
  /** Local grouping by column ids (local mode only). */
  grouping?: string[]
  /** Local paging size (local mode only); URL paging goes through `pagination`. */
  localPageSize?: number
  /** URL mode paging controls. */
  pagination?: PaginationProps
  /** URL mode expansion: which rows are open, and the link that toggles one. */
  isExpanded?: (row: T) => boolean
  expandHref?: (row: T) => string
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

/**
 * The shared table (spec 002 §2 "Table"): tanstack for the row model, sorting, grouping and
 * expansion; URL mode for server-rendered pages (sort links, expansion links, paging links),
 * local mode for small in-memory lists; optional virtual rows once JavaScript runs.
 */
export function DataTable<T>(props: DataTableProps<T>) {
  const { data, columns, getRowId, getSubRows, urlSorting, grouping, localPageSize, pagination, isExpanded, expandHref, rowHref, rowClassName, virtual, onReachEnd, emptyMessage = 'No data available', testId = 'data-table', rowTestId, rowAttributes, caption } = props
  const { search } = useLocation()
  const navigate = useNavigate()
  const hydrated = useHydrated()
  const [localSorting, setLocalSorting] = useState<SortingState>([])
  const [localExpanded, setLocalExpanded] = useState<ExpandedState>({})
  const urlExpanded = useMemo<ExpandedState>(() => {
    if (!isExpanded) return {}
    const open: Record<string, boolean> = {}
    for (const row of data) if (isExpanded(row)) open[getRowId(row)] = true
    return open
  }, [data, getRowId, isExpanded])

  const table = useReactTable({
    data,
    columns,
    getRowId: (row) => getRowId(row),
    getSubRows,
    state: {
      sorting: urlSorting ? (urlSorting.id ? [{ id: urlSorting.id, desc: urlSorting.desc }] : []) : localSorting,
      expanded: isExpanded ? urlExpanded : localExpanded,
      ...(grouping ? { grouping } : {}),
    },
    manualSorting: Boolean(urlSorting),
    enableMultiSort: false,
    enableSortingRemoval: true,
    onSortingChange: setLocalSorting,
    onExpandedChange: setLocalExpanded,
    getCoreRowModel: getCoreRowModel(),
    getSortedRowModel: urlSorting ? undefined : getSortedRowModel(),
    getGroupedRowModel: grouping ? getGroupedRowModel() : undefined,
    getExpandedRowModel: getExpandedRowModel(),
    getPaginationRowModel: localPageSize ? getPaginationRowModel() : undefined,
    initialState: localPageSize ? { pagination: { pageIndex: 0, pageSize: localPageSize } } : undefined,
    // URL mode has no local paging model; expansion must then happen in the expanded row model.
    paginateExpandedRows: !localPageSize,
  })

  const rows = table.getRowModel().rows
  const { scroller, useVirtual, first, last } = useVirtualWindow(rows.length, Boolean(virtual && hydrated))
  useEffect(() => {
    if (useVirtual && last >= rows.length && onReachEnd) onReachEnd()
  }, [useVirtual, last, rows.length, onReachEnd])
  const visible = rows.slice(first, last)

  const rowClick = (row: Row<T>) => (event: MouseEvent<HTMLTableRowElement> | KeyboardEvent<HTMLTableRowElement>) => {
    if ((event.target as HTMLElement).closest('a,button,input,select,label')) return
    if ('key' in event && event.key !== 'Enter') return
    if (row.getCanExpand()) {
      if (expandHref) navigate(expandHref(row.original), { preventScrollReset: true })
      else row.toggleExpanded()
      return
    }
    const href = rowHref?.(row.original)
    if (href) navigate(href, { preventScrollReset: true })
  }

  // Rows that neither open, expand nor group stay plain rows: no pointer, no tab stop.
  const clickable = hydrated && Boolean(rowHref || getSubRows || grouping || expandHref)
  const colCount = table.getVisibleLeafColumns().length
  const body = (
    <Table data-testid={testId} aria-rowcount={rows.length}>
      {caption ? <caption className="sr-only">{caption}</caption> : null}
      <TableHeader>
        {table.getHeaderGroups().map((group) => (
          <TableRow key={group.id}>
            {group.headers.map((header) => {
              const canSort = header.column.getCanSort()
              const state = header.column.getIsSorted()
              const label = header.isPlaceholder ? null : flexRender(header.column.columnDef.header, header.getContext())
              return (
                <TableHead key={header.id} aria-sort={state === 'asc' ? 'ascending' : state === 'desc' ? 'descending' : undefined} style={header.column.columnDef.size ? { width: header.column.columnDef.size } : undefined}>
                  {canSort && urlSorting ? (
                    <Link to={nextSortHref(search, header.column.id, urlSorting)} preventScrollReset className="inline-flex items-center gap-1 hover:text-foreground" data-testid={`sort-${header.column.id}`}>
                      {label}
                      <SortIcon state={state} />
                    </Link>
                  ) : canSort ? (
                    <button type="button" onClick={header.column.getToggleSortingHandler()} className="inline-flex items-center gap-1 hover:text-foreground" data-testid={`sort-${header.column.id}`}>
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
        ))}
      </TableHeader>
      <TableBody>
        {rows.length === 0 ? <EmptyTableRow colSpan={colCount} testId={testId} message={emptyMessage} /> : null}
        {useVirtual ? <VirtualSpacer rows={first} /> : null}
        {visible.map((row) => (
          <TableRow
            key={row.id}
            data-row-id={row.id}
            data-testid={rowTestId}
            {...rowAttributes?.(row.original)}
            data-depth={row.depth}
            data-expanded={row.getCanExpand() ? row.getIsExpanded() : undefined}
            tabIndex={clickable ? 0 : undefined}
            onClick={clickable ? rowClick(row) : undefined}
            onKeyDown={clickable ? rowClick(row) : undefined}
            className={cn(clickable && 'cursor-pointer', row.depth > 0 && 'bg-muted/30', rowClassName?.(row.original))}
            style={useVirtual ? { height: ROW_ESTIMATE_PX } : undefined}
          >
            {row.getVisibleCells().map((cell) => (
              <TableCell key={cell.id}>
                {cell.getIsGrouped() ? (
                  <button type="button" onClick={row.getToggleExpandedHandler()} className="inline-flex items-center gap-1 font-medium">
                    {row.getIsExpanded() ? <ChevronDown aria-hidden="true" className="size-4" /> : <ChevronRight aria-hidden="true" className="size-4" />}
                    {flexRender(cell.column.columnDef.cell, cell.getContext())} ({row.subRows.length})
                  </button>
                ) : cell.getIsAggregated() ? (
                  flexRender(cell.column.columnDef.aggregatedCell ?? cell.column.columnDef.cell, cell.getContext())
                ) : cell.getIsPlaceholder() ? null : (
                  flexRender(cell.column.columnDef.cell, cell.getContext())
                )}
              </TableCell>
            ))}
          </TableRow>
        ))}
        {useVirtual ? <VirtualSpacer rows={rows.length - last} /> : null}
      </TableBody>
    </Table>
  )

  return (
    <TableFrame table={body} useVirtual={useVirtual} scroller={scroller} testId={testId} pagination={pagination}>
      {localPageSize && table.getPageCount() > 1 ? (
        <nav aria-label="Pagination" className="flex items-center gap-2 py-2 text-sm">
          <button type="button" onClick={() => table.setPageIndex(0)} disabled={!table.getCanPreviousPage()}>
            {'<<'}
          </button>
          <button type="button" onClick={() => table.previousPage()} disabled={!table.getCanPreviousPage()}>
            Previous
          </button>
          <span>
            Page {table.getState().pagination.pageIndex + 1} of {table.getPageCount()}
          </span>
          <button type="button" onClick={() => table.nextPage()} disabled={!table.getCanNextPage()}>
            Next
          </button>
          <button type="button" onClick={() => table.setPageIndex(table.getPageCount() - 1)} disabled={!table.getCanNextPage()}>
            {'>>'}
          </button>
        </nav>
      ) : null}
    </TableFrame>
  )
}
