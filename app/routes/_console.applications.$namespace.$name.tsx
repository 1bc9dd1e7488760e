import type { LoaderFunctionArgs } from '@remix-run/node'
import { useParams } from '@remix-run/react'
import { GeneralErrorBoundary } from '#app/components/error-boundary.tsx'
import { NotBuilt } from '#app/components/not-built.tsx'
import type { RouteHandle } from '#app/lib/route-handle.ts'
import { requireAccess } from '#app/lib/session.server.ts'

export const handle = { title: 'Application', feature: 'applications', resource: 'database' } satisfies RouteHandle

export async function loader(args: LoaderFunctionArgs) {
  await requireAccess(args, handle)
  return null
}

export default function ApplicationRoute() {
  const { namespace, name } = useParams()
  return <NotBuilt title={`Application ${namespace ?? ''} / ${name ?? ''}`} capability="The audit report of one application: its resources, access, backups, incidents and recent changes." />
}

export function ErrorBoundary() {
  return <GeneralErrorBoundary />
}
