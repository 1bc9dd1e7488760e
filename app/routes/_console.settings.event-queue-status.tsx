import type { LoaderFunctionArgs } from '@remix-run/node'
import { GeneralErrorBoundary } from '#app/components/error-boundary.tsx'
import { NotBuilt } from '#app/components/not-built.tsx'
import type { RouteHandle } from '#app/lib/route-handle.ts'
import { requireAccess } from '#app/lib/session.server.ts'

export const handle = { title: 'Event Queue', feature: 'settings.event_queue_status', resource: 'database' } satisfies RouteHandle

export async function loader(args: LoaderFunctionArgs) {
  await requireAccess(args, handle)
  return null
}

export default function EventQueueRoute() {
  return <NotBuilt title="Event Queue" capability="The event queue: pending and failed events per type, with their oldest age and last error." />
}

export function ErrorBoundary() {
  return <GeneralErrorBoundary />
}
