/**
 * bench/start-time — how long `npm start` takes to serve its first signed-in page (issue 13,
 * item 7): on an empty data directory (the demo estate is loaded), then a restart on the same
 * one. Targets: first page ≤ 5 s after `npm start` on the first start, ≤ 3 s on a restart.
 *
 *   npm run bench:start-time            (PGlite, then PostgreSQL on 127.0.0.1:5432 if reachable)
 *   BENCH_DB=pglite|postgres            (one engine only)
 *   BENCH_TREE=<dir>                    (measure that checkout instead of this one)
 *   BENCH_ROUNDS=3                      (first start + restart that many times per checkout,
 *                                        alternating with the before checkout; the round with
 *                                        the median first start is the one shown and judged)
 *   BENCH_BEFORE=<dir>                  (also another checkout, e.g. `git archive <commit>` with
 *                                        node_modules linked; each engine's row is measured on it
 *                                        first and after ÷ before is printed)
 *
 * Each start spawns `npm start` itself — npm, scripts/ensure-build.mjs, cross-env and the server,
 * exactly what a person types — with PORT=0, an empty LOOKOUT_DATA_DIR and a known
 * LOOKOUT_BOOTSTRAP_TOKEN. Once the console prints its URL the bench signs in like a browser
 * (POST /api/auth/login with the token) and asks for /health with the session cookie; the start
 * time is spawn → that page's 200. The server's 'listening' log line carries when each of its
 * start-up steps ended (server/boot.ts StartupClock, ms since its process began), which splits
 * the time into phases. The restart must neither migrate nor seed; the bench fails if it did.
 * The PostgreSQL row runs against a scratch database (DATABASE_URL), dropped afterwards.
 *
 * The build (build/ and the PGlite template) is made current first, as `npm ci` leaves it, and
 * the shared build lock is held for the whole run, so the starts measure starting, not building.
 *
 * Baseline in the same run: spawning `node -e ''` to its exit (the median of five), the least a
 * process start can cost on this machine at this load; each start is also given as a multiple of it.
 */
import { spawn, spawnSync, type ChildProcess } from 'node:child_process'
import { mkdtempSync, rmSync } from 'node:fs'
import os from 'node:os'
import path from 'node:path'
import readline from 'node:readline'
import { scratchDatabase } from './support/scratch-database.ts'
import { signInWithToken } from './support/sign-in.ts'

// The checkout measured: this one, or BENCH_TREE (a snapshot, e.g. `git archive`, which others'
// edits of a shared checkout cannot make stale mid-run).
const ROOT = path.resolve(process.env.BENCH_TREE ?? path.join(import.meta.dirname, '..'))
const BEFORE = process.env.BENCH_BEFORE ? path.resolve(process.env.BENCH_BEFORE) : undefined
const TOKEN = 'bench-start-time-bootstrap-token-0123456789'
const TARGETS = { firstMs: 5000, restartMs: 3000 }
const START_TIMEOUT_MS = 120_000

type Startup = {
  startedAt: number
  pid: number
  steps: Record<string, number>
  migrationsApplied: number
  seeded: boolean
}

type StartMeasure = {
  totalMs: number
  /** Phase name → ms, in order; they add up to totalMs. */
  phases: [string, number][]
  startup: Startup
}

// The server's steps (server.ts, server/boot.ts) in the order they happen, with the phase each ends.
const STEPS: [step: string, phase: string][] = [
  ['imported', 'loading (build check, server modules ‖ template copy)'],
  ['template', 'PGlite template copy'],
  ['opened', 'database open'],
  ['migrated', 'migrations'],
  ['seeded', 'demo seed'],
  ['console', 'console + backend'],
  ['listening', 'listen'],
  ['ready', 'workers + first-start notes'],
]

const loadAverage = () =>
  os
    .loadavg()
    .map((value) => value.toFixed(2))
    .join(' ')

function median(values: number[]): number {
  const sorted = [...values].sort((a, b) => a - b)
  return sorted[Math.floor(sorted.length / 2)]!
}

function commit(root = ROOT): string {
  const result = spawnSync('git', ['rev-parse', '--short', 'HEAD'], { cwd: root, encoding: 'utf8' })
  return result.status === 0 ? result.stdout.trim() : 'unknown'
}

function nodeSpawnMs(): number {
  const runs: number[] = []
  for (let i = 0; i < 5; i++) {
    const started = performance.now()
    spawnSync(process.execPath, ['-e', ''])
    runs.push(performance.now() - started)
  }
  return median(runs)
}

/**
 * Holds the shared build lock (/tmp/lookout-e2e.lock) until released: no one rebuilds build/
 * under the starts being measured, and no browser run loads the machine meanwhile.
 */
async function holdBuildLock(): Promise<() => void> {
  const holder = spawn('flock', ['/tmp/lookout-e2e.lock', 'sh', '-c', 'echo locked; exec cat'], { stdio: ['pipe', 'pipe', 'inherit'] })
  await new Promise<void>((resolve, reject) => {
    holder.stdout!.once('data', () => resolve())
    holder.once('exit', (code) => reject(new Error(`flock exited with ${code}`)))
  })
  return () => holder.stdin!.end()
}

/** What `npm ci` leaves behind (the prepare script): a current build/ and PGlite template. */
function ensureBuild(root: string): void {
  const result = spawnSync(process.execPath, [path.join(root, 'scripts', 'ensure-build.mjs')], { cwd: root, stdio: 'inherit' })
  if (result.status !== 0) throw new Error('scripts/ensure-build.mjs failed')
}

type Running = { child: ChildProcess; url: string; startup: Startup; output: string[]; stop(): Promise<void> }

/** Spawns `npm start`; resolves once the server has logged 'listening' with its start-up steps. */
async function startConsole(root: string, env: Record<string, string>): Promise<Running & { spawnedAt: number }> {
  const spawnedAt = Date.now()
  const child = spawn('npm', ['start'], {
    cwd: root,
    // Its own process group, so a failed run can be cleaned up whole.
    detached: true,
    env: { ...process.env, PORT: '0', HOST: '127.0.0.1', LOG_LEVEL: 'info', LOOKOUT_BOOTSTRAP_TOKEN: TOKEN, ...env },
    stdio: ['ignore', 'pipe', 'pipe'],
  })
  const output: string[] = []
  const exited = new Promise<void>((resolve) => child.once('exit', () => resolve()))
  const ready = new Promise<{ url: string; startup: Startup }>((resolve, reject) => {
    let url: string | undefined
    const timer = setTimeout(() => reject(new Error(`npm start did not listen within ${START_TIMEOUT_MS / 1000} s`)), START_TIMEOUT_MS)
    for (const stream of [child.stdout!, child.stderr!]) {
      readline.createInterface({ input: stream }).on('line', (line) => {
        output.push(line)
        url ??= /running at (http:\/\/127\.0\.0\.1:\d+)/.exec(line)?.[1]
        if (!line.startsWith('{')) return
        let entry: { msg?: string; startup?: Startup }
        try {
          entry = JSON.parse(line) as typeof entry
        } catch {
          return
        }
        if (entry.msg === 'listening' && entry.startup && url) {
          clearTimeout(timer)
          resolve({ url, startup: entry.startup })
        }
      })
    }
    void exited.then(() => {
      clearTimeout(timer)
      reject(new Error(`npm start exited before listening:\n${output.slice(-30).join('\n')}`))
    })
  })
  let startup: { url: string; startup: Startup }
  try {
    startup = await ready
  } catch (error) {
    if (child.exitCode === null) process.kill(-child.pid!, 'SIGKILL')
    throw error
  }
  return {
    child,
    spawnedAt,
    output,
    ...startup,
    async stop() {
      if (child.exitCode !== null) return
      // Only the server itself: npm and tsx would pass a group-wide signal on as a second one,
      // which makes the server exit without closing its database.
      process.kill(startup.startup.pid, 'SIGTERM')
      const killer = setTimeout(() => process.kill(-child.pid!, 'SIGKILL'), 30_000)
      await exited
      clearTimeout(killer)
    },
  }
}

const signIn = (base: string) => signInWithToken(base, TOKEN)

/** One start: spawn → the signed-in /health page, split into phases. Leaves the console running. */
async function measureStart(root: string, env: Record<string, string>): Promise<StartMeasure & { running: Running }> {
  const running = await startConsole(root, env)
  const cookie = await signIn(running.url)
  const page = await fetch(`${running.url}/health`, { headers: { cookie, accept: 'text/html' } })
  await page.arrayBuffer()
  const answeredAt = Date.now()
  if (page.status !== 200) throw new Error(`/health answered ${page.status} after sign-in`)

  const { startup } = running
  const rebuilt = running.output.filter((line) => line.startsWith('Building the'))
  if (rebuilt.length > 0) {
    throw new Error(`npm start in ${root} rebuilt (${rebuilt.join(' ')}): sources changed during the run, so this start measured a build; run the bench again`)
  }
  const processStart = startup.startedAt - running.spawnedAt
  const phases: [string, number][] = [["launch (spawn → the server's own Node process)", processStart]]
  let previous = 0
  for (const [step, phase] of STEPS) {
    const at = startup.steps[step]
    if (at === undefined) continue
    phases.push([phase, at - previous])
    previous = at
  }
  phases.push(['sign-in + first /health', answeredAt - (startup.startedAt + previous)])
  return { totalMs: answeredAt - running.spawnedAt, phases, startup, running }
}

type Row = { engine: string; first: StartMeasure; restart: StartMeasure; baseline?: boolean; medianRestartMs?: number }

async function measureEngine(root: string, engine: string, databaseUrl: string | undefined): Promise<Row> {
  const dataDir = mkdtempSync(path.join(os.tmpdir(), `lookout-bench-start-${engine}-`))
  const env: Record<string, string> = { LOOKOUT_DATA_DIR: dataDir }
  if (databaseUrl) env.DATABASE_URL = databaseUrl
  let running: Running | undefined
  try {
    const first = await measureStart(root, env)
    running = first.running
    await running.stop()
    const restart = await measureStart(root, env)
    running = restart.running
    await running.stop()
    running = undefined
    return { engine, first, restart }
  } finally {
    await running?.stop().catch(() => undefined)
    rmSync(dataDir, { recursive: true, force: true })
  }
}

function printRow(row: Row, baselineMs: number): string[] {
  const failures: string[] = []
  const width = 58
  console.log(`\n${row.engine}`)
  console.log(`  ${'phase'.padEnd(width)} ${'first start'.padStart(12)} ${'restart'.padStart(10)}`)
  const names = [...new Set([...row.first.phases, ...row.restart.phases].map(([name]) => name))]
  for (const name of names) {
    const first = row.first.phases.find(([phase]) => phase === name)?.[1]
    const restart = row.restart.phases.find(([phase]) => phase === name)?.[1]
    const cell = (ms: number | undefined, size: number) => (ms === undefined ? '—' : `${ms} ms`).padStart(size)
    console.log(`  ${name.padEnd(width)} ${cell(first, 12)} ${cell(restart, 10)}`)
  }
  const total = (measure: StartMeasure, size: number) => `${measure.totalMs} ms`.padStart(size)
  console.log(`  ${'spawn → signed-in /health 200'.padEnd(width)} ${total(row.first, 12)} ${total(row.restart, 10)}`)
  const ratio = (measure: StartMeasure, size: number) => `${(measure.totalMs / baselineMs).toFixed(1)}×`.padStart(size)
  console.log(`  ${"… as a multiple of `node -e ''`".padEnd(width)} ${ratio(row.first, 12)} ${ratio(row.restart, 10)}`)
  console.log(
    `  ${'migrations applied / demo estate seeded'.padEnd(width)} ${`${row.first.startup.migrationsApplied} / ${row.first.startup.seeded ? 'yes' : 'no'}`.padStart(12)} ${`${row.restart.startup.migrationsApplied} / ${row.restart.startup.seeded ? 'yes' : 'no'}`.padStart(10)}`,
  )
  const met = (ms: number, target: number) => (ms <= target ? 'met' : 'MISSED')
  console.log(
    `  targets: first start ≤ ${TARGETS.firstMs} ms ${met(row.first.totalMs, TARGETS.firstMs)}; restart ≤ ${TARGETS.restartMs} ms ${met(row.medianRestartMs ?? row.restart.totalMs, TARGETS.restartMs)}` +
      (row.medianRestartMs !== undefined && row.medianRestartMs !== row.restart.totalMs ? ` (median restart ${row.medianRestartMs} ms)` : ''),
  )
  if (row.baseline) return []
  if (row.first.totalMs > TARGETS.firstMs) failures.push(`${row.engine} first start ${row.first.totalMs} ms > ${TARGETS.firstMs} ms`)
  const restartMs = row.medianRestartMs ?? row.restart.totalMs
  if (restartMs > TARGETS.restartMs) failures.push(`${row.engine} restart ${restartMs} ms > ${TARGETS.restartMs} ms`)
  if (!row.first.startup.seeded) failures.push(`${row.engine}: the first start did not load the demo estate`)
  if (row.restart.startup.migrationsApplied > 0 || row.restart.startup.seeded) {
    failures.push(`${row.engine}: the restart migrated or seeded again`)
  }
  return failures
}

async function main(): Promise<void> {
  const only = process.env.BENCH_DB
  const releaseLock = await holdBuildLock()
  try {
    await run(only)
  } finally {
    releaseLock()
  }
}

async function run(only: string | undefined): Promise<void> {
  ensureBuild(ROOT)
  if (BEFORE) ensureBuild(BEFORE)
  const loadBefore = loadAverage()
  const baselineMs = Math.round(nodeSpawnMs())
  console.log(`bench/start-time at ${commit()}, node ${process.version}, ${os.cpus().length} CPUs, load average ${loadBefore}`)
  if (BEFORE) console.log(`before: ${BEFORE} (${commit(BEFORE)}), measured first for each engine`)
  console.log(`baseline: \`node -e ''\` spawn → exit ${baselineMs} ms (median of 5)`)

  const rows: Row[] = []
  const rounds = Math.max(1, Number(process.env.BENCH_ROUNDS ?? 1))
  /** Alternates the checkouts round by round, so load drifting over the run hits both alike. */
  const measureRounds = async (engine: 'pglite' | 'postgres', databaseUrl: (root: string) => Promise<{ url?: string; drop(): Promise<void> }>) => {
    const trees = BEFORE ? [BEFORE, ROOT] : [ROOT]
    const measured = new Map<string, Row[]>(trees.map((root) => [root, []]))
    for (let round = 0; round < rounds; round++) {
      for (const root of trees) {
        const database = await databaseUrl(root)
        try {
          const row = await measureEngine(root, root === ROOT ? engine : `${engine}, before (${commit(root)})`, database.url)
          measured.get(root)!.push({ ...row, baseline: root !== ROOT })
          console.log(`  round ${round + 1} ${row.engine}: first start ${row.first.totalMs} ms, restart ${row.restart.totalMs} ms (load ${loadAverage()})`)
        } finally {
          await database.drop()
        }
      }
    }
    for (const root of trees) {
      const runs = [...measured.get(root)!].sort((a, b) => a.first.totalMs - b.first.totalMs)
      const chosen = runs[Math.floor(runs.length / 2)]!
      const restarts = runs.map((run) => run.restart.totalMs).sort((a, b) => a - b)
      rows.push({ ...chosen, medianRestartMs: restarts[Math.floor(restarts.length / 2)] })
    }
  }
  if (only !== 'postgres') await measureRounds('pglite', async () => ({ drop: async () => undefined }))
  if (only !== 'pglite') {
    const probe = await scratchDatabase('lookout_bench_start', only === 'postgres')
    if (probe) {
      await probe.drop()
      // Every start gets a database of its own: the first start must find it empty.
      await measureRounds('postgres', async () => {
        const scratch = await scratchDatabase('lookout_bench_start', true)
        return { url: scratch!.url, drop: () => scratch!.drop() }
      })
    } else {
      console.log('PostgreSQL is not reachable: PGlite only')
    }
  }

  const failures = rows.flatMap((row) => printRow(row, baselineMs))
  const pairs = rows.flatMap((row, index) => (row.baseline && rows[index + 1] ? [[row, rows[index + 1]!] as const] : []))
  if (pairs.length > 0) {
    console.log(`\nafter ÷ before, this run`)
    for (const [before, after] of pairs) {
      const ratio = (a: number, b: number) => (a / b).toFixed(2)
      const restart = (row: Row) => row.medianRestartMs ?? row.restart.totalMs
      console.log(`  ${after.engine.padEnd(10)} first start ${before.first.totalMs} → ${after.first.totalMs} ms (${ratio(after.first.totalMs, before.first.totalMs)}), restart ${restart(before)} → ${restart(after)} ms (${ratio(restart(after), restart(before))})${rounds > 1 ? ` (medians of ${rounds} rounds)` : ''}`)
    }
  }
  console.log(`\nload average at the end: ${loadAverage()}`)
  if (failures.length > 0) {
    console.log(`\nFAILED:\n  ${failures.join('\n  ')}`)
    process.exitCode = 1
  }
}

await main()
