/**
 * bench/topology — the topology screens (issue 15) on one topology of 5,051 components in a
 * fresh PostgreSQL database, generated in SQL: root → 50 groups → 100 services each, every
 * service with four properties (two headlines) and labels, a check linked to every tenth, a team
 * on every group, and the groups' rolled-up summary as the runner writes it. The real server
 * (the bundle `npm start` runs) serves it in a child process; pages carry a signed-in session
 * cookie, as a browser.
 *
 *   npx tsx bench/topology.ts          (needs PostgreSQL on 127.0.0.1:5432, user postgres)
 *   BENCH_REQUESTS=30 BENCH_PORT=4393 BENCH_KEEP=1 (keep the database)
 *
 * scripts/ensure-build.mjs rebuilds the console and server bundle first when they are stale.
 * Prints p50/p95 wall time on loopback (an upper bound of server time) and HTML size for
 * /topology, /topology/{root} (50 group cards), /topology/{group} (100 service cards, paged at
 * 50) and the wall view, each also as a ratio to a small page measured in the same run
 * (/settings/tokens), so a busy machine shows as a slow baseline rather than a slow topology.
 * Targets: p50 ≤ 150 ms, HTML ≤ 1 MB.
 */
import { spawnSync, type ChildProcess } from 'node:child_process'
import { loadavg } from 'node:os'
import { randomBytes } from 'node:crypto'
import { createPostgresDb } from '../server/db/client.ts'
import { migrate } from '../server/db/migrate.ts'
import { startBundledServer } from './support/bundled-server.ts'
import { scratchDatabase } from './support/scratch-database.ts'
import { signInWithToken } from './support/sign-in.ts'

const REQUESTS = Number(process.env.BENCH_REQUESTS ?? 30)
const PORT = Number(process.env.BENCH_PORT ?? 4393)
const TOKEN = `bench-topology-token-${randomBytes(12).toString('hex')}`
const BASE = `http://127.0.0.1:${PORT}`
const TARGET_MS = 150
const TARGET_BYTES = 1024 * 1024

async function populate(url: string): Promise<{ root: string; group: string }> {
  const db = await createPostgresDb(url, { max: 2 })
  await migrate(db)
  await db.transaction(async (tx) => {
    const topology = (await tx.query<{ id: string }>(`INSERT INTO topologies (name, namespace, spec) VALUES ('bench', 'default', '{}') RETURNING id`)).rows[0]!.id
    await tx.query(
      `INSERT INTO components (topology_id, name, type, status, health, external_id, labels, icon, summary)
       VALUES ($1, 'bench', 'Topology', 'healthy', 'healthy', 'bench', '{"env": "prod"}', 'kubernetes', '{"healthy": 50}')`,
      [topology],
    )
    await tx.query(`
      INSERT INTO components (topology_id, parent_id, name, type, status, health, external_id, labels, owner, icon, summary, properties)
      SELECT r.topology_id, r.id, 'group-' || lpad(g::text, 2, '0'), 'Group', 'healthy', 'healthy', 'bench/group-' || g,
        jsonb_build_object('env', 'prod', 'group', 'g' || g), 'team-' || (g % 10), 'server',
        jsonb_build_object('healthy', 99, 'warning', 1, 'checks', jsonb_build_object('healthy', 9, 'unhealthy', 1)),
        jsonb_build_array(jsonb_build_object('name', 'services', 'value', 100, 'headline', true))
      FROM components r CROSS JOIN generate_series(0, 49) g WHERE r.parent_id IS NULL AND r.topology_id = (SELECT id FROM topologies WHERE name = 'bench')`)
    await tx.query(`
      INSERT INTO components (topology_id, parent_id, name, type, status, health, external_id, labels, owner, icon, properties, log_selectors)
      SELECT g.topology_id, g.id, g.name || '-svc-' || lpad(s::text, 3, '0'), 'Service',
        CASE WHEN s % 97 = 0 THEN 'warning' ELSE 'healthy' END, CASE WHEN s % 97 = 0 THEN 'warning' ELSE 'healthy' END,
        g.external_id || '/svc-' || s,
        jsonb_build_object('tier', CASE WHEN s % 3 = 0 THEN 'frontend' ELSE 'backend' END, 'region', (ARRAY['eu', 'us', 'ap'])[1 + s % 3]),
        g.owner, 'server',
        jsonb_build_array(
          jsonb_build_object('name', 'version', 'text', '1.' || (s % 10) || '.0', 'headline', true),
          jsonb_build_object('name', 'cpu', 'value', 100 + s, 'unit', 'millicores', 'max', 1000),
          jsonb_build_object('name', 'memory', 'value', 268435456 * (1 + s % 4), 'unit', 'bytes', 'headline', true),
          jsonb_build_object('name', 'url', 'text', 'https://' || g.name || '-svc-' || s || '.example.org')),
        '[{"name": "loki"}]'::jsonb
      FROM components g CROSS JOIN generate_series(0, 99) s WHERE g.type = 'Group'`)
    const person = (await tx.query<{ id: string }>(`INSERT INTO people (name, email) VALUES ('bench', 'bench@example.test') RETURNING id`)).rows[0]!.id
    await tx.query(`INSERT INTO teams (name, created_by) SELECT 'team-' || n, $1 FROM generate_series(0, 9) n`, [person])
    await tx.query(`INSERT INTO team_components (team_id, component_id) SELECT t.id, c.id FROM components c JOIN teams t ON t.name = c.owner WHERE c.type = 'Group'`)
    const canary = (await tx.query<{ id: string }>(`INSERT INTO canaries (name, namespace, spec, source) VALUES ('bench', 'default', '{}', 'Demo') RETURNING id`)).rows[0]!.id
    await tx.query(
      `WITH targets AS (SELECT id, external_id AS name, row_number() OVER (ORDER BY external_id) AS n FROM components WHERE type = 'Service'),
       made AS (
         INSERT INTO checks (canary_id, type, name, status) SELECT $1, 'http', 'check-' || t.name, CASE WHEN t.n % 70 = 0 THEN 'unhealthy' ELSE 'healthy' END
         FROM targets t WHERE t.n % 10 = 0 RETURNING id, name)
       INSERT INTO check_component_relationships (component_id, check_id, canary_id)
       SELECT t.id, m.id, $1 FROM made m JOIN targets t ON m.name = 'check-' || t.name`,
      [canary],
    )
  })
  await db.exec('VACUUM ANALYZE')
  const { rows } = await db.query<{ root: string; group: string; total: number }>(
    `SELECT (SELECT id FROM components WHERE parent_id IS NULL AND name = 'bench') AS root,
       (SELECT id FROM components WHERE name = 'group-07') AS group,
       (SELECT count(*)::int FROM components) AS total`,
  )
  console.log(`populated: ${rows[0]!.total} components in one topology`)
  await db.close()
  return { root: rows[0]!.root, group: rows[0]!.group }
}

type Sample = { ms: number; bytes: number; status: number; cards: number }

async function timed(path: string, cookie: string): Promise<Sample> {
  const started = performance.now()
  const response = await fetch(`${BASE}${path}`, { headers: { cookie, accept: 'text/html' } })
  const text = await response.text()
  return { ms: performance.now() - started, bytes: Buffer.byteLength(text), status: response.status, cards: text.split('data-testid="component-card"').length - 1 }
}

const pct = (values: number[], q: number) => [...values].sort((a, b) => a - b)[Math.min(values.length - 1, Math.floor(q * values.length))]!
const load = () => loadavg().map((value) => value.toFixed(2)).join(' ')

async function scenario(label: string, path: string, cookie: string, baseline?: number): Promise<{ p50: number; failed: boolean }> {
  await timed(path, cookie) // warm-up (plans, caches)
  const results: Sample[] = []
  for (let i = 0; i < REQUESTS; i++) results.push(await timed(path, cookie))
  const bad = results.filter((result) => result.status !== 200)
  const ms = results.map((result) => result.ms)
  const p50 = pct(ms, 0.5)
  const bytes = Math.max(...results.map((result) => result.bytes))
  const failed = baseline !== undefined && (p50 > TARGET_MS || bytes > TARGET_BYTES || bad.length > 0)
  const verdict = baseline === undefined ? '' : ` — ${(p50 / baseline).toFixed(1)}× baseline; targets p50 ≤ ${TARGET_MS} ms, ≤ 1 MB: ${failed ? 'MISSED' : 'met'}`
  console.log(`${label}: p50 ${p50.toFixed(0)} ms, p95 ${pct(ms, 0.95).toFixed(0)} ms, HTML ${(bytes / 1024).toFixed(1)} KB, ${results[0]!.cards} cards${bad.length ? `, ${bad.length} non-200 (${bad[0]!.status})` : ''}${verdict}`)
  return { p50, failed }
}

async function main() {
  const database = await scratchDatabase('lookout_bench_topology', true)
  if (!database) throw new Error('bench/topology needs PostgreSQL')
  let server: ChildProcess | undefined
  let failures = 0
  try {
    console.log(`load average at the start: ${load()}`)
    const { root, group } = await populate(database.url)
    const build = spawnSync(process.execPath, ['scripts/ensure-build.mjs'], { stdio: 'inherit' })
    if (build.status !== 0) throw new Error('building the console and server bundle failed')
    server = await startBundledServer({ port: PORT, databaseUrl: database.url, token: TOKEN })
    const cookie = await signInWithToken(BASE, TOKEN)
    const baseline = await scenario('baseline /settings/tokens', '/settings/tokens', cookie)
    const pages: [string, string][] = [
      ['/topology', '/topology'],
      ['/topology/{root} (50 groups)', `/topology/${root}`],
      ['/topology/{group} (100 services, page 1 of 2)', `/topology/${group}`],
      ['/topology/{group}?pageSize=200', `/topology/${group}?pageSize=200`],
      ['/topology/{root}?status=warning (filter)', `/topology/${root}?status=warning`],
      ['/view/topology/{root} (wall)', `/view/topology/${root}`],
    ]
    for (const [label, path] of pages) {
      const result = await scenario(label, path, cookie, baseline.p50)
      if (result.failed) failures += 1
    }
    console.log(`load average at the end: ${load()}`)
  } finally {
    server?.kill('SIGTERM')
    await new Promise((resolve) => setTimeout(resolve, 1000))
    if (process.env.BENCH_KEEP === '1') console.log(`kept ${database.url}`)
    else await database.drop()
  }
  if (failures > 0) process.exitCode = 1
}

await main()
