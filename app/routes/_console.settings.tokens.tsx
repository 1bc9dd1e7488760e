import type { LoaderFunctionArgs } from '@remix-run/node'
import { GeneralErrorBoundary } from '#app/components/error-boundary.tsx'
import { NotBuilt } from '#app/components/not-built.tsx'
import type { RouteHandle } from '#app/lib/route-handle.ts'
import { requireAccess } from '#app/lib/session.server.ts'

export const handle = { title: 'Tokens', feature: 'settings.tokens', resource: 'auth' } satisfies RouteHandle

export async function loader(args: LoaderFunctionArgs) {
  await requireAccess(args, handle)
  return null
}

export default function TokensRoute() {
  return <NotBuilt title="Tokens" capability="Your API access tokens with their scopes and expiry, and a way to create or revoke one." />
}

export function ErrorBoundary() {
  return <GeneralErrorBoundary />
}
