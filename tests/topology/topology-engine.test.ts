import path from 'node:path'
import { spawn } from 'node:child_process'
import { setTimeout as sleep } from 'node:timers/promises'
import type { Express } from 'express'
import request from 'supertest'
import { afterAll, beforeAll, describe, expect, it } from 'vitest'
import { createApp } from '#server/app.ts'
import { createBackend } from '#server/backend/backend-app.ts'
import { recordSpecTrust } from '#server/backend/health/check-trust.ts'
import { DEFAULT_TOPOLOGY_SCHEDULE, type TopologyEngine } from '#server/backend/topology/topology-engine.ts'
import { APP_VERSION } from '#server/boot.ts'
import { createPostgresDb, type Db } from '#server/db/client.ts'
import { createTestDb, TEST_ENGINE, type TestDb } from '#tests/support/test-db.ts'
import { bearer, testEnv } from '#tests/support/test-app.ts'
import { ROOT } from '#tests/support/processes.ts'
import { personWith } from '#tests/rbac/rbac-fixture.ts'
import { silentLogger, waitFor } from '#tests/catalog/scrape-fixtures.ts'
import { createRunsTable, insertTopology, runsOf, testTopologyEngine } from './topology-engine-fixtures.ts'

let testDb: TestDb
let db: Db
let engine: TopologyEngine

beforeAll(async () => {
  testDb = await createTestDb()
  db = testDb.db
  await createRunsTable(db)
  engine = testTopologyEngine(db, { processId: 'engine-manual' })
})

afterAll(async () => {
  await testDb?.drop()
})

type JobRow = {
  name: string
  resource_type: string
  resource_id: string
  status: string
  success_count: number | null
  error_count: number | null
  details: { summary?: Record<string, number>; errors?: string[] } | null
  hostname: string | null
  time_start: Date | null
  time_end: Date | null
  duration_millis: number | null
}

async function job(id: string): Promise<JobRow> {
  const { rows } = await db.query<JobRow>('SELECT * FROM job_history WHERE id = $1', [id])
  return rows[0]!
}

async function liveComponents(topologyId: string): Promise<string[]> {
  const { rows } = await db.query<{ name: string }>('SELECT name FROM components WHERE topology_id = $1 AND deleted_at IS NULL ORDER BY name', [topologyId])
  return rows.map((row) => row.name)
}

/** Earlier tests' topologies would run too once an engine starts: only these stay live. */
async function retireAllBut(keep: string[]): Promise<void> {
  await db.query('UPDATE topologies SET deleted_at = now() WHERE deleted_at IS NULL AND NOT (id = ANY($1::uuid[]))', [keep])
  await engine.syncNow()
}

async function scheduleRow(topologyId: string) {
  const { rows } = await db.query<{ schedule: string; next_run_at: Date; lease_owner: string | null; lease_until: Date | null; last_owner: string | null }>(
    'SELECT schedule, next_run_at, lease_owner, lease_until, last_owner FROM lookout.topology_schedule WHERE topology_id = $1',
    [topologyId],
  )
  return rows[0]
}

describe('schedules', () => {
  it("gives every live local topology its spec's schedule, else @every 5m; none to demo data, other agents or deleted ones", async () => {
    const hourly = await insertTopology(db, 'sched-hourly', { schedule: '@every 1h' })
    const plain = await insertTopology(db, 'sched-plain', {})
    const demo = await insertTopology(db, 'sched-demo', {}, { source: 'Demo' })
    const { rows: [agent] } = await db.query<{ id: string }>("INSERT INTO agents (name) VALUES ('remote-for-topologies') RETURNING id")
    const remote = await insertTopology(db, 'sched-remote', {}, { agentId: agent!.id })
    const gone = await insertTopology(db, 'sched-gone', {})
    await db.query('UPDATE topologies SET deleted_at = now() WHERE id = $1', [gone])
    await engine.syncNow()
    expect((await scheduleRow(hourly))?.schedule).toBe('@every 1h')
    expect((await scheduleRow(plain))?.schedule).toBe(DEFAULT_TOPOLOGY_SCHEDULE)
    expect(DEFAULT_TOPOLOGY_SCHEDULE).toBe('@every 5m')
    for (const id of [demo, remote, gone]) expect(await scheduleRow(id)).toBeUndefined()
    // The demo topology is not run on demand either.
    expect(await engine.runNow(demo)).toBeNull()
    expect(await engine.runNow('not-a-uuid')).toBeNull()
    expect(await engine.runNow('0190f0f0-0000-7000-8000-00000000beef')).toBeNull()
    await db.query('UPDATE topologies SET deleted_at = now() WHERE id = ANY($1::uuid[])', [[hourly, plain]])
    await engine.syncNow()
  })
})

describe('a run', () => {
  it('writes one job_history row: RUNNING, then SUCCESS with the live components, the summary and the timings', async () => {
    const id = await insertTopology(db, 'job-success', { schedule: '@every 1h', pauseMs: 400, components: ['api', 'db'] })
    const started = Date.now()
    const pending = await engine.runNow(id, { async: true })
    expect(Date.now() - started).toBeLessThan(350)
    expect(pending!.status).toBe('RUNNING')
    const running = await job(pending!.jobHistoryId)
    expect(running).toMatchObject({ name: 'Topology', resource_type: 'topology', resource_id: id, status: 'RUNNING' })
    expect(running.time_start).toBeInstanceOf(Date)
    await waitFor(async () => (await job(pending!.jobHistoryId)).status !== 'RUNNING')
    const done = await job(pending!.jobHistoryId)
    expect(done).toMatchObject({ status: 'SUCCESS', success_count: 3, error_count: 0 })
    expect(done.details).toEqual({ summary: { components: 3, created: 3, updated: 0, unchanged: 0, deleted: 0, rowWrites: 5 } })
    expect(done.duration_millis).toBeGreaterThanOrEqual(400)
    expect(done.time_end!.getTime()).toBeGreaterThanOrEqual(done.time_start!.getTime())
    expect(done.hostname).toBeTruthy()
    expect(await liveComponents(id)).toEqual(['api', 'db', 'job-success'])

    // A sync run answers with the outcome; an unchanged tree counts as unchanged.
    const again = await engine.runNow(id)
    expect(again).toMatchObject({ status: 'SUCCESS', summary: { components: 3, created: 0, unchanged: 3 } })
    expect(again!.errors).toBeUndefined()
    const { rows } = await db.query("SELECT 1 FROM job_history WHERE resource_id = $1 AND name = 'Topology'", [id])
    expect(rows).toHaveLength(2)
  })

  it('is WARNING when the run reports errors beside a tree, FAILED when it throws or times out', async () => {
    const warned = await insertTopology(db, 'job-warning', { schedule: '@every 1h', warn: 'lookup[0]: connection refused', components: ['x'] })
    const warning = await engine.runNow(warned)
    expect(warning).toMatchObject({ status: 'WARNING', summary: { components: 2 }, errors: ['lookup[0]: connection refused'] })
    expect(await job(warning!.jobHistoryId)).toMatchObject({
      status: 'WARNING', success_count: 2, error_count: 1, details: { errors: ['lookup[0]: connection refused'], summary: { components: 2 } },
    })

    const broken = await insertTopology(db, 'job-failed', { schedule: '@every 1h', fail: 'spec.components[0].lookup: bad canary spec' })
    const failed = await engine.runNow(broken)
    expect(failed).toMatchObject({ status: 'FAILED', errors: ['spec.components[0].lookup: bad canary spec'] })
    expect(failed!.summary).toBeUndefined()
    expect(await job(failed!.jobHistoryId)).toMatchObject({ status: 'FAILED', success_count: 0, error_count: 1, details: { errors: ['spec.components[0].lookup: bad canary spec'] } })

    const slowEngine = testTopologyEngine(db, { processId: 'engine-timeout', timeoutMs: 300 })
    const slow = await insertTopology(db, 'job-timeout', { schedule: '@every 1h', pauseMs: 5_000 })
    const began = Date.now()
    const timedOut = await slowEngine.runNow(slow)
    expect(Date.now() - began).toBeLessThan(3_000)
    expect(timedOut!.status).toBe('FAILED')
    expect(timedOut!.errors![0]).toMatch(/timed out or was stopped \(300 ms\)/)
    // The lease was released: the topology can run again at once.
    expect((await scheduleRow(slow))?.lease_owner).toBeNull()
  })

  it('tells the run whether an exec holder wrote the spec', async () => {
    const spec = { schedule: '@every 1h', components: ['trusted'] }
    const trusted = await insertTopology(db, 'trust-yes', spec)
    await recordSpecTrust(db, spec, 'server')
    const untrusted = await insertTopology(db, 'trust-no', { schedule: '@every 1h', components: ['untrusted'] })
    await engine.runNow(trusted)
    await engine.runNow(untrusted)
    expect((await runsOf(db, trusted)).map((run) => run.trusted)).toEqual([true])
    expect((await runsOf(db, untrusted)).map((run) => run.trusted)).toEqual([false])
  })
})

describe('the schedule', () => {
  it('runs an edited topology again at once; a deleted one never again, its components and inline canaries soft-deleted', async () => {
    const id = await insertTopology(db, 'edited', { schedule: '@every 1h', components: ['a', 'b'] })
    await retireAllBut([id])
    const running = testTopologyEngine(db, { processId: 'engine-edit' })
    await running.start()
    try {
      // The run's row is written as it starts: its end says the components are stored.
      await waitFor(async () => (await runsOf(db, id))[0]?.ended_at != null)
      expect(await liveComponents(id)).toEqual(['a', 'b', 'edited'])
      // Nothing more within the hour's tick.
      await sleep(600)
      expect(await runsOf(db, id)).toHaveLength(1)

      await db.query(`UPDATE topologies SET spec = '{"schedule": "@every 1h", "components": ["a"]}'::jsonb, updated_at = now() WHERE id = $1`, [id])
      await waitFor(async () => (await runsOf(db, id)).length === 2, 5_000)
      await waitFor(async () => (await liveComponents(id)).join() === 'a,edited')

      // An inline canary of a component (the store writes them with source component=<id>).
      const { rows: [component] } = await db.query<{ id: string }>("SELECT id FROM components WHERE topology_id = $1 AND name = 'a'", [id])
      const { rows: [canary] } = await db.query<{ id: string }>(
        "INSERT INTO canaries (name, namespace, spec, source) VALUES ('edited-a', 'default', '{}'::jsonb, $1) RETURNING id",
        [`component=${component!.id}`],
      )
      await db.query('UPDATE topologies SET deleted_at = now() WHERE id = $1', [id])
      await waitFor(async () => (await liveComponents(id)).length === 0, 5_000)
      await waitFor(async () => (await scheduleRow(id)) === undefined)
      const { rows: [inline] } = await db.query<{ deleted_at: Date | null }>('SELECT deleted_at FROM canaries WHERE id = $1', [canary!.id])
      expect(inline!.deleted_at).not.toBeNull()
      const { rows: [topology] } = await db.query<{ deleted_at: Date }>('SELECT deleted_at FROM topologies WHERE id = $1', [id])
      const { rows: stamps } = await db.query<{ deleted_at: Date }>('SELECT DISTINCT deleted_at FROM components WHERE topology_id = $1 AND name <> $2', [id, 'b'])
      expect(stamps.map((row) => row.deleted_at.getTime())).toEqual([topology!.deleted_at.getTime()])
      await sleep(500)
      expect(await runsOf(db, id)).toHaveLength(2)
    } finally {
      await running.stop()
    }
  })

  it("waits for a deleted topology's run to end before removing its components", async () => {
    const id = await insertTopology(db, 'deleted-mid-run', { schedule: '@every 1h', pauseMs: 1_200, components: ['c'] })
    await engine.runNow(id, { async: true })
    await waitFor(async () => (await scheduleRow(id))?.lease_owner === 'engine-manual')
    await db.query('UPDATE topologies SET deleted_at = now() WHERE id = $1', [id])
    await engine.syncNow()
    // The run still holds the lease: the schedule stays and nothing is removed under it.
    expect(await scheduleRow(id)).toBeDefined()
    await waitFor(async () => (await runsOf(db, id))[0]?.ended_at)
    await waitFor(async () => (await scheduleRow(id))?.lease_owner === null)
    await engine.syncNow()
    expect(await liveComponents(id)).toEqual([])
    expect(await scheduleRow(id)).toBeUndefined()
  })
})

describe('two engine processes sharing one database', () => {
  let second: Db | undefined
  beforeAll(async () => {
    // On PostgreSQL the second engine has a pool of its own, as a second process would.
    second = testDb.url ? await createPostgresDb(testDb.url, { max: 4 }) : undefined
  })
  afterAll(async () => {
    await second?.close()
  })

  it('runs each topology once per tick and never two runs of one topology at once', async () => {
    const ids = await Promise.all(['shared-1', 'shared-2', 'shared-3'].map((name) => insertTopology(db, name, { schedule: '@every 1s', pauseMs: 300, components: ['x'] })))
    await retireAllBut(ids)
    const a = testTopologyEngine(db, { processId: 'engine-a' })
    const b = testTopologyEngine(second ?? db, { processId: 'engine-b' })
    await Promise.all([a.start(), b.start()])
    try {
      await waitFor(async () => {
        const counts = await Promise.all(ids.map(async (id) => (await runsOf(db, id)).filter((run) => run.ended_at).length))
        return counts.every((count) => count >= 4)
      }, 20_000)
    } finally {
      await Promise.all([a.stop(), b.stop()])
    }
    const owners = new Set<string>()
    for (const id of ids) {
      const runs = await runsOf(db, id)
      runs.forEach((run) => owners.add(run.owner))
      for (const [index, run] of runs.entries()) {
        if (index === 0) continue
        const previous = runs[index - 1]!
        // Never concurrently: each run starts after the previous one ended ...
        expect(run.started_at.getTime()).toBeGreaterThanOrEqual(previous.ended_at!.getTime())
      }
      // Once per one-second tick, whichever engine claimed it: two engines running every tick
      // would make about twice as many runs as ticks went by.
      const spanMs = runs.at(-1)!.started_at.getTime() - runs[0]!.started_at.getTime()
      expect(runs.length - 1).toBeLessThanOrEqual(Math.ceil(spanMs / 1_000))
    }
    expect([...owners].every((owner) => owner === 'engine-a' || owner === 'engine-b')).toBe(true)
    const { rows: leases } = await db.query('SELECT 1 FROM lookout.topology_schedule WHERE lease_owner IS NOT NULL')
    expect(leases).toEqual([])
    await db.query('UPDATE topologies SET deleted_at = now() WHERE id = ANY($1::uuid[])', [ids])
    await engine.syncNow()
  }, 30_000)

  it('keeps a run longer than its lease to its engine (the lease is renewed while it runs)', async () => {
    const id = await insertTopology(db, 'long-run', { schedule: '@every 1s', pauseMs: 2_500, components: ['l'] })
    await retireAllBut([id])
    const a = testTopologyEngine(db, { processId: 'engine-long-a', leaseMs: 1_000 })
    const b = testTopologyEngine(second ?? db, { processId: 'engine-long-b', leaseMs: 1_000 })
    await Promise.all([a.start(), b.start()])
    try {
      await waitFor(async () => (await runsOf(db, id)).filter((run) => run.ended_at).length >= 2, 20_000)
    } finally {
      await Promise.all([a.stop(), b.stop()])
    }
    const runs = (await runsOf(db, id)).filter((run) => run.ended_at)
    for (const [index, run] of runs.entries()) {
      if (index > 0) expect(run.started_at.getTime()).toBeGreaterThanOrEqual(runs[index - 1]!.ended_at!.getTime())
      expect(run.ended_at!.getTime() - run.started_at.getTime()).toBeGreaterThanOrEqual(2_500)
    }
    await db.query('UPDATE topologies SET deleted_at = now() WHERE id = $1', [id])
    await engine.syncNow()
  }, 30_000)

  // A process that dies keeps its lease until it lapses; only a real second process can die
  // that way, and PGlite is one process's database.
  it.skipIf(TEST_ENGINE !== 'postgres')('takes over a topology whose engine died mid-run, once its lease has lapsed', async () => {
    const id = await insertTopology(db, 'orphaned', { schedule: '@every 1h', components: ['y'] })
    await retireAllBut([id])
    // tsx as a loader, not its CLI: the CLI runs the script in a child of its own, which would
    // outlive the SIGKILL below and go on renewing its lease.
    const child = spawn(process.execPath, ['--import', 'tsx', path.join(ROOT, 'tests/topology/topology-engine-worker.ts')], {
      cwd: ROOT,
      env: { ...process.env, DATABASE_URL: testDb.url!, ENGINE_PROCESS_ID: 'engine-doomed' },
      stdio: ['ignore', 'pipe', 'pipe'],
    })
    let output = ''
    child.stdout!.on('data', (chunk: Buffer) => (output += chunk.toString()))
    child.stderr!.on('data', (chunk: Buffer) => (output += chunk.toString()))
    let survivor: TopologyEngine | undefined
    try {
      await waitFor(async () => (await runsOf(db, id)).some((run) => run.owner === 'engine-doomed'), 30_000).catch((error: unknown) => {
        throw new Error(`${(error as Error).message}; worker output:\n${output}`)
      })
      expect((await scheduleRow(id))?.lease_owner).toBe('engine-doomed')
      child.kill('SIGKILL')
      await new Promise((resolve) => child.once('exit', resolve))
      // The dead engine's last renewal: nobody may take the topology before then.
      const leaseUntil = (await scheduleRow(id))!.lease_until!
      survivor = testTopologyEngine(second!, { processId: 'engine-survivor' })
      await survivor.start()
      await waitFor(async () => (await runsOf(db, id)).some((run) => run.owner === 'engine-survivor' && run.ended_at), 10_000)
      const taken = (await runsOf(db, id)).find((run) => run.owner === 'engine-survivor')!
      expect(taken.started_at.getTime()).toBeGreaterThanOrEqual(leaseUntil.getTime())
      expect(await liveComponents(id)).toEqual(['orphaned', 'y'])
      const { rows: jobs } = await db.query<{ status: string }>("SELECT status FROM job_history WHERE resource_id = $1 AND name = 'Topology' ORDER BY time_start", [id])
      // The dead engine's row stays RUNNING (nothing finished it); the survivor's succeeded.
      expect(jobs.map((row) => row.status)).toEqual(['RUNNING', 'SUCCESS'])
      await waitFor(async () => (await scheduleRow(id))?.lease_owner === null)
      expect((await scheduleRow(id))?.last_owner).toBe('engine-survivor')
    } finally {
      if (child.exitCode === null) child.kill('SIGKILL')
      await survivor?.stop()
    }
  }, 60_000)
})

describe('POST /api/canary/run/topology/{id}', () => {
  let app: Express
  beforeAll(() => {
    const env = testEnv()
    const topologyEngine = testTopologyEngine(db, { processId: 'engine-http' })
    const backend = createBackend({ db, env, logger: silentLogger, appVersion: APP_VERSION, consoleUrl: () => 'http://127.0.0.1:3000', topologyEngine })
    app = createApp({ env, db, logger: silentLogger, embedded: backend.router, isMigrated: () => true })
  })

  it('runs the topology and answers the live components as a string', async () => {
    const id = await insertTopology(db, 'http-run', { schedule: '@every 1h', components: ['web', 'worker', 'cache'] })
    const response = await request(app).post(`/api/canary/run/topology/${id}`).set(bearer)
    expect(response.status).toBe(200)
    expect(response.body).toEqual({ status: 'ok', count: '4' })
    const { rows } = await db.query<{ status: string; success_count: number }>("SELECT status, success_count FROM job_history WHERE resource_id = $1 AND name = 'Topology'", [id])
    expect(rows).toEqual([{ status: 'SUCCESS', success_count: 4 }])
    expect((await runsOf(db, id)).map((run) => run.owner)).toEqual(['engine-http'])
  })

  it('answers 400 for an id that is not a UUID, 404 for an unknown or deleted topology, 409 for demo data', async () => {
    const bad = await request(app).post('/api/canary/run/topology/nope').set(bearer)
    expect(bad.status).toBe(400)
    expect(bad.body).toEqual({ error: 'id: "nope" is not a UUID' })
    const unknown = await request(app).post('/api/canary/run/topology/0190f0f0-0000-7000-8000-00000000beef').set(bearer)
    expect(unknown.status).toBe(404)
    expect(unknown.body).toEqual({ error: 'topology (0190f0f0-0000-7000-8000-00000000beef) was not found' })
    const deleted = await insertTopology(db, 'http-deleted', {})
    await db.query('UPDATE topologies SET deleted_at = now() WHERE id = $1', [deleted])
    expect((await request(app).post(`/api/canary/run/topology/${deleted}`).set(bearer)).status).toBe(404)
    const demo = await insertTopology(db, 'http-demo', { components: ['z'] }, { source: 'Demo' })
    const refused = await request(app).post(`/api/canary/run/topology/${demo}`).set(bearer)
    expect(refused.status).toBe(409)
    expect(refused.body.error).toMatch(/demo data/)
    expect(await runsOf(db, demo)).toEqual([])
  })

  it('answers 500 with the error when the run fails, never a stack', async () => {
    const id = await insertTopology(db, 'http-fail', { fail: 'lookup[0]: exec timed out' })
    const response = await request(app).post(`/api/canary/run/topology/${id}`).set(bearer)
    expect(response.status).toBe(500)
    expect(response.body).toEqual({ error: 'lookup[0]: exec timed out' })
  })

  it('needs topology run (create) rights, and the exec permission for a spec that starts a process', async () => {
    const editor = await personWith(db, ['editor'])
    const viewer = await personWith(db, ['viewer'])
    const plain = await insertTopology(db, 'http-editor', { components: ['p'] })
    const viewed = await request(app).post(`/api/canary/run/topology/${plain}`).set(viewer.headers)
    expect(viewed.status).toBe(403)
    expect(await runsOf(db, plain)).toEqual([])
    expect((await request(app).post(`/api/canary/run/topology/${plain}`).set(editor.headers)).body).toEqual({ status: 'ok', count: '2' })

    const scripted = await insertTopology(db, 'http-exec', {
      components: [{ name: 'jobs', lookup: { exec: [{ name: 'list', script: 'echo []' }] } }],
    })
    const denied = await request(app).post(`/api/canary/run/topology/${scripted}`).set(editor.headers)
    expect(denied.status).toBe(403)
    expect(denied.body.error).toMatch(/exec checks need the exec permission, which you do not hold \(spec\.components\[0\]\.lookup\.exec\)/)
    expect(await runsOf(db, scripted)).toEqual([])
    // The admin holds exec.
    expect((await request(app).post(`/api/canary/run/topology/${scripted}`).set(bearer)).status).toBe(200)
  })
})
