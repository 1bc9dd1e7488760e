import type { LoaderFunctionArgs } from '@remix-run/node'
import { GeneralErrorBoundary } from '#app/components/error-boundary.tsx'
import { NotBuilt } from '#app/components/not-built.tsx'
import type { RouteHandle } from '#app/lib/route-handle.ts'
import { requireAccess } from '#app/lib/session.server.ts'

export const handle = { title: 'Add Silence', feature: 'settings.notifications', resource: 'notifications', access: 'write' } satisfies RouteHandle

export async function loader(args: LoaderFunctionArgs) {
  await requireAccess(args, handle)
  return null
}

export default function AddSilenceRoute() {
  return <NotBuilt title="Add Silence" capability="A form to silence notifications for a resource until a given time or indefinitely." />
}

export function ErrorBoundary() {
  return <GeneralErrorBoundary />
}
