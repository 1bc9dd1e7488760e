import type { LoaderFunctionArgs, MetaFunction } from '@remix-run/node'
import { useLoaderData } from '@remix-run/react'
import { DateTime } from '#app/components/date-time.tsx'
import { GeneralErrorBoundary } from '#app/components/error-boundary.tsx'
import { CardGrid, ComponentCard, HealthLabel } from '#app/components/topology/component-card.tsx'
import { Icon } from '#app/components/ui/icons.tsx'
import { boardCredential, parseRefreshSeconds } from '#app/lib/health.server.ts'
import type { RouteHandle } from '#app/lib/route-handle.ts'
import { errorResponse, toErrorResponse } from '#app/lib/session.server.ts'
import { parseTopologyParams } from '#app/lib/topology-search.ts'
import { loadTopologyPage, toCard } from '#app/lib/topology.server.ts'
import { isUuid } from '#contract/uuid.ts'

// A wall screen: plain HTML, no client JavaScript; the meta refresh below reloads it (decision 014).
export const handle = { title: 'Topology', hydrate: false } satisfies RouteHandle

/** The board reloads itself with a meta refresh, so a wall screen needs no JavaScript. */
export const meta: MetaFunction<typeof loader> = ({ data }) => [{ httpEquiv: 'refresh', content: String(data?.refresh ?? 30) }]

/** Cards a wall shows; the rest are counted (a wall is read from across a room, not scrolled). */
const WALL_CARD_LIMIT = 200
const HEALTH_RANK: Record<string, number> = { unhealthy: 0, warning: 1, unknown: 2, healthy: 3 }

/**
 * /view/topology/{id} (spec 000 §2): one component and its children, read-only, large type,
 * worst health first. It reads with `?token=` when given, else the visitor's session; without
 * either the backend serves it only when LOOKOUT_PUBLIC_HEALTH=true (as /view/health), and
 * otherwise the read's 401 sends the visitor to sign in.
 */
export async function loader(args: LoaderFunctionArgs) {
  const id = args.params.id ?? ''
  if (!isUuid(id)) throw errorResponse(404, { message: 'No such component' })
  const url = new URL(args.request.url)
  const refresh = parseRefreshSeconds(url.searchParams.get('refresh'))
  const params = { ...parseTopologyParams(url.searchParams), page: 1, pageSize: WALL_CARD_LIMIT }
  const credential = boardCredential(args.request)
  try {
    const page = await loadTopologyPage(args, params, {
      id,
      showHidden: params.showHidden ?? false,
      init: credential.authorization ? { headers: { authorization: credential.authorization } } : undefined,
    })
    if (!page?.root) throw errorResponse(404, { message: 'No such component' })
    const cards = [...page.cards].sort((a, b) => (HEALTH_RANK[a.health] ?? 2) - (HEALTH_RANK[b.health] ?? 2) || a.name.localeCompare(b.name))
    const counts = { unhealthy: 0, warning: 0, healthy: 0, unknown: 0 }
    for (const card of cards) counts[card.health as keyof typeof counts] += 1
    return { refresh, root: toCard(page.root), cards, more: Math.max(0, page.total - cards.length), counts, now: new Date().toISOString() }
  } catch (error) {
    throw toErrorResponse(error)
  }
}

export default function PublicTopologyRoute() {
  const wall = useLoaderData<typeof loader>()
  return (
    <div className="min-h-screen bg-background p-6 text-foreground" data-testid="topology-board">
      <header className="mb-6 flex flex-wrap items-center gap-4">
        <Icon name={wall.root.icon} aria-hidden="true" className="size-10 text-primary" />
        <h1 className="text-4xl font-bold" data-testid="board-title">
          {wall.root.name}
        </h1>
        <HealthLabel health={wall.root.health} large testId="board-root-health" />
        <div className="ml-auto flex items-center gap-6 text-3xl font-bold">
          <span className="text-danger" data-testid="board-unhealthy-count">
            {wall.counts.unhealthy} unhealthy
          </span>
          {wall.counts.warning ? <span className="text-warning">{wall.counts.warning} warning</span> : null}
          <span className="text-success" data-testid="board-healthy-count">
            {wall.counts.healthy} healthy
          </span>
        </div>
      </header>
      {wall.cards.length === 0 ? (
        <p className="rounded-xl border-2 border-dashed p-8 text-center text-3xl text-muted-foreground" data-testid="board-empty">
          This component has no child components.
        </p>
      ) : (
        <CardGrid testId="board-cards">
          {wall.cards.map((card) => (
            <ComponentCard key={card.id} card={card} width={440} large />
          ))}
        </CardGrid>
      )}
      {wall.more > 0 ? <p className="mt-4 text-2xl text-muted-foreground">and {wall.more} more components</p> : null}
      <footer className="mt-8 text-lg text-muted-foreground" data-testid="board-updated">
        Updated <DateTime value={wall.now} now={wall.now} /> · refreshes every {wall.refresh} s
      </footer>
    </div>
  )
}

export function ErrorBoundary() {
  return <GeneralErrorBoundary />
}
