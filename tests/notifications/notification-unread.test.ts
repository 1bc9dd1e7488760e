import request from 'supertest'
import { beforeAll, describe, expect, it } from 'vitest'
import type { Db } from '#server/db/client.ts'
import { countUnreadNotifications, markNotificationsSeen, NEVER_SEEN_WINDOW_MS, UNREAD_CAP } from '#server/backend/notifications/notification-unread.ts'
import { useTestApp } from '#tests/support/use-test-app.ts'
import { personWith } from '#tests/rbac/rbac-fixture.ts'

/** The top bar bell's unread count: what counts, the mark a visit to /notifications leaves, the cap, and who may ask. */

const testApp = useTestApp()
let db: Db
let ruleId: string
const RESOURCE = '0190f0f0-0000-7000-8000-0000000a11ce'

beforeAll(async () => {
  db = testApp.db
  // Sends from before these tests would count for a person who never looked (the seven-day window).
  await db.query('DELETE FROM notification_send_history')
  const { rows } = await db.query<{ id: string }>(`INSERT INTO notifications (name, events) VALUES ('unread-bell', '{check.failed}') RETURNING id`)
  ruleId = rows[0]!.id
})

async function send(status: string, createdAt: Date, count = 1): Promise<void> {
  await db.query(
    `INSERT INTO notification_send_history (notification_id, source_event, resource_id, status, created_at, first_observed)
     SELECT $1, 'check.failed', $2, $3, $4::timestamptz, $4::timestamptz FROM generate_series(1, $5::int)`,
    [ruleId, RESOURCE, status, createdAt.toISOString(), count],
  )
}

const ago = (ms: number) => new Date(Date.now() - ms)

describe('countUnreadNotifications and markNotificationsSeen', () => {
  it('counts sent and failed sends since the last visit, seven days back for someone who never looked', async () => {
    const person = await personWith(db, ['viewer'])
    await send('sent', ago(60_000))
    await send('error', ago(120_000))
    // Suppressed and in-flight sends are not news; older than the window is not either.
    await send('silenced', ago(60_000))
    await send('pending', ago(60_000))
    await send('sent', ago(NEVER_SEEN_WINDOW_MS + 3600_000))
    expect(await countUnreadNotifications(db, person.id)).toBe(2)

    await markNotificationsSeen(db, person.id, ago(30_000))
    expect(await countUnreadNotifications(db, person.id)).toBe(0)
    await send('sent', ago(10_000))
    expect(await countUnreadNotifications(db, person.id)).toBe(1)

    // A late mark from another tab does not bring back what was already seen.
    await markNotificationsSeen(db, person.id, ago(3600_000))
    expect(await countUnreadNotifications(db, person.id)).toBe(1)
  })

  it('stops counting at the cap', async () => {
    const person = await personWith(db, ['viewer'])
    await send('sent', ago(30_000), UNREAD_CAP + 20)
    expect(await countUnreadNotifications(db, person.id)).toBe(UNREAD_CAP)
  })

  it('keeps no mark for an id the people table does not know', async () => {
    await markNotificationsSeen(db, '0190f0f0-0000-7000-8000-00000000dead')
    expect((await db.query(`SELECT 1 FROM lookout.notification_reads WHERE person_id = '0190f0f0-0000-7000-8000-00000000dead'`)).rows).toEqual([])
  })
})

describe('GET /api/notification/unread and POST /api/notification/unread/seen', () => {
  it('answers a reader their own count and clears it for them only; refuses someone without notification read', async () => {
    const reader = await personWith(db, ['viewer'])
    const other = await personWith(db, ['viewer'])
    await send('error', ago(10_000))
    const before = await request(testApp.app).get('/api/notification/unread').set(reader.headers)
    expect(before.status).toBe(200)
    expect(before.body.unread).toBeGreaterThan(0)

    expect((await request(testApp.app).post('/api/notification/unread/seen').set(reader.headers)).status).toBe(204)
    expect((await request(testApp.app).get('/api/notification/unread').set(reader.headers)).body).toEqual({ unread: 0 })
    expect((await request(testApp.app).get('/api/notification/unread').set(other.headers)).body).toEqual(before.body)

    const outsider = await personWith(db, [])
    expect((await request(testApp.app).get('/api/notification/unread').set(outsider.headers)).status).toBe(403)
    expect((await request(testApp.app).post('/api/notification/unread/seen').set(outsider.headers)).status).toBe(403)
  })
})
