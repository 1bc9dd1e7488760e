import type { LoaderFunctionArgs } from '@remix-run/node'
import { useParams } from '@remix-run/react'
import { GeneralErrorBoundary } from '#app/components/error-boundary.tsx'
import { NotBuilt } from '#app/components/not-built.tsx'
import type { RouteHandle } from '#app/lib/route-handle.ts'
import { requireAccess } from '#app/lib/session.server.ts'

export const handle = { title: 'Notifications', feature: 'settings.notifications', resource: 'notifications' } satisfies RouteHandle

export async function loader(args: LoaderFunctionArgs) {
  await requireAccess(args, handle)
  return null
}

export default function ResourceNotificationsRoute() {
  const { resourceId } = useParams()
  return <NotBuilt title={`Notifications ${resourceId ?? ''}`} capability="The notifications sent about one resource, newest first." />
}

export function ErrorBoundary() {
  return <GeneralErrorBoundary />
}
