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

export default function ViewByIdRoute() {
  const { id } = useParams()
  return <NotBuilt title={`View ${id ?? ''}`} capability="A custom view: its panels and table, filtered by the view’s variables." />
}

export function ErrorBoundary() {
  return <GeneralErrorBoundary />
}
