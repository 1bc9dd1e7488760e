import type { LoaderFunctionArgs } from '@remix-run/node'
import { GeneralErrorBoundary } from '#app/components/error-boundary.tsx'
import { NotBuilt } from '#app/components/not-built.tsx'
import type { RouteHandle } from '#app/lib/route-handle.ts'
import { requireAccess } from '#app/lib/session.server.ts'

export const handle = { title: 'Connections', feature: 'settings.connections', resource: 'connections' } satisfies RouteHandle

export async function loader(args: LoaderFunctionArgs) {
  await requireAccess(args, handle)
  return null
}

export default function ConnectionsRoute() {
  return <NotBuilt title="Connections" capability="The connections (credentials and endpoints) other resources use, with a test button for each." />
}

export function ErrorBoundary() {
  return <GeneralErrorBoundary />
}
