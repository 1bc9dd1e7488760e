import type { Db } from '#server/db/client.ts'
import { parseDurationMs } from '#contract/canary/duration.ts'

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

export type SummaryQuery = {
  labels?: Record<string, string>
  deleteFrom?: Date
  sortBy?: string
  start?: Date
  end?: Date
  checkId?: string
  canaryId?: string
  /** Adds each check's newest statuses in the window (the legacy /api listing). */
  includeStatuses?: boolean
  statusLimit?: number
  /** With includeStatuses: keep each status's message. */
  includeMessages?: boolean
}

/** A timestamp as JavaScript's toISOString writes it (millisecond precision, `Z`). */
const ISO = (expression: string) => `to_char((${expression}) AT TIME ZONE 'UTC', 'YYYY-MM-DD"T"HH24:MI:SS.MS"Z"')`

const HOUR_MS = 3_600_000
const DAY_MS = 86_400_000

/**
 * How a window (start, end] is read: raw runs for the part before the first whole UTC hour
 * (start, hourFrom) and after the last one [hourTo, end]; check_statuses_1h for the whole hours
 * in between, except whole UTC days [dayFrom, dayTo), which come from check_statuses_1d. A
 * window without a whole hour in it is read from raw runs only (hourFrom = hourTo = end).
 */
export type SummaryWindow = { start: Date; hourFrom: Date; dayFrom: Date; dayTo: Date; hourTo: Date; end: Date }

export function summaryWindow(start: Date, end: Date): SummaryWindow {
  const hourFrom = Math.ceil(start.getTime() / HOUR_MS) * HOUR_MS
  const hourTo = Math.floor(end.getTime() / HOUR_MS) * HOUR_MS
  if (hourFrom >= hourTo) return { start, hourFrom: end, dayFrom: end, dayTo: end, hourTo: end, end }
  const dayFrom = Math.ceil(hourFrom / DAY_MS) * DAY_MS
  const dayTo = Math.floor(hourTo / DAY_MS) * DAY_MS
  const days = dayFrom < dayTo ? { dayFrom: new Date(dayFrom), dayTo: new Date(dayTo) } : { dayFrom: new Date(hourFrom), dayTo: new Date(hourFrom) }
  return { start, hourFrom: new Date(hourFrom), ...days, hourTo: new Date(hourTo), end }
}

/*
 * One statement for the whole list. Uptime counts are exact: rollup buckets for whole hours and
 * days, raw runs for the ragged ends. last_pass/last_fail are exact too: the newest raw tail
 * answers for most checks; otherwise one index probe into the newest bucket that had a pass
 * (or failure) finds the run (the bucket's start when its raw runs were pruned).
 *
 * Percentiles are nearest-rank over weighted samples: every raw run in the ragged ends counts
 * once, every rollup bucket counts as `total` runs of its average duration. A window without a
 * whole hour in it (the 1h default, which starts on the minute) is therefore exact, matching
 * percentile_disc; a longer window is an estimate that smooths spikes shorter than an hour.
 * Exact percentiles over days of runs would need every run sorted per request (seconds at
 * 10,000 checks), which is what the rollups exist to avoid.
 */
// A window with rollup buckets in it: raw ends plus weighted buckets (see above).
const MIXED_WINDOW_CTES = `
WITH raw AS (
  SELECT s.check_id, s.time, s.status, s.duration FROM check_statuses s
  WHERE s.time > $1 AND s.time < $2 AND ($9::uuid IS NULL OR s.check_id = $9::uuid)
  UNION ALL
  SELECT s.check_id, s.time, s.status, s.duration FROM check_statuses s
  WHERE s.time >= $3 AND s.time <= $4 AND ($9::uuid IS NULL OR s.check_id = $9::uuid)
), buckets AS (
  SELECT b.check_id, b.created_at, b.created_at + interval '1 hour' AS ends, b.duration, b.total, b.passed, b.failed
  FROM check_statuses_1h b
  WHERE b.created_at >= $2 AND b.created_at < $3 AND NOT (b.created_at >= $5 AND b.created_at < $6)
    AND ($9::uuid IS NULL OR b.check_id = $9::uuid)
  UNION ALL
  SELECT b.check_id, b.created_at, b.created_at + interval '1 day', b.duration, b.total, b.passed, b.failed
  FROM check_statuses_1d b
  WHERE b.created_at >= $5 AND b.created_at < $6 AND ($9::uuid IS NULL OR b.check_id = $9::uuid)
), counts AS (
  SELECT x.check_id, sum(x.total)::integer AS total, sum(x.passed)::integer AS passed, sum(x.failed)::integer AS failed,
    max(x.tail_pass) AS tail_pass, max(x.tail_fail) AS tail_fail, max(x.head_pass) AS head_pass, max(x.head_fail) AS head_fail,
    max(x.pass_from) AS pass_from, max(x.pass_to) AS pass_to, max(x.fail_from) AS fail_from, max(x.fail_to) AS fail_to
  FROM (
    SELECT r.check_id, count(*) AS total, count(*) FILTER (WHERE r.status) AS passed, count(*) FILTER (WHERE NOT r.status) AS failed,
      max(r.time) FILTER (WHERE r.status AND r.time >= $3) AS tail_pass, max(r.time) FILTER (WHERE NOT r.status AND r.time >= $3) AS tail_fail,
      max(r.time) FILTER (WHERE r.status AND r.time < $2) AS head_pass, max(r.time) FILTER (WHERE NOT r.status AND r.time < $2) AS head_fail,
      NULL::timestamptz AS pass_from, NULL::timestamptz AS pass_to, NULL::timestamptz AS fail_from, NULL::timestamptz AS fail_to
    FROM raw r GROUP BY r.check_id
    UNION ALL
    SELECT b.check_id, sum(b.total), sum(b.passed), sum(b.failed), NULL, NULL, NULL, NULL,
      max(b.created_at) FILTER (WHERE b.passed > 0), max(b.ends) FILTER (WHERE b.passed > 0),
      max(b.created_at) FILTER (WHERE b.failed > 0), max(b.ends) FILTER (WHERE b.failed > 0)
    FROM buckets b GROUP BY b.check_id
  ) x GROUP BY x.check_id
), samples AS (
  SELECT r.check_id, r.duration AS value, 1::bigint AS weight FROM raw r WHERE r.duration IS NOT NULL
  UNION ALL
  SELECT b.check_id, b.duration, b.total FROM buckets b WHERE b.total > 0
), ranked AS (
  SELECT s.check_id, s.value, sum(s.weight) OVER (PARTITION BY s.check_id ORDER BY s.value ROWS UNBOUNDED PRECEDING) AS cum,
    sum(s.weight) OVER (PARTITION BY s.check_id) AS n
  FROM samples s
), latency AS (
  SELECT r.check_id, min(r.value) FILTER (WHERE r.cum >= 0.99 * r.n) AS p99, min(r.value) FILTER (WHERE r.cum >= 0.97 * r.n) AS p97,
    min(r.value) FILTER (WHERE r.cum >= 0.95 * r.n) AS p95
  FROM ranked r GROUP BY r.check_id
)`

// A window without a whole hour in it reads raw runs only: one pass of plain aggregates, with
// percentile_disc for the percentiles (the weighted ranking above costs several times more).
// Both shapes take the same parameters; this one names the unused bounds only so that every
// parameter has a type.
const RAW_WINDOW_CTES = `
WITH counts AS (
  SELECT s.check_id, count(*)::integer AS total, count(*) FILTER (WHERE s.status)::integer AS passed,
    count(*) FILTER (WHERE NOT s.status)::integer AS failed,
    max(s.time) FILTER (WHERE s.status) AS tail_pass, max(s.time) FILTER (WHERE NOT s.status) AS tail_fail,
    NULL::timestamptz AS head_pass, NULL::timestamptz AS head_fail,
    NULL::timestamptz AS pass_from, NULL::timestamptz AS pass_to, NULL::timestamptz AS fail_from, NULL::timestamptz AS fail_to,
    percentile_disc(ARRAY[0.99, 0.97, 0.95]) WITHIN GROUP (ORDER BY s.duration) AS p
  FROM check_statuses s
  WHERE s.time > $1 AND s.time <= $4 AND ($9::uuid IS NULL OR s.check_id = $9::uuid)
    AND $2::timestamptz IS NOT NULL AND $3::timestamptz IS NOT NULL AND $5::timestamptz IS NOT NULL AND $6::timestamptz IS NOT NULL
  GROUP BY s.check_id
), latency AS (
  SELECT c.check_id, c.p[1] AS p99, c.p[2] AS p97, c.p[3] AS p95 FROM counts c
)`

export const SUMMARY_SQL = (order: 'ASC' | 'DESC', rawOnly: boolean) => `${rawOnly ? RAW_WINDOW_CTES : MIXED_WINDOW_CTES}
SELECT coalesce(json_agg(j.row ORDER BY j.name ${order}, j.id), '[]')::text AS body FROM (
SELECT c.name, c.id, json_strip_nulls(json_build_object(
  'id', c.id, 'canary_id', c.canary_id, 'canary_name', ca.name, 'canary_namespace', ca.namespace, 'agent_id', c.agent_id,
  'name', c.name, 'namespace', coalesce(c.namespace, ''), 'type', c.type, 'status', coalesce(c.status, ''),
  'labels', coalesce(CASE WHEN jsonb_typeof(ca.labels) = 'object' THEN ca.labels END, '{}'::jsonb)
    || coalesce(CASE WHEN jsonb_typeof(c.labels) = 'object' THEN c.labels END, '{}'::jsonb),
  'uptime', CASE WHEN h.total > 0 THEN json_build_object('passed', h.passed, 'failed', h.failed,
      'last_pass', ${ISO('coalesce(h.tail_pass, lp.time, h.pass_from, h.head_pass)')},
      'last_fail', ${ISO('coalesce(h.tail_fail, lf.time, h.fail_from, h.head_fail)')})
    ELSE json_build_object('passed', (f.status IS TRUE)::integer, 'failed', (f.status IS FALSE)::integer,
      'last_pass', CASE WHEN f.status THEN ${ISO('f.time')} END, 'last_fail', CASE WHEN NOT f.status THEN ${ISO('f.time')} END) END,
  'latency', CASE WHEN h.total > 0 THEN json_build_object('p99', nullif(l.p99, 0), 'p97', nullif(l.p97, 0), 'p95', nullif(l.p95, 0), 'rolling1h', 0)
    ELSE json_build_object('p99', nullif(f.duration, 0), 'p97', nullif(f.duration, 0), 'p95', nullif(f.duration, 0), 'rolling1h', 0) END,
  'description', nullif(c.description, ''), 'icon', nullif(c.icon, ''), 'severity', nullif(c.severity, ''), 'owner', nullif(c.owner, ''),
  'last_runtime', ${ISO('cu.last_runtime')}, 'last_transition_time', ${ISO('c.last_transition_time')},
  'created_at', ${ISO('c.created_at')}, 'updated_at', ${ISO('c.updated_at')},
  'deleted_at', ${ISO('c.deleted_at')}, 'silenced_at', ${ISO('c.silenced_at')},
  'checkStatuses', CASE WHEN $11::integer > 0 THEN (
    SELECT coalesce(json_agg(json_build_object('status', r.status, 'time', ${ISO('r.time')}, 'duration', r.duration,
      'invalid', CASE WHEN r.invalid THEN true END, 'message', CASE WHEN $12::boolean THEN nullif(r.message, '') END, 'error', nullif(r.error, ''))
      ORDER BY r.time DESC), '[]'::json)
    FROM (SELECT s.time, s.duration, s.status, s.invalid, s.message, s.error FROM check_statuses s
      WHERE s.check_id = c.id AND s.time > $1 AND s.time <= $4 ORDER BY s.time DESC LIMIT $11::integer) AS r) END
)) AS row
FROM checks c
JOIN canaries ca ON ca.id = c.canary_id
LEFT JOIN checks_unlogged cu ON cu.check_id = c.id
LEFT JOIN counts h ON h.check_id = c.id
LEFT JOIN latency l ON l.check_id = c.id
LEFT JOIN LATERAL (
  SELECT s.time FROM check_statuses s
  WHERE h.tail_pass IS NULL AND h.pass_to IS NOT NULL AND s.check_id = c.id AND s.status AND s.time >= h.pass_from AND s.time < h.pass_to
  ORDER BY s.time DESC LIMIT 1) AS lp ON true
LEFT JOIN LATERAL (
  SELECT s.time FROM check_statuses s
  WHERE h.tail_fail IS NULL AND h.fail_to IS NOT NULL AND s.check_id = c.id AND s.status = false AND s.time >= h.fail_from AND s.time < h.fail_to
  ORDER BY s.time DESC LIMIT 1) AS lf ON true
LEFT JOIN LATERAL (
  SELECT s.status, s.time, s.duration FROM check_statuses s
  WHERE coalesce(h.total, 0) = 0 AND s.check_id = c.id AND s.time <= $4 ORDER BY s.time DESC LIMIT 1) AS f ON true
WHERE (c.deleted_at IS NULL OR ($7::timestamptz IS NOT NULL AND c.deleted_at > $7::timestamptz))
  AND ($8::jsonb = '{}'::jsonb OR (coalesce(CASE WHEN jsonb_typeof(ca.labels) = 'object' THEN ca.labels END, '{}'::jsonb)
    || coalesce(CASE WHEN jsonb_typeof(c.labels) = 'object' THEN c.labels END, '{}'::jsonb)) @> $8::jsonb)
  AND ($9::uuid IS NULL OR c.id = $9::uuid)
  AND ($10::uuid IS NULL OR c.canary_id = $10::uuid)
) AS j`

/**
 * The checks_summary rows (http-api §3.1) as a JSON array text: uptime and latency over the
 * window (last hour by default); a check without statuses in it falls back to its latest single
 * status. Zero and empty values are omitted as the reference's JSON does. The JSON is built by
 * the database: at 10,000 checks, turning rows into objects and back in JavaScript cost several
 * times more than the query itself.
 */
export async function getChecksSummaryJson(db: Db, query: SummaryQuery = {}): Promise<string> {
  const end = query.end ?? new Date()
  const start = query.start ?? new Date(end.getTime() - HOUR_MS)
  const window = summaryWindow(start, end)
  const { rows } = await db.transaction(async (tx) => {
    // The plan's cost estimate crosses jit_above_cost at a few thousand checks, and compiling
    // it costs more than the query itself; the window sort fits in memory at 10,000 checks.
    await tx.query(`SELECT set_config('jit', 'off', true), set_config('work_mem', '64MB', true)`)
    return tx.query<{ body: string }>(SUMMARY_SQL(query.sortBy === '-name' ? 'DESC' : 'ASC', window.hourFrom.getTime() === window.end.getTime()), [
      window.start, window.hourFrom, window.hourTo, window.end, window.dayFrom, window.dayTo,
      query.deleteFrom ?? null, JSON.stringify(query.labels ?? {}), query.checkId ?? null, query.canaryId ?? null,
      query.includeStatuses ? Math.max(1, query.statusLimit ?? 50) : 0, query.includeMessages ?? true,
    ])
  })
  return rows[0]?.body ?? '[]'
}

export async function getChecksSummary(db: Db, query: SummaryQuery = {}): Promise<Record<string, unknown>[]> {
  return JSON.parse(await getChecksSummaryJson(db, query)) as Record<string, unknown>[]
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
