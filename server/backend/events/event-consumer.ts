import { randomUUID } from 'node:crypto'
import { hostname } from 'node:os'
import pg from 'pg'
import type { Logger } from 'pino'
import type { Db, Queryable } from '#server/db/client.ts'
import { createOutageGate, isConnectionFailure } from '#server/db/outage.ts'

/**
 * A consumer of `event_queue` (data-model §10.4), the table database triggers fill with
 * `check.failed`, `incident.created`, ... Each event is claimed with `FOR UPDATE SKIP LOCKED` in
 * its own transaction and handled inside it, so any number of processes can consume one queue:
 * a claimed row is invisible to the others, and a process that dies mid-event releases it with
 * its connection. Success deletes the row; failure keeps it with `attempts`, `last_attempt` and
 * `error` and retries it after an exponential backoff.
 */
export type QueuedEvent = {
  id: string
  name: string
  /** The subject of the event (a check id for check.failed, an incident id, ...). */
  eventId: string | null
  properties: Record<string, unknown> | null
  /** Failed attempts before this one. */
  attempts: number
  createdAt: Date
}

export type EventContext = {
  /**
   * The claim's transaction: write through it, so the handler's work commits together with the
   * event's removal (and is rolled back when the handler throws). On PGlite, querying the Db
   * outside it from a handler would wait for this very transaction.
   */
  tx: Queryable
  logger: Logger
  processId: string
}

/**
 * Return nothing when done. Throwing rolls the handler's writes back and retries the event.
 * `{ retry }` keeps the writes (e.g. the parts that succeeded, a failed job-history row) and
 * still retries the event later.
 */
export type EventOutcome = void | { retry: true; error: string }
export type EventHandler = (event: QueuedEvent, context: EventContext) => Promise<EventOutcome>
export type EventHandlers = Record<string, EventHandler>

export type EventConsumerOptions = {
  db: Db
  logger: Logger
  handlers: EventHandlers
  processId?: string
  /** How often the queue is polled when no notification arrives (default 1000 ms). */
  pollMs?: number
  /** On PostgreSQL: a connection string for a dedicated LISTEN connection, so new events are picked up at once. */
  databaseUrl?: string
  /** After this many failed attempts an event stays in the queue, untouched, for an operator (default 10). */
  maxAttempts?: number
  /** Backoff after the n-th failure: base × 2^(n-1), capped at max (defaults 1 s and 5 min). */
  backoffBaseMs?: number
  backoffMaxMs?: number
  /** Events handled at once by this process (default 1). */
  concurrency?: number
}

export type EventConsumerStats = { processId: string; processed: number; failed: number; listening: boolean }

export type EventConsumer = {
  readonly processId: string
  start(): Promise<void>
  stop(): Promise<void>
  /** Handles due events until none is left; returns how many were handled (succeeded or failed). */
  drain(): Promise<number>
  /** Asks for a poll now (e.g. after an in-process write that enqueued an event). */
  wake(): void
  stats(): EventConsumerStats
}

type ClaimRow = {
  id: string
  name: string
  event_id: string | null
  properties: Record<string, unknown> | string | null
  attempts: number | null
  created_at: Date | string
}

export const EVENT_QUEUE_CHANNEL = 'event_queue_updates'

// `delay` is in nanoseconds (Go durations); the backoff grows from the last failed attempt.
const CLAIM_SQL = `SELECT id, name, event_id, properties, attempts, created_at
  FROM event_queue
  WHERE name = ANY($1::text[])
    AND coalesce(attempts, 0) < $2
    AND created_at + make_interval(secs => coalesce(delay, 0) / 1e9) <= now()
    AND (last_attempt IS NULL
      OR last_attempt + make_interval(secs => least($3::float8 * power(2, greatest(coalesce(attempts, 0) - 1, 0)), $4::float8) / 1e3) <= now())
  ORDER BY priority DESC, created_at
  LIMIT 1
  FOR UPDATE SKIP LOCKED`

const SAVEPOINT = 'lookout_event_handler'
const ERROR_LIMIT = 4_000

function errorText(error: unknown): string {
  const text = error instanceof Error ? error.message || error.name : String(error)
  return text.length > ERROR_LIMIT ? `${text.slice(0, ERROR_LIMIT)}…` : text
}

export function createEventConsumer(options: EventConsumerOptions): EventConsumer {
  const { db, handlers } = options
  const processId = options.processId ?? `${hostname()}-${process.pid}-${randomUUID().slice(0, 8)}`
  const pollMs = Math.max(10, options.pollMs ?? 1_000)
  const maxAttempts = Math.max(1, options.maxAttempts ?? 10)
  const backoffBaseMs = Math.max(0, options.backoffBaseMs ?? 1_000)
  const backoffMaxMs = Math.max(backoffBaseMs, options.backoffMaxMs ?? 300_000)
  const concurrency = Math.max(1, options.concurrency ?? 1)
  const names = Object.keys(handlers)
  const log = options.logger.child({ component: 'event-consumer', processId })

  let started = false
  let stopping = false
  let processed = 0
  let failed = 0
  let timer: NodeJS.Timeout | null = null
  let draining: Promise<number> | null = null
  let wakeAgain = false
  let listener: pg.Client | null = null
  let listenRetry: NodeJS.Timeout | null = null
  // A database outage pauses polling (one log line, growing backoff) until a poll gets through.
  const outage = createOutageGate({ logger: log, what: 'the event consumer' })
  let listenerDown = false

  /** Claims and handles one due event; false when none is due. */
  async function handleOne(): Promise<boolean> {
    return db.transaction(async (tx) => {
      const { rows } = await tx.query<ClaimRow>(CLAIM_SQL, [names, maxAttempts, backoffBaseMs, backoffMaxMs])
      const row = rows[0]
      if (!row) return false
      const event: QueuedEvent = {
        id: String(row.id),
        name: row.name,
        eventId: row.event_id === null ? null : String(row.event_id),
        properties: typeof row.properties === 'string' ? (JSON.parse(row.properties) as Record<string, unknown>) : row.properties,
        attempts: row.attempts ?? 0,
        createdAt: new Date(row.created_at),
      }
      const handler = handlers[event.name]!
      await tx.exec(`SAVEPOINT ${SAVEPOINT}`)
      let failure: string | null = null
      try {
        const outcome = await handler(event, { tx, logger: log, processId })
        if (outcome && outcome.retry) failure = outcome.error || 'handler asked for a retry'
        await tx.exec(`RELEASE SAVEPOINT ${SAVEPOINT}`)
      } catch (error) {
        await tx.exec(`ROLLBACK TO SAVEPOINT ${SAVEPOINT}`)
        failure = errorText(error)
      }
      if (failure === null) {
        await tx.query('DELETE FROM event_queue WHERE id = $1', [event.id])
        processed += 1
        return true
      }
      failed += 1
      const attempts = event.attempts + 1
      await tx.query('UPDATE event_queue SET attempts = $2, last_attempt = now(), error = $3 WHERE id = $1', [event.id, attempts, failure])
      const level = attempts >= maxAttempts ? 'error' : 'warn'
      log[level]({ event: event.name, eventId: event.eventId, attempts, error: failure }, attempts >= maxAttempts ? 'event gave up after its last attempt' : 'event failed; will retry')
      return true
    })
  }

  async function worker(): Promise<number> {
    let count = 0
    while (!stopping && outage.ready()) {
      let handled: boolean
      try {
        handled = await handleOne()
        outage.succeeded()
      } catch (error) {
        // The queue itself failed: try again on the next poll (after a backoff when the
        // connection is gone; the claimed event's transaction rolled back with it).
        if (!outage.failed(error)) log.warn({ err: error }, 'event queue poll failed')
        break
      }
      if (!handled) break
      count += 1
    }
    return count
  }

  function drain(): Promise<number> {
    if (names.length === 0) return Promise.resolve(0)
    if (draining) {
      wakeAgain = true
      return draining
    }
    draining = (async () => {
      let total = 0
      do {
        wakeAgain = false
        const counts = await Promise.all(Array.from({ length: concurrency }, () => worker()))
        total += counts.reduce((sum, count) => sum + count, 0)
      } while (wakeAgain && !stopping)
      return total
    })().finally(() => {
      draining = null
    })
    return draining
  }

  function schedule() {
    if (stopping || !started) return
    timer = setTimeout(() => {
      timer = null
      void drain().finally(schedule)
    }, pollMs)
    timer.unref?.()
  }

  function wake() {
    if (!started || stopping) return
    void drain()
  }

  async function listen(): Promise<void> {
    if (!options.databaseUrl || db.engine !== 'postgres' || stopping) return
    const client = new pg.Client({ connectionString: options.databaseUrl, application_name: 'lookout-events' })
    const retry = () => {
      if (listener === client) listener = null
      client.end().catch(() => undefined)
      if (stopping || listenRetry) return
      listenRetry = setTimeout(() => {
        listenRetry = null
        void listen()
      }, Math.max(pollMs, 1_000, outage.delayMs()))
      listenRetry.unref?.()
    }
    client.on('error', (error) => {
      if (!listenerDown) log.warn({ err: error }, 'event queue listener lost its connection; polling until it is back')
      listenerDown = true
      retry()
    })
    client.on('notification', (message) => {
      if (message.channel === EVENT_QUEUE_CHANNEL && (!message.payload || names.includes(message.payload))) wake()
    })
    try {
      await client.connect()
      await client.query(`LISTEN ${EVENT_QUEUE_CHANNEL}`)
      if (stopping) {
        await client.end().catch(() => undefined)
        return
      }
      listener = client
      if (listenerDown) log.info('event queue listener connected again')
      listenerDown = false
    } catch (error) {
      // During an outage every reconnect fails the same way: say so once.
      if (!listenerDown || !isConnectionFailure(error)) log.warn({ err: error }, 'could not LISTEN for event queue updates; polling only')
      listenerDown = true
      retry()
    }
  }

  return {
    processId,
    async start() {
      if (started) return
      started = true
      stopping = false
      await listen()
      // Events queued while no consumer ran are handled right away.
      void drain().finally(schedule)
    },
    async stop() {
      if (!started) return
      stopping = true
      if (timer) clearTimeout(timer)
      if (listenRetry) clearTimeout(listenRetry)
      timer = null
      listenRetry = null
      const client = listener
      listener = null
      if (client) await client.end().catch(() => undefined)
      if (draining) await draining.catch(() => undefined)
      started = false
    },
    drain,
    wake,
    stats: () => ({ processId, processed, failed, listening: listener !== null }),
  }
}
