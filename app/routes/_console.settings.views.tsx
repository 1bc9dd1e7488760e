import type { LoaderFunctionArgs } from '@remix-run/node'
import { GeneralErrorBoundary } from '#app/components/error-boundary.tsx'
import { NotBuilt } from '#app/components/not-built.tsx'
import type { RouteHandle } from '#app/lib/route-handle.ts'
import { requireAccess } from '#app/lib/session.server.ts'

export const handle = { title: 'Views', feature: 'views', resource: 'views' } satisfies RouteHandle

export async function loader(args: LoaderFunctionArgs) {
  await requireAccess(args, handle)
  return null
}

export default function ViewsSettingsRoute() {
  return <NotBuilt title="Views" capability="The custom views with their namespace, sidebar flag and order, and a way to add or edit one." />
}

export function ErrorBoundary() {
  return <GeneralErrorBoundary />
}
