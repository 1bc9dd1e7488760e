import { hostname } from 'node:os'
import type { Db, Queryable } from '#server/db/client.ts'
import type { CheckResult } from './check-result.ts'
import { LOCAL_AGENT_ID } from './canary-sync.ts'

/** Limits from resource-specs §1.3. */
const MESSAGE_LIMIT = 4 * 1024
const ERROR_LIMIT = 128 * 1024
const INT32_MAX = 2_147_483_647

export type CompletedRun = {
  checkId: string
  canaryId: string
  type: string
  results: CheckResult[]
  /** Where the schedule moves next; null keeps it (Run Now), undefined for an unscheduled check. */
  nextRunAt: Date | null | undefined
  startedAt: Date
  finishedAt: Date
}

type StatusRow = { check_id: string; time: string; duration: number; status: boolean; invalid: boolean; message: string | null; error: string | null; details: unknown }

const clip = (text: string, limit: number) => (text.length > limit ? text.slice(0, limit) : text)

function statusRow(checkId: string, result: CheckResult, offsetMs: number): StatusRow {
  const error = result.errors.join(', ')
  return {
    check_id: checkId,
    // Results of one run share a start; an offset keeps (check_id, time) unique.
    time: new Date(result.start.getTime() + offsetMs).toISOString(),
    duration: Math.min(INT32_MAX, Math.max(0, Math.round(result.duration))),
    status: result.pass,
    invalid: result.invalid,
    message: result.message ? clip(result.message, MESSAGE_LIMIT) : null,
    error: error ? clip(error, ERROR_LIMIT) : null,
    details: result.detail === undefined ? null : result.detail,
  }
}

async function transformedCheckId(tx: Queryable, run: CompletedRun, result: CheckResult): Promise<string> {
  const info = result.transformed!
  const { rows } = await tx.query<{ id: string }>(
    `INSERT INTO checks (canary_id, agent_id, type, name, description, icon, labels, transformed, created_at, updated_at, namespace)
     SELECT $1, $2, $3, $4, $5, $6, $7, true, now(), now(), p.namespace FROM checks p WHERE p.id = $8
     ON CONFLICT (canary_id, type, name, agent_id) DO UPDATE SET deleted_at = NULL,
       description = coalesce(EXCLUDED.description, checks.description), icon = coalesce(EXCLUDED.icon, checks.icon),
       labels = coalesce(EXCLUDED.labels, checks.labels)
     RETURNING id`,
    [run.canaryId, LOCAL_AGENT_ID, info.type ?? run.type, info.name, info.description ?? null, info.icon ?? null, info.labels ? JSON.stringify(info.labels) : null, run.checkId],
  )
  return rows[0]!.id
}

/**
 * Stores a batch of finished runs in one transaction: status rows, the check's current state
 * (checks and checks_unlogged), the schedule's next tick with the lease released, and one
 * job_history row per canary. Batching keeps the database cost per run to a few rows of
 * multi-row statements, which is what lets one process sustain thousands of runs a second.
 */
export async function storeRuns(db: Db, runs: CompletedRun[], processId: string): Promise<void> {
  if (runs.length === 0) return
  await db.transaction(async (tx) => {
    const statuses: StatusRow[] = []
    const states: { id: string; canary_id: string; status: string; time: string; next: string | null; keep: boolean }[] = []
    const jobs = new Map<string, { success: number; error: number; start: number; end: number; errors: string[] }>()
    for (const run of runs) {
      let parentPass = true
      for (const [index, result] of run.results.entries()) {
        const checkId = result.transformed ? await transformedCheckId(tx, run, result) : run.checkId
        statuses.push(statusRow(checkId, result, result.transformed ? 0 : index))
        if (result.transformed) {
          states.push({ id: checkId, canary_id: run.canaryId, status: result.pass ? 'healthy' : 'unhealthy', time: result.start.toISOString(), next: null, keep: true })
        } else if (!result.pass) parentPass = false
      }
      if (run.results.length > 0) {
        states.push({
          id: run.checkId,
          canary_id: run.canaryId,
          status: parentPass ? 'healthy' : 'unhealthy',
          time: run.startedAt.toISOString(),
          next: run.nextRunAt ? run.nextRunAt.toISOString() : null,
          keep: run.nextRunAt === null || run.nextRunAt === undefined,
        })
      }
      const job = jobs.get(run.canaryId) ?? { success: 0, error: 0, start: run.startedAt.getTime(), end: run.finishedAt.getTime(), errors: [] }
      if (parentPass) job.success += 1
      else {
        job.error += 1
        const text = run.results.flatMap((result) => result.errors).join(', ')
        if (text && job.errors.length < 10) job.errors.push(clip(text, 512))
      }
      job.start = Math.min(job.start, run.startedAt.getTime())
      job.end = Math.max(job.end, run.finishedAt.getTime())
      jobs.set(run.canaryId, job)
    }
    await tx.query(
      `INSERT INTO check_statuses (check_id, time, duration, status, invalid, message, error, details)
       SELECT x.check_id, x.time, x.duration, x.status, x.invalid, x.message, x.error, x.details
       FROM jsonb_to_recordset($1::jsonb) AS x(check_id uuid, time timestamptz, duration integer, status boolean, invalid boolean, message text, error text, details jsonb)
       ON CONFLICT (check_id, time) DO NOTHING`,
      [JSON.stringify(statuses)],
    )
    const stateJson = JSON.stringify(states)
    await tx.query(
      `UPDATE checks k SET status = x.status, last_runtime = x.time, next_runtime = CASE WHEN x.keep THEN k.next_runtime ELSE x.next END
       FROM jsonb_to_recordset($1::jsonb) AS x(id uuid, status text, time timestamptz, next timestamptz, keep boolean)
       WHERE k.id = x.id`,
      [stateJson],
    )
    await tx.query(
      `INSERT INTO checks_unlogged (check_id, canary_id, status, last_runtime, next_runtime)
       SELECT x.id, x.canary_id, x.status, x.time, x.next
       FROM jsonb_to_recordset($1::jsonb) AS x(id uuid, canary_id uuid, status text, time timestamptz, next timestamptz, keep boolean)
       ON CONFLICT (check_id) DO UPDATE SET status = EXCLUDED.status, last_runtime = EXCLUDED.last_runtime,
         next_runtime = CASE WHEN EXCLUDED.next_runtime IS NULL THEN checks_unlogged.next_runtime ELSE EXCLUDED.next_runtime END`,
      [stateJson],
    )
    const schedule = runs.map((run) => ({ id: run.checkId, next: run.nextRunAt ? run.nextRunAt.toISOString() : null }))
    await tx.query(
      `UPDATE lookout.check_schedule s SET next_run_at = coalesce(x.next, s.next_run_at), lease_owner = NULL, lease_until = NULL
       FROM jsonb_to_recordset($1::jsonb) AS x(id uuid, next timestamptz)
       WHERE s.check_id = x.id AND s.lease_owner = $2`,
      [JSON.stringify(schedule), processId],
    )
    const host = hostname()
    const jobRows = [...jobs.entries()].map(([canaryId, job]) => ({
      resource_id: canaryId,
      success_count: job.success,
      error_count: job.error,
      status: job.error === 0 ? 'SUCCESS' : job.success === 0 ? 'FAILED' : 'WARNING',
      details: job.errors.length > 0 ? { errors: job.errors } : {},
      duration_millis: job.end - job.start,
      time_start: new Date(job.start).toISOString(),
      time_end: new Date(job.end).toISOString(),
    }))
    await tx.query(
      `INSERT INTO job_history (name, success_count, error_count, details, hostname, duration_millis, resource_type, resource_id, status, time_start, time_end)
       SELECT 'Canary', x.success_count, x.error_count, x.details, $2, x.duration_millis, 'canary', x.resource_id, x.status, x.time_start, x.time_end
       FROM jsonb_to_recordset($1::jsonb) AS x(resource_id text, success_count integer, error_count integer, status text, details jsonb, duration_millis integer, time_start timestamptz, time_end timestamptz)`,
      [JSON.stringify(jobRows), host],
    )
  })
}

/** Deletes status rows (and canary run history) older than the retention; returns rows removed. */
export async function pruneCheckStatuses(db: Db, retentionDays: number): Promise<{ statuses: number; jobs: number }> {
  const started = Date.now()
  const statuses = await db.query('DELETE FROM check_statuses WHERE time < now() - $1 * interval \'1 day\'', [retentionDays])
  const jobs = await db.query(
    `DELETE FROM job_history WHERE name IN ('Canary', 'SyncCanary') AND resource_type = 'canary' AND created_at < now() - $1 * interval '1 day'`,
    [retentionDays],
  )
  // Retention is a job like the others: the history page shows when it last ran and what it removed.
  await db.query(
    `INSERT INTO job_history (name, status, success_count, error_count, details, hostname, time_start, time_end, duration_millis)
     VALUES ($1, 'SUCCESS', $2, 0, $3::jsonb, $4, $5, now(), $6)`,
    [
      CHECK_RETENTION_JOB_NAME,
      statuses.rowCount + jobs.rowCount,
      JSON.stringify({ summary: { check_statuses_deleted: statuses.rowCount, job_history_deleted: jobs.rowCount, retention_days: retentionDays } }),
      hostname(),
      new Date(started).toISOString(),
      Date.now() - started,
    ],
  )
  return { statuses: statuses.rowCount, jobs: jobs.rowCount }
}

/** The check status retention's job_history name (no resource). */
export const CHECK_RETENTION_JOB_NAME = 'CheckStatusRetention'
