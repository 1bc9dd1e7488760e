import type { LoaderFunctionArgs } from '@remix-run/node'
import { GeneralErrorBoundary } from '#app/components/error-boundary.tsx'
import { NotBuilt } from '#app/components/not-built.tsx'
import type { RouteHandle } from '#app/lib/route-handle.ts'
import { requireAccess } from '#app/lib/session.server.ts'

export const handle = { title: 'Catalog Changes', feature: 'config', resource: 'database' } satisfies RouteHandle

export async function loader(args: LoaderFunctionArgs) {
  await requireAccess(args, handle)
  return null
}

export default function CatalogChangesRoute() {
  return <NotBuilt title="Catalog Changes" capability="The change feed of the catalog, filterable by type, severity, source and time range." />
}

export function ErrorBoundary() {
  return <GeneralErrorBoundary />
}
