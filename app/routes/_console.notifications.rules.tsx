import type { LoaderFunctionArgs } from '@remix-run/node'
import { GeneralErrorBoundary } from '#app/components/error-boundary.tsx'
import { NotBuilt } from '#app/components/not-built.tsx'
import type { RouteHandle } from '#app/lib/route-handle.ts'
import { requireAccess } from '#app/lib/session.server.ts'

export const handle = { title: 'Notification Rules', feature: 'settings.notifications', resource: 'notifications' } satisfies RouteHandle

export async function loader(args: LoaderFunctionArgs) {
  await requireAccess(args, handle)
  return null
}

export default function NotificationRulesRoute() {
  return <NotBuilt title="Notification Rules" capability="The notification rules: which events notify whom, through which channel, with their recent delivery counts." />
}

export function ErrorBoundary() {
  return <GeneralErrorBoundary />
}
