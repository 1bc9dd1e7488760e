import { data, type LoaderFunctionArgs } from '@remix-run/node'
import { Link, useLoaderData, useRouteLoaderData } from '@remix-run/react'
import { ChangesTable } from '#app/components/catalog/change-columns.tsx'
import { GeneralErrorBoundary } from '#app/components/error-boundary.tsx'
import { Filter } from '#app/components/ui/icons.tsx'
import { parseChangeListParams } from '#app/lib/catalog-search.ts'
import { listChanges } from '#app/lib/catalog-screens.server.ts'
import type { RouteHandle } from '#app/lib/route-handle.ts'
import { requireAccess, toErrorResponse } from '#app/lib/session.server.ts'
import type { CatalogItemLayoutData } from './_console.catalog.$id.tsx'

export const handle = { feature: 'config', resource: 'database' } satisfies RouteHandle

/**
 * The item's Changes tab: its changes, newest first, sorted and paged in the URL, each diff
 * unfolding in place. Filters and the time range are /catalog/changes's, narrowed to this item.
 */
export async function loader(args: LoaderFunctionArgs) {
  await requireAccess(args, handle)
  const params = parseChangeListParams(new URL(args.request.url).searchParams)
  try {
    const { rows, total } = await listChanges(args, params, { configId: args.params.id ?? '', now: new Date() })
    return data({ rows, total, params })
  } catch (error) {
    throw toErrorResponse(error)
  }
}

export default function CatalogItemChangesRoute() {
  const { rows, total, params } = useLoaderData<typeof loader>()
  const layout = useRouteLoaderData<CatalogItemLayoutData>('routes/_console.catalog.$id')
  return (
    <section className="flex flex-col gap-3 p-6" data-testid="config-changes">
      {layout ? (
        <Link to={`/catalog/changes?${new URLSearchParams({ configId: layout.id }).toString()}`} className="inline-flex w-fit items-center gap-1 text-sm text-muted-foreground hover:underline" data-testid="config-changes-filter">
          <Filter aria-hidden="true" className="size-4" />
          Filter these changes by type, severity and time
        </Link>
      ) : null}
      <ChangesTable rows={rows} total={total} params={params} canLink={layout?.canLink ?? false} withItem={false} />
    </section>
  )
}

export function ErrorBoundary() {
  return <GeneralErrorBoundary />
}
