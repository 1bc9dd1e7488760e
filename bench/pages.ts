/**
 * bench/pages — what a console page costs on the shared request path (issue 13). The built
 * production console (server.ts, NODE_ENV=production) runs in a child process on a fresh
 * database with the demo estate, and the bench signs in with the bootstrap token like a browser
 * (POST /api/auth/login, then the session cookie on every page).
 *
 *   npm run bench:pages                 (PostgreSQL on 127.0.0.1:5432 if reachable, else PGlite)
 *   BENCH_DB=pglite|postgres  BENCH_REQUESTS=100  BENCH_USERS=50  BENCH_SECONDS=15
 *   BENCH_CHECK_ENGINE=on|off  (the check engine runs by default, as with `npm start`)
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
 * and no credential, which this work does not change — measured the same way (wall time
 * single-user, and the same 50-user load), and every page is given as a ratio to it. GET
 * /api/about with the session cookie, one authenticated API call (credential resolution and
 * nothing else), is measured beside it. Targets (issue 13): single-user p50 ≤ 25 ms
 * (≤ 10 ms for /view/health), /health under 50 users ≥ 150 pages/s, p99 ≤ 500 ms, 0 errors.
 */
import { spawn, spawnSync, type ChildProcess } from 'node:child_process'
import { existsSync, mkdtempSync, readdirSync, rmSync, statSync } from 'node:fs'
import os from 'node:os'
import path from 'node:path'
import readline from 'node:readline'
import autocannon from 'autocannon'
import { scratchDatabase } from './support/scratch-database.ts'

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
function ensureBuild(): string {
  const output = path.join(ROOT, 'build', 'server', 'index.js')
  if (!existsSync(output)) {
    console.log('build/ is missing: npm run build (under /tmp/lookout-e2e.lock)…')
    const result = spawnSync('flock', ['/tmp/lookout-e2e.lock', 'npm', 'run', 'build'], { cwd: ROOT, stdio: 'inherit' })
    if (result.status !== 0) throw new Error('npm run build failed')
  }
  const built = statSync(output).mtimeMs
  const newestSource = readdirSync(path.join(ROOT, 'app'), {
    recursive: true,
    withFileTypes: true,
  })
    .filter((entry) => entry.isFile())
    .reduce((newest, entry) => Math.max(newest, statSync(path.join(entry.parentPath, entry.name)).mtimeMs), 0)
  const when = new Date(built).toISOString()
  return newestSource > built ? `${when} (older than app/: the figures are for the built console)` : when
}

type Server = { url: string; child: ChildProcess; stop(): Promise<void> }

async function startConsole(env: Record<string, string>, log: RequestLog): Promise<Server> {
  const child = spawn(process.execPath, [path.join(ROOT, 'node_modules', 'tsx', 'dist', 'cli.mjs'), path.join(ROOT, 'server.ts')], {
    cwd: ROOT,
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

async function signIn(base: string): Promise<string> {
  const response = await fetch(`${base}/api/auth/login`, {
    method: 'POST',
    headers: {
      'content-type': 'application/json',
      accept: 'application/json',
      origin: base,
    },
    body: JSON.stringify({ username: 'token', password: TOKEN }),
  })
  const cookies = response.headers.getSetCookie().map((cookie) => cookie.split(';')[0]!)
  if (!response.ok || cookies.length === 0) throw new Error(`sign-in answered ${response.status} with no cookie: ${await response.text()}`)
  return cookies.join('; ')
}

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

async function main(): Promise<void> {
  const builtAt = ensureBuild()
  const loadAtStart = os
    .loadavg()
    .map((value) => value.toFixed(2))
    .join(' ')
  const dataDir = mkdtempSync(path.join(os.tmpdir(), 'lookout-bench-pages-'))
  const database = await scratchDatabase('lookout_bench_pages', process.env.BENCH_DB === 'postgres')
  const log = new RequestLog()
  const bootStarted = performance.now()
  const server = await startConsole(
    {
      LOOKOUT_DATA_DIR: dataDir,
      LOOKOUT_BOOTSTRAP_TOKEN: TOKEN,
      LOOKOUT_DEMO_DATA: 'true',
      LOOKOUT_ENGINE: CHECK_ENGINE,
      ...(database ? { DATABASE_URL: database.url } : {}),
    },
    log,
  )
  const bootSeconds = (performance.now() - bootStarted) / 1000
  try {
    const base = server.url
    const cookie = await signIn(base)
    const incidents = await fetch(`${base}/api/db/incidents?select=id&order=created_at.desc&limit=1`, {
      headers: {
        authorization: `Bearer ${TOKEN}`,
        accept: 'application/json',
      },
    })
    const [incident] = (await incidents.json()) as { id: string }[]
    if (!incident) throw new Error('the demo estate has no incident')
    const checks = await fetch(`${base}/api/db/checks?select=id&deleted_at=is.null`, {
      headers: {
        authorization: `Bearer ${TOKEN}`,
        accept: 'application/json',
      },
    })
    const checkCount = ((await checks.json()) as unknown[]).length

    const pages: {
      label: string
      route: string
      kiosk?: boolean
      floor?: boolean
      reference?: boolean
    }[] = [
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

    const floorSamples = samples.get(FLOOR)!
    const floorWallP50 = percentile(
      floorSamples.map((sample) => sample.wall),
      0.5,
    )
    const sources = new Set([...samples.values()].flat().map((sample) => sample.serverSource))

    console.log(`bench/pages — issue 13, commit ${gitCommit()}, ${new Date().toISOString()}`)
    console.log(
      `machine: ${os.cpus().length} × ${os.cpus()[0]?.model ?? 'cpu'}, ${(os.totalmem() / 2 ** 30).toFixed(1)} GiB, Node ${
        process.version
      }; load average at the start ${loadAtStart}, at the end ${os
        .loadavg()
        .map((value) => value.toFixed(2))
        .join(' ')}`,
    )
    console.log(
      `console: build of ${builtAt}; ${
        database ? 'PostgreSQL server' : 'PGlite'
      }; demo estate (${checkCount} checks); check engine ${CHECK_ENGINE}; LOG_LEVEL=info; started and seeded in ${fmt(bootSeconds)} s`,
    )
    console.log(`single user: ${WARMUP} warm-up + ${REQUESTS} sequential requests per page, pages in turn; server time from ${[...sources].join(' / ')}`)
    console.log('')
    const header = ['page', 'status', 'server p50', 'server p99', 'wall p50', 'wall p99', '× floor', 'API calls', 'API ms', 'HTML KB', 'target p50', 'p50 met']
    const rows: string[][] = [header]
    for (const page of pages) {
      const list = samples.get(page.route)!
      const server = list.map((sample) => sample.server)
      const statuses = [...new Set(list.map((sample) => sample.status))].join(',')
      const p50 = percentile(server, 0.5)
      const target = page.reference ? undefined : page.kiosk ? TARGETS.kioskP50Ms : TARGETS.p50Ms
      const calls = [...new Set(list.map((sample) => sample.calls))].sort((a, b) => a - b)
      rows.push([
        page.label,
        statuses,
        `${fmt(p50)} ms`,
        `${fmt(percentile(server, 0.99))} ms`,
        `${fmt(
          percentile(
            list.map((sample) => sample.wall),
            0.5,
          ),
        )} ms`,
        `${fmt(
          percentile(
            list.map((sample) => sample.wall),
            0.99,
          ),
        )} ms`,
        page.floor
          ? '1.0'
          : fmt(
              percentile(
                list.map((sample) => sample.wall),
                0.5,
              ) / floorWallP50,
            ),
        calls.join('–'),
        `${fmt(
          percentile(
            list.map((sample) => sample.callsMs),
            0.5,
          ),
        )}`,
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
    const loadRows = [
      ['route', 'pages/s', 'p50', 'p99', 'errors', 'requests'],
      [`/health`, fmt(health.pagesPerSecond), `${health.p50} ms`, `${health.p99} ms`, String(health.errors), String(health.total)],
      [`${FLOOR} (floor)`, fmt(floorLoad.pagesPerSecond), `${floorLoad.p50} ms`, `${floorLoad.p99} ms`, String(floorLoad.errors), String(floorLoad.total)],
      [
        `${AUTHENTICATED_CALL} (one API call)`,
        fmt(callLoad.pagesPerSecond),
        `${callLoad.p50} ms`,
        `${callLoad.p99} ms`,
        String(callLoad.errors),
        String(callLoad.total),
      ],
    ]
    printTable(loadRows)
    console.log(`  /health throughput ratio to the floor: ${fmt(health.pagesPerSecond / floorLoad.pagesPerSecond, 3)}`)
    console.log('')

    const targetRows = [
      ['target (issue 13)', 'figure', 'verdict'],
      ...pages
        .filter((page) => !page.reference)
        .map((page) => {
          const target = page.kiosk ? TARGETS.kioskP50Ms : TARGETS.p50Ms
          const p50 = percentile(
            samples.get(page.route)!.map((sample) => sample.server),
            0.5,
          )
          return [`${page.label} single-user p50 ≤ ${target} ms`, `${fmt(p50)} ms`, verdict(p50 <= target)]
        }),
      [
        `/health ${USERS} users ≥ ${TARGETS.pagesPerSecond} pages/s`,
        `${fmt(health.pagesPerSecond)} pages/s`,
        verdict(health.pagesPerSecond >= TARGETS.pagesPerSecond),
      ],
      [`/health ${USERS} users p99 ≤ ${TARGETS.loadP99Ms} ms`, `${health.p99} ms`, verdict(health.p99 <= TARGETS.loadP99Ms)],
      [`/health ${USERS} users errors = 0`, String(health.errors), verdict(health.errors === 0)],
    ]
    printTable(targetRows)
    const unmet = targetRows.slice(1).filter((row) => row[2] !== 'met').length
    console.log(`${targetRows.length - 1 - unmet} of ${targetRows.length - 1} targets met`)
  } finally {
    await server.stop()
    await database?.drop()
    rmSync(dataDir, { recursive: true, force: true })
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
