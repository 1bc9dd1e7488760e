/**
 * bench/catalog — what the catalog costs on a large estate: 100,000 config items and 1,000,000
 * changes on a fresh PostgreSQL database, generated in SQL. The real server (server.ts,
 * production) runs in a child process; API calls carry the bootstrap token, pages a signed-in
 * session cookie (as a browser).
 *
 *   npx tsx bench/catalog.ts            (needs PostgreSQL on 127.0.0.1:5432, user postgres)
 *   BENCH_REQUESTS=30 BENCH_PORT=4392 BENCH_PAGES=on|off BENCH_KEEP=1 (keep the database to EXPLAIN)
 *
 * The server is the bundle `npm start` runs (build/lookout/server.js); scripts/ensure-build.mjs
 * rebuilds it and the console first when they are older than their sources.
 *
 * The estate: 20 clusters → 1,000 namespaces → 10,000 deployments → 10,000 replica sets →
 * 30,000 pods → 30,000 containers (hard parent/child edges, so a cluster reaches 4,050 items
 * within five levels), plus 18,980 AWS items with costs, 5,000 soft pod → AWS edges, 1,000,000
 * changes spread over 30 days (ten per item) and 20,000 open insights.
 *
 * Prints p50/p95 wall time on loopback (an upper bound of server time) for
 * `/api/catalog/changes` recursive depth 5 (from clusters: the widest walk; from namespaces),
 * unanchored changes, `/api/catalog/summary` (plain and with cost, changes and insights),
 * resource search and relationships; then /catalog and a type list page with their HTML size.
 * Targets (issue 14): changes depth 5 p50 ≤ 100 ms; pages p50 ≤ 150 ms, HTML ≤ 1 MB.
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
const PORT = Number(process.env.BENCH_PORT ?? 4392)
const PAGES = (process.env.BENCH_PAGES ?? 'on') !== 'off'
const TOKEN = `bench-catalog-token-${randomBytes(12).toString('hex')}`
const BASE = `http://127.0.0.1:${PORT}`

/** Item number g (1..100,000) → its id, so parents are computed rather than looked up. */
const ID = (g: string) => `('00000000-0000-4000-8000-' || lpad(to_hex(${g}), 12, '0'))::uuid`
const idOf = (g: number) => `00000000-0000-4000-8000-${g.toString(16).padStart(12, '0')}`

// [first g, count, type, parent of the i-th item (0-based) as SQL over i]
const LEVELS: [number, number, string, string | null][] = [
  [1, 20, 'Kubernetes::Cluster', null],
  [21, 1_000, 'Kubernetes::Namespace', '1 + (i % 20)'],
  [1_021, 10_000, 'Kubernetes::Deployment', '21 + (i % 1000)'],
  [11_021, 10_000, 'Kubernetes::ReplicaSet', '1021 + i'],
  [21_021, 30_000, 'Kubernetes::Pod', '11021 + (i % 10000)'],
  [51_021, 30_000, 'Kubernetes::Container', '21021 + i'],
]
const AWS_FIRST = 81_021
const ITEMS = 100_000
const CHANGES = 1_000_000

async function populate(url: string): Promise<void> {
  const db = await createPostgresDb(url, { max: 2 })
  await migrate(db)
  // Generated rows carry their derived rows (hard edges, paths, last scrape) explicitly, so
  // the row triggers (and a million event-queue entries) are switched off for the load.
  await db.transaction(async (tx) => {
    await tx.exec(`SET LOCAL session_replication_role = replica`)
    for (const [first, count, type, parent] of LEVELS) {
      const cls = type.split('::')[1]!
      await tx.exec(`
        INSERT INTO config_items (id, type, config_class, name, parent_id, tags, labels, health, status, config, created_at, updated_at)
        SELECT ${ID(`${first} + i`)}, '${type}', '${cls}', lower('${cls}') || '-' || (${first} + i),
          ${parent ? ID(parent) : 'NULL'},
          jsonb_build_object('cluster', 'cluster-' || (i % 20), 'namespace', 'ns-' || (i % 1000)),
          jsonb_build_object('app', 'app-' || (i % 50)),
          CASE WHEN i % 100 < 90 THEN 'healthy' WHEN i % 100 < 96 THEN 'warning' WHEN i % 100 < 99 THEN 'unhealthy' ELSE 'unknown' END,
          CASE WHEN i % 100 < 95 THEN 'Running' ELSE 'Pending' END,
          jsonb_build_object('spec', jsonb_build_object('replicas', i % 5, 'image', 'registry/app-' || (i % 50) || ':1.' || (i % 9))),
          now() - ((i % 400) || ' days')::interval, now() - ((i % 30) || ' hours')::interval
        FROM generate_series(0, ${count - 1}) AS i`)
    }
    const awsTypes = ['AWS::EC2::Instance', 'AWS::S3::Bucket', 'AWS::RDS::DBInstance', 'AWS::Lambda::Function']
    await tx.exec(`
      INSERT INTO config_items (id, type, config_class, name, tags, health, status, cost_per_minute, cost_total_1d, cost_total_7d, cost_total_30d, config, created_at, updated_at)
      SELECT ${ID(`${AWS_FIRST} + i`)}, (ARRAY['${awsTypes.join("','")}'])[1 + i % 4], split_part((ARRAY['${awsTypes.join("','")}'])[1 + i % 4], '::', 3),
        'aws-' || (${AWS_FIRST} + i), jsonb_build_object('account', 'acct-' || (i % 10), 'region', (ARRAY['eu-west-1','us-east-1'])[1 + i % 2]),
        CASE WHEN i % 50 = 0 THEN 'unhealthy' ELSE 'healthy' END, 'Running',
        (i % 7) / 1440.0, (i % 7), (i % 7) * 7, (i % 7) * 30, '{}'::jsonb, now() - ((i % 300) || ' days')::interval, now()
      FROM generate_series(0, ${ITEMS - AWS_FIRST}) AS i`)
    // Paths (dot-joined ancestors), level by level.
    for (const [, , type, parent] of LEVELS.slice(1)) {
      if (!parent) continue
      await tx.exec(`UPDATE config_items c SET path = CASE WHEN p.path IS NULL THEN p.id::text ELSE p.path || '.' || p.id::text END
        FROM config_items p WHERE c.parent_id = p.id AND c.type = '${type}'`)
    }
    await tx.exec(`
      INSERT INTO config_relationships (config_id, related_id, relation) SELECT parent_id, id, 'hard' FROM config_items WHERE parent_id IS NOT NULL;
      INSERT INTO config_relationships (config_id, related_id, relation)
        SELECT ${ID('21021 + i * 6')}, ${ID(`${AWS_FIRST} + (i % ${ITEMS - AWS_FIRST})`)}, 'uses' FROM generate_series(0, 4999) AS i;
      INSERT INTO config_items_last_scraped_time (config_id) SELECT id FROM config_items;
      INSERT INTO config_changes (config_id, change_type, severity, source, summary, created_at, first_observed, inserted_at, details)
        SELECT ${ID(`1 + (g % ${ITEMS})`)},
          (ARRAY['diff','diff','diff','Pulled','Scheduled','BackOff','UPDATE'])[1 + g % 7],
          (ARRAY['info','info','info','low','medium','high','critical'])[1 + (g / 7) % 7],
          (ARRAY['kubernetes','kubelet','aws'])[1 + g % 3],
          'bench change ' || g,
          now() - (random() * interval '30 days'), now() - interval '31 days', now() - (random() * interval '30 days'), '{}'::jsonb
        FROM generate_series(1, ${CHANGES}) AS g;
      INSERT INTO config_analysis (config_id, analyzer, analysis_type, severity, summary)
        SELECT ${ID(`1 + (g * 5) % ${ITEMS}`)}, 'rule-' || (g % 40),
          (ARRAY['security','cost','reliability','performance'])[1 + g % 4], (ARRAY['low','medium','high','critical'])[1 + g % 4], 'finding ' || g
        FROM generate_series(1, 20000) AS g;`)
  })
  // A running catalog's tables are vacuumed by autovacuum (visibility map set, so index-only
  // scans need no heap reads); a freshly generated one is not yet.
  await db.exec('VACUUM ANALYZE')
  const { rows } = await db.query<{ items: number; changes: number; edges: number }>(
    'SELECT (SELECT count(*) FROM config_items)::int AS items, (SELECT count(*) FROM config_changes)::int AS changes, (SELECT count(*) FROM config_relationships)::int AS edges',
  )
  console.log(`populated: ${rows[0]!.items} items, ${rows[0]!.changes} changes, ${rows[0]!.edges} relationships`)
  await db.close()
}

type Sample = { ms: number; bytes: number; status: number }

async function timed(path: string, init: { body?: unknown; cookie?: string } = {}): Promise<Sample> {
  const started = performance.now()
  const headers: Record<string, string> = init.cookie ? { cookie: init.cookie, accept: 'text/html' } : { authorization: `Bearer ${TOKEN}` }
  if (init.body !== undefined) headers['content-type'] = 'application/json'
  const response = await fetch(`${BASE}${path}`, { method: init.body === undefined ? 'GET' : 'POST', headers, body: init.body === undefined ? undefined : JSON.stringify(init.body) })
  const body = await response.arrayBuffer()
  return { ms: performance.now() - started, bytes: body.byteLength, status: response.status }
}

const pct = (values: number[], q: number) => [...values].sort((a, b) => a - b)[Math.min(values.length - 1, Math.floor(q * values.length))]!
const load = () => loadavg().map((value) => value.toFixed(2)).join(' ')

async function scenario(label: string, request: (i: number) => Promise<Sample>, target?: number): Promise<number> {
  await request(-1) // warm-up (plans, caches)
  const results: Sample[] = []
  for (let i = 0; i < REQUESTS; i++) results.push(await request(i))
  const ms = results.map((result) => result.ms)
  const bad = results.filter((result) => result.status !== 200)
  const p50 = pct(ms, 0.5)
  const verdict = target === undefined ? '' : p50 <= target ? ` (target ≤ ${target} ms: met)` : ` (target ≤ ${target} ms: MISSED)`
  console.log(`${label}: p50 ${p50.toFixed(0)} ms, p95 ${pct(ms, 0.95).toFixed(0)} ms, ${(Math.max(...results.map((r) => r.bytes)) / 1024).toFixed(1)} KB max${verdict}${bad.length ? `, ${bad.length} non-200 (${bad[0]!.status})` : ''}`)
  return p50
}

async function main() {
  const database = await scratchDatabase('lookout_bench_catalog', true)
  if (!database) throw new Error('bench/catalog needs PostgreSQL')
  let server: ChildProcess | undefined
  try {
    console.log(`load average at the start: ${load()}`)
    const t0 = performance.now()
    await populate(database.url)
    console.log(`populate took ${((performance.now() - t0) / 1000).toFixed(1)} s`)
    const build = spawnSync(process.execPath, ['scripts/ensure-build.mjs'], { stdio: 'inherit' })
    if (build.status !== 0) throw new Error('building the console and server bundle failed')
    server = await startBundledServer({ port: PORT, databaseUrl: database.url, token: TOKEN })
    const cluster = (i: number) => idOf(1 + (((i % 20) + 20) % 20))
    const namespace = (i: number) => idOf(21 + ((i * 37 + 1000) % 1000))

    await scenario('changes, recursive downstream depth 5 from a cluster (4,050 items)', (i) => timed('/api/catalog/changes', { body: { id: cluster(i), recursive: 'downstream', depth: 5, sort_by: '-created_at', page: 1, page_size: 50 } }), 100)
    await scenario('changes, recursive downstream depth 5 from a namespace (~80 items)', (i) => timed('/api/catalog/changes', { body: { id: namespace(i), recursive: 'downstream', depth: 5 } }), 100)
    await scenario('changes, recursive all depth 5 from a pod', (i) => timed('/api/catalog/changes', { body: { id: idOf(21_021 + ((i * 101 + 30_000) % 30_000)), recursive: 'all', depth: 5, from: 'now-30d' } }), 100)
    await scenario('changes, everything in the last 2 days, page 3', () => timed('/api/catalog/changes', { body: { page: 3 } }))
    await scenario('changes, last 7 days, type and severity filters, sorted by name', () => timed('/api/catalog/changes', { body: { from: 'now-7d', type: 'diff,BackOff', severity: 'high', tags: 'cluster=cluster-3', sort_by: 'name' } }))
    // The first summary asking for 3d/7d/30d starts the background count of those windows
    // (change-windows.ts); later ones read it. Wait for it, as a running console would have.
    const counting = performance.now()
    await timed('/api/catalog/summary', { body: { changes: { since: '7d' } } })
    const state = await createPostgresDb(database.url, { max: 1 })
    while (!(await state.query<{ counted: boolean }>('SELECT counted_at IS NOT NULL AS counted FROM lookout.config_change_windows_state')).rows[0]?.counted) {
      await new Promise((resolve) => setTimeout(resolve, 100))
    }
    await state.close()
    console.log(`change windows (3d/7d/30d) counted in the background in ${((performance.now() - counting) / 1000).toFixed(1)} s`)
    await scenario('summary by type', () => timed('/api/catalog/summary', { body: {} }))
    await scenario('summary by type with cost 30d, changes 7d and insights', () => timed('/api/catalog/summary', { body: { cost: '30d', changes: { since: '7d' }, analysis: {} } }))
    await scenario('summary as /catalog asks it (cost 30d, changes 30d, insights)', () => timed('/api/catalog/summary', { body: { groupBy: ['type'], cost: '30d', deleted: false, changes: { since: '30d' }, analysis: {} } }), 150)
    await scenario('summary with changes counted live (since 2d)', () => timed('/api/catalog/summary', { body: { changes: { since: '2d' } } }))
    await scenario('summary by cluster tag', () => timed('/api/catalog/summary', { body: { groupBy: ['cluster'] } }))
    await scenario('resource search grammar', (i) => timed('/api/resources/search', { body: { configs: [{ search: `name=pod-2${i % 10}* type=Kubernetes::Pod health=healthy,warning` }] } }))
    await scenario('relationships of a cluster, depth 5', (i) => timed(`/api/catalog/${cluster(i)}/relationships?depth=5&direction=outgoing`))

    if (PAGES) {
      const cookie = await signInWithToken(BASE, TOKEN)
      const pages: [string, string][] = [
        ['/catalog', '/catalog'],
        ['/catalog?type=Kubernetes::Pod (30,000 items)', `/catalog?${new URLSearchParams({ type: 'Kubernetes::Pod' })}`],
        ['/catalog?type=AWS::EC2::Instance', `/catalog?${new URLSearchParams({ type: 'AWS::EC2::Instance' })}`],
        ['/catalog/changes', '/catalog/changes'],
        ['/catalog/{cluster}', `/catalog/${idOf(1)}`],
      ]
      for (const [label, path] of pages) {
        const sample = await timed(path, { cookie })
        if (sample.status !== 200) {
          console.log(`${label}: status ${sample.status}, not measured`)
          continue
        }
        await scenario(`page ${label}`, () => timed(path, { cookie }), 150)
        if (sample.bytes > 1024 * 1024) console.log(`  HTML ${(sample.bytes / 1024).toFixed(0)} KB: over the 1 MB target`)
      }
    }
    console.log(`load average at the end: ${load()}`)
  } finally {
    server?.kill('SIGTERM')
    await new Promise((resolve) => setTimeout(resolve, 1000))
    // BENCH_KEEP=1 leaves the database for EXPLAIN; drop it yourself afterwards.
    if (process.env.BENCH_KEEP === '1') console.log(`kept ${database.url}`)
    else await database.drop()
  }
}

await main()
