import { createHash, randomUUID } from 'node:crypto'
import { hostname } from 'node:os'
import type { Logger } from 'pino'
import { formatDuration, parseDurationMs } from '#contract/canary/duration.ts'
import type { ActionStatus, RunStatus } from '#contract/playbook/playbook-vocabulary.ts'
import type { Db, Queryable } from '#server/db/client.ts'
import { createLeasedWorkLoop } from '#server/backend/scheduling/leased-work-loop.ts'
import { createCheckTrust } from '#server/backend/health/check-trust.ts'
import { createAuthorizer, type Authorizer } from '#server/backend/rbac/authorizer.ts'
import type {
  ActionExecutor,
  ActionOutcome,
  PlaybookActionSpec,
  PlaybookRunActionRow,
  PlaybookRunRow,
  PlaybookTemplateEnv,
} from './playbook-model.ts'
import { writeRunConfigChange } from './run-config-changes.ts'
import { endRun, FINAL_RUN_STATUS_LIST } from './run-state.ts'

/**
 * The playbook runner (resource-specs §2.7, docs/decisions/025-playbook-runner.md). Every
 * embedded process runs one. A run is worked on in steps: a process claims a due run (SKIP
 * LOCKED on the run, then a lease in lookout.playbook_run_leases taken only when the previous one
 * lapsed), evaluates the next action's `if` and `delay`, executes it, stores the outcome and sets
 * the run back to `scheduled`, which wakes every runner (NOTIFY playbook_run_updates) to claim
 * the next step. Delays, retries and child runs leave the run sleeping, retrying or waiting with
 * no lease held. A process that dies mid-action leaves a lease that lapses; the next claimant
 * fails the action it left running, naming the process, and goes on by the sequencing rules.
 */

export const DEFAULT_RUN_TIMEOUT_MS = 30 * 60_000
/** Errors of actions cut off by their own timeout start with this; `timeout()` in `if` looks for it. */
export const ACTION_TIMEOUT_ERROR = 'action timed out'
/** The channel of every run and action status change (migration 0280). */
export const RUN_PROGRESS_CHANNEL = 'playbook_run_progress'
/** The reference's channel: a run was inserted or became scheduled. */
export const RUN_UPDATES_CHANNEL = 'playbook_run_updates'

const LOCAL_AGENT_ID = '00000000-0000-0000-0000-000000000000'
const ERROR_LIMIT = 4_000

export type TemplateEnvLoader = (db: Db, run: PlaybookRunRow, action?: PlaybookRunActionRow) => Promise<PlaybookTemplateEnv>
export type PlaybookCelEvaluator = (expression: string, env: PlaybookTemplateEnv, functions?: Record<string, () => unknown>) => unknown

export type PlaybookRunnerOptions = {
  db: Db
  logger: Logger
  processId?: string
  /** Runs worked on at once by this process (default 25). */
  concurrency?: number
  /** A lease lapses this long after its last renewal (renewed every leaseMs / 3; default 30 s). */
  leaseMs?: number
  /** Due runs are looked for this often besides the notifications (default 1 s). */
  pollIntervalMs?: number
  /** How long stop() lets running actions finish before aborting them (default 5 s). */
  stopGraceMs?: number
  /** The action executors (actions/index.ts); tests give a scripted one. */
  executeAction?: ActionExecutor
  loadTemplateEnv?: TemplateEnvLoader
  evaluateCel?: PlaybookCelEvaluator
  /**
   * Whether an exec holder wrote the run's spec (ActionContext.trusted). By default: the spec-trust
   * record of the playbook (check-trust.ts, relation playbooks), and only while the run's snapshot
   * is still the playbook's spec; a run of an older or other spec is fenced.
   */
  trusted?: (run: PlaybookRunRow) => Promise<boolean>
  /** For that default: decides whether the spec's writer holds the exec right. */
  authorizer?: Authorizer
  /** Jitter of retry backoffs (Math.random). */
  random?: () => number
}

export type PlaybookRunnerStats = { processId: string; running: number; steps: number; actionsExecuted: number; listening: boolean }

export type PlaybookRunner = {
  readonly processId: string
  start(): Promise<void>
  stop(): Promise<void>
  /** Claims the runs due now, works one step of each and waits for them; returns how many it claimed. */
  runOnce(): Promise<number>
  /** Looks for due runs now (e.g. after creating one in this process). */
  wake(): void
  stats(): PlaybookRunnerStats
}

type RunDbRow = Omit<PlaybookRunRow, 'timeout'> & { timeout: number | string; agent_id: string | null }
/** `resumed`: the run was running under a lease that lapsed (its process stopped mid-step). */
type Claimed = { run: PlaybookRunRow; deadline: Date; previousOwner: string | null; resumed: boolean }
type AbortReason = 'action-timeout' | 'run-timeout' | 'cancelled' | 'stopping'
type InFlight = { promise: Promise<void>; action: AbortController | null }

const RUN_COLUMNS = `r.id, r.playbook_id, r.spec, r.status, r.created_at, r.scheduled_time, r.start_time, r.end_time, r.timeout,
  r.created_by, r.config_id, r.component_id, r.check_id, r.parameters, r.request, r.parent_id, r.error, r.agent_id`
const ACTION_COLUMNS = 'id, playbook_run_id, name, status, scheduled_time, start_time, end_time, result, error, retry_count'

// The executors and the template environment load on first use: a process whose runner never
// runs an action does not load them, and tests of the state machine give their own.
const defaultExecuteAction: ActionExecutor = async (action, context) => (await import('./actions/index.ts')).executeAction(action, context)
const defaultLoadTemplateEnv: TemplateEnvLoader = async (db, run, action) => (await import('./playbook-template.ts')).loadTemplateEnv(db, run, action)
let templateModule: { evaluatePlaybookCel: PlaybookCelEvaluator } | undefined
async function preloadTemplates(): Promise<void> {
  templateModule ??= await import('./playbook-template.ts')
}
const defaultEvaluateCel: PlaybookCelEvaluator = (expression, env, functions) => {
  if (!templateModule) throw new Error('the playbook template module is not loaded yet')
  return templateModule.evaluatePlaybookCel(expression, env, functions)
}

function runRow(row: RunDbRow): PlaybookRunRow {
  const { agent_id: _agent, ...rest } = row
  return { ...rest, timeout: Number(row.timeout) }
}

function clip(text: string): string {
  return text.length > ERROR_LIMIT ? `${text.slice(0, ERROR_LIMIT)}…` : text
}

function errorText(error: unknown): string {
  return clip(error instanceof Error ? error.message || error.name : String(error))
}

/** The run's timeout in ms: the row's (nanoseconds, set from spec.timeout at creation), else the spec's, else 30 minutes. */
export function runTimeoutMs(run: Pick<PlaybookRunRow, 'timeout' | 'spec'>): number {
  const fromRow = Number(run.timeout) / 1e6
  if (Number.isFinite(fromRow) && fromRow > 0) return fromRow
  return parseDurationMs(run.spec?.timeout) ?? DEFAULT_RUN_TIMEOUT_MS
}

/** Retry n waits duration × multiplier^n ± jitter% (resource-specs §2.5); n counts from 1. */
export function retryDelayMs(retry: NonNullable<PlaybookActionSpec['retry']>, n: number, random: () => number = Math.random): number {
  const base = parseDurationMs(retry.duration ?? '0s') ?? 0
  const multiplier = retry.exponent?.multiplier && retry.exponent.multiplier > 0 ? retry.exponent.multiplier : 1
  const jitter = Math.min(100, Math.max(0, retry.jitter ?? 0)) / 100
  const wait = base * multiplier ** n
  return Math.max(0, Math.round(wait * (1 + (random() * 2 - 1) * jitter)))
}

/** Child run ids an outcome asks to wait for: `result.children` (ids, or objects with `id` / `run_id`). */
export function childRunIds(outcome: ActionOutcome): string[] {
  const children = outcome.result?.children
  if (!Array.isArray(children)) return []
  return children
    .map((child) => (typeof child === 'string' ? child : child && typeof child === 'object' ? ((child as { id?: unknown; run_id?: unknown }).run_id ?? (child as { id?: unknown }).id) : null))
    .filter((id): id is string => typeof id === 'string' && id !== '')
}

/** What the run does next, decided from its spec and its action rows (the sequencing of §2.7). */
export type NextStep =
  | { kind: 'execute'; index: number; row: PlaybookRunActionRow }
  | { kind: 'wait'; status: 'sleeping' | 'retrying'; until: Date }
  | { kind: 'children'; index: number; row: PlaybookRunActionRow }
  /** `after`: when the failed attempt ended; the backoff counts from there. */
  | { kind: 'retry'; index: number; n: number; after: Date }
  | { kind: 'evaluate'; index: number; skipped: number[] }
  | { kind: 'end'; status: 'completed' | 'failed'; error: string | null }

export function decideNextStep(actions: PlaybookActionSpec[], rows: PlaybookRunActionRow[], now: Date): NextStep {
  const indexOf = new Map(actions.map((action, index) => [action.name, index]))
  const pending = rows.find((row) => row.status === 'scheduled' || row.status === 'sleeping')
  if (pending && indexOf.has(pending.name)) {
    if (new Date(pending.scheduled_time).getTime() > now.getTime()) {
      return { kind: 'wait', status: (pending.retry_count ?? 0) > 0 ? 'retrying' : 'sleeping', until: new Date(pending.scheduled_time) }
    }
    return { kind: 'execute', index: indexOf.get(pending.name)!, row: pending }
  }
  const waiting = rows.find((row) => row.status === 'waiting_children')
  if (waiting && indexOf.has(waiting.name)) return { kind: 'children', index: indexOf.get(waiting.name)!, row: waiting }

  const latest = latestAttempts(rows)
  let current = -1
  for (const name of latest.keys()) current = Math.max(current, indexOf.get(name) ?? -1)
  let next = current + 1
  const skipped: number[] = []
  if (current >= 0) {
    const action = actions[current]!
    const row = latest.get(action.name)!
    if (row.status === 'failed') {
      const attempt = row.retry_count ?? 0
      // Rows failed before they started (a bad `if` or `delay`) are not retried: the same
      // expression would fail the same way.
      if (row.start_time && action.retry && attempt < (action.retry.limit ?? 0)) return { kind: 'retry', index: current, n: attempt + 1, after: new Date(row.end_time ?? now) }
      next = actions.findIndex((candidate, index) => index > current && candidate.if !== undefined && candidate.if !== '')
      if (next < 0) return { kind: 'end', status: 'failed', error: failureText(action.name, row) }
      for (let index = current + 1; index < next; index++) skipped.push(index)
    }
  }
  if (next >= actions.length) {
    const failed = actions.map((action) => latest.get(action.name)).find((row) => row?.status === 'failed')
    return failed ? { kind: 'end', status: 'failed', error: failureText(failed.name, failed) } : { kind: 'end', status: 'completed', error: null }
  }
  return { kind: 'evaluate', index: next, skipped }
}

function latestAttempts(rows: PlaybookRunActionRow[]): Map<string, PlaybookRunActionRow> {
  const latest = new Map<string, PlaybookRunActionRow>()
  for (const row of rows) {
    const known = latest.get(row.name)
    if (!known || (row.retry_count ?? 0) >= (known.retry_count ?? 0)) latest.set(row.name, row)
  }
  return latest
}

function failureText(name: string, row: PlaybookRunActionRow): string {
  return clip(`action "${name}" failed${row.error ? `: ${row.error}` : ''}`)
}

/** success(), failure(), always(), skip(), timeout() over the actions before `index` (their latest attempts). */
export function conditionFunctions(actions: PlaybookActionSpec[], rows: PlaybookRunActionRow[], index: number): Record<string, () => boolean> {
  const earlier = new Set(actions.slice(0, index).map((action) => action.name))
  const previous = [...latestAttempts(rows).values()].filter((row) => earlier.has(row.name))
  const failed = previous.some((row) => row.status === 'failed')
  return {
    success: () => !failed,
    failure: () => failed,
    always: () => true,
    skip: () => false,
    timeout: () => previous.some((row) => row.status === 'failed' && (row.error ?? '').startsWith(ACTION_TIMEOUT_ERROR)),
  }
}

/** A delay as a duration string, or CEL yielding one (a string, milliseconds, or a CEL duration). */
function delayMsOf(value: unknown): number | null {
  if (typeof value === 'number' || typeof value === 'bigint') return Number(value) >= 0 ? Number(value) : null
  if (typeof value === 'string') return parseDurationMs(value)
  if (value && typeof value === 'object') return parseDurationMs(String(value))
  return null
}

function defaultTrust(db: Db, authorizer: Authorizer | undefined): (run: PlaybookRunRow) => Promise<boolean> {
  const trust = createCheckTrust({ db, authorizer: authorizer ?? createAuthorizer(db), relation: 'playbooks' })
  return async (run) => {
    const { rows } = await db.query<{ same: boolean }>(
      'SELECT p.spec = r.spec AS same FROM playbook_runs r JOIN playbooks p ON p.id = r.playbook_id WHERE r.id = $1',
      [run.id],
    )
    return rows[0]?.same === true && (await trust.trusts(run.playbook_id))
  }
}

export function createPlaybookRunner(options: PlaybookRunnerOptions): PlaybookRunner {
  const { db } = options
  const processId = options.processId ?? `${hostname()}-${process.pid}-${randomUUID().slice(0, 8)}`
  const concurrency = Math.max(1, options.concurrency ?? 25)
  const leaseMs = Math.max(300, options.leaseMs ?? 30_000)
  const pollMs = Math.max(10, options.pollIntervalMs ?? 1_000)
  const stopGraceMs = Math.max(0, options.stopGraceMs ?? 5_000)
  const execute = options.executeAction ?? defaultExecuteAction
  const loadEnv: TemplateEnvLoader = options.loadTemplateEnv ?? defaultLoadTemplateEnv
  const evaluateCel: PlaybookCelEvaluator = options.evaluateCel ?? defaultEvaluateCel
  const celReady = options.evaluateCel ? async () => undefined : preloadTemplates
  const trustedOf = options.trusted ?? defaultTrust(db, options.authorizer)
  const random = options.random ?? Math.random
  const log = options.logger.child({ component: 'playbook-runner', processId })
  let steps = 0
  let actionsExecuted = 0
  const inFlight = new Map<string, InFlight>()
  const loop = createLeasedWorkLoop({
    db,
    log,
    what: 'the playbook runner',
    pollMs,
    leaseMs,
    channels: [{ channel: RUN_UPDATES_CHANNEL }, { channel: RUN_PROGRESS_CHANNEL, onNotify: onProgress }],
    claimRound,
    renewLeases,
    drain: async () => {
      const pending = Promise.all([...inFlight.values()].map((entry) => entry.promise))
      const grace = new Promise<void>((resolve) => setTimeout(resolve, stopGraceMs).unref?.())
      await Promise.race([pending, grace])
      for (const runId of inFlight.keys()) abortAction(runId, 'stopping')
      await pending
    },
    releaseLeases: async () => {
      await db.query('UPDATE lookout.playbook_run_leases SET lease_owner = NULL, lease_until = NULL WHERE lease_owner = $1', [processId])
    },
  })
  const { outage, wake, wakeAt } = loop

  async function claim(room: number): Promise<Claimed[]> {
    return db.transaction(async (tx) => {
      // A run is due when it is scheduled (or its sleep or backoff ended), when it is running
      // but its process's lease lapsed, when it passed its deadline, or when it waits on child
      // runs that have all ended; never while another process holds a live lease on it.
      const { rows } = await tx.query<RunDbRow & { deadline: Date | null; previous_owner: string | null }>(
        `SELECT ${RUN_COLUMNS}, l.deadline, l.lease_owner AS previous_owner
         FROM playbook_runs r LEFT JOIN lookout.playbook_run_leases l ON l.run_id = r.id
         WHERE r.status <> ALL($1::text[]) AND r.status <> 'pending_approval'
           AND coalesce(r.agent_id, $3::uuid) = $3::uuid
           AND (l.lease_until IS NULL OR l.lease_until < now())
           AND r.id <> ALL($4::uuid[])
           AND ((r.status IN ('scheduled', 'sleeping', 'retrying') AND r.scheduled_time <= now())
             OR r.status = 'running'
             OR l.deadline < now()
             OR (r.status = 'waiting' AND NOT EXISTS (
               SELECT 1 FROM playbook_runs c WHERE c.parent_id = r.id AND c.status <> ALL($1::text[]))))
         ORDER BY r.scheduled_time
         LIMIT $2
         FOR UPDATE OF r SKIP LOCKED`,
        // Never a run this process is still working on, even if its lease lapsed under load.
        [FINAL_RUN_STATUS_LIST, room, LOCAL_AGENT_ID, [...inFlight.keys()]],
      )
      const claimed: Claimed[] = []
      for (const row of rows) {
        const run = runRow(row)
        const deadline = row.deadline ?? new Date(new Date(run.scheduled_time).getTime() + runTimeoutMs(run))
        // The lease is the arbiter: taken only when free or lapsed, whatever this process saw above.
        const { rows: leased } = await tx.query<{ deadline: Date }>(
          `INSERT INTO lookout.playbook_run_leases (run_id, lease_owner, lease_until, deadline)
           VALUES ($1, $2, now() + $3 * interval '1 millisecond', $4)
           ON CONFLICT (run_id) DO UPDATE SET lease_owner = EXCLUDED.lease_owner, lease_until = EXCLUDED.lease_until
           WHERE playbook_run_leases.lease_until IS NULL OR playbook_run_leases.lease_until < now()
           RETURNING deadline`,
          [run.id, processId, leaseMs, deadline.toISOString()],
        )
        if (!leased[0]) continue
        const runDeadline = new Date(leased[0].deadline)
        if (runDeadline.getTime() <= Date.now()) {
          await endRun(tx, run.id, { status: 'timed_out', error: `playbook run timed out after ${formatDuration(runTimeoutMs(run))}` }, {
            actionError: `${ACTION_TIMEOUT_ERROR}: the run reached its timeout`,
          })
          continue
        }
        await tx.query(`UPDATE playbook_runs SET status = 'running', start_time = coalesce(start_time, now()) WHERE id = $1`, [run.id])
        if (run.start_time === null) await writeRunConfigChange(tx, { ...run, status: 'running' }, 'PlaybookStarted')
        run.status = 'running'
        claimed.push({ run, deadline: runDeadline, previousOwner: row.previous_owner, resumed: row.status === 'running' })
      }
      return claimed
    })
  }

  async function loadActions(runId: string): Promise<PlaybookRunActionRow[]> {
    const { rows } = await db.query<PlaybookRunActionRow>(
      `SELECT ${ACTION_COLUMNS} FROM playbook_run_actions WHERE playbook_run_id = $1 ORDER BY scheduled_time, id`,
      [runId],
    )
    return rows
  }

  /**
   * A transaction that goes ahead only while this process still holds the run's lease (a process
   * stalled past its lease must not write over the step of the one that took the run over).
   */
  async function underLease(runId: string, fn: (tx: Queryable) => Promise<unknown>): Promise<boolean> {
    return db.transaction(async (tx) => {
      const { rows } = await tx.query('SELECT 1 FROM lookout.playbook_run_leases WHERE run_id = $1 AND lease_owner = $2 FOR UPDATE', [runId, processId])
      if (rows.length === 0) {
        const { rows: runs } = await tx.query<{ status: string }>('SELECT status FROM playbook_runs WHERE id = $1', [runId])
        // Cancelling (or timing out) a run drops its lease; anything else means another process took it over.
        if (runs[0] && !FINAL_RUN_STATUS_LIST.includes(runs[0].status)) log.warn({ run: runId }, 'lost the lease of a playbook run; leaving it to its new holder')
        return false
      }
      await fn(tx)
      return true
    })
  }

  /** Gives the lease up, leaving the run in `status` (and `scheduled_time` when given). */
  async function handOver(tx: Queryable, runId: string, status: RunStatus, at?: Date): Promise<void> {
    await tx.query(
      `WITH released AS (
         UPDATE lookout.playbook_run_leases SET lease_owner = NULL, lease_until = NULL, action_id = NULL WHERE run_id = $1 AND lease_owner = $4)
       UPDATE playbook_runs SET status = $2, scheduled_time = coalesce($3::timestamptz, scheduled_time) WHERE id = $1 AND status = 'running'`,
      [runId, status, at ? at.toISOString() : null, processId],
    )
  }

  /** A row settled without running: skipped, or failed by its `if` or `delay`. */
  async function settleUnrun(runId: string, name: string, status: 'skipped' | 'failed', error: string | null = null): Promise<void> {
    await db.query(
      `INSERT INTO playbook_run_actions (playbook_run_id, name, status, error, retry_count, scheduled_time, end_time) VALUES ($1, $2, $3, $4, 0, now(), now())`,
      [runId, name, status, error],
    )
  }

  async function evaluateIf(run: PlaybookRunRow, action: PlaybookActionSpec, functions: Record<string, () => boolean>): Promise<{ run: boolean } | { error: string }> {
    const expression = action.if?.trim()
    if (!expression) return { run: functions.success!() }
    let value: unknown
    try {
      await celReady()
      value = evaluateCel(expression, await loadEnv(db, run), functions)
    } catch (error) {
      return { error: `if: ${errorText(error)}` }
    }
    if (value === true || value === false) return { run: value }
    return { error: clip(`if: "${expression}" must yield true or false, got ${JSON.stringify(value) ?? String(value)}`) }
  }

  async function evaluateDelay(run: PlaybookRunRow, action: PlaybookActionSpec): Promise<{ ms: number } | { error: string }> {
    const text = action.delay?.trim()
    if (!text) return { ms: 0 }
    const literal = parseDurationMs(text)
    if (literal !== null) return { ms: literal }
    try {
      await celReady()
      const value = evaluateCel(text, await loadEnv(db, run))
      const ms = delayMsOf(value)
      if (ms === null) return { error: clip(`delay: "${text}" must yield a duration, got ${JSON.stringify(value) ?? String(value)}`) }
      return { ms }
    } catch (error) {
      return { error: `delay: ${errorText(error)}` }
    }
  }

  /** Works the claimed run until it must wait: returns when it is handed over or ended. */
  async function step(claimed: Claimed, entry: InFlight): Promise<void> {
    const { run, deadline } = claimed
    const actions = run.spec?.actions ?? []
    steps += 1
    if (claimed.resumed) {
      const orphaned = await db.query<{ id: string }>(
        `UPDATE playbook_run_actions SET status = 'failed', end_time = now(), error = $2
         WHERE playbook_run_id = $1 AND status = 'running' RETURNING id`,
        [run.id, `the runner process ${claimed.previousOwner ?? '(unknown)'} stopped while this action ran (its lease lapsed)`],
      )
      if (orphaned.rowCount > 0) log.warn({ run: run.id, actions: orphaned.rows.map((row) => row.id), previousOwner: claimed.previousOwner }, 'failed actions left running by a runner that stopped')
    }

    // Skips and failed conditions are settled here without a round through `scheduled`; at most
    // one row per action and attempt can be written, so this ends.
    for (let guard = 0; guard <= actions.length * 2 + 2; guard++) {
      if (loop.stopping() && !entry.action) return handOverQuietly(run.id)
      const now = new Date()
      if (now.getTime() >= deadline.getTime()) {
        await underLease(run.id, (tx) =>
          endRun(tx, run.id, { status: 'timed_out', error: `playbook run timed out after ${formatDuration(runTimeoutMs(run))}` }, {
            from: ['running'],
            actionError: `${ACTION_TIMEOUT_ERROR}: the run reached its timeout`,
          }),
        )
        return
      }
      const rows = await loadActions(run.id)
      const next = decideNextStep(actions, rows, now)
      switch (next.kind) {
        case 'end':
          await underLease(run.id, (tx) => endRun(tx, run.id, { status: next.status, error: next.error }, { from: ['running'] }))
          return
        case 'wait':
          await underLease(run.id, (tx) => handOver(tx, run.id, next.status, next.until))
          wakeAt(next.until)
          return
        case 'retry': {
          const action = actions[next.index]!
          const until = new Date(next.after.getTime() + retryDelayMs(action.retry!, next.n, random))
          await underLease(run.id, async (tx) => {
            await tx.query(
              `INSERT INTO playbook_run_actions (playbook_run_id, name, status, retry_count, scheduled_time) VALUES ($1, $2, 'scheduled', $3, $4)`,
              [run.id, action.name, next.n, until.toISOString()],
            )
            await handOver(tx, run.id, 'retrying', until)
          })
          wakeAt(until)
          return
        }
        case 'children': {
          const settled = await settleChildren(run.id, next.row)
          if (!settled) return
          continue
        }
        case 'execute':
          await executeRow(claimed, entry, actions[next.index]!, next.row)
          return
        case 'evaluate': {
          for (const index of next.skipped) await settleUnrun(run.id, actions[index]!.name, 'skipped')
          const action = actions[next.index]!
          const condition = await evaluateIf(run, action, conditionFunctions(actions, rows, next.index))
          if ('error' in condition) {
            await settleUnrun(run.id, action.name, 'failed', condition.error)
            continue
          }
          if (!condition.run) {
            await settleUnrun(run.id, action.name, 'skipped')
            continue
          }
          const delay = await evaluateDelay(run, action)
          if ('error' in delay) {
            await settleUnrun(run.id, action.name, 'failed', delay.error)
            continue
          }
          if (delay.ms > 0) {
            const until = new Date(Date.now() + delay.ms)
            await underLease(run.id, async (tx) => {
              await tx.query(
                `INSERT INTO playbook_run_actions (playbook_run_id, name, status, retry_count, scheduled_time) VALUES ($1, $2, 'sleeping', 0, $3)`,
                [run.id, action.name, until.toISOString()],
              )
              await handOver(tx, run.id, 'sleeping', until)
            })
            wakeAt(until)
            return
          }
          await executeRow(claimed, entry, action, null)
          return
        }
      }
    }
    log.error({ run: run.id }, 'a playbook run step made no progress; handing it back')
    await handOverQuietly(run.id)
  }

  async function handOverQuietly(runId: string): Promise<void> {
    await underLease(runId, (tx) => handOver(tx, runId, 'scheduled'))
  }

  /** The children of a waiting_children action: false while one is still live (the run waits). */
  async function settleChildren(runId: string, row: PlaybookRunActionRow): Promise<boolean> {
    const ids = childRunIds({ result: row.result ?? {} })
    const { rows } = await db.query<{ id: string; status: RunStatus }>('SELECT id, status FROM playbook_runs WHERE id = ANY($1::uuid[])', [ids])
    if (rows.some((child) => !FINAL_RUN_STATUS_LIST.includes(child.status))) {
      await underLease(runId, (tx) => handOver(tx, runId, 'waiting'))
      return false
    }
    const statusOf = new Map(rows.map((child) => [child.id, child.status]))
    const failed = ids.filter((id) => statusOf.get(id) !== 'completed').map((id) => `${id} (${statusOf.get(id) ?? 'not found'})`)
    await db.query(
      `UPDATE playbook_run_actions SET status = $2, end_time = now(), error = $3 WHERE id = $1 AND status = 'waiting_children'`,
      [row.id, failed.length > 0 ? 'failed' : 'completed', failed.length > 0 ? clip(`child run(s) did not complete: ${failed.join(', ')}`) : null],
    )
    return true
  }

  /** Starts the action (a new row, or the pending row of a delay or retry) and stores its outcome. */
  async function executeRow(claimed: Claimed, entry: InFlight, action: PlaybookActionSpec, pending: PlaybookRunActionRow | null): Promise<void> {
    const { run, deadline } = claimed
    // The row goes running and the lease names it in one statement: a process dying in between
    // would otherwise leave a running action its successor cannot name.
    const started = pending
      ? `UPDATE playbook_run_actions SET status = 'running', start_time = now()
         WHERE id = $3 AND status IN ('scheduled', 'sleeping') RETURNING ${ACTION_COLUMNS}`
      : `INSERT INTO playbook_run_actions (playbook_run_id, name, status, retry_count, scheduled_time, start_time)
         VALUES ($1, $3, 'running', 0, now(), now()) RETURNING ${ACTION_COLUMNS}`
    const { rows } = await db.query<PlaybookRunActionRow>(
      `WITH started AS (${started}),
       leased AS (UPDATE lookout.playbook_run_leases SET action_id = (SELECT id FROM started)
                  WHERE run_id = $1 AND lease_owner = $2 AND EXISTS (SELECT 1 FROM started))
       SELECT * FROM started`,
      [run.id, processId, pending ? pending.id : action.name],
    )
    const row = rows[0]
    if (!row) return handOverQuietly(run.id)

    const controller = new AbortController()
    entry.action = controller
    const ownTimeout = action.timeout ? parseDurationMs(action.timeout) : null
    const untilRunDeadline = deadline.getTime() - Date.now()
    const byOwnTimeout = ownTimeout !== null && ownTimeout < untilRunDeadline
    const limitMs = Math.max(0, byOwnTimeout ? ownTimeout : untilRunDeadline)
    const timer = setTimeout(() => controller.abort(byOwnTimeout ? 'action-timeout' : 'run-timeout'), limitMs)
    const reasonText = (reason: AbortReason): string => {
      switch (reason) {
        case 'action-timeout':
          return `${ACTION_TIMEOUT_ERROR} after ${formatDuration(limitMs)}`
        case 'run-timeout':
          return `${ACTION_TIMEOUT_ERROR}: the run reached its timeout of ${formatDuration(runTimeoutMs(run))}`
        case 'cancelled':
          return 'the run was cancelled while this action ran'
        case 'stopping':
          return `the runner process ${processId} stopped while this action ran`
      }
    }
    const aborted = new Promise<ActionOutcome>((resolve) => {
      const onAbort = () => resolve({ result: {}, error: reasonText(controller.signal.reason as AbortReason) })
      if (controller.signal.aborted) onAbort()
      else controller.signal.addEventListener('abort', onAbort, { once: true })
    })
    let outcome: ActionOutcome
    try {
      const work = (async (): Promise<ActionOutcome> => {
        const [env, trusted] = await Promise.all([loadEnv(db, run, row), trustedOf(run)])
        return execute(action, { db, logger: log.child({ run: run.id, action: action.name }), signal: controller.signal, run, action: row, env, trusted })
      })().catch((error: unknown): ActionOutcome => ({ result: {}, error: errorText(error) }))
      outcome = await Promise.race([work, aborted])
    } finally {
      clearTimeout(timer)
      entry.action = null
    }
    actionsExecuted += 1
    await recordOutcome(run, row, outcome)
  }

  async function recordOutcome(run: PlaybookRunRow, row: PlaybookRunActionRow, outcome: ActionOutcome): Promise<void> {
    const children = outcome.error ? [] : childRunIds(outcome)
    await underLease(run.id, async (tx) => {
      let waitForChildren = false
      if (children.length > 0) {
        const { rows } = await tx.query<{ live: number | string }>(
          'SELECT count(*) AS live FROM playbook_runs WHERE id = ANY($1::uuid[]) AND status <> ALL($2::text[])',
          [children, FINAL_RUN_STATUS_LIST],
        )
        waitForChildren = Number(rows[0]?.live ?? 0) > 0
      }
      const status: ActionStatus = outcome.error ? 'failed' : waitForChildren ? 'waiting_children' : 'completed'
      // A run cancelled or ended meanwhile already settled this row: the outcome is dropped.
      const { rowCount } = await tx.query(
        `UPDATE playbook_run_actions SET status = $2, end_time = CASE WHEN $5::boolean THEN NULL ELSE now() END, result = $3::jsonb, error = $4
         WHERE id = $1 AND status = 'running'`,
        [row.id, status, JSON.stringify(outcome.result ?? {}), outcome.error ? clip(outcome.error) : null, waitForChildren],
      )
      if (rowCount === 0) return
      for (const artifact of outcome.artifacts ?? []) {
        await tx.query(
          `INSERT INTO artifacts (playbook_run_action_id, path, filename, content_type, size, checksum, content, compression_type)
           VALUES ($1, $2, $3, $4, $5, $6, $7, 'none')`,
          [row.id, artifact.path, artifact.filename, artifact.contentType, artifact.content.length, createHash('sha256').update(artifact.content).digest('hex'), artifact.content],
        )
      }
      if (!waitForChildren) {
        await handOver(tx, run.id, 'scheduled', new Date())
        return
      }
      await handOver(tx, run.id, 'waiting')
    })
    // A child that ended between the count above and this commit found the run not yet waiting.
    if (children.length > 0) wake()
  }

  function launch(claimed: Claimed): void {
    const entry: InFlight = { promise: Promise.resolve(), action: null }
    entry.promise = step(claimed, entry)
      .catch(async (error: unknown) => {
        if (!outage.failed(error)) log.error({ err: error, run: claimed.run.id }, 'playbook run step failed')
        // The lease is left to lapse: whoever claims the run next fails what was left running.
      })
      .finally(() => {
        inFlight.delete(claimed.run.id)
        wake()
      })
    inFlight.set(claimed.run.id, entry)
  }

  async function claimRound(): Promise<{ claimed: number; full: boolean } | null> {
    const room = concurrency - inFlight.size
    if (room <= 0) return null
    const claimed = await claim(room)
    for (const item of claimed) launch(item)
    return { claimed: claimed.length, full: claimed.length === room }
  }

  async function renewLeases(): Promise<void> {
    if (inFlight.size === 0 || !outage.ready()) return
    try {
      await db.query(`UPDATE lookout.playbook_run_leases SET lease_until = now() + $2 * interval '1 millisecond' WHERE lease_owner = $1`, [processId, leaseMs])
      // Cancellation is also noticed here, should its notification have been missed.
      const { rows } = await db.query<{ id: string }>(`SELECT id FROM playbook_runs WHERE id = ANY($1::uuid[]) AND status <> 'running'`, [[...inFlight.keys()]])
      for (const { id } of rows) abortAction(id, 'cancelled')
      outage.succeeded()
    } catch (error) {
      if (!outage.failed(error)) log.warn({ err: error }, 'renewing playbook run leases failed')
    }
  }

  function abortAction(runId: string, reason: AbortReason): void {
    const controller = inFlight.get(runId)?.action
    if (controller && !controller.signal.aborted) controller.abort(reason)
  }

  function onProgress(payload: string): void {
    let message: { run_id?: string; action_id?: string; status?: string }
    try {
      message = JSON.parse(payload) as typeof message
    } catch {
      return
    }
    if (message.run_id && !message.action_id && message.status && message.status !== 'running' && inFlight.has(message.run_id)) {
      // The step itself hands runs over only after its action ended; a run leaving `running`
      // while its action is still in flight was cancelled or ended by someone else.
      if (message.status === 'cancelled' || message.status === 'timed_out' || message.status === 'failed' || message.status === 'completed') {
        abortAction(message.run_id, 'cancelled')
      }
    }
  }

  async function runOnce(): Promise<number> {
    const count = await loop.claimNow()
    await Promise.all([...inFlight.values()].map((entry) => entry.promise))
    return count
  }

  return {
    processId,
    start: loop.start,
    stop: loop.stop,
    runOnce,
    wake,
    stats: () => ({ processId, running: inFlight.size, steps, actionsExecuted, listening: loop.listening() }),
  }
}
