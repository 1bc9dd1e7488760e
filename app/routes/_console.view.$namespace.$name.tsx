import { data, type LoaderFunctionArgs } from '@remix-run/node'
import { useLoaderData } from '@remix-run/react'
import { GeneralErrorBoundary } from '#app/components/error-boundary.tsx'
import { ViewScreen } from '#app/components/views/view-screen.tsx'
import type { RouteHandle } from '#app/lib/route-handle.ts'
import { requireAccess, toErrorResponse } from '#app/lib/session.server.ts'
import { loadViewPage } from '#app/lib/views.server.ts'

export const handle = {
  title: (loaded: unknown) => (loaded as { view?: { title?: string } } | undefined)?.view?.title ?? 'View',
  feature: 'views',
  resource: 'views',
} satisfies RouteHandle

/** A custom view by namespace and name: variables from the URL (`var.<key>`), panels and the table of its rows. */
export async function loader(args: LoaderFunctionArgs) {
  await requireAccess(args, handle)
  try {
    return data(await loadViewPage(args, { namespace: args.params.namespace ?? '', name: args.params.name ?? '' }))
  } catch (error) {
    throw toErrorResponse(error)
  }
}

export default function ViewByNameRoute() {
  return <ViewScreen data={useLoaderData<typeof loader>()} />
}

export function ErrorBoundary() {
  return <GeneralErrorBoundary />
}
