import type { LoaderFunctionArgs } from '@remix-run/node'
import { GeneralErrorBoundary } from '#app/components/error-boundary.tsx'
import { NotBuilt } from '#app/components/not-built.tsx'
import type { RouteHandle } from '#app/lib/route-handle.ts'
import { requireAccess } from '#app/lib/session.server.ts'

export const handle = { title: 'Applications', feature: 'applications', resource: 'database' } satisfies RouteHandle

export async function loader(args: LoaderFunctionArgs) {
  await requireAccess(args, handle)
  return null
}

export default function ApplicationsRoute() {
  return <NotBuilt title="Applications" capability="The applications defined in the catalog, each with its health, owners and links to its audit report." />
}

export function ErrorBoundary() {
  return <GeneralErrorBoundary />
}
