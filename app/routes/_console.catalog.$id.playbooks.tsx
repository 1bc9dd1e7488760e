import type { LoaderFunctionArgs } from '@remix-run/node'
import { GeneralErrorBoundary } from '#app/components/error-boundary.tsx'
import { NotBuilt } from '#app/components/not-built.tsx'
import type { RouteHandle } from '#app/lib/route-handle.ts'
import { requireAccess } from '#app/lib/session.server.ts'

export const handle = { title: 'Catalog Item Playbooks', feature: 'config', resource: 'database' } satisfies RouteHandle

export async function loader(args: LoaderFunctionArgs) {
  await requireAccess(args, handle)
  return null
}

export default function CatalogItemPlaybooksRoute() {
  return <NotBuilt title="Catalog Item Playbooks" capability="The playbook runs against this item and the playbooks that can run on it." />
}

export function ErrorBoundary() {
  return <GeneralErrorBoundary />
}
