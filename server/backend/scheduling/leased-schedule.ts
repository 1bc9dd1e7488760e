import { randomUUID } from 'node:crypto'
import { hostname } from 'node:os'
import type { Logger } from 'pino'
import type { Db } from '#server/db/client.ts'
import { createOutageGate } from '#server/db/outage.ts'
import { MIN_RUN_GAP_MS, nextTick, parseSchedule, type Schedule } from '#contract/canary/schedule.ts'
import { isUuid } from '#contract/uuid.ts'

/**
 * The scheduling shell the scrape engine and the topology engine share (docs/decisions/020 and
 * 023): a table in schema lookout holds, per resource, its effective schedule, the next tick and
 * a lease taken with SKIP LOCKED, so one resource never runs in two processes at once and a
 * process that dies leaves a lease that lapses after leaseMs. Each run is one job_history row
 * (RUNNING, then SUCCESS, WARNING or FAILED). What a run does, which rows get a schedule and how
 * the job's counts and details read stay with each engine.
 *
 * The schedule table has the same columns in every engine: `<key> uuid PRIMARY KEY, schedule,
 * spec_updated_at, next_run_at, lease_owner, lease_until, last_started_at, last_owner`.
 */

export type JobStatus = 'RUNNING' | 'SUCCESS' | 'WARNING' | 'FAILED'

/** What a run hands back: its job status, the job_history columns, and whatever the engine answers run-now with. */
export type LeasedRunResult<Outcome> = {
  status: Exclude<JobStatus, 'RUNNING'>
  successCount: number
  errorCount: number
  details: Record<string, unknown>
  outcome: Outcome
}

export type LeasedRow = { id: string; updated_at: Date | string | null }

/** Each engine's options carry these through (tests shorten them; processId names this process in leases). */
export type LeaseTimings = {
  processId?: string
  leaseMs?: number
  pollIntervalMs?: number
  syncIntervalMs?: number
  /** Runs of one resource are at least this far apart (10 s; tests lower it). */
  minIntervalMs?: number
  stopGraceMs?: number
}

export type LeasedScheduleOptions<Row extends LeasedRow, Outcome> = {
  db: Db
  logger: Logger
  /** pino `component` of the log lines (e.g. `scrape-engine`). */
  component: string
  /** The resource in log lines and messages (e.g. `scraper`). */
  noun: string
  /** The schedule table and its key column; code constants, never input. */
  table: `lookout.${string}`
  key: string
  job: { name: string; resourceType: string }
  timings: LeaseTimings
  concurrency: number
  /** Used when a stored schedule does not parse. */
  defaultSchedule: string
  /** The live resource with that id, or null. */
  load(id: string): Promise<Row | null>
  /** The resource's effective schedule (run-now records it when no schedule row exists yet). */
  scheduleOf(row: Row): Promise<string>
  timeoutMsOf(row: Row): number
  /** Brings the schedule table in line with the resources (insert, reschedule edited ones, remove). */
  sync(): Promise<void>
  /** The run itself; the signal aborts at the timeout or when the engine stops. */
  run(row: Row, signal: AbortSignal): Promise<LeasedRunResult<Outcome>>
  /** The result recorded when the run threw (a database failure, a bug) or run-now could not get the lease. */
  failed(row: Row, reason: { error: Error } | { busy: true }): LeasedRunResult<Outcome>
}

export type LeasedRunOutcome<Outcome> = { jobHistoryId: string; status: JobStatus; result?: LeasedRunResult<Outcome> }

export type LeasedSchedule<Outcome> = {
  readonly processId: string
  readonly log: Logger
  start(): Promise<void>
  stop(): Promise<void>
  /**
   * Runs a resource now, never alongside another run of it (waits for the lease) and leaves its
   * next tick alone. Sync: resolves when the run is stored. `async`: resolves once its job_history
   * row exists. Null when no live resource has that id.
   */
  runNow(id: string, options?: { async?: boolean }): Promise<LeasedRunOutcome<Outcome> | null>
  syncNow(): Promise<void>
  stats(): { processId: string; running: number; executed: number }
}

const MAX_JOB_ERRORS = 100

/** Caps a job's error list at 100 entries, the rest counted. */
export function cappedErrors(errors: string[]): string[] {
  return errors.length > MAX_JOB_ERRORS ? [...errors.slice(0, MAX_JOB_ERRORS), `… and ${errors.length - MAX_JOB_ERRORS} more`] : errors
}

export function createLeasedSchedule<Row extends LeasedRow, Outcome>(options: LeasedScheduleOptions<Row, Outcome>): LeasedSchedule<Outcome> {
  const { db, table, key, noun, timings } = options
  const processId = timings.processId ?? `${hostname()}-${process.pid}-${randomUUID().slice(0, 8)}`
  const concurrency = Math.max(1, options.concurrency)
  const leaseMs = Math.max(500, timings.leaseMs ?? 60_000)
  const pollMs = timings.pollIntervalMs ?? 1_000
  const syncMs = timings.syncIntervalMs ?? 5_000
  const minGapMs = timings.minIntervalMs ?? MIN_RUN_GAP_MS
  const log = options.logger.child({ component: options.component, processId })
  const outage = createOutageGate({ logger: log, what: `the ${options.component.replace(/-/g, ' ')}` })
  const host = hostname()

  let started = false
  let stopping = false
  let claiming = false
  let executed = 0
  const inFlight = new Map<string, Promise<unknown>>()
  const timers: NodeJS.Timeout[] = []
  let halt = new AbortController()

  const scheduleOf = (text: string): Schedule => {
    try {
      return parseSchedule(text)
    } catch (error) {
      log.warn({ schedule: text, err: error }, `invalid ${noun} schedule; using the default`)
      return parseSchedule(options.defaultSchedule)
    }
  }
  const nextRunAfter = (id: string, text: string, previous?: Date): Date | null =>
    nextTick(scheduleOf(text), new Date(), id, { previousTick: previous, minGapMs })

  async function openJob(id: string): Promise<string> {
    const { rows } = await db.query<{ id: string }>(
      `INSERT INTO job_history (name, resource_type, resource_id, status, hostname, time_start)
       VALUES ($1, $2, $3, 'RUNNING', $4, now()) RETURNING id`,
      [options.job.name, options.job.resourceType, id, host],
    )
    return rows[0]!.id
  }

  async function closeJob(jobId: string, result: LeasedRunResult<Outcome>, startedAt: number): Promise<void> {
    await db.query(
      `UPDATE job_history SET status = $2, success_count = $3, error_count = $4, details = $5::jsonb,
         duration_millis = $6, time_end = now() WHERE id = $1`,
      [jobId, result.status, result.successCount, result.errorCount, JSON.stringify(result.details), Date.now() - startedAt],
    )
  }

  /** One run, job history included; the caller holds the lease. */
  async function runLeased(row: Row, jobId: string, stopSignal: AbortSignal): Promise<LeasedRunOutcome<Outcome>> {
    const startedAt = Date.now()
    const controller = new AbortController()
    const abort = () => controller.abort()
    const timer = setTimeout(abort, options.timeoutMsOf(row))
    stopSignal.addEventListener('abort', abort, { once: true })
    let result: LeasedRunResult<Outcome>
    try {
      result = await options.run(row, controller.signal)
    } catch (error) {
      // The database failed under the run (or a bug): recorded, never thrown into the loop.
      log.error({ err: error, [noun]: row.id }, `${noun} run failed`)
      result = options.failed(row, { error: error as Error })
    } finally {
      clearTimeout(timer)
      stopSignal.removeEventListener('abort', abort)
    }
    executed += 1
    await closeJob(jobId, result, startedAt).catch((error: unknown) => log.error({ err: error, [noun]: row.id }, 'job history update failed'))
    return { jobHistoryId: jobId, status: result.status, result }
  }

  async function release(id: string, nextRunAt: Date | null | undefined): Promise<void> {
    await db.query(
      `UPDATE ${table} SET lease_owner = NULL, lease_until = NULL,
         next_run_at = CASE WHEN $3::boolean THEN COALESCE($4::timestamptz, 'infinity') ELSE next_run_at END
       WHERE ${key} = $1 AND lease_owner = $2`,
      [id, processId, nextRunAt !== undefined, nextRunAt ? nextRunAt.toISOString() : null],
    ).catch((error: unknown) => log.warn({ err: error, [noun]: id }, `releasing a ${noun} lease failed`))
  }

  type Claim = { id: string; schedule: string; next_run_at: Date | string }

  function launch(claim: Claim): void {
    const stopSignal = halt.signal
    const promise = (async () => {
      const row = await options.load(claim.id)
      if (!row) return release(claim.id, undefined)
      const jobId = await openJob(row.id)
      await runLeased(row, jobId, stopSignal)
      await release(row.id, nextRunAfter(row.id, claim.schedule, new Date(claim.next_run_at)))
    })()
      .catch(async (error: unknown) => {
        if (!outage.failed(error)) log.error({ err: error, [noun]: claim.id }, `${noun} run crashed`)
        await release(claim.id, undefined)
      })
      .finally(() => {
        inFlight.delete(claim.id)
        if (!stopping) void claimDue()
      })
    inFlight.set(claim.id, promise)
  }

  async function claimDue(): Promise<void> {
    if (claiming || stopping || !started || !outage.ready()) return
    const room = concurrency - inFlight.size
    if (room <= 0) return
    claiming = true
    try {
      const { rows } = await db.query<Claim>(
        `WITH due AS (
           SELECT s.${key} FROM ${table} s
           WHERE s.next_run_at <= now() AND (s.lease_until IS NULL OR s.lease_until < now())
           ORDER BY s.next_run_at LIMIT $2 FOR UPDATE SKIP LOCKED)
         UPDATE ${table} s
         SET lease_owner = $1, lease_until = now() + $3 * interval '1 millisecond', last_started_at = now(), last_owner = $1
         FROM due WHERE s.${key} = due.${key}
         RETURNING s.${key} AS id, s.schedule, s.next_run_at`,
        [processId, room, leaseMs],
      )
      outage.succeeded()
      for (const claim of rows) launch(claim)
    } catch (error) {
      if (!outage.failed(error)) log.error({ err: error }, `claiming due ${noun}s failed`)
    } finally {
      claiming = false
    }
  }

  async function sync(): Promise<void> {
    if (!outage.ready()) return
    try {
      await options.sync()
      outage.succeeded()
    } catch (error) {
      if (!outage.failed(error)) log.error({ err: error }, `${noun} schedule sync failed`)
    }
  }

  async function renewLeases(): Promise<void> {
    if (inFlight.size === 0 || !outage.ready()) return
    await db
      .query(`UPDATE ${table} SET lease_until = now() + $2 * interval '1 millisecond' WHERE lease_owner = $1`, [processId, leaseMs])
      .then(() => outage.succeeded())
      .catch((error: unknown) => {
        if (!outage.failed(error)) log.warn({ err: error }, `renewing ${noun} leases failed`)
      })
  }

  /** Takes the resource's lease for a manual run, waiting while a run elsewhere holds it. */
  async function leaseForRunNow(row: Row, deadline: number): Promise<boolean> {
    const schedule = await options.scheduleOf(row)
    const next = nextRunAfter(row.id, schedule)
    while (Date.now() < deadline) {
      const { rowCount } = await db.query(
        `INSERT INTO ${table} AS s (${key}, schedule, spec_updated_at, next_run_at, lease_owner, lease_until, last_started_at, last_owner)
         VALUES ($1, $2, $3, COALESCE($4::timestamptz, 'infinity'), $5, now() + $6 * interval '1 millisecond', now(), $5)
         ON CONFLICT (${key}) DO UPDATE SET lease_owner = $5, lease_until = now() + $6 * interval '1 millisecond', last_started_at = now(), last_owner = $5
         WHERE s.lease_until IS NULL OR s.lease_until < now()`,
        [row.id, schedule, row.updated_at, next ? next.toISOString() : null, processId, leaseMs],
      )
      if (rowCount > 0) return true
      await new Promise((resolve) => setTimeout(resolve, 100))
    }
    return false
  }

  async function runNow(id: string, runOptions: { async?: boolean } = {}): Promise<LeasedRunOutcome<Outcome> | null> {
    if (!isUuid(id)) return null
    const row = await options.load(id)
    if (!row) return null
    const jobId = await openJob(row.id)
    let settled: Promise<unknown> = Promise.resolve()
    const run = (async (): Promise<LeasedRunOutcome<Outcome>> => {
      const leased = await leaseForRunNow(row, Date.now() + leaseMs + options.timeoutMsOf(row))
      if (!leased) {
        const result = options.failed(row, { busy: true })
        await closeJob(jobId, result, Date.now())
        return { jobHistoryId: jobId, status: result.status, result }
      }
      // Counted as in flight so stop() waits for it and its lease is renewed.
      inFlight.set(row.id, settled)
      try {
        return await runLeased(row, jobId, halt.signal)
      } finally {
        inFlight.delete(row.id)
        await release(row.id, undefined)
      }
    })()
    settled = run.catch(() => undefined)
    if (runOptions.async) {
      run.catch((error: unknown) => log.error({ err: error, [noun]: id }, `run-now ${noun} run failed`))
      return { jobHistoryId: jobId, status: 'RUNNING' }
    }
    return run
  }

  function every(ms: number, fn: () => unknown): void {
    const timer = setInterval(() => void fn(), ms)
    timer.unref()
    timers.push(timer)
  }

  return {
    processId,
    log,
    async start() {
      if (started) return
      started = true
      stopping = false
      if (halt.signal.aborted) halt = new AbortController()
      await sync()
      every(pollMs, claimDue)
      every(syncMs, sync)
      every(Math.max(200, Math.floor(leaseMs / 3)), renewLeases)
      void claimDue()
      log.info({ concurrency, leaseMs }, `${options.component.replace(/-/g, ' ')} started`)
    },
    async stop() {
      if (!started) return
      stopping = true
      for (const timer of timers.splice(0)) clearInterval(timer)
      const all = Promise.allSettled([...inFlight.values()])
      const timedOut = await Promise.race([
        all.then(() => false),
        new Promise<boolean>((resolve) => setTimeout(() => resolve(true), timings.stopGraceMs ?? 10_000).unref()),
      ])
      if (timedOut) {
        halt.abort()
        await all
      }
      while (claiming) await new Promise((resolve) => setTimeout(resolve, 10))
      await db.query(`UPDATE ${table} SET lease_owner = NULL, lease_until = NULL WHERE lease_owner = $1`, [processId]).catch(() => undefined)
      started = false
      log.info({ executed }, `${options.component.replace(/-/g, ' ')} stopped`)
    },
    runNow,
    syncNow: sync,
    stats: () => ({ processId, running: inFlight.size, executed }),
  }
}
