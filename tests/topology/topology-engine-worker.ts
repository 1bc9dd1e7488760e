import { createPostgresDb } from '#server/db/client.ts'
import { RUNS_TABLE, testTopologyEngine } from './topology-engine-fixtures.ts'

/**
 * A topology engine in a process of its own (topology-engine.test.ts starts it against the test's
 * PostgreSQL database and kills it): each run it claims records itself, then never ends, so the
 * process dies holding the lease.
 */
const db = await createPostgresDb(process.env.DATABASE_URL!, { max: 3 })
const processId = process.env.ENGINE_PROCESS_ID ?? 'engine-doomed'
const engine = testTopologyEngine(db, {
  processId,
  async run(runDb, topology) {
    await runDb.query(`INSERT INTO ${RUNS_TABLE} (topology_id, owner) VALUES ($1, $2)`, [topology.id, processId])
    return new Promise(() => undefined)
  },
})
await engine.start()
// The engine's timers do not hold a process open; this one lives until it is killed.
setInterval(() => undefined, 60_000)
process.stdout.write('topology engine started\n')
