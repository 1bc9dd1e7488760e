/**
 * bench/db — what the PostgREST-compatible engine costs. Five representative console reads go
 * through the real /api/db stack (gateway + embedded backend + engine) and, on the same HTTP
 * server, through hand-written routes that run the same query with `db.query`. Both paths have
 * the same authentication (bearer token → principal) and the same RBAC check on the relation.
 *
 *   npx tsx bench/db.ts                       (needs PostgreSQL on 127.0.0.1:5432, user postgres)
 *   BENCH_SECONDS=3 BENCH_ROUNDS=7 BENCH_CONNECTIONS=16   (per run, rounds, load connections)
 *
 * How the hand-written routes answer: JSON built in SQL (`json_agg`, `json_build_object`),
 * sent as text — the fastest way one would write these by hand, so the baseline is strict.
 * A fresh database is created, migrated and seeded with the demo data, then dropped. The server
 * runs in a child process (this file with BENCH_DB_ROLE=server) so autocannon does not share its
 * event loop. Each pair is loaded back to back, round after round; req/s are medians over the
 * rounds and the ratio is the median of the per-round ratios.
 * Before measuring, both answers of every pair are fetched and must be equal.
 */
import os from 'node:os'
import { isDeepStrictEqual } from 'node:util'
import autocannon from 'autocannon'
import express, { type NextFunction, type Request, type Response } from 'express'
import pg from 'pg'
import { createApp } from '../server/app.ts'
import { createBackend } from '../server/backend/backend-app.ts'
import { requireCredentials } from '../server/backend/identity/credentials.ts'
import { createDbAuthorization } from '../server/backend/rbac/rbac-middleware.ts'
import { APP_VERSION } from '../server/boot.ts'
import { createPostgresDb } from '../server/db/client.ts'
import { migrate } from '../server/db/migrate.ts'
import { seedDemoData } from '../server/db/seed.ts'
import { parseEnv } from '../server/env.ts'
import { createLogger } from '../server/logger.ts'
import { startProcess, type RunningProcess } from '../tests/support/processes.ts'

const TOKEN = 'bench-bootstrap-token-0123456789abcdefgh'
const SECONDS = Number(process.env.BENCH_SECONDS ?? 3)
const ROUNDS = Number(process.env.BENCH_ROUNDS ?? 7)
const CONNECTIONS = Number(process.env.BENCH_CONNECTIONS ?? 16)
const PG_ADMIN = process.env.LOOKOUT_TEST_PG_URL ?? 'postgres://postgres@127.0.0.1:5432/postgres'
const TARGET = 0.8
const LATENCY_SAMPLES = Number(process.env.BENCH_LATENCY_SAMPLES ?? 400)

type Read = { name: string; engine: string; hand: string; headers?: Record<string, string> }

function reads(clusterId: string): Read[] {
  return [
    {
      name: 'health summary list',
      engine: '/api/db/checks?select=id,name,status,type,namespace,labels,canary_id&deleted_at=is.null&order=name.asc&limit=50',
      hand: '/api/db/_hand/health?limit=50',
    },
    {
      name: 'incidents + hypotheses + evidences',
      engine: '/api/db/incidents?select=*,hypotheses(id,title,type,status,evidences(id,type,description))&order=created_at.desc&limit=25',
      hand: '/api/db/_hand/incidents?limit=25',
    },
    {
      name: 'config changes page, count=exact',
      engine: '/api/db/config_changes?select=id,change_type,severity,created_at,config:configs(id,name,type)&order=created_at.desc&limit=50',
      hand: '/api/db/_hand/config-changes?limit=50',
      headers: { prefer: 'count=exact' },
    },
    {
      name: 'catalog search, ilike + order',
      engine: '/api/db/configs?select=id,name,type,health,status,tags&name=ilike.*pay*&deleted_at=is.null&order=name.asc&limit=50',
      hand: '/api/db/_hand/catalog-search?q=pay&limit=50',
    },
    {
      name: 'rpc related_configs_recursive',
      engine: `/api/db/rpc/related_configs_recursive?config_id=${clusterId}&type_filter=all&max_depth=5`,
      hand: `/api/db/_hand/related?config_id=${clusterId}&type_filter=all&max_depth=5`,
    },
  ]
}

// ---------------------------------------------------------------------------------------------
// The server (child process)

async function serve(): Promise<void> {
  const env = parseEnv({ ...process.env, NODE_ENV: 'production', LOG_LEVEL: 'warn', LOOKOUT_BOOTSTRAP_TOKEN: TOKEN })
  const logger = createLogger('warn')
  // As boot.ts opens it: pool size and statement timeout from the environment.
  const db = await createPostgresDb(env.DATABASE_URL!, { max: env.LOOKOUT_DB_POOL_MAX, statementTimeoutMs: env.LOOKOUT_DB_STATEMENT_TIMEOUT_MS })
  const backend = createBackend({ db, env, logger, appVersion: APP_VERSION, consoleUrl: () => 'http://127.0.0.1' })
  const { authorize } = createDbAuthorization({ db, authorizer: backend.authorizer, logger })

  // The five reads written by hand: fixed SQL, values bound, JSON built by PostgreSQL.
  const hand = express.Router()
  hand.use(requireCredentials(backend.credentials))
  const guarded =
    (relation: string, kind: 'table' | 'rpc', fn: (req: Request, res: Response) => Promise<void>) =>
    (req: Request, res: Response, next: NextFunction) => {
      authorize({ relation, kind, action: 'read', req })
        .then(async (verdict) => {
          if (!verdict.allowed) {
            res.status(verdict.status).json({ code: '42501', message: verdict.message, details: null, hint: null })
            return
          }
          await fn(req, res)
        })
        .catch(next)
    }
  const limitOf = (req: Request, fallback: number): number => {
    const limit = Number(req.query.limit ?? fallback)
    return Number.isInteger(limit) && limit >= 0 ? Math.min(limit, env.LOOKOUT_DB_MAX_ROWS) : fallback
  }
  // Written out as the engine does (no res.send: its ETag would hash every body on this side only).
  const sendJson = (res: Response, body: string, headers: Record<string, string> = {}) => {
    res.writeHead(200, { 'Content-Type': 'application/json; charset=utf-8', 'Content-Length': Buffer.byteLength(body), ...headers })
    res.end(body)
  }

  hand.get(
    '/health',
    guarded('checks', 'table', async (req, res) => {
      const { rows } = await db.query<{ body: string }>(
        `SELECT coalesce(json_agg(t), '[]')::text AS body FROM (
           SELECT id, name, status, type, namespace, labels, canary_id FROM checks
           WHERE deleted_at IS NULL ORDER BY name LIMIT $1) t`,
        [limitOf(req, 50)],
      )
      sendJson(res, rows[0]!.body)
    }),
  )
  hand.get(
    '/incidents',
    guarded('incidents', 'table', async (req, res) => {
      const { rows } = await db.query<{ body: string }>(
        `SELECT coalesce(json_agg(t), '[]')::text AS body FROM (
           SELECT i.*, (
             SELECT coalesce(json_agg(h), '[]') FROM (
               SELECT hy.id, hy.title, hy.type, hy.status, (
                 SELECT coalesce(json_agg(e), '[]') FROM (
                   SELECT ev.id, ev.type, ev.description FROM evidences ev WHERE ev.hypothesis_id = hy.id) e
               ) AS evidences
               FROM hypotheses hy WHERE hy.incident_id = i.id) h
           ) AS hypotheses
           FROM incidents i ORDER BY i.created_at DESC LIMIT $1) t`,
        [limitOf(req, 25)],
      )
      sendJson(res, rows[0]!.body)
    }),
  )
  hand.get(
    '/config-changes',
    guarded('config_changes', 'table', async (req, res) => {
      const limit = limitOf(req, 50)
      const { rows } = await db.query<{ body: string; page: string; total: string }>(
        `SELECT count(*)::int8 AS page, (SELECT count(*) FROM config_changes)::int8 AS total, coalesce(json_agg(t), '[]')::text AS body FROM (
           SELECT cc.id, cc.change_type, cc.severity, cc.created_at,
             CASE WHEN c.id IS NULL THEN NULL ELSE json_build_object('id', c.id, 'name', c.name, 'type', c.type) END AS config
           FROM config_changes cc LEFT JOIN configs c ON c.id = cc.config_id
           ORDER BY cc.created_at DESC LIMIT $1) t`,
        [limit],
      )
      const { body, page, total } = rows[0]!
      sendJson(res, body, { 'Content-Range': Number(page) > 0 ? `0-${Number(page) - 1}/${total}` : `*/${total}` })
    }),
  )
  hand.get(
    '/catalog-search',
    guarded('configs', 'table', async (req, res) => {
      const q = typeof req.query.q === 'string' ? req.query.q : ''
      const { rows } = await db.query<{ body: string }>(
        `SELECT coalesce(json_agg(t), '[]')::text AS body FROM (
           SELECT id, name, type, health, status, tags FROM configs
           WHERE name ILIKE $1 AND deleted_at IS NULL ORDER BY name LIMIT $2) t`,
        [`%${q.replace(/[\\%_]/g, (c) => `\\${c}`)}%`, limitOf(req, 50)],
      )
      sendJson(res, rows[0]!.body)
    }),
  )
  hand.get(
    '/related',
    guarded('related_configs_recursive', 'rpc', async (req, res) => {
      const { rows } = await db.query<{ body: string }>(
        `SELECT coalesce(json_agg(r), '[]')::text AS body
         FROM related_configs_recursive(config_id => $1::uuid, type_filter => $2, max_depth => $3::int) r`,
        [String(req.query.config_id ?? ''), String(req.query.type_filter ?? 'outgoing'), Number(req.query.max_depth ?? 5)],
      )
      sendJson(res, rows[0]!.body)
    }),
  )

  // Inside the gateway's /db sub-base, so both paths cross the same middleware (logging,
  // metrics, security headers, gateway dispatch) before they part.
  const embedded = express.Router()
  embedded.use('/db/_hand', hand)
  embedded.use(backend.router)
  const app = createApp({ env, db, logger, embedded, isMigrated: () => true })
  const server = app.listen(0, '127.0.0.1', () => {
    const address = server.address()
    if (address && typeof address === 'object') console.log(`bench server listening at http://127.0.0.1:${address.port}`)
  })
  const stop = () => {
    server.close()
    void db.close().finally(() => process.exit(0))
  }
  process.on('SIGTERM', stop)
  process.on('SIGINT', stop)
}

// ---------------------------------------------------------------------------------------------
// The driver

async function load(url: string, headers: Record<string, string>, seconds: number): Promise<{ rps: number; errors: number }> {
  const result = await autocannon({
    url,
    connections: CONNECTIONS,
    duration: seconds,
    headers: { authorization: `Bearer ${TOKEN}`, accept: 'application/json', ...headers },
  })
  return { rps: result.requests.average, errors: result.errors + result.non2xx + result.timeouts }
}

function median(values: number[]): number {
  const sorted = [...values].sort((a, b) => a - b)
  return sorted[Math.floor(sorted.length / 2)]!
}

async function fetchJson(url: string, headers: Record<string, string>): Promise<{ body: unknown; contentRange: string | null }> {
  const response = await fetch(url, { headers: { authorization: `Bearer ${TOKEN}`, ...headers } })
  const text = await response.text()
  if (response.status >= 300) throw new Error(`${url} answered ${response.status}: ${text.slice(0, 300)}`)
  return { body: JSON.parse(text) as unknown, contentRange: response.headers.get('content-range') }
}

async function withAdmin<T>(fn: (client: pg.Client) => Promise<T>): Promise<T> {
  const client = new pg.Client({ connectionString: PG_ADMIN, connectionTimeoutMillis: 3000 })
  await client.connect()
  try {
    return await fn(client)
  } finally {
    await client.end()
  }
}

async function main(): Promise<void> {
  const name = `lookout_bench_db_${Date.now().toString(36)}`
  await withAdmin((client) => client.query(`CREATE DATABASE ${name}`))
  const url = new URL(PG_ADMIN)
  url.pathname = `/${name}`
  let server: RunningProcess | undefined
  try {
    const setup = await createPostgresDb(url.toString(), { max: 2 })
    let clusterId: string
    try {
      await migrate(setup)
      await seedDemoData(setup)
      await setup.exec('ANALYZE')
      const { rows } = await setup.query<{ id: string }>(
        `SELECT id FROM config_items WHERE type = 'Kubernetes::Cluster' AND deleted_at IS NULL ORDER BY name LIMIT 1`,
      )
      if (!rows[0]) throw new Error('the demo data has no Kubernetes cluster')
      clusterId = rows[0].id
    } finally {
      await setup.close()
    }

    server = await startProcess('bench/db.ts', { BENCH_DB_ROLE: 'server', DATABASE_URL: url.toString(), LOG_LEVEL: 'warn' }, {
      urlPattern: /bench server listening at (http:\/\/127\.0\.0\.1:\d+)/,
    })
    const base = server.url
    const pairs = reads(clusterId)

    // The same answer from both paths, or the comparison means nothing.
    for (const read of pairs) {
      const viaEngine = await fetchJson(`${base}${read.engine}`, read.headers ?? {})
      const viaHand = await fetchJson(`${base}${read.hand}`, read.headers ?? {})
      if (!isDeepStrictEqual(viaEngine.body, viaHand.body)) {
        throw new Error(`${read.name}: the engine and the hand-written route answer differently`)
      }
      if (read.headers?.prefer && viaEngine.contentRange !== viaHand.contentRange) {
        throw new Error(`${read.name}: Content-Range ${viaEngine.contentRange} vs ${viaHand.contentRange}`)
      }
      const rows = Array.isArray(viaEngine.body) ? viaEngine.body.length : 1
      console.log(`verified equal: ${read.name} (${rows} rows${viaEngine.contentRange ? `, Content-Range ${viaEngine.contentRange}` : ''})`)
    }

    const loadBefore = os.loadavg()[0]!
    console.log(`\nbench/db — PostgreSQL server; ${CONNECTIONS} connections; ${ROUNDS} rounds × ${SECONDS} s per path, back to back; medians`)
    console.log('hand-written routes: same auth + RBAC check, one db.query each, JSON built in SQL (json_agg), sent as text\n')
    const engineRuns = pairs.map(() => [] as number[])
    const handRuns = pairs.map(() => [] as number[])
    const errorCounts = pairs.map(() => 0)
    // Warm both paths of every read (JIT, pool, plan caches) before measuring.
    for (const read of pairs) {
      await load(`${base}${read.engine}`, read.headers ?? {}, 1)
      await load(`${base}${read.hand}`, read.headers ?? {}, 1)
    }
    // Rounds outside, reads inside: the two runs of a pair are always back to back, and who
    // goes first alternates, so drift on a shared machine hits both sides alike.
    for (let round = 0; round < ROUNDS; round++) {
      for (const [index, read] of pairs.entries()) {
        const order = round % 2 === 0 ? (['engine', 'hand'] as const) : (['hand', 'engine'] as const)
        for (const side of order) {
          const figures = await load(`${base}${side === 'engine' ? read.engine : read.hand}`, read.headers ?? {}, SECONDS)
          ;(side === 'engine' ? engineRuns : handRuns)[index]!.push(figures.rps)
          errorCounts[index]! += figures.errors
        }
      }
      process.stderr.write(`round ${round + 1}/${ROUNDS} done\n`)
    }
    const results = pairs.map((read, index) => {
      const engineRps = engineRuns[index]!
      const handRps = handRuns[index]!
      // The ratio is the median of the per-round ratios (each from two back-to-back runs).
      const ratio = median(engineRps.map((rps, round) => rps / handRps[round]!))
      return { name: read.name, engine: median(engineRps), hand: median(handRps), ratio, errors: errorCounts[index]! }
    })
    for (const result of results) {
      console.log(
        `${result.name.padEnd(36)} /api/db ${result.engine.toFixed(0).padStart(6)} req/s   hand-written ${result.hand.toFixed(0).padStart(6)} req/s   ratio ${result.ratio.toFixed(3)}${result.errors ? `   errors ${result.errors}` : ''}`,
      )
    }
    // A second view that shared-machine noise disturbs less: one request at a time, the two
    // paths strictly alternating, median latency of each and the difference.
    console.log(`\none request at a time, ${LATENCY_SAMPLES} alternating pairs per read: median latency`)
    for (const read of pairs) {
      const engineMs: number[] = []
      const handMs: number[] = []
      for (let i = 0; i < LATENCY_SAMPLES; i++) {
        const order = i % 2 === 0 ? [read.engine, read.hand] : [read.hand, read.engine]
        for (const path of order) {
          const started = performance.now()
          const response = await fetch(`${base}${path}`, { headers: { authorization: `Bearer ${TOKEN}`, ...(read.headers ?? {}) } })
          await response.arrayBuffer()
          ;(path === read.engine ? engineMs : handMs).push(performance.now() - started)
        }
      }
      const engineP50 = median(engineMs)
      const handP50 = median(handMs)
      console.log(
        `${read.name.padEnd(36)} /api/db ${engineP50.toFixed(2).padStart(6)} ms   hand-written ${handP50.toFixed(2).padStart(6)} ms   added ${(engineP50 - handP50).toFixed(2)} ms`,
      )
    }

    const failing = results.filter((result) => result.ratio < TARGET)
    const errors = results.reduce((sum, result) => sum + result.errors, 0)
    console.log(`\ntarget: ratio ≥ ${TARGET} on each read — ${failing.length === 0 ? 'met' : `missed on ${failing.map((r) => r.name).join(', ')}`}`)
    console.log(`errors and non-2xx answers: ${errors}`)
    // Other work on the machine moves absolute req/s a lot; the paired ratios are what to read.
    console.log(`1-min load average: ${loadBefore.toFixed(1)} before, ${os.loadavg()[0]!.toFixed(1)} after (${os.cpus().length} CPUs)`)
  } finally {
    await server?.stop()
    await withAdmin((client) => client.query(`DROP DATABASE IF EXISTS ${name} WITH (FORCE)`))
  }
}

const run = process.env.BENCH_DB_ROLE === 'server' ? serve : main
run().catch((error: unknown) => {
  console.error(error)
  process.exit(1)
})
