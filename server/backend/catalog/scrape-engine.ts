import type { Logger } from 'pino'
import type { Db } from '#server/db/client.ts'
import { parseDurationMs } from '#contract/canary/duration.ts'
import { cappedErrors, createLeasedSchedule, type LeasedRunResult, type LeaseTimings } from '#server/backend/scheduling/leased-schedule.ts'
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
 * a lease taken with SKIP LOCKED (the leased schedule shared with the topology engine,
 * scheduling/leased-schedule.ts), so one scraper never runs in two processes at once; a process
 * that dies leaves a lease that lapses after leaseMs. Each run writes one job_history row
 * (RUNNING, then SUCCESS, WARNING or FAILED with the scrape summary and errors).
 */

export type ScrapeEngineOptions = LeaseTimings & {
  db: Db
  logger: Logger
  /** Scrapers running at once in this process (LOOKOUT_SCRAPE_CONCURRENCY). */
  concurrency?: number
  /** Timeout of scrapers whose spec names none (LOOKOUT_SCRAPE_TIMEOUT_MS). */
  defaultTimeoutMs?: number
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
const LOCAL_AGENT = '00000000-0000-0000-0000-000000000000'

type ScraperRow = { id: string; name: string; namespace: string | null; spec: Record<string, unknown>; updated_at: Date | string | null }

export function createScrapeEngine(options: ScrapeEngineOptions): ScrapeEngine {
  const { db } = options
  const defaultTimeoutMs = options.defaultTimeoutMs ?? 1_800_000
  // http and sql sources connect from this server's network position: a scraper whose spec no
  // exec holder wrote may not reach its own or link-local addresses (as for checks, issue 10).
  const fence = createTargetFence({ db, allowedTargets: options.allowedTargets, relation: 'config_scrapers' })

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

  type Scraped = { status: Exclude<ScrapeRunStatus, 'RUNNING'>; summary: ScrapeSummary; errors: string[] }

  function jobResult(outcome: Scraped): LeasedRunResult<Scraped> {
    const errors = cappedErrors(outcome.errors)
    const { added, updated, unchanged, deleted, by_type: byType } = outcome.summary
    // config-db's shape: type → the counts that are not zero (what the job details' Scrape
    // Summary tab and the demo estate show); the run's totals beside it.
    const scrapeSummary = Object.fromEntries(Object.entries(byType).map(([type, counts]) => [type, Object.fromEntries(Object.entries(counts).filter(([, count]) => count > 0))]))
    const details = { scrape_summary: scrapeSummary, totals: { added, updated, unchanged, deleted, errors: outcome.errors.length }, ...(errors.length > 0 ? { errors } : {}) }
    return { status: outcome.status, successCount: added + updated + unchanged, errorCount: outcome.errors.length, details, outcome }
  }

  /** Fetches every entry, runs the pipeline, stores, applies retention; never throws for a scraper's own problems. */
  async function scrape(scraper: ScraperRow, signal: AbortSignal): Promise<Scraped> {
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
          documents = await source.fetch(entry as Record<string, unknown>, { db, logger: schedule.log, signal, scraperId: scraper.id, namespace: scraper.namespace ?? 'default', targets: fence.forScraper(scraper.id) })
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
    const status = errors.length === 0 ? 'SUCCESS' : fetched > 0 ? 'WARNING' : 'FAILED'
    return { status, summary, errors }
  }

  function emptySummary(errors: number): ScrapeSummary {
    return { added: 0, updated: 0, unchanged: 0, deleted: 0, errors, by_type: {} }
  }

  const schedule = createLeasedSchedule<ScraperRow, Scraped>({
    db,
    logger: options.logger,
    component: 'scrape-engine',
    noun: 'scraper',
    table: 'lookout.scraper_schedule',
    key: 'scraper_id',
    job: { name: SCRAPE_JOB_NAME, resourceType: 'config_scraper' },
    timings: options,
    concurrency: options.concurrency ?? 2,
    defaultSchedule: DEFAULT_SCRAPE_SCHEDULE,
    load: loadScraper,
    scheduleOf: (scraper) => effectiveSchedule(scraper.spec ?? {}),
    timeoutMsOf: (scraper) => parseDurationMs(scraper.spec?.timeout ?? '') || defaultTimeoutMs,
    sync,
    run: async (scraper, signal) => jobResult(await scrape(scraper, signal)),
    failed: (_scraper, reason) => jobResult({
      status: 'FAILED',
      summary: emptySummary(1),
      errors: ['busy' in reason ? 'another process kept running this scraper; try again later' : `the scrape could not be stored: ${reason.error.message}`],
    }),
  })

  /** Schedules follow config_scrapers: live, local, not system; an edited scraper runs at once. */
  async function sync(): Promise<void> {
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
  }

  return {
    processId: schedule.processId,
    start: schedule.start,
    stop: schedule.stop,
    async runNow(scraperId, runOptions) {
      const run = await schedule.runNow(scraperId, runOptions)
      if (!run) return null
      const scraped = run.result?.outcome
      return { jobHistoryId: run.jobHistoryId, status: run.status, ...(scraped ? { summary: scraped.summary, errors: scraped.errors } : {}) }
    },
    syncNow: schedule.syncNow,
    stats: schedule.stats,
  }
}
