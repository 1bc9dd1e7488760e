import { createServer, type Server } from 'node:http'
import type { AddressInfo } from 'node:net'
import pino from 'pino'
import { afterAll, beforeAll, describe, expect, it } from 'vitest'
import type { Db } from '#server/db/client.ts'
import { createEventConsumer } from '#server/backend/events/event-consumer.ts'
import { createNotificationDispatcher, NOTIFICATION_JOB_NAME } from '#server/backend/notifications/notification-dispatcher.ts'
import { createNotificationHandlers } from '#server/backend/notifications/notification-matching.ts'
import { createTestDb, type TestDb } from '#tests/support/test-db.ts'

/** The dispatcher's job history: one row per round that sent or failed to send, none for idle polls. */

const logger = pino({ level: 'silent' })

describe('notification dispatcher job history', () => {
  let testDb: TestDb
  let db: Db
  let receiver: Server
  let port: number

  beforeAll(async () => {
    testDb = await createTestDb()
    db = testDb.db
    // /ok answers 200, anything else 500.
    receiver = createServer((req, res) => {
      req.resume()
      req.on('end', () => res.writeHead(req.url === '/ok' ? 200 : 500).end())
    })
    await new Promise<void>((resolve) => receiver.listen(0, '127.0.0.1', resolve))
    port = (receiver.address() as AddressInfo).port
  })
  afterAll(async () => {
    receiver?.close()
    await testDb?.drop()
  })

  async function failCheck(name: string, path: string): Promise<void> {
    const canary = (await db.query<{ id: string }>(`INSERT INTO canaries (name, namespace, spec) VALUES ($1, 'default', '{}') RETURNING id`, [`${name}-canary`])).rows[0]!.id
    const check = (await db.query<{ id: string }>(`INSERT INTO checks (canary_id, type, name, status) VALUES ($1, 'http', $2, 'healthy') RETURNING id`, [canary, name])).rows[0]!.id
    await db.query(`INSERT INTO checks_unlogged (check_id, canary_id, status) VALUES ($1, $2, 'healthy')`, [check, canary])
    await db.query(`INSERT INTO notifications (name, events, filter, custom_services) VALUES ($1, $2, $3, $4::jsonb)`, [
      `${name}-rule`,
      ['check.failed'],
      `check.name == '${name}'`,
      JSON.stringify([{ name: 'hook', url: `generic+http://127.0.0.1:${port}${path}` }]),
    ])
    await db.query(`UPDATE checks_unlogged SET status = 'unhealthy' WHERE check_id = $1`, [check])
  }

  const pump = async () => {
    await createEventConsumer({ db, logger, backoffBaseMs: 0, handlers: createNotificationHandlers(db, logger) }).drain()
    await createNotificationDispatcher({ db, logger, maxRetries: 0, leaseMs: 5_000 }).runOnce()
  }
  const jobs = async () =>
    (
      await db.query<{ status: string; success_count: number; error_count: number; details: { errors?: string[] } }>(
        'SELECT status, success_count, error_count, details FROM job_history WHERE name = $1 ORDER BY created_at',
        [NOTIFICATION_JOB_NAME],
      )
    ).rows

  it('records a round that sent, one that failed, and nothing for a round with nothing to do', async () => {
    await failCheck('jobs-ok-api', '/ok')
    await pump()
    expect(await jobs()).toEqual([{ status: 'SUCCESS', success_count: 1, error_count: 0, details: {} }])

    await failCheck('jobs-broken-api', '/broken')
    await pump()
    const rows = await jobs()
    expect(rows).toHaveLength(2)
    expect(rows[1]).toMatchObject({ status: 'FAILED', success_count: 0, error_count: 1 })
    expect(rows[1]!.details.errors?.[0]).toMatch(/^jobs-broken-api-rule: /)

    await pump()
    expect(await jobs()).toHaveLength(2)
  })
})
