import type { LoaderFunctionArgs } from '@remix-run/node'
import { GeneralErrorBoundary } from '#app/components/error-boundary.tsx'
import { NotBuilt } from '#app/components/not-built.tsx'
import type { RouteHandle } from '#app/lib/route-handle.ts'
import { requireAccess } from '#app/lib/session.server.ts'

export const handle = { title: 'Playbook Runs', feature: 'playbooks', resource: 'playbook_runs' } satisfies RouteHandle

export async function loader(args: LoaderFunctionArgs) {
  await requireAccess(args, handle)
  return null
}

export default function PlaybookRunsRoute() {
  return <NotBuilt title="Playbook Runs" capability="Every playbook run with its status, duration, resource and who started it, filterable by playbook and status." />
}

export function ErrorBoundary() {
  return <GeneralErrorBoundary />
}
