import type { LoaderFunctionArgs } from '@remix-run/node'
import { useParams } from '@remix-run/react'
import { GeneralErrorBoundary } from '#app/components/error-boundary.tsx'
import { NotBuilt } from '#app/components/not-built.tsx'
import type { RouteHandle } from '#app/lib/route-handle.ts'
import { requireAccess } from '#app/lib/session.server.ts'

export const handle = { title: 'Incident', feature: 'incidents', resource: 'incident' } satisfies RouteHandle

export async function loader(args: LoaderFunctionArgs) {
  await requireAccess(args, handle)
  return null
}

export default function IncidentDetailRoute() {
  const { id } = useParams()
  return <NotBuilt title={`Incident ${id ?? ''}`} capability="One incident with its status, severity, responders, timeline, hypotheses and evidence." />
}

export function ErrorBoundary() {
  return <GeneralErrorBoundary />
}
