import type { LoaderFunctionArgs } from '@remix-run/node'
import { GeneralErrorBoundary } from '#app/components/error-boundary.tsx'
import { NotBuilt } from '#app/components/not-built.tsx'
import type { RouteHandle } from '#app/lib/route-handle.ts'
import { requireAccess } from '#app/lib/session.server.ts'

export const handle = { title: 'Permissions', feature: 'settings.permissions', resource: 'permissions' } satisfies RouteHandle

export async function loader(args: LoaderFunctionArgs) {
  await requireAccess(args, handle)
  return null
}

export default function PermissionsRoute() {
  return <NotBuilt title="Permissions" capability="The permission rules: who may do what on which resources, with add, edit and delete." />
}

export function ErrorBoundary() {
  return <GeneralErrorBoundary />
}
