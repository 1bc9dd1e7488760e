import { setTimeout as sleep } from 'node:timers/promises'
import { createPostgresDb } from '#server/db/client.ts'
import { createPlaybookRunner } from '#server/backend/playbooks/playbook-runner.ts'
import { silentLogger, testCel, testEnv } from './playbook-runner-fixtures.ts'

/**
 * A playbook runner in a process of its own, against the test's PostgreSQL database
 * (playbook-runner-processes.test.ts starts two, or one it kills). Every action it executes is
 * written to test_executions with this process's id; RUNNER_MODE=hang then never ends the action,
 * so the process dies holding the run's lease.
 */
const db = await createPostgresDb(process.env.DATABASE_URL!, { max: 4 })
const processId = process.env.RUNNER_PROCESS_ID ?? 'runner-worker'
const hang = process.env.RUNNER_MODE === 'hang'
const runner = createPlaybookRunner({
  db,
  logger: silentLogger,
  processId,
  concurrency: Number(process.env.RUNNER_CONCURRENCY ?? 10),
  leaseMs: Number(process.env.RUNNER_LEASE_MS ?? 1_500),
  pollIntervalMs: 100,
  loadTemplateEnv: testEnv,
  evaluateCel: testCel,
  async executeAction(action, context) {
    await db.query('INSERT INTO test_executions (action_id, run_id, owner) VALUES ($1, $2, $3)', [context.action.id, context.run.id, processId])
    if (hang) return new Promise(() => undefined)
    await sleep(5)
    return { result: { by: processId } }
  },
})
await runner.start()
// The runner's timers do not hold a process open; this one lives until it is stopped or killed.
setInterval(() => undefined, 60_000)
process.on('SIGTERM', () => {
  void runner.stop().then(() => db.close()).then(() => process.exit(0))
})
process.stdout.write('playbook runner started\n')
