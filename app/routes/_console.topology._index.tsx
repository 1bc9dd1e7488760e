import { data, type LoaderFunctionArgs } from '@remix-run/node'
import { useLoaderData } from '@remix-run/react'
import { GeneralErrorBoundary } from '#app/components/error-boundary.tsx'
import { TopologyCardList } from '#app/components/topology/topology-toolbar.tsx'
import { getPreferences } from '#app/lib/preferences.server.ts'
import type { RouteHandle } from '#app/lib/route-handle.ts'
import { requireAccess, toErrorResponse } from '#app/lib/session.server.ts'
import { parseTopologyParams } from '#app/lib/topology-search.ts'
import { loadTopologyPage } from '#app/lib/topology.server.ts'

export const handle = { title: 'Topology', feature: 'topology', resource: 'topologies' } satisfies RouteHandle

/**
 * /topology (spec 000 §2, issue 15 item 4): the top-level components as cards at the chosen card
 * width, filtered, sorted and paged in the URL. Hidden components show while
 * `showHiddenComponents` says so, else while the preference does.
 */
export async function loader(args: LoaderFunctionArgs) {
  await requireAccess(args, handle)
  const params = parseTopologyParams(new URL(args.request.url).searchParams)
  const preferences = getPreferences(args.request)
  const showHidden = params.showHidden ?? preferences.showHiddenComponents
  try {
    const page = await loadTopologyPage(args, params, { showHidden })
    // Without an id there is always a page (possibly empty); null only means an unknown id.
    if (!page) throw new Error('topology page without a root came back empty')
    return data({ params, showHidden, cardWidth: preferences.cardWidth, page })
  } catch (error) {
    throw toErrorResponse(error)
  }
}

export default function TopologyRoute() {
  const { params, showHidden, cardWidth, page } = useLoaderData<typeof loader>()
  const isFiltered = Boolean(params.team || params.label || params.status || params.type || params.search)
  return (
    <section className="flex flex-col gap-4 p-6" data-testid="topology-dashboard">
      <h1 className="text-xl font-semibold">Topology</h1>
      <TopologyCardList
        params={params}
        page={page}
        showHidden={showHidden}
        cardWidth={cardWidth}
        emptyText={isFiltered ? 'No components match these filters.' : 'No components yet. Add a topology under Settings → Integrations to see it here.'}
      />
    </section>
  )
}

export function ErrorBoundary() {
  return <GeneralErrorBoundary />
}
