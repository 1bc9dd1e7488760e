import { FINAL_RUN_STATUSES, isFinalRunStatus, type RunStatus } from '#contract/playbook/playbook-vocabulary.ts'
import { hostname } from 'node:os'
import type { Db, Queryable } from '#server/db/client.ts'
import { PlaybookError, type ApprovalSpec, type PlaybookRunRow } from './playbook-model.ts'
import { writeRunConfigChange } from './run-config-changes.ts'

/**
 * The run state machine of resource-specs §2.7: which status may follow which, and the
 * transitions made outside the runner (approval, cancel) or shared with it (ending a run, waking
 * a parent whose children are done). The runner (playbook-runner.ts) makes the others.
 */

/** Every status a run may move to from each status; final statuses lead nowhere. */
export const RUN_TRANSITIONS: Readonly<Record<RunStatus, readonly RunStatus[]>> = {
  pending_approval: ['scheduled', 'cancelled'],
  scheduled: ['running', 'cancelled', 'timed_out'],
  running: ['scheduled', 'sleeping', 'retrying', 'waiting', 'completed', 'failed', 'cancelled', 'timed_out'],
  sleeping: ['running', 'cancelled', 'timed_out'],
  retrying: ['running', 'cancelled', 'timed_out'],
  waiting: ['scheduled', 'running', 'cancelled', 'timed_out'],
  completed: [],
  failed: [],
  cancelled: [],
  timed_out: [],
}

export function canTransition(from: RunStatus, to: RunStatus): boolean {
  return RUN_TRANSITIONS[from]?.includes(to) ?? false
}

export function isRunFinal(status: string): boolean {
  return isFinalRunStatus(status)
}

/** For SQL: `status <> ALL($n::text[])` keeps the live runs. */
export const FINAL_RUN_STATUS_LIST: string[] = [...FINAL_RUN_STATUSES]

export type RunEnding = { status: Extract<RunStatus, 'completed' | 'failed' | 'cancelled' | 'timed_out'>; error?: string | null }

/**
 * Ends a run: status, end_time and error; actions still pending are skipped and one still running
 * is failed with `actionError`; the lease goes; a config item's history gets PlaybookCompleted
 * or PlaybookFailed; a parent waiting on its children is woken when this was its last live one.
 * `from`: the statuses the run may still be in (the change is skipped when it moved meanwhile).
 * Returns false when the run was already elsewhere.
 */
export async function endRun(tx: Queryable, runId: string, ending: RunEnding, options: { from?: RunStatus[]; actionError?: string } = {}): Promise<boolean> {
  const from = options.from ?? (Object.keys(RUN_TRANSITIONS) as RunStatus[]).filter((status) => canTransition(status, ending.status))
  const { rows } = await tx.query<PlaybookRunRow>(
    `UPDATE playbook_runs SET status = $2, end_time = now(), error = $3
     WHERE id = $1 AND status = ANY($4::text[])
     RETURNING id, playbook_id, config_id, created_by, status, error, parent_id, coalesce(start_time, created_at) AS job_start`,
    [runId, ending.status, ending.error ?? null, from],
  )
  const run = rows[0]
  if (!run) return false
  await recordRunJob(tx, run, ending)
  await tx.query(
    `UPDATE playbook_run_actions SET
       status = CASE WHEN status = 'running' THEN 'failed' ELSE 'skipped' END,
       error = CASE WHEN status = 'running' THEN $2 ELSE error END,
       end_time = now()
     WHERE playbook_run_id = $1 AND status NOT IN ('completed', 'failed', 'skipped')`,
    [runId, options.actionError ?? `the run ended (${ending.status}) while this action ran`],
  )
  await tx.query('DELETE FROM lookout.playbook_run_leases WHERE run_id = $1', [runId])
  await writeRunConfigChange(tx, run, ending.status === 'completed' ? 'PlaybookCompleted' : 'PlaybookFailed')
  if (run.parent_id) await wakeParent(tx, run.parent_id)
  return true
}

/** The playbook runner's job_history name (resource_type `playbook`, resource_id the playbook id). */
export const PLAYBOOK_RUN_JOB_NAME = 'PlaybookRun'

const JOB_STATUS_OF: Record<RunEnding['status'], string> = { completed: 'SUCCESS', failed: 'FAILED', timed_out: 'FAILED', cancelled: 'SKIPPED' }

/**
 * One job_history row per run, written when it ends: a run is claimed, handed over and claimed
 * again many times while it sleeps or waits, so a row per claim would say little. Every ending
 * (runner, cancel, timeout) passes through endRun, which makes this the one place for it.
 */
async function recordRunJob(tx: Queryable, run: PlaybookRunRow & { job_start?: Date | string | null }, ending: RunEnding): Promise<void> {
  const failed = ending.status === 'failed' || ending.status === 'timed_out'
  const details = { run_id: run.id, run_status: ending.status, ...(ending.error ? { errors: [ending.error] } : {}) }
  await tx.query(
    `INSERT INTO job_history (name, resource_type, resource_id, status, success_count, error_count, details, hostname, time_start, time_end, duration_millis)
     VALUES ($1, 'playbook', $2, $3, $4, $5, $6::jsonb, $7, coalesce($8::timestamptz, now()), now(),
       greatest(0, floor(extract(epoch FROM now() - coalesce($8::timestamptz, now())) * 1000))::integer)`,
    [PLAYBOOK_RUN_JOB_NAME, run.playbook_id, JOB_STATUS_OF[ending.status], failed ? 0 : 1, failed ? 1 : 0, JSON.stringify(details), hostname(), run.job_start ?? null],
  )
}

/** A parent waiting on child runs goes back to scheduled once none of them is live. */
export async function wakeParent(tx: Queryable, parentId: string): Promise<boolean> {
  const { rowCount } = await tx.query(
    `UPDATE playbook_runs p SET status = 'scheduled', scheduled_time = now()
     WHERE p.id = $1 AND p.status = 'waiting'
       AND NOT EXISTS (SELECT 1 FROM playbook_runs c WHERE c.parent_id = p.id AND c.status <> ALL($2::text[]))`,
    [parentId, FINAL_RUN_STATUS_LIST],
  )
  return rowCount > 0
}

type LockedRun = { id: string; status: RunStatus; spec: { approval?: ApprovalSpec } | null }

async function lockRun(tx: Queryable, runId: string): Promise<LockedRun> {
  const { rows } = await tx.query<LockedRun>('SELECT id, status, spec FROM playbook_runs WHERE id = $1 FOR UPDATE', [runId])
  const run = rows[0]
  if (!run) throw new PlaybookError(404, `playbook run (id=${runId}) not found`)
  return run
}

export type CancelOutcome = { status: 'cancelled'; cancelledChildren: string[] }

/**
 * Cancels a live run (pending_approval, scheduled, running, sleeping, retrying, waiting): its
 * pending actions are skipped, an action still running is failed (its process notices through
 * the playbook_run_progress notification or its lease renewal and aborts the action's signal),
 * and its live child runs are cancelled with it. 404 for an unknown run, 400 for a final one.
 */
export async function cancelRun(db: Db, runId: string): Promise<CancelOutcome> {
  return db.transaction(async (tx) => {
    const run = await lockRun(tx, runId)
    if (isRunFinal(run.status)) throw new PlaybookError(400, `playbook run (id=${runId}) is already ${run.status}`)
    const cancelledChildren: string[] = []
    await cancelLocked(tx, runId, cancelledChildren)
    return { status: 'cancelled' as const, cancelledChildren }
  })
}

async function cancelLocked(tx: Queryable, runId: string, cancelledChildren: string[]): Promise<void> {
  await endRun(tx, runId, { status: 'cancelled' }, { actionError: 'the run was cancelled while this action ran' })
  const { rows } = await tx.query<{ id: string }>(
    'SELECT id FROM playbook_runs WHERE parent_id = $1 AND status <> ALL($2::text[]) ORDER BY id FOR UPDATE',
    [runId, FINAL_RUN_STATUS_LIST],
  )
  for (const child of rows) {
    cancelledChildren.push(child.id)
    await cancelLocked(tx, child.id, cancelledChildren)
  }
}

export type Approver = { personId: string } | { teamId: string }
export type ApprovalOutcome = { status: RunStatus; approved: boolean }

/**
 * Records an approval of a run waiting for one and moves it to scheduled when the approval rule
 * of resource-specs §2.4 is met: `any` needs one allowed approver, `all` (or no type) needs every
 * listed person and every listed team covered. A team is covered by an approval recorded as the
 * team or by one of its members. Approvals by anyone not listed are kept but count for nothing;
 * whether the caller may approve is the API's question. The same approver twice is one approval.
 */
export async function recordApproval(db: Db, runId: string, approver: Approver): Promise<ApprovalOutcome> {
  return db.transaction(async (tx) => {
    const run = await lockRun(tx, runId)
    const approval = run.spec?.approval
    const people = approval?.approvers?.people ?? []
    const teams = approval?.approvers?.teams ?? []
    if (people.length === 0 && teams.length === 0) throw new PlaybookError(400, 'this playbook does not require approval')
    if (run.status !== 'pending_approval') throw new PlaybookError(400, `playbook run (id=${runId}) is not waiting for approval (status: ${run.status})`)
    const personId = 'personId' in approver ? approver.personId : null
    const teamId = 'teamId' in approver ? approver.teamId : null
    await tx.query(
      `INSERT INTO playbook_approvals (run_id, person_id, team_id)
       SELECT $1, $2::uuid, $3::uuid
       WHERE NOT EXISTS (SELECT 1 FROM playbook_approvals WHERE run_id = $1
         AND person_id IS NOT DISTINCT FROM $2::uuid AND team_id IS NOT DISTINCT FROM $3::uuid)`,
      [runId, personId, teamId],
    )
    const satisfied = await approvalSatisfied(tx, runId, approval?.type ?? '', people, teams)
    if (!satisfied) return { status: run.status, approved: false }
    await tx.query(`UPDATE playbook_runs SET status = 'scheduled', scheduled_time = greatest(scheduled_time, now()) WHERE id = $1`, [runId])
    return { status: 'scheduled' as const, approved: true }
  })
}

async function approvalSatisfied(tx: Queryable, runId: string, type: string, people: string[], teams: string[]): Promise<boolean> {
  // Listed people by email (case-insensitive) and listed teams by name, each marked covered or not.
  const { rows } = await tx.query<{ kind: 'person' | 'team'; covered: boolean }>(
    `WITH approvals AS (SELECT person_id, team_id FROM playbook_approvals WHERE run_id = $1),
     listed_people AS (
       SELECT lower(email) AS key, bool_or(id IN (SELECT person_id FROM approvals WHERE person_id IS NOT NULL)) AS covered
       FROM people WHERE lower(email) = ANY($2::text[]) AND deleted_at IS NULL GROUP BY lower(email)),
     listed_teams AS (
       SELECT t.id, (t.id IN (SELECT team_id FROM approvals WHERE team_id IS NOT NULL)
         OR EXISTS (SELECT 1 FROM team_members m JOIN approvals a ON a.person_id = m.person_id WHERE m.team_id = t.id)) AS covered
       FROM teams t WHERE t.name = ANY($3::text[]) AND t.deleted_at IS NULL)
     SELECT 'person' AS kind, covered FROM listed_people
     UNION ALL SELECT 'team' AS kind, covered FROM listed_teams`,
    [runId, people.map((email) => email.toLowerCase()), teams],
  )
  if (type === 'any') return rows.some((row) => row.covered)
  // `all`: every listed approver must be covered, including any the database does not know.
  const knownPeople = rows.filter((row) => row.kind === 'person')
  const knownTeams = rows.filter((row) => row.kind === 'team')
  if (knownPeople.length < new Set(people.map((email) => email.toLowerCase())).size) return false
  if (knownTeams.length < new Set(teams).size) return false
  return rows.every((row) => row.covered)
}
