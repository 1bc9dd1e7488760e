import { data, type LoaderFunctionArgs } from '@remix-run/node'
import { Link, useLoaderData, useRouteLoaderData } from '@remix-run/react'
import { InsightsTable } from '#app/components/catalog/insight-columns.tsx'
import { GeneralErrorBoundary } from '#app/components/error-boundary.tsx'
import { Filter } from '#app/components/ui/icons.tsx'
import { parseInsightListParams } from '#app/lib/catalog-search.ts'
import { listInsights } from '#app/lib/catalog-screens.server.ts'
import type { RouteHandle } from '#app/lib/route-handle.ts'
import { requireAccess, toErrorResponse } from '#app/lib/session.server.ts'
import type { CatalogItemLayoutData } from './_console.catalog.$id.tsx'

export const handle = { feature: 'config', resource: 'database' } satisfies RouteHandle

/** The item's Insights tab: its findings, open and resolved, sorted and paged in the URL; filters are /catalog/insights's, narrowed to this item. */
export async function loader(args: LoaderFunctionArgs) {
  await requireAccess(args, handle)
  const params = parseInsightListParams(new URL(args.request.url).searchParams)
  try {
    const { rows, total } = await listInsights(args, params, { configId: args.params.id ?? '' })
    return data({ rows, total, params })
  } catch (error) {
    throw toErrorResponse(error)
  }
}

export default function CatalogItemInsightsRoute() {
  const { rows, total, params } = useLoaderData<typeof loader>()
  const layout = useRouteLoaderData<CatalogItemLayoutData>('routes/_console.catalog.$id')
  return (
    <section className="flex flex-col gap-3 p-6" data-testid="config-insights">
      {layout ? (
        <Link to={`/catalog/insights?${new URLSearchParams({ configId: layout.id }).toString()}`} className="inline-flex w-fit items-center gap-1 text-sm text-muted-foreground hover:underline" data-testid="config-insights-filter">
          <Filter aria-hidden="true" className="size-4" />
          Filter these insights by type, severity and status
        </Link>
      ) : null}
      <InsightsTable rows={rows} total={total} params={params} canLink={layout?.canLink ?? false} withItem={false} />
    </section>
  )
}

export function ErrorBoundary() {
  return <GeneralErrorBoundary />
}
