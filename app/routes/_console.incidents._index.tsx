import type { LoaderFunctionArgs } from '@remix-run/node'
import { GeneralErrorBoundary } from '#app/components/error-boundary.tsx'
import { NotBuilt } from '#app/components/not-built.tsx'
import type { RouteHandle } from '#app/lib/route-handle.ts'
import { requireAccess } from '#app/lib/session.server.ts'

export const handle = { title: 'Incidents', feature: 'incidents', resource: 'incident' } satisfies RouteHandle

export async function loader(args: LoaderFunctionArgs) {
  await requireAccess(args, handle)
  return null
}

export default function IncidentsRoute() {
  return <NotBuilt title="Incidents" capability="The incident list, filterable by status, severity, type and commander, with a button to open a new incident." />
}

export function ErrorBoundary() {
  return <GeneralErrorBoundary />
}
