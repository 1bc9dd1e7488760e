import { setTimeout as sleep } from 'node:timers/promises'
import { Environment } from '@marcbachmann/cel-js'
import pino from 'pino'
import type { Db, Queryable } from '#server/db/client.ts'
import type { ActionExecutor, ActionOutcome, PlaybookActionSpec, PlaybookRunActionRow, PlaybookSpec, PlaybookTemplateEnv } from '#server/backend/playbooks/playbook-model.ts'
import { createPlaybookRunner, type PlaybookRunner, type PlaybookRunnerOptions } from '#server/backend/playbooks/playbook-runner.ts'

/**
 * The runner's tests drive the state machine with a scripted executor (the deliberate seam of
 * createPlaybookRunner): an action's `exec.script` says what the attempt does, so each test reads
 * as its playbook. Runs are inserted in SQL as run creation would leave them.
 *
 * Scripts: `ok`; `fail`; `fail-until:N` (fails while retry_count < N); `wait-signal` (runs until
 * its signal aborts, and notes that it saw it); `wait-signal-first` (the first attempt waits so,
 * retries complete); `ignore-signal` (never ends); `sleep:MS`;
 * `children:ID,ID` (completes asking to wait for those runs); `artifact`.
 */
export const silentLogger = pino({ level: process.env.PLAYBOOK_TEST_LOG ?? 'silent' })

export type Execution = { runId: string; actionId: string; name: string; attempt: number; trusted: boolean; aborted?: string }

export function scriptedExecutor(log: Execution[] = []): { execute: ActionExecutor; executions: Execution[] } {
  const execute: ActionExecutor = async (action, context) => {
    const script = String((action.exec as { script?: unknown } | undefined)?.script ?? 'ok')
    const execution: Execution = { runId: context.run.id, actionId: context.action.id, name: action.name, attempt: context.action.retry_count ?? 0, trusted: context.trusted }
    log.push(execution)
    const [verb, argument = ''] = script.split(/:(.*)/s)
    switch (verb) {
      case 'ok':
        return { result: { stdout: `${action.name} ok`, exitCode: 0 } }
      case 'fail':
        return { result: { stderr: 'boom', exitCode: 1 }, error: `${action.name} exited with 1` }
      case 'fail-until':
        return execution.attempt < Number(argument)
          ? { result: { exitCode: 1 }, error: `attempt ${execution.attempt} failed` }
          : { result: { exitCode: 0, attempt: execution.attempt } }
      case 'wait-signal-first':
        if (execution.attempt > 0) return { result: { attempt: execution.attempt } }
      // falls through: the first attempt waits like wait-signal
      case 'wait-signal':
        return new Promise<ActionOutcome>((resolve) => {
          context.signal.addEventListener('abort', () => {
            execution.aborted = String(context.signal.reason)
            resolve({ result: {}, error: 'aborted' })
          })
        })
      case 'ignore-signal':
        return new Promise<ActionOutcome>(() => undefined)
      case 'sleep':
        await sleep(Number(argument))
        return { result: { slept: Number(argument) } }
      case 'children':
        return { result: { children: argument.split(',').filter(Boolean) } }
      case 'artifact':
        return { result: { exitCode: 0 }, artifacts: [{ path: '/tmp/out.txt', filename: 'out.txt', contentType: 'text/plain', content: Buffer.from('hello artifact') }] }
      default:
        throw new Error(`unknown test script ${script}`)
    }
  }
  return { execute, executions: log }
}

/** CEL over the run's parameters with the condition functions, standing in for playbook-template.ts. */
export function testCel(expression: string, env: PlaybookTemplateEnv, functions: Record<string, () => unknown> = {}): unknown {
  let environment = new Environment({ unlistedVariablesAreDyn: true })
  for (const [name, fn] of Object.entries(functions)) environment = environment.registerFunction(`${name}(): bool`, () => fn() as boolean)
  return environment.evaluate(expression, { params: env.params, run: env.run, playbook: env.playbook, env: env.env })
}

export async function testEnv(_db: Db, run: { id: string; parameters: Record<string, string> | null }): Promise<PlaybookTemplateEnv> {
  return { params: run.parameters ?? {}, env: {}, playbook: {}, run: { id: run.id }, actions: [], secrets: [] }
}

export function testRunner(db: Db, options: Partial<PlaybookRunnerOptions> & { executions?: Execution[] } = {}): { runner: PlaybookRunner; executions: Execution[] } {
  const scripted = scriptedExecutor(options.executions)
  const runner = createPlaybookRunner({
    db,
    logger: silentLogger,
    processId: 'runner-test',
    pollIntervalMs: 50,
    leaseMs: 1_500,
    stopGraceMs: 200,
    executeAction: scripted.execute,
    loadTemplateEnv: testEnv,
    evaluateCel: testCel,
    ...options,
  })
  return { runner, executions: scripted.executions }
}

export async function insertPlaybook(db: Queryable, name: string, spec: PlaybookSpec): Promise<string> {
  const { rows } = await db.query<{ id: string }>(
    `INSERT INTO playbooks (name, title, spec, source, category) VALUES ($1, $1, $2::jsonb, 'UI', 'test') RETURNING id`,
    [name, JSON.stringify(spec)],
  )
  return rows[0]!.id
}

export type RunFields = {
  status?: string
  timeoutMs?: number
  configId?: string
  parentId?: string
  parameters?: Record<string, string>
  scheduledInMs?: number
}

/** A run as run creation leaves it (scheduled, or pending_approval), its spec a snapshot of the playbook's. */
export async function insertRun(db: Queryable, playbookId: string, fields: RunFields = {}): Promise<string> {
  const { rows } = await db.query<{ id: string }>(
    `INSERT INTO playbook_runs (playbook_id, spec, status, timeout, config_id, parent_id, parameters, scheduled_time)
     SELECT id, spec, $2, $3, $4, $5, $6::jsonb, now() + $7 * interval '1 millisecond' FROM playbooks WHERE id = $1
     RETURNING id`,
    [
      playbookId,
      fields.status ?? 'scheduled',
      Math.round((fields.timeoutMs ?? 30 * 60_000) * 1e6),
      fields.configId ?? null,
      fields.parentId ?? null,
      fields.parameters ? JSON.stringify(fields.parameters) : null,
      fields.scheduledInMs ?? 0,
    ],
  )
  return rows[0]!.id
}

/** A playbook of these actions and one run of it. */
export async function playbookRun(db: Queryable, name: string, actions: PlaybookActionSpec[], fields: RunFields & { spec?: Partial<PlaybookSpec> } = {}): Promise<{ playbookId: string; runId: string }> {
  const playbookId = await insertPlaybook(db, name, { actions, ...fields.spec })
  return { playbookId, runId: await insertRun(db, playbookId, fields) }
}

export type RunState = { status: string; error: string | null; start_time: Date | null; end_time: Date | null; scheduled_time: Date }

export async function runOf(db: Queryable, runId: string): Promise<RunState> {
  const { rows } = await db.query<RunState>('SELECT status, error, start_time, end_time, scheduled_time FROM playbook_runs WHERE id = $1', [runId])
  return rows[0]!
}

export async function actionsOf(db: Queryable, runId: string): Promise<PlaybookRunActionRow[]> {
  const { rows } = await db.query<PlaybookRunActionRow>(
    `SELECT id, playbook_run_id, name, status, scheduled_time, start_time, end_time, result, error, retry_count
     FROM playbook_run_actions WHERE playbook_run_id = $1 ORDER BY scheduled_time, id`,
    [runId],
  )
  return rows
}

/** Name:status of each action row, in order. */
export async function actionSummary(db: Queryable, runId: string): Promise<string[]> {
  return (await actionsOf(db, runId)).map((row) => `${row.name}:${row.status}`)
}

/** Records every status a run takes (a trigger of the test's own), to assert transitions one by one. */
export async function recordRunHistory(db: Db): Promise<void> {
  await db.exec(`
    CREATE TABLE IF NOT EXISTS test_run_history (seq bigserial PRIMARY KEY, run_id uuid NOT NULL, status text NOT NULL);
    CREATE OR REPLACE FUNCTION test_run_history_note() RETURNS trigger LANGUAGE plpgsql AS $$
    BEGIN
      IF TG_OP = 'INSERT' OR OLD.status IS DISTINCT FROM NEW.status THEN
        INSERT INTO test_run_history (run_id, status) VALUES (NEW.id, NEW.status);
      END IF;
      RETURN NULL;
    END $$;
    DROP TRIGGER IF EXISTS test_run_history ON playbook_runs;
    CREATE TRIGGER test_run_history AFTER INSERT OR UPDATE OF status ON playbook_runs FOR EACH ROW EXECUTE FUNCTION test_run_history_note();`)
}

export async function runHistory(db: Queryable, runId: string): Promise<string[]> {
  const { rows } = await db.query<{ status: string }>('SELECT status FROM test_run_history WHERE run_id = $1 ORDER BY seq', [runId])
  return rows.map((row) => row.status)
}

export async function waitFor<T>(fn: () => Promise<T | undefined | null | false>, timeoutMs = 10_000, intervalMs = 20): Promise<T> {
  const deadline = Date.now() + timeoutMs
  for (;;) {
    const value = await fn()
    if (value) return value
    if (Date.now() > deadline) throw new Error(`condition not met within ${timeoutMs} ms`)
    await sleep(intervalMs)
  }
}

const FINAL = ['completed', 'failed', 'cancelled', 'timed_out']

export async function waitForFinal(db: Queryable, runId: string, timeoutMs = 10_000): Promise<RunState> {
  return waitFor(async () => {
    const run = await runOf(db, runId)
    return FINAL.includes(run.status) ? run : null
  }, timeoutMs)
}

export async function waitForStatus(db: Queryable, runId: string, status: string, timeoutMs = 10_000): Promise<RunState> {
  return waitFor(async () => {
    const run = await runOf(db, runId)
    return run.status === status ? run : null
  }, timeoutMs)
}
