import { withParams } from './health-model.ts'

/**
 * The check detail panel's own URL parameters and rules (spec 000 §2, §5; 001 §2): its tab,
 * the history filters (status, duration with custom values) and history paging.
 */

export const DETAIL_TABS = ['history', 'graph', 'spec', 'relationships'] as const
export type DetailTab = (typeof DETAIL_TABS)[number]
export const HISTORY_PAGE_SIZE = 50
export const GRAPH_POINTS = 300

/** The history's duration presets (spec 000 §2: All / 100ms / 500ms / 1s / 5s / 10s / 30s or a custom value). */
export const DURATION_PRESETS = ['100ms', '500ms', '1s', '5s', '10s', '30s'] as const
/** The select's value that means "the value typed beside it". */
export const CUSTOM_DURATION = 'custom'

export const DURATION_FILTER_ERROR = 'duration is allowed only in milli seconds & seconds'

/** `250ms` → 250, `2s` / `1.5s` → ms; anything else is refused with the spec's message. */
export function parseDurationFilter(text: string): { ok: true; ms: number | null } | { ok: false; error: string } {
  const trimmed = text.trim()
  if (!trimmed) return { ok: true, ms: null }
  const match = /^(\d+(?:\.\d+)?)\s*(ms|s)$/.exec(trimmed)
  if (!match) return { ok: false, error: DURATION_FILTER_ERROR }
  const value = Number(match[1])
  return { ok: true, ms: Math.round(match[2] === 's' ? value * 1000 : value) }
}

export type DetailParams = {
  tab: DetailTab
  status: 'all' | 'healthy' | 'unhealthy'
  /** The duration as typed or chosen ('' for All). */
  duration: string
  /** Whether the duration is one of the presets (else the select shows Custom). */
  durationIsPreset: boolean
  durationMs: number | null
  durationError: string | null
  page: number
}

/** Roles that see Run Now (spec 001 §6). */
export const RUN_NOW_ROLES = ['admin', 'editor', 'responder', 'commander'] as const

export function canRunNow(roles: readonly string[]): boolean {
  return roles.some((role) => (RUN_NOW_ROLES as readonly string[]).includes(role))
}

/** The global refresh-rate setting: `30s`, `5m`, `1h`, `1d`, `1w`; `0` or anything else is off. */
export function parseRefreshRate(value: string | null | undefined): number {
  const match = /^\s*(\d+)\s*([smhdw])\s*$/.exec(value ?? '')
  if (!match) return 0
  const unit = { s: 1000, m: 60_000, h: 3_600_000, d: 86_400_000, w: 604_800_000 }[match[2] as 's' | 'm' | 'h' | 'd' | 'w']
  return Number(match[1]) * unit
}

export type GraphPoint = { time: string; status?: boolean; duration?: number; passed?: number; failed?: number }

/**
 * Points of the latency line and status strip, thinned to at most `limit` points so the SVG
 * stays small for long ranges.
 */
export function thinGraph(points: readonly GraphPoint[], limit = GRAPH_POINTS): GraphPoint[] {
  if (points.length <= limit) return [...points]
  const step = points.length / limit
  const out: GraphPoint[] = []
  for (let i = 0; i < limit; i++) {
    const from = Math.floor(i * step)
    const to = Math.max(from + 1, Math.floor((i + 1) * step))
    const slice = points.slice(from, to)
    const durations = slice.map((point) => point.duration ?? 0)
    out.push({
      time: slice[0]!.time,
      status: slice.every((point) => point.status === true),
      duration: Math.round(durations.reduce((sum, value) => sum + value, 0) / durations.length),
      passed: slice.reduce((sum, point) => sum + (point.passed ?? 0), 0),
      failed: slice.reduce((sum, point) => sum + (point.failed ?? 0), 0),
    })
  }
  return out
}

const DETAIL_PARAMS = ['checkId', 'checkTab', 'historyStatus', 'historyDuration', 'historyDurationCustom', 'historyPage']

/** Closing drops the panel's parameters and puts the range back to 1 h (spec 001 §2). */
export function closePanelHref(search: string): string {
  return withParams(search, { ...Object.fromEntries(DETAIL_PARAMS.map((name) => [name, null])), timeRange: '1h' }, true)
}
