import type { LoaderFunctionArgs } from '@remix-run/node'
import { GeneralErrorBoundary } from '#app/components/error-boundary.tsx'
import { NotBuilt } from '#app/components/not-built.tsx'
import type { RouteHandle } from '#app/lib/route-handle.ts'
import { requireAccess } from '#app/lib/session.server.ts'

export const handle = { title: 'Notification Silences', feature: 'settings.notifications', resource: 'notifications' } satisfies RouteHandle

export async function loader(args: LoaderFunctionArgs) {
  await requireAccess(args, handle)
  return null
}

export default function SilencesRoute() {
  return <NotBuilt title="Notification Silences" capability="Active and expired silences with their resource, reason and end time, and a way to add one." />
}

export function ErrorBoundary() {
  return <GeneralErrorBoundary />
}
