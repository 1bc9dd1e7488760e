import { createServer, type ServerResponse } from 'node:http'
import type { AddressInfo } from 'node:net'
import pg from 'pg'
import pino from 'pino'
import { afterAll, beforeAll, describe, expect, it } from 'vitest'
import type { Db } from '#server/db/client.ts'
import { createEventConsumer } from '#server/backend/events/event-consumer.ts'
import { createNotificationDispatcher } from '#server/backend/notifications/notification-dispatcher.ts'
import { createNotificationHandlers } from '#server/backend/notifications/notification-matching.ts'
import { createTestDb, TEST_ENGINE, type TestDb } from '#tests/support/test-db.ts'

/**
 * Two dispatchers on one PostgreSQL database: a claim whose snapshot predates another process's
 * lease locks the history row and then tries the lease, while that process, done sending, writes
 * the outcome. bench/notifications found these two deadlocking, the loser's row resent once its
 * orphaned lease lapsed. The second claim is played by hand, statement by statement, so the
 * interleaving is the one that deadlocked.
 */

const logger = pino({ level: 'silent' })

describe.skipIf(TEST_ENGINE !== 'postgres')('notification dispatcher lock order', () => {
  let testDb: TestDb
  let db: Db
  const held: ServerResponse[] = []
  let received = 0
  const server = createServer((req, res) => {
    req.resume()
    req.on('end', () => {
      received += 1
      held.push(res)
    })
  })

  beforeAll(async () => {
    testDb = await createTestDb()
    db = testDb.db
    await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve))
  })
  afterAll(async () => {
    for (const res of held) res.end()
    server.closeAllConnections()
    server.close()
    await testDb?.drop()
  })

  async function until(what: string, probe: () => Promise<boolean> | boolean, timeoutMs = 10_000): Promise<void> {
    const deadline = Date.now() + timeoutMs
    while (!(await probe())) {
      if (Date.now() > deadline) throw new Error(`timed out waiting for ${what}`)
      await new Promise((resolve) => setTimeout(resolve, 20))
    }
  }

  it("a claim holding the row while the sender writes its outcome neither deadlocks nor takes the row, which is sent once", async () => {
    const port = (server.address() as AddressInfo).port
    const canary = (await db.query<{ id: string }>(`INSERT INTO canaries (name, namespace, spec) VALUES ('lock-canary', 'default', '{}') RETURNING id`)).rows[0]!.id
    const check = (await db.query<{ id: string }>(`INSERT INTO checks (canary_id, type, name, status) VALUES ($1, 'http', 'lock-api', 'healthy') RETURNING id`, [canary])).rows[0]!.id
    await db.query(`INSERT INTO checks_unlogged (check_id, canary_id, status) VALUES ($1, $2, 'healthy')`, [check, canary])
    await db.query(`INSERT INTO notifications (name, events, custom_services) VALUES ('lock', '{check.failed}', $1::jsonb)`, [JSON.stringify([{ webhook: { url: `http://127.0.0.1:${port}/hook` } }])])
    await db.query(`UPDATE checks_unlogged SET status = 'unhealthy' WHERE check_id = $1`, [check])
    await createEventConsumer({ db, logger, backoffBaseMs: 0, handlers: createNotificationHandlers(db, logger) }).drain()
    const historyId = (await db.query<{ id: string }>('SELECT id FROM notification_send_history')).rows[0]!.id

    const sender = createNotificationDispatcher({ db, logger, leaseMs: 5_000, processId: 'sender' })
    const sending = sender.runOnce()
    await until('the send to reach the receiver', () => held.length === 1)

    const other = new pg.Client({ connectionString: testDb.url })
    await other.connect()
    try {
      await other.query('BEGIN')
      // What claim() does to a row its snapshot shows without a lease: FOR UPDATE ... SKIP LOCKED.
      expect((await other.query('SELECT id FROM notification_send_history WHERE id = $1 FOR UPDATE SKIP LOCKED', [historyId])).rows).toHaveLength(1)
      held[0]!.writeHead(200).end('ok')
      // The sender's outcome transaction now waits on that row lock.
      await until('the outcome to wait on the row lock', async () =>
        (await db.query<{ n: number }>(`SELECT count(*)::int AS n FROM pg_stat_activity WHERE datname = current_database() AND wait_event_type = 'Lock'`)).rows[0]!.n > 0,
      )
      // claim()'s next statement: the lease is still the sender's, so this claim gets nothing.
      const { rows } = await other.query(
        `INSERT INTO lookout.notification_send_leases (history_id, lease_owner, lease_until) VALUES ($1, 'other', now() + interval '5 seconds')
         ON CONFLICT (history_id) DO UPDATE SET lease_owner = EXCLUDED.lease_owner, lease_until = EXCLUDED.lease_until
         WHERE notification_send_leases.lease_until < now()
         RETURNING history_id`,
        [historyId],
      )
      expect(rows).toHaveLength(0)
      await other.query('COMMIT')
    } finally {
      await other.end()
    }
    await sending

    const { rows } = await db.query<{ status: string }>('SELECT status FROM notification_send_history WHERE id = $1', [historyId])
    expect(rows[0]!.status).toBe('sent')
    expect((await db.query('SELECT 1 FROM lookout.notification_send_leases')).rows).toHaveLength(0)
    // A second dispatcher finds nothing left to send.
    expect(await createNotificationDispatcher({ db, logger, processId: 'later' }).runOnce()).toBe(0)
    expect(received).toBe(1)
  })
})
