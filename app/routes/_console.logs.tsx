import type { LoaderFunctionArgs } from '@remix-run/node'
import { GeneralErrorBoundary } from '#app/components/error-boundary.tsx'
import { NotBuilt } from '#app/components/not-built.tsx'
import type { RouteHandle } from '#app/lib/route-handle.ts'
import { requireAccess } from '#app/lib/session.server.ts'

export const handle = { title: 'Logs', feature: 'logs', resource: 'logging_backends' } satisfies RouteHandle

export async function loader(args: LoaderFunctionArgs) {
  await requireAccess(args, handle)
  return null
}

export default function LogsRoute() {
  return <NotBuilt title="Logs" capability="A log search across the configured log backends, by component or config item, with a time range." />
}

export function ErrorBoundary() {
  return <GeneralErrorBoundary />
}
