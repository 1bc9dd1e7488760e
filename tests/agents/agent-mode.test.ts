import http from 'node:http'
import { mkdtemp, rm } from 'node:fs/promises'
import type { AddressInfo } from 'node:net'
import { tmpdir } from 'node:os'
import path from 'node:path'
import request from 'supertest'
import { afterAll, beforeAll, describe, expect, it } from 'vitest'
import { createAgentPush } from '#server/backend/agents/agent-push.ts'
import { createLogger } from '#server/logger.ts'
import { bearer, createTestApp } from '#tests/support/test-app.ts'
import { createEmptyPostgresDatabase, createTestDb, TEST_ENGINE, type TestDb } from '#tests/support/test-db.ts'
import { startProcess, type RunningProcess } from '#tests/support/processes.ts'

const AGENT_TOKEN = 'agent-process-bootstrap-0123456789abcdef'

async function waitFor<T>(probe: () => Promise<T | undefined>, timeoutMs: number, what: string): Promise<T> {
  const started = Date.now()
  for (;;) {
    const value = await probe()
    if (value !== undefined) return value
    if (Date.now() - started > timeoutMs) throw new Error(`${what}: not within ${timeoutMs} ms`)
    await new Promise((resolve) => setTimeout(resolve, 200))
  }
}

/** The central instance: the console's app (gateway + embedded backend) on a port of its own. */
async function startCentral(testDb: TestDb) {
  const { app } = createTestApp(testDb.db)
  const server = http.createServer(app)
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve))
  const url = `http://127.0.0.1:${(server.address() as AddressInfo).port}`
  return { app, url, close: () => new Promise<void>((resolve) => server.close(() => resolve())) }
}

async function generate(app: http.RequestListener, name: string) {
  const response = await request(app).post('/api/agent/generate').set(bearer).send({ name })
  expect(response.status, response.text).toBe(201)
  return response.body as { access_token: string; agent_id: string }
}

describe('agent mode: a second Lookout process pushes its results to the central one', () => {
  let central: TestDb
  let centralApp: Awaited<ReturnType<typeof startCentral>> | undefined
  let agent: RunningProcess | undefined
  let agentDb: { url: string; drop(): Promise<void> } | undefined
  let dataDir: string | undefined

  beforeAll(async () => {
    central = await createTestDb()
    centralApp = await startCentral(central)
  })
  afterAll(async () => {
    await agent?.stop()
    await centralApp?.close()
    await central?.drop()
    await agentDb?.drop()
    if (dataDir) await rm(dataDir, { recursive: true, force: true })
  })

  it('runs its own check and the results show under the agent on the central instance', async () => {
    const generated = await generate(centralApp!.app, 'edge-eu')
    // The agent has a database of its own: a PostgreSQL database on that pass, PGlite files on the other.
    if (TEST_ENGINE === 'postgres') agentDb = await createEmptyPostgresDatabase()
    else dataDir = await mkdtemp(path.join(tmpdir(), 'lookout-agent-'))
    agent = await startProcess(
      'server/backend-server.ts',
      {
        LOOKOUT_BOOTSTRAP_TOKEN: AGENT_TOKEN,
        LOOKOUT_DEMO_DATA: 'false',
        LOOKOUT_CHECK_ALLOWED_TARGETS: '127.0.0.1',
        LOOKOUT_UPSTREAM_AGENT_URL: `${centralApp!.url}/api`,
        LOOKOUT_UPSTREAM_AGENT_TOKEN: generated.access_token,
        LOOKOUT_UPSTREAM_AGENT_INTERVAL_MS: '200',
        ...(agentDb ? { DATABASE_URL: agentDb.url } : { LOOKOUT_DATA_DIR: dataDir! }),
      },
      { timeoutMs: 90_000 },
    )
    const created = await fetch(`${agent.url}/db/canaries`, {
      method: 'POST',
      headers: { Authorization: `Bearer ${AGENT_TOKEN}`, 'Content-Type': 'application/json', Prefer: 'return=representation' },
      body: JSON.stringify({ name: 'edge-probe', namespace: 'default', spec: { schedule: '@every 1s', http: [{ name: 'central-healthz', url: `${centralApp!.url}/healthz` }] } }),
    })
    expect(created.status, await created.clone().text()).toBe(201)
    const canaryId = ((await created.json()) as { id: string }[])[0]!.id

    const results = await waitFor(
      async () => {
        const { rows } = await central.db.query<{ check_id: string; agent_id: string; passed: number }>(
          `SELECT c.id::text AS check_id, c.agent_id::text, count(*) FILTER (WHERE s.status)::int AS passed
             FROM checks c JOIN check_statuses s ON s.check_id = c.id WHERE c.canary_id = $1 GROUP BY c.id`,
          [canaryId],
        )
        return rows[0] && rows[0].passed >= 2 ? rows[0] : undefined
      },
      60_000,
      `check results of the agent on the central instance\n${agent.output()}`,
    )
    expect(results.agent_id).toBe(generated.agent_id)

    // The central API shows them under the agent: filtered by agent, and counted on its summary.
    const checks = await request(centralApp!.app).get(`/api/db/checks?select=id,name,agent_id&agent_id=eq.${generated.agent_id}`).set(bearer)
    expect(checks.body).toEqual([{ id: results.check_id, name: 'central-healthz', agent_id: generated.agent_id }])
    const summary = await request(centralApp!.app).get(`/api/db/agents_summary?id=eq.${generated.agent_id}`).set(bearer)
    expect(summary.body[0]).toMatchObject({ name: 'edge-eu', checks_count: 1, status: 'online' })
    // The agent's own database marks what it has replicated.
    const { rows: local } = await central.db.query(`SELECT 1 FROM checks WHERE id = $1 AND agent_id = '00000000-0000-0000-0000-000000000000'`, [results.check_id])
    expect(local).toHaveLength(0)
  }, 180_000)
})

describe('the agent outbox', () => {
  let centralDb: TestDb
  let agentDb: TestDb
  const logger = createLogger('silent')

  beforeAll(async () => {
    centralDb = await createTestDb()
    agentDb = await createTestDb()
  })
  afterAll(async () => {
    await centralDb?.drop()
    await agentDb?.drop()
  })

  it('keeps rows pending while the central instance is down, pushes them once it answers, and re-pushes a row changed later', async () => {
    const canaryId = '66666666-6666-4666-8666-666666666666'
    const checkId = '77777777-7777-4777-8777-777777777777'
    await agentDb.db.query(`INSERT INTO canaries (id, name, namespace, spec) VALUES ($1, 'outbox', 'default', '{}')`, [canaryId])
    await agentDb.db.query(`INSERT INTO checks (id, canary_id, type, name, status) VALUES ($1, $2, 'http', 'outbox-check', 'healthy')`, [checkId, canaryId])
    await agentDb.db.query(
      `INSERT INTO check_statuses (check_id, time, status, duration) SELECT $1, now() - make_interval(secs => g), g % 2 = 0, g FROM generate_series(1, 25) g`,
      [checkId],
    )
    // Nothing listens on this port: every attempt fails and nothing is marked.
    const closed = http.createServer()
    await new Promise<void>((resolve) => closed.listen(0, '127.0.0.1', resolve))
    const deadPort = (closed.address() as AddressInfo).port
    await new Promise<void>((resolve) => closed.close(() => resolve()))

    const central = await startCentral(centralDb)
    try {
      const generated = await generate(central.app, 'outbox-agent')
      const down = createAgentPush({ db: agentDb.db, logger, url: `http://127.0.0.1:${deadPort}/api`, token: generated.access_token, batchSize: 10, intervalMs: 100 })
      await expect(down.drain()).rejects.toThrow()
      const pending = async () => (await agentDb.db.query<{ n: number }>('SELECT count(*)::int AS n FROM check_statuses WHERE NOT is_pushed')).rows[0]!.n
      expect(await pending()).toBe(25)

      // A new pusher, as after a restart: the state it resumes from is the database's.
      const up = createAgentPush({ db: agentDb.db, logger, url: `${central.url}/api`, token: generated.access_token, batchSize: 10, intervalMs: 100 })
      const round = await up.drain()
      expect(round.byTable).toEqual({ canaries: 1, checks: 1, check_statuses: 25 })
      // 25 statuses in batches of 10, plus the canary and the check.
      expect(round.requests).toBe(5)
      expect(await pending()).toBe(0)
      const stored = await centralDb.db.query<{ n: number }>('SELECT count(*)::int AS n FROM check_statuses WHERE check_id = $1', [checkId])
      expect(stored.rows[0]!.n).toBe(25)

      // A row that changes after its push is pending again (the is_pushed trigger) and goes up again.
      await agentDb.db.query(`UPDATE checks SET status = 'unhealthy' WHERE id = $1`, [checkId])
      expect((await up.drain()).byTable).toEqual({ checks: 1 })
      const check = await centralDb.db.query<{ status: string; agent_id: string }>('SELECT status, agent_id::text FROM checks WHERE id = $1', [checkId])
      expect(check.rows[0]).toEqual({ status: 'unhealthy', agent_id: generated.agent_id })
      expect((await up.drain()).rows).toBe(0)
    } finally {
      await central.close()
    }
  })
})
