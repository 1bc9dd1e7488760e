import type { LoaderFunctionArgs } from '@remix-run/node'
import { useParams } from '@remix-run/react'
import { GeneralErrorBoundary } from '#app/components/error-boundary.tsx'
import { NotBuilt } from '#app/components/not-built.tsx'
import type { RouteHandle } from '#app/lib/route-handle.ts'
import { requireAccess } from '#app/lib/session.server.ts'

export const handle = { title: 'View', feature: 'views', resource: 'views' } satisfies RouteHandle

export async function loader(args: LoaderFunctionArgs) {
  await requireAccess(args, handle)
  return null
}

export default function ViewByNameRoute() {
  const { namespace, name } = useParams()
  return <NotBuilt title={`View ${namespace ?? ''} / ${name ?? ''}`} capability="A custom view addressed by namespace and name: its panels and table, filtered by the view’s variables." />
}

export function ErrorBoundary() {
  return <GeneralErrorBoundary />
}
