import type { ReactNode, RefObject } from 'react'
import { TableCell, TableRow } from '#app/components/ui/table.tsx'
import { Pagination, type PaginationProps } from './pagination.tsx'
import { ROW_ESTIMATE_PX } from './use-virtual-window.ts'

/** The pieces both tables (client-model DataTable and server-paged UrlTable) render alike. */

/** The spec's empty state for any table: 'No data available' unless the page says otherwise. */
export function EmptyTableRow({ colSpan, testId, message = 'No data available' }: { colSpan: number; testId?: string; message?: ReactNode }) {
  return (
    <TableRow>
      <TableCell colSpan={colSpan} className="h-28 text-center text-muted-foreground" data-testid={testId ? `${testId}-empty` : undefined}>
        {message}
      </TableCell>
    </TableRow>
  )
}

/** Stands in for the rows above or below the rendered window of a virtual table. */
export function VirtualSpacer({ rows }: { rows: number }) {
  return rows > 0 ? <tr aria-hidden="true" style={{ height: rows * ROW_ESTIMATE_PX }} /> : null
}

export function TableFrame({
  table,
  useVirtual,
  scroller,
  testId,
  pagination,
  children,
}: {
  table: ReactNode
  useVirtual: boolean
  scroller: RefObject<HTMLDivElement>
  testId: string
  pagination?: PaginationProps
  children?: ReactNode
}) {
  return (
    <div className="flex flex-col">
      {useVirtual ? (
        <div ref={scroller} className="max-h-[70vh] overflow-auto" data-testid={`${testId}-virtual`}>
          {table}
        </div>
      ) : (
        table
      )}
      {pagination ? <Pagination {...pagination} /> : null}
      {children}
    </div>
  )
}
