import { data, type LoaderFunctionArgs } from '@remix-run/node'
import { useLoaderData } from '@remix-run/react'
import { UrlTable, type UrlColumn } from '#app/components/data-table/url-table.tsx'
import { GeneralErrorBoundary } from '#app/components/error-boundary.tsx'
import { InlineError } from '#app/components/inline-error.tsx'
import { getViewTab, runConfigView } from '#app/lib/catalog-screens.server.ts'
import type { RouteHandle } from '#app/lib/route-handle.ts'
import { errorResponse, requireAccess, toErrorResponse } from '#app/lib/session.server.ts'
import { isUuid } from '#contract/uuid.ts'

export const handle = { feature: 'config', resource: 'database' } satisfies RouteHandle

/** A custom view as a tab of the item: the view's rows with the item as its `config_id` variable (http-api §2.4). */
export async function loader(args: LoaderFunctionArgs) {
  await requireAccess(args, handle)
  const viewId = args.params.viewId ?? ''
  if (!isUuid(viewId)) throw errorResponse(404, { message: 'No such view' })
  try {
    const view = await getViewTab(args, viewId)
    if (!view) throw errorResponse(404, { message: 'No such view' })
    return data({ view, result: await runConfigView(args, viewId, args.params.id ?? '') })
  } catch (error) {
    throw toErrorResponse(error)
  }
}

type ViewRow = Record<string, unknown> & { __row: string }

function display(value: unknown): string {
  if (value === null || value === undefined) return ''
  return typeof value === 'object' ? JSON.stringify(value) : String(value)
}

export default function CatalogItemViewRoute() {
  const { view, result } = useLoaderData<typeof loader>()
  const rows: ViewRow[] = 'rows' in result ? result.rows.map((row, index) => ({ ...row, __row: String(index) })) : []
  const columns: UrlColumn<ViewRow>[] = 'columns' in result ? result.columns.map((name) => ({ id: name, header: name, cell: ({ row }: { row: { original: ViewRow } }) => display(row.original[name]) })) : []
  return (
    <section className="flex flex-col gap-4 p-6" data-testid="config-view" data-view-id={view.id}>
      <h2 className="text-base font-semibold">{view.title || view.name}</h2>
      {'error' in result ? <InlineError message={result.error} /> : <UrlTable data={rows} columns={columns} getRowId={(row) => row.__row} testId="config-view-table" caption={view.title || view.name} />}
    </section>
  )
}

export function ErrorBoundary() {
  return <GeneralErrorBoundary />
}
