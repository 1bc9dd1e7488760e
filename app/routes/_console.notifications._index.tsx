import type { LoaderFunctionArgs } from '@remix-run/node'
import { GeneralErrorBoundary } from '#app/components/error-boundary.tsx'
import { NotBuilt } from '#app/components/not-built.tsx'
import type { RouteHandle } from '#app/lib/route-handle.ts'
import { requireAccess } from '#app/lib/session.server.ts'

export const handle = { title: 'Notifications', feature: 'settings.notifications', resource: 'notifications' } satisfies RouteHandle

export async function loader(args: LoaderFunctionArgs) {
  await requireAccess(args, handle)
  return null
}

export default function NotificationsRoute() {
  return <NotBuilt title="Notifications" capability="Sent notifications with their status, resource and recipients, filterable by status and resource type." />
}

export function ErrorBoundary() {
  return <GeneralErrorBoundary />
}
