import type { LoaderFunctionArgs } from '@remix-run/node'
import { useParams } from '@remix-run/react'
import { GeneralErrorBoundary } from '#app/components/error-boundary.tsx'
import { NotBuilt } from '#app/components/not-built.tsx'
import type { RouteHandle } from '#app/lib/route-handle.ts'
import { requireAccess } from '#app/lib/session.server.ts'

export const handle = { title: 'Playbook Run', feature: 'playbooks', resource: 'playbook_runs' } satisfies RouteHandle

export async function loader(args: LoaderFunctionArgs) {
  await requireAccess(args, handle)
  return null
}

export default function PlaybookRunRoute() {
  const { id } = useParams()
  return <NotBuilt title={`Playbook Run ${id ?? ''}`} capability="One playbook run with its actions, their logs and results, and Approve and Cancel where allowed." />
}

export function ErrorBoundary() {
  return <GeneralErrorBoundary />
}
