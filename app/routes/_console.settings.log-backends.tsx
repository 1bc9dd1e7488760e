import { redirect, type LoaderFunctionArgs } from '@remix-run/node'
import { GeneralErrorBoundary } from '#app/components/error-boundary.tsx'
import type { RouteHandle } from '#app/lib/route-handle.ts'
import { requireAccess } from '#app/lib/session.server.ts'

export const handle = { title: 'Log Backends', feature: 'settings.logging_backends', resource: 'logging_backends' } satisfies RouteHandle

// The sidebar's name for the generic resource editor of the logging_backends table.
export async function loader(args: LoaderFunctionArgs) {
  await requireAccess(args, handle)
  const url = new URL(args.request.url)
  return redirect(`/settings/logging_backends${url.search}`)
}

export function ErrorBoundary() {
  return <GeneralErrorBoundary />
}
