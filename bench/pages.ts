/**
 * bench/pages — what a console page costs on the shared request path (issue 13). The built
 * production console (server.ts, NODE_ENV=production) runs in a child process on a fresh
 * database with the demo estate, and the bench signs in with the bootstrap token like a browser
 * (POST /api/auth/login, then the session cookie on every page).
 *
 *   npm run bench:pages                 (PostgreSQL on 127.0.0.1:5432 if reachable, else PGlite)
 *   BENCH_DB=pglite|postgres  BENCH_REQUESTS=100  BENCH_USERS=50  BENCH_SECONDS=15
 *   BENCH_CHECK_ENGINE=on|off  (the check engine runs by default, as with `npm start`)
 *   BENCH_BEFORE=0c4c0ac|none  (the commit measured as "before": the last one before issue 13)
 *
 * Variants, one after the other in the same run, each on a fresh database: "before" (a clean
 * tree of BENCH_BEFORE, built once into the temp directory), "after" (this checkout, one
 * process) and, on PostgreSQL, "after, workers" (LOOKOUT_WORKERS=auto: one console process per
 * core, docs/decisions/015-console-processes.md). Each is printed in full, then side by side with
 * after ÷ before; the issue's targets are judged on each "after" variant.
 *
 * 1. Single user: each page in turn, sequentially, BENCH_REQUESTS times after a warm-up. Server
 *    time is the Server-Timing header's `total` (or the sum of its entries) when the console sends
 *    one, else the `responseTime` of the page's own request log line (pino-http, LOG_LEVEL=info,
 *    the production default); wall time is the request as the client on loopback sees it.
 * 2. Loopback calls: every page request carries its own X-Request-Id, which the console forwards
 *    on its loopback /api calls and the request logger records, so the /api log lines with that
 *    id are the calls one render makes (with their summed server time).
 * 3. Concurrency: BENCH_USERS signed-in users (one session each) on /health for BENCH_SECONDS,
 *    then the same load on the floor and on /api/about.
 *
 * Baseline in the same run: the floor is GET /healthz — the same Express stack with no database
 * and no credential, which this issue's work does not change — measured the same way (wall time
 * single-user, and the same 50-user load), and every page is given as a ratio to it. GET
 * /api/about with the session cookie, one authenticated API call (credential resolution and
 * nothing else), is measured beside it. Targets (issue 13): single-user p50 ≤ 25 ms
 * (≤ 10 ms for /view/health), /health under 50 users ≥ 150 pages/s, p99 ≤ 500 ms, 0 errors.
 */
import { spawn, spawnSync, type ChildProcess } from 'node:child_process'
import { existsSync, mkdirSync, mkdtempSync, readdirSync, rmSync, statSync, symlinkSync } from 'node:fs'
import os from 'node:os'
import path from 'node:path'
import readline from 'node:readline'
import autocannon from 'autocannon'
import { scratchDatabase } from './support/scratch-database.ts'
import { signInWithToken } from './support/sign-in.ts'

const ROOT = path.resolve(import.meta.dirname, '..')
const TOKEN = 'bench-pages-bootstrap-token-0123456789abcdef'
const REQUESTS = Number(process.env.BENCH_REQUESTS ?? 100)
const WARMUP = Number(process.env.BENCH_WARMUP ?? 10)
const USERS = Number(process.env.BENCH_USERS ?? 50)
const SECONDS = Number(process.env.BENCH_SECONDS ?? 15)
const CHECK_ENGINE = process.env.BENCH_CHECK_ENGINE === 'off' ? 'off' : 'on'
// The floor: the cheapest request the console serves (no database, no credential), through the
// same Express stack as a page. An authenticated call such as /api/about is no floor for this
// issue: its cost is one of the things the issue changes (credential resolution).
const FLOOR = '/healthz'
const AUTHENTICATED_CALL = '/api/about'

const TARGETS = {
  p50Ms: 25,
  kioskP50Ms: 10,
  pagesPerSecond: 150,
  loadP99Ms: 500,
  errors: 0,
}

type LogLine = {
  req?: { id?: string; url?: string }
  res?: { statusCode?: number }
  responseTime?: number
  msg?: string
}

/** The console's request log, indexed by request id while the single-user phase reads it. */
class RequestLog {
  private byId = new Map<string, LogLine[]>()
  recording = false

  attach(child: ChildProcess): void {
    for (const stream of [child.stdout!, child.stderr!]) {
      readline.createInterface({ input: stream }).on('line', (line) => {
        if (!this.recording || !line.startsWith('{')) return
        let entry: LogLine
        try {
          entry = JSON.parse(line) as LogLine
        } catch {
          return
        }
        const id = entry.req?.id
        if (!id?.startsWith('bench-') || entry.responseTime === undefined) return
        const lines = this.byId.get(id) ?? []
        lines.push(entry)
        this.byId.set(id, lines)
      })
    }
  }

  /** The lines of one request id, once the page's own line (not under /api) has been written. */
  async linesOf(id: string, ownPath: string): Promise<LogLine[]> {
    for (let waited = 0; waited < 2000; waited += 5) {
      const lines = this.byId.get(id) ?? []
      if (lines.some((line) => pathOf(line) === ownPath)) {
        this.byId.delete(id)
        return lines
      }
      await sleep(5)
    }
    this.byId.delete(id)
    return []
  }
}

const sleep = (ms: number) => new Promise((resolve) => setTimeout(resolve, ms))
const pathOf = (line: LogLine) => (line.req?.url ?? '').split('?')[0] ?? ''

function percentile(values: number[], q: number): number {
  if (values.length === 0) return Number.NaN
  const sorted = [...values].sort((a, b) => a - b)
  return sorted[Math.min(sorted.length - 1, Math.ceil(q * sorted.length) - 1)]!
}

/** build/ is shared by everyone on the machine: build only when it is missing, under the e2e lock. */
function ensureBuild(root = ROOT): string {
  const output = path.join(root, 'build', 'server', 'index.js')
  if (!existsSync(output)) {
    console.log(`${path.relative(ROOT, path.join(root, 'build')) || 'build'}/ is missing: building the console (under /tmp/lookout-e2e.lock)…`)
    const result = spawnSync('flock', ['/tmp/lookout-e2e.lock', process.execPath, path.join(ROOT, 'node_modules', '@remix-run', 'dev', 'dist', 'cli.js'), 'vite:build'], {
      cwd: root,
      stdio: 'inherit',
      env: { ...process.env, NODE_ENV: 'production' },
    })
    if (result.status !== 0) throw new Error(`the console build in ${root} failed`)
  }
  const built = statSync(output).mtimeMs
  const newestSource = readdirSync(path.join(root, 'app'), {
    recursive: true,
    withFileTypes: true,
  })
    .filter((entry) => entry.isFile())
    .reduce((newest, entry) => Math.max(newest, statSync(path.join(entry.parentPath, entry.name)).mtimeMs), 0)
  const when = new Date(built).toISOString()
  return newestSource > built ? `${when} (older than app/: the figures are for the built console)` : when
}

type Server = { url: string; child: ChildProcess; stop(): Promise<void> }

async function startConsole(root: string, env: Record<string, string>, log: RequestLog): Promise<Server> {
  const child = spawn(process.execPath, [path.join(ROOT, 'node_modules', 'tsx', 'dist', 'cli.mjs'), path.join(root, 'server.ts')], {
    cwd: root,
    env: {
      ...process.env,
      NODE_ENV: 'production',
      PORT: '0',
      HOST: '127.0.0.1',
      LOG_LEVEL: 'info',
      ...env,
    },
    stdio: ['ignore', 'pipe', 'pipe'],
  })
  log.attach(child)
  const url = await new Promise<string>((resolve, reject) => {
    let early = ''
    const timer = setTimeout(() => {
      child.kill('SIGKILL')
      reject(new Error(`the console did not start within 180 s:\n${early}`))
    }, 180_000)
    const onData = (chunk: Buffer) => {
      early += chunk.toString()
      const match = /running at (http:\/\/127\.0\.0\.1:\d+)/.exec(early)
      if (!match) return
      clearTimeout(timer)
      child.stdout!.off('data', onData)
      child.stderr!.off('data', onData)
      resolve(match[1]!)
    }
    child.stdout!.on('data', onData)
    child.stderr!.on('data', onData)
    child.once('exit', (code) => {
      clearTimeout(timer)
      reject(new Error(`the console exited with ${code} before listening:\n${early}`))
    })
  })
  return {
    url,
    child,
    stop: () =>
      new Promise((resolve) => {
        if (child.exitCode !== null) return resolve()
        child.once('exit', () => resolve())
        child.kill('SIGTERM')
      }),
  }
}

const signIn = (base: string) => signInWithToken(base, TOKEN)

type Sample = {
  wall: number
  server: number
  serverSource: string
  status: number
  bytes: number
  calls: number
  callsMs: number
}

function serverTiming(header: string | null): number | undefined {
  if (!header) return undefined
  const entries = header.split(',').map((entry) => {
    const [name = '', ...params] = entry.trim().split(';')
    const dur = params.map((param) => /^\s*dur=([\d.]+)/.exec(param)?.[1]).find(Boolean)
    return {
      name: name.trim(),
      dur: dur === undefined ? undefined : Number(dur),
    }
  })
  const total = entries.find((entry) => entry.name === 'total')?.dur
  if (total !== undefined) return total
  const durations = entries.map((entry) => entry.dur).filter((dur): dur is number => dur !== undefined)
  return durations.length ? durations.reduce((sum, dur) => sum + dur, 0) : undefined
}

let sequence = 0

/** Paths the request logger leaves out (server/logger.ts QUIET_PATHS): no log line to wait for. */
const UNLOGGED = new Set(['/healthz', '/readyz', '/metrics'])

async function requestOnce(base: string, route: string, cookie: string, log: RequestLog): Promise<Sample> {
  const id = `bench-${(sequence++).toString(36)}`
  const started = performance.now()
  const response = await fetch(`${base}${route}`, {
    headers: {
      cookie,
      accept: route.startsWith('/api/') ? 'application/json' : 'text/html',
      'x-request-id': id,
    },
    redirect: 'manual',
  })
  const body = await response.arrayBuffer()
  const wall = performance.now() - started
  const ownPath = route.split('?')[0]!
  const lines = UNLOGGED.has(ownPath) ? [] : await log.linesOf(id, ownPath)
  const own = lines.find((line) => pathOf(line) === ownPath)
  const calls = lines.filter((line) => line !== own && pathOf(line).startsWith('/api/'))
  const timing = serverTiming(response.headers.get('server-timing'))
  const server = timing ?? own?.responseTime ?? wall
  return {
    wall,
    server,
    serverSource: timing !== undefined ? 'Server-Timing' : own ? 'request log' : 'wall',
    status: response.status,
    bytes: body.byteLength,
    calls: calls.length,
    callsMs: calls.reduce((sum, line) => sum + (line.responseTime ?? 0), 0),
  }
}

type LoadFigures = {
  pagesPerSecond: number
  p50: number
  p99: number
  errors: number
  total: number
}

async function underLoad(url: string, cookies: string[]): Promise<LoadFigures> {
  let next = 0
  const result = await autocannon({
    url,
    connections: cookies.length,
    duration: SECONDS,
    timeout: 120,
    headers: { accept: 'text/html' },
    // One signed-in person per connection, as 50 browsers would be.
    setupClient: (client) =>
      client.setHeaders({
        accept: 'text/html',
        cookie: cookies[next++ % cookies.length]!,
      }),
  })
  const ok = result['2xx']
  return {
    pagesPerSecond: ok / result.duration,
    p50: result.latency.p50,
    p99: result.latency.p99,
    // `errors` counts timeouts too.
    errors: result.errors + result.non2xx,
    total: result.requests.total,
  }
}

const fmt = (value: number, digits = 1) => (Number.isFinite(value) ? value.toFixed(digits) : '–')
const verdict = (met: boolean) => (met ? 'met' : 'NOT met')

/** BENCH_COMMIT names the tree when it is not a git checkout (a `git archive` of an older commit). */
function gitCommit(): string {
  if (process.env.BENCH_COMMIT) return process.env.BENCH_COMMIT
  const result = spawnSync('git', ['rev-parse', '--short', 'HEAD'], {
    cwd: ROOT,
    encoding: 'utf8',
  })
  return result.status === 0 ? result.stdout.trim() : 'unknown'
}

type Page = { label: string; route: string; kiosk?: boolean; floor?: boolean; reference?: boolean }

type Variant = {
  name: string
  /** The tree whose server.ts and build/ run: this checkout, or an archived earlier commit. */
  root: string
  commit: string
  env: Record<string, string>
}

type Measurement = {
  variant: Variant
  builtAt: string
  engine: string
  checkCount: number
  bootSeconds: number
  pages: Page[]
  samples: Map<string, Sample[]>
  health: LoadFigures
  floorLoad: LoadFigures
  callLoad: LoadFigures
}

const BEFORE = process.env.BENCH_BEFORE ?? '0c4c0ac'

/**
 * The tree of an earlier commit, built once and kept in the system's temp directory between runs
 * (its node_modules is this checkout's: the dependencies the build needs have not changed).
 */
function beforeTree(commit: string): string {
  const root = path.join(os.tmpdir(), `lookout-bench-before-${commit}`)
  if (!existsSync(path.join(root, 'server.ts'))) {
    rmSync(root, { recursive: true, force: true })
    mkdirSync(root, { recursive: true })
    const archive = spawnSync('sh', ['-c', `git archive ${commit} | tar -x -C ${JSON.stringify(root)}`], { cwd: ROOT, stdio: 'inherit' })
    if (archive.status !== 0) throw new Error(`git archive ${commit} failed`)
    symlinkSync(path.join(ROOT, 'node_modules'), path.join(root, 'node_modules'))
  }
  return root
}

async function measure(variant: Variant, postgres: boolean): Promise<Measurement> {
  const builtAt = ensureBuild(variant.root)
  const dataDir = mkdtempSync(path.join(os.tmpdir(), 'lookout-bench-pages-'))
  // BENCH_DB=pglite must not fall back to a reachable server: scratchDatabase's flag only says whether one is required.
  const database = postgres ? await scratchDatabase('lookout_bench_pages', true) : undefined
  if (!database && variant.root !== ROOT) {
    // The earlier tree's own PGlite template (its build made one; a no-op when it exists).
    spawnSync(process.execPath, [path.join(ROOT, 'node_modules', 'tsx', 'dist', 'cli.mjs'), 'server/db/pglite-template-cli.ts'], { cwd: variant.root, stdio: 'ignore' })
  }
  const log = new RequestLog()
  const bootStarted = performance.now()
  const server = await startConsole(
    variant.root,
    {
      LOOKOUT_DATA_DIR: dataDir,
      LOOKOUT_BOOTSTRAP_TOKEN: TOKEN,
      LOOKOUT_DEMO_DATA: 'true',
      LOOKOUT_ENGINE: CHECK_ENGINE,
      ...(database ? { DATABASE_URL: database.url } : {}),
      ...variant.env,
    },
    log,
  )
  const bootSeconds = (performance.now() - bootStarted) / 1000
  try {
    const base = server.url
    const cookie = await signIn(base)
    const bearer = { authorization: `Bearer ${TOKEN}`, accept: 'application/json' }
    const incidents = await fetch(`${base}/api/db/incidents?select=id&order=created_at.desc&limit=1`, { headers: bearer })
    const [incident] = (await incidents.json()) as { id: string }[]
    if (!incident) throw new Error('the demo estate has no incident')
    const checks = await fetch(`${base}/api/db/checks?select=id&deleted_at=is.null`, { headers: bearer })
    const checkCount = ((await checks.json()) as unknown[]).length

    const pages: Page[] = [
      { label: `${FLOOR} (floor)`, route: FLOOR, floor: true, reference: true },
      { label: '/readyz', route: '/readyz', reference: true },
      { label: `${AUTHENTICATED_CALL} (one API call)`, route: AUTHENTICATED_CALL, reference: true },
      { label: '/health', route: '/health' },
      { label: '/incidents', route: '/incidents' },
      { label: '/incidents/{id}', route: `/incidents/${incident.id}` },
      { label: '/settings/users', route: '/settings/users' },
      { label: '/view/health', route: '/view/health', kiosk: true },
    ]

    // Single user. Pages take turns so every page sees the same machine state.
    log.recording = true
    for (let round = 0; round < WARMUP; round++) for (const page of pages) await requestOnce(base, page.route, cookie, log)
    const samples = new Map<string, Sample[]>(pages.map((page) => [page.route, []]))
    for (let round = 0; round < REQUESTS; round++) {
      for (const page of pages) samples.get(page.route)!.push(await requestOnce(base, page.route, cookie, log))
    }
    log.recording = false

    // Concurrency: one session per user, then the same load on the floor.
    const sessions: string[] = []
    for (let user = 0; user < USERS; user++) sessions.push(await signIn(base))
    const health = await underLoad(`${base}/health`, sessions)
    const floorLoad = await underLoad(`${base}${FLOOR}`, sessions)
    const callLoad = await underLoad(`${base}${AUTHENTICATED_CALL}`, sessions)
    return { variant, builtAt, engine: database ? 'PostgreSQL server' : 'PGlite', checkCount, bootSeconds, pages, samples, health, floorLoad, callLoad }
  } finally {
    await server.stop()
    await database?.drop()
    rmSync(dataDir, { recursive: true, force: true })
  }
}

const p50Of = (list: Sample[], pick: (sample: Sample) => number) => percentile(list.map(pick), 0.5)

function printMeasurement(m: Measurement): void {
  const { pages, samples, health, floorLoad, callLoad } = m
  const floorWallP50 = p50Of(samples.get(FLOOR)!, (sample) => sample.wall)
  const sources = new Set([...samples.values()].flat().map((sample) => sample.serverSource))
  console.log(`— ${m.variant.name}: commit ${m.variant.commit}, build of ${m.builtAt}; ${m.engine}; demo estate (${m.checkCount} checks); check engine ${CHECK_ENGINE}; LOG_LEVEL=info${
    Object.keys(m.variant.env).length ? `; ${Object.entries(m.variant.env).map(([name, value]) => `${name}=${value}`).join(' ')}` : ''
  }; started and seeded in ${fmt(m.bootSeconds)} s`)
  console.log(`single user: ${WARMUP} warm-up + ${REQUESTS} sequential requests per page, pages in turn; server time from ${[...sources].join(' / ')}`)
  console.log('')
  const header = ['page', 'status', 'server p50', 'server p99', 'wall p50', 'wall p99', '× floor', 'API calls', 'API ms', 'HTML KB', 'target p50', 'p50 met']
  const rows: string[][] = [header]
  for (const page of pages) {
    const list = samples.get(page.route)!
    const server = list.map((sample) => sample.server)
    const wall = list.map((sample) => sample.wall)
    const p50 = percentile(server, 0.5)
    const target = page.reference ? undefined : page.kiosk ? TARGETS.kioskP50Ms : TARGETS.p50Ms
    const calls = [...new Set(list.map((sample) => sample.calls))].sort((a, b) => a - b)
    rows.push([
      page.label,
      [...new Set(list.map((sample) => sample.status))].join(','),
      `${fmt(p50)} ms`,
      `${fmt(percentile(server, 0.99))} ms`,
      `${fmt(percentile(wall, 0.5))} ms`,
      `${fmt(percentile(wall, 0.99))} ms`,
      page.floor ? '1.0' : fmt(percentile(wall, 0.5) / floorWallP50),
      calls.join('–'),
      fmt(p50Of(list, (sample) => sample.callsMs)),
      fmt(Math.max(...list.map((sample) => sample.bytes)) / 1024, 0),
      target === undefined ? '' : `≤ ${target} ms`,
      target === undefined ? '' : verdict(p50 <= target),
    ])
  }
  printTable(rows)
  console.log(
    "  (× floor: wall p50 / the floor's wall p50; server time of unlogged paths (/healthz, /readyz) is their wall time; API calls: loopback /api requests one render makes, min–max; API ms: their summed server time, p50)",
  )
  console.log('')
  console.log(`${USERS} concurrent signed-in users (one session each), ${SECONDS} s, autocannon, wall time:`)
  const loadRow = (label: string, figures: LoadFigures) => [label, fmt(figures.pagesPerSecond), `${figures.p50} ms`, `${figures.p99} ms`, String(figures.errors), String(figures.total)]
  printTable([
    ['route', 'pages/s', 'p50', 'p99', 'errors', 'requests'],
    loadRow('/health', health),
    loadRow(`${FLOOR} (floor)`, floorLoad),
    loadRow(`${AUTHENTICATED_CALL} (one API call)`, callLoad),
  ])
  console.log(`  /health throughput ratio to the floor: ${fmt(health.pagesPerSecond / floorLoad.pagesPerSecond, 3)}`)
  console.log('')
}

/** The issue's targets, judged on one measurement: [target, figure, verdict] rows. */
function targetRows(m: Measurement): string[][] {
  return [
    ...m.pages
      .filter((page) => !page.reference)
      .map((page) => {
        const target = page.kiosk ? TARGETS.kioskP50Ms : TARGETS.p50Ms
        const p50 = p50Of(m.samples.get(page.route)!, (sample) => sample.server)
        return [`${page.label} single-user p50 ≤ ${target} ms`, `${fmt(p50)} ms`, verdict(p50 <= target)]
      }),
    [`/health ${USERS} users ≥ ${TARGETS.pagesPerSecond} pages/s`, `${fmt(m.health.pagesPerSecond)} pages/s`, verdict(m.health.pagesPerSecond >= TARGETS.pagesPerSecond)],
    [`/health ${USERS} users p99 ≤ ${TARGETS.loadP99Ms} ms`, `${m.health.p99} ms`, verdict(m.health.p99 <= TARGETS.loadP99Ms)],
    [`/health ${USERS} users errors = 0`, String(m.health.errors), verdict(m.health.errors === 0)],
  ]
}

/** Before and after side by side: every figure of each measurement, and after ÷ before. */
function printComparison(runs: Measurement[]): void {
  const [before] = runs
  const figure = (m: Measurement, route: string, pick: (sample: Sample) => number) => p50Of(m.samples.get(route)!, pick)
  const lines: { label: string; value: (m: Measurement) => number; digits?: number }[] = []
  for (const page of runs[0]!.pages.filter((page) => !page.reference)) {
    lines.push({ label: `${page.label} server p50 (ms)`, value: (m) => figure(m, m.pages.find((p) => p.label === page.label)!.route, (sample) => sample.server) })
    lines.push({ label: `${page.label} API calls per render (p50)`, value: (m) => figure(m, m.pages.find((p) => p.label === page.label)!.route, (sample) => sample.calls), digits: 0 })
  }
  lines.push({ label: `/health ${USERS} users: pages/s`, value: (m) => m.health.pagesPerSecond })
  lines.push({ label: `/health ${USERS} users: p99 (ms)`, value: (m) => m.health.p99, digits: 0 })
  lines.push({ label: `/health ${USERS} users: errors`, value: (m) => m.health.errors, digits: 0 })
  lines.push({ label: `floor ${FLOOR} ${USERS} users: req/s`, value: (m) => m.floorLoad.pagesPerSecond })
  lines.push({ label: '/health pages/s ÷ floor req/s', value: (m) => m.health.pagesPerSecond / m.floorLoad.pagesPerSecond, digits: 3 })
  const rows = [['figure', ...runs.map((m) => m.variant.name), ...runs.slice(1).map((m) => `${m.variant.name} ÷ ${before!.variant.name}`)]]
  for (const line of lines) {
    const values = runs.map((m) => line.value(m))
    rows.push([line.label, ...values.map((value) => fmt(value, line.digits ?? 1)), ...values.slice(1).map((value) => fmt(value / values[0]!, 2))])
  }
  printTable(rows)
  console.log('')
}

async function main(): Promise<void> {
  const loadAtStart = os
    .loadavg()
    .map((value) => value.toFixed(2))
    .join(' ')
  const postgres = process.env.BENCH_DB === 'postgres' || (process.env.BENCH_DB !== 'pglite' && (await scratchDatabase('lookout_bench_probe').then(async (db) => (await db?.drop(), Boolean(db)))))
  const current = gitCommit()
  const variants: Variant[] = []
  if (BEFORE !== 'none') variants.push({ name: 'before', root: beforeTree(BEFORE), commit: `${BEFORE} (clean tree)`, env: {} })
  variants.push({ name: 'after', root: ROOT, commit: current, env: {} })
  // Several console processes need PostgreSQL (docs/decisions/015-console-processes.md).
  if (postgres) variants.push({ name: 'after, workers', root: ROOT, commit: current, env: { LOOKOUT_WORKERS: 'auto' } })

  const runs: Measurement[] = []
  for (const variant of variants) runs.push(await measure(variant, postgres))

  console.log(`bench/pages — issue 13, ${new Date().toISOString()}; ${postgres ? 'PostgreSQL server' : 'PGlite'}; variants measured one after the other in this run`)
  console.log(
    `machine: ${os.cpus().length} × ${os.cpus()[0]?.model ?? 'cpu'}, ${(os.totalmem() / 2 ** 30).toFixed(1)} GiB, Node ${process.version}; load average at the start ${loadAtStart}, at the end ${os
      .loadavg()
      .map((value) => value.toFixed(2))
      .join(' ')}`,
  )
  console.log('')
  for (const run of runs) printMeasurement(run)
  if (runs.length > 1) {
    console.log('before and after, in this run:')
    printComparison(runs)
  }
  // The targets are judged on this checkout as it can be deployed here: one process (the default)
  // and, on PostgreSQL, one per core; each verdict is printed, neither is picked for the reader.
  for (const judged of runs.filter((run) => run.variant.root === ROOT)) {
    console.log(`targets (issue 13), judged on "${judged.variant.name}":`)
    const rows = targetRows(judged)
    printTable([['target', 'figure', 'verdict'], ...rows])
    const unmet = rows.filter((row) => row[2] !== 'met').length
    console.log(`${rows.length - unmet} of ${rows.length} targets met`)
    console.log('')
  }
}

function printTable(rows: string[][]): void {
  const widths = rows[0]!.map((_, column) => Math.max(...rows.map((row) => (row[column] ?? '').length)))
  for (const [index, row] of rows.entries()) {
    console.log(`  ${row.map((cell, column) => (column === 0 ? cell.padEnd(widths[column]!) : cell.padStart(widths[column]!))).join('  ')}`)
    if (index === 0) console.log(`  ${widths.map((width) => '-'.repeat(width)).join('  ')}`)
  }
}

main().catch((error: unknown) => {
  console.error(error)
  process.exit(1)
})
