import { afterAll, beforeAll, describe, expect, it } from 'vitest'
import type { Db } from '#server/db/client.ts'
import { DEFAULT_SEED, isDatabaseEmpty, seedDemoData, type SeedSummary } from '#server/db/seed.ts'
import { createTestDb, type TestDb } from '#tests/support/test-db.ts'

// One clock for every database in this file, so two seeds can be compared value for value.
const NOW = new Date()
const OTHER_SEED = 7

async function scalar<T>(db: Db, sql: string, params: unknown[] = []): Promise<T> {
  const { rows } = await db.query<Record<string, T>>(sql, params)
  const row = rows[0]
  if (!row) throw new Error(`no row from: ${sql}`)
  return Object.values(row)[0] as T
}

/**
 * A fingerprint of a table's content: row count plus md5 over the rows as canonical jsonb,
 * minus columns that triggers fill with now() or random ids rather than the seed.
 */
const FINGERPRINTS: Record<string, { exclude?: string[]; where?: string }> = {
  people: { where: "name <> 'System'" },
  teams: {},
  agents: { where: "name <> 'local'" },
  canaries: {},
  checks: {},
  checks_unlogged: {},
  check_statuses: {},
  check_statuses_1d: {},
  config_items: {},
  // Outcomes of notifications about configs are copied into changes by a trigger, with fresh ids.
  config_changes: { where: "source IS DISTINCT FROM 'notification'" },
  config_analysis: {},
  config_relationships: { exclude: ['created_at', 'updated_at'] },
  components: {},
  incidents: {},
  hypotheses: {},
  evidences: {},
  comments: {},
  playbooks: {},
  playbook_runs: {},
  notifications: {},
  notification_send_history: {},
  job_history: {},
  event_queue: {},
}

async function fingerprint(db: Db, table: string): Promise<{ rows: number; digest: string }> {
  const { exclude = [], where = 'true' } = FINGERPRINTS[table] ?? {}
  const { rows } = await db.query<{ rows: number; digest: string }>(
    `SELECT count(*)::int AS rows,
            md5(coalesce(string_agg((to_jsonb(t) - $1::text[])::text, '|' ORDER BY (to_jsonb(t) - $1::text[])::text), '')) AS digest
     FROM ${table} t WHERE ${where}`,
    [exclude],
  )
  return rows[0]!
}

async function fingerprints(db: Db): Promise<Record<string, { rows: number; digest: string }>> {
  const result: Record<string, { rows: number; digest: string }> = {}
  for (const table of Object.keys(FINGERPRINTS)) result[table] = await fingerprint(db, table)
  return result
}

describe('seedDemoData', () => {
  let first: TestDb
  let twin: TestDb
  let other: TestDb
  let summary: SeedSummary

  beforeAll(async () => {
    ;[first, twin, other] = await Promise.all([createTestDb(), createTestDb(), createTestDb()])
    expect(await isDatabaseEmpty(first.db)).toBe(true)
    const started = performance.now()
    summary = await seedDemoData(first.db, { seed: DEFAULT_SEED, now: NOW })
    // Logged so CI shows the cold-start cost of the seed on each engine.
    console.info(`seedDemoData on ${first.db.engine}: ${Math.round(performance.now() - started)} ms, ${summary.total} rows`)
  }, 120_000)

  afterAll(async () => {
    await Promise.all([first, twin, other].filter(Boolean).map((test) => test.drop()))
  })

  it('reports what it wrote and leaves the database non-empty', async () => {
    expect(summary.skipped).toBe(false)
    expect(summary.seed).toBe(DEFAULT_SEED)
    expect(summary.total).toBe(Object.values(summary.counts).reduce((sum, count) => sum + count, 0))
    expect(summary.counts.checks).toBe(await scalar<number>(first.db, 'SELECT count(*)::int FROM checks'))
    expect(summary.counts.check_statuses).toBe(await scalar<number>(first.db, 'SELECT count(*)::int FROM check_statuses'))
    expect(await isDatabaseEmpty(first.db)).toBe(false)
  })

  it('builds the health estate: ~60 checks in ~10 canaries over 4 namespaces on 2 agents', async () => {
    const db = first.db
    const checks = await scalar<number>(db, 'SELECT count(*)::int FROM checks')
    expect(checks).toBeGreaterThanOrEqual(55)
    expect(checks).toBeLessThanOrEqual(70)
    expect(await scalar<number>(db, 'SELECT count(*)::int FROM canaries')).toBeGreaterThanOrEqual(9)
    expect(await scalar<string[]>(db, 'SELECT array_agg(DISTINCT namespace ORDER BY namespace) FROM canaries')).toEqual([
      'default',
      'monitoring',
      'payments',
      'platform',
    ])
    expect(await scalar<number>(db, 'SELECT count(*)::int FROM agents WHERE deleted_at IS NULL')).toBe(2)
    expect(await scalar<number>(db, "SELECT count(*)::int FROM checks WHERE agent_id <> '00000000-0000-0000-0000-000000000000'")).toBeGreaterThan(0)
    const types = await scalar<string[]>(db, 'SELECT array_agg(DISTINCT type) FROM checks')
    for (const type of ['http', 'tcp', 'dns', 'icmp', 'exec', 'postgres', 'redis', 'prometheus']) expect(types).toContain(type)
    expect(await scalar<number>(db, "SELECT count(*)::int FROM checks WHERE status = 'unhealthy' AND deleted_at IS NULL")).toBeGreaterThanOrEqual(3)
    expect(await scalar<number>(db, 'SELECT count(*)::int FROM canaries WHERE deleted_at IS NOT NULL')).toBe(1)
    expect(await scalar<number>(db, 'SELECT count(*)::int FROM checks_unlogged')).toBe(checks)
    expect(await scalar<number>(db, "SELECT count(*)::int FROM checks WHERE spec ? 'name'")).toBe(checks)
    // Boolean-valued string labels drive the label filters.
    expect(await scalar<number>(db, "SELECT count(*)::int FROM canaries WHERE labels->>'critical' = 'true'")).toBeGreaterThan(0)
    expect(await scalar<number>(db, "SELECT count(*)::int FROM canaries WHERE labels->>'pci' = 'true'")).toBeGreaterThan(0)
    expect(await scalar<number>(db, "SELECT count(*)::int FROM checks WHERE labels->>'critical' = 'false'")).toBeGreaterThan(0)
    expect(await scalar<number>(db, 'SELECT count(*)::int FROM check_component_relationships')).toBeGreaterThan(10)
    expect(await scalar<number>(db, 'SELECT count(*)::int FROM check_config_relationships')).toBeGreaterThan(10)
  })

  it('writes two weeks of status history, dense in the last hour, consistent with check status', async () => {
    const db = first.db
    const oldest = await scalar<string>(db, 'SELECT min(time) FROM check_statuses')
    expect(NOW.getTime() - new Date(oldest).getTime()).toBeGreaterThanOrEqual(14 * 24 * 3600 * 1000)
    // Every live check ran in the last few minutes, and in most minutes of the last hour.
    const lastHour = await db.query<{ check_id: string; runs: number }>(
      `SELECT c.id AS check_id, count(s.time)::int AS runs
       FROM checks c LEFT JOIN check_statuses s ON s.check_id = c.id AND s.time > $1::timestamptz - interval '1 hour'
       WHERE c.deleted_at IS NULL GROUP BY c.id`,
      [NOW.toISOString()],
    )
    for (const row of lastHour.rows) expect(row.runs).toBeGreaterThanOrEqual(55)
    // The newest run agrees with the check's status.
    const mismatched = await scalar<number>(
      db,
      `SELECT count(*)::int FROM checks c
       JOIN LATERAL (SELECT status FROM check_statuses s WHERE s.check_id = c.id ORDER BY time DESC LIMIT 1) last ON true
       WHERE c.deleted_at IS NULL AND last.status <> (c.status = 'healthy')`,
    )
    expect(mismatched).toBe(0)
    // Latency follows a per-check profile: fast TCP probes, slow browser journeys.
    const tcp = await scalar<number>(db, "SELECT avg(duration)::float FROM check_statuses s JOIN checks c ON c.id = s.check_id WHERE c.type = 'tcp' AND s.status")
    const journey = await scalar<number>(db, "SELECT avg(duration)::float FROM check_statuses s JOIN checks c ON c.id = s.check_id WHERE c.name = 'playwright-checkout-journey' AND s.status")
    expect(tcp).toBeLessThan(20)
    expect(journey).toBeGreaterThan(10_000)
    expect(await scalar<number>(db, 'SELECT count(*)::int FROM check_statuses WHERE NOT status AND error IS NOT NULL')).toBeGreaterThan(0)
    expect(await scalar<number>(db, 'SELECT count(*)::int FROM check_statuses_1h')).toBeGreaterThan(0)
  })

  it('writes the rollups the trigger would: every UTC hour and day of the history, summed from its runs', async () => {
    const db = first.db
    for (const [table, unit] of [
      ['check_statuses_1h', 'hour'],
      ['check_statuses_1d', 'day'],
    ] as const) {
      const differing = await scalar<number>(
        db,
        `WITH expected AS (
           SELECT check_id, date_trunc('${unit}', time, 'UTC') AS created_at, round(avg(duration))::integer AS duration,
                  count(*)::integer AS total, count(*) FILTER (WHERE status)::integer AS passed,
                  count(*) FILTER (WHERE NOT status)::integer AS failed
           FROM check_statuses GROUP BY 1, 2
         )
         SELECT count(*)::int FROM (
           (SELECT * FROM expected EXCEPT ALL SELECT check_id, created_at, duration, total, passed, failed FROM ${table})
           UNION ALL
           (SELECT check_id, created_at, duration, total, passed, failed FROM ${table} EXCEPT ALL SELECT * FROM expected)
         ) AS d`,
      )
      expect(differing, table).toBe(0)
      expect(summary.counts[table]).toBe(await scalar<number>(db, `SELECT count(*)::int FROM ${table}`))
    }
    // Latency percentiles as the trigger keeps them (0210): an hour's exact nearest-rank values,
    // a day's run-weighted mean of its hours'.
    const percentilesOff = await scalar<number>(
      db,
      `WITH hours AS (
         SELECT check_id, date_trunc('hour', time, 'UTC') AS created_at, count(*) AS total,
                percentile_disc(ARRAY[0.99, 0.97, 0.95]) WITHIN GROUP (ORDER BY duration) AS p
         FROM check_statuses GROUP BY 1, 2
       ), days AS (
         SELECT check_id, date_trunc('day', created_at, 'UTC') AS created_at,
                round(sum(p[1]::numeric * total) / sum(total))::integer AS p99,
                round(sum(p[2]::numeric * total) / sum(total))::integer AS p97,
                round(sum(p[3]::numeric * total) / sum(total))::integer AS p95
         FROM hours GROUP BY 1, 2
       )
       SELECT ((SELECT count(*) FROM hours h LEFT JOIN check_statuses_1h r USING (check_id, created_at)
                WHERE (r.p99, r.p97, r.p95) IS DISTINCT FROM (h.p[1], h.p[2], h.p[3]))
             + (SELECT count(*) FROM days d LEFT JOIN check_statuses_1d r USING (check_id, created_at)
                WHERE (r.p99, r.p97, r.p95) IS DISTINCT FROM (d.p99, d.p97, d.p95)))::int`,
    )
    expect(percentilesOff).toBe(0)
    expect(await scalar<number>(db, 'SELECT count(*)::int FROM check_statuses_1h WHERE p99 IS NULL')).toBe(0)
    // The foreign keys the seed may skip checking for its bulk insert hold.
    for (const table of ['check_statuses', 'check_statuses_1h', 'check_statuses_1d']) {
      expect(await scalar<number>(db, `SELECT count(*)::int FROM ${table} s WHERE NOT EXISTS (SELECT 1 FROM checks c WHERE c.id = s.check_id)`), table).toBe(0)
    }
    // The seed turned the rollup trigger off for its bulk insert only: later runs are rolled up again.
    const [check] = (await db.query<{ id: string }>('SELECT id FROM checks WHERE deleted_at IS NULL LIMIT 1')).rows
    const at = '2001-02-03T04:05:06Z'
    await db.query('INSERT INTO check_statuses (check_id, time, duration, status, created_at) VALUES ($1, $2, 10, true, $2)', [check!.id, at])
    expect(await scalar<number>(db, 'SELECT total FROM check_statuses_1h WHERE check_id = $1 AND created_at = $2', [check!.id, '2001-02-03T04:00:00Z'])).toBe(1)
    await db.query('DELETE FROM check_statuses_1h WHERE check_id = $1 AND created_at = $2', [check!.id, '2001-02-03T04:00:00Z'])
    await db.query('DELETE FROM check_statuses_1d WHERE check_id = $1 AND created_at = $2', [check!.id, '2001-02-03T00:00:00Z'])
    await db.query('DELETE FROM check_statuses WHERE check_id = $1 AND time = $2', [check!.id, at])
  })

  it('builds the catalog, topology, incidents, playbooks, notifications and settings', async () => {
    const db = first.db
    const configs = await scalar<number>(db, 'SELECT count(*)::int FROM config_items')
    expect(configs).toBeGreaterThanOrEqual(80)
    expect(configs).toBeLessThanOrEqual(120)
    const configTypes = await scalar<string[]>(db, 'SELECT array_agg(DISTINCT type) FROM config_items')
    for (const type of ['Kubernetes::Cluster', 'Kubernetes::Namespace', 'Kubernetes::Deployment', 'Kubernetes::Pod', 'Kubernetes::Node', 'AWS::EC2::Instance', 'AWS::RDS::DBInstance', 'AWS::S3::Bucket']) {
      expect(configTypes).toContain(type)
    }
    // pod → deployment → namespace → cluster
    const chain = await scalar<string>(
      db,
      `SELECT c.type FROM config_items p
       JOIN config_items d ON d.id = p.parent_id JOIN config_items n ON n.id = d.parent_id JOIN config_items c ON c.id = n.parent_id
       WHERE p.type = 'Kubernetes::Pod' LIMIT 1`,
    )
    expect(chain).toBe('Kubernetes::Cluster')
    expect(await scalar<number>(db, 'SELECT count(*)::int FROM config_changes')).toBeGreaterThanOrEqual(200)
    expect(await scalar<string[]>(db, 'SELECT array_agg(DISTINCT status ORDER BY status) FROM config_analysis')).toEqual(['open', 'resolved', 'silenced'])
    expect(await scalar<number>(db, "SELECT count(*)::int FROM config_relationships WHERE relation = 'hard'")).toBeGreaterThan(50)
    expect(await scalar<number>(db, "SELECT count(*)::int FROM config_relationships WHERE relation NOT IN ('hard', 'Alias')")).toBeGreaterThan(10)
    expect(await scalar<number>(db, 'SELECT count(*)::int FROM config_locations')).toBeGreaterThan(50)

    expect(await scalar<number>(db, 'SELECT count(*)::int FROM topologies')).toBe(2)
    expect(await scalar<number>(db, 'SELECT count(*)::int FROM components')).toBeGreaterThanOrEqual(18)
    expect(await scalar<number>(db, 'SELECT count(*)::int FROM components WHERE parent_id IS NOT NULL')).toBeGreaterThan(10)
    expect(await scalar<number>(db, 'SELECT count(*)::int FROM team_components')).toBeGreaterThan(0)

    const incidents = await db.query<{ status: string; severity: string; type: string }>('SELECT status, severity, type FROM incidents')
    expect(incidents.rows.length).toBeGreaterThanOrEqual(4)
    expect(incidents.rows.length).toBeLessThanOrEqual(6)
    expect(new Set(incidents.rows.map((row) => row.status)).size).toBeGreaterThanOrEqual(4)
    expect(await scalar<string[]>(db, 'SELECT array_agg(DISTINCT type ORDER BY type) FROM hypotheses')).toEqual(['factor', 'root', 'solution'])
    const evidenceTypes = await scalar<string[]>(db, 'SELECT array_agg(DISTINCT type) FROM evidences')
    for (const type of ['check', 'config', 'config_change', 'config_analysis', 'comment']) expect(evidenceTypes).toContain(type)
    expect(await scalar<number>(db, 'SELECT count(*)::int FROM evidences WHERE definition_of_done')).toBeGreaterThan(0)
    expect(await scalar<number>(db, 'SELECT count(*)::int FROM responders WHERE team_id IS NOT NULL')).toBeGreaterThan(0)
    // The triggers, not the seed, wrote the timeline.
    expect(await scalar<number>(db, "SELECT count(*)::int FROM incident_histories WHERE type = 'incident.created'")).toBe(incidents.rows.length)

    expect(await scalar<number>(db, 'SELECT count(*)::int FROM playbooks')).toBeGreaterThanOrEqual(4)
    expect((await scalar<string[]>(db, 'SELECT array_agg(DISTINCT status) FROM playbook_runs')).length).toBeGreaterThanOrEqual(4)
    expect(await scalar<number>(db, 'SELECT count(*)::int FROM playbook_approvals')).toBe(1)
    expect(await scalar<number>(db, 'SELECT count(*)::int FROM playbook_run_actions')).toBeGreaterThan(0)

    expect(await scalar<number>(db, 'SELECT count(*)::int FROM notifications')).toBeGreaterThanOrEqual(3)
    expect(await scalar<number>(db, 'SELECT count(*)::int FROM notification_send_history')).toBeGreaterThan(5)
    expect(await scalar<number>(db, 'SELECT count(*)::int FROM notification_silences WHERE until > $1', [NOW.toISOString()])).toBe(1)
    expect(await scalar<number>(db, 'SELECT count(*)::int FROM notification_silences WHERE until < $1', [NOW.toISOString()])).toBe(1)

    expect(await scalar<number>(db, "SELECT count(*)::int FROM properties WHERE name LIKE '%.disable' AND value = 'true'")).toBe(0)
    expect(
      await scalar<number>(db, "SELECT count(*)::int FROM connections WHERE coalesce(password, '') <> '' AND password NOT LIKE 'secret://%'"),
    ).toBe(0)
    expect(await scalar<number>(db, 'SELECT count(*)::int FROM config_scrapers WHERE deleted_at IS NULL')).toBe(3)
    expect(await scalar<string[]>(db, 'SELECT array_agg(DISTINCT status ORDER BY status) FROM job_history')).toEqual(['FAILED', 'SUCCESS', 'WARNING'])
    expect(await scalar<number>(db, 'SELECT count(*)::int FROM incident_rules')).toBe(1)
    expect(await scalar<number>(db, 'SELECT count(*)::int FROM logging_backends')).toBe(1)
    expect(await scalar<number>(db, 'SELECT count(*)::int FROM access_tokens')).toBe(0)
    expect(await scalar<number>(db, 'SELECT count(*)::int FROM event_queue')).toBe(2)
    const people = await scalar<number>(db, "SELECT count(*)::int FROM people WHERE email IS NOT NULL AND type IS NULL")
    expect(people).toBeGreaterThanOrEqual(6)
    expect(people).toBeLessThanOrEqual(10)
    expect(await scalar<number>(db, 'SELECT count(*)::int FROM teams')).toBeGreaterThanOrEqual(2)
  })

  it('feeds the read views with sensible rows', async () => {
    const db = first.db
    const summaries = await db.query<{ name: string; status: string; uptime: { passed: number; failed: number }; latency: { p50: number | null } }>(
      'SELECT name, status, uptime, latency FROM check_summary WHERE deleted_at IS NULL',
    )
    expect(summaries.rows.length).toBe(await scalar<number>(db, 'SELECT count(*)::int FROM checks WHERE deleted_at IS NULL'))
    const refunds = summaries.rows.find((row) => row.name === 'refunds-api-health')
    expect(refunds?.status).toBe('unhealthy')
    expect(refunds?.uptime.failed).toBeGreaterThan(0)
    const healthy = summaries.rows.find((row) => row.name === 'payments-api-health')
    expect(healthy?.uptime.passed).toBeGreaterThanOrEqual(55)
    expect(healthy?.latency.p50).toBeGreaterThan(0)

    const configs = await db.query<{ namespace: string | null; changes: number | string | null }>(
      "SELECT namespace, changes FROM configs WHERE type = 'Kubernetes::Deployment' AND deleted_at IS NULL",
    )
    expect(configs.rows.length).toBeGreaterThan(10)
    expect(configs.rows.every((row) => typeof row.namespace === 'string')).toBe(true)

    const incidents = await db.query<{ incident_id: string; commander: { name: string | null } }>(
      'SELECT incident_id, commander FROM incident_summary ORDER BY incident_id',
    )
    expect(incidents.rows.length).toBe(await scalar<number>(db, 'SELECT count(*)::int FROM incidents'))
    expect(incidents.rows.some((row) => typeof row.commander?.name === 'string')).toBe(true)
    expect(incidents.rows.every((row) => /^INC-\d+$/.test(row.incident_id))).toBe(true)

    expect(await scalar<number>(db, 'SELECT count(*)::int FROM views_summary WHERE sidebar')).toBe(1)
    // Online means seen in the last 61 s of wall-clock time, which a slow machine can outlast
    // between seeding and this query: check the remote agent has a status derived from last_seen.
    expect(await scalar<number>(db, "SELECT count(*)::int FROM agents_summary WHERE status IN ('online', 'offline') AND last_seen IS NOT NULL")).toBe(1)
  })

  it('gives identical ids and content for the same seed and clock', async () => {
    const again = await seedDemoData(twin.db, { seed: DEFAULT_SEED, now: NOW })
    expect(again.counts).toEqual(summary.counts)
    expect(await fingerprints(twin.db)).toEqual(await fingerprints(first.db))
  }, 120_000)

  it('changes nothing when run again on a seeded database', async () => {
    const before = await fingerprints(first.db)
    const rerun = await seedDemoData(first.db, { seed: DEFAULT_SEED, now: new Date(NOW.getTime() + 3_600_000) })
    expect(rerun.skipped).toBe(true)
    expect(rerun.total).toBe(0)
    expect(await fingerprints(first.db)).toEqual(before)
  }, 60_000)

  it('builds a different estate from a different seed, and will not mix two seeds', async () => {
    const different = await seedDemoData(other.db, { seed: OTHER_SEED, now: NOW })
    expect(different.skipped).toBe(false)
    const firstIds = await scalar<string[]>(first.db, 'SELECT array_agg(id::text ORDER BY id) FROM checks')
    const otherIds = await scalar<string[]>(other.db, 'SELECT array_agg(id::text ORDER BY id) FROM checks')
    expect(otherIds.filter((id) => firstIds.includes(id))).toEqual([])
    expect((await fingerprint(other.db, 'check_statuses')).digest).not.toBe((await fingerprint(first.db, 'check_statuses')).digest)
    expect((await fingerprint(other.db, 'people')).digest).not.toBe((await fingerprint(first.db, 'people')).digest)

    await expect(seedDemoData(other.db, { seed: DEFAULT_SEED, now: NOW })).rejects.toThrow(/refusing to seed demo data/)
  }, 120_000)

  it('rejects an invalid seed or clock before touching the database', async () => {
    await expect(seedDemoData(other.db, { seed: -1 })).rejects.toThrow(/seed must be an integer/)
    await expect(seedDemoData(other.db, { seed: 1.5 })).rejects.toThrow(/seed must be an integer/)
    await expect(seedDemoData(other.db, { now: new Date('not a date') })).rejects.toThrow(/valid date/)
  })
})
