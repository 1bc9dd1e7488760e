import type { Db } from '#server/db/client.ts'
import { parseDurationMs } from './duration.ts'

/** Bad query input; the router answers 400 with the legacy `{error}` body. */
export class SummaryInputError extends Error {
  readonly status = 400
}

/** `1h`, `3d`, `2w` back from `now`, or an RFC3339 time (http-api §3.2). */
export function parseTimeParam(value: unknown, now: Date, name: string): Date | undefined {
  if (value === undefined || value === null || value === '') return undefined
  const text = String(value).trim()
  const ms = parseDurationMs(text.replace(/^-/, ''))
  if (ms !== null && !/^\d+(\.\d+)?$/.test(text)) return new Date(now.getTime() - ms)
  if (/^\d{4}-\d{2}-\d{2}/.test(text)) {
    const time = Date.parse(text)
    if (!Number.isNaN(time)) return new Date(time)
  }
  throw new SummaryInputError(`${name} is invalid: time must be a duration or RFC3339 timestamp`)
}

type SummaryRow = {
  id: string
  canary_id: string
  agent_id: string
  canary_name: string | null
  canary_namespace: string | null
  name: string
  namespace: string | null
  type: string
  status: string | null
  description: string | null
  icon: string | null
  severity: string | null
  owner: string | null
  labels: Record<string, string>
  last_runtime: Date | null
  last_transition_time: Date | null
  created_at: Date | null
  updated_at: Date | null
  deleted_at: Date | null
  silenced_at: Date | null
  total: number
  passed: number
  failed: number
  last_pass: Date | null
  last_fail: Date | null
  p99: number | null
  p97: number | null
  p95: number | null
  f_status: boolean | null
  f_time: Date | null
  f_duration: number | null
}

export type SummaryQuery = {
  labels?: Record<string, string>
  deleteFrom?: Date
  sortBy?: string
  start?: Date
  end?: Date
  checkId?: string
  canaryId?: string
  includeStatuses?: boolean
  statusLimit?: number
}

const iso = (value: Date | string | null | undefined) => (value ? new Date(value).toISOString() : undefined)

/**
 * The checks_summary rows (http-api §3.1): uptime and latency over the window (last hour by
 * default); a check without statuses in it falls back to its latest single status. Zero and
 * empty values are omitted as the reference's JSON does.
 */
export async function getChecksSummary(db: Db, query: SummaryQuery = {}): Promise<Record<string, unknown>[]> {
  const end = query.end ?? new Date()
  const start = query.start ?? new Date(end.getTime() - 3_600_000)
  const { rows } = await db.query<SummaryRow>(
    `SELECT c.id, c.canary_id, c.agent_id, ca.name AS canary_name, ca.namespace AS canary_namespace, c.name, c.namespace, c.type,
       c.status, c.description, c.icon, c.severity, c.owner,
       coalesce(CASE WHEN jsonb_typeof(ca.labels) = 'object' THEN ca.labels END, '{}'::jsonb)
         || coalesce(CASE WHEN jsonb_typeof(c.labels) = 'object' THEN c.labels END, '{}'::jsonb) AS labels,
       cu.last_runtime, c.last_transition_time, c.created_at, c.updated_at, c.deleted_at, c.silenced_at,
       h.total::integer AS total, h.passed::integer AS passed, h.failed::integer AS failed, h.last_pass, h.last_fail, h.p99, h.p97, h.p95,
       f.status AS f_status, f.time AS f_time, f.duration AS f_duration
     FROM checks c
     JOIN canaries ca ON ca.id = c.canary_id
     LEFT JOIN checks_unlogged cu ON cu.check_id = c.id
     CROSS JOIN LATERAL (
       SELECT count(*) AS total, count(*) FILTER (WHERE s.status) AS passed, count(*) FILTER (WHERE NOT s.status) AS failed,
         max(s.time) FILTER (WHERE s.status) AS last_pass, max(s.time) FILTER (WHERE NOT s.status) AS last_fail,
         percentile_disc(0.99) WITHIN GROUP (ORDER BY s.duration) AS p99,
         percentile_disc(0.97) WITHIN GROUP (ORDER BY s.duration) AS p97,
         percentile_disc(0.95) WITHIN GROUP (ORDER BY s.duration) AS p95
       FROM check_statuses s WHERE s.check_id = c.id AND s.time > $1 AND s.time <= $2) AS h
     LEFT JOIN LATERAL (
       SELECT s.status, s.time, s.duration FROM check_statuses s
       WHERE h.total = 0 AND s.check_id = c.id AND s.time <= $2 ORDER BY s.time DESC LIMIT 1) AS f ON true
     WHERE (c.deleted_at IS NULL OR ($3::timestamptz IS NOT NULL AND c.deleted_at > $3::timestamptz))
       AND (coalesce(CASE WHEN jsonb_typeof(ca.labels) = 'object' THEN ca.labels END, '{}'::jsonb)
         || coalesce(CASE WHEN jsonb_typeof(c.labels) = 'object' THEN c.labels END, '{}'::jsonb)) @> $4::jsonb
       AND ($5::uuid IS NULL OR c.id = $5::uuid)
       AND ($6::uuid IS NULL OR c.canary_id = $6::uuid)
     ORDER BY c.name ${query.sortBy === '-name' ? 'DESC' : 'ASC'}, c.id`,
    [start, end, query.deleteFrom ?? null, JSON.stringify(query.labels ?? {}), query.checkId ?? null, query.canaryId ?? null],
  )
  const statuses = query.includeStatuses ? await recentStatuses(db, rows.map((row) => row.id), start, end, query.statusLimit ?? 50) : new Map()
  return rows.map((row) => {
    const fallback = row.total === 0
    const uptime: Record<string, unknown> = {
      passed: fallback ? (row.f_status === true ? 1 : 0) : row.passed,
      failed: fallback ? (row.f_status === false ? 1 : 0) : row.failed,
    }
    const lastPass = fallback ? (row.f_status === true ? row.f_time : null) : row.last_pass
    const lastFail = fallback ? (row.f_status === false ? row.f_time : null) : row.last_fail
    if (lastPass) uptime.last_pass = iso(lastPass)
    if (lastFail) uptime.last_fail = iso(lastFail)
    const latency: Record<string, unknown> = {}
    const pick = (value: number | null) => (fallback ? row.f_duration : value)
    for (const [key, value] of [['p99', pick(row.p99)], ['p97', pick(row.p97)], ['p95', pick(row.p95)]] as const) {
      if (value) latency[key] = value
    }
    latency.rolling1h = 0
    const out: Record<string, unknown> = {
      id: row.id,
      canary_id: row.canary_id,
      canary_name: row.canary_name,
      canary_namespace: row.canary_namespace,
      agent_id: row.agent_id,
      name: row.name,
      namespace: row.namespace ?? '',
      type: row.type,
      status: row.status ?? '',
      labels: row.labels,
      uptime,
      latency,
    }
    if (row.description) out.description = row.description
    if (row.icon) out.icon = row.icon
    if (row.severity) out.severity = row.severity
    if (row.owner) out.owner = row.owner
    if (row.last_runtime) out.last_runtime = iso(row.last_runtime)
    if (row.last_transition_time) out.last_transition_time = iso(row.last_transition_time)
    out.created_at = iso(row.created_at)
    out.updated_at = iso(row.updated_at)
    if (row.deleted_at) out.deleted_at = iso(row.deleted_at)
    if (row.silenced_at) out.silenced_at = iso(row.silenced_at)
    if (query.includeStatuses) out.checkStatuses = statuses.get(row.id) ?? []
    return out
  })
}

async function recentStatuses(db: Db, ids: string[], start: Date, end: Date, limit: number) {
  const map = new Map<string, Record<string, unknown>[]>()
  if (ids.length === 0) return map
  const { rows } = await db.query<{ check_id: string; time: Date; duration: number; status: boolean; invalid: boolean | null; message: string | null; error: string | null }>(
    `SELECT r.* FROM unnest($1::uuid[]) AS ids(id)
     CROSS JOIN LATERAL (
       SELECT s.check_id, s.time, s.duration, s.status, s.invalid, s.message, s.error FROM check_statuses s
       WHERE s.check_id = ids.id AND s.time > $2 AND s.time <= $3 ORDER BY s.time DESC LIMIT $4) AS r`,
    [ids, start, end, limit],
  )
  for (const row of rows) {
    const list = map.get(row.check_id) ?? []
    const entry: Record<string, unknown> = { status: row.status, time: iso(row.time), duration: row.duration }
    if (row.invalid) entry.invalid = true
    if (row.message) entry.message = row.message
    if (row.error) entry.error = row.error
    list.push(entry)
    map.set(row.check_id, list)
  }
  return map
}

/** Bucket width by window span (http-api §3.2). */
export function graphWindowMs(spanMs: number): number {
  if (spanMs <= 2 * 3_600_000) return 60_000
  if (spanMs <= 24 * 3_600_000) return 15 * 60_000
  if (spanMs <= 7 * 86_400_000) return 3_600_000
  return 4 * 3_600_000
}

/** Empirical quantile (nearest rank) of already-sorted numbers. */
function quantile(sorted: number[], q: number): number {
  if (sorted.length === 0) return 0
  return sorted[Math.min(sorted.length - 1, Math.max(0, Math.ceil(q * sorted.length) - 1))]!
}

export async function getCheckGraph(db: Db, query: { checkId: string; start: Date; end: Date }) {
  if (query.end.getTime() <= query.start.getTime()) throw new SummaryInputError('end time must be after start time')
  const window = graphWindowMs(query.end.getTime() - query.start.getTime())
  const { rows } = await db.query<{ bucket: string | number; all_passed: boolean; duration: string | number; passed: string | number; failed: string | number }>(
    `SELECT (floor((extract(epoch FROM s.time) * 1000 + $4 / 2) / $4) * $4)::bigint AS bucket,
       bool_and(s.status) AS all_passed, round(avg(s.duration))::integer AS duration,
       count(*) FILTER (WHERE s.status)::integer AS passed, count(*) FILTER (WHERE NOT s.status)::integer AS failed
     FROM check_statuses s WHERE s.check_id = $1 AND s.time >= $2 AND s.time <= $3
     GROUP BY 1 ORDER BY 1`,
    [query.checkId, query.start, query.end, window],
  )
  if (rows.length === 0) return { status: null, latency: { rolling1h: 0 }, uptime: { passed: 0, failed: 0 } }
  let passed = 0
  let failed = 0
  const status = rows.map((row) => {
    const point: Record<string, unknown> = { time: new Date(Number(row.bucket)).toISOString() }
    if (row.all_passed) point.status = true
    point.duration = Number(row.duration)
    if (Number(row.passed) > 0) point.passed = Number(row.passed)
    if (Number(row.failed) > 0) point.failed = Number(row.failed)
    passed += Number(row.passed)
    failed += Number(row.failed)
    return point
  })
  const averages = rows.map((row) => Number(row.duration)).sort((a, b) => a - b)
  return {
    status,
    latency: { p99: quantile(averages, 0.99), p97: quantile(averages, 0.97), p95: quantile(averages, 0.95), rolling1h: 0 },
    uptime: { passed, failed },
  }
}
