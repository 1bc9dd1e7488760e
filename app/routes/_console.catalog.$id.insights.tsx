import { data, type LoaderFunctionArgs } from '@remix-run/node'
import { useLoaderData, useRouteLoaderData } from '@remix-run/react'
import { InsightsList } from '#app/components/catalog/insights-list.tsx'
import { GeneralErrorBoundary } from '#app/components/error-boundary.tsx'
import { parseInsightListParams } from '#app/lib/catalog-search.ts'
import { listAnalyzers, listInsights } from '#app/lib/catalog-screens.server.ts'
import type { RouteHandle } from '#app/lib/route-handle.ts'
import { requireAccess, toErrorResponse } from '#app/lib/session.server.ts'
import type { CatalogItemLayoutData } from './_console.catalog.$id.tsx'

export const handle = { feature: 'config', resource: 'database' } satisfies RouteHandle

/** The item's Insights tab: its findings, open and resolved, with the same filters as /catalog/insights. */
export async function loader(args: LoaderFunctionArgs) {
  await requireAccess(args, handle)
  const params = parseInsightListParams(new URL(args.request.url).searchParams)
  try {
    const [{ rows, total }, analyzers] = await Promise.all([listInsights(args, params, { configId: args.params.id ?? '' }), listAnalyzers(args)])
    return data({ rows, total, params, analyzers })
  } catch (error) {
    throw toErrorResponse(error)
  }
}

export default function CatalogItemInsightsRoute() {
  const { rows, total, params, analyzers } = useLoaderData<typeof loader>()
  const layout = useRouteLoaderData<CatalogItemLayoutData>('routes/_console.catalog.$id')
  return <InsightsList rows={rows} total={total} params={params} analyzers={analyzers} canLink={layout?.canLink ?? false} withItem={false} />
}

export function ErrorBoundary() {
  return <GeneralErrorBoundary />
}
