/**
 * bench/agent-push — agent mode end to end (issue 18): 10,000 check results written in an
 * agent's own PostgreSQL database are pushed by the agent's outbox loop (server/backend/agents/
 * agent-push.ts) over HTTP to a central console (gateway + embedded backend on its own
 * PostgreSQL database), stored there under the agent, and marked pushed on the agent.
 * Target: ≤ 5 s. For scale, the same 10,000 rows inserted straight into the central database
 * with one INSERT … SELECT (the floor no replication can beat) are timed too, and the ratio
 * printed; so is a second drain with nothing pending (the idle cost of the loop).
 *
 *   npx tsx bench/agent-push.ts        (PostgreSQL on 127.0.0.1:5432, user postgres)
 *   BENCH_RESULTS=10000 BENCH_CHECKS=10 BENCH_BATCH=2000
 *
 * Exits 1 when the push misses the target or the central count is wrong.
 */
import http from 'node:http'
import type { AddressInfo } from 'node:net'
import { createApp } from '../server/app.ts'
import { createAgentPush } from '../server/backend/agents/agent-push.ts'
import { createBackend } from '../server/backend/backend-app.ts'
import { APP_VERSION } from '../server/boot.ts'
import { createPostgresDb, type Db } from '../server/db/client.ts'
import { migrate } from '../server/db/migrate.ts'
import { parseEnv } from '../server/env.ts'
import { createLogger } from '../server/logger.ts'
import { scratchDatabase } from './support/scratch-database.ts'

const RESULTS = Number(process.env.BENCH_RESULTS ?? 10_000)
const CHECKS = Number(process.env.BENCH_CHECKS ?? 10)
const BATCH = Number(process.env.BENCH_BATCH ?? 2_000)
const TARGET_MS = 5_000
const TOKEN = 'bench-agent-push-bootstrap-0123456789'

async function seedAgentResults(db: Db): Promise<void> {
  const canary = await db.query<{ id: string }>(`INSERT INTO canaries (name, namespace, spec) VALUES ('bench', 'default', '{}') RETURNING id::text`)
  await db.query(
    `INSERT INTO checks (canary_id, type, name, status) SELECT $1, 'http', 'bench-' || g, 'healthy' FROM generate_series(1, $2::int) g`,
    [canary.rows[0]!.id, CHECKS],
  )
  // As the check engine writes them: one row per run, a message, a duration, a few failures.
  await db.query(
    `INSERT INTO check_statuses (check_id, time, status, duration, message, error, details)
     SELECT c.id, now() - make_interval(secs => g), g % 17 <> 0, 20 + g % 300, 'HTTP 200 in ' || (20 + g % 300) || 'ms',
            CASE WHEN g % 17 = 0 THEN 'timeout after 5s' END, jsonb_build_object('code', 200, 'bytes', 1024 + g % 4096)
       FROM (SELECT id, row_number() OVER (ORDER BY id) AS n FROM checks) c
       JOIN generate_series(1, $1::int) g ON g % $2::int = c.n - 1`,
    [RESULTS, CHECKS],
  )
}

async function main(): Promise<void> {
  const centralDatabase = await scratchDatabase('lookout_bench_central', true)
  const agentDatabase = await scratchDatabase('lookout_bench_agent', true)
  const central = await createPostgresDb(centralDatabase!.url, { max: 10 })
  const agentDb = await createPostgresDb(agentDatabase!.url, { max: 4 })
  let server: http.Server | undefined
  try {
    await Promise.all([migrate(central), migrate(agentDb)])
    const env = parseEnv({ NODE_ENV: 'production', LOG_LEVEL: 'silent', LOOKOUT_BOOTSTRAP_TOKEN: TOKEN })
    const logger = createLogger('silent')
    const backend = createBackend({ db: central, env, logger, appVersion: APP_VERSION, consoleUrl: () => 'http://127.0.0.1' })
    const app = createApp({ env, db: central, logger, embedded: backend.router, isMigrated: () => true })
    server = http.createServer(app)
    await new Promise<void>((resolve) => server!.listen(0, '127.0.0.1', resolve))
    const base = `http://127.0.0.1:${(server.address() as AddressInfo).port}`

    const generated = await fetch(`${base}/api/agent/generate`, {
      method: 'POST',
      headers: { Authorization: `Bearer ${TOKEN}`, 'Content-Type': 'application/json' },
      body: JSON.stringify({ name: 'bench-agent' }),
    })
    if (generated.status !== 201) throw new Error(`generate answered ${generated.status}: ${await generated.text()}`)
    const agent = (await generated.json()) as { access_token: string; agent_id: string }

    await seedAgentResults(agentDb)
    const pusher = createAgentPush({ db: agentDb, logger, url: `${base}/api`, token: agent.access_token, batchSize: BATCH, intervalMs: 1_000 })

    const started = performance.now()
    const round = await pusher.drain()
    const pushMs = performance.now() - started

    const idleStarted = performance.now()
    const idle = await pusher.drain()
    const idleMs = performance.now() - idleStarted

    const stored = await central.query<{ n: number }>(
      `SELECT count(*)::int AS n FROM check_statuses s JOIN checks c ON c.id = s.check_id WHERE c.agent_id = $1`,
      [agent.agent_id],
    )
    const pending = await agentDb.query<{ n: number }>('SELECT count(*)::int AS n FROM check_statuses WHERE NOT is_pushed')

    // The floor: the same number of rows inserted straight into the central database.
    const floorCheck = await central.query<{ id: string }>(`SELECT id::text FROM checks WHERE agent_id = $1 LIMIT 1`, [agent.agent_id])
    const floorStarted = performance.now()
    await central.query(
      `INSERT INTO check_statuses (check_id, time, status, duration, message, details)
       SELECT $1, now() - make_interval(secs => g) - interval '1 year', true, 20, 'HTTP 200', jsonb_build_object('code', 200) FROM generate_series(1, $2::int) g`,
      [floorCheck.rows[0]!.id, RESULTS],
    )
    const floorMs = performance.now() - floorStarted

    const ok = stored.rows[0]!.n === RESULTS && pending.rows[0]!.n === 0 && pushMs <= TARGET_MS
    console.log(`agent push, ${RESULTS} check results of ${CHECKS} checks, batches of ${BATCH}, PostgreSQL both sides`)
    console.log(`  end to end (read, POST, central upsert, mark):  ${pushMs.toFixed(0)} ms  (${round.requests} requests, ${round.rows} rows; target ≤ ${TARGET_MS} ms)`)
    console.log(`  rows/s:                                          ${Math.round((round.rows / pushMs) * 1000)}`)
    console.log(`  central holds under the agent:                  ${stored.rows[0]!.n}; still pending on the agent: ${pending.rows[0]!.n}`)
    console.log(`  idle drain (nothing pending):                    ${idleMs.toFixed(1)} ms (${idle.requests} requests)`)
    console.log(`  floor, one INSERT … SELECT of ${RESULTS} rows:    ${floorMs.toFixed(0)} ms`)
    console.log(`  ratio push / floor:                              ${(pushMs / floorMs).toFixed(1)}×`)
    console.log(ok ? 'PASS' : 'FAIL')
    if (!ok) process.exitCode = 1
  } finally {
    if (server) await new Promise<void>((resolve) => server!.close(() => resolve()))
    await Promise.all([central.close(), agentDb.close()])
    await centralDatabase!.drop()
    await agentDatabase!.drop()
  }
}


main().catch((error: unknown) => {
  console.error(error)
  process.exit(1)
})
