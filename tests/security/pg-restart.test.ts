import { execFile } from 'node:child_process'
import { chownSync, existsSync, mkdtempSync, readdirSync, rmSync } from 'node:fs'
import { createServer } from 'node:net'
import { tmpdir } from 'node:os'
import path from 'node:path'
import { promisify } from 'node:util'
import { Writable } from 'node:stream'
import pg from 'pg'
import { pino } from 'pino'
import { afterAll, beforeAll, describe, expect, it } from 'vitest'
import { createEventConsumer } from '#server/backend/events/event-consumer.ts'
import { createCheckEngine } from '#server/backend/health/check-engine.ts'
import type { Db } from '#server/db/client.ts'
import { ensureConsoleBuild } from '#tests/support/console-build.ts'
import { startProcess, type RunningProcess } from '#tests/support/processes.ts'
import { createTestDb, TEST_ENGINE, type TestDb } from '#tests/support/test-db.ts'
import { applyYaml, canaryYaml, startLocalServer, testEngine, waitFor as waitUntil, type LocalServer } from '#tests/health/health-fixtures.ts'

/**
 * Issue 10, finding 8: a PostgreSQL restart under a write burst killed the process (a checked-out
 * client's 'error' event had no listener), requests during the outage got 500s, and the engines
 * logged a failure on every tick. Now the process lives, the outage answers 503 in PostgREST's
 * shape, /readyz follows it, and every acknowledged write is still there afterwards.
 */

const run = promisify(execFile)
const sleep = (ms: number) => new Promise((resolve) => setTimeout(resolve, ms))

/** Log lines a test can count. */
function capturingLogger() {
  const lines: { level: number; msg: string; component?: string }[] = []
  const stream = new Writable({
    write(chunk: Buffer, _encoding, done) {
      for (const line of chunk.toString().split('\n').filter(Boolean)) lines.push(JSON.parse(line) as (typeof lines)[number])
      done()
    },
  })
  return { logger: pino({ level: 'info' }, stream), lines }
}

/** The test's Db with a switch that makes every call fail as a refused connection does. */
function switchableDb(inner: Db) {
  const state = { down: false, refused: 0 }
  const refuse = () => {
    state.refused += 1
    return Promise.reject(Object.assign(new Error('connect ECONNREFUSED 127.0.0.1:5432'), { code: 'ECONNREFUSED' }))
  }
  const db: Db = {
    engine: inner.engine,
    query: (text, params) => (state.down ? refuse() : inner.query(text, params)),
    exec: (text) => (state.down ? refuse() : inner.exec(text)),
    transaction: (fn) => (state.down ? refuse() : inner.transaction(fn)),
    poolStats: () => inner.poolStats(),
    close: () => inner.close(),
  }
  return { db, state }
}

async function waitFor(condition: () => boolean | Promise<boolean>, timeoutMs: number): Promise<boolean> {
  const deadline = Date.now() + timeoutMs
  while (Date.now() < deadline) {
    if (await condition()) return true
    await sleep(50)
  }
  return false
}

describe('engines across a database outage', () => {
  let testDb: TestDb
  beforeAll(async () => {
    testDb = await createTestDb()
  })
  afterAll(async () => {
    await testDb?.drop()
  })

  it('the event consumer pauses (one log line, backoff) and resumes by itself', async () => {
    const { db, state } = switchableDb(testDb.db)
    const { logger, lines } = capturingLogger()
    const handled: string[] = []
    const consumer = createEventConsumer({
      db,
      logger,
      pollMs: 20,
      handlers: { 'test.outage': async (event) => void handled.push(event.eventId ?? '') },
    })
    await consumer.start()
    try {
      state.down = true
      await sleep(1_500)
      // Polling every 20 ms would be ~75 refused attempts; the backoff keeps it to a few.
      expect(state.refused).toBeGreaterThan(0)
      expect(state.refused).toBeLessThanOrEqual(8)
      expect(lines.filter((line) => line.msg.startsWith('database unreachable'))).toHaveLength(1)
      expect(lines.filter((line) => line.msg === 'event queue poll failed')).toHaveLength(0)

      await testDb.db.query('INSERT INTO event_queue (name, event_id) VALUES ($1, $2)', ['test.outage', '0190f0f0-0000-7000-8000-00000000a001'])
      state.down = false
      expect(await waitFor(() => handled.length === 1, 15_000)).toBe(true)
      expect(handled).toEqual(['0190f0f0-0000-7000-8000-00000000a001'])
      expect(await waitFor(() => lines.some((line) => line.msg.startsWith('database reachable again')), 5_000)).toBe(true)
    } finally {
      state.down = false
      await consumer.stop()
    }
  })

  it('the check engine pauses its loops (one log line, backoff) and resumes by itself', async () => {
    const { db, state } = switchableDb(testDb.db)
    const { logger, lines } = capturingLogger()
    const engine = createCheckEngine({ db, logger, pollIntervalMs: 20, flushIntervalMs: 20, syncIntervalMs: 50, leaseMs: 600, stopGraceMs: 100 })
    await engine.start()
    try {
      state.down = true
      await sleep(1_500)
      // Four loops at 20–200 ms would be well over a hundred refused attempts.
      expect(state.refused).toBeGreaterThan(0)
      expect(state.refused).toBeLessThanOrEqual(12)
      const failures = lines.filter((line) => line.level >= 40)
      expect(failures.map((line) => line.msg)).toEqual([expect.stringMatching(/^database unreachable/)])
      state.down = false
      expect(await waitFor(() => lines.some((line) => line.msg.startsWith('database reachable again')), 15_000)).toBe(true)
    } finally {
      state.down = false
      await engine.stop()
    }
  })
})

describe('a check run whose stored answer was lost with the connection', () => {
  let testDb: TestDb
  let target: LocalServer
  beforeAll(async () => {
    testDb = await createTestDb()
    target = await startLocalServer((_req, res) => void res.writeHead(200).end('ok'))
  })
  afterAll(async () => {
    await target?.close()
    await testDb?.drop()
  })

  it('is found stored and not recorded a second time', async () => {
    const { canaryId, checks } = await applyYaml(testDb.db, canaryYaml('lost-ack', `  http:\n    - {name: ping, url: "${target.url}/"}\n`, '@every 1s'))
    const checkId = checks.get('ping')!
    const state = { loseAcks: 1 }
    // The store commits, then the connection drops before the answer: the engine cannot tell.
    const db: Db = {
      ...testDb.db,
      transaction: async (fn) => {
        let stores = false
        const result = await testDb.db.transaction((tx) =>
          fn({
            query: (text, params) => {
              if (text.includes('INSERT INTO check_statuses')) stores = true
              return tx.query(text, params)
            },
            exec: (text) => tx.exec(text),
          }),
        )
        if (stores && state.loseAcks > 0) {
          state.loseAcks -= 1
          throw new Error('Connection terminated unexpectedly')
        }
        return result
      },
    }
    const engine = testEngine(db, { minIntervalMs: 1_000 })
    await engine.start()
    const count = async () => {
      const statuses = await testDb.db.query<{ n: number }>('SELECT count(*)::int AS n FROM check_statuses WHERE check_id = $1', [checkId])
      const jobs = await testDb.db.query<{ n: number }>("SELECT count(*)::int AS n FROM job_history WHERE name = 'Canary' AND resource_id = $1", [canaryId])
      return { statuses: statuses.rows[0]!.n, jobs: jobs.rows[0]!.n }
    }
    try {
      await waitUntil(async () => state.loseAcks === 0 && (await count()).statuses >= 3, 20_000)
    } finally {
      await engine.stop()
    }
    // One job row per stored run: the retried batch found its run stored and wrote nothing more.
    const { statuses, jobs } = await count()
    expect(statuses).toBeGreaterThanOrEqual(3)
    expect(jobs).toBe(statuses)
  }, 30_000)
})

// A private cluster, so the shared server on 5432 (every other test's) is never restarted.
function postgresBinaries(): string | null {
  const root = '/usr/lib/postgresql'
  if (!existsSync(root)) return null
  const versions = readdirSync(root).filter((name) => existsSync(path.join(root, name, 'bin', 'pg_ctl'))).sort((a, b) => Number(b) - Number(a))
  return versions[0] ? path.join(root, versions[0], 'bin') : null
}

const BIN = postgresBinaries()
const IS_ROOT = process.getuid?.() === 0

async function freePort(): Promise<number> {
  return new Promise((resolve, reject) => {
    const server = createServer()
    server.once('error', reject)
    server.listen(0, '127.0.0.1', () => {
      const { port } = server.address() as { port: number }
      server.close(() => resolve(port))
    })
  })
}

type Cluster = { url: string; dir: string; ctl(...args: string[]): Promise<void> }

async function startCluster(bin: string): Promise<Cluster> {
  const dir = mkdtempSync(path.join(tmpdir(), 'lookout-pg-restart-'))
  const data = path.join(dir, 'data')
  const port = await freePort()
  // initdb refuses to run as root: the cluster belongs to the postgres account then.
  const asOwner = async (command: string, args: string[]) => {
    if (IS_ROOT) await run('runuser', ['-u', 'postgres', '--', path.join(bin, command), ...args])
    else await run(path.join(bin, command), args)
  }
  if (IS_ROOT) {
    const { stdout } = await run('id', ['-u', 'postgres'])
    const { stdout: gid } = await run('id', ['-g', 'postgres'])
    chownSync(dir, Number(stdout.trim()), Number(gid.trim()))
  }
  await asOwner('initdb', ['-D', data, '-A', 'trust', '-U', 'postgres', '--no-sync', '-E', 'UTF8'])
  const options = `-p ${port} -c listen_addresses=127.0.0.1 -c unix_socket_directories=${dir} -c max_connections=40`
  const ctl = (...args: string[]) => asOwner('pg_ctl', ['-D', data, '-l', path.join(dir, 'server.log'), '-o', options, ...args])
  await ctl('-w', 'start')
  const admin = new pg.Client({ connectionString: `postgres://postgres@127.0.0.1:${port}/postgres` })
  await admin.connect()
  await admin.query('CREATE DATABASE lookout')
  await admin.end()
  return { url: `postgres://postgres@127.0.0.1:${port}/lookout`, dir, ctl }
}

type Outcome = { status: number; body: unknown; at: number } | { dropped: string; at: number }

// Needs no PGlite, so it runs in the postgres pass only; skipped where the PostgreSQL server
// binaries (initdb, pg_ctl) are not installed.
describe.skipIf(TEST_ENGINE !== 'postgres' || !BIN)('PostgreSQL restart under a write burst (private cluster; postgres pass, needs /usr/lib/postgresql/*/bin)', () => {
  const token = 'pg-restart-bootstrap-token-0123456789'
  let cluster: Cluster | undefined
  let server: RunningProcess | undefined

  beforeAll(async () => {
    await ensureConsoleBuild()
    cluster = await startCluster(BIN!)
    // The whole console process: gateway, embedded backend, engines and pages.
    server = await startProcess('server.ts', {
      NODE_ENV: 'production',
      DATABASE_URL: cluster.url,
      LOOKOUT_DEMO_DATA: 'false',
      LOOKOUT_BOOTSTRAP_TOKEN: token,
      LOOKOUT_DB_POOL_MAX: '6',
      LOG_LEVEL: 'warn',
    })
  }, 300_000)

  afterAll(async () => {
    await server?.stop()
    if (cluster) {
      await cluster.ctl('-m', 'immediate', 'stop').catch(() => undefined)
      rmSync(cluster.dir, { recursive: true, force: true })
    }
  }, 60_000)

  it('keeps the process alive, answers 503 during the outage, resumes, and keeps every acknowledged write', async () => {
    const base = server!.url
    const outcomes: (Outcome & { name: string })[] = []
    const ready: { status: number; at: number; body: string }[] = []
    let writing = true
    let sequence = 0

    const writer = async () => {
      while (writing) {
        sequence += 1
        const name = `restart-${sequence}`
        const at = Date.now()
        try {
          const response = await fetch(`${base}/api/db/connections`, {
            method: 'POST',
            headers: { authorization: `Bearer ${token}`, 'content-type': 'application/json', prefer: 'return=representation' },
            body: JSON.stringify({ name, type: 'http', url: 'http://example.invalid' }),
            signal: AbortSignal.timeout(20_000),
          })
          const text = await response.text()
          let body: unknown = text
          try { body = JSON.parse(text) } catch { /* not JSON: kept as text for the assertion */ }
          outcomes.push({ name, status: response.status, body, at })
        } catch (error) {
          outcomes.push({ name, dropped: (error as Error).message, at })
        }
      }
    }
    const poller = async () => {
      while (writing) {
        const response = await fetch(`${base}/readyz`, { signal: AbortSignal.timeout(20_000) }).catch(() => null)
        ready.push({ status: response?.status ?? 0, at: Date.now(), body: (await response?.text().catch(() => '')) ?? '' })
        await sleep(100)
      }
    }

    const work = Promise.all([writer(), writer(), writer(), writer(), poller()])
    await sleep(1_500)
    const stopAt = Date.now()
    await cluster!.ctl('-m', 'fast', '-w', 'stop')
    await sleep(1_000)
    // Pages and the other APIs say the same: 503, never 500.
    const pages = await Promise.all(
      ['/health', '/settings/connections', '/api/auth/whoami', '/api/canary/api/summary'].map(async (page) => {
        const response = await fetch(`${base}${page}`, { headers: { authorization: `Bearer ${token}`, accept: page.startsWith('/api') ? 'application/json' : 'text/html' } })
        return { page, status: response.status, body: await response.text() }
      }),
    )
    await sleep(1_000)
    await cluster!.ctl('-w', 'start')
    const startedAt = Date.now()
    // Service comes back by itself: wait for acknowledged writes begun after the restart.
    const resumed = await waitFor(() => outcomes.filter((o) => 'status' in o && o.status === 201 && o.at > startedAt).length >= 5, 30_000)
    await sleep(500)
    writing = false
    await work

    expect(pages.map(({ page, status }) => [page, status])).toEqual(pages.map(({ page }) => [page, 503]))
    expect(JSON.parse(pages.find(({ page }) => page === '/api/auth/whoami')!.body)).toEqual({ error: 'database_unavailable', message: expect.stringMatching(/database/) })
    expect(server!.child.exitCode).toBeNull()
    expect((await fetch(`${base}/healthz`)).status).toBe(200)
    expect(resumed).toBe(true)

    const dropped = outcomes.filter((o) => 'dropped' in o)
    expect(dropped).toEqual([])
    const answered = outcomes.filter((o): o is Extract<Outcome, { status: number }> & { name: string } => 'status' in o)
    const failures = answered.filter((o) => o.status !== 201)
    // Every failure is the outage, in PostgREST's connection-error shape; never a 500.
    expect(failures.length).toBeGreaterThan(0)
    for (const failure of failures) {
      expect([503, 504]).toContain(failure.status)
      expect(failure.body).toMatchObject({ code: expect.stringMatching(/^PGRST00[013]$/), message: expect.stringMatching(/connection/i), hint: null })
    }
    expect(answered.filter((o) => o.status === 201 && o.at < stopAt).length).toBeGreaterThan(0)

    const down = ready.find((probe) => probe.status === 503 && probe.at > stopAt)
    expect(down).toBeDefined()
    expect(JSON.parse(down!.body)).toMatchObject({ status: 'not ready', checks: { database: expect.stringMatching(/^unreachable: /) } })
    // /readyz is public: it does not tell the world where the database lives.
    expect(down!.body).not.toContain(new URL(cluster!.url).port)
    expect((await fetch(`${base}/readyz`)).status).toBe(200)

    const acknowledged = answered.filter((o) => o.status === 201).map((o) => o.name)
    const check = new pg.Client({ connectionString: cluster!.url })
    await check.connect()
    try {
      const { rows } = await check.query<{ name: string }>('SELECT name FROM connections WHERE name = ANY($1::text[])', [acknowledged])
      expect(new Set(rows.map((row) => row.name))).toEqual(new Set(acknowledged))
    } finally {
      await check.end()
    }

    // The engines paused instead of failing every tick.
    const output = server!.output()
    expect(output).not.toMatch(/claiming due checks failed|event queue poll failed|uncaught/i)
  }, 120_000)
})
