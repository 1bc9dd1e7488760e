/**
 * bench/credentials — what resolving a caller costs, with the credential cache off
 * (LOOKOUT_CREDENTIAL_CACHE_TTL_MS=0, the behaviour before issue 13 item 2) and on (default).
 * Two figures per engine, alternating rounds so both settings see the same machine state:
 *   - resolve: one access token and one console session resolved back to back, in process
 *     (p50/p99 µs per resolution, database statements per resolution);
 *   - http: GET /api/auth/whoami with a person's token (not the bootstrap token, which never
 *     reaches the database), requests/s and p99 at saturation.
 *
 *   npx tsx bench/credentials.ts     (PostgreSQL server if reachable, then PGlite)
 *   BENCH_SECONDS=5 BENCH_ROUNDS=3 BENCH_RESOLUTIONS=2000
 */
import type { AddressInfo } from 'node:net'
import autocannon from 'autocannon'
import { scratchDatabase } from './support/scratch-database.ts'
import { createPGliteDb, createPostgresDb, type Db } from '#server/db/client.ts'
import { migrate } from '#server/db/migrate.ts'
import { createTestApp } from '../tests/support/test-app.ts'
import { personWith } from '../tests/rbac/rbac-fixture.ts'

const SECONDS = Number(process.env.BENCH_SECONDS ?? 5)
const ROUNDS = Number(process.env.BENCH_ROUNDS ?? 3)
const RESOLUTIONS = Number(process.env.BENCH_RESOLUTIONS ?? 2000)
const CONNECTIONS = Number(process.env.BENCH_CONNECTIONS ?? 16)

type Setting = 'off' | 'on'
type Figures = { p50us: number; p99us: number; statements: number; rps: number; httpP99: number; errors: number }

function percentile(values: number[], share: number): number {
  const sorted = [...values].sort((a, b) => a - b)
  return sorted[Math.min(sorted.length - 1, Math.floor(sorted.length * share))]!
}

function median(values: number[]): number {
  return percentile(values, 0.5)
}

function counting(db: Db): Db & { count: number } {
  const wrapped = {
    ...db,
    count: 0,
    query(text: string, params?: readonly unknown[]) {
      wrapped.count++
      return db.query(text, params)
    },
  }
  return wrapped as Db & { count: number }
}

async function measure(db: Db, setting: Setting): Promise<Figures> {
  const counted = counting(db)
  const built = createTestApp(counted, { LOOKOUT_CREDENTIAL_CACHE_TTL_MS: setting === 'on' ? '5000' : '0' })
  const person = await personWith(db, ['viewer'], `bench-${setting}`)
  const store = built.backend.credentials
  const principal = (await store.resolveAccessToken(person.token))!
  const session = await store.createSession(principal, {})
  if (setting === 'on') {
    const started = Date.now()
    while (!built.backend.credentialCache.serving && Date.now() - started < 5000) await new Promise((resolve) => setTimeout(resolve, 10))
  }
  await store.checkAccessToken(person.token)
  await store.resolveSession(session.id)

  const micros: number[] = []
  counted.count = 0
  for (let i = 0; i < RESOLUTIONS; i++) {
    let started = process.hrtime.bigint()
    await store.checkAccessToken(person.token)
    micros.push(Number(process.hrtime.bigint() - started) / 1000)
    started = process.hrtime.bigint()
    await store.resolveSession(session.id)
    micros.push(Number(process.hrtime.bigint() - started) / 1000)
  }
  const statements = counted.count / (2 * RESOLUTIONS)

  const server = built.app.listen(0, '127.0.0.1')
  await new Promise((resolve) => server.once('listening', resolve))
  const { port } = server.address() as AddressInfo
  try {
    const result = await autocannon({
      url: `http://127.0.0.1:${port}/api/auth/whoami`,
      connections: CONNECTIONS,
      duration: SECONDS,
      headers: { authorization: `Bearer ${person.token}`, accept: 'application/json' },
    })
    return {
      p50us: percentile(micros, 0.5),
      p99us: percentile(micros, 0.99),
      statements,
      rps: result.requests.average,
      httpP99: result.latency.p99,
      errors: result.errors + result.non2xx,
    }
  } finally {
    await new Promise((resolve) => server.close(resolve))
    await built.backend.credentialCache.close()
  }
}

async function benchEngine(name: string, db: Db): Promise<void> {
  const figures: Record<Setting, Figures[]> = { off: [], on: [] }
  for (let round = 0; round < ROUNDS; round++) {
    for (const setting of ['off', 'on'] as const) figures[setting].push(await measure(db, setting))
  }
  console.log(`\n${name} (${ROUNDS} rounds, medians; ${RESOLUTIONS} token + ${RESOLUTIONS} session resolutions, ${SECONDS} s of HTTP at ${CONNECTIONS} connections)`)
  console.log('cache | resolve p50 µs | resolve p99 µs | statements/resolution | whoami req/s | whoami p99 ms | errors')
  for (const setting of ['off', 'on'] as const) {
    const rows = figures[setting]
    const pick = (key: keyof Figures) => median(rows.map((row) => row[key]))
    console.log(
      [
        setting.padEnd(5),
        pick('p50us').toFixed(0).padStart(14),
        pick('p99us').toFixed(0).padStart(14),
        pick('statements').toFixed(2).padStart(21),
        pick('rps').toFixed(0).padStart(12),
        pick('httpP99').toFixed(1).padStart(13),
        String(rows.reduce((sum, row) => sum + row.errors, 0)).padStart(6),
      ].join(' | '),
    )
  }
}

async function main(): Promise<void> {
  const database = await scratchDatabase('lookout_bench')
  if (database) {
    const db = await createPostgresDb(database.url, { max: 10 })
    try {
      await migrate(db)
      await benchEngine('PostgreSQL', db)
    } finally {
      await db.close()
      await database.drop()
    }
  }
  const lite = await createPGliteDb(undefined)
  try {
    await migrate(lite)
    await benchEngine('PGlite', lite)
  } finally {
    await lite.close()
  }
}

main().catch((error) => {
  console.error(error)
  process.exitCode = 1
})
