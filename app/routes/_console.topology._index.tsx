import type { LoaderFunctionArgs } from '@remix-run/node'
import { GeneralErrorBoundary } from '#app/components/error-boundary.tsx'
import { NotBuilt } from '#app/components/not-built.tsx'
import type { RouteHandle } from '#app/lib/route-handle.ts'
import { requireAccess } from '#app/lib/session.server.ts'

export const handle = { title: 'Topology', feature: 'topology', resource: 'topologies' } satisfies RouteHandle

export async function loader(args: LoaderFunctionArgs) {
  await requireAccess(args, handle)
  return null
}

export default function TopologyRoute() {
  return <NotBuilt title="Topology" capability="The topology dashboard: every component as a card with its health, status, properties and checks, filterable by team, type and labels." />
}

export function ErrorBoundary() {
  return <GeneralErrorBoundary />
}
