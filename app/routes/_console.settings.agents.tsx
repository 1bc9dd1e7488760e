import type { LoaderFunctionArgs } from '@remix-run/node'
import { GeneralErrorBoundary } from '#app/components/error-boundary.tsx'
import { NotBuilt } from '#app/components/not-built.tsx'
import type { RouteHandle } from '#app/lib/route-handle.ts'
import { requireAccess } from '#app/lib/session.server.ts'

export const handle = { title: 'Agents', feature: 'agents', resource: 'agents' } satisfies RouteHandle

export async function loader(args: LoaderFunctionArgs) {
  await requireAccess(args, handle)
  return null
}

export default function AgentsRoute() {
  return <NotBuilt title="Agents" capability="The registered agents with their last heartbeat and a way to generate a new agent." />
}

export function ErrorBoundary() {
  return <GeneralErrorBoundary />
}
