import { beforeAll, describe, expect, it } from 'vitest'
import type { TestDb } from '#tests/support/test-db.ts'
import { useTestApp } from '#tests/support/use-test-app.ts'
import { getChecksSummary, summaryWindow } from '#server/backend/health/canary-summary.ts'

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

  it('gives exact percentiles for a window without a whole hour, estimates for longer ones', async () => {
    const start = new Date(end.getTime() - 50 * 60_000)
    const summary = await getChecksSummary(testApp.db, { start, end })
    const { rows } = await testApp.db.query<{ check_id: string; p: number[] }>(
      `SELECT check_id, percentile_disc(ARRAY[0.99, 0.97, 0.95]) WITHIN GROUP (ORDER BY duration) AS p
       FROM check_statuses WHERE time > $1 AND time <= $2 GROUP BY check_id`,
      [start, end],
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
})
