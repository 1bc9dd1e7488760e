/**
 * bench/playbooks — the playbook runner (issue 16) on a fresh database, in this process:
 *
 * 1. latency: a run is created (createPlaybookRun, what POST /api/playbook/run calls) while the
 *    runner is idle and listening; measured until its first action row is `running`.
 *    Baseline: one INSERT … RETURNING round trip on the same database (the floor of any write).
 *    Target p50 ≤ 200 ms.
 * 2. throughput: 100 runs of a two-action exec playbook created at once; measured until all are
 *    final. Baseline: the same 200 bash scripts run directly, 25 at a time (the runner's default
 *    concurrency), so the ratio is the runner's own overhead. Target ≤ 10 s.
 * 3. memory: the process's peak RSS while the runner works (sampled every 50 ms).
 *
 *   npx tsx bench/playbooks.ts            (PostgreSQL on 127.0.0.1:5432 when reachable, else PGlite)
 *   BENCH_DB=postgres|pglite BENCH_RUNS=100 BENCH_SAMPLES=20
 *
 * Exits 1 when a target is missed.
 */
import { loadavg } from 'node:os'
import pino from 'pino'
import { createPGliteDb, createPostgresDb, type Db } from '../server/db/client.ts'
import { migrate } from '../server/db/migrate.ts'
import { createPlaybookRunner } from '../server/backend/playbooks/playbook-runner.ts'
import { createPlaybookRun } from '../server/backend/playbooks/run-create.ts'
import { runScript } from '../server/backend/health/checks/exec-check.ts'
import { scratchDatabase } from './support/scratch-database.ts'

const RUNS = Number(process.env.BENCH_RUNS ?? 100)
const SAMPLES = Number(process.env.BENCH_SAMPLES ?? 20)
const SCRIPTS = ['echo first $RANDOM', 'echo second $RANDOM']

const sleep = (ms: number) => new Promise((resolve) => setTimeout(resolve, ms))
const p50 = (values: number[]) => [...values].sort((a, b) => a - b)[Math.floor(values.length / 2)]!

async function insertPlaybook(db: Db, name: string): Promise<string> {
  const spec = { title: name, actions: SCRIPTS.map((script, index) => ({ name: `step-${index + 1}`, exec: { script } })) }
  const { rows } = await db.query<{ id: string }>(`INSERT INTO playbooks (name, namespace, spec, source, title) VALUES ($1, 'bench', $2, 'UI', $1) RETURNING id`, [name, JSON.stringify(spec)])
  return rows[0]!.id
}

async function main() {
  const wanted = process.env.BENCH_DB
  const scratch = wanted === 'pglite' ? undefined : await scratchDatabase('bench_playbooks', wanted === 'postgres')
  const db = scratch ? await createPostgresDb(scratch.url) : await createPGliteDb(undefined)
  const engine = scratch ? 'PostgreSQL' : 'PGlite'
  let peakRss = process.memoryUsage().rss
  const sampler = setInterval(() => (peakRss = Math.max(peakRss, process.memoryUsage().rss)), 50)
  const logger = pino({ level: 'warn' })
  const runner = createPlaybookRunner({ db, logger, trusted: async () => true })
  try {
    await migrate(db)
    const playbookId = await insertPlaybook(db, 'bench-two-steps')
    const rssBefore = process.memoryUsage().rss
    await runner.start()

    // Baseline 1: one write round trip.
    await db.query(`CREATE TABLE bench_probe (id bigserial PRIMARY KEY, at timestamptz)`)
    const roundTrips: number[] = []
    for (let i = 0; i < SAMPLES; i++) {
      const started = performance.now()
      await db.query(`INSERT INTO bench_probe (at) VALUES (now()) RETURNING id`)
      roundTrips.push(performance.now() - started)
    }

    // 1. Create → first action running, one run at a time with the runner idle.
    const latencies: number[] = []
    for (let i = 0; i < SAMPLES; i++) {
      const started = performance.now()
      const { run_id: runId } = await createPlaybookRun(db, { playbookId }, { kind: 'system', reason: 'schedule' })
      for (;;) {
        const { rows } = await db.query<{ n: number }>(`SELECT count(*)::int AS n FROM playbook_run_actions WHERE playbook_run_id = $1 AND start_time IS NOT NULL`, [runId])
        if (rows[0]!.n > 0) break
        if (performance.now() - started > 10_000) throw new Error(`run ${runId} did not start an action in 10 s`)
        await sleep(2)
      }
      latencies.push(performance.now() - started)
      await waitFinal(db, [runId], 30_000)
    }

    // Baseline 2: the scripts alone, 25 at a time.
    const scripts = Array.from({ length: RUNS }, () => SCRIPTS).flat()
    const direct = performance.now()
    for (let i = 0; i < scripts.length; i += 25) {
      await Promise.all(scripts.slice(i, i + 25).map((script) => runScript(script, {}, AbortSignal.timeout(30_000))))
    }
    const directMs = performance.now() - direct

    // 2. RUNS concurrent runs.
    const started = performance.now()
    const created = await Promise.all(Array.from({ length: RUNS }, () => createPlaybookRun(db, { playbookId }, { kind: 'system', reason: 'schedule' })))
    const statuses = await waitFinal(db, created.map((run) => run.run_id), 120_000)
    const batchMs = performance.now() - started
    const completed = statuses.filter((status) => status === 'completed').length

    const latency = p50(latencies)
    const roundTrip = p50(roundTrips)
    console.log(`bench/playbooks on ${engine} (load ${loadavg().map((value) => value.toFixed(1)).join(' ')})`)
    console.log(`  baseline write round trip p50 ${roundTrip.toFixed(1)} ms`)
    console.log(`  create → first action running p50 ${latency.toFixed(0)} ms (${(latency / roundTrip).toFixed(1)}× baseline; target ≤ 200 ms)`)
    console.log(`  baseline ${scripts.length} scripts direct, 25 at a time: ${directMs.toFixed(0)} ms`)
    console.log(`  ${RUNS} runs × 2 exec actions: ${batchMs.toFixed(0)} ms, ${completed}/${RUNS} completed (${(batchMs / directMs).toFixed(1)}× baseline; target ≤ 10,000 ms)`)
    console.log(`  RSS before runner ${(rssBefore / 2 ** 20).toFixed(0)} MB, peak ${(peakRss / 2 ** 20).toFixed(0)} MB`)
    const missed = latency > 200 || batchMs > 10_000 || completed !== RUNS
    process.exitCode = missed ? 1 : 0
  } finally {
    clearInterval(sampler)
    await runner.stop()
    await db.close()
    await scratch?.drop()
  }
}

async function waitFinal(db: Db, runIds: string[], timeoutMs: number): Promise<string[]> {
  const deadline = performance.now() + timeoutMs
  for (;;) {
    const { rows } = await db.query<{ status: string }>(`SELECT status FROM playbook_runs WHERE id = ANY($1::uuid[])`, [runIds])
    if (rows.every((row) => ['completed', 'failed', 'cancelled', 'timed_out'].includes(row.status))) return rows.map((row) => row.status)
    if (performance.now() > deadline) throw new Error(`runs not final after ${timeoutMs} ms`)
    await sleep(20)
  }
}

await main()
