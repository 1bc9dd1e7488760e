import type { LoaderFunctionArgs } from '@remix-run/node'
import { useParams } from '@remix-run/react'
import { GeneralErrorBoundary } from '#app/components/error-boundary.tsx'
import { NotBuilt } from '#app/components/not-built.tsx'
import type { RouteHandle } from '#app/lib/route-handle.ts'
import { requireAccess } from '#app/lib/session.server.ts'

export const handle = { title: 'Integration', feature: 'settings.integrations', resource: 'integrations', access: 'write' } satisfies RouteHandle

export async function loader(args: LoaderFunctionArgs) {
  await requireAccess(args, handle)
  return null
}

export default function IntegrationRoute() {
  const { type, id } = useParams()
  return <NotBuilt title={`Integration ${type ?? ''} / ${id ?? ''}`} capability="The editor for one integration of this type." />
}

export function ErrorBoundary() {
  return <GeneralErrorBoundary />
}
