import { data, type LoaderFunctionArgs } from '@remix-run/node'
import { useLoaderData } from '@remix-run/react'
import { CatalogNav } from '#app/components/catalog/catalog-nav.tsx'
import { InsightsList } from '#app/components/catalog/insights-list.tsx'
import { GeneralErrorBoundary } from '#app/components/error-boundary.tsx'
import { parseInsightListParams } from '#app/lib/catalog-search.ts'
import { listAnalyzers, listInsights } from '#app/lib/catalog-screens.server.ts'
import { canLinkToIncident } from '#app/lib/incidents.server.ts'
import type { RouteHandle } from '#app/lib/route-handle.ts'
import { requireAccess, toErrorResponse } from '#app/lib/session.server.ts'

export const handle = { title: 'Catalog Insights', feature: 'config', resource: 'database' } satisfies RouteHandle

/** /catalog/insights: analysis findings across live items, filtered by type, severity, status and analyzer. */
export async function loader(args: LoaderFunctionArgs) {
  await requireAccess(args, handle)
  const params = parseInsightListParams(new URL(args.request.url).searchParams)
  try {
    const [{ rows, total }, analyzers, canLink] = await Promise.all([listInsights(args, params), listAnalyzers(args), canLinkToIncident(args)])
    return data({ rows, total, params, analyzers, canLink })
  } catch (error) {
    throw toErrorResponse(error)
  }
}

export default function CatalogInsightsRoute() {
  const { rows, total, params, analyzers, canLink } = useLoaderData<typeof loader>()
  return (
    <div className="flex flex-col">
      <CatalogNav />
      <InsightsList rows={rows} total={total} params={params} analyzers={analyzers} canLink={canLink} withItem />
    </div>
  )
}

export function ErrorBoundary() {
  return <GeneralErrorBoundary />
}
