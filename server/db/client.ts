import { existsSync } from 'node:fs'
import path from 'node:path'
import pg from 'pg'
import type { PGlite, Transaction as PGliteTransaction } from '@electric-sql/pglite'
import { isConnectionFailure } from './outage.ts'

/**
 * The one database interface every part of Lookout talks to. Two engines stand behind it:
 * a real PostgreSQL server (node-postgres pool) when DATABASE_URL is set, and PGlite
 * (in-process Postgres compiled to WASM) otherwise. Both speak the same SQL, so migrations,
 * queries and tests are written once.
 */
export type QueryResult<T> = { rows: T[]; rowCount: number }

export interface Queryable {
  /** One statement, values always bound as parameters ($1, $2, …). */
  query<T = Record<string, unknown>>(text: string, params?: readonly unknown[]): Promise<QueryResult<T>>
  /** Several statements without parameters (migrations, seeds). */
  exec(text: string): Promise<void>
}

export interface Db extends Queryable {
  readonly engine: 'postgres' | 'pglite'
  transaction<T>(fn: (tx: Queryable) => Promise<T>): Promise<T>
  /** Pool figures for /metrics; PGlite reports a single in-process connection. */
  poolStats(): { total: number; idle: number; waiting: number }
  /**
   * A dedicated LISTEN on `channel`. `onState(false)` means notifications may have been missed
   * (connection lost); the listener reconnects by itself and says `onState(true)` once it
   * listens again. Closed with the database.
   */
  listen?(channel: string, handlers: NotificationHandlers, options?: { writes?: RegExp }): Promise<NotificationListener>
  close(): Promise<void>
}

export type NotificationHandlers = { onNotify(payload: string): void; onState(listening: boolean): void }
export type NotificationListener = {
  /**
   * Resolves once the notifications of every write this Db committed so far whose statement
   * matches `writes` have reached `onNotify`: this process's own writes are then seen at once,
   * not a moment after they return. Free when no such write happened since the last call.
   */
  settle(): Promise<void>
  close(): Promise<void>
}

const CHANNEL_NAME = /^[a-z_][a-z0-9_]*$/
const LISTEN_RETRY_MS = 1000

// Every session runs in UTC so timestamps serialise identically on both engines.
const SESSION_SETUP = "SET TIME ZONE 'UTC'"

export async function createPostgresDb(
  connectionString: string,
  options: { max?: number; statementTimeoutMs?: number } = {},
): Promise<Db> {
  // The timeout is one constant for the process, so it is a session setting of every pooled
  // connection rather than a SET LOCAL (three extra round trips) around each request.
  const timeout = options.statementTimeoutMs !== undefined ? ` -c statement_timeout=${Math.max(0, Math.floor(options.statementTimeoutMs))}` : ''
  const pool = new pg.Pool({
    connectionString,
    max: options.max ?? 10,
    idleTimeoutMillis: 30_000,
    connectionTimeoutMillis: 10_000,
    application_name: 'lookout',
    // Set as a startup parameter: a query on 'connect' would race the caller's first query.
    options: `-c TimeZone=UTC${timeout}`,
  })
  // A dropped idle connection must not crash the process; the pool replaces it, and the next
  // query reports the outage (connection-failure errors, see outage.ts).
  pool.on('error', () => undefined)
  await pool.query('SELECT 1')

  // Listeners that want to hear this process's own writes without delay (see settle()).
  const writeWatchers = new Set<{ writes: RegExp; wrote(): void }>()
  const watchWrite = (text: string, onMatch: () => void) => {
    for (const watcher of writeWatchers) {
      if (watcher.writes.test(text)) {
        watcher.wrote()
        onMatch()
      }
    }
  }
  const isWrite = (command: string | undefined) => command !== 'SELECT' && command !== 'SHOW'

  // `onWrite`: a transaction's statements are noted again at COMMIT, when their notices go out.
  const wrap = (client: pg.Pool | pg.PoolClient, onWrite: () => void = () => undefined): Queryable => ({
    async query<T>(text: string, params?: readonly unknown[]) {
      const result = await client.query(text, params as unknown[] | undefined)
      if (writeWatchers.size > 0 && isWrite(result.command)) watchWrite(text, onWrite)
      return { rows: result.rows as T[], rowCount: result.rowCount ?? 0 }
    },
    async exec(text: string) {
      await client.query(text)
      if (writeWatchers.size > 0) watchWrite(text, onWrite)
    },
  })

  const root = wrap(pool)
  const listeners = new Set<NotificationListener>()

  // LISTEN needs one connection of its own for its whole life, outside the pool.
  function listenOn(channel: string, handlers: NotificationHandlers, writes?: RegExp): NotificationListener {
    if (!CHANNEL_NAME.test(channel)) throw new Error(`bad channel name ${channel}`)
    let current: pg.Client | undefined
    let stopped = false
    let retry: NodeJS.Timeout | undefined
    let written = 0
    let settled = 0
    const watcher = writes && { writes, wrote: () => void written++ }
    if (watcher) writeWatchers.add(watcher)
    const connect = async () => {
      const client = new pg.Client({ connectionString, application_name: 'lookout-listen', options: '-c TimeZone=UTC' })
      let lost = false
      const onLost = () => {
        if (lost) return
        lost = true
        if (current === client) current = undefined
        handlers.onState(false)
        client.end().catch(() => undefined)
        if (!stopped) {
          retry = setTimeout(() => void connect(), LISTEN_RETRY_MS)
          retry.unref()
        }
      }
      client.on('error', onLost)
      client.on('end', onLost)
      client.on('notification', (message) => {
        if (message.channel === channel) handlers.onNotify(message.payload ?? '')
      })
      try {
        await client.connect()
        await client.query(`LISTEN ${channel}`)
      } catch {
        onLost()
        return
      }
      if (stopped) {
        await client.end().catch(() => undefined)
        return
      }
      current = client
      handlers.onState(true)
    }
    void connect()
    const listener: NotificationListener = {
      // The committing backend signals every listening one before its client hears COMMIT, and a
      // listening backend sends what it was signalled before answering its next statement, so
      // one round trip on the listening connection brings every notice of those writes.
      async settle() {
        const target = written
        const client = current
        if (target === settled || !client) return
        await client.query('SELECT 1')
        settled = Math.max(settled, target)
      },
      async close() {
        stopped = true
        clearTimeout(retry)
        if (watcher) writeWatchers.delete(watcher)
        listeners.delete(listener)
        const client = current
        current = undefined
        await client?.end().catch(() => undefined)
      },
    }
    listeners.add(listener)
    return listener
  }

  return {
    engine: 'postgres',
    query: root.query,
    exec: root.exec,
    async transaction(fn) {
      const client = await pool.connect()
      // The pool listens for errors on idle clients only: a checked-out client whose server
      // restarts would otherwise raise an unhandled 'error' event and end the process.
      let broken: unknown
      const onError = (error: Error) => {
        broken ??= error
      }
      client.on('error', onError)
      let wroteWatched = false
      try {
        await client.query('BEGIN')
        const result = await fn(wrap(client, () => void (wroteWatched = true)))
        await client.query('COMMIT')
        if (wroteWatched) for (const watcher of writeWatchers) watcher.wrote()
        return result
      } catch (error) {
        if (broken === undefined && isConnectionFailure(error)) broken = error
        if (broken === undefined) await client.query('ROLLBACK').catch(() => undefined)
        throw error
      } finally {
        client.removeListener('error', onError)
        // A broken connection is destroyed, not handed to the next caller.
        client.release(broken === undefined ? undefined : broken instanceof Error ? broken : new Error(String(broken)))
      }
    },
    poolStats: () => ({ total: pool.totalCount, idle: pool.idleCount, waiting: pool.waitingCount }),
    listen: async (channel, handlers, options) => listenOn(channel, handlers, options?.writes),
    async close() {
      await Promise.all([...listeners].map((listener) => listener.close()))
      await pool.end()
    },
  }
}

function isEmptyDataDir(dataDir: string): boolean {
  return !existsSync(path.join(dataDir, 'PG_VERSION'))
}

/**
 * `template`: a packed data directory (see pglite-template.ts) used only when `dataDir` holds
 * no database yet.
 */
/** PGlite can also pack its whole data directory as a gzipped tarball. */
export type PGliteDb = Db & { dumpDataDir(): Promise<Blob> }

export async function createPGliteDb(dataDir: string | undefined, template?: Blob): Promise<PGliteDb> {
  const { PGlite } = await import('@electric-sql/pglite')
  const loadDataDir = template && (!dataDir || isEmptyDataDir(dataDir)) ? template : undefined
  const instance: PGlite = dataDir ? await PGlite.create(dataDir, { loadDataDir }) : await PGlite.create({ loadDataDir })
  await instance.exec(SESSION_SETUP)

  const wrap = (client: PGlite | PGliteTransaction): Queryable => ({
    async query<T>(text: string, params?: readonly unknown[]) {
      const result = await client.query<T>(text, params as unknown[] | undefined)
      return { rows: result.rows, rowCount: result.affectedRows ?? result.rows.length }
    },
    async exec(text: string) {
      await client.exec(text)
    },
  })

  const root = wrap(instance)
  let closed = false
  return {
    engine: 'pglite',
    query: root.query,
    exec: root.exec,
    transaction: (fn) => instance.transaction((tx) => fn(wrap(tx))),
    poolStats: () => ({ total: 1, idle: 1, waiting: 0 }),
    // One in-process connection: notifications arrive as the notifying statement's results do.
    async listen(channel, handlers) {
      const unlisten = await instance.listen(channel, handlers.onNotify)
      handlers.onState(true)
      return {
        settle: async () => undefined,
        async close() {
          if (!closed) await unlisten()
        },
      }
    },
    dumpDataDir: () => instance.dumpDataDir('gzip') as Promise<Blob>,
    async close() {
      if (closed) return
      closed = true
      await instance.close()
    },
  }
}

export async function openDatabase(config: {
  databaseUrl?: string
  dataDir?: string
  poolMax?: number
  /** PostgreSQL only: statement_timeout of every pooled connection (PGlite has no timer to cancel with). */
  statementTimeoutMs?: number
  pgliteTemplate?: Blob
}): Promise<Db> {
  if (config.databaseUrl) {
    return createPostgresDb(config.databaseUrl, { max: config.poolMax, statementTimeoutMs: config.statementTimeoutMs })
  }
  return createPGliteDb(config.dataDir, config.pgliteTemplate)
}
