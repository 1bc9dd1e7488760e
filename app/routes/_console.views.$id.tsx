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

/** A custom view by id: variables from the URL (`var.<key>`), panels and the table of its rows. */
export async function loader(args: LoaderFunctionArgs) {
  await requireAccess(args, handle)
  try {
    return data(await loadViewPage(args, { id: args.params.id ?? '' }))
  } catch (error) {
    throw toErrorResponse(error)
  }
}

export default function ViewByIdRoute() {
  return <ViewScreen data={useLoaderData<typeof loader>()} />
}

export function ErrorBoundary() {
  return <GeneralErrorBoundary />
}
