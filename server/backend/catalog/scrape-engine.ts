import { randomUUID } from 'node:crypto'
import { hostname } from 'node:os'
import type { Logger } from 'pino'
import type { Db } from '#server/db/client.ts'
import { createOutageGate } from '#server/db/outage.ts'
import { parseDurationMs } from '#contract/canary/duration.ts'
import { MIN_RUN_GAP_MS, nextTick, parseSchedule, type Schedule } from '#contract/canary/schedule.ts'
import { isUuid } from '#contract/uuid.ts'
import { createTargetFence } from '#server/backend/health/check-trust.ts'
import type { AllowedTarget } from '#server/backend/health/checks/target-guard.ts'
import { documentsToItems, type ScrapedItem } from './scrape-pipeline.ts'
import { applyRetention } from './scrape-retention.ts'
import { storeScrape, type ScrapeSummary } from './scrape-store.ts'
import { PartialScrapeError } from './scrapers/file-source.ts'
import type { ScrapedDocument } from './scrapers/scraper-source.ts'
import { PLATFORM_SCRAPER_KINDS, scraperSourceFor } from './scrapers/source-registry.ts'

/**
 * Runs ScrapeConfigs on their schedules in every embedded process, sharing the work through
 * PostgreSQL like the check engine: lookout.scraper_schedule holds each scraper's next tick and
 * a lease taken with SKIP LOCKED, so one scraper never runs in two processes at once; a process
 * that dies leaves a lease that lapses after leaseMs. Each run writes one job_history row
 * (RUNNING, then SUCCESS, WARNING or FAILED with the scrape summary and errors).
 */

export type ScrapeEngineOptions = {
  db: Db
  logger: Logger
  processId?: string
  /** Scrapers running at once in this process (LOOKOUT_SCRAPE_CONCURRENCY). */
  concurrency?: number
  /** Timeout of scrapers whose spec names none (LOOKOUT_SCRAPE_TIMEOUT_MS). */
  defaultTimeoutMs?: number
  leaseMs?: number
  pollIntervalMs?: number
  syncIntervalMs?: number
  /** Runs of one scraper are at least this far apart (10 s; tests lower it). */
  minIntervalMs?: number
  stopGraceMs?: number
  /** Exceptions to the network fence of scrapers no exec holder wrote (LOOKOUT_CHECK_ALLOWED_TARGETS, as for checks). */
  allowedTargets?: AllowedTarget[]
}

export type ScrapeRunStatus = 'RUNNING' | 'SUCCESS' | 'WARNING' | 'FAILED'

export type ScrapeRunOutcome = {
  jobHistoryId: string
  status: ScrapeRunStatus
  summary?: ScrapeSummary
  errors?: string[]
}

export type ScrapeEngine = {
  readonly processId: string
  start(): Promise<void>
  stop(): Promise<void>
  /**
   * Runs a scraper now, never alongside another run of it (waits for the lease). Sync: resolves
   * when the run is stored. `async`: resolves once its job_history row exists. Null when no
   * live scraper has that id.
   */
  runNow(scraperId: string, options?: { async?: boolean }): Promise<ScrapeRunOutcome | null>
  syncNow(): Promise<void>
  stats(): { processId: string; running: number; executed: number }
}

/** The scrape engine's job_history name (resource_type `config_scraper`, resource_id the scraper id). */
export const SCRAPE_JOB_NAME = 'Scraper'
export const DEFAULT_SCRAPE_SCHEDULE = '@every 60m'
const SPEC_SETTINGS = new Set(['schedule', 'timeout', 'logLevel', 'full', 'crdSync', 'system', 'retention'])
const MAX_JOB_ERRORS = 100
const LOCAL_AGENT = '00000000-0000-0000-0000-000000000000'

type ScraperRow = { id: string; name: string; namespace: string | null; spec: Record<string, unknown>; updated_at: Date | string | null }

export function createScrapeEngine(options: ScrapeEngineOptions): ScrapeEngine {
  const { db } = options
  const processId = options.processId ?? `${hostname()}-${process.pid}-${randomUUID().slice(0, 8)}`
  const concurrency = Math.max(1, options.concurrency ?? 2)
  const defaultTimeoutMs = options.defaultTimeoutMs ?? 1_800_000
  const leaseMs = Math.max(500, options.leaseMs ?? 60_000)
  const pollMs = options.pollIntervalMs ?? 1_000
  const syncMs = options.syncIntervalMs ?? 5_000
  const minGapMs = options.minIntervalMs ?? MIN_RUN_GAP_MS
  const log = options.logger.child({ component: 'scrape-engine', processId })
  const outage = createOutageGate({ logger: log, what: 'the scrape engine' })
  // http and sql sources connect from this server's network position: a scraper whose spec no
  // exec holder wrote may not reach its own or link-local addresses (as for checks, issue 10).
  const fence = createTargetFence({ db, allowedTargets: options.allowedTargets, relation: 'config_scrapers' })
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
      log.warn({ schedule: text, err: error }, 'invalid scraper schedule; using the default')
      return parseSchedule(DEFAULT_SCRAPE_SCHEDULE)
    }
  }
  const nextRunAfter = (scraperId: string, text: string, previous?: Date): Date | null =>
    nextTick(scheduleOf(text), new Date(), scraperId, { previousTick: previous, minGapMs })

  async function loadScraper(scraperId: string): Promise<ScraperRow | null> {
    const { rows } = await db.query<ScraperRow>(
      'SELECT id, name, namespace, spec, updated_at FROM config_scrapers WHERE id = $1 AND deleted_at IS NULL',
      [scraperId],
    )
    return rows[0] ?? null
  }

  async function effectiveSchedule(spec: Record<string, unknown>): Promise<string> {
    if (typeof spec.schedule === 'string' && spec.schedule.trim() !== '') return spec.schedule.trim()
    const { rows } = await db.query<{ value: string }>("SELECT value FROM properties WHERE name = 'scrapers.default.schedule' AND deleted_at IS NULL")
    return rows[0]?.value.trim() || DEFAULT_SCRAPE_SCHEDULE
  }

  async function openJob(scraperId: string): Promise<string> {
    const { rows } = await db.query<{ id: string }>(
      `INSERT INTO job_history (name, resource_type, resource_id, status, hostname, time_start)
       VALUES ($1, 'config_scraper', $2, 'RUNNING', $3, now()) RETURNING id`,
      [SCRAPE_JOB_NAME, scraperId, host],
    )
    return rows[0]!.id
  }

  async function closeJob(jobId: string, outcome: { status: ScrapeRunStatus; summary: ScrapeSummary; errors: string[] }, startedAt: number): Promise<void> {
    const errors = outcome.errors.length > MAX_JOB_ERRORS
      ? [...outcome.errors.slice(0, MAX_JOB_ERRORS), `… and ${outcome.errors.length - MAX_JOB_ERRORS} more`]
      : outcome.errors
    const { added, updated, unchanged, deleted, by_type: byType } = outcome.summary
    // config-db's shape: type → the counts that are not zero (what the job details' Scrape
    // Summary tab and the demo estate show); the run's totals beside it.
    const scrapeSummary = Object.fromEntries(Object.entries(byType).map(([type, counts]) => [type, Object.fromEntries(Object.entries(counts).filter(([, count]) => count > 0))]))
    const details = { scrape_summary: scrapeSummary, totals: { added, updated, unchanged, deleted, errors: outcome.errors.length }, ...(errors.length > 0 ? { errors } : {}) }
    await db.query(
      `UPDATE job_history SET status = $2, success_count = $3, error_count = $4, details = $5::jsonb,
         duration_millis = $6, time_end = now() WHERE id = $1`,
      [jobId, outcome.status, added + updated + unchanged, outcome.errors.length, JSON.stringify(details), Date.now() - startedAt],
    )
  }

  /** Fetches every entry, runs the pipeline, stores, applies retention; never throws for a scraper's own problems. */
  async function scrape(scraper: ScraperRow, signal: AbortSignal): Promise<{ status: ScrapeRunStatus; summary: ScrapeSummary; errors: string[] }> {
    const spec = scraper.spec ?? {}
    const errors: string[] = []
    const items: ScrapedItem[] = []
    let complete = true
    let fetched = 0
    for (const [kind, list] of Object.entries(spec)) {
      if (SPEC_SETTINGS.has(kind) || !Array.isArray(list)) continue
      const platform = PLATFORM_SCRAPER_KINDS[kind]
      const source = scraperSourceFor(kind)
      for (const [index, entry] of list.entries()) {
        const where = `${kind}[${index}]`
        if (!source) {
          complete = false
          errors.push(platform
            ? `${where}: ${kind} scrapers need ${platform}; this console stores them but cannot run them (run config-db or a Mission Control agent)`
            : `${where}: "${kind}" scrapers are not available in this console`)
          continue
        }
        if (signal.aborted) break
        let documents: ScrapedDocument[] = []
        try {
          documents = await source.fetch(entry as Record<string, unknown>, { db, logger: log, signal, scraperId: scraper.id, namespace: scraper.namespace ?? 'default', targets: fence.forScraper(scraper.id) })
          fetched += 1
        } catch (error) {
          complete = false
          if (error instanceof PartialScrapeError) {
            documents = error.documents
            fetched += 1
            errors.push(...error.problems.map((problem) => `${where}: ${problem}`))
          } else {
            errors.push(`${where}: ${signal.aborted ? 'timed out' : (error as Error).message}`)
          }
        }
        const itemErrors: string[] = []
        items.push(...documentsToItems(entry as Record<string, unknown>, documents, itemErrors))
        if (itemErrors.length > 0) {
          // An item that failed is not known to be gone: nothing is deleted after this run.
          complete = false
          errors.push(...itemErrors.map((problem) => `${where}: ${problem}`))
        }
      }
    }
    if (signal.aborted) {
      return { status: 'FAILED', summary: emptySummary(errors.length + 1), errors: [...errors, 'the scrape timed out; nothing was stored'] }
    }
    const retention = (spec.retention ?? {}) as { staleItemAge?: unknown }
    const summary = await storeScrape(db, items, {
      scraperId: scraper.id,
      deleteVanished: complete,
      staleItemAgeMs: parseDurationMs(retention.staleItemAge ?? '') ?? 0,
    }, errors)
    const kept = await applyRetention(db, scraper.id, spec.retention)
    errors.push(...kept.errors)
    summary.errors = errors.length
    // Some entries ran: WARNING with their errors; none did (or none could here): FAILED.
    const status: ScrapeRunStatus = errors.length === 0 ? 'SUCCESS' : fetched > 0 ? 'WARNING' : 'FAILED'
    return { status, summary, errors }
  }

  function emptySummary(errors: number): ScrapeSummary {
    return { added: 0, updated: 0, unchanged: 0, deleted: 0, errors, by_type: {} }
  }

  /** One run, job history included; the caller holds the lease. */
  async function runLeased(scraper: ScraperRow, jobId: string, stopSignal: AbortSignal): Promise<ScrapeRunOutcome> {
    const startedAt = Date.now()
    const timeoutMs = parseDurationMs(scraper.spec?.timeout ?? '') || defaultTimeoutMs
    const controller = new AbortController()
    const abort = () => controller.abort()
    const timer = setTimeout(abort, timeoutMs)
    stopSignal.addEventListener('abort', abort, { once: true })
    let outcome: { status: ScrapeRunStatus; summary: ScrapeSummary; errors: string[] }
    try {
      outcome = await scrape(scraper, controller.signal)
    } catch (error) {
      // The database failed under the run (or a bug): recorded, never thrown into the loop.
      log.error({ err: error, scraper: scraper.id }, 'scrape failed')
      outcome = { status: 'FAILED', summary: emptySummary(1), errors: [`the scrape could not be stored: ${(error as Error).message}`] }
    } finally {
      clearTimeout(timer)
      stopSignal.removeEventListener('abort', abort)
    }
    executed += 1
    await closeJob(jobId, outcome, startedAt).catch((error: unknown) => log.error({ err: error, scraper: scraper.id }, 'job history update failed'))
    return { jobHistoryId: jobId, ...outcome }
  }

  async function release(scraperId: string, nextRunAt: Date | null | undefined): Promise<void> {
    await db.query(
      `UPDATE lookout.scraper_schedule SET lease_owner = NULL, lease_until = NULL,
         next_run_at = CASE WHEN $3::boolean THEN COALESCE($4::timestamptz, 'infinity') ELSE next_run_at END
       WHERE scraper_id = $1 AND lease_owner = $2`,
      [scraperId, processId, nextRunAt !== undefined, nextRunAt ? nextRunAt.toISOString() : null],
    ).catch((error: unknown) => log.warn({ err: error, scraper: scraperId }, 'releasing a scraper lease failed'))
  }

  type Claim = { scraper_id: string; schedule: string; next_run_at: Date | string }

  function launch(claim: Claim): void {
    const stopSignal = halt.signal
    const promise = (async () => {
      const scraper = await loadScraper(claim.scraper_id)
      if (!scraper) return release(claim.scraper_id, undefined)
      const jobId = await openJob(scraper.id)
      await runLeased(scraper, jobId, stopSignal)
      await release(scraper.id, nextRunAfter(scraper.id, claim.schedule, new Date(claim.next_run_at)))
    })()
      .catch(async (error: unknown) => {
        if (!outage.failed(error)) log.error({ err: error, scraper: claim.scraper_id }, 'scraper run crashed')
        await release(claim.scraper_id, undefined)
      })
      .finally(() => {
        inFlight.delete(claim.scraper_id)
        if (!stopping) void claimDue()
      })
    inFlight.set(claim.scraper_id, promise)
  }

  async function claimDue(): Promise<void> {
    if (claiming || stopping || !started || !outage.ready()) return
    const room = concurrency - inFlight.size
    if (room <= 0) return
    claiming = true
    try {
      const { rows } = await db.query<Claim>(
        `WITH due AS (
           SELECT s.scraper_id FROM lookout.scraper_schedule s
           WHERE s.next_run_at <= now() AND (s.lease_until IS NULL OR s.lease_until < now())
           ORDER BY s.next_run_at LIMIT $2 FOR UPDATE SKIP LOCKED)
         UPDATE lookout.scraper_schedule s
         SET lease_owner = $1, lease_until = now() + $3 * interval '1 millisecond', last_started_at = now(), last_owner = $1
         FROM due WHERE s.scraper_id = due.scraper_id
         RETURNING s.scraper_id, s.schedule, s.next_run_at`,
        [processId, room, leaseMs],
      )
      outage.succeeded()
      for (const claim of rows) launch(claim)
    } catch (error) {
      if (!outage.failed(error)) log.error({ err: error }, 'claiming due scrapers failed')
    } finally {
      claiming = false
    }
  }

  /** Schedules follow config_scrapers: live, local, not system; an edited scraper runs at once. */
  async function sync(): Promise<void> {
    if (!outage.ready()) return
    try {
      const fallback = await effectiveSchedule({})
      await db.query(
        `INSERT INTO lookout.scraper_schedule (scraper_id, schedule, spec_updated_at, next_run_at)
         SELECT s.id, COALESCE(NULLIF(btrim(s.spec ->> 'schedule'), ''), $1), s.updated_at, now()
         FROM config_scrapers s
         WHERE s.deleted_at IS NULL AND s.agent_id = $2 AND s.id <> $2 AND s.spec -> 'system' IS DISTINCT FROM 'true'::jsonb
         ON CONFLICT (scraper_id) DO UPDATE SET schedule = EXCLUDED.schedule, spec_updated_at = EXCLUDED.spec_updated_at, next_run_at = now()
         WHERE scraper_schedule.schedule IS DISTINCT FROM EXCLUDED.schedule
            OR scraper_schedule.spec_updated_at IS DISTINCT FROM EXCLUDED.spec_updated_at`,
        [fallback, LOCAL_AGENT],
      )
      await db.query(
        `DELETE FROM lookout.scraper_schedule sc WHERE NOT EXISTS (
           SELECT 1 FROM config_scrapers s WHERE s.id = sc.scraper_id AND s.deleted_at IS NULL AND s.agent_id = $1
             AND s.spec -> 'system' IS DISTINCT FROM 'true'::jsonb)`,
        [LOCAL_AGENT],
      )
      outage.succeeded()
    } catch (error) {
      if (!outage.failed(error)) log.error({ err: error }, 'scraper schedule sync failed')
    }
  }

  async function renewLeases(): Promise<void> {
    if (inFlight.size === 0 || !outage.ready()) return
    await db
      .query(`UPDATE lookout.scraper_schedule SET lease_until = now() + $2 * interval '1 millisecond' WHERE lease_owner = $1`, [processId, leaseMs])
      .then(() => outage.succeeded())
      .catch((error: unknown) => {
        if (!outage.failed(error)) log.warn({ err: error }, 'renewing scraper leases failed')
      })
  }

  /** Takes the scraper's lease for a manual run, waiting while a run elsewhere holds it. */
  async function leaseForRunNow(scraper: ScraperRow, deadline: number): Promise<boolean> {
    const schedule = await effectiveSchedule(scraper.spec ?? {})
    const next = nextRunAfter(scraper.id, schedule)
    while (Date.now() < deadline) {
      const { rowCount } = await db.query(
        `INSERT INTO lookout.scraper_schedule (scraper_id, schedule, spec_updated_at, next_run_at, lease_owner, lease_until, last_started_at, last_owner)
         VALUES ($1, $2, $3, COALESCE($4::timestamptz, 'infinity'), $5, now() + $6 * interval '1 millisecond', now(), $5)
         ON CONFLICT (scraper_id) DO UPDATE SET lease_owner = $5, lease_until = now() + $6 * interval '1 millisecond', last_started_at = now(), last_owner = $5
         WHERE scraper_schedule.lease_until IS NULL OR scraper_schedule.lease_until < now()`,
        [scraper.id, schedule, scraper.updated_at, next ? next.toISOString() : null, processId, leaseMs],
      )
      if (rowCount > 0) return true
      await new Promise((resolve) => setTimeout(resolve, 100))
    }
    return false
  }

  async function runNow(scraperId: string, runOptions: { async?: boolean } = {}): Promise<ScrapeRunOutcome | null> {
    if (!isUuid(scraperId)) return null
    const scraper = await loadScraper(scraperId)
    if (!scraper) return null
    const jobId = await openJob(scraper.id)
    const timeoutMs = parseDurationMs(scraper.spec?.timeout ?? '') || defaultTimeoutMs
    let settled: Promise<unknown> = Promise.resolve()
    const run = (async (): Promise<ScrapeRunOutcome> => {
      const leased = await leaseForRunNow(scraper, Date.now() + leaseMs + timeoutMs)
      if (!leased) {
        const outcome = { status: 'FAILED' as const, summary: emptySummary(1), errors: ['another process kept running this scraper; try again later'] }
        await closeJob(jobId, outcome, Date.now())
        return { jobHistoryId: jobId, ...outcome }
      }
      // Counted as in flight so stop() waits for it and its lease is renewed.
      inFlight.set(scraper.id, settled)
      try {
        return await runLeased(scraper, jobId, halt.signal)
      } finally {
        inFlight.delete(scraper.id)
        await release(scraper.id, undefined)
      }
    })()
    settled = run.catch(() => undefined)
    if (runOptions.async) {
      run.catch((error: unknown) => log.error({ err: error, scraper: scraperId }, 'run-now scrape failed'))
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
      log.info({ concurrency, leaseMs }, 'scrape engine started')
    },
    async stop() {
      if (!started) return
      stopping = true
      for (const timer of timers.splice(0)) clearInterval(timer)
      const all = Promise.allSettled([...inFlight.values()])
      const timedOut = await Promise.race([
        all.then(() => false),
        new Promise<boolean>((resolve) => setTimeout(() => resolve(true), options.stopGraceMs ?? 10_000).unref()),
      ])
      if (timedOut) {
        halt.abort()
        await all
      }
      while (claiming) await new Promise((resolve) => setTimeout(resolve, 10))
      await db.query('UPDATE lookout.scraper_schedule SET lease_owner = NULL, lease_until = NULL WHERE lease_owner = $1', [processId]).catch(() => undefined)
      started = false
      log.info({ executed }, 'scrape engine stopped')
    },
    runNow,
    syncNow: sync,
    stats: () => ({ processId, running: inFlight.size, executed }),
  }
}
