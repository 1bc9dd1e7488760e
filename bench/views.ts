/**
 * bench/views — `POST /api/view/{id}` (issue 18) over 100,000 config items on a fresh PostgreSQL
 * database: a view of every Kubernetes::Pod (a configs selector, five columns with a renaming
 * mapping, a number and a piechart panel), asked uncached (`Cache-Control: max-age=0`: the query
 * table loaded, the rows materialised into view_default_bench_pods, the panels computed) and
 * cached (the answer kept in view_panels). Uncached is measured twice: after one item changed
 * (every row rewritten) and over unchanged items (rows on disk kept: a hash of the query table
 * equals the last refresh's). The backend runs in this process on a loopback port.
 *
 *   npx tsx bench/views.ts        (needs PostgreSQL on 127.0.0.1:5432, user postgres)
 *   BENCH_REQUESTS=10 BENCH_CONFIGS=100000 BENCH_DB=postgres|pglite BENCH_KEEP=1 (keep the database to EXPLAIN)
 *
 * Prints p50/p95 wall time on loopback and the ratio. Targets: uncached ≤ 500 ms, cached ≤ 20 ms.
 */
import type { AddressInfo } from 'node:net'
import { loadavg } from 'node:os'
import { randomBytes } from 'node:crypto'
import express from 'express'
import { createBackend } from '../server/backend/backend-app.ts'
import { createPGliteDb, createPostgresDb, type Db } from '../server/db/client.ts'
import { migrate } from '../server/db/migrate.ts'
import { parseEnv } from '../server/env.ts'
import { createLogger } from '../server/logger.ts'
import { scratchDatabase } from './support/scratch-database.ts'

const REQUESTS = Number(process.env.BENCH_REQUESTS ?? 10)
const CONFIGS = Number(process.env.BENCH_CONFIGS ?? 100_000)
const ENGINE = process.env.BENCH_DB ?? 'postgres'
const TOKEN = `bench-views-token-${randomBytes(12).toString('hex')}`

async function populate(db: Db): Promise<string> {
  await db.query(
    `INSERT INTO config_items (name, type, config_class, tags, health, status, cost_total_30d, config)
     SELECT 'pod-' || n, CASE WHEN n % 10 = 0 THEN 'Kubernetes::Deployment' ELSE 'Kubernetes::Pod' END, 'Pod',
       jsonb_build_object('cluster', 'c' || (n % 5), 'namespace', 'ns-' || (n % 50)),
       (ARRAY['healthy', 'healthy', 'healthy', 'warning', 'unhealthy'])[1 + n % 5], 'Running', n % 100,
       jsonb_build_object('spec', jsonb_build_object('replicas', n % 3))
     FROM generate_series(1, $1::int) n`,
    [CONFIGS],
  )
  await db.query('ANALYZE config_items')
  const spec = {
    display: { title: 'Bench pods' },
    cache: { minAge: '0s' },
    queries: { pods: { configs: { types: ['Kubernetes::Pod'] } } },
    columns: [
      { name: 'id', type: 'string', primaryKey: true, hidden: true },
      { name: 'name', type: 'string' },
      { name: 'health', type: 'health' },
      { name: 'status', type: 'status' },
      { name: 'cost', type: 'number' },
      { name: 'updated', type: 'datetime' },
    ],
    mapping: { cost: 'row.cost_total_30d', updated: 'row.updated_at' },
    panels: [
      { name: 'Unhealthy', type: 'number', query: "SELECT COUNT(*) AS value FROM pods WHERE health <> 'healthy'" },
      { name: 'By health', type: 'piechart', query: 'SELECT health, COUNT(*) AS count FROM pods GROUP BY health' },
    ],
  }
  const { rows } = await db.query<{ id: string }>(`INSERT INTO views (name, namespace, spec, source) VALUES ('bench-pods', 'default', $1::jsonb, 'UI') RETURNING id`, [JSON.stringify(spec)])
  return rows[0]!.id
}

const percentile = (sorted: number[], p: number) => sorted[Math.min(sorted.length - 1, Math.floor((sorted.length * p) / 100))]!

async function measure(url: string, headers: Record<string, string>, before?: (index: number) => Promise<void>): Promise<{ p50: number; p95: number; source: string }> {
  const times: number[] = []
  let source = ''
  for (let index = 0; index < REQUESTS + 2; index += 1) {
    await before?.(index)
    const started = performance.now()
    const response = await fetch(url, { method: 'POST', headers: { ...headers, 'content-type': 'application/json' }, body: '{}' })
    const body = (await response.json()) as { responseSource?: string; error?: string }
    const elapsed = performance.now() - started
    if (response.status !== 200) throw new Error(`${url}: ${response.status} ${JSON.stringify(body).slice(0, 300)}`)
    if (index >= 2) times.push(elapsed)
    source = body.responseSource ?? ''
  }
  times.sort((a, b) => a - b)
  return { p50: percentile(times, 50), p95: percentile(times, 95), source }
}

async function main(): Promise<void> {
  const scratch = ENGINE === 'postgres' ? await scratchDatabase('bench_views', true) : undefined
  const db = scratch ? await createPostgresDb(scratch.url, { max: 4 }) : await createPGliteDb(undefined)
  try {
    await migrate(db)
    const loadStart = performance.now()
    const id = await populate(db)
    process.stdout.write(`estate: ${CONFIGS.toLocaleString('en')} config items (${db.engine}), generated in ${Math.round(performance.now() - loadStart)} ms\n`)
    const env = parseEnv({ NODE_ENV: 'production', LOG_LEVEL: 'silent', LOOKOUT_BOOTSTRAP_TOKEN: TOKEN })
    const backend = createBackend({ db, env, logger: createLogger('silent'), appVersion: 'bench', consoleUrl: () => 'http://127.0.0.1' })
    await backend.credentials.ensureBootstrapToken()
    const app = express()
    app.use(backend.router)
    const server = app.listen(0, '127.0.0.1')
    await new Promise((resolve) => server.once('listening', resolve))
    const url = `http://127.0.0.1:${(server.address() as AddressInfo).port}/view/${id}`
    const auth = { Authorization: `Bearer ${TOKEN}` }
    process.stdout.write(`load average at start: ${loadavg().map((value) => value.toFixed(1)).join(' ')}\n`)
    // Each request after a change of one item's health: every row is rewritten.
    const changed = await measure(url, { ...auth, 'cache-control': 'max-age=0' }, (index) =>
      db.query(`UPDATE config_items SET health = $1 WHERE name = 'pod-1'`, [index % 2 ? 'healthy' : 'unhealthy']).then(() => undefined),
    )
    // The items as they were at the last refresh: the rows on disk are kept, panels recomputed.
    const uncached = await measure(url, { ...auth, 'cache-control': 'max-age=0' })
    const cached = await measure(url, auth)
    const rows = (await db.query<{ n: number }>(`SELECT count(*)::int AS n FROM view_default_bench_pods`)).rows[0]!.n
    process.stdout.write(`| POST /api/view/{id} | p50 | p95 | answered from | target |\n| --- | --- | --- | --- | --- |\n`)
    process.stdout.write(`| uncached, an item changed (one of ${rows.toLocaleString('en')} rows rewritten) | ${changed.p50.toFixed(1)} ms | ${changed.p95.toFixed(1)} ms | ${changed.source} | — |\n`)
    process.stdout.write(`| uncached, items unchanged (query tables and panels recomputed, rows kept) | ${uncached.p50.toFixed(1)} ms | ${uncached.p95.toFixed(1)} ms | ${uncached.source} | ≤ 500 ms |\n`)
    process.stdout.write(`| cached | ${cached.p50.toFixed(1)} ms | ${cached.p95.toFixed(1)} ms | ${cached.source} | ≤ 20 ms |\n`)
    process.stdout.write(`ratio uncached/cached (p50): ${(uncached.p50 / cached.p50).toFixed(1)}×\n`)
    process.stdout.write(`load average at end: ${loadavg().map((value) => value.toFixed(1)).join(' ')}\n`)
    server.close()
  } finally {
    await db.close()
    if (process.env.BENCH_KEEP) process.stdout.write(`kept ${scratch?.url}\n`)
    else await scratch?.drop()
  }
}

main().catch((error: unknown) => {
  process.stderr.write(`${(error as Error).stack ?? String(error)}\n`)
  process.exitCode = 1
})
