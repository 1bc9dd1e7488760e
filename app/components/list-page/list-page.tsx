import { Link } from '@remix-run/react'
import { lazy, Suspense, type ReactNode } from 'react'
import { ConfirmDialog as ServerRenderedConfirmDialog, type ConfirmDialogProps } from '#app/components/confirm-dialog/confirm-dialog.tsx'
import { DataTable, type DataColumn, type DataTableProps } from '#app/components/data-table/data-table.tsx'
import { InlineError } from '#app/components/inline-error.tsx'
import { Toast } from '#app/components/toast.tsx'
import { buttonVariants } from '#app/components/ui/button.tsx'
import { Plus } from '#app/components/ui/icons.tsx'
import { cn } from '#app/lib/cn.ts'

// The confirm dialog shows only when the URL asks for it, so it loads then; the server renders it
// in place, so the no-JS page and hydration see the same markup (decisions 007, 014).
const ConfirmDialog = import.meta.env.SSR
  ? ServerRenderedConfirmDialog
  : /* @__PURE__ */ lazy(() => import('#app/components/confirm-dialog/confirm-dialog.tsx').then((module) => ({ default: module.ConfirmDialog })))

export type ListPageAddAction = {
  label: string
  /** A link, so the add dialog (a URL) opens without JavaScript. */
  to: string
  testId?: string
  /** Defaults to a plus sign. */
  icon?: ReactNode
}

export type ListPageProps<T> = {
  /** Most settings pages take their title from the shell's top bar; give one only when the page needs its own heading. */
  title?: string
  description?: ReactNode
  addAction?: ListPageAddAction | null
  /** A GET form or links over the URL (the screen's search-parameter schema reads them back). */
  filterBar?: ReactNode
  /** Load or action failures shown above the table. */
  errors?: Array<string | null | undefined>
  /** The table: DataTable props (URL mode via `urlSorting`/`pagination`, or local for short lists). */
  table: DataTableProps<T>
  /** Per-row buttons or links (delete, edit…); rendered in a narrow last column. */
  rowActions?: (row: T) => ReactNode
  /** A delete or approve confirmation, usually opened by a `?delete=<id>` URL. */
  confirm?: ConfirmDialogProps | null
  toast?: string | null
  testId?: string
  /** Dialogs and other overlays the page opens over the list. */
  children?: ReactNode
}

/**
 * The settings list page (spec 002 §2): description and "Add" link, optional filter bar, the
 * shared table with row actions and the 'No data available' empty state, a confirm dialog and
 * the one-shot toast. Every list screen renders through it so each new screen copies one shape.
 */
export function ListPage<T>({ title, description, addAction, filterBar, errors, table, rowActions, confirm, toast, testId, children }: ListPageProps<T>) {
  const columns: DataColumn<T>[] = rowActions
    ? [...table.columns, { id: 'actions', header: () => <span className="sr-only">Actions</span>, size: 48, enableSorting: false, cell: ({ row }) => rowActions(row.original) }]
    : table.columns
  const messages = errors?.filter((message): message is string => Boolean(message)) ?? []
  return (
    <section className="flex flex-col gap-4 p-6" data-testid={testId}>
      {title || description || addAction ? (
        <div className="flex items-center justify-between gap-4">
          <div className="flex flex-col gap-1">
            {title ? <h1 className="text-lg font-semibold">{title}</h1> : null}
            {description ? <p className="text-sm text-muted-foreground">{description}</p> : null}
          </div>
          {addAction ? (
            <Link to={addAction.to} className={cn(buttonVariants({ size: 'sm' }), 'shrink-0')} data-testid={addAction.testId} preventScrollReset>
              {addAction.icon ?? <Plus aria-hidden="true" />}
              {addAction.label}
            </Link>
          ) : null}
        </div>
      ) : null}
      {filterBar}
      {messages.map((message) => (
        <InlineError key={message} message={message} />
      ))}
      <DataTable {...table} columns={columns} />
      {confirm ? (
        <Suspense fallback={null}>
          <ConfirmDialog {...confirm} />
        </Suspense>
      ) : null}
      {children}
      <Toast message={toast} />
    </section>
  )
}
