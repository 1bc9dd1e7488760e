import { mkdtemp, readFile, rm } from 'node:fs/promises'
import { tmpdir } from 'node:os'
import path from 'node:path'
import { afterAll, beforeAll, describe, expect, it } from 'vitest'
import { recordSpecTrust } from '#server/backend/health/check-trust.ts'
import { createPlaybookRunner, type PlaybookRunner } from '#server/backend/playbooks/playbook-runner.ts'
import type { PlaybookActionSpec } from '#server/backend/playbooks/playbook-model.ts'
import type { Db } from '#server/db/client.ts'
import { createTestDb, type TestDb } from '#tests/support/test-db.ts'
import { actionsOf, insertPlaybook, insertRun, silentLogger, waitForFinal } from './playbook-runner-fixtures.ts'

/**
 * The runner with the real executors and template environment (actions/index.ts,
 * playbook-template.ts): bash scripts templated with the run's parameters, artifacts, a failure
 * followed by an `if: failure()` action, and an action timeout that kills its process.
 */
let testDb: TestDb
let db: Db
let runner: PlaybookRunner
let dir: string

beforeAll(async () => {
  testDb = await createTestDb()
  db = testDb.db
  dir = await mkdtemp(path.join(tmpdir(), 'lookout-runner-exec-'))
  runner = createPlaybookRunner({ db, logger: silentLogger, processId: 'runner-exec', pollIntervalMs: 50, leaseMs: 5_000, stopGraceMs: 200 })
  await runner.start()
})

afterAll(async () => {
  await runner?.stop()
  await testDb?.drop()
  if (dir) await rm(dir, { recursive: true, force: true })
})

/** A playbook an exec holder wrote (exec actions run only then), and a run of it with these parameters. */
async function execRun(name: string, actions: PlaybookActionSpec[], parameters: Record<string, string> = {}): Promise<string> {
  const playbookId = await insertPlaybook(db, name, { actions })
  const { rows } = await db.query<{ spec: unknown }>('SELECT spec FROM playbooks WHERE id = $1', [playbookId])
  await recordSpecTrust(db, rows[0]!.spec, 'server')
  return insertRun(db, playbookId, { parameters })
}

describe('exec actions', () => {
  it('runs templated bash scripts in order, stores their output and artifacts, and follows a failure to if: failure()', async () => {
    const log = path.join(dir, 'greet.log')
    const runId = await execRun(
      'exec-sequence',
      [
        { name: 'greet', exec: { script: `echo "hello {{.params.who}}"; echo "{{.params.who}}" >> ${log}; echo saved > out.txt`, artifacts: [{ path: 'out.txt' }] } },
        { name: 'fails', exec: { script: 'echo oops >&2; exit 3' } },
        { name: 'skipped', exec: { script: `echo never >> ${log}` } },
        { name: 'report', if: 'failure()', exec: { script: 'echo reporting' } },
        { name: 'slow', if: 'always()', timeout: '300ms', exec: { script: 'sleep 5; echo late' } },
      ],
      { who: 'world' },
    )
    const run = await waitForFinal(db, runId, 20_000)
    expect(run.status).toBe('failed')
    expect(run.error).toBe('action "slow" failed: action timed out after 300ms')
    const actions = await actionsOf(db, runId)
    expect(actions.map((row) => `${row.name}:${row.status}`)).toEqual(['greet:completed', 'fails:failed', 'skipped:skipped', 'report:completed', 'slow:failed'])
    const byName = new Map(actions.map((row) => [row.name, row]))
    expect(byName.get('greet')!.result).toMatchObject({ stdout: 'hello world', exitCode: 0 })
    expect(byName.get('fails')!.result).toMatchObject({ stderr: 'oops', exitCode: 3 })
    expect(byName.get('report')!.result).toMatchObject({ stdout: 'reporting' })
    expect(byName.get('slow')!.error).toBe('action timed out after 300ms')
    const slow = byName.get('slow')!
    expect(slow.end_time!.getTime() - slow.start_time!.getTime()).toBeLessThan(3_000)
    expect(await readFile(log, 'utf8')).toBe('world\n')
    const { rows } = await db.query<{ filename: string; content: Uint8Array }>(
      'SELECT filename, content FROM artifacts WHERE playbook_run_action_id = $1 ORDER BY filename',
      [byName.get('greet')!.id],
    )
    expect(rows.find((row) => row.filename === 'out.txt') && Buffer.from(rows.find((row) => row.filename === 'out.txt')!.content).toString()).toBe('saved\n')
  }, 30_000)

  it('runs each action of 10 concurrent runs exactly once (counted by the scripts themselves)', async () => {
    const counter = path.join(dir, 'count.log')
    const playbookId = await insertPlaybook(db, 'exec-count', {
      actions: [
        { name: 'one', exec: { script: `echo "{{.run.id}} one" >> ${counter}` } },
        { name: 'two', exec: { script: `echo "{{.run.id}} two" >> ${counter}` } },
      ],
    })
    const { rows } = await db.query<{ spec: unknown }>('SELECT spec FROM playbooks WHERE id = $1', [playbookId])
    await recordSpecTrust(db, rows[0]!.spec, 'server')
    const runIds: string[] = []
    for (let i = 0; i < 10; i++) runIds.push(await insertRun(db, playbookId))
    for (const runId of runIds) expect((await waitForFinal(db, runId, 20_000)).status).toBe('completed')
    const lines = (await readFile(counter, 'utf8')).trim().split('\n').sort()
    expect(lines).toEqual(runIds.flatMap((runId) => [`${runId} one`, `${runId} two`]).sort())
  }, 30_000)
})
