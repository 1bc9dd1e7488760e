import { data, type LoaderFunctionArgs } from '@remix-run/node'
import { useLoaderData, useLocation } from '@remix-run/react'
import { CatalogNav } from '#app/components/catalog/catalog-nav.tsx'
import { ChangesList } from '#app/components/catalog/changes-list.tsx'
import { GeneralErrorBoundary } from '#app/components/error-boundary.tsx'
import { parseChangeListParams } from '#app/lib/catalog-search.ts'
import { getConfigName, listChangeFilterOptions, listChanges } from '#app/lib/catalog-screens.server.ts'
import { canLinkToIncident } from '#app/lib/incidents.server.ts'
import type { RouteHandle } from '#app/lib/route-handle.ts'
import { requireAccess, toErrorResponse } from '#app/lib/session.server.ts'
import { timeRangeFromParams } from '#app/lib/time-range.ts'

export const handle = { title: 'Catalog Changes', feature: 'config', resource: 'database' } satisfies RouteHandle

/** /catalog/changes: every item's changes (or one item's, `configId`), filtered, in a picked time range, newest first, each diff unfolding in place. */
export async function loader(args: LoaderFunctionArgs) {
  await requireAccess(args, handle)
  const url = new URL(args.request.url)
  const params = parseChangeListParams(url.searchParams)
  const range = timeRangeFromParams(url.searchParams)
  try {
    const [{ rows, total }, options, canLink, itemName] = await Promise.all([
      listChanges(args, params, { range, now: new Date() }),
      listChangeFilterOptions(args),
      canLinkToIncident(args),
      params.configId ? getConfigName(args, params.configId) : Promise.resolve(null),
    ])
    return data({ rows, total, params, range, options, canLink, itemName })
  } catch (error) {
    throw toErrorResponse(error)
  }
}

export default function CatalogChangesRoute() {
  const { rows, total, params, range, options, canLink, itemName } = useLoaderData<typeof loader>()
  const { search } = useLocation()
  return (
    <div className="flex flex-col">
      <CatalogNav />
      <ChangesList rows={rows} total={total} params={params} range={range} options={options} canLink={canLink} itemName={itemName} search={search} />
    </div>
  )
}

export function ErrorBoundary() {
  return <GeneralErrorBoundary />
}
