import type { LoaderFunctionArgs } from '@remix-run/node'
import { GeneralErrorBoundary } from '#app/components/error-boundary.tsx'
import { NotBuilt } from '#app/components/not-built.tsx'
import type { RouteHandle } from '#app/lib/route-handle.ts'
import { requireAccess } from '#app/lib/session.server.ts'

export const handle = { title: 'Catalog Item Changes', feature: 'config', resource: 'database' } satisfies RouteHandle

export async function loader(args: LoaderFunctionArgs) {
  await requireAccess(args, handle)
  return null
}

export default function CatalogItemChangesRoute() {
  return <NotBuilt title="Catalog Item Changes" capability="The changes recorded for this item, with their diffs and details." />
}

export function ErrorBoundary() {
  return <GeneralErrorBoundary />
}
