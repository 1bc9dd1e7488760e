import type { LoaderFunctionArgs } from '@remix-run/node'
import { GeneralErrorBoundary } from '#app/components/error-boundary.tsx'
import { NotBuilt } from '#app/components/not-built.tsx'
import type { RouteHandle } from '#app/lib/route-handle.ts'
import { requireAccess } from '#app/lib/session.server.ts'

export const handle = { title: 'Integrations', feature: 'settings.integrations', resource: 'integrations' } satisfies RouteHandle

export async function loader(args: LoaderFunctionArgs) {
  await requireAccess(args, handle)
  return null
}

export default function IntegrationsRoute() {
  return <NotBuilt title="Integrations" capability="The integrations (scrapers, topologies, log backends, notification channels) with their status." />
}

export function ErrorBoundary() {
  return <GeneralErrorBoundary />
}
