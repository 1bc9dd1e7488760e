import { data, type LoaderFunctionArgs } from '@remix-run/node'
import { useLoaderData, useLocation } from '@remix-run/react'
import { CatalogNav } from '#app/components/catalog/catalog-nav.tsx'
import { InsightsList } from '#app/components/catalog/insights-list.tsx'
import { GeneralErrorBoundary } from '#app/components/error-boundary.tsx'
import { parseInsightListParams } from '#app/lib/catalog-search.ts'
import { getConfigName, listAnalyzers, listInsights } from '#app/lib/catalog-screens.server.ts'
import { canLinkToIncident } from '#app/lib/incidents.server.ts'
import type { RouteHandle } from '#app/lib/route-handle.ts'
import { requireAccess, toErrorResponse } from '#app/lib/session.server.ts'

export const handle = { title: 'Catalog Insights', feature: 'config', resource: 'database' } satisfies RouteHandle

/** /catalog/insights: analysis findings across live items (or one item's, `configId`), filtered by type, severity, status and analyzer. */
export async function loader(args: LoaderFunctionArgs) {
  await requireAccess(args, handle)
  const params = parseInsightListParams(new URL(args.request.url).searchParams)
  try {
    const [{ rows, total }, analyzers, canLink, itemName] = await Promise.all([
      listInsights(args, params),
      listAnalyzers(args),
      canLinkToIncident(args),
      params.configId ? getConfigName(args, params.configId) : Promise.resolve(null),
    ])
    return data({ rows, total, params, analyzers, canLink, itemName })
  } catch (error) {
    throw toErrorResponse(error)
  }
}

export default function CatalogInsightsRoute() {
  const { rows, total, params, analyzers, canLink, itemName } = useLoaderData<typeof loader>()
  const { search } = useLocation()
  return (
    <div className="flex flex-col">
      <CatalogNav />
      <InsightsList rows={rows} total={total} params={params} analyzers={analyzers} canLink={canLink} itemName={itemName} search={search} />
    </div>
  )
}

export function ErrorBoundary() {
  return <GeneralErrorBoundary />
}
