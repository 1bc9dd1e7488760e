import type { LoaderFunctionArgs } from '@remix-run/node'
import { GeneralErrorBoundary } from '#app/components/error-boundary.tsx'
import { NotBuilt } from '#app/components/not-built.tsx'
import type { RouteHandle } from '#app/lib/route-handle.ts'
import { requireAccess } from '#app/lib/session.server.ts'

export const handle = { title: 'Log Backends', feature: 'settings.logging_backends', resource: 'logging_backends' } satisfies RouteHandle

export async function loader(args: LoaderFunctionArgs) {
  await requireAccess(args, handle)
  return null
}

export default function LogBackendsRoute() {
  return <NotBuilt title="Log Backends" capability="The log backends the Logs page searches, with a form to add or edit one." />
}

export function ErrorBoundary() {
  return <GeneralErrorBoundary />
}
