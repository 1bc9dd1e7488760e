import type { Logger } from 'pino'
import type { Db } from '#server/db/client.ts'
import { LOCAL_AGENT_ID } from '#server/backend/health/canary-sync.ts'
import { createCheckTrust } from '#server/backend/health/check-trust.ts'
import type { AllowedTarget } from '#server/backend/health/checks/target-guard.ts'
import { createAuthorizer, type Authorizer } from '#server/backend/rbac/authorizer.ts'
import { cappedErrors, createLeasedSchedule, type JobStatus, type LeasedRunResult, type LeaseTimings } from '#server/backend/scheduling/leased-schedule.ts'
import type { TopologyRow, TopologyStoreSummary } from './topology-model.ts'
import { runTopology } from './topology-run.ts'

/**
 * Runs Topology resources on their schedules in every embedded process (docs/decisions/023). The
 * scheduling is the scrape engine's (scheduling/leased-schedule.ts: lookout.topology_schedule,
 * leases taken with SKIP LOCKED, one job_history row per run); what a run does is runTopology's
 * (evaluate the spec, store the tree). A deleted topology stops, and its components go with it.
 */

export type TopologyEngineOptions = LeaseTimings & {
  db: Db
  logger: Logger
  /** Topologies running at once in this process. */
  concurrency?: number
  /** A topology spec names no timeout; this one applies to every run (LOOKOUT_TOPOLOGY_TIMEOUT_MS). */
  timeoutMs?: number
  /** Decides whether an exec holder wrote a topology's spec (the run's `trusted`). */
  authorizer?: Authorizer
  /** Exceptions to the network fence of topologies no exec holder wrote (LOOKOUT_CHECK_ALLOWED_TARGETS). */
  allowedTargets?: AllowedTarget[]
  /** The run itself; runTopology unless a test gives its own. */
  run?: typeof runTopology
}

export type TopologyRunNowOutcome = {
  jobHistoryId: string
  status: JobStatus
  summary?: TopologyStoreSummary
  errors?: string[]
}

export type TopologyEngine = {
  readonly processId: string
  start(): Promise<void>
  stop(): Promise<void>
  /**
   * Runs a topology now, never alongside another run of it (waits for the lease). Sync: resolves
   * when the run is stored. `async`: resolves once its job_history row exists. Null when no live
   * topology the engine runs has that id.
   */
  runNow(topologyId: string, options?: { async?: boolean }): Promise<TopologyRunNowOutcome | null>
  /** A live local topology's spec and whether it is demo data (which the engine never runs), for the run route's answers. */
  find(topologyId: string): Promise<{ spec: unknown; demo: boolean } | null>
  syncNow(): Promise<void>
  stats(): { processId: string; running: number; executed: number }
}

/** The topology engine's job_history name (resource_type `topology`, resource_id the topology id). */
export const TOPOLOGY_JOB_NAME = 'Topology'
/** canary-checker's default topology schedule. */
export const DEFAULT_TOPOLOGY_SCHEDULE = '@every 5m'
/**
 * The demo estate's topologies (see migration 0270): their specs list only part of the components
 * the seed wrote, so a run would soft-delete the rest. Never scheduled, never run.
 */
export const DEMO_TOPOLOGY_SOURCE = 'Demo'

type Row = TopologyRow & { updated_at: Date | string | null; schedule: string | null }
type Ran = { summary?: TopologyStoreSummary; errors: string[] }

export function createTopologyEngine(options: TopologyEngineOptions): TopologyEngine {
  const { db } = options
  const run = options.run ?? runTopology
  const timeoutMs = options.timeoutMs ?? 300_000
  const trust = createCheckTrust({ db, authorizer: options.authorizer ?? createAuthorizer(db), relation: 'topologies' })

  async function load(topologyId: string): Promise<Row | null> {
    const { rows } = await db.query<Row>(
      `SELECT id, name, namespace, labels, spec, agent_id, created_by, updated_at, schedule FROM topologies
       WHERE id = $1 AND deleted_at IS NULL AND agent_id = $2 AND source::text IS DISTINCT FROM $3`,
      [topologyId, LOCAL_AGENT_ID, DEMO_TOPOLOGY_SOURCE],
    )
    const row = rows[0]
    return row ? { ...row, spec: row.spec ?? {} } : null
  }

  const scheduleOf = (row: Row): string => {
    const fromSpec = row.spec.schedule
    if (typeof fromSpec === 'string' && fromSpec.trim() !== '') return fromSpec.trim()
    return row.schedule?.trim() || DEFAULT_TOPOLOGY_SCHEDULE
  }

  function jobResult(ran: Ran, status: Exclude<JobStatus, 'RUNNING'>): LeasedRunResult<Ran> {
    const errors = cappedErrors(ran.errors)
    return {
      status,
      successCount: ran.summary?.components ?? 0,
      errorCount: ran.errors.length,
      details: { ...(ran.summary ? { summary: ran.summary } : {}), ...(errors.length > 0 ? { errors } : {}) },
      outcome: ran,
    }
  }

  const schedule = createLeasedSchedule<Row, Ran>({
    db,
    logger: options.logger,
    component: 'topology-engine',
    noun: 'topology',
    table: 'lookout.topology_schedule',
    key: 'topology_id',
    job: { name: TOPOLOGY_JOB_NAME, resourceType: 'topology' },
    timings: options,
    concurrency: options.concurrency ?? 2,
    defaultSchedule: DEFAULT_TOPOLOGY_SCHEDULE,
    load,
    scheduleOf: async (row) => scheduleOf(row),
    timeoutMsOf: () => timeoutMs,
    sync,
    async run(row, signal) {
      const trusted = await trust.trusts(row.id)
      try {
        const { summary, errors } = await run(db, row, { signal, logger: schedule.log, trusted, allowedTargets: options.allowedTargets })
        // A tree was stored: its problems (a failed lookup, a bad expression) make it a warning.
        return jobResult({ summary, errors }, errors.length === 0 ? 'SUCCESS' : 'WARNING')
      } catch (error) {
        const reason = signal.aborted ? `the topology run timed out or was stopped (${timeoutMs} ms): ${(error as Error).message}` : (error as Error).message
        schedule.log.warn({ err: error, topology: row.id }, 'topology run failed')
        return jobResult({ errors: [reason] }, 'FAILED')
      }
    },
    failed: (_row, reason) => jobResult({
      errors: ['busy' in reason ? 'another process kept running this topology; try again later' : `the topology run failed: ${reason.error.message}`],
    }, 'FAILED'),
  })

  /**
   * Schedules follow topologies: live, local, not demo data; an edited topology (updated_at
   * moved) runs at once. A deleted topology's components (and the inline canaries they own) are
   * soft-deleted here, since it never runs again to do it; not while a run of it holds the lease,
   * which would write them back.
   */
  async function sync(): Promise<void> {
    await db.query(
      `INSERT INTO lookout.topology_schedule (topology_id, schedule, spec_updated_at, next_run_at)
       SELECT t.id, COALESCE(NULLIF(btrim(t.spec ->> 'schedule'), ''), NULLIF(btrim(t.schedule), ''), $1), t.updated_at, now()
       FROM topologies t
       WHERE t.deleted_at IS NULL AND t.agent_id = $2 AND t.source::text IS DISTINCT FROM $3
       ON CONFLICT (topology_id) DO UPDATE SET schedule = EXCLUDED.schedule, spec_updated_at = EXCLUDED.spec_updated_at, next_run_at = now()
       WHERE topology_schedule.schedule IS DISTINCT FROM EXCLUDED.schedule
          OR topology_schedule.spec_updated_at IS DISTINCT FROM EXCLUDED.spec_updated_at`,
      [DEFAULT_TOPOLOGY_SCHEDULE, LOCAL_AGENT_ID, DEMO_TOPOLOGY_SOURCE],
    )
    await db.query(
      `WITH doomed AS (
         SELECT c.id, t.deleted_at FROM topologies t JOIN components c ON c.topology_id = t.id AND c.deleted_at IS NULL
         WHERE t.deleted_at IS NOT NULL AND t.agent_id = $1
           AND NOT EXISTS (SELECT 1 FROM lookout.topology_schedule s WHERE s.topology_id = t.id AND s.lease_until >= now())
       ), inline_canaries AS (
         UPDATE canaries cn SET deleted_at = d.deleted_at FROM doomed d
         WHERE cn.source = 'component=' || d.id::text AND cn.agent_id = $1 AND cn.deleted_at IS NULL
       )
       UPDATE components c SET deleted_at = d.deleted_at FROM doomed d WHERE c.id = d.id`,
      [LOCAL_AGENT_ID],
    )
    await db.query(
      `DELETE FROM lookout.topology_schedule sc
       WHERE (sc.lease_until IS NULL OR sc.lease_until < now())
         AND NOT EXISTS (
           SELECT 1 FROM topologies t WHERE t.id = sc.topology_id AND t.deleted_at IS NULL AND t.agent_id = $1
             AND t.source::text IS DISTINCT FROM $2)`,
      [LOCAL_AGENT_ID, DEMO_TOPOLOGY_SOURCE],
    )
  }

  return {
    processId: schedule.processId,
    start: schedule.start,
    stop: schedule.stop,
    async runNow(topologyId, runOptions) {
      const outcome = await schedule.runNow(topologyId, runOptions)
      if (!outcome) return null
      const ran = outcome.result?.outcome
      return {
        jobHistoryId: outcome.jobHistoryId,
        status: outcome.status,
        ...(ran?.summary ? { summary: ran.summary } : {}),
        ...(ran && ran.errors.length > 0 ? { errors: ran.errors } : {}),
      }
    },
    async find(topologyId) {
      const { rows } = await db.query<{ spec: unknown; demo: boolean }>(
        'SELECT spec, source::text = $3 AS demo FROM topologies WHERE id = $1 AND deleted_at IS NULL AND agent_id = $2',
        [topologyId, LOCAL_AGENT_ID, DEMO_TOPOLOGY_SOURCE],
      )
      return rows[0] ?? null
    },
    syncNow: schedule.syncNow,
    stats: schedule.stats,
  }
}
