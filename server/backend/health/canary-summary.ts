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
 * One statement for the whole list (docs/decisions/011-health-summary-from-rollups.md).
 *
 * Uptime counts are exact: rollup buckets for whole hours and days, raw runs for the ragged
 * ends, one grouped pass with no sorting. last_pass/last_fail are exact too: the newest raw
 * tail answers for most checks; otherwise one index probe into the newest bucket that had a
 * pass (or failure) finds the run (the bucket's start when its raw runs were pruned).
 *
 * Percentiles come from the rollups only (migration 0210): each hourly bucket holds the exact
 * nearest-rank p99/p97/p95 of its runs, each daily bucket the run-weighted mean of its hours'.
 * A window's figure is the run-weighted mean over the hourly buckets that overlap it (the
 * hours at its ends counted whole) and the daily buckets of its whole days. It is exact for a
 * window that holds one clock hour's runs, always lies between the smallest and the largest
 * hourly figure in the window, and smooths a spike shorter than the window. Exact figures would
 * mean sorting every run of the window on every request, which is what the rollups avoid.
 */
/** Which checks' runs a CTE reads, as a condition on `alias`.check_id: by default every check, or the one in $9. */
export type Scope = (alias: string) => string
const ONE_OR_ALL: Scope = (alias) => `($9::uuid IS NULL OR ${alias}.check_id = $9::uuid)`

// Buckets that overlap (start, end]: hourly [c, c + 1h) with c > start - 1h and c <= end, except
// those inside the whole days [dayFrom, dayTo), which come from the daily table.
const latencyCte = (scope: Scope) => `, latency AS (
  SELECT b.check_id,
    round(sum(b.p99::numeric * b.total) FILTER (WHERE b.p99 IS NOT NULL) / nullif(sum(b.total) FILTER (WHERE b.p99 IS NOT NULL), 0))::integer AS p99,
    round(sum(b.p97::numeric * b.total) FILTER (WHERE b.p97 IS NOT NULL) / nullif(sum(b.total) FILTER (WHERE b.p97 IS NOT NULL), 0))::integer AS p97,
    round(sum(b.p95::numeric * b.total) FILTER (WHERE b.p95 IS NOT NULL) / nullif(sum(b.total) FILTER (WHERE b.p95 IS NOT NULL), 0))::integer AS p95
  FROM (
    SELECT h.check_id, h.total, h.p99, h.p97, h.p95 FROM check_statuses_1h h
    WHERE h.created_at > $1::timestamptz - interval '1 hour' AND h.created_at <= $4 AND NOT (h.created_at >= $5 AND h.created_at < $6)
      AND ${scope('h')}
    UNION ALL
    SELECT d.check_id, d.total, d.p99, d.p97, d.p95 FROM check_statuses_1d d
    WHERE d.created_at >= $5 AND d.created_at < $6 AND ${scope('d')}
  ) b
  GROUP BY b.check_id
)`

// A window with rollup buckets in it: raw ends plus buckets.
const mixedWindowCtes = (scope: Scope) => `raw AS (
  SELECT s.check_id, s.time, s.status FROM check_statuses s
  WHERE s.time > $1 AND s.time < $2 AND ${scope('s')}
  UNION ALL
  SELECT s.check_id, s.time, s.status FROM check_statuses s
  WHERE s.time >= $3 AND s.time <= $4 AND ${scope('s')}
), buckets AS (
  SELECT b.check_id, b.created_at, b.created_at + interval '1 hour' AS ends, b.total, b.passed, b.failed
  FROM check_statuses_1h b
  WHERE b.created_at >= $2 AND b.created_at < $3 AND NOT (b.created_at >= $5 AND b.created_at < $6)
    AND ${scope('b')}
  UNION ALL
  SELECT b.check_id, b.created_at, b.created_at + interval '1 day', b.total, b.passed, b.failed
  FROM check_statuses_1d b
  WHERE b.created_at >= $5 AND b.created_at < $6 AND ${scope('b')}
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
)${latencyCte(scope)}`

// A window without a whole hour in it reads raw runs only for its counts. Both shapes take the
// same parameters; this one names $2 and $3 only so that every parameter has a type.
const rawWindowCtes = (scope: Scope) => `counts AS (
  SELECT s.check_id, count(*)::integer AS total, count(*) FILTER (WHERE s.status)::integer AS passed,
    count(*) FILTER (WHERE NOT s.status)::integer AS failed,
    max(s.time) FILTER (WHERE s.status) AS tail_pass, max(s.time) FILTER (WHERE NOT s.status) AS tail_fail,
    NULL::timestamptz AS head_pass, NULL::timestamptz AS head_fail,
    NULL::timestamptz AS pass_from, NULL::timestamptz AS pass_to, NULL::timestamptz AS fail_from, NULL::timestamptz AS fail_to
  FROM check_statuses s
  WHERE s.time > $1 AND s.time <= $4 AND ${scope('s')}
    AND $2::timestamptz IS NOT NULL AND $3::timestamptz IS NOT NULL
  GROUP BY s.check_id
)${latencyCte(scope)}`

/** `"key":` followed by `value`, or NULL when `value` is NULL: concat_ws then leaves the member out. */
const MEMBER = (key: string, value: string) => `'"${key}":' || ${value}`
/** A JSON string member (escaped as json_build_object would); left out when NULL. */
const STRING = (key: string, expression: string) => MEMBER(key, `to_json(${expression})::text`)
/** A uuid member: a uuid never needs escaping, and to_json costs as much as the rest of a member. */
const UUID = (key: string, expression: string) => MEMBER(key, `'"' || ${expression} || '"'`)
/** A timestamp member in toISOString's form; left out when NULL. */
const TIME = (key: string, expression: string) => MEMBER(key, `'"' || ${ISO(expression)} || '"'`)

/*
 * The rows are written as JSON text by concatenation: concat_ws skips NULL members, which is what
 * json_strip_nulls(json_build_object(…)) did at several times the cost (at 10,000 checks that
 * pair was most of the statement's time). The bytes are the same: members in the same order,
 * strings escaped by to_json as json_build_object escapes them, `"key":value` without spaces as
 * json_strip_nulls wrote them, rows joined by ', ' as json_agg joins them. Labels go through
 * json_strip_nulls still: it drops null-valued labels and writes them compactly, as before.
 */
/** One check's summary entry as JSON text, from `c`, `ca`, `cu`, `h`, `l`, `lp`, `lf` and `f` (ENTRY_JOINS). */
export const ENTRY_JSON = `'{' || concat_ws(',',
  ${UUID('id', 'c.id')}, ${UUID('canary_id', 'c.canary_id')}, ${STRING('canary_name', 'ca.name')},
  ${STRING('canary_namespace', 'ca.namespace')}, ${UUID('agent_id', 'c.agent_id')}, ${STRING('name', 'c.name')},
  ${STRING('namespace', "coalesce(c.namespace, '')")}, ${STRING('type', 'c.type')}, ${STRING('status', "coalesce(c.status, '')")},
  ${MEMBER('labels', `json_strip_nulls((coalesce(CASE WHEN jsonb_typeof(ca.labels) = 'object' THEN ca.labels END, '{}'::jsonb)
    || coalesce(CASE WHEN jsonb_typeof(c.labels) = 'object' THEN c.labels END, '{}'::jsonb))::json)::text`)},
  ${MEMBER('uptime', `CASE WHEN h.total > 0 THEN '{' || concat_ws(',', ${MEMBER('passed', 'h.passed')}, ${MEMBER('failed', 'h.failed')},
      ${TIME('last_pass', 'coalesce(h.tail_pass, lp.time, h.pass_from, h.head_pass)')},
      ${TIME('last_fail', 'coalesce(h.tail_fail, lf.time, h.fail_from, h.head_fail)')}) || '}'
    ELSE '{' || concat_ws(',', ${MEMBER('passed', '(f.status IS TRUE)::integer')}, ${MEMBER('failed', '(f.status IS FALSE)::integer')},
      ${TIME('last_pass', 'CASE WHEN f.status THEN f.time END')}, ${TIME('last_fail', 'CASE WHEN NOT f.status THEN f.time END')}) || '}' END`)},
  ${MEMBER('latency', `CASE WHEN h.total > 0 THEN '{' || concat_ws(',', ${MEMBER('p99', 'nullif(l.p99, 0)')}, ${MEMBER('p97', 'nullif(l.p97, 0)')},
      ${MEMBER('p95', 'nullif(l.p95, 0)')}, '"rolling1h":0') || '}'
    ELSE '{' || concat_ws(',', ${MEMBER('p99', 'nullif(f.duration, 0)')}, ${MEMBER('p97', 'nullif(f.duration, 0)')},
      ${MEMBER('p95', 'nullif(f.duration, 0)')}, '"rolling1h":0') || '}' END`)},
  ${STRING('description', "nullif(c.description, '')")}, ${STRING('icon', "nullif(c.icon, '')")},
  ${STRING('severity', "nullif(c.severity, '')")}, ${STRING('owner', "nullif(c.owner, '')")},
  ${TIME('last_runtime', 'cu.last_runtime')}, ${TIME('last_transition_time', 'c.last_transition_time')},
  ${TIME('created_at', 'c.created_at')}, ${TIME('updated_at', 'c.updated_at')},
  ${TIME('deleted_at', 'c.deleted_at')}, ${TIME('silenced_at', 'c.silenced_at')},
  ${MEMBER('checkStatuses', `CASE WHEN $11::integer > 0 THEN json_strip_nulls((
    SELECT coalesce(json_agg(json_build_object('status', r.status, 'time', ${ISO('r.time')}, 'duration', r.duration,
      'invalid', CASE WHEN r.invalid THEN true END, 'message', CASE WHEN $12::boolean THEN nullif(r.message, '') END, 'error', nullif(r.error, ''))
      ORDER BY r.time DESC), '[]'::json)
    FROM (SELECT s.time, s.duration, s.status, s.invalid, s.message, s.error FROM check_statuses s
      WHERE s.check_id = c.id AND s.time > $1 AND s.time <= $4 ORDER BY s.time DESC LIMIT $11::integer) AS r))::text END`)}
) || '}'`

/** The canary labels merged with the check's own (the check's win), as the summary writes them. */
export const MERGED_LABELS_OF = (canary: string, check: string) => `(coalesce(CASE WHEN jsonb_typeof(${canary}) = 'object' THEN ${canary} END, '{}'::jsonb)
    || coalesce(CASE WHEN jsonb_typeof(${check}) = 'object' THEN ${check} END, '{}'::jsonb))`
const MERGED_LABELS = MERGED_LABELS_OF('ca.labels', 'c.labels')

/** The checks of the summary (`c`, `ca`) with their counts (`h`), latency (`l`) and the exact last pass and failure (`lp`, `lf`). */
export const ENTRY_JOINS = () => `FROM checks c
${ENTRY_JOINS_AFTER_CHECKS}`

/** ENTRY_JOINS after `checks c`, for a statement that reaches `c` from its own list of checks. */
export const ENTRY_JOINS_AFTER_CHECKS = `JOIN canaries ca ON ca.id = c.canary_id
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
  WHERE coalesce(h.total, 0) = 0 AND s.check_id = c.id AND s.time <= $4 ORDER BY s.time DESC LIMIT 1) AS f ON true`

/** Which checks the summary lists (deleted ones only after DeleteFrom; Labels; one check; one canary). */
export const ENTRY_FILTER = `(c.deleted_at IS NULL OR ($7::timestamptz IS NOT NULL AND c.deleted_at > $7::timestamptz))
  AND ($8::jsonb = '{}'::jsonb OR ${MERGED_LABELS} @> $8::jsonb)
  AND ($9::uuid IS NULL OR c.id = $9::uuid)
  AND ($10::uuid IS NULL OR c.canary_id = $10::uuid)`

/**
 * The `counts` and `latency` CTEs (a list for WITH) for a window: raw runs only, or rollups
 * with raw ends; `scope` narrows the checks they read.
 */
export const windowCtes = (rawOnly: boolean, scope: Scope = ONE_OR_ALL) => (rawOnly ? rawWindowCtes(scope) : mixedWindowCtes(scope))

export const SUMMARY_SQL = (order: 'ASC' | 'DESC', rawOnly: boolean) => `WITH ${windowCtes(rawOnly)}
SELECT coalesce('[' || string_agg(j.row, ', ' ORDER BY j.name ${order}, j.id) || ']', '[]') AS body FROM (
SELECT c.name, c.id, ${ENTRY_JSON} AS row
${ENTRY_JOINS()}
WHERE ${ENTRY_FILTER}
) AS j`

/**
 * The checks_summary rows (http-api §3.1) as a JSON array text: uptime and latency over the
 * window (last hour by default); a check without statuses in it falls back to its latest single
 * status. Zero and empty values are omitted as the reference's JSON does. The JSON is built by
 * the database: at 10,000 checks, turning rows into objects and back in JavaScript cost several
 * times more than the query itself.
 */
export async function getChecksSummaryJson(db: Db, query: SummaryQuery = {}): Promise<string> {
  const { rawOnly, params } = summaryParams(query)
  const { rows } = await db.transaction(async (tx) => {
    await tx.query(SUMMARY_SETTINGS)
    return tx.query<{ body: string }>(SUMMARY_SQL(query.sortBy === '-name' ? 'DESC' : 'ASC', rawOnly), params)
  })
  return rows[0]?.body ?? '[]'
}

/**
 * Transaction-local settings of every summary statement: the plan's cost estimate crosses
 * jit_above_cost at a few thousand checks, and compiling it costs more than the query itself;
 * the grouped passes fit in memory at 10,000 checks.
 */
export const SUMMARY_SETTINGS = `SELECT set_config('jit', 'off', true), set_config('work_mem', '64MB', true)`

/** $1–$12 of SUMMARY_SQL (and of the list's statement, which adds its own after them). */
export function summaryParams(query: SummaryQuery): { rawOnly: boolean; params: unknown[] } {
  const end = query.end ?? new Date()
  const start = query.start ?? new Date(end.getTime() - HOUR_MS)
  const window = summaryWindow(start, end)
  return {
    rawOnly: window.hourFrom.getTime() === window.end.getTime(),
    params: [
      window.start, window.hourFrom, window.hourTo, window.end, window.dayFrom, window.dayTo,
      query.deleteFrom ?? null, JSON.stringify(query.labels ?? {}), query.checkId ?? null, query.canaryId ?? null,
      query.includeStatuses ? Math.max(1, query.statusLimit ?? 50) : 0, query.includeMessages ?? true,
    ],
  }
}

/**
 * Stampede guard (docs/decisions/011): callers asking the same question while it is being
 * computed share that one computation instead of starting their own; the entry is dropped as
 * soon as it settles, so a later caller always gets a fresh answer and nothing is cached.
 * `key` names the question as the caller asked it (relative times unresolved): joiners get the
 * answer for the first caller's "now", at most one computation older than their own.
 */
const summariesInFlight = new WeakMap<Db, Map<string, Promise<string>>>()

export function getSharedChecksSummaryJson(db: Db, key: string, query: SummaryQuery): Promise<string> {
  return sharedSummaryComputation(db, key, () => getChecksSummaryJson(db, query))
}

/** The guard itself, for any summary-shaped answer (`key` must name the question whole). */
export function sharedSummaryComputation(db: Db, key: string, compute: () => Promise<string>): Promise<string> {
  let running = summariesInFlight.get(db)
  if (!running) summariesInFlight.set(db, (running = new Map()))
  const existing = running.get(key)
  if (existing) return existing
  const body = compute()
  running.set(key, body)
  const settle = () => {
    if (running.get(key) === body) running.delete(key)
  }
  body.then(settle, settle)
  return body
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
