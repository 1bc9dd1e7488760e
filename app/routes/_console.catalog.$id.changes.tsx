import { data, type LoaderFunctionArgs } from '@remix-run/node'
import { useLoaderData, useRouteLoaderData } from '@remix-run/react'
import { ChangesList } from '#app/components/catalog/changes-list.tsx'
import { GeneralErrorBoundary } from '#app/components/error-boundary.tsx'
import { parseChangeListParams } from '#app/lib/catalog-search.ts'
import { listChangeFilterOptions, listChanges } from '#app/lib/catalog-screens.server.ts'
import type { RouteHandle } from '#app/lib/route-handle.ts'
import { requireAccess, toErrorResponse } from '#app/lib/session.server.ts'
import { timeRangeFromParams } from '#app/lib/time-range.ts'
import type { CatalogItemLayoutData } from './_console.catalog.$id.tsx'

export const handle = { feature: 'config', resource: 'database' } satisfies RouteHandle

/** The item's Changes tab: its changes with the same filters, time range and diffs as /catalog/changes. */
export async function loader(args: LoaderFunctionArgs) {
  await requireAccess(args, handle)
  const url = new URL(args.request.url)
  const params = parseChangeListParams(url.searchParams)
  const range = timeRangeFromParams(url.searchParams)
  try {
    const [{ rows, total }, options] = await Promise.all([listChanges(args, params, { configId: args.params.id ?? '', range, now: new Date() }), listChangeFilterOptions(args)])
    return data({ rows, total, params, range, options })
  } catch (error) {
    throw toErrorResponse(error)
  }
}

export default function CatalogItemChangesRoute() {
  const { rows, total, params, range, options } = useLoaderData<typeof loader>()
  const layout = useRouteLoaderData<CatalogItemLayoutData>('routes/_console.catalog.$id')
  return <ChangesList rows={rows} total={total} params={params} range={range} options={options} canLink={layout?.canLink ?? false} withItem={false} />
}

export function ErrorBoundary() {
  return <GeneralErrorBoundary />
}
