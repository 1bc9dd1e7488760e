import type { LoaderFunctionArgs } from '@remix-run/node'
import { GeneralErrorBoundary } from '#app/components/error-boundary.tsx'
import { NotBuilt } from '#app/components/not-built.tsx'
import type { RouteHandle } from '#app/lib/route-handle.ts'
import { requireAccess } from '#app/lib/session.server.ts'

export const handle = { title: 'Playbooks', feature: 'playbooks', resource: 'playbooks' } satisfies RouteHandle

export async function loader(args: LoaderFunctionArgs) {
  await requireAccess(args, handle)
  return null
}

export default function PlaybooksRoute() {
  return <NotBuilt title="Playbooks" capability="The playbook catalogue grouped by category, with a Run button for each playbook you may run." />
}

export function ErrorBoundary() {
  return <GeneralErrorBoundary />
}
