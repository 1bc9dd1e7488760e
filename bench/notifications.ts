/**
 * bench/notifications — the notification pipeline (issue 17, docs/decisions/026) on fresh databases:
 *
 * 1. latency: an http check run by the real check engine (Run Now: the check, storeRuns, the
 *    status trigger that queues check.failed) against a loopback server answering 500, then 200,
 *    alternately, so every failure is a new event; a rule with a `webhook` recipient posts to a
 *    loopback receiver in this process. Measured from the moment the failing result is committed
 *    (runNow resolves) to the moment the receiver gets the request, with the consumer and the
 *    dispatcher of this process at their production settings. Baseline: the same message sent
 *    by calling sendNotification directly. Target p99 ≤ 2 s.
 * 2. throughput: 10,000 check.failed events queued at once, then consumed and delivered by TWO
 *    child processes (each an event consumer with the notification rules and a dispatcher) on
 *    one PostgreSQL database, to one loopback receiver here. Each event's message names its
 *    check, and each check has exactly one send-history row, so the receiver's count per check
 *    is the count per notification: lost and duplicated must be 0. Ratios against ONE child
 *    process doing the same on its own fresh database (run second), and against raw loopback
 *    POSTs to the same receiver. BENCH_DEADLINE_SECONDS (240) bounds each run. Without a PostgreSQL server, the one-process run happens on PGlite in this
 *    process instead, and the two-process run is skipped (PGlite is one process's database).
 *
 *   npm run bench:notifications         (PostgreSQL on 127.0.0.1:5432 when reachable, else PGlite)
 *   BENCH_DB=postgres|pglite BENCH_FAILURES=60 BENCH_EVENTS=10000
 *   BENCH_CONSUMERS=4 BENCH_SENDERS=16 BENCH_POOL=8   (per process: events handled at once,
 *                                                     sends at once, connections)
 *
 * The bench's dispatchers have no egress guard: the server's refuses loopback receivers unless
 * LOOKOUT_CHECK_ALLOWED_TARGETS names them. Exits 1 when a send is lost or duplicated, a run
 * does not finish, or a target is missed.
 */
import { spawn, type ChildProcess } from 'node:child_process'
import { createServer, type IncomingMessage, type ServerResponse } from 'node:http'
import type { AddressInfo } from 'node:net'
import { loadavg } from 'node:os'
import pino from 'pino'
import { createPGliteDb, createPostgresDb, type Db } from '../server/db/client.ts'
import { migrate } from '../server/db/migrate.ts'
import { applyCanary } from '../server/backend/health/canary-store.ts'
import { createCheckEngine } from '../server/backend/health/check-engine.ts'
import { createEventConsumer, type EventConsumer } from '../server/backend/events/event-consumer.ts'
import { createIncidentRulesHandlers } from '../server/backend/incidents/incident-rules.ts'
import { createPlaybookTriggerHandlers, mergeEventHandlers } from '../server/backend/playbooks/playbook-triggers.ts'
import { createNotificationHandlers } from '../server/backend/notifications/notification-matching.ts'
import { createNotificationDispatcher, type NotificationDispatcher } from '../server/backend/notifications/notification-dispatcher.ts'
import { sendNotification } from '../server/backend/notifications/senders/index.ts'
import { scratchDatabase } from './support/scratch-database.ts'

const FAILURES = Number(process.env.BENCH_FAILURES ?? 60)
const EVENTS = Number(process.env.BENCH_EVENTS ?? 10_000)
const CONSUMERS = Number(process.env.BENCH_CONSUMERS ?? 4)
const SENDERS = Number(process.env.BENCH_SENDERS ?? 16)
const POOL = Number(process.env.BENCH_POOL ?? 8)
const TARGET_P99_MS = 2_000
const DEADLINE_MS = Number(process.env.BENCH_DEADLINE_SECONDS ?? 240) * 1000

const logger = pino({ level: process.env.LOG_LEVEL ?? 'warn' })
const sleep = (ms: number) => new Promise((resolve) => setTimeout(resolve, ms))
const load = () => loadavg().map((value) => value.toFixed(2)).join(' ')

async function within<T>(promise: Promise<T>, ms: number, what: string): Promise<T> {
  let timer: NodeJS.Timeout | undefined
  const timeout = new Promise<never>((_, reject) => (timer = setTimeout(() => reject(new Error(`timed out after ${ms} ms waiting for ${what}`)), ms)))
  try {
    return await Promise.race([promise, timeout])
  } finally {
    clearTimeout(timer)
  }
}

function percentile(values: number[], q: number): number {
  const sorted = [...values].sort((a, b) => a - b)
  return sorted.length === 0 ? 0 : sorted[Math.min(sorted.length - 1, Math.ceil(q * sorted.length) - 1)]!
}

/** What the production consumer runs (background-workers.ts): incident rules, playbook triggers and notification rules, merged. */
function productionHandlers(db: Db) {
  return mergeEventHandlers(createIncidentRulesHandlers(db, logger), createPlaybookTriggerHandlers(db, logger), createNotificationHandlers(db, logger))
}

type Pipeline = { consumer: EventConsumer; dispatcher: NotificationDispatcher }

function createPipeline(db: Db, options: { databaseUrl?: string; tuned: boolean }): Pipeline {
  // Untuned is the production default (one event at a time, ten sends, 1 s polls); the bulk runs raise what one process does at once.
  const tuned = options.tuned ? { concurrency: CONSUMERS } : {}
  return {
    consumer: createEventConsumer({ db, logger, databaseUrl: options.databaseUrl, handlers: productionHandlers(db), ...tuned }),
    dispatcher: createNotificationDispatcher({ db, logger, ...(options.tuned ? { concurrency: SENDERS } : {}) }),
  }
}

const startPipeline = (pipeline: Pipeline) => Promise.all([pipeline.consumer.start(), pipeline.dispatcher.start()])
const stopPipeline = async (pipeline: Pipeline) => {
  await pipeline.consumer.stop()
  await pipeline.dispatcher.stop()
}

// ---- the loopback server: the checked service, the latency receiver and the bulk receiver ----

type Loopback = {
  base: string
  /** What /check answers. */
  checkStatus: number
  /** Resolves with the arrival time (performance.now()) of the next request to /latency. */
  nextLatencyHit(): Promise<number>
  /** Requests to /bulk per message title. */
  bulk: Map<string, number>
  bulkRequests: number
  close(): Promise<void>
}

async function startLoopback(): Promise<Loopback> {
  let latencyWaiter: ((at: number) => void) | null = null
  const state: Loopback = {
    base: '',
    checkStatus: 200,
    nextLatencyHit: () => new Promise((resolve) => (latencyWaiter = resolve)),
    bulk: new Map(),
    bulkRequests: 0,
    close: () =>
      new Promise((resolve) => {
        server.close(() => resolve())
        server.closeAllConnections()
      }),
  }
  const server = createServer((req: IncomingMessage, res: ServerResponse) => {
    const arrived = performance.now()
    const path = (req.url ?? '').split('?')[0]
    if (path === '/check') {
      req.resume()
      res.writeHead(state.checkStatus, { 'content-type': 'text/plain' }).end(state.checkStatus === 200 ? 'ok' : 'broken')
      return
    }
    let text = ''
    req.setEncoding('utf8')
    req.on('data', (chunk: string) => (text += chunk))
    req.on('end', () => {
      if (path === '/latency') {
        const waiter = latencyWaiter
        latencyWaiter = null
        waiter?.(arrived)
      } else if (path === '/bulk') {
        const title = String((JSON.parse(text || '{}') as { title?: unknown }).title ?? '')
        state.bulkRequests += 1
        state.bulk.set(title, (state.bulk.get(title) ?? 0) + 1)
      }
      res.writeHead(200, { 'content-type': 'text/plain' }).end('ok')
    })
  })
  server.keepAliveTimeout = 120_000
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve))
  state.base = `http://127.0.0.1:${(server.address() as AddressInfo).port}`
  return state
}

// ---- databases ----------------------------------------------------------------------------------

type BenchDb = { db: Db; url?: string; engine: string; drop(): Promise<void> }

async function openDb(prefix: string): Promise<BenchDb> {
  const wanted = process.env.BENCH_DB
  const scratch = wanted === 'pglite' ? undefined : await scratchDatabase(prefix, wanted === 'postgres')
  const db = scratch ? await createPostgresDb(scratch.url, { max: POOL }) : await createPGliteDb(undefined)
  await migrate(db)
  return {
    db,
    url: scratch?.url,
    engine: scratch ? 'PostgreSQL' : 'PGlite (in memory)',
    async drop() {
      await db.close()
      await scratch?.drop()
    },
  }
}

async function insertRule(db: Db, name: string, webhookUrl: string): Promise<string> {
  const services = [{ name: 'hook', webhook: { url: webhookUrl } }]
  const { rows } = await db.query<{ id: string }>(
    `INSERT INTO notifications (name, namespace, events, title, custom_services, source) VALUES ($1, 'bench', '{check.failed}', '{{.check.name}}', $2::jsonb, 'UI') RETURNING id`,
    [name, JSON.stringify(services)],
  )
  return rows[0]!.id
}

// ---- 1. latency ---------------------------------------------------------------------------------

async function latency(loopback: Loopback): Promise<boolean> {
  const { db, url, engine: dbEngine, drop } = await openDb('bench_notify_latency')
  const engine = createCheckEngine({ db, logger, processId: 'bench-latency' })
  const pipeline = createPipeline(db, { databaseUrl: url, tuned: false })
  try {
    await applyCanary(db, {
      name: 'notify-latency',
      namespace: 'bench',
      labels: {},
      annotations: null,
      spec: { schedule: '@every 1h', http: [{ name: 'flapping-api', url: `${loopback.base}/check`, responseCodes: [200] }] },
    }, { trustedWriter: 'server' })
    const checkId = (await db.query<{ id: string }>(`SELECT id FROM checks WHERE name = 'flapping-api'`)).rows[0]!.id
    await insertRule(db, 'notify-latency', `${loopback.base}/latency`)
    await startPipeline(pipeline)

    const runAs = async (status: number) => {
      loopback.checkStatus = status
      const result = await engine.runNow(checkId)
      if ((status === 200) !== (result?.pass === true)) throw new Error(`the check answered ${JSON.stringify(result)} for a ${status}`)
    }
    // The first run gives the check a status, so the next failure is a change that queues an event.
    await runAs(200)
    const latencies: number[] = []
    for (let i = 0; i < FAILURES; i++) {
      const hit = loopback.nextLatencyHit()
      await runAs(500)
      const stored = performance.now()
      const arrived = await within(hit, 30_000, `failure ${i + 1} to be delivered`)
      // runNow resolves just after the commit; a receiver faster than that callback counts as 0.
      latencies.push(Math.max(0, arrived - stored))
      await runAs(200)
    }

    const direct: number[] = []
    for (let i = 0; i < FAILURES; i++) {
      const hit = loopback.nextLatencyHit()
      const started = performance.now()
      await sendNotification(`generic+${loopback.base}/latency?method=POST`, { title: 'flapping-api', message: 'Check: flapping-api (http)\nStatus: unhealthy' })
      direct.push((await hit) - started)
    }
    const [p50, p99, baseP50, baseP99] = [percentile(latencies, 0.5), percentile(latencies, 0.99), percentile(direct, 0.5), percentile(direct, 0.99)]
    const { rows } = await db.query<{ sent: number }>(`SELECT count(*)::int AS sent FROM notification_send_history WHERE status = 'sent'`)
    console.log(`1. check failure → webhook delivery, ${FAILURES} failures of a real http check on ${dbEngine} (production consumer and dispatcher settings):`)
    console.log(`   failing result stored → receiver got the request: p50 ${p50.toFixed(1)} ms, p99 ${p99.toFixed(1)} ms, max ${Math.max(...latencies).toFixed(1)} ms (target p99 ≤ ${TARGET_P99_MS} ms)`)
    console.log(`   baseline sendNotification direct: p50 ${baseP50.toFixed(1)} ms, p99 ${baseP99.toFixed(1)} ms; pipeline ${(p50 / baseP50).toFixed(0)}× at p50, ${(p99 / baseP99).toFixed(0)}× at p99; ${rows[0]!.sent} rows sent`)
    return p99 <= TARGET_P99_MS && rows[0]!.sent === FAILURES
  } finally {
    await stopPipeline(pipeline)
    await engine.stop()
    await drop()
  }
}

// ---- 2. throughput ------------------------------------------------------------------------------

/** EVENTS checks, each made unhealthy at once: EVENTS check.failed events queued by the status trigger. */
async function seedBulk(db: Db, receiverUrl: string): Promise<{ ruleId: string; checkNames: string[]; enqueueMs: number }> {
  const ruleId = await insertRule(db, 'notify-bulk', receiverUrl)
  const canary = (await db.query<{ id: string }>(`INSERT INTO canaries (name, namespace, spec) VALUES ('notify-bulk', 'bench', '{}') RETURNING id`)).rows[0]!.id
  await db.query(
    `WITH made AS (INSERT INTO checks (canary_id, type, name, status) SELECT $1, 'http', 'bulk-' || lpad(n::text, 5, '0'), 'healthy' FROM generate_series(1, $2::int) n RETURNING id)
     INSERT INTO checks_unlogged (check_id, canary_id, status) SELECT id, $1, 'healthy' FROM made`,
    [canary, EVENTS],
  )
  const started = performance.now()
  await db.query(`UPDATE checks_unlogged SET status = 'unhealthy' WHERE canary_id = $1`, [canary])
  const enqueueMs = performance.now() - started
  const queued = (await db.query<{ n: number }>(`SELECT count(*)::int AS n FROM event_queue WHERE name = 'check.failed'`)).rows[0]!.n
  if (queued !== EVENTS) throw new Error(`${queued} events queued, not ${EVENTS}`)
  const checkNames = (await db.query<{ name: string }>('SELECT name FROM checks WHERE canary_id = $1', [canary])).rows.map((row) => row.name)
  return { ruleId, checkNames, enqueueMs }
}

type WorkerStats = { processed: number; sent: number; failed: number; claimed: number; cpuMs: number }
type Worker = { child: ChildProcess; ready: Promise<void>; go(): void; stop(): Promise<WorkerStats> }

function spawnWorker(databaseUrl: string, id: string): Worker {
  const child = spawn(process.execPath, [...process.execArgv, process.argv[1]!], {
    stdio: ['ignore', 'inherit', 'inherit', 'ipc'],
    env: { ...process.env, BENCH_ROLE: 'worker', BENCH_WORKER_URL: databaseUrl, BENCH_WORKER_ID: id },
  })
  const message = (kind: string) =>
    new Promise<unknown>((resolve, reject) => {
      const onMessage = (value: { kind?: string; stats?: WorkerStats }) => {
        if (value?.kind !== kind) return
        child.off('message', onMessage)
        resolve(value.stats)
      }
      child.on('message', onMessage)
      child.once('exit', (code) => reject(new Error(`worker ${id} exited with ${code} before "${kind}"`)))
    })
  const ready = message('ready').then(() => undefined)
  return {
    child,
    ready,
    go: () => child.send({ kind: 'go' }),
    async stop() {
      const stats = message('stopped') as Promise<WorkerStats>
      child.send({ kind: 'stop' })
      const result = await stats
      await new Promise((resolve) => (child.exitCode === null ? child.once('exit', resolve) : resolve(undefined)))
      return result
    },
  }
}

/** One worker process: the production consumer (tuned) and a dispatcher, started on "go", stopped on "stop". */
async function workerMain(): Promise<void> {
  const url = process.env.BENCH_WORKER_URL!
  const id = process.env.BENCH_WORKER_ID!
  const db = await createPostgresDb(url, { max: POOL })
  const handlers = productionHandlers(db)
  const consumer = createEventConsumer({ db, logger, databaseUrl: url, handlers, concurrency: CONSUMERS, processId: `${id}-events` })
  const dispatcher = createNotificationDispatcher({ db, logger, concurrency: SENDERS, processId: `${id}-sends` })
  let cpu = process.cpuUsage()
  process.on('message', (value: { kind?: string }) => {
    if (value?.kind === 'go') {
      cpu = process.cpuUsage()
      void Promise.all([consumer.start(), dispatcher.start()])
    }
    if (value?.kind === 'stop') {
      void (async () => {
        await consumer.stop()
        await dispatcher.stop()
        await db.close()
        const used = process.cpuUsage(cpu)
        const { sent, failed, claimed } = dispatcher.stats()
        process.send!({ kind: 'stopped', stats: { processed: consumer.stats().processed, sent, failed, claimed, cpuMs: (used.user + used.system) / 1000 } }, () => process.exit(0))
      })()
    }
  })
  process.send!({ kind: 'ready' })
}

type BulkOutcome = { label: string; ms: number; finished: boolean; lost: number; duplicated: number; rowsNotSent: number; enqueueMs: number; perProcess: WorkerStats[] }

/**
 * Waits until every check's message arrived and the database says every row is sent, no event is
 * queued and no lease held; answers the time the last message arrived, and whether all that
 * happened before the deadline.
 */
async function waitDelivered(db: Db, loopback: Loopback, started: number): Promise<{ ms: number; finished: boolean }> {
  let done = 0
  while (performance.now() - started < DEADLINE_MS) {
    if (loopback.bulk.size >= EVENTS && done === 0) done = performance.now() - started
    if (done > 0) {
      const { rows } = await db.query<{ open: number; queued: number; leases: number }>(
        `SELECT (SELECT count(*)::int FROM notification_send_history WHERE status <> 'sent') AS open,
                (SELECT count(*)::int FROM event_queue) AS queued,
                (SELECT count(*)::int FROM lookout.notification_send_leases) AS leases`,
      )
      if (rows[0]!.open === 0 && rows[0]!.queued === 0 && rows[0]!.leases === 0) return { ms: done, finished: true }
    }
    await sleep(done > 0 ? 100 : 20)
  }
  return { ms: done || performance.now() - started, finished: false }
}

async function countOutcome(db: Db, loopback: Loopback, checkNames: string[]): Promise<Pick<BulkOutcome, 'lost' | 'duplicated' | 'rowsNotSent'>> {
  let lost = 0
  let duplicated = 0
  for (const name of checkNames) {
    const count = loopback.bulk.get(name) ?? 0
    if (count === 0) lost += 1
    else duplicated += count - 1
  }
  // Matching twice would show as two rows for one check (and two requests); a row left unsent as a loss.
  const { rows } = await db.query<{ rows: number; not_sent: number }>(`SELECT count(*)::int AS rows, count(*) FILTER (WHERE status <> 'sent')::int AS not_sent FROM notification_send_history`)
  if (rows[0]!.rows !== EVENTS) console.log(`   ${rows[0]!.rows} send-history rows for ${EVENTS} events`)
  return { lost, duplicated, rowsNotSent: rows[0]!.not_sent }
}

async function bulkInProcesses(loopback: Loopback, processes: number): Promise<BulkOutcome> {
  const { db, url, drop } = await openDb(`bench_notify_${processes}p`)
  loopback.bulk.clear()
  loopback.bulkRequests = 0
  const workers: Worker[] = []
  try {
    const { checkNames, enqueueMs } = await seedBulk(db, `${loopback.base}/bulk`)
    for (let i = 0; i < processes; i++) workers.push(spawnWorker(url!, `p${i + 1}`))
    await Promise.all(workers.map((worker) => worker.ready))
    const started = performance.now()
    for (const worker of workers) worker.go()
    const { ms, finished } = await waitDelivered(db, loopback, started)
    // Late duplicates would arrive now, if any.
    await sleep(1_000)
    const perProcess = await Promise.all(workers.splice(0).map((worker) => worker.stop()))
    return { label: `${processes} process${processes > 1 ? 'es' : ''}`, ms, finished, enqueueMs, perProcess, ...(await countOutcome(db, loopback, checkNames)) }
  } finally {
    for (const worker of workers) worker.child.kill('SIGTERM')
    await drop()
  }
}

async function bulkOnPglite(loopback: Loopback): Promise<BulkOutcome> {
  const { db, drop } = await openDb('unused')
  loopback.bulk.clear()
  loopback.bulkRequests = 0
  const pipeline = createPipeline(db, { tuned: true })
  try {
    const { checkNames, enqueueMs } = await seedBulk(db, `${loopback.base}/bulk`)
    const started = performance.now()
    const cpu = process.cpuUsage()
    await startPipeline(pipeline)
    const { ms, finished } = await waitDelivered(db, loopback, started)
    await stopPipeline(pipeline)
    const used = process.cpuUsage(cpu)
    const { sent, failed, claimed } = pipeline.dispatcher.stats()
    const stats = { processed: pipeline.consumer.stats().processed, sent, failed, claimed, cpuMs: (used.user + used.system) / 1000 }
    return { label: '1 process (this one, PGlite)', ms, finished, enqueueMs, perProcess: [stats], ...(await countOutcome(db, loopback, checkNames)) }
  } finally {
    await stopPipeline(pipeline)
    await drop()
  }
}

/** Raw loopback POSTs of the same body, SENDERS at a time: what the receiver and fetch alone sustain here. */
async function rawPosts(loopback: Loopback): Promise<number> {
  let next = 0
  const started = performance.now()
  await Promise.all(
    Array.from({ length: SENDERS }, async () => {
      while (next < EVENTS) {
        next += 1
        const response = await fetch(`${loopback.base}/raw`, { method: 'POST', headers: { 'content-type': 'application/json' }, body: JSON.stringify({ title: `bulk-${next}`, message: 'Check: bulk (http)\nStatus: unhealthy' }) })
        await response.arrayBuffer()
      }
    }),
  )
  return EVENTS / ((performance.now() - started) / 1000)
}

function report(outcome: BulkOutcome, reference?: BulkOutcome): void {
  const rate = EVENTS / (outcome.ms / 1000)
  const ratio = reference ? `; ${(rate / (EVENTS / (reference.ms / 1000))).toFixed(2)}× the sends/s of ${reference.label}` : ''
  if (!outcome.finished) {
    console.log(`   ${outcome.label}: NOT FINISHED within ${DEADLINE_MS / 1000} s (BENCH_DEADLINE_SECONDS): ${EVENTS - outcome.lost} of ${EVENTS} delivered, duplicated = ${outcome.duplicated}, rows not sent = ${outcome.rowsNotSent}`)
  } else {
    console.log(`   ${outcome.label}: ${EVENTS} events → ${(outcome.ms / 1000).toFixed(1)} s = ${rate.toFixed(0)} sends/s${ratio}; lost = ${outcome.lost}, duplicated = ${outcome.duplicated}, rows not sent = ${outcome.rowsNotSent}`)
  }
  const cpuMs = outcome.perProcess.reduce((sum, p) => sum + p.cpuMs, 0)
  console.log(`     per process (events handled / sends claimed / sent / failed / CPU s): ${outcome.perProcess.map((p) => `${p.processed}/${p.claimed}/${p.sent}/${p.failed}/${(p.cpuMs / 1000).toFixed(1)}`).join(', ')}; ` +
    `${(cpuMs / EVENTS).toFixed(2)} ms of worker CPU per event; enqueueing took ${(outcome.enqueueMs / 1000).toFixed(1)} s`)
}

async function main(): Promise<void> {
  console.log(`bench/notifications (load average ${load()}; per process: ${CONSUMERS} events at once, ${SENDERS} sends at once, ${POOL} connections)`)
  const loopback = await startLoopback()
  let ok = true
  try {
    ok = (await latency(loopback)) && ok
    const postgres = process.env.BENCH_DB !== 'pglite' && (await scratchDatabase('bench_notify_probe', process.env.BENCH_DB === 'postgres').then(async (probe) => (await probe?.drop(), !!probe)))
    console.log(`2. ${EVENTS} check.failed events queued at once, delivered to one loopback webhook receiver:`)
    const raw = await rawPosts(loopback)
    console.log(`   baseline raw loopback POSTs, ${SENDERS} at a time from this process: ${raw.toFixed(0)}/s`)
    let outcomes: BulkOutcome[]
    if (postgres) {
      // Two processes first: theirs is the figure asked for, the one-process run is its yardstick.
      const two = await bulkInProcesses(loopback, 2)
      const one = await bulkInProcesses(loopback, 1)
      report(one)
      report(two, one)
      console.log(`   two processes at ${(EVENTS / (two.ms / 1000) / raw).toFixed(2)}× the raw POST rate`)
      outcomes = [one, two]
    } else {
      const why = process.env.BENCH_DB === 'pglite' ? 'BENCH_DB=pglite' : 'no PostgreSQL server answered on 127.0.0.1:5432'
      console.log(`   ${why}: the two-process run needs a PostgreSQL server and is skipped; one process on PGlite instead`)
      const one = await bulkOnPglite(loopback)
      report(one)
      outcomes = [one]
    }
    ok = outcomes.every((outcome) => outcome.finished && outcome.lost === 0 && outcome.duplicated === 0 && outcome.rowsNotSent === 0) && ok
  } finally {
    await loopback.close()
  }
  console.log(`${ok ? 'targets met' : 'TARGETS MISSED'} (load average at end ${load()})`)
  process.exitCode = ok ? 0 : 1
}

const role = process.env.BENCH_ROLE === 'worker' ? workerMain : main
role().catch((error: unknown) => {
  console.error(error)
  process.exit(1)
})
