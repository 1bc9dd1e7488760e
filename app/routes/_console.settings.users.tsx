import type { LoaderFunctionArgs } from '@remix-run/node'
import { GeneralErrorBoundary } from '#app/components/error-boundary.tsx'
import { NotBuilt } from '#app/components/not-built.tsx'
import type { RouteHandle } from '#app/lib/route-handle.ts'
import { requireAccess } from '#app/lib/session.server.ts'

export const handle = { title: 'Users', feature: 'settings.users', resource: 'identities' } satisfies RouteHandle

export async function loader(args: LoaderFunctionArgs) {
  await requireAccess(args, handle)
  return null
}

export default function UsersRoute() {
  return <NotBuilt title="Users" capability="The people who can sign in, their roles and state, and a way to invite someone." />
}

export function ErrorBoundary() {
  return <GeneralErrorBoundary />
}
