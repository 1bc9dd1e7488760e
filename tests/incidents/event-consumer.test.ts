import { afterAll, beforeAll, describe, expect, it } from 'vitest'
import { pino } from 'pino'
import { createPostgresDb, type Db } from '#server/db/client.ts'
import { createEventConsumer, type EventHandler } from '#server/backend/events/event-consumer.ts'
import { createTestDb, TEST_ENGINE, type TestDb } from '#tests/support/test-db.ts'

const logger = pino({ level: 'silent' })
let testDb: TestDb

beforeAll(async () => {
  testDb = await createTestDb()
  await testDb.db.exec('CREATE TABLE consumed (event_id uuid, process text, at timestamptz DEFAULT clock_timestamp())')
})

afterAll(async () => {
  await testDb?.drop()
})

let sequence = 0
function eventId(): string {
  sequence += 1
  return `0190f0f0-0000-7000-8000-${sequence.toString(16).padStart(12, '0')}`
}

async function enqueue(db: Db, name: string, id = eventId(), properties: Record<string, unknown> | null = null, delayNs: number | null = null) {
  await db.query('INSERT INTO event_queue (name, event_id, properties, delay) VALUES ($1, $2, $3, $4)', [name, id, properties && JSON.stringify(properties), delayNs])
  return id
}

const queueRow = async (name: string, id: string) =>
  (await testDb.db.query<{ attempts: number; error: string | null; last_attempt: Date | null }>('SELECT attempts, error, last_attempt FROM event_queue WHERE name = $1 AND event_id = $2', [name, id])).rows[0]

const record: EventHandler = async (event, { tx, processId }) => {
  await tx.query('INSERT INTO consumed (event_id, process) VALUES ($1, $2)', [event.eventId, processId])
}

describe('event consumer', () => {
  it('handles an event once, deletes it, and leaves events it has no handler for', async () => {
    const id = await enqueue(testDb.db, 'test.once', undefined, { answer: 42 })
    const other = await enqueue(testDb.db, 'test.unhandled')
    let seen: unknown = null
    const consumer = createEventConsumer({
      db: testDb.db,
      logger,
      handlers: { 'test.once': async (event, context) => { seen = event.properties; await record(event, context) } },
    })
    expect(await consumer.drain()).toBe(1)
    expect(await consumer.drain()).toBe(0)
    expect(seen).toEqual({ answer: 42 })
    expect(await queueRow('test.once', id)).toBeUndefined()
    expect(await queueRow('test.unhandled', other)).toBeDefined()
  })

  it('records failures on the row, rolls the handler back, and retries after the backoff', async () => {
    const id = await enqueue(testDb.db, 'test.flaky')
    let calls = 0
    const consumer = createEventConsumer({
      db: testDb.db,
      logger,
      backoffBaseMs: 400,
      handlers: {
        'test.flaky': async (event, context) => {
          calls += 1
          await record(event, context)
          if (calls < 3) throw new Error(`boom ${calls}`)
        },
      },
    })
    expect(await consumer.drain()).toBe(1)
    expect(await queueRow('test.flaky', id)).toMatchObject({ attempts: 1, error: 'boom 1' })
    expect((await queueRow('test.flaky', id))!.last_attempt).not.toBeNull()
    // Within the backoff the event is not due.
    expect(await consumer.drain()).toBe(0)
    await new Promise((resolve) => setTimeout(resolve, 450))
    expect(await consumer.drain()).toBe(1)
    expect(await queueRow('test.flaky', id)).toMatchObject({ attempts: 2, error: 'boom 2' })
    // The second backoff doubles.
    await new Promise((resolve) => setTimeout(resolve, 450))
    expect(await consumer.drain()).toBe(0)
    await new Promise((resolve) => setTimeout(resolve, 400))
    expect(await consumer.drain()).toBe(1)
    expect(await queueRow('test.flaky', id)).toBeUndefined()
    // Only the successful attempt's write survived.
    const { rows } = await testDb.db.query('SELECT 1 FROM consumed WHERE event_id = $1', [id])
    expect(rows).toHaveLength(1)
    expect(consumer.stats()).toMatchObject({ processed: 1, failed: 2 })
  })

  it('keeps the writes of a handler that asks for a retry', async () => {
    const id = await enqueue(testDb.db, 'test.partial')
    const consumer = createEventConsumer({
      db: testDb.db,
      logger,
      handlers: { 'test.partial': async (event, context) => { await record(event, context); return { retry: true, error: 'one rule failed' } } },
    })
    await consumer.drain()
    expect(await queueRow('test.partial', id)).toMatchObject({ attempts: 1, error: 'one rule failed' })
    expect((await testDb.db.query('SELECT 1 FROM consumed WHERE event_id = $1', [id])).rows).toHaveLength(1)
  })

  it('gives up after maxAttempts and honours delay', async () => {
    const failing = await enqueue(testDb.db, 'test.hopeless')
    // Long enough that a slow first drain on a busy machine cannot reach it.
    const delayed = await enqueue(testDb.db, 'test.delayed', undefined, null, 4_000 * 1e6)
    const consumer = createEventConsumer({
      db: testDb.db,
      logger,
      maxAttempts: 2,
      backoffBaseMs: 0,
      handlers: { 'test.hopeless': async () => { throw new Error('never works') }, 'test.delayed': record },
    })
    expect(await consumer.drain()).toBe(2)
    expect(await queueRow('test.hopeless', failing)).toMatchObject({ attempts: 2, error: 'never works' })
    expect(await queueRow('test.delayed', delayed)).toBeDefined()
    await new Promise((resolve) => setTimeout(resolve, 4_100))
    expect(await consumer.drain()).toBe(1)
    expect(await queueRow('test.delayed', delayed)).toBeUndefined()
  })

  it('polls on its own once started', async () => {
    const consumer = createEventConsumer({ db: testDb.db, logger, pollMs: 50, handlers: { 'test.polled': record } })
    await consumer.start()
    try {
      const id = await enqueue(testDb.db, 'test.polled')
      const deadline = Date.now() + 5_000
      while ((await queueRow('test.polled', id)) && Date.now() < deadline) await new Promise((resolve) => setTimeout(resolve, 25))
      expect(await queueRow('test.polled', id)).toBeUndefined()
    } finally {
      await consumer.stop()
    }
  })
})

describe.skipIf(TEST_ENGINE !== 'postgres')('several processes on PostgreSQL', () => {
  it('consumes every event exactly once across two consumers with their own pools', async () => {
    const second = await createPostgresDb(testDb.url!, { max: 4 })
    try {
      const ids: string[] = []
      for (let index = 0; index < 60; index += 1) ids.push(await enqueue(testDb.db, 'test.shared'))
      const slow: EventHandler = async (event, context) => {
        await new Promise((resolve) => setTimeout(resolve, 5))
        await record(event, context)
      }
      const a = createEventConsumer({ db: testDb.db, logger, processId: 'a', concurrency: 2, handlers: { 'test.shared': slow } })
      const b = createEventConsumer({ db: second, logger, processId: 'b', concurrency: 2, handlers: { 'test.shared': slow } })
      const [countA, countB] = await Promise.all([a.drain(), b.drain()])
      expect(countA + countB).toBe(60)
      expect(countA).toBeGreaterThan(0)
      expect(countB).toBeGreaterThan(0)
      const { rows } = await testDb.db.query<{ event_id: string; n: number }>(
        'SELECT event_id, count(*)::int AS n FROM consumed WHERE event_id = ANY($1::uuid[]) GROUP BY event_id',
        [ids],
      )
      expect(rows).toHaveLength(60)
      expect(rows.every((row) => row.n === 1)).toBe(true)
    } finally {
      await second.close()
    }
  })

  it('wakes on NOTIFY event_queue_updates instead of waiting for the poll', async () => {
    const consumer = createEventConsumer({ db: testDb.db, logger, pollMs: 60_000, databaseUrl: testDb.url, handlers: { 'test.notified': record } })
    await consumer.start()
    try {
      expect(consumer.stats().listening).toBe(true)
      const id = await enqueue(testDb.db, 'test.notified')
      const deadline = Date.now() + 3_000
      while ((await queueRow('test.notified', id)) && Date.now() < deadline) await new Promise((resolve) => setTimeout(resolve, 25))
      expect(await queueRow('test.notified', id)).toBeUndefined()
    } finally {
      await consumer.stop()
    }
  })
})
