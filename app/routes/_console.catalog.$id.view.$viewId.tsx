import { data, type LoaderFunctionArgs } from '@remix-run/node'
import { useLoaderData } from '@remix-run/react'
import { GeneralErrorBoundary } from '#app/components/error-boundary.tsx'
import { ViewScreen } from '#app/components/views/view-screen.tsx'
import type { RouteHandle } from '#app/lib/route-handle.ts'
import { errorResponse, requireAccess, toErrorResponse } from '#app/lib/session.server.ts'
import { loadViewPage } from '#app/lib/views.server.ts'
import { isUuid } from '#contract/uuid.ts'

export const handle = { feature: 'config', resource: 'database' } satisfies RouteHandle

/** A custom view as a tab of the item (display.plugins): the view run with the item as its `config_id` variable (http-api §2.4). */
export async function loader(args: LoaderFunctionArgs) {
  await requireAccess(args, handle)
  const viewId = args.params.viewId ?? ''
  if (!isUuid(viewId)) throw errorResponse(404, { message: 'No such view' })
  try {
    return data(await loadViewPage(args, { id: viewId }, { config_id: args.params.id ?? '' }))
  } catch (error) {
    throw toErrorResponse(error)
  }
}

export default function CatalogItemViewRoute() {
  return <ViewScreen data={useLoaderData<typeof loader>()} />
}

export function ErrorBoundary() {
  return <GeneralErrorBoundary />
}
