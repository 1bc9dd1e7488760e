/**
 * bench/check-engine — what the check engine sustains. 10,000 HTTP checks (100 canaries × 100)
 * at `@every 30s` against a loopback HTTP server running in a separate process, so the figures
 * are the engine's own.
 *
 *   npx tsx bench/check-engine.ts                 (PostgreSQL server if reachable, else PGlite)
 *   BENCH_ENGINE=pglite|postgres BENCH_CHECKS=10000 BENCH_SLIP_SECONDS=65 BENCH_CONCURRENCY=200
 *
 * Prints: executions/s for the first wave (all checks due at once) in wall time and per CPU
 * second of the engine process (the "one core" figure), schedule slip p50/p99/max over the
 * steady-state ticks that follow, and peak RSS. Targets: ≥ 2,000/s per core, slip p99 < 1 s.
 */
import { spawn } from 'node:child_process'
import { randomBytes } from 'node:crypto'
import pg from 'pg'
import { pino } from 'pino'
import { createPGliteDb, createPostgresDb, type Db } from '../server/db/client.ts'
import { migrate } from '../server/db/migrate.ts'
import { applyCanary } from '../server/backend/health/canary-store.ts'
import { createCheckEngine } from '../server/backend/health/check-engine.ts'

const CHECKS = Number(process.env.BENCH_CHECKS ?? 10_000)
const PER_CANARY = 100
const SLIP_SECONDS = Number(process.env.BENCH_SLIP_SECONDS ?? 65)
const CONCURRENCY = Number(process.env.BENCH_CONCURRENCY ?? 200)
const PG_ADMIN = process.env.LOOKOUT_TEST_PG_URL ?? 'postgres://postgres@127.0.0.1:5432/postgres'

async function startPeer(): Promise<{ url: string; stop(): void }> {
  const script = `
    const http = require('node:http')
    const server = http.createServer((req, res) => { res.writeHead(200, { 'content-type': 'application/json' }); res.end('{"status":"ok"}') })
    server.keepAliveTimeout = 120000
    server.listen(0, '127.0.0.1', () => console.log('PORT ' + server.address().port))`
  const child = spawn(process.execPath, ['-e', script], { stdio: ['ignore', 'pipe', 'inherit'] })
  const port = await new Promise<number>((resolve) => {
    child.stdout!.on('data', (chunk: Buffer) => {
      const match = /PORT (\d+)/.exec(chunk.toString())
      if (match) resolve(Number(match[1]))
    })
  })
  return { url: `http://127.0.0.1:${port}`, stop: () => child.kill('SIGTERM') }
}

async function openDb(): Promise<{ db: Db; engine: string; drop(): Promise<void> }> {
  const wanted = process.env.BENCH_ENGINE
  if (wanted !== 'pglite') {
    try {
      const name = `lookout_bench_${randomBytes(4).toString('hex')}`
      const admin = new pg.Client({ connectionString: PG_ADMIN })
      await admin.connect()
      await admin.query(`CREATE DATABASE ${name}`)
      await admin.end()
      const url = new URL(PG_ADMIN)
      url.pathname = `/${name}`
      const db = await createPostgresDb(url.toString(), { max: 10 })
      return {
        db,
        engine: 'postgres',
        async drop() {
          await db.close()
          const again = new pg.Client({ connectionString: PG_ADMIN })
          await again.connect()
          await again.query(`DROP DATABASE IF EXISTS ${name} WITH (FORCE)`)
          await again.end()
        },
      }
    } catch (error) {
      if (wanted === 'postgres') throw error
    }
  }
  const db = await createPGliteDb(undefined)
  return { db, engine: 'pglite', drop: () => db.close() }
}

function percentile(sorted: number[], q: number): number {
  if (sorted.length === 0) return 0
  return sorted[Math.min(sorted.length - 1, Math.ceil(q * sorted.length) - 1)]!
}

async function main(): Promise<void> {
  const peer = await startPeer()
  const { db, engine: dbEngine, drop } = await openDb()
  await migrate(db)
  const logger = pino({ level: 'warn' })
  const seedStart = Date.now()
  for (let canary = 0; canary < CHECKS / PER_CANARY; canary += 1) {
    await applyCanary(db, {
      name: `bench-${canary}`,
      namespace: 'bench',
      labels: { bench: 'true' },
      annotations: null,
      spec: {
        schedule: '@every 30s',
        http: Array.from({ length: PER_CANARY }, (_, index) => ({ name: `check-${index}`, url: `${peer.url}/c${canary}/${index}`, responseCodes: [200] })),
      },
    }, { trustedWriter: 'server' })
  }
  console.log(`database ${dbEngine}; ${CHECKS} checks created in ${((Date.now() - seedStart) / 1000).toFixed(1)} s`)

  let peakRss = process.memoryUsage().rss
  const rssTimer = setInterval(() => { peakRss = Math.max(peakRss, process.memoryUsage().rss) }, 200)
  const engine = createCheckEngine({ db, logger, concurrency: CONCURRENCY, leaseMs: 60_000, pollIntervalMs: 250 })
  const cpuStart = process.cpuUsage()
  const wallStart = performance.now()
  await engine.start()
  while (engine.stats().executed < CHECKS) await new Promise((resolve) => setTimeout(resolve, 20))
  const wallSeconds = (performance.now() - wallStart) / 1000
  const cpu = process.cpuUsage(cpuStart)
  const cpuSeconds = (cpu.user + cpu.system) / 1e6
  const burst = engine.stats()
  console.log(`first wave: ${CHECKS} executions in ${wallSeconds.toFixed(2)} s wall = ${(CHECKS / wallSeconds).toFixed(0)}/s; ` +
    `engine CPU ${cpuSeconds.toFixed(2)} s = ${(CHECKS / cpuSeconds).toFixed(0)} executions per CPU-second (one core); failed ${burst.failed}`)

  const before = engine.stats().slipCount
  const steadyCpuStart = process.cpuUsage()
  console.log(`steady state: ${SLIP_SECONDS} s at @every 30s …`)
  await new Promise((resolve) => setTimeout(resolve, SLIP_SECONDS * 1000))
  const stats = engine.stats()
  const steadyCpu = process.cpuUsage(steadyCpuStart)
  const slips = stats.slipsMs.slice(-Math.min(stats.slipsMs.length, stats.slipCount - before)).sort((a, b) => a - b)
  const steadyRuns = stats.executed - burst.executed
  await engine.stop()
  clearInterval(rssTimer)
  const { rows } = await db.query<{ n: string }>('SELECT count(*)::text AS n FROM check_statuses')
  console.log(`steady runs ${steadyRuns} (${(steadyRuns / SLIP_SECONDS).toFixed(0)}/s, CPU ${(((steadyCpu.user + steadyCpu.system) / 1e6 / SLIP_SECONDS) * 100).toFixed(0)}% of one core); ` +
    `schedule slip p50 ${percentile(slips, 0.5)} ms, p99 ${percentile(slips, 0.99)} ms, max ${slips[slips.length - 1] ?? 0} ms over ${slips.length} runs`)
  console.log(`status rows stored ${rows[0]!.n}; failed runs ${stats.failed}; peak RSS ${(peakRss / 1024 / 1024).toFixed(0)} MiB`)
  await drop()
  peer.stop()
}

main().catch((error: unknown) => {
  console.error(error)
  process.exit(1)
})
