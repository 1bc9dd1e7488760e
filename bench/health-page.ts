/**
 * bench/health-page — what /health costs on a large estate: 10,000 checks (100 canaries × 100)
 * and 1,000,000 status rows (100 per check, one every 5 minutes), on a fresh PostgreSQL
 * database. The real server (server.ts) runs in a child process; requests carry the bootstrap
 * token as a bearer credential, as a kiosk or script would.
 *
 *   npx tsx bench/health-page.ts        (needs PostgreSQL on 127.0.0.1:5432, user postgres)
 *   BENCH_CHECKS=10000 BENCH_STATUSES_PER_CHECK=100 BENCH_REQUESTS=40 BENCH_API_REQUESTS=10 BENCH_PORT=4391
 *
 * Prints p50/p95 server time and HTML size for the default view (hide passing, grouped by
 * canary), the ungrouped full list page by page, a sort, time ranges in turn, the page with a
 * summary nobody else is computing (1 h and 6 h), and the first request; then the summary API
 * alone for every range the page offers up to a month (wall time and the API's own `duration`),
 * and the list's own question (its page and counts, docs/decisions/017) for four views; then
 * the client JS /health preloads (bench/health-js-size.ts). The load average is printed at
 * the start and the end: figures move with what else runs on the machine.
 * Targets: p50 ≤ 150 ms (issue 13 item 4: uncached, 1 h and 6 h), HTML ≤ 1 MB, JS ≤ 100 KB gzip.
 */
import { spawn } from 'node:child_process'
import { loadavg } from 'node:os'
import { randomBytes } from 'node:crypto'
import pg from 'pg'
import { createPostgresDb } from '../server/db/client.ts'
import { migrate } from '../server/db/migrate.ts'
import { measureRoute } from './health-js-size.ts'
import { summaryViewRequest } from '../app/components/health/health-model.ts'
import { parseHealthParams } from '../app/components/health/health-params.ts'
import { SUMMARY_VIEW_PARAM } from '../contract/canary/summary-view.ts'

const CHECKS = Number(process.env.BENCH_CHECKS ?? 10_000)
const PER_CHECK = Number(process.env.BENCH_STATUSES_PER_CHECK ?? 100)
const REQUESTS = Number(process.env.BENCH_REQUESTS ?? 40)
const API_REQUESTS = Number(process.env.BENCH_API_REQUESTS ?? 10)
const PORT = Number(process.env.BENCH_PORT ?? 4391)
const TOKEN = `bench-health-token-${randomBytes(12).toString('hex')}`
const PG_ADMIN = process.env.LOOKOUT_TEST_PG_URL ?? 'postgres://postgres@127.0.0.1:5432/postgres'

async function populate(url: string): Promise<void> {
  const db = await createPostgresDb(url, { max: 2 })
  await migrate(db)
  const canaries = Math.ceil(CHECKS / 100)
  await db.exec(`
    INSERT INTO canaries (id, name, namespace, labels, spec, source, created_at)
    SELECT gen_random_uuid(), 'bench-canary-' || g, 'ns-' || (g % 8), jsonb_build_object('team', 'team-' || (g % 12), 'critical', (g % 2 = 0)::text), '{}'::jsonb, 'UI', now()
    FROM generate_series(1, ${canaries}) g;
    INSERT INTO checks (id, canary_id, type, name, namespace, status, labels, last_runtime, last_transition_time, created_at, updated_at)
    SELECT gen_random_uuid(), c.id, 'http', c.name || '-check-' || g, c.namespace,
      CASE WHEN random() < 0.05 THEN 'unhealthy' ELSE 'healthy' END, jsonb_build_object('tier', 'tier-' || (g % 4)),
      now() - interval '1 minute', now() - (g || ' hours')::interval, now(), now()
    FROM canaries c CROSS JOIN generate_series(1, 100) g WHERE c.name LIKE 'bench-canary-%';
    INSERT INTO check_statuses (check_id, time, duration, status, created_at)
    SELECT k.id, now() - (s * 5 || ' minutes')::interval, (20 + random() * 400)::integer, random() > 0.03, now()
    FROM checks k CROSS JOIN generate_series(0, ${PER_CHECK - 1}) s;
    ANALYZE;`)
  const { rows } = await db.query<{ checks: number; statuses: number }>('SELECT (SELECT count(*) FROM checks)::integer AS checks, (SELECT count(*) FROM check_statuses)::integer AS statuses')
  console.log(`populated: ${rows[0]!.checks} checks, ${rows[0]!.statuses} statuses`)
  await db.close()
}

async function startServer(url: string) {
  const child = spawn(process.execPath, ['node_modules/tsx/dist/cli.mjs', 'server.ts'], {
    env: { ...process.env, NODE_ENV: 'production', PORT: String(PORT), HOST: '127.0.0.1', LOG_LEVEL: 'warn', DATABASE_URL: url, LOOKOUT_BOOTSTRAP_TOKEN: TOKEN, LOOKOUT_ENGINE: 'off' },
    stdio: ['ignore', 'inherit', 'inherit'],
  })
  for (let i = 0; i < 240; i++) {
    try {
      if ((await fetch(`http://127.0.0.1:${PORT}/readyz`)).ok) return child
    } catch {
      // not up yet
    }
    await new Promise((resolve) => setTimeout(resolve, 500))
  }
  child.kill('SIGTERM')
  throw new Error('server did not become ready')
}

async function timed(path: string, cookie?: string): Promise<{ ms: number; bytes: number; status: number }> {
  const started = performance.now()
  const headers: Record<string, string> = { authorization: `Bearer ${TOKEN}`, accept: 'text/html' }
  // The console shares a summary request in flight per credential (cookie + authorization): a
  // cookie nobody reads keeps every request its own, as sequential requests are anyway.
  if (cookie) headers.cookie = cookie
  const response = await fetch(`http://127.0.0.1:${PORT}${path}`, { headers })
  const body = await response.arrayBuffer()
  return { ms: performance.now() - started, bytes: body.byteLength, status: response.status }
}

/**
 * The summary API alone: wall time and the `duration` (ms) the backend reports for its own work;
 * with `list`, the question /health asks for that page (lookout_view, docs/decisions/017).
 */
async function timedSummary(start: string, list?: string): Promise<{ ms: number; serverMs: number; bytes: number; status: number }> {
  const started = performance.now()
  const question = list === undefined ? '' : `&${SUMMARY_VIEW_PARAM}=${encodeURIComponent(JSON.stringify(summaryViewRequest(parseHealthParams(new URLSearchParams(list)))))}`
  const response = await fetch(`http://127.0.0.1:${PORT}/api/canary/api/summary?start=${encodeURIComponent(start)}${question}`, { headers: { authorization: `Bearer ${TOKEN}` } })
  const body = await response.text()
  const ms = performance.now() - started
  const duration = /"duration":(\d+)/.exec(body.slice(0, 200))
  return { ms, serverMs: duration ? Number(duration[1]) : 0, bytes: body.length, status: response.status }
}

const load = () => loadavg().map((value) => value.toFixed(2)).join(' ')

const pct = (values: number[], q: number) => [...values].sort((a, b) => a - b)[Math.min(values.length - 1, Math.floor(q * values.length))]!

async function main() {
  const name = `lookout_bench_health_${randomBytes(4).toString('hex')}`
  const admin = new pg.Client({ connectionString: PG_ADMIN })
  await admin.connect()
  await admin.query(`CREATE DATABASE ${name}`)
  const url = new URL(PG_ADMIN)
  url.pathname = `/${name}`
  let server: ReturnType<typeof spawn> | undefined
  try {
    console.log(`load average at the start: ${load()}`)
    const t0 = performance.now()
    await populate(url.toString())
    console.log(`populate took ${((performance.now() - t0) / 1000).toFixed(1)} s`)
    server = await startServer(url.toString())
    const cold = await timed('/health')
    console.log(`first request (summary not cached): ${cold.ms.toFixed(0)} ms, ${(cold.bytes / 1024).toFixed(0)} KB, status ${cold.status}`)
    const scenarios: [string, (i: number) => string, ((i: number) => string)?][] = [
      ['default (hide passing, grouped)', () => '/health'],
      ['all checks, ungrouped, paged', (i) => `/health?hidePassing=false&groupBy=no_grouping&page=${(i % 200) + 1}`],
      ['all checks, grouped, sorted by latency', (i) => `/health?hidePassing=false&sortBy=latency&sortDesc=${i % 2 === 0}`],
      ['time ranges 1h/2h/3h/6h in turn', (i) => `/health?timeRange=${['1h', '2h', '3h', '6h'][i % 4]}&hidePassing=false`],
      ['summary never cached (1h)', () => '/health', (i) => `bench_nocache=${i}`],
      ['summary never cached (6h)', () => '/health?timeRange=6h&hidePassing=false', (i) => `bench_nocache=${i}`],
      ['summary never cached (1d)', () => '/health?timeRange=1d&hidePassing=false', (i) => `bench_nocache=${i}`],
      ['summary never cached (1w)', () => '/health?timeRange=1w&hidePassing=false', (i) => `bench_nocache=${i}`],
    ]
    for (const [label, path, cookie] of scenarios) {
      const results = []
      for (let i = 0; i < REQUESTS; i++) results.push(await timed(path(i), cookie?.(i)))
      const bad = results.filter((result) => result.status !== 200).length
      const ms = results.map((result) => result.ms)
      const kb = results.map((result) => result.bytes / 1024)
      console.log(`${label}: p50 ${pct(ms, 0.5).toFixed(0)} ms, p95 ${pct(ms, 0.95).toFixed(0)} ms, HTML max ${Math.max(...kb).toFixed(0)} KB${bad ? `, ${bad} non-200` : ''}`)
    }
    // The API alone, one range after another; `start` as the console sends it (time-range.ts).
    for (const [label, start] of [['15m', '15m'], ['1h', '60m'], ['6h', '360m'], ['1d', '1440m'], ['1w', '10080m'], ['1mo', new Date(Date.now() - 30 * 86_400_000).toISOString()]]) {
      const results = []
      for (let i = 0; i < API_REQUESTS; i++) results.push(await timedSummary(start!))
      const bad = results.filter((result) => result.status !== 200).length
      const wall = results.map((result) => result.ms)
      const server = results.map((result) => result.serverMs)
      console.log(`summary API ${label}: wall p50 ${pct(wall, 0.5).toFixed(0)} ms, p95 ${pct(wall, 0.95).toFixed(0)} ms; backend duration p50 ${pct(server, 0.5)} ms; ${(results[0]!.bytes / 1024).toFixed(0)} KB${bad ? `, ${bad} non-200` : ''}`)
    }
    // What /health asks since decision 017: its page and counts, computed in SQL.
    for (const [label, start, list] of [['1h, default view', '60m', ''], ['6h, all checks grouped', '360m', 'hidePassing=false'], ['6h, all checks ungrouped', '360m', 'hidePassing=false&groupBy=no_grouping'], ['1w, all checks grouped', '10080m', 'hidePassing=false']]) {
      const results = []
      for (let i = 0; i < API_REQUESTS * 2; i++) results.push(await timedSummary(start!, list))
      const bad = results.filter((result) => result.status !== 200).length
      const wall = results.map((result) => result.ms)
      const server = results.map((result) => result.serverMs)
      console.log(`list API ${label}: wall p50 ${pct(wall, 0.5).toFixed(0)} ms, p95 ${pct(wall, 0.95).toFixed(0)} ms; backend duration p50 ${pct(server, 0.5)} ms; ${(results[0]!.bytes / 1024).toFixed(0)} KB${bad ? `, ${bad} non-200` : ''}`)
    }
    const js = measureRoute('routes/_console.health')
    console.log(`client JS for /health (build/): ${js.totalGzip.toFixed(1)} KB gzip in ${js.rows.length} chunks (target ≤ 100 KB)`)
    console.log(`load average at the end: ${load()}`)
  } finally {
    server?.kill('SIGTERM')
    await new Promise((resolve) => setTimeout(resolve, 1000))
    await admin.query(`DROP DATABASE IF EXISTS ${name} WITH (FORCE)`)
    await admin.end()
  }
}

await main()
