import { createHash } from 'node:crypto'
import { afterAll, beforeAll, describe, expect, it } from 'vitest'
import { RUN_STATUSES } from '#contract/playbook/playbook-vocabulary.ts'
import { PlaybookError } from '#server/backend/playbooks/playbook-model.ts'
import { childRunIds, decideNextStep, retryDelayMs, type PlaybookRunner } from '#server/backend/playbooks/playbook-runner.ts'
import { cancelRun, canTransition, isRunFinal, recordApproval, RUN_TRANSITIONS } from '#server/backend/playbooks/run-state.ts'
import { recordSpecTrust } from '#server/backend/health/check-trust.ts'
import type { Db } from '#server/db/client.ts'
import { createTestDb, type TestDb } from '#tests/support/test-db.ts'
import {
  actionsOf,
  actionSummary,
  insertRun,
  playbookRun,
  recordRunHistory,
  runHistory,
  runOf,
  testRunner,
  waitFor,
  waitForFinal,
  waitForStatus,
  type Execution,
} from './playbook-runner-fixtures.ts'

let testDb: TestDb
let db: Db
let runner: PlaybookRunner
let executions: Execution[]

beforeAll(async () => {
  testDb = await createTestDb()
  db = testDb.db
  await recordRunHistory(db)
  ;({ runner, executions } = testRunner(db))
  await runner.start()
})

afterAll(async () => {
  await runner?.stop()
  await testDb?.drop()
})

const ok = (name: string, extra: Record<string, unknown> = {}) => ({ name, exec: { script: 'ok' }, ...extra })
const scripted = (name: string, script: string, extra: Record<string, unknown> = {}) => ({ name, exec: { script }, ...extra })

describe('the state machine', () => {
  it('lists every status, with no way out of a final one', () => {
    expect(Object.keys(RUN_TRANSITIONS).sort()).toEqual([...RUN_STATUSES].sort())
    for (const status of ['completed', 'failed', 'cancelled', 'timed_out'] as const) {
      expect(isRunFinal(status)).toBe(true)
      expect(RUN_TRANSITIONS[status]).toEqual([])
    }
    expect(canTransition('pending_approval', 'scheduled')).toBe(true)
    expect(canTransition('pending_approval', 'running')).toBe(false)
    expect(canTransition('sleeping', 'running')).toBe(true)
    expect(canTransition('completed', 'scheduled')).toBe(false)
  })

  it('runs each action in turn: scheduled → running → scheduled → running → completed, times and results set', async () => {
    const { runId } = await playbookRun(db, 'two-steps', [ok('first'), ok('second')])
    const run = await waitForFinal(db, runId)
    expect(run.status).toBe('completed')
    expect(run.error).toBeNull()
    expect(run.start_time).not.toBeNull()
    expect(run.end_time!.getTime()).toBeGreaterThanOrEqual(run.start_time!.getTime())
    expect(await runHistory(db, runId)).toEqual(['scheduled', 'running', 'scheduled', 'running', 'scheduled', 'running', 'completed'])
    const actions = await actionsOf(db, runId)
    expect(actions.map((row) => [row.name, row.status, row.retry_count])).toEqual([
      ['first', 'completed', 0],
      ['second', 'completed', 0],
    ])
    expect(actions[0]!.result).toEqual({ stdout: 'first ok', exitCode: 0 })
    expect(actions.every((row) => row.start_time && row.end_time)).toBe(true)
    expect(actions[1]!.start_time!.getTime()).toBeGreaterThanOrEqual(actions[0]!.end_time!.getTime())
  })

  it('does not start a run scheduled in the future before its time', async () => {
    const { runId } = await playbookRun(db, 'later', [ok('only')], { scheduledInMs: 400 })
    const due = (await runOf(db, runId)).scheduled_time
    await new Promise((resolve) => setTimeout(resolve, 200))
    expect((await runOf(db, runId)).status).toBe('scheduled')
    const run = await waitForFinal(db, runId)
    expect(run.status).toBe('completed')
    expect(run.start_time!.getTime()).toBeGreaterThanOrEqual(due.getTime())
  })

  it('ends failed when an action fails and no later action has an if:, naming the action; the rest never run', async () => {
    const { runId } = await playbookRun(db, 'fails', [ok('a'), scripted('b', 'fail'), ok('c')])
    const run = await waitForFinal(db, runId)
    expect(run.status).toBe('failed')
    expect(run.error).toBe('action "b" failed: b exited with 1')
    expect(await actionSummary(db, runId)).toEqual(['a:completed', 'b:failed'])
    expect(executions.filter((e) => e.runId === runId).map((e) => e.name)).toEqual(['a', 'b'])
  })

  it('after a failure jumps to the next action with an if:, then applies each condition', async () => {
    const { runId } = await playbookRun(db, 'sequencing', [
      scripted('a', 'fail'),
      ok('b'),
      ok('on-failure', { if: 'failure()' }),
      ok('plain'),
      ok('always', { if: 'always()' }),
      ok('on-success', { if: 'success()' }),
    ])
    const run = await waitForFinal(db, runId)
    expect(run.status).toBe('failed')
    expect(run.error).toBe('action "a" failed: a exited with 1')
    expect(await actionSummary(db, runId)).toEqual(['a:failed', 'b:skipped', 'on-failure:completed', 'plain:skipped', 'always:completed', 'on-success:skipped'])
  })

  it('evaluates if: as CEL: false and skip() skip, a non-boolean fails the action clearly', async () => {
    const { runId } = await playbookRun(
      db,
      'conditions',
      [ok('by-param', { if: 'params.go == "yes"' }), ok('not-param', { if: 'params.go == "no"' }), ok('skipped', { if: 'skip()' }), ok('odd', { if: '"maybe"' }), ok('after', { if: 'always()' })],
      { parameters: { go: 'yes' } },
    )
    const run = await waitForFinal(db, runId)
    const actions = await actionsOf(db, runId)
    expect(actions.map((row) => `${row.name}:${row.status}`)).toEqual(['by-param:completed', 'not-param:skipped', 'skipped:skipped', 'odd:failed', 'after:completed'])
    expect(actions.find((row) => row.name === 'odd')!.error).toBe('if: ""maybe"" must yield true or false, got "maybe"')
    expect(run.status).toBe('failed')
  })

  it('completes with every action skipped', async () => {
    const { runId } = await playbookRun(db, 'all-skipped', [ok('x', { if: 'false' })])
    expect((await waitForFinal(db, runId)).status).toBe('completed')
    expect(await actionSummary(db, runId)).toEqual(['x:skipped'])
  })

  it('stores artifacts with their size and sha256', async () => {
    const { runId } = await playbookRun(db, 'artifacts', [scripted('make', 'artifact')])
    await waitForFinal(db, runId)
    const { rows } = await db.query<{ filename: string; size: number; checksum: string; content: Uint8Array; playbook_run_action_id: string }>(
      'SELECT a.filename, a.size, a.checksum, a.content, a.playbook_run_action_id FROM artifacts a JOIN playbook_run_actions r ON r.id = a.playbook_run_action_id WHERE r.playbook_run_id = $1',
      [runId],
    )
    expect(rows).toHaveLength(1)
    expect(rows[0]!.filename).toBe('out.txt')
    expect(rows[0]!.size).toBe(14)
    expect(rows[0]!.checksum).toBe(createHash('sha256').update('hello artifact').digest('hex'))
    expect(Buffer.from(rows[0]!.content).toString()).toBe('hello artifact')
    const { rows: rpc } = await db.query<{ artifacts: unknown[] | null }>('SELECT artifacts FROM get_playbook_run_actions($1)', [runId])
    expect(rpc[0]!.artifacts).toHaveLength(1)
  })

  it('writes PlaybookStarted and PlaybookCompleted / PlaybookFailed on the config item of the run', async () => {
    const { rows } = await db.query<{ id: string }>("INSERT INTO config_items (name, type, config_class) VALUES ('svc', 'Linux::Service', 'Service') RETURNING id")
    const configId = rows[0]!.id
    const good = await playbookRun(db, 'config-good', [ok('a')], { configId })
    const bad = await playbookRun(db, 'config-bad', [scripted('a', 'fail')], { configId })
    await waitForFinal(db, good.runId)
    await waitForFinal(db, bad.runId)
    const { rows: changes } = await db.query<{ change_type: string; summary: string; details: { run_id: string } }>(
      'SELECT change_type, summary, details FROM config_changes WHERE config_id = $1 ORDER BY created_at, change_type',
      [configId],
    )
    const byRun = (runId: string) => changes.filter((change) => change.details.run_id === runId).map((change) => change.change_type).sort()
    expect(byRun(good.runId)).toEqual(['PlaybookCompleted', 'PlaybookStarted'])
    expect(byRun(bad.runId)).toEqual(['PlaybookFailed', 'PlaybookStarted'])
    expect(changes.find((change) => change.change_type === 'PlaybookFailed')!.summary).toBe('Playbook config-bad failed: action "a" failed: a exited with 1')
  })
})

describe('trust', () => {
  it("gives executors trusted only for a run of the playbook's current spec that an exec holder wrote", async () => {
    // Scheduled a moment ahead, so the trust record and the edit below come first.
    const trusted = await playbookRun(db, 'trusted-spec', [ok('t')], { scheduledInMs: 300 })
    const { rows } = await db.query<{ spec: unknown }>('SELECT spec FROM playbooks WHERE id = $1', [trusted.playbookId])
    await recordSpecTrust(db, rows[0]!.spec, 'server')
    const untrusted = await playbookRun(db, 'untrusted-spec', [ok('u')])
    const stale = await insertRun(db, trusted.playbookId, { scheduledInMs: 300 })
    await db.query(`UPDATE playbook_runs SET spec = jsonb_set(spec, '{title}', '"older"') WHERE id = $1`, [stale])
    for (const runId of [trusted.runId, untrusted.runId, stale]) await waitForFinal(db, runId)
    const trustOf = (runId: string) => executions.find((e) => e.runId === runId)!.trusted
    expect([trustOf(trusted.runId), trustOf(untrusted.runId), trustOf(stale)]).toEqual([true, false, false])
  })
})

describe('delay', () => {
  it('sleeps the run first (sleeping, scheduled_time = now + delay), then runs the action', async () => {
    const { runId } = await playbookRun(db, 'delayed', [ok('wait', { delay: '400ms' })])
    const sleeping = await waitForStatus(db, runId, 'sleeping')
    const [row] = await actionsOf(db, runId)
    expect(row!.status).toBe('sleeping')
    expect(row!.scheduled_time.getTime()).toBe(sleeping.scheduled_time.getTime())
    const run = await waitForFinal(db, runId)
    expect(run.status).toBe('completed')
    const [done] = await actionsOf(db, runId)
    expect(done!.start_time!.getTime()).toBeGreaterThanOrEqual(sleeping.scheduled_time.getTime())
    expect(await runHistory(db, runId)).toEqual(['scheduled', 'running', 'sleeping', 'running', 'scheduled', 'running', 'completed'])
  })

  it('takes the delay from CEL (params.wait), and fails the action clearly when it is not a duration', async () => {
    const { runId } = await playbookRun(db, 'cel-delay', [ok('wait', { delay: 'params.wait' }), ok('bad', { delay: 'params.nothing == "x"', if: 'always()' })], {
      parameters: { wait: '300ms' },
    })
    await waitForStatus(db, runId, 'sleeping')
    const [sleeping] = await actionsOf(db, runId)
    expect(sleeping!.scheduled_time.getTime() - Date.now()).toBeGreaterThan(100)
    const run = await waitForFinal(db, runId)
    const actions = await actionsOf(db, runId)
    expect(actions.map((row) => `${row.name}:${row.status}`)).toEqual(['wait:completed', 'bad:failed'])
    expect(actions[1]!.error).toMatch(/^delay: /)
    expect(run.status).toBe('failed')
  })
})

describe('retry', () => {
  it('re-runs a failed action as new rows: retrying, retry_count n, waiting duration × multiplier^n ± jitter', async () => {
    const { runId } = await playbookRun(db, 'retried', [scripted('flaky', 'fail-until:2', { retry: { limit: 3, duration: '100ms', jitter: 20, exponent: { multiplier: 2 } } })])
    const run = await waitForFinal(db, runId)
    expect(run.status).toBe('completed')
    const rows = await actionsOf(db, runId)
    expect(rows.map((row) => [row.status, row.retry_count])).toEqual([
      ['failed', 0],
      ['failed', 1],
      ['completed', 2],
    ])
    for (const n of [1, 2]) {
      const waited = rows[n]!.scheduled_time.getTime() - rows[n - 1]!.end_time!.getTime()
      const expected = 100 * 2 ** n
      expect(waited).toBeGreaterThanOrEqual(Math.floor(expected * 0.8))
      expect(waited).toBeLessThanOrEqual(Math.ceil(expected * 1.2))
      expect(rows[n]!.start_time!.getTime()).toBeGreaterThanOrEqual(rows[n]!.scheduled_time.getTime())
    }
    expect(await runHistory(db, runId)).toContain('retrying')
  })

  it('gives up after limit retries; the run fails', async () => {
    const { runId } = await playbookRun(db, 'exhausted', [scripted('never', 'fail', { retry: { limit: 1, duration: '10ms' } })])
    const run = await waitForFinal(db, runId)
    expect(run.status).toBe('failed')
    expect((await actionsOf(db, runId)).map((row) => [row.status, row.retry_count])).toEqual([
      ['failed', 0],
      ['failed', 1],
    ])
  })

  it('computes backoffs within the jitter', () => {
    expect(retryDelayMs({ limit: 3, duration: '10s', exponent: { multiplier: 2 } }, 1, () => 0.5)).toBe(20_000)
    expect(retryDelayMs({ limit: 3, duration: '10s' }, 3, () => 0.5)).toBe(10_000)
    expect(retryDelayMs({ limit: 3, duration: '10s', jitter: 10 }, 1, () => 0)).toBe(9_000)
    expect(retryDelayMs({ limit: 3, duration: '10s', jitter: 10 }, 1, () => 1)).toBe(11_000)
  })
})

describe('timeouts', () => {
  it("aborts an action's signal at its own timeout, fails it, and timeout() sees it", async () => {
    const { runId } = await playbookRun(db, 'slow-action', [scripted('slow', 'wait-signal', { timeout: '200ms' }), ok('after-timeout', { if: 'timeout()' })])
    const run = await waitForFinal(db, runId)
    const rows = await actionsOf(db, runId)
    expect(rows.map((row) => `${row.name}:${row.status}`)).toEqual(['slow:failed', 'after-timeout:completed'])
    expect(rows[0]!.error).toBe('action timed out after 200ms')
    expect(executions.find((e) => e.runId === runId && e.name === 'slow')!.aborted).toBe('action-timeout')
    expect(rows[0]!.end_time!.getTime() - rows[0]!.start_time!.getTime()).toBeLessThan(1_500)
    expect(run.status).toBe('failed')
  })

  it('times a run out (timed_out) from its scheduled_time, capping the running action at the run timeout', async () => {
    const { runId } = await playbookRun(db, 'slow-run', [scripted('forever', 'ignore-signal', { timeout: '1h' }), ok('never')], { timeoutMs: 500 })
    const scheduled = (await runOf(db, runId)).scheduled_time
    const run = await waitForFinal(db, runId)
    expect(run.status).toBe('timed_out')
    expect(run.error).toBe('playbook run timed out after 500ms')
    expect(run.end_time!.getTime() - scheduled.getTime()).toBeGreaterThanOrEqual(500)
    expect(run.end_time!.getTime() - scheduled.getTime()).toBeLessThan(2_500)
    const rows = await actionsOf(db, runId)
    expect(rows.map((row) => `${row.name}:${row.status}`)).toEqual(['forever:failed'])
    expect(rows[0]!.error).toMatch(/^action timed out: the run reached its timeout/)
  })

  it('times out a run sleeping past its deadline', async () => {
    const { runId } = await playbookRun(db, 'sleeps-too-long', [ok('late', { delay: '1h' })], { timeoutMs: 300 })
    await waitForStatus(db, runId, 'sleeping')
    const run = await waitForFinal(db, runId)
    expect(run.status).toBe('timed_out')
    expect(await actionSummary(db, runId)).toEqual(['late:skipped'])
  })
})

describe('child runs', () => {
  it('waits (action waiting_children, run waiting) until the child runs end; completes when they completed', async () => {
    const child = await playbookRun(db, 'child', [scripted('child-step', 'sleep:300')], { scheduledInMs: 300 })
    const { runId } = await playbookRun(db, 'parent', [scripted('spawn', `children:${child.runId}`), ok('after')])
    await db.query('UPDATE playbook_runs SET parent_id = $2 WHERE id = $1', [child.runId, runId])
    await waitForStatus(db, runId, 'waiting')
    expect(await actionSummary(db, runId)).toEqual(['spawn:waiting_children'])
    const run = await waitForFinal(db, runId)
    expect(run.status).toBe('completed')
    expect((await runOf(db, child.runId)).status).toBe('completed')
    expect(await actionSummary(db, runId)).toEqual(['spawn:completed', 'after:completed'])
    const { rows } = await db.query<{ name: string }>('SELECT name FROM get_playbook_run_actions($1)', [runId])
    expect(rows.map((row) => row.name).sort()).toEqual(['after', 'child-step', 'spawn'])
  })

  it('fails the action when a child run failed', async () => {
    const child = await playbookRun(db, 'bad-child', [scripted('boom', 'fail')], { scheduledInMs: 200 })
    const { runId } = await playbookRun(db, 'bad-parent', [scripted('spawn', `children:${child.runId}`)])
    await db.query('UPDATE playbook_runs SET parent_id = $2 WHERE id = $1', [child.runId, runId])
    const run = await waitForFinal(db, runId)
    expect(run.status).toBe('failed')
    const [row] = await actionsOf(db, runId)
    expect(row!.error).toBe(`child run(s) did not complete: ${child.runId} (failed)`)
  })

  it('reads child ids as strings or objects', () => {
    expect(childRunIds({ result: { children: ['a', { id: 'b' }, { run_id: 'c' }, 3] } })).toEqual(['a', 'b', 'c'])
    expect(childRunIds({ result: {} })).toEqual([])
  })
})

describe('approvals', () => {
  async function approvalFixture(type: 'any' | 'all' | '') {
    const suffix = Math.random().toString(36).slice(2, 8)
    const person = async (name: string) =>
      (await db.query<{ id: string }>('INSERT INTO people (name, email) VALUES ($1, $2) RETURNING id', [name, `${name}-${suffix}@example.com`])).rows[0]!.id
    const alice = await person('alice')
    const bob = await person('bob')
    const carol = await person('carol')
    const { rows } = await db.query<{ id: string }>('INSERT INTO teams (name, created_by) VALUES ($1, $2) RETURNING id', [`sre-${suffix}`, alice])
    const team = rows[0]!.id
    await db.query('INSERT INTO team_members (team_id, person_id) VALUES ($1, $2)', [team, carol])
    const approval = { type, approvers: { people: [`alice-${suffix}@example.com`, `BOB-${suffix}@example.com`], teams: [`sre-${suffix}`] } }
    const { runId } = await playbookRun(db, `approved-${type || 'empty'}-${suffix}`, [ok('go')], { status: 'pending_approval', spec: { approval } })
    return { runId, alice, bob, carol, team }
  }

  it('any: one listed person is enough; the run is then scheduled and runs', async () => {
    const { runId, bob } = await approvalFixture('any')
    await new Promise((resolve) => setTimeout(resolve, 150))
    expect((await runOf(db, runId)).status).toBe('pending_approval')
    expect(await recordApproval(db, runId, { personId: bob })).toEqual({ status: 'scheduled', approved: true })
    expect((await waitForFinal(db, runId)).status).toBe('completed')
    expect(await runHistory(db, runId)).toEqual(['pending_approval', 'scheduled', 'running', 'scheduled', 'running', 'completed'])
  })

  it('any: a listed team, by the team or by one of its members', async () => {
    const byTeam = await approvalFixture('any')
    expect(await recordApproval(db, byTeam.runId, { teamId: byTeam.team })).toEqual({ status: 'scheduled', approved: true })
    const byMember = await approvalFixture('any')
    expect(await recordApproval(db, byMember.runId, { personId: byMember.carol })).toEqual({ status: 'scheduled', approved: true })
  })

  it('all (and an empty type): every listed person and team must be covered', async () => {
    for (const type of ['all', ''] as const) {
      const { runId, alice, bob, team } = await approvalFixture(type)
      expect(await recordApproval(db, runId, { personId: alice })).toEqual({ status: 'pending_approval', approved: false })
      expect(await recordApproval(db, runId, { personId: alice })).toEqual({ status: 'pending_approval', approved: false })
      expect(await recordApproval(db, runId, { teamId: team })).toEqual({ status: 'pending_approval', approved: false })
      expect(await recordApproval(db, runId, { personId: bob })).toEqual({ status: 'scheduled', approved: true })
      const { rows } = await db.query<{ count: number | string }>('SELECT count(*) AS count FROM playbook_approvals WHERE run_id = $1', [runId])
      expect(Number(rows[0]!.count)).toBe(3)
    }
  })

  it('all: a team member covers the team', async () => {
    const { runId, alice, bob, carol } = await approvalFixture('all')
    await recordApproval(db, runId, { personId: alice })
    await recordApproval(db, runId, { personId: carol })
    expect(await recordApproval(db, runId, { personId: bob })).toEqual({ status: 'scheduled', approved: true })
  })

  it('refuses runs that need no approval, are not waiting for one, or do not exist', async () => {
    const { runId } = await playbookRun(db, 'no-approval', [ok('x')], { scheduledInMs: 60_000 })
    const { alice, runId: approvable, bob } = await approvalFixture('any')
    await expect(recordApproval(db, runId, { personId: alice })).rejects.toMatchObject({ status: 400, message: 'this playbook does not require approval' })
    await recordApproval(db, approvable, { personId: bob })
    await expect(recordApproval(db, approvable, { personId: alice })).rejects.toBeInstanceOf(PlaybookError)
    await expect(recordApproval(db, '00000000-0000-0000-0000-00000000abcd', { personId: alice })).rejects.toMatchObject({ status: 404 })
    await cancelRun(db, runId)
  })
})

describe('cancel', () => {
  it('cancels a run pending approval or scheduled; nothing runs', async () => {
    const pending = await playbookRun(db, 'cancel-pending', [ok('x')], { status: 'pending_approval', spec: { approval: { approvers: { people: ['nobody@example.com'] } } } })
    const scheduled = await playbookRun(db, 'cancel-scheduled', [ok('x')], { scheduledInMs: 60_000 })
    for (const runId of [pending.runId, scheduled.runId]) {
      expect(await cancelRun(db, runId)).toEqual({ status: 'cancelled', cancelledChildren: [] })
      const run = await runOf(db, runId)
      expect(run.status).toBe('cancelled')
      expect(run.end_time).not.toBeNull()
      expect(await actionsOf(db, runId)).toEqual([])
    }
  })

  it('cancels a running run: its action is aborted through its signal, the rest never run', async () => {
    const { runId } = await playbookRun(db, 'cancel-running', [scripted('long', 'wait-signal'), ok('next')])
    await waitFor(async () => (await actionsOf(db, runId)).some((row) => row.status === 'running'))
    await cancelRun(db, runId)
    await waitFor(async () => executions.find((e) => e.runId === runId)?.aborted)
    expect(executions.find((e) => e.runId === runId)!.aborted).toBe('cancelled')
    await new Promise((resolve) => setTimeout(resolve, 200))
    expect((await runOf(db, runId)).status).toBe('cancelled')
    const rows = await actionsOf(db, runId)
    expect(rows.map((row) => `${row.name}:${row.status}`)).toEqual(['long:failed'])
    expect(rows[0]!.error).toBe('the run was cancelled while this action ran')
  })

  it('cancels a sleeping run and a retrying run: their pending action rows are skipped', async () => {
    const sleeping = await playbookRun(db, 'cancel-sleeping', [ok('later', { delay: '1h' })])
    const retrying = await playbookRun(db, 'cancel-retrying', [scripted('flaky', 'fail', { retry: { limit: 2, duration: '1h' } })])
    await waitForStatus(db, sleeping.runId, 'sleeping')
    await waitForStatus(db, retrying.runId, 'retrying')
    await cancelRun(db, sleeping.runId)
    await cancelRun(db, retrying.runId)
    expect(await actionSummary(db, sleeping.runId)).toEqual(['later:skipped'])
    expect(await actionSummary(db, retrying.runId)).toEqual(['flaky:failed', 'flaky:skipped'])
    expect((await runOf(db, retrying.runId)).status).toBe('cancelled')
  })

  it('cancels a run waiting on children, and its children with it', async () => {
    const child = await playbookRun(db, 'cancel-child', [ok('c')], { scheduledInMs: 60_000 })
    const parent = await playbookRun(db, 'cancel-parent', [scripted('spawn', `children:${child.runId}`)])
    await db.query('UPDATE playbook_runs SET parent_id = $2 WHERE id = $1', [child.runId, parent.runId])
    await waitForStatus(db, parent.runId, 'waiting')
    expect(await cancelRun(db, parent.runId)).toEqual({ status: 'cancelled', cancelledChildren: [child.runId] })
    expect((await runOf(db, child.runId)).status).toBe('cancelled')
    expect(await actionSummary(db, parent.runId)).toEqual(['spawn:skipped'])
  })

  it('refuses a final run (400) and an unknown one (404)', async () => {
    const { runId } = await playbookRun(db, 'cancel-done', [ok('x')])
    await waitForFinal(db, runId)
    await expect(cancelRun(db, runId)).rejects.toMatchObject({ status: 400, message: `playbook run (id=${runId}) is already completed` })
    await expect(cancelRun(db, '00000000-0000-0000-0000-00000000abcd')).rejects.toMatchObject({ status: 404 })
  })
})

describe('a runner that died mid-action', () => {
  it('is taken over once its lease lapses: the action it left running fails naming it, then retry and sequencing apply', async () => {
    const { runId } = await playbookRun(db, 'orphan', [ok('stuck', { retry: { limit: 1, duration: '10ms' } }), ok('next')], { scheduledInMs: 60_000 })
    // What a process leaves when it dies mid-action: the run running, the action running, a lease about to lapse.
    const { rows } = await db.query<{ id: string }>(
      `INSERT INTO playbook_run_actions (playbook_run_id, name, status, retry_count, start_time) VALUES ($1, 'stuck', 'running', 0, now()) RETURNING id`,
      [runId],
    )
    await db.query(
      `INSERT INTO lookout.playbook_run_leases (run_id, lease_owner, lease_until, deadline, action_id) VALUES ($1, 'ghost-process', now() + interval '300 milliseconds', now() + interval '1 hour', $2)`,
      [runId, rows[0]!.id],
    )
    await db.query(`UPDATE playbook_runs SET status = 'running', start_time = now(), scheduled_time = now() WHERE id = $1`, [runId])
    await new Promise((resolve) => setTimeout(resolve, 150))
    expect((await actionsOf(db, runId))[0]!.status).toBe('running')
    const run = await waitForFinal(db, runId)
    expect(run.status).toBe('completed')
    const actions = await actionsOf(db, runId)
    expect(actions.map((row) => [row.name, row.status, row.retry_count])).toEqual([
      ['stuck', 'failed', 0],
      ['stuck', 'completed', 1],
      ['next', 'completed', 0],
    ])
    expect(actions[0]!.error).toBe('the runner process ghost-process stopped while this action ran (its lease lapsed)')
  })
})

describe('stopping a runner', () => {
  it('lets a running action finish for the grace period, then aborts it naming the process; the next runner retries it', async () => {
    await runner.stop()
    const { runner: leaving } = testRunner(db, { processId: 'runner-leaving', executions, stopGraceMs: 100 })
    let restarted = false
    try {
      await leaving.start()
      const { runId } = await playbookRun(db, 'stopped-mid-action', [scripted('long', 'wait-signal-first', { retry: { limit: 1, duration: '10ms' } })])
      await waitFor(async () => (await actionsOf(db, runId)).some((row) => row.status === 'running'))
      await leaving.stop()
      expect(executions.find((e) => e.runId === runId)!.aborted).toBe('stopping')
      const [row] = await actionsOf(db, runId)
      expect(row!.status).toBe('failed')
      expect(row!.error).toBe('the runner process runner-leaving stopped while this action ran')
      const { rows } = await db.query<{ lease_owner: string | null }>('SELECT lease_owner FROM lookout.playbook_run_leases WHERE run_id = $1', [runId])
      expect(rows[0]?.lease_owner ?? null).toBeNull()
      ;({ runner, executions } = testRunner(db, { executions }))
      await runner.start()
      restarted = true
      expect((await waitForFinal(db, runId)).status).toBe('completed')
      expect((await actionsOf(db, runId)).map((action) => [action.status, action.retry_count])).toEqual([
        ['failed', 0],
        ['completed', 1],
      ])
    } finally {
      await leaving.stop()
      if (!restarted) await runner.start()
    }
  })
})

describe('latency', () => {
  it('starts the first action of a new run well under 200 ms after it is inserted', async () => {
    const samples: number[] = []
    for (let i = 0; i < 5; i++) {
      const started = Date.now()
      const { runId } = await playbookRun(db, `fast-${i}`, [scripted('first', 'sleep:50')])
      await waitFor(async () => (await actionsOf(db, runId)).length > 0, 5_000, 5)
      samples.push(Date.now() - started)
      await waitForFinal(db, runId)
    }
    samples.sort((a, b) => a - b)
    expect(samples[2]).toBeLessThan(200)
  })
})

describe('decideNextStep', () => {
  it('retries before jumping, and jumps only to actions with an if:', () => {
    const row = (name: string, status: string, retry = 0) =>
      ({ id: `${name}${retry}`, playbook_run_id: 'r', name, status, retry_count: retry, scheduled_time: new Date(0), start_time: new Date(0), end_time: new Date(0), result: null, error: 'x' }) as never
    const actions = [{ name: 'a', retry: { limit: 1 } }, { name: 'b' }, { name: 'c', if: 'always()' }]
    expect(decideNextStep(actions, [row('a', 'failed')], new Date())).toEqual({ kind: 'retry', index: 0, n: 1, after: new Date(0) })
    expect(decideNextStep(actions, [row('a', 'failed'), row('a', 'failed', 1)], new Date())).toEqual({ kind: 'evaluate', index: 2, skipped: [1] })
    expect(decideNextStep(actions.slice(0, 2), [row('a', 'failed'), row('a', 'failed', 1)], new Date())).toMatchObject({ kind: 'end', status: 'failed' })
    expect(decideNextStep(actions, [], new Date())).toEqual({ kind: 'evaluate', index: 0, skipped: [] })
  })
})

describe('runOnce', () => {
  it('works one step of each due run without a started runner', async () => {
    await runner.stop()
    try {
      const { runner: manual } = testRunner(db, { processId: 'runner-manual' })
      const { runId } = await playbookRun(db, 'manual', [ok('a'), ok('b')])
      expect(await manual.runOnce()).toBeGreaterThanOrEqual(1)
      expect(await actionSummary(db, runId)).toEqual(['a:completed'])
      expect((await runOf(db, runId)).status).toBe('scheduled')
      await manual.runOnce()
      await manual.runOnce()
      expect((await runOf(db, runId)).status).toBe('completed')
      expect(await actionSummary(db, runId)).toEqual(['a:completed', 'b:completed'])
    } finally {
      ;({ runner, executions } = testRunner(db, { executions }))
      await runner.start()
    }
  })
})

describe('one run never runs twice in one database', () => {
  it('two runners over the same runs execute each action once', async () => {
    const second = testRunner(db, { processId: 'runner-second', executions })
    await second.runner.start()
    try {
      const runIds: string[] = []
      const playbook = await playbookRun(db, 'shared', [ok('one'), ok('two')], { scheduledInMs: 60_000 })
      await cancelRun(db, playbook.runId)
      for (let i = 0; i < 20; i++) runIds.push(await insertRun(db, playbook.playbookId))
      for (const runId of runIds) expect((await waitForFinal(db, runId)).status).toBe('completed')
      const mine = executions.filter((e) => runIds.includes(e.runId))
      expect(mine).toHaveLength(40)
      expect(new Set(mine.map((e) => e.actionId)).size).toBe(40)
    } finally {
      await second.runner.stop()
    }
  })
})
