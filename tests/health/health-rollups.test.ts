import { beforeAll, describe, expect, it } from 'vitest'
import type { TestDb } from '#tests/support/test-db.ts'
import { useTestApp } from '#tests/support/use-test-app.ts'
import type { Db } from '#server/db/client.ts'
import { getChecksSummary, getChecksSummaryJson, getSharedChecksSummaryJson, summaryWindow } from '#server/backend/health/canary-summary.ts'

const HOUR = 3_600_000
const DAY = 86_400_000

type Bucket = { check_id: string; created_at: string; duration: number; total: number; passed: number; failed: number }

/** The rollup a table should hold, recomputed from the raw rows. */
async function expectedRollup(testDb: TestDb, unit: 'hour' | 'day'): Promise<Bucket[]> {
  const { rows } = await testDb.db.query<Bucket>(
    `SELECT check_id, date_trunc('${unit}', time, 'UTC') AS created_at, round(avg(duration))::integer AS duration,
            count(*)::integer AS total, count(*) FILTER (WHERE status)::integer AS passed, count(*) FILTER (WHERE NOT status)::integer AS failed
     FROM check_statuses GROUP BY 1, 2 ORDER BY 1, 2`,
  )
  return rows
}

async function rollup(testDb: TestDb, table: 'check_statuses_1h' | 'check_statuses_1d'): Promise<Bucket[]> {
  const { rows } = await testDb.db.query<Bucket>(`SELECT check_id, created_at, duration, total, passed, failed FROM ${table} ORDER BY 1, 2`)
  return rows
}

describe('health rollups and the summary over them', () => {
  const testApp = useTestApp()
  let checks: string[]
  const end = new Date(Math.floor(Date.now() / HOUR) * HOUR + 17 * 60_000 + 5_000)

  beforeAll(async () => {
    const { rows: canary } = await testApp.db.query<{ id: string }>(
      `INSERT INTO canaries (name, namespace, spec, source) VALUES ('rollups', 'default', '{}'::jsonb, 'UI') RETURNING id`,
    )
    const { rows } = await testApp.db.query<{ id: string }>(
      `INSERT INTO checks (canary_id, type, name) SELECT $1, 'http', 'rollup-' || g FROM generate_series(1, 3) g RETURNING id`,
      [canary[0]!.id],
    )
    checks = rows.map((row) => row.id).sort()
    // Three days of runs every 7 minutes; check 1 fails every 5th run, check 2 always passes,
    // check 3 has no runs at all.
    await testApp.db.query(
      `INSERT INTO check_statuses (check_id, time, status, duration)
       SELECT k.id, $2::timestamptz - g * interval '7 minutes', NOT (k.n = 1 AND g % 5 = 0), 50 + (g * 37) % 400
       FROM (SELECT id, row_number() OVER (ORDER BY id) AS n FROM unnest($1::uuid[]) AS id) k
       CROSS JOIN generate_series(0, 3 * 24 * 60 / 7) g
       WHERE k.n < 3`,
      [checks, end],
    )
  }, 60_000)

  it('keeps hourly and daily buckets equal to the raw rows through inserts and updates', async () => {
    expect(await rollup(testApp.testDb, 'check_statuses_1h')).toEqual(await expectedRollup(testApp.testDb, 'hour'))
    expect(await rollup(testApp.testDb, 'check_statuses_1d')).toEqual(await expectedRollup(testApp.testDb, 'day'))
    // Flip outcomes, change durations and move runs into another hour.
    await testApp.db.query(`UPDATE check_statuses SET status = NOT status, duration = duration + 10 WHERE check_id = $1 AND time > $2`, [checks[0], new Date(end.getTime() - 5 * HOUR)])
    await testApp.db.query(`UPDATE check_statuses SET time = time - interval '90 minutes' WHERE check_id = $1 AND time > $2`, [checks[1], new Date(end.getTime() - 20 * 60_000)])
    await testApp.db.query(`UPDATE check_statuses SET is_pushed = true WHERE check_id = $1`, [checks[1]])
    const hourly = await expectedRollup(testApp.testDb, 'hour')
    const stored = await rollup(testApp.testDb, 'check_statuses_1h')
    // Running means may differ from a fresh average by rounding; counts must be exact.
    const byKey = new Map(hourly.map((bucket) => [`${bucket.check_id}|${new Date(bucket.created_at).toISOString()}`, bucket]))
    for (const bucket of stored.filter((b) => b.total > 0)) {
      const want = byKey.get(`${bucket.check_id}|${new Date(bucket.created_at).toISOString()}`)!
      expect({ total: bucket.total, passed: bucket.passed, failed: bucket.failed }).toEqual({ total: want.total, passed: want.passed, failed: want.failed })
      expect(Math.abs(bucket.duration - want.duration)).toBeLessThanOrEqual(1)
    }
    expect(stored.filter((b) => b.total > 0)).toHaveLength(hourly.length)
  })

  it('leaves the rollups alone when raw rows are pruned, and rebuilds them on request', async () => {
    const before = await rollup(testApp.testDb, 'check_statuses_1d')
    await testApp.db.query(`DELETE FROM check_statuses WHERE time < $1`, [new Date(end.getTime() - 2.5 * DAY)])
    expect(await rollup(testApp.testDb, 'check_statuses_1d')).toEqual(before)
    const { rows } = await testApp.db.query<{ written: number }>(`SELECT lookout.check_rollups_refresh($1) AS written`, [new Date(end.getTime() - DAY)])
    expect(rows[0]!.written).toBeGreaterThan(0)
    const hourly = await expectedRollup(testApp.testDb, 'hour')
    const recent = hourly.filter((bucket) => new Date(bucket.created_at).getTime() >= end.getTime() - DAY)
    const stored = await rollup(testApp.testDb, 'check_statuses_1h')
    for (const bucket of recent) expect(stored).toContainEqual(bucket)
  })

  it('splits a window into raw ends, whole hours and whole UTC days', () => {
    const at = (text: string) => new Date(text)
    expect(summaryWindow(at('2026-03-01T10:20:00Z'), at('2026-03-01T11:10:00Z'))).toEqual({
      start: at('2026-03-01T10:20:00Z'), hourFrom: at('2026-03-01T11:10:00Z'), dayFrom: at('2026-03-01T11:10:00Z'),
      dayTo: at('2026-03-01T11:10:00Z'), hourTo: at('2026-03-01T11:10:00Z'), end: at('2026-03-01T11:10:00Z'),
    })
    const long = summaryWindow(at('2026-03-01T10:20:00Z'), at('2026-03-04T05:10:00Z'))
    expect(long).toMatchObject({ hourFrom: at('2026-03-01T11:00:00Z'), dayFrom: at('2026-03-02T00:00:00Z'), dayTo: at('2026-03-04T00:00:00Z'), hourTo: at('2026-03-04T05:00:00Z') })
    expect(summaryWindow(at('2026-03-01T10:20:00Z'), at('2026-03-01T13:10:00Z'))).toMatchObject({ dayFrom: at('2026-03-01T11:00:00Z'), dayTo: at('2026-03-01T11:00:00Z') })
  })

  it('counts uptime and finds the last pass and failure exactly for any window', async () => {
    for (const hours of [0.5, 1, 2.5, 6, 30, 47]) {
      const start = new Date(end.getTime() - hours * HOUR)
      const summary = await getChecksSummary(testApp.db, { start, end })
      for (const checkId of checks) {
        const { rows } = await testApp.db.query<{ passed: number; failed: number; last_pass: Date | null; last_fail: Date | null }>(
          `SELECT count(*) FILTER (WHERE status)::integer AS passed, count(*) FILTER (WHERE NOT status)::integer AS failed,
                  max(time) FILTER (WHERE status) AS last_pass, max(time) FILTER (WHERE NOT status) AS last_fail
           FROM check_statuses WHERE check_id = $1 AND time > $2 AND time <= $3`,
          [checkId, start, end],
        )
        const want = rows[0]!
        const row = summary.find((entry) => entry.id === checkId)!
        if (want.passed + want.failed === 0) continue
        expect({ hours, ...(row.uptime as object) }).toEqual({
          hours,
          passed: want.passed,
          failed: want.failed,
          ...(want.last_pass ? { last_pass: want.last_pass.toISOString() } : {}),
          ...(want.last_fail ? { last_fail: want.last_fail.toISOString() } : {}),
        })
      }
    }
  })

  it('takes percentiles from the rollups: exact for one clock hour, else the run-weighted mean of the hours', async () => {
    // Every run of the hour before end's: the exact nearest-rank percentiles of those runs.
    const hour = new Date(Math.floor(end.getTime() / HOUR) * HOUR - HOUR)
    const summary = await getChecksSummary(testApp.db, { start: hour, end: new Date(hour.getTime() + HOUR - 1) })
    const { rows } = await testApp.db.query<{ check_id: string; p: number[] }>(
      `SELECT check_id, percentile_disc(ARRAY[0.99, 0.97, 0.95]) WITHIN GROUP (ORDER BY duration) AS p
       FROM check_statuses WHERE time >= $1 AND time < $2 GROUP BY check_id`,
      [hour, new Date(hour.getTime() + HOUR)],
    )
    expect(rows.length).toBeGreaterThan(0)
    for (const row of rows) {
      const latency = summary.find((entry) => entry.id === row.check_id)!.latency
      expect(latency).toEqual({ p99: row.p[0], p97: row.p[1], p95: row.p[2], rolling1h: 0 })
    }
    const long = await getChecksSummary(testApp.db, { start: new Date(end.getTime() - 30 * HOUR), end })
    const latency = long.find((entry) => entry.id === checks[1])!.latency as { p95: number; p99: number }
    expect(latency.p95).toBeGreaterThanOrEqual(50)
    expect(latency.p95).toBeLessThanOrEqual(latency.p99)
  })

  // The document from the raw rows alone, written as the summary wrote it before it was built by
  // concatenation (json_build_object and json_strip_nulls): counts over the window, percentiles
  // as the run-weighted mean of each overlapping clock hour's exact ones, the latest single
  // status as the fallback.
  const REFERENCE_SQL = `
    WITH hours AS (
      SELECT s.check_id, count(*) AS n, percentile_disc(ARRAY[0.99, 0.97, 0.95]) WITHIN GROUP (ORDER BY s.duration) AS p
      FROM check_statuses s WHERE date_trunc('hour', s.time, 'UTC') > $1::timestamptz - interval '1 hour' AND s.time < date_trunc('hour', $2::timestamptz, 'UTC') + interval '1 hour'
      GROUP BY s.check_id, date_trunc('hour', s.time, 'UTC')
    ), counts AS (
      SELECT s.check_id, count(*)::integer AS total, count(*) FILTER (WHERE s.status)::integer AS passed, count(*) FILTER (WHERE NOT s.status)::integer AS failed,
        max(s.time) FILTER (WHERE s.status) AS last_pass, max(s.time) FILTER (WHERE NOT s.status) AS last_fail,
        (SELECT ARRAY[round(sum(h.p[1]::numeric * h.n) / sum(h.n)), round(sum(h.p[2]::numeric * h.n) / sum(h.n)), round(sum(h.p[3]::numeric * h.n) / sum(h.n))]::integer[]
         FROM hours h WHERE h.check_id = s.check_id) AS p
      FROM check_statuses s WHERE s.time > $1 AND s.time <= $2 GROUP BY s.check_id)
    SELECT coalesce(json_agg(json_strip_nulls(json_build_object(
      'id', c.id, 'canary_id', c.canary_id, 'canary_name', ca.name, 'canary_namespace', ca.namespace, 'agent_id', c.agent_id,
      'name', c.name, 'namespace', coalesce(c.namespace, ''), 'type', c.type, 'status', coalesce(c.status, ''),
      'labels', coalesce(ca.labels, '{}'::jsonb) || coalesce(c.labels, '{}'::jsonb),
      'uptime', CASE WHEN h.total > 0 THEN json_build_object('passed', h.passed, 'failed', h.failed, 'last_pass', iso(h.last_pass), 'last_fail', iso(h.last_fail))
        ELSE json_build_object('passed', (f.status IS TRUE)::integer, 'failed', (f.status IS FALSE)::integer,
          'last_pass', CASE WHEN f.status THEN iso(f.time) END, 'last_fail', CASE WHEN NOT f.status THEN iso(f.time) END) END,
      'latency', CASE WHEN h.total > 0 THEN json_build_object('p99', nullif(h.p[1], 0), 'p97', nullif(h.p[2], 0), 'p95', nullif(h.p[3], 0), 'rolling1h', 0)
        ELSE json_build_object('p99', nullif(f.duration, 0), 'p97', nullif(f.duration, 0), 'p95', nullif(f.duration, 0), 'rolling1h', 0) END,
      'description', nullif(c.description, ''), 'icon', nullif(c.icon, ''), 'severity', nullif(c.severity, ''), 'owner', nullif(c.owner, ''),
      'last_runtime', iso(cu.last_runtime), 'last_transition_time', iso(c.last_transition_time), 'created_at', iso(c.created_at),
      'updated_at', iso(c.updated_at), 'deleted_at', iso(c.deleted_at), 'silenced_at', iso(c.silenced_at)
    )) ORDER BY c.name, c.id), '[]')::text AS body
    FROM checks c JOIN canaries ca ON ca.id = c.canary_id LEFT JOIN checks_unlogged cu ON cu.check_id = c.id
    LEFT JOIN counts h ON h.check_id = c.id
    LEFT JOIN LATERAL (SELECT s.status, s.time, s.duration FROM check_statuses s
      WHERE coalesce(h.total, 0) = 0 AND s.check_id = c.id AND s.time <= $2 ORDER BY s.time DESC LIMIT 1) AS f ON true
    WHERE c.deleted_at IS NULL`.replace(/iso\(([^()]*)\)/g, `to_char(($1) AT TIME ZONE 'UTC', 'YYYY-MM-DD"T"HH24:MI:SS.MS"Z"')`)

  it('writes, byte for byte, the document the raw rows give for a window inside one hour', async () => {
    // A check whose text needs escaping and whose labels hold a null, beside the fixture's three.
    const { rows: canary } = await testApp.db.query<{ id: string }>(`SELECT canary_id AS id FROM checks WHERE id = $1`, [checks[0]])
    await testApp.db.query(
      `INSERT INTO checks (canary_id, type, name, description, icon, labels, silenced_at)
       VALUES ($1, 'tcp', $2, $3, '', $4::jsonb, $5)`,
      [canary[0]!.id, 'rollup-"quoted" \\ é', 'line one\nline\ttwo \u0001', JSON.stringify({ team: 'a "b"', gone: null }), new Date(end.getTime() - DAY)],
    )
    for (const minutes of [10, 50]) {
      const start = new Date(end.getTime() - minutes * 60_000)
      const got = await getChecksSummaryJson(testApp.db, { start, end })
      const { rows } = await testApp.db.query<{ body: string }>(REFERENCE_SQL, [start, end])
      expect(got).toBe(rows[0]!.body)
    }
  })

  it('counts each window from the rollups exactly as the raw rows do, percentiles as their hours give them', async () => {
    for (const hours of [1.5, 6, 26, 50]) {
      const start = new Date(end.getTime() - hours * HOUR)
      const summary = JSON.parse(await getChecksSummaryJson(testApp.db, { start, end })) as Record<string, unknown>[]
      const { rows } = await testApp.db.query<{ body: string }>(REFERENCE_SQL, [start, end])
      const reference = JSON.parse(rows[0]!.body) as Record<string, unknown>[]
      expect(summary.map((entry) => entry.id)).toEqual(reference.map((entry) => entry.id))
      const withoutLatency = (entries: Record<string, unknown>[]) => entries.map(({ latency: _latency, ...rest }) => rest)
      expect(withoutLatency(summary)).toEqual(withoutLatency(reference))
      // A whole day's percentiles are stored rounded, so a window with one may be 1 ms off.
      for (const [index, entry] of summary.entries()) {
        const got = entry.latency as Record<string, number>
        const want = reference[index]!.latency as Record<string, number>
        expect(Object.keys(got)).toEqual(Object.keys(want))
        for (const key of Object.keys(want)) expect(Math.abs(got[key]! - want[key]!), `${hours} h ${key}`).toBeLessThanOrEqual(hours >= 24 ? 1 : 0)
      }
    }
  })

  it('computes a summary once for callers asking at the same time, and again afterwards', async () => {
    let computations = 0
    const counting: Db = { ...testApp.db, transaction: (fn) => ((computations += 1), testApp.db.transaction(fn)) }
    const query = { start: new Date(end.getTime() - 6 * HOUR), end }
    const bodies = await Promise.all(Array.from({ length: 12 }, () => getSharedChecksSummaryJson(counting, 'same question', query)))
    expect(computations).toBe(1)
    expect(new Set(bodies).size).toBe(1)
    expect(bodies[0]).toBe(await getChecksSummaryJson(testApp.db, query))
    await getSharedChecksSummaryJson(counting, 'same question', query)
    expect(computations).toBe(2)
    await Promise.all([getSharedChecksSummaryJson(counting, 'one question', query), getSharedChecksSummaryJson(counting, 'another', query)])
    expect(computations).toBe(4)
  })
})
