import type { LoaderFunctionArgs } from '@remix-run/node'
import { useParams } from '@remix-run/react'
import { GeneralErrorBoundary } from '#app/components/error-boundary.tsx'
import { NotBuilt } from '#app/components/not-built.tsx'
import type { RouteHandle } from '#app/lib/route-handle.ts'
import { requireAccess } from '#app/lib/session.server.ts'

export const handle = { title: 'Catalog Item View', feature: 'config', resource: 'database' } satisfies RouteHandle

export async function loader(args: LoaderFunctionArgs) {
  await requireAccess(args, handle)
  return null
}

export default function CatalogItemViewRoute() {
  const { viewId } = useParams()
  return <NotBuilt title={`Catalog Item View ${viewId ?? ''}`} capability="A custom view rendered for this item." />
}

export function ErrorBoundary() {
  return <GeneralErrorBoundary />
}
