import type { LoaderFunctionArgs, MetaFunction } from '@remix-run/node'
import { useLoaderData } from '@remix-run/react'
import { Radar } from '#app/components/ui/icons.tsx'
import { DateTime } from '#app/components/date-time.tsx'
import { GeneralErrorBoundary } from '#app/components/error-boundary.tsx'
import { checkDisplayName, shownLatency, type CheckSummary } from '#app/components/health/health-model.ts'
import { cn } from '#app/lib/cn.ts'
import { formatLatency, formatPercent, timeAgo } from '#app/lib/format.ts'
import type { RouteHandle } from '#app/lib/route-handle.ts'
import { toErrorResponse } from '#app/lib/session.server.ts'
import { loadBoard, parseRefreshSeconds } from '#app/lib/health.server.ts'

// A wall screen: plain HTML, no client JavaScript; the meta refresh below reloads it (decision 014).
export const handle = { title: 'Health', hydrate: false } satisfies RouteHandle

/** The board reloads itself with a meta refresh, so a wall screen needs no JavaScript. */
export const meta: MetaFunction<typeof loader> = ({ data }) => [{ httpEquiv: 'refresh', content: String(data?.refresh ?? 30) }]

/** How many healthy tiles fit before the rest collapse into a count. */
const HEALTHY_TILE_LIMIT = 120

type Tile = { id: string; name: string; namespace: string; status: 'healthy' | 'unhealthy' | 'unknown'; uptime: string | null; latency: string; transition: string | null }

function toTile(check: CheckSummary, now: Date): Tile {
  const passed = check.uptime?.passed ?? 0
  const failed = check.uptime?.failed ?? 0
  return {
    id: check.id,
    name: checkDisplayName(check),
    namespace: check.namespace || 'none',
    status: check.status === 'healthy' ? 'healthy' : check.status === 'unhealthy' ? 'unhealthy' : 'unknown',
    uptime: formatPercent(passed, passed + failed),
    latency: formatLatency(shownLatency(check.latency)),
    transition: timeAgo(check.last_transition_time, now),
  }
}

export async function loader(args: LoaderFunctionArgs) {
  const url = new URL(args.request.url)
  const refresh = parseRefreshSeconds(url.searchParams.get('refresh'))
  try {
    const board = await loadBoard(args)
    const now = new Date()
    const tiles = board.checks.filter((check) => !check.deleted_at).map((check) => toTile(check, now))
    const byName = (a: Tile, b: Tile) => a.name.toLowerCase().localeCompare(b.name.toLowerCase())
    const unhealthy = tiles.filter((tile) => tile.status !== 'healthy').sort((a, b) => (a.status === b.status ? byName(a, b) : a.status === 'unhealthy' ? -1 : 1))
    const healthy = tiles.filter((tile) => tile.status === 'healthy').sort(byName)
    return {
      refresh,
      unhealthy,
      healthy: healthy.slice(0, HEALTHY_TILE_LIMIT),
      hiddenHealthy: Math.max(0, healthy.length - HEALTHY_TILE_LIMIT),
      counts: { total: tiles.length, healthy: healthy.length, unhealthy: unhealthy.length },
      fetchedAt: board.fetchedAt,
      staleSince: board.staleSince,
      error: board.error,
      now: now.toISOString(),
    }
  } catch (error) {
    throw toErrorResponse(error)
  }
}

function TileView({ tile, large }: { tile: Tile; large: boolean }) {
  return (
    <li
      data-testid="board-tile"
      data-status={tile.status}
      className={cn(
        'flex flex-col justify-between rounded-xl border-2 p-4',
        tile.status === 'unhealthy' && 'border-danger bg-danger text-white',
        tile.status === 'unknown' && 'border-warning bg-warning-muted',
        tile.status === 'healthy' && 'border-success/40 bg-success-muted',
      )}
    >
      <span className={cn('break-words font-bold', large ? 'text-3xl' : 'text-xl', 'leading-tight')}>{tile.name}</span>
      <span className={cn('mt-2 flex flex-wrap gap-x-4 font-medium', large ? 'text-xl' : 'text-base', tile.status === 'unhealthy' ? 'text-white/90' : 'text-foreground/80')}>
        <span>{tile.namespace}</span>
        {tile.uptime ? <span>{tile.uptime}</span> : null}
        {tile.latency ? <span>{tile.latency}</span> : null}
        {large && tile.transition ? <span>since {tile.transition}</span> : null}
      </span>
    </li>
  )
}

/**
 * /view/health: a read-only wall board (spec 000 §2). Large type, unhealthy checks first in
 * red, the rest in green; the last good data stays up with a 'stale since' banner while the
 * backend cannot be reached.
 */
export default function PublicHealthRoute() {
  const board = useLoaderData<typeof loader>()
  const now = new Date(board.now)
  return (
    <div className="min-h-screen bg-background p-6 text-foreground" data-testid="health-board">
      <header className="mb-6 flex items-center gap-4">
        <Radar aria-hidden="true" className="size-10 text-primary" />
        <h1 className="text-4xl font-bold">Health</h1>
        <div className="ml-auto flex items-center gap-6 text-3xl font-bold">
          <span className="text-danger" data-testid="board-unhealthy-count">
            {board.counts.unhealthy} unhealthy
          </span>
          <span className="text-success" data-testid="board-healthy-count">
            {board.counts.healthy} healthy
          </span>
        </div>
      </header>
      {board.staleSince ? (
        <p role="alert" className="mb-6 rounded-xl bg-warning px-6 py-4 text-3xl font-bold text-white" data-testid="board-stale">
          Stale since <DateTime value={board.staleSince} now={now} /> — the backend cannot be reached ({board.error})
        </p>
      ) : board.error ? (
        <p role="alert" className="mb-6 rounded-xl bg-danger px-6 py-4 text-3xl font-bold text-white" data-testid="board-error">
          No data yet — {board.error}
        </p>
      ) : null}
      {board.unhealthy.length > 0 ? (
        <ul className="mb-8 grid grid-cols-[repeat(auto-fill,minmax(22rem,1fr))] gap-4" data-testid="board-unhealthy">
          {board.unhealthy.map((tile) => (
            <TileView key={tile.id} tile={tile} large />
          ))}
        </ul>
      ) : board.counts.total > 0 ? (
        <p className="mb-8 rounded-xl bg-success px-6 py-6 text-4xl font-bold text-white" data-testid="board-all-healthy">
          All {board.counts.total} checks are healthy
        </p>
      ) : null}
      <ul className="grid grid-cols-[repeat(auto-fill,minmax(16rem,1fr))] gap-3" data-testid="board-healthy">
        {board.healthy.map((tile) => (
          <TileView key={tile.id} tile={tile} large={false} />
        ))}
      </ul>
      {board.hiddenHealthy > 0 ? <p className="mt-4 text-2xl text-muted-foreground">and {board.hiddenHealthy} more healthy checks</p> : null}
      <footer className="mt-8 text-lg text-muted-foreground" data-testid="board-updated">
        Updated <DateTime value={board.fetchedAt} now={now} /> · refreshes every {board.refresh} s
      </footer>
    </div>
  )
}

export function ErrorBoundary() {
  return <GeneralErrorBoundary />
}
