import type { LoaderFunctionArgs } from '@remix-run/node'
import { GeneralErrorBoundary } from '#app/components/error-boundary.tsx'
import { NotBuilt } from '#app/components/not-built.tsx'
import type { RouteHandle } from '#app/lib/route-handle.ts'
import { requireAccess } from '#app/lib/session.server.ts'

export const handle = { title: 'Catalog Insights', feature: 'config', resource: 'database' } satisfies RouteHandle

export async function loader(args: LoaderFunctionArgs) {
  await requireAccess(args, handle)
  return null
}

export default function CatalogInsightsRoute() {
  return <NotBuilt title="Catalog Insights" capability="Analysis findings across the catalog (security, cost, reliability), grouped by type and severity." />
}

export function ErrorBoundary() {
  return <GeneralErrorBoundary />
}
