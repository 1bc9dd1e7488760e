import type { LoaderFunctionArgs } from '@remix-run/node'
import { useParams } from '@remix-run/react'
import { GeneralErrorBoundary } from '#app/components/error-boundary.tsx'
import { NotBuilt } from '#app/components/not-built.tsx'
import type { RouteHandle } from '#app/lib/route-handle.ts'
import { requireAccess } from '#app/lib/session.server.ts'

export const handle = { title: 'Topology', feature: 'topology', resource: 'topologies' } satisfies RouteHandle

export async function loader(args: LoaderFunctionArgs) {
  await requireAccess(args, handle)
  return null
}

export default function TopologyComponentRoute() {
  const { id } = useParams()
  return <NotBuilt title={`Topology ${id ?? ''}`} capability="One component of the topology with its children, health, properties, related configs and incidents." />
}

export function ErrorBoundary() {
  return <GeneralErrorBoundary />
}
