import { spawnSync } from 'node:child_process'
import { existsSync } from 'node:fs'
import path from 'node:path'
import { afterAll, describe, expect, it } from 'vitest'
import { consoleProcessCount } from '#server/cluster.ts'
import { parseEnv } from '#server/env.ts'
import { createTestDb, TEST_ENGINE, type TestDb } from '#tests/support/test-db.ts'
import { ROOT, startProcess, type RunningProcess } from '#tests/support/processes.ts'

const TOKEN = 'console-processes-token-0123456789abcdef'

describe('how many console processes run', () => {
  const count = (vars: Record<string, string>) => consoleProcessCount(parseEnv({ NODE_ENV: 'production', ...vars }))
  it('runs one on PGlite and in development, whatever LOOKOUT_WORKERS says', () => {
    expect(count({ LOOKOUT_WORKERS: '4' })).toBe(1)
    expect(consoleProcessCount(parseEnv({ NODE_ENV: 'development', DATABASE_URL: 'postgres://x/y', LOOKOUT_WORKERS: '4' }))).toBe(1)
  })
  it('runs LOOKOUT_WORKERS on PostgreSQL, one per core for auto, one by default', () => {
    const url = { DATABASE_URL: 'postgres://x/y' }
    expect(count(url)).toBe(1)
    expect(count({ ...url, LOOKOUT_WORKERS: '3' })).toBe(3)
    expect(count({ ...url, LOOKOUT_WORKERS: 'auto' })).toBeGreaterThanOrEqual(1)
    expect(() => parseEnv({ LOOKOUT_WORKERS: 'many' })).toThrow(/LOOKOUT_WORKERS/)
  })
})

const children = (pid: number) =>
  spawnSync('pgrep', ['-P', String(pid)], { encoding: 'utf8' })
    .stdout.split('\n')
    .filter(Boolean)
    .map(Number)

async function until<T>(probe: () => T | undefined | Promise<T | undefined>, timeoutMs: number, what: string): Promise<T> {
  const started = Date.now()
  for (;;) {
    const value = await probe()
    if (value !== undefined) return value
    if (Date.now() - started > timeoutMs) throw new Error(`${what}: not within ${timeoutMs} ms`)
    await new Promise((resolve) => setTimeout(resolve, 100))
  }
}

describe.runIf(TEST_ENGINE === 'postgres')('two console processes on one PostgreSQL database', () => {
  let testDb: TestDb
  let primary: RunningProcess | undefined

  afterAll(async () => {
    if (primary?.child.pid && primary.child.exitCode === null) process.kill(primary.child.pid, 'SIGKILL')
    await testDb?.drop()
  })

  it('serves from both, replaces a worker that dies, and stops cleanly on SIGTERM', async () => {
    // The console's production build is what the workers serve (npm ci's prepare makes it).
    expect(existsSync(path.join(ROOT, 'build', 'server', 'index.js')), 'no console build: run `npm run build` first').toBe(true)
    testDb = await createTestDb()
    primary = await startProcess(
      'server.ts',
      {
        NODE_ENV: 'production',
        LOOKOUT_WORKERS: '2',
        LOOKOUT_ENGINE: 'off',
        LOOKOUT_DEMO_DATA: 'false',
        LOOKOUT_BOOTSTRAP_TOKEN: TOKEN,
        DATABASE_URL: testDb.url!,
      },
      { timeoutMs: 60_000 },
    )
    const base = primary.url
    // startProcess runs tsx, whose one child is the primary; the workers are the primary's.
    const pid = await until(() => children(primary!.child.pid!)[0], 10_000, 'the primary process')
    // The primary announces once, for both.
    expect(primary.output().match(/is running at/g)).toHaveLength(1)
    const workers = children(pid)
    expect(workers).toHaveLength(2)

    // A console session made by one process is honoured by the other (sessions live in PostgreSQL):
    // with keep-alive off, each call may land on either worker.
    const login = await fetch(`${base}/api/auth/login`, {
      method: 'POST',
      headers: { 'content-type': 'application/json', origin: base, connection: 'close' },
      body: JSON.stringify({ username: 'token', password: TOKEN }),
    })
    expect(login.status).toBe(200)
    const cookie = login.headers.getSetCookie().map((line) => line.split(';')[0]).join('; ')
    for (let call = 0; call < 10; call++) {
      const whoami = await fetch(`${base}/api/auth/whoami`, { headers: { cookie, connection: 'close' } })
      expect(whoami.status).toBe(200)
    }

    process.kill(workers[0]!, 'SIGKILL')
    const replaced = await until(() => {
      const now = children(pid)
      return now.length === 2 && !now.includes(workers[0]!) ? now : undefined
    }, 30_000, 'a replacement worker')
    expect(replaced).toContain(workers[1])
    await until(async () => ((await fetch(`${base}/healthz`, { headers: { connection: 'close' } })).ok ? true : undefined), 30_000, 'serving again')

    expect(await primary.stop()).toBe(0)
    expect(replaced.filter((pid) => spawnSync('kill', ['-0', String(pid)]).status === 0)).toEqual([])
  }, 120_000)
})
