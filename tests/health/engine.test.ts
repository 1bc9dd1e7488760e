import { afterAll, beforeAll, describe, expect, it } from 'vitest'
import { createPostgresDb } from '#server/db/client.ts'
import { createTestDb, TEST_ENGINE, type TestDb } from '#tests/support/test-db.ts'
import { syncCanaries } from '#server/backend/health/canary-sync.ts'
import { nextTick, parseSchedule } from '#contract/canary/schedule.ts'
import { applyYaml, canaryYaml, startLocalServer, testEngine, waitFor, type LocalServer } from './health-fixtures.ts'

let testDb: TestDb
let server: LocalServer
const active = new Map<string, number>()
let overlaps = 0

beforeAll(async () => {
  testDb = await createTestDb()
  server = await startLocalServer((req, res) => {
    const key = req.url ?? '/'
    const now = (active.get(key) ?? 0) + 1
    active.set(key, now)
    if (now > 1) overlaps += 1
    // Each request takes a while, so overlapping runs of one check would be visible.
    setTimeout(() => {
      active.set(key, (active.get(key) ?? 1) - 1)
      res.writeHead(200, { 'content-type': 'application/json' }).end('{"ok":true}')
    }, 40)
  })
})

afterAll(async () => {
  await server?.close()
  await testDb?.drop()
})

describe('schedules', () => {
  it('parses cron, @every, descriptors and rejects 3-field cron', () => {
    expect(parseSchedule('@every 30s')).toMatchObject({ kind: 'every', intervalMs: 30_000 })
    expect(parseSchedule('*/5 * * * *').kind).toBe('cron')
    expect(parseSchedule('@hourly').kind).toBe('cron')
    expect(parseSchedule('@never').kind).toBe('never')
    expect(() => parseSchedule('8 46 *')).toThrow(/expected 5 fields/)
    const every = parseSchedule('@every 30s')
    const a = nextTick(every, new Date('2026-01-01T00:00:00Z'), 'canary-a')!
    const b = nextTick(every, new Date(a.getTime()), 'canary-a')!
    expect(b.getTime() - a.getTime()).toBe(30_000)
    // At least 10 s apart even when the schedule asks for less.
    const fast = parseSchedule('@every 1s')
    const t1 = nextTick(fast, new Date('2026-01-01T00:00:00Z'), 'x')!
    expect(nextTick(fast, t1, 'x', { previousTick: t1 })!.getTime() - t1.getTime()).toBe(10_000)
    const cron = parseSchedule('*/5 * * * *')
    expect(nextTick(cron, new Date('2026-01-01T00:01:00Z'), 'x')!.toISOString()).toBe('2026-01-01T00:05:00.000Z')
  })
})

describe('one engine', () => {
  it('runs an @every check repeatedly, storing statuses, check state, next_runtime and job history', async () => {
    const { canaryId, checks } = await applyYaml(testDb.db, canaryYaml('every-second', `  http:
    - {name: ping, url: "${server.url}/every-second", responseCodes: [200]}
`, '@every 1s'))
    const checkId = checks.get('ping')!
    const engine = testEngine(testDb.db, { minIntervalMs: 1_000 })
    await engine.start()
    try {
      await waitFor(async () => (await testDb.db.query('SELECT 1 FROM check_statuses WHERE check_id = $1', [checkId])).rows.length >= 3, 15_000)
    } finally {
      await engine.stop()
    }
    const { rows: statuses } = await testDb.db.query<{ time: Date; status: boolean }>('SELECT time, status FROM check_statuses WHERE check_id = $1 ORDER BY time', [checkId])
    expect(statuses.every((row) => row.status)).toBe(true)
    for (let index = 1; index < statuses.length; index += 1) {
      expect(new Date(statuses[index]!.time).getTime() - new Date(statuses[index - 1]!.time).getTime()).toBeGreaterThan(700)
    }
    const { rows: [check] } = await testDb.db.query<{ status: string; last_runtime: Date; next_runtime: Date; last_transition_time: Date }>('SELECT status, last_runtime, next_runtime, last_transition_time FROM checks WHERE id = $1', [checkId])
    expect(check).toMatchObject({ status: 'healthy' })
    expect(new Date(check!.next_runtime).getTime()).toBeGreaterThan(new Date(check!.last_runtime).getTime())
    expect(check!.last_transition_time).not.toBeNull()
    const { rows: [live] } = await testDb.db.query<{ status: string; next_runtime: Date | null }>('SELECT status, next_runtime FROM checks_unlogged WHERE check_id = $1', [checkId])
    expect(live!.status).toBe('healthy')
    expect(live!.next_runtime).not.toBeNull()
    const { rows: jobs } = await testDb.db.query<{ name: string; status: string }>("SELECT name, status FROM job_history WHERE resource_id = $1 AND name = 'Canary'", [canaryId])
    expect(jobs.length).toBeGreaterThan(0)
    expect(jobs.every((job) => job.status === 'SUCCESS')).toBe(true)
    const { rows: [lease] } = await testDb.db.query<{ lease_owner: string | null }>('SELECT lease_owner FROM lookout.check_schedule WHERE check_id = $1', [checkId])
    expect(lease!.lease_owner).toBeNull()
  })

  it('picks up canaries written through the generic table API and unschedules deleted ones', async () => {
    const { rows: [canary] } = await testDb.db.query<{ id: string }>(
      `INSERT INTO canaries (name, namespace, spec, source) VALUES ('raw-row', 'default', $1, 'UI') RETURNING id`,
      [JSON.stringify({ schedule: '@every 1m', tcp: [{ name: 'port', endpoint: `127.0.0.1:${server.port}` }] })],
    )
    await syncCanaries(testDb.db, { wait: true })
    const { rows: checks } = await testDb.db.query<{ id: string; type: string }>('SELECT id, type FROM checks WHERE canary_id = $1 AND deleted_at IS NULL', [canary!.id])
    expect(checks).toHaveLength(1)
    expect((await testDb.db.query('SELECT 1 FROM lookout.check_schedule WHERE canary_id = $1', [canary!.id])).rows.length).toBe(1)
    // A spec change that drops the check soft-deletes it.
    await testDb.db.query(`UPDATE canaries SET spec = $2 WHERE id = $1`, [canary!.id, JSON.stringify({ schedule: '@every 1m', tcp: [{ name: 'other', endpoint: `127.0.0.1:${server.port}` }] })])
    await syncCanaries(testDb.db, { wait: true })
    const { rows: after } = await testDb.db.query<{ name: string; deleted: boolean }>('SELECT name, deleted_at IS NOT NULL AS deleted FROM checks WHERE canary_id = $1 ORDER BY name', [canary!.id])
    expect(after).toEqual([{ name: 'other', deleted: false }, { name: 'port', deleted: true }])
    await testDb.db.query('UPDATE canaries SET deleted_at = now() WHERE id = $1', [canary!.id])
    await syncCanaries(testDb.db, { wait: true })
    expect((await testDb.db.query('SELECT 1 FROM lookout.check_schedule WHERE canary_id = $1', [canary!.id])).rows.length).toBe(0)
  })

  it('leaves an invalid generic-API canary unscheduled with the reason recorded', async () => {
    const { rows: [canary] } = await testDb.db.query<{ id: string }>(
      `INSERT INTO canaries (name, namespace, spec, source) VALUES ('bad-cron', 'default', $1, 'UI') RETURNING id`,
      [JSON.stringify({ schedule: '8 46 *', http: [{ name: 'x', url: server.url }] })],
    )
    await syncCanaries(testDb.db, { wait: true })
    const { rows: [sync] } = await testDb.db.query<{ error: string }>('SELECT error FROM lookout.canary_sync WHERE canary_id = $1', [canary!.id])
    expect(sync!.error).toMatch(/spec.schedule: invalid cron/)
    expect((await testDb.db.query('SELECT 1 FROM lookout.check_schedule WHERE canary_id = $1', [canary!.id])).rows.length).toBe(0)
    const { rows: [job] } = await testDb.db.query<{ status: string }>("SELECT status FROM job_history WHERE resource_id = $1 AND name = 'SyncCanary'", [canary!.id])
    expect(job!.status).toBe('FAILED')
  })

  it('prunes status rows older than the retention', async () => {
    const { checks } = await applyYaml(testDb.db, canaryYaml('retention', `  tcp:
    - {name: port, endpoint: "127.0.0.1:${server.port}"}
`))
    const checkId = checks.get('port')!
    await testDb.db.query(
      `INSERT INTO check_statuses (check_id, time, status, duration) VALUES ($1, now() - interval '40 days', true, 1), ($1, now() - interval '10 days', true, 1), ($1, now(), true, 1)`,
      [checkId],
    )
    const engine = testEngine(testDb.db, { retentionDays: 30 })
    const pruned = await engine.pruneNow()
    expect(pruned.statuses).toBeGreaterThanOrEqual(1)
    const { rows } = await testDb.db.query('SELECT 1 FROM check_statuses WHERE check_id = $1', [checkId])
    expect(rows).toHaveLength(2)
  })
})

describe.skipIf(TEST_ENGINE !== 'postgres')('several engines on one PostgreSQL database', () => {
  it('two engines split the work and never run one check concurrently or twice per tick', async () => {
    const names = Array.from({ length: 30 }, (_, index) => `c${index}`)
    await applyYaml(testDb.db, canaryYaml('shared', `  http:
${names.map((name) => `    - {name: ${name}, url: "${server.url}/shared/${name}"}`).join('\n')}
`, '@every 1s'))
    const dbA = await createPostgresDb(testDb.url!, { max: 4 })
    const dbB = await createPostgresDb(testDb.url!, { max: 4 })
    const a = testEngine(dbA, { processId: 'engine-a', minIntervalMs: 1_000, concurrency: 8 })
    const b = testEngine(dbB, { processId: 'engine-b', minIntervalMs: 1_000, concurrency: 8 })
    overlaps = 0
    const started = Date.now()
    await Promise.all([a.start(), b.start()])
    await new Promise((resolve) => setTimeout(resolve, 5_000))
    await Promise.all([a.stop(), b.stop()])
    const elapsedTicks = Math.ceil((Date.now() - started) / 1_000) + 1
    await dbA.close()
    await dbB.close()
    expect(overlaps).toBe(0)
    expect(a.stats().executed).toBeGreaterThan(10)
    expect(b.stats().executed).toBeGreaterThan(10)
    for (const name of names) {
      const runs = server.hits.get(`/shared/${name}`) ?? 0
      expect(runs).toBeGreaterThanOrEqual(3)
      expect(runs).toBeLessThanOrEqual(elapsedTicks)
    }
  }, 30_000)

  it("a dead engine's leases expire and another engine takes its checks", async () => {
    const { checks } = await applyYaml(testDb.db, canaryYaml('orphaned', `  exec:
    - {name: slow, script: "sleep 30", timeout: 60s}
`, '@every 1m'))
    const checkId = checks.get('slow')!
    const dbA = await createPostgresDb(testDb.url!, { max: 2 })
    const dead = testEngine(dbA, { processId: 'engine-dead', leaseMs: 1_000 })
    await dead.start()
    await waitFor(async () => (await testDb.db.query("SELECT 1 FROM lookout.check_schedule WHERE check_id = $1 AND lease_owner = 'engine-dead'", [checkId])).rows.length > 0)
    // Simulate a crash: the process stops renewing (its pool is gone) without releasing anything.
    await dbA.close().catch(() => undefined)
    const dbB = await createPostgresDb(testDb.url!, { max: 2 })
    const heir = testEngine(dbB, { processId: 'engine-heir', leaseMs: 1_000 })
    await heir.start()
    try {
      await waitFor(async () => (await testDb.db.query("SELECT 1 FROM lookout.check_schedule WHERE check_id = $1 AND last_owner = 'engine-heir'", [checkId])).rows.length > 0, 10_000)
    } finally {
      await heir.stop()
      await dead.stop().catch(() => undefined)
      await dbB.close()
    }
  }, 30_000)
})
