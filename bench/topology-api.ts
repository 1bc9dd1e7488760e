/**
 * bench/topology-api — `GET /canary/api/topology` and `/snapshot/topology/{id}` (issue 15) on a
 * fresh PostgreSQL database: one topology of 5,051 components (root → 50 groups → 100 services,
 * each service with four properties and labels, a check on every tenth, a team on every group)
 * beside 20 other topologies of 511 components each (10,220 that no request below should read).
 * The embedded backend runs in this process on a loopback port; calls carry the bootstrap token
 * (everything visible) or a person's token narrowed to the big topology's root.
 *
 *   npx tsx bench/topology-api.ts          (needs PostgreSQL on 127.0.0.1:5432, user postgres)
 *   BENCH_REQUESTS=30 BENCH_DB=postgres|pglite BENCH_KEEP=1 (keep the database to EXPLAIN)
 *
 * Prints p50/p95 wall time on loopback (an upper bound of server time) and the answer's size.
 * Target (issue 15): p50 well under 100 ms for the dashboard's call and for id=<root>.
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
import { issuePersonToken } from '../server/backend/rbac/access-tokens.ts'
import { scratchDatabase } from './support/scratch-database.ts'

const REQUESTS = Number(process.env.BENCH_REQUESTS ?? 30)
const ENGINE = process.env.BENCH_DB ?? 'postgres'
const TOKEN = `bench-topology-token-${randomBytes(12).toString('hex')}`

/** Generates the estate in SQL; returns the big topology's root id. */
async function populate(db: Db): Promise<string> {
  await db.query(`INSERT INTO topologies (name, namespace, spec) SELECT 'bench-' || n, 'default', '{}' FROM generate_series(0, 20) n`)
  // Each topology: a root, its groups, their services; parents found by (topology, name).
  await db.query(`
    INSERT INTO components (topology_id, name, type, status, health, external_id, labels)
    SELECT t.id, t.name, 'Topology', 'healthy', 'healthy', t.name, '{"env": "prod"}'::jsonb FROM topologies t`)
  await db.query(`
    INSERT INTO components (topology_id, parent_id, name, type, status, health, external_id, labels, owner)
    SELECT r.topology_id, r.id, 'group-' || g, 'Group', 'healthy', 'healthy', r.name || '/group-' || g,
      jsonb_build_object('env', 'prod', 'group', 'g' || g), 'team-' || (g % 10)
    FROM components r CROSS JOIN LATERAL generate_series(0, CASE WHEN r.name = 'bench-0' THEN 49 ELSE 9 END) g
    WHERE r.parent_id IS NULL`)
  await db.query(`
    INSERT INTO components (topology_id, parent_id, name, type, status, health, external_id, labels, owner, icon, properties)
    SELECT g.topology_id, g.id, g.name || '-svc-' || s, 'Service',
      CASE WHEN s % 97 = 0 THEN 'warning' ELSE 'healthy' END, CASE WHEN s % 97 = 0 THEN 'warning' ELSE 'healthy' END,
      g.external_id || '/svc-' || s,
      jsonb_build_object('tier', CASE WHEN s % 3 = 0 THEN 'frontend' ELSE 'backend' END, 'region', (ARRAY['eu', 'us', 'ap'])[1 + s % 3]),
      g.owner, 'server',
      jsonb_build_array(
        jsonb_build_object('name', 'version', 'text', '1.' || (s % 10) || '.0', 'headline', true),
        jsonb_build_object('name', 'cpu', 'value', 100 + s, 'unit', 'millicores', 'max', 1000),
        jsonb_build_object('name', 'memory', 'value', 256 * (1 + s % 4), 'unit', 'bytes', 'headline', true),
        jsonb_build_object('name', 'url', 'text', 'https://' || g.name || '-svc-' || s || '.example.org'))
    FROM components g JOIN components r ON r.id = g.parent_id
    CROSS JOIN LATERAL generate_series(0, CASE WHEN r.name = 'bench-0' THEN 99 ELSE 49 END) s
    WHERE g.type = 'Group'`)
  const person = (await db.query<{ id: string }>(`INSERT INTO people (name, email) VALUES ('bench', 'bench@example.test') RETURNING id`)).rows[0]!.id
  await db.query(`INSERT INTO teams (name, created_by) SELECT 'team-' || n, $1 FROM generate_series(0, 9) n`, [person])
  await db.query(`INSERT INTO team_components (team_id, component_id) SELECT t.id, c.id FROM components c JOIN teams t ON t.name = c.owner WHERE c.type = 'Group'`)
  const canary = (await db.query<{ id: string }>(`INSERT INTO canaries (name, namespace, spec, source) VALUES ('bench', 'default', '{}', 'Demo') RETURNING id`)).rows[0]!.id
  await db.query(`
    WITH targets AS (SELECT id, external_id AS name, row_number() OVER (ORDER BY id) AS n FROM components WHERE type = 'Service'),
    made AS (
      INSERT INTO checks (canary_id, type, name, status) SELECT $1, 'http', 'check-' || t.name, CASE WHEN t.n % 7 = 0 THEN 'unhealthy' ELSE 'healthy' END
      FROM targets t WHERE t.n % 10 = 0 RETURNING id, name)
    INSERT INTO check_component_relationships (component_id, check_id, canary_id)
    SELECT t.id, m.id, $1 FROM made m JOIN targets t ON m.name = 'check-' || t.name`, [canary])
  await db.query('ANALYZE')
  return (await db.query<{ id: string }>(`SELECT id FROM components WHERE name = 'bench-0' AND parent_id IS NULL`)).rows[0]!.id
}

function percentile(sorted: number[], p: number): number {
  return sorted[Math.min(sorted.length - 1, Math.floor((sorted.length * p) / 100))]!
}

async function measure(base: string, path: string, headers: Record<string, string>): Promise<{ p50: number; p95: number; bytes: number; count: number }> {
  const times: number[] = []
  let bytes = 0
  let count = 0
  for (let index = 0; index < REQUESTS + 3; index += 1) {
    const started = performance.now()
    const response = await fetch(`${base}${path}`, { headers })
    const body = Buffer.from(await response.arrayBuffer())
    const elapsed = performance.now() - started
    if (response.status !== 200) throw new Error(`${path}: ${response.status} ${body.toString().slice(0, 200)}`)
    if (index >= 3) times.push(elapsed)
    bytes = body.length
    if (response.headers.get('content-type')?.includes('json')) {
      const walk = (nodes: { components?: unknown[] }[]): number => nodes.reduce((sum, node) => sum + 1 + walk((node.components ?? []) as { components?: unknown[] }[]), 0)
      count = walk((JSON.parse(body.toString()) as { components: { components?: unknown[] }[] }).components)
    }
  }
  times.sort((a, b) => a - b)
  return { p50: percentile(times, 50), p95: percentile(times, 95), bytes, count }
}

async function main(): Promise<void> {
  const scratch = ENGINE === 'postgres' ? await scratchDatabase('bench_topology_api', true) : undefined
  const db = scratch ? await createPostgresDb(scratch.url, { max: 4 }) : await createPGliteDb(undefined)
  try {
    await migrate(db)
    const loadStart = performance.now()
    const root = await populate(db)
    const total = (await db.query<{ n: number }>(`SELECT count(*)::int AS n FROM components`)).rows[0]!.n
    process.stdout.write(`estate: ${total} components (${db.engine}), generated in ${Math.round(performance.now() - loadStart)} ms\n`)

    const env = parseEnv({ NODE_ENV: 'production', LOG_LEVEL: 'silent', LOOKOUT_BOOTSTRAP_TOKEN: TOKEN })
    const backend = createBackend({ db, env, logger: createLogger('silent'), appVersion: 'bench', consoleUrl: () => 'http://127.0.0.1' })
    await backend.credentials.ensureBootstrapToken()
    const app = express()
    app.use(backend.router)
    const server = app.listen(0, '127.0.0.1')
    await new Promise((resolve) => server.once('listening', resolve))
    const base = `http://127.0.0.1:${(server.address() as AddressInfo).port}`

    // A viewer whose permission names the big topology's root: every answer is narrowed.
    const person = (await db.query<{ id: string }>(`INSERT INTO people (name, email) VALUES ('narrowed', 'narrowed@example.test') RETURNING id`)).rows[0]!.id
    await db.query(`INSERT INTO casbin_rule (ptype, v0, v1, v2, v3, v4, v5) VALUES ('g', $1, 'viewer', '', '', '', '')`, [person])
    await db.query(`INSERT INTO permissions (subject_type, subject, action, component_id) VALUES ('person', $1, 'read', $2)`, [person, root])
    const { token } = await issuePersonToken(db, { personId: person, name: 'bench' })
    backend.authorizer.invalidate()

    const admin = { Authorization: `Bearer ${TOKEN}` }
    const narrowed = { Authorization: `Bearer ${token}` }
    const cases: [string, string, Record<string, string>][] = [
      ['roots, depth 0 (21 cards)', '/canary/api/topology?depth=0', admin],
      ['roots, depth 1 (cards with their children)', '/canary/api/topology?depth=1', admin],
      ['id=root, depth 1 (50 groups)', `/canary/api/topology?id=${root}&depth=1`, admin],
      ['id=root, depth 2 (all 5,051)', `/canary/api/topology?id=${root}&depth=2`, admin],
      ['id=root, default depth 5 (all 5,051)', `/canary/api/topology?id=${root}`, admin],
      ['id=root, flatten, type=Service, sortBy=field:properties.cpu desc', `/canary/api/topology?id=${root}&flatten=true&type=Service&sortBy=field:properties.cpu&sortOrder=desc`, admin],
      ['id=root, status=warning (filters prune the walk)', `/canary/api/topology?id=${root}&status=healthy,warning&team=team-3`, admin],
      ['narrowed caller: roots, depth 1', '/canary/api/topology?depth=1', narrowed],
      ['narrowed caller: id=root, depth 2 (all 5,051)', `/canary/api/topology?id=${root}&depth=2`, narrowed],
      ['snapshot of the root (zip, related)', `/snapshot/topology/${root}?related=true`, admin],
    ]
    process.stdout.write(`load average at start: ${loadavg().map((value) => value.toFixed(1)).join(' ')}\n`)
    process.stdout.write(`| What | p50 | p95 | components | bytes |\n| --- | --- | --- | --- | --- |\n`)
    for (const [label, path, headers] of cases) {
      const result = await measure(base, path, headers)
      process.stdout.write(`| ${label} | ${result.p50.toFixed(1)} ms | ${result.p95.toFixed(1)} ms | ${result.count || '—'} | ${result.bytes.toLocaleString('en')} |\n`)
    }
    process.stdout.write(`load average at end: ${loadavg().map((value) => value.toFixed(1)).join(' ')}\n`)
    server.close()
  } finally {
    await db.close()
    if (process.env.BENCH_KEEP) process.stdout.write(`kept ${scratch?.url}\n`)
    else await scratch?.drop()
  }
}

await main()
