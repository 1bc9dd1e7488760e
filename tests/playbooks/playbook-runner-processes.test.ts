import path from 'node:path'
import { spawn, type ChildProcess } from 'node:child_process'
import { afterAll, beforeAll, describe, expect, it } from 'vitest'
import type { Db } from '#server/db/client.ts'
import { createTestDb, TEST_ENGINE, type TestDb } from '#tests/support/test-db.ts'
import { ROOT } from '#tests/support/processes.ts'
import { actionsOf, insertRun, playbookRun, runOf, testRunner, waitFor, waitForFinal } from './playbook-runner-fixtures.ts'

/**
 * Runners in processes of their own: only a real second process can die holding a lease or race
 * another for the same rows, and PGlite is one process's database, so these run on PostgreSQL.
 */
let testDb: TestDb
let db: Db
const children: ChildProcess[] = []

beforeAll(async () => {
  if (TEST_ENGINE !== 'postgres') return
  testDb = await createTestDb()
  db = testDb.db
  await db.exec('CREATE TABLE test_executions (seq bigserial PRIMARY KEY, action_id uuid NOT NULL, run_id uuid NOT NULL, owner text NOT NULL)')
})

afterAll(async () => {
  for (const child of children) if (child.exitCode === null) child.kill('SIGKILL')
  await testDb?.drop()
})

function startWorker(processId: string, env: Record<string, string> = {}): { child: ChildProcess; output: () => string } {
  // tsx as a loader, not its CLI: the CLI runs the script in a child of its own, which would
  // outlive a SIGKILL and go on renewing its leases.
  const child = spawn(process.execPath, ['--import', 'tsx', path.join(ROOT, 'tests/playbooks/playbook-runner-worker.ts')], {
    cwd: ROOT,
    env: { ...process.env, DATABASE_URL: testDb.url!, RUNNER_PROCESS_ID: processId, ...env },
    stdio: ['ignore', 'pipe', 'pipe'],
  })
  let output = ''
  child.stdout!.on('data', (chunk: Buffer) => (output += chunk.toString()))
  child.stderr!.on('data', (chunk: Buffer) => (output += chunk.toString()))
  children.push(child)
  return { child, output: () => output }
}

async function stopWorker(child: ChildProcess): Promise<void> {
  if (child.exitCode !== null) return
  const exited = new Promise((resolve) => child.once('exit', resolve))
  child.kill('SIGTERM')
  await Promise.race([exited, new Promise((resolve) => setTimeout(resolve, 5_000))])
  if (child.exitCode === null) child.kill('SIGKILL')
}

async function executionsOf(runIds: string[]) {
  const { rows } = await db.query<{ action_id: string; run_id: string; owner: string }>('SELECT action_id, run_id, owner FROM test_executions WHERE run_id = ANY($1::uuid[])', [runIds])
  return rows
}

describe.skipIf(TEST_ENGINE !== 'postgres')('runner processes', () => {
  it('a run whose runner was killed mid-action is taken over after the lease lapses: the action fails naming the process, its retry completes', async () => {
    const { runId } = await playbookRun(db, 'orphaned', [{ name: 'stuck', exec: { script: 'ok' }, retry: { limit: 1, duration: '10ms' } }, { name: 'next', exec: { script: 'ok' } }])
    const doomed = startWorker('runner-doomed', { RUNNER_MODE: 'hang', RUNNER_LEASE_MS: '1500' })
    await waitFor(async () => (await executionsOf([runId])).some((row) => row.owner === 'runner-doomed'), 30_000).catch((error: unknown) => {
      throw new Error(`${(error as Error).message}; worker output:\n${doomed.output()}`)
    })
    doomed.child.kill('SIGKILL')
    await new Promise((resolve) => doomed.child.once('exit', resolve))
    const { rows } = await db.query<{ lease_owner: string; lease_until: Date }>('SELECT lease_owner, lease_until FROM lookout.playbook_run_leases WHERE run_id = $1', [runId])
    expect(rows[0]!.lease_owner).toBe('runner-doomed')
    expect((await runOf(db, runId)).status).toBe('running')

    const { runner: survivor, executions } = testRunner(db, { processId: 'runner-survivor' })
    await survivor.start()
    try {
      const run = await waitForFinal(db, runId, 15_000)
      expect(run.status).toBe('completed')
      const actions = await actionsOf(db, runId)
      expect(actions.map((row) => [row.name, row.status, row.retry_count])).toEqual([
        ['stuck', 'failed', 0],
        ['stuck', 'completed', 1],
        ['next', 'completed', 0],
      ])
      expect(actions[0]!.error).toBe('the runner process runner-doomed stopped while this action ran (its lease lapsed)')
      // Nobody took the run before the dead process's lease lapsed.
      expect(actions[1]!.start_time!.getTime()).toBeGreaterThanOrEqual(rows[0]!.lease_until.getTime())
      expect(executions.filter((e) => e.runId === runId).map((e) => e.name)).toEqual(['stuck', 'next'])
    } finally {
      await survivor.stop()
    }
  }, 60_000)

  it('two runner processes over 50 runs of two actions execute every action row exactly once', async () => {
    const { playbookId, runId: template } = await playbookRun(db, 'shared', [{ name: 'one', exec: { script: 'ok' } }, { name: 'two', exec: { script: 'ok' } }], { scheduledInMs: 3_600_000 })
    await db.query(`UPDATE playbook_runs SET status = 'cancelled' WHERE id = $1`, [template])
    const workers = [startWorker('runner-a'), startWorker('runner-b')]
    try {
      await waitFor(async () => workers.every((worker) => worker.output().includes('playbook runner started')), 30_000).catch((error: unknown) => {
        throw new Error(`${(error as Error).message}; worker output:\n${workers.map((worker) => worker.output()).join('\n')}`)
      })
      const runIds: string[] = []
      for (let i = 0; i < 50; i++) runIds.push(await insertRun(db, playbookId))
      for (const runId of runIds) expect((await waitForFinal(db, runId, 20_000)).status).toBe('completed')
      const executed = await executionsOf(runIds)
      expect(executed).toHaveLength(100)
      expect(new Set(executed.map((row) => row.action_id)).size).toBe(100)
      const { rows } = await db.query<{ count: number | string }>('SELECT count(*) AS count FROM playbook_run_actions WHERE playbook_run_id = ANY($1::uuid[])', [runIds])
      expect(Number(rows[0]!.count)).toBe(100)
      const owners = new Set(executed.map((row) => row.owner))
      expect(owners).toEqual(new Set(['runner-a', 'runner-b']))
    } finally {
      await Promise.all(workers.map((worker) => stopWorker(worker.child)))
    }
  }, 60_000)
})
