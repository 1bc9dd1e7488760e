import { randomUUID } from 'node:crypto'
import { setMaxListeners } from 'node:events'
import { hostname } from 'node:os'
import type { Logger } from 'pino'
import type { Db } from '#server/db/client.ts'
import { createOutageGate } from '#server/db/outage.ts'
import { CHECK_RUNNERS, timeoutFor, unsupportedRunner } from './check-runners.ts'
import type { CheckResult, CheckRunContext, StoredConnection } from './check-result.ts'
import { runCheck } from './check-run.ts'
import { createTargetFence } from './check-trust.ts'
import { findConnection } from './checks/check-inputs.ts'
import type { AllowedTarget } from './checks/target-guard.ts'
import { syncCanaries, type SyncOutcome } from './canary-sync.ts'
import { pruneCheckStatuses, storeRuns, type CompletedRun } from './result-store.ts'
import { MIN_RUN_GAP_MS, nextTick, parseSchedule, type Schedule } from '#contract/canary/schedule.ts'
import { isUuid } from '#contract/uuid.ts'

export type CheckEngineOptions = {
  db: Db
  logger: Logger
  /** Checks running at once in this process (LOOKOUT_CHECK_CONCURRENCY). */
  concurrency?: number
  /** How long a claim holds without renewal; a dead process's checks move on after this. */
  leaseMs?: number
  processId?: string
  /** Timeout for checks whose spec names none (LOOKOUT_CHECK_TIMEOUT_MS). */
  defaultTimeoutMs?: number
  /** check_statuses older than this are pruned (LOOKOUT_CHECK_STATUS_RETENTION_DAYS). */
  retentionDays?: number
  pollIntervalMs?: number
  syncIntervalMs?: number
  flushIntervalMs?: number
  pruneIntervalMs?: number
  /** Runs of one check are at least this far apart (10 s in the reference; tests lower it). */
  minIntervalMs?: number
  /** How long stop() lets running checks finish before aborting them and releasing their leases. */
  stopGraceMs?: number
  /** Targets canaries without an exec holder's trust may still reach (LOOKOUT_CHECK_ALLOWED_TARGETS). */
  allowedTargets?: AllowedTarget[]
}

/** The answer of Run Now, in canary-checker's result shape (http-api §2.6.1). */
export type RunNowResult = {
  name: string
  start: string
  pass?: boolean
  invalid?: boolean
  duration?: number
  description?: string
  message?: string
  error?: string
  labels?: Record<string, string>
  namespace?: string
  detail?: unknown
  data?: Record<string, unknown>
  CanaryResult: null
}

export type CheckEngineStats = {
  processId: string
  running: number
  executed: number
  failed: number
  /** Recent schedule slips (actual start minus scheduled tick), ms; the newest SLIP_SAMPLES. */
  slipsMs: number[]
  /** Slips recorded since start, so callers can take just the newest ones. */
  slipCount: number
}

export type CheckEngine = {
  readonly processId: string
  start(): Promise<void>
  stop(): Promise<void>
  /** Runs one check now (waiting for another process's run of it to finish), stores and returns the result; null when the check does not exist. */
  runNow(checkId: string): Promise<RunNowResult | null>
  syncNow(): Promise<SyncOutcome>
  pruneNow(): Promise<{ statuses: number; jobs: number }>
  stats(): CheckEngineStats
}

type Claim = {
  check_id: string
  canary_id: string
  schedule: string | null
  next_run_at: Date | string | null
  type: string
  name: string
  description: string | null
  spec: Record<string, unknown> | null
  labels: Record<string, string> | null
  check_namespace: string | null
  canary_name: string
  canary_namespace: string
  canary_labels: Record<string, string> | null
  canary_annotations: Record<string, string> | null
  canary_retries: Record<string, unknown> | null
}

const CLAIM_COLUMNS = `k.type, k.name, k.description, k.spec, k.labels, k.namespace AS check_namespace,
  c.name AS canary_name, c.namespace AS canary_namespace, c.labels AS canary_labels,
  c.annotations AS canary_annotations, c.spec -> 'retries' AS canary_retries`

const SLIP_SAMPLES = 20_000

/** Every running check listens on it, so it has as many listeners as the concurrency allows. */
function haltController(): AbortController {
  const controller = new AbortController()
  setMaxListeners(0, controller.signal)
  return controller
}

export function createCheckEngine(options: CheckEngineOptions): CheckEngine {
  const { db, logger } = options
  const processId = options.processId ?? `${hostname()}-${process.pid}-${randomUUID().slice(0, 8)}`
  const concurrency = Math.max(1, options.concurrency ?? 50)
  const leaseMs = Math.max(500, options.leaseMs ?? 60_000)
  const defaultTimeoutMs = options.defaultTimeoutMs ?? 60_000
  const pollMs = options.pollIntervalMs ?? 250
  const syncMs = options.syncIntervalMs ?? 5_000
  const flushMs = options.flushIntervalMs ?? 100
  const pruneMs = options.pruneIntervalMs ?? 3_600_000
  const minGapMs = options.minIntervalMs ?? MIN_RUN_GAP_MS
  const log = logger.child({ component: 'check-engine', processId })
  const fence = createTargetFence({ db, allowedTargets: options.allowedTargets })

  let started = false
  let stopping = false
  let running = 0
  let executed = 0
  let failed = 0
  const slips: number[] = []
  let slipCount = 0
  const inFlight = new Map<string, Promise<void>>()
  // One signal for every scheduled run: stop() aborts them all at once when its grace runs out.
  let halt = haltController()
  // Runs finishing one by one claim again only once this much room is free (or none runs), so
  // claims go out in batches rather than one statement per finished run; the poll still takes
  // every due check within pollMs.
  const claimBatch = Math.max(1, Math.min(50, Math.floor(concurrency / 8)))
  const pending: CompletedRun[] = []
  const timers: NodeJS.Timeout[] = []
  let flushing: Promise<void> | null = null
  let claiming = false
  const schedules = new Map<string, Schedule | null>()
  // Across a database outage every loop below waits on this gate instead of failing each tick.
  const outage = createOutageGate({ logger: log, what: 'the check engine' })
  // Runs whose store failed on a lost connection: the commit may have happened, so they are
  // checked against check_statuses before being stored again (a run is never recorded twice).
  const uncertain = new Set<CompletedRun>()

  const scheduleOf = (text: string | null): Schedule | null => {
    if (!text) return null
    if (!schedules.has(text)) {
      try { schedules.set(text, parseSchedule(text)) } catch { schedules.set(text, null) }
    }
    return schedules.get(text) ?? null
  }

  const resolveConnection = (ref: string, namespace: string): Promise<StoredConnection | null> => findConnection(db, ref, namespace)

  function contextFor(claim: Claim): Omit<CheckRunContext, 'signal'> {
    const spec = claim.spec ?? {}
    return {
      timeoutMs: timeoutFor(claim.type, spec, defaultTimeoutMs),
      canary: {
        id: claim.canary_id,
        name: claim.canary_name,
        namespace: claim.canary_namespace,
        labels: claim.canary_labels ?? {},
        annotations: claim.canary_annotations ?? {},
      },
      check: { id: claim.check_id, name: claim.name, type: claim.type, description: claim.description ?? '', labels: claim.labels ?? {}, endpoint: '' },
      templatesEnabled: claim.canary_annotations?.template !== 'false',
      resolveConnection,
      targets: fence.forCanary(claim.canary_id),
      lastResult: async () => {
        const { rows } = await db.query<Record<string, unknown>>(
          `SELECT status, invalid, created_at AS "createdAt", duration, message, error, details AS results
           FROM check_statuses WHERE check_id = $1 ORDER BY time DESC LIMIT 1`,
          [claim.check_id],
        )
        return rows[0] ?? null
      },
    }
  }

  async function execute(claim: Claim, stopSignal: AbortSignal | undefined): Promise<{ results: CheckResult[]; startedAt: Date; finishedAt: Date }> {
    const runner = CHECK_RUNNERS[claim.type] ?? unsupportedRunner(claim.type)
    const startedAt = new Date()
    const results = await runCheck(runner, claim.spec ?? {}, contextFor(claim), {
      canaryRetries: claim.canary_retries ?? undefined,
      stopSignal,
    })
    executed += 1
    if (results.some((result) => !result.pass)) failed += 1
    return { results, startedAt, finishedAt: new Date() }
  }

  function nextRunFor(claim: Claim, scheduledAt: Date): Date | undefined {
    const schedule = scheduleOf(claim.schedule)
    if (!schedule) return undefined
    return nextTick(schedule, new Date(), claim.canary_id, { previousTick: scheduledAt, minGapMs }) ?? undefined
  }

  function launch(claim: Claim): void {
    const stopSignal = halt.signal
    const scheduledAt = claim.next_run_at ? new Date(claim.next_run_at) : new Date()
    const slip = Date.now() - scheduledAt.getTime()
    if (slips.length >= SLIP_SAMPLES) slips.shift()
    slips.push(slip)
    slipCount += 1
    running += 1
    const promise = execute(claim, stopSignal)
      .then(({ results, startedAt, finishedAt }) => {
        // A run aborted by stop() is dropped: its lease is released and the tick runs elsewhere.
        if (stopSignal.aborted && stopping) return
        pending.push({ checkId: claim.check_id, canaryId: claim.canary_id, type: claim.type, results, nextRunAt: nextRunFor(claim, scheduledAt), startedAt, finishedAt })
        if (pending.length >= 500) void flush()
      })
      .catch((error: unknown) => log.error({ err: error, check: claim.check_id }, 'check run crashed'))
      .finally(() => {
        running -= 1
        inFlight.delete(claim.check_id)
        if (!stopping && (running === 0 || concurrency - running >= claimBatch)) void claimDue()
      })
    inFlight.set(claim.check_id, promise)
  }

  async function claimDue(): Promise<void> {
    if (claiming || stopping || !started || !outage.ready()) return
    claiming = true
    try {
      for (;;) {
        const room = concurrency - running
        if (room <= 0 || stopping) return
        const limit = Math.min(room, 500)
        const { rows } = await db.query<Claim>(
          `WITH due AS (
             SELECT s.check_id FROM lookout.check_schedule s
             WHERE s.next_run_at <= now() AND (s.lease_until IS NULL OR s.lease_until < now())
             ORDER BY s.next_run_at LIMIT $2 FOR UPDATE SKIP LOCKED)
           UPDATE lookout.check_schedule s
           SET lease_owner = $1, lease_until = now() + $3 * interval '1 millisecond', last_started_at = now(), last_owner = $1
           FROM due, checks k, canaries c
           WHERE s.check_id = due.check_id AND k.id = s.check_id AND c.id = s.canary_id
           RETURNING s.check_id, s.canary_id, s.schedule, s.next_run_at, ${CLAIM_COLUMNS}`,
          [processId, limit, leaseMs],
        )
        outage.succeeded()
        for (const claim of rows) launch(claim)
        if (rows.length < limit) return
      }
    } catch (error) {
      if (!outage.failed(error)) log.error({ err: error }, 'claiming due checks failed')
    } finally {
      claiming = false
    }
  }

  /** Drops the runs of a batch whose earlier, failed-looking store did commit. */
  async function withoutStored(batch: CompletedRun[]): Promise<CompletedRun[]> {
    const keys = batch.flatMap((run, key) => {
      if (!uncertain.has(run)) return []
      const index = run.results.findIndex((result) => !result.transformed)
      const first = run.results[index]
      // The time of the run's first status row, as storeRuns writes it.
      return first ? [{ key, check_id: run.checkId, time: new Date(first.start.getTime() + index).toISOString() }] : []
    })
    for (const run of batch) uncertain.delete(run)
    if (keys.length === 0) return batch
    const { rows } = await db.query<{ key: number }>(
      `SELECT x.key FROM jsonb_to_recordset($1::jsonb) AS x(key integer, check_id uuid, time timestamptz)
       WHERE EXISTS (SELECT 1 FROM check_statuses s WHERE s.check_id = x.check_id AND s.time = x.time)`,
      [JSON.stringify(keys)],
    )
    const stored = new Set(rows.map((row) => Number(row.key)))
    return batch.filter((_run, key) => !stored.has(key))
  }

  function flush(): Promise<void> {
    if (flushing) return flushing
    if (pending.length === 0 || !outage.ready()) return Promise.resolve()
    const batch = pending.splice(0, pending.length)
    flushing = withoutStored(batch)
      .then((runs) => storeRuns(db, runs, processId))
      .then(() => outage.succeeded())
      .catch((error: unknown) => {
        if (outage.failed(error)) {
          // Kept for the next flush once the database is back; the leases expire meanwhile, so
          // another process may run these checks again, but no result is lost.
          for (const run of batch) uncertain.add(run)
          pending.unshift(...batch)
          return
        }
        log.error({ err: error, runs: batch.length }, 'storing check results failed; releasing their leases')
        return db
          .query('UPDATE lookout.check_schedule SET lease_owner = NULL, lease_until = NULL WHERE lease_owner = $1 AND check_id = ANY($2::uuid[])', [processId, batch.map((run) => run.checkId)])
          .then(() => undefined, () => undefined)
      })
      .finally(() => {
        flushing = null
      })
    return flushing
  }

  async function renewLeases(): Promise<void> {
    if ((inFlight.size === 0 && pending.length === 0) || !outage.ready()) return
    await db
      .query(`UPDATE lookout.check_schedule SET lease_until = now() + $2 * interval '1 millisecond' WHERE lease_owner = $1`, [processId, leaseMs])
      .then(() => outage.succeeded())
      .catch((error: unknown) => {
        if (!outage.failed(error)) log.warn({ err: error }, 'renewing check leases failed')
      })
    await db.query('UPDATE lookout.check_engines SET heartbeat_at = now() WHERE process_id = $1', [processId]).catch(() => undefined)
  }

  async function sync(): Promise<SyncOutcome> {
    if (!outage.ready()) return { synced: 0, removed: 0, skipped: true }
    try {
      const outcome = await syncCanaries(db, { logger: log })
      outage.succeeded()
      return outcome
    } catch (error) {
      if (!outage.failed(error)) log.error({ err: error }, 'canary sync failed')
      return { synced: 0, removed: 0, skipped: true }
    }
  }

  async function prune() {
    return pruneCheckStatuses(db, options.retentionDays ?? 30)
  }

  function every(ms: number, fn: () => unknown): void {
    const timer = setInterval(() => void fn(), ms)
    timer.unref()
    timers.push(timer)
  }

  async function runNow(checkId: string): Promise<RunNowResult | null> {
    if (!isUuid(checkId)) return null
    const load = () =>
      db.query<Claim>(
        `SELECT k.id AS check_id, k.canary_id, s.schedule, s.next_run_at, s.lease_owner, s.lease_until > now() AS leased, ${CLAIM_COLUMNS}
         FROM checks k JOIN canaries c ON c.id = k.canary_id LEFT JOIN lookout.check_schedule s ON s.check_id = k.id
         WHERE k.id = $1 AND k.deleted_at IS NULL`,
        [checkId],
      )
    const { rows } = await load()
    const claim = rows[0]
    if (!claim) return null
    // Never alongside a scheduled run of the same check: take its lease, waiting if another process holds it.
    let leased = false
    const deadline = Date.now() + Math.max(leaseMs, timeoutFor(claim.type, claim.spec ?? {}, defaultTimeoutMs)) + 1_000
    if (claim.schedule !== null) {
      while (!leased && Date.now() < deadline) {
        const { rowCount } = await db.query(
          `UPDATE lookout.check_schedule SET lease_owner = $1, lease_until = now() + $3 * interval '1 millisecond', last_owner = $1
           WHERE check_id = $2 AND (lease_until IS NULL OR lease_until < now())`,
          [processId, checkId, leaseMs],
        )
        leased = rowCount > 0
        if (!leased) await new Promise((resolve) => setTimeout(resolve, 100))
      }
    }
    running += 1
    let outcome: Awaited<ReturnType<typeof execute>>
    try {
      outcome = await execute(claim, undefined)
    } finally {
      running -= 1
    }
    await storeRuns(db, [{ checkId, canaryId: claim.canary_id, type: claim.type, results: outcome.results, nextRunAt: leased ? null : undefined, startedAt: outcome.startedAt, finishedAt: outcome.finishedAt }], processId)
    const first = outcome.results.find((result) => !result.transformed) ?? outcome.results[0]
    if (!first) return null
    const answer: RunNowResult = { name: claim.name, start: first.start.toISOString(), CanaryResult: null }
    if (first.pass) answer.pass = true
    if (first.invalid) answer.invalid = true
    if (first.duration) answer.duration = Math.round(first.duration)
    if (claim.description) answer.description = claim.description
    if (first.message) answer.message = first.message
    if (first.errors.length > 0) answer.error = first.errors.join(', ')
    const labels = { ...(claim.canary_labels ?? {}), ...(claim.labels ?? {}) }
    if (Object.keys(labels).length > 0) answer.labels = labels
    answer.namespace = claim.check_namespace ?? claim.canary_namespace
    if (first.detail !== undefined) answer.detail = first.detail
    answer.data = first.data
    return answer
  }

  return {
    processId,
    async start() {
      if (started) return
      started = true
      stopping = false
      if (halt.signal.aborted) halt = haltController()
      try {
        await db.query(
          `INSERT INTO lookout.check_engines (process_id, hostname) VALUES ($1, $2)
           ON CONFLICT (process_id) DO UPDATE SET heartbeat_at = now(), started_at = now()`,
          [processId, hostname()],
        )
      } catch (error) {
        // Not started, so a later start() can try again.
        started = false
        throw error
      }
      await sync()
      every(pollMs, claimDue)
      every(flushMs, flush)
      every(Math.max(200, Math.floor(leaseMs / 3)), renewLeases)
      every(syncMs, sync)
      every(pruneMs, () => {
        if (!outage.ready()) return
        return prune().catch((error: unknown) => {
          if (!outage.failed(error)) log.warn({ err: error }, 'pruning check statuses failed')
        })
      })
      void claimDue()
      log.info({ concurrency, leaseMs }, 'check engine started')
    },
    async stop() {
      if (!started) return
      stopping = true
      for (const timer of timers.splice(0)) clearInterval(timer)
      const grace = options.stopGraceMs ?? 10_000
      const all = Promise.all(inFlight.values())
      const timedOut = await Promise.race([all.then(() => false), new Promise<boolean>((resolve) => setTimeout(() => resolve(true), grace).unref())])
      if (timedOut) {
        halt.abort()
        await all
      }
      while (claiming) await new Promise((resolve) => setTimeout(resolve, 10))
      if (flushing) await flushing
      await flush()
      await db.query('UPDATE lookout.check_schedule SET lease_owner = NULL, lease_until = NULL WHERE lease_owner = $1', [processId]).catch(() => undefined)
      await db.query('DELETE FROM lookout.check_engines WHERE process_id = $1', [processId]).catch(() => undefined)
      started = false
      log.info({ executed }, 'check engine stopped')
    },
    runNow,
    syncNow: () => syncCanaries(db, { logger: log, wait: true }),
    pruneNow: prune,
    stats: () => ({ processId, running, executed, failed, slipsMs: [...slips], slipCount }),
  }
}
