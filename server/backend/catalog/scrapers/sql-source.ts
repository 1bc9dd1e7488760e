import mysqlCore from 'mysql2'
import mysql from 'mysql2/promise'
import pg from 'pg'
import type { EnvVar } from '#contract/canary/canary-spec.schema.ts'
import { findConnection, resolveAccess } from '#server/backend/health/checks/check-inputs.ts'
import { admitPostgres, mysqlConfig, postgresConfig } from '#server/backend/health/checks/sql-check.ts'
import type { TargetGuard } from '#server/backend/health/checks/target-guard.ts'
import { abortReason, type ScrapedDocument, type ScrapeRunContext, type ScraperSource } from './scraper-source.ts'

/**
 * The `sql` scraper (resource-specs §3.7): one query against PostgreSQL or MySQL/MariaDB, each
 * row one document, a single-column result the column's value. The database is reached through
 * a stored connection (`connection://ns/name` or its id) or a raw connection string, with the
 * check engine's connection-string handling and target fence; one connection per run, closed
 * when the run ends, and the running statement cancelled on the server when the run is aborted.
 */

export type SqlDriver = 'postgres' | 'mysql'

export class SqlScrapeError extends Error {}

const DRIVER_NAMES: Record<string, SqlDriver> = {
  postgres: 'postgres',
  postgresql: 'postgres',
  pg: 'postgres',
  pgsql: 'postgres',
  pgx: 'postgres',
  pq: 'postgres',
  mysql: 'mysql',
  mariadb: 'mysql',
  maria: 'mysql',
  my: 'mysql',
}

/** Drivers the platform offers that this console does not carry. */
const UNSUPPORTED_DRIVERS = new Set(['sqlserver', 'mssql', 'sql_server', 'azuresql', 'sqlite', 'sqlite3', 'file', 'oracle', 'clickhouse', 'snowflake'])

function text(value: unknown): string | undefined {
  return typeof value === 'string' && value.trim() !== '' ? value.trim() : undefined
}

function schemeOf(url: string): string | undefined {
  return /^([a-z][a-z0-9+.-]*):\/\//i.exec(url)?.[1]?.toLowerCase()
}

/**
 * The driver: `driver` when set, else the URL's scheme, else the stored connection's type, else
 * the string's shape (a Go-style `user:pass@tcp(host:port)/db` is MySQL, a `key=value` DSN
 * PostgreSQL).
 */
export function driverOf(url: string, driver?: string, connectionType?: string): SqlDriver {
  const candidates = [driver, schemeOf(url), connectionType].map((name) => name?.toLowerCase()).filter((name): name is string => Boolean(name))
  for (const name of candidates) {
    if (DRIVER_NAMES[name]) return DRIVER_NAMES[name]
    if (UNSUPPORTED_DRIVERS.has(name)) throw new SqlScrapeError(`driver ${name} is not supported by this console's sql scraper (PostgreSQL and MySQL/MariaDB are)`)
    if (name === driver?.toLowerCase()) throw new SqlScrapeError(`unknown driver "${driver}" (use postgres or mysql)`)
  }
  if (/@(tcp|unix)\(/.test(url)) return 'mysql'
  if (/(^|\s)(host|dbname|user)=/.test(url)) return 'postgres'
  throw new SqlScrapeError(`cannot tell the database from "${redacted(url)}": set driver (postgres or mysql) or use a postgres:// or mysql:// URL`)
}

/** The connection string without its password, for messages. */
function redacted(url: string): string {
  return url
    .replace(/(:\/\/[^:/@]*):[^@/]*@/, '$1:***@')
    .replace(/^([^:@/]*):[^@]*@(tcp|unix)\(/, '$1:***@$2(')
    .replace(/(password=)('(?:[^'\\]|\\.)*'|\S+)/g, '$1***')
}

type Rows = { columns: string[]; rows: Record<string, unknown>[] }

const INT8_OID = 20
const NUMERIC_OID = 1700
/**
 * A decimal's text as a number when the number reads back as the same value (trailing zeros of
 * the scale aside: `19.5000` is 19.5), otherwise the exact text (bigint past 2^53, wide numerics).
 */
function exactNumber(value: string): number | string {
  const match = /^(-?)0*(\d+?)(?:\.(\d*?)0*)?$/.exec(value)
  if (!match) return value
  const canonical = `${match[1]}${match[2]}${match[3] ? `.${match[3]}` : ''}`
  const number = Number(value)
  return String(number) === canonical || (number === 0 && canonical === '-0') ? number : value
}
// bigint and numeric as numbers when that loses nothing, otherwise as their exact text.
const pgTypes = {
  getTypeParser: (oid: number, format?: string) =>
    oid === INT8_OID || oid === NUMERIC_OID ? exactNumber : pg.types.getTypeParser(oid, format as 'text'),
}

/** A postgres:// URL with the missing user and password filled in (DSNs get them as fields). */
function postgresClientConfig(url: string, username: string | undefined, password: string | undefined): pg.ClientConfig {
  let normalised = url.replace(/^(pg|pgsql|pgx|postgresql):\/\//i, 'postgres://')
  if (/^postgres:\/\//i.test(normalised)) {
    let parsed: URL
    try {
      parsed = new URL(normalised)
    } catch {
      throw new SqlScrapeError(`invalid connection string "${redacted(url)}"`)
    }
    if (!parsed.username && username) parsed.username = encodeURIComponent(username)
    if (!parsed.password && password) parsed.password = encodeURIComponent(password)
    normalised = parsed.toString()
  }
  const config = postgresConfig(normalised)
  if (!config.connectionString) {
    config.user ??= username
    config.password ??= password
  }
  return config
}

async function cancelBackend(config: pg.ClientConfig, host: string, port: number, pid: number): Promise<void> {
  const canceller = new pg.Client({ ...config, connectionTimeoutMillis: 5_000, application_name: 'lookout-scraper-cancel' })
  // The address the target guard admitted for the scraper's own connection.
  canceller.host = host
  canceller.port = port
  canceller.on('error', () => undefined)
  try {
    await canceller.connect()
    await canceller.query('SELECT pg_cancel_backend($1)', [pid])
  } catch {
    // The scraper's connection is being closed anyway; the server drops the statement when it next writes.
  } finally {
    await canceller.end().catch(() => undefined)
  }
}

async function queryPostgres(config: pg.ClientConfig, query: string, signal: AbortSignal, targets: TargetGuard | undefined): Promise<Rows> {
  const client = new pg.Client({ ...config, types: pgTypes, application_name: 'lookout-scraper' })
  await admitPostgres(client, targets, config)
  // A server going away mid-query also emits 'error'; the query's rejection reports it.
  client.on('error', () => undefined)
  const abort = () => {
    // Closing our socket alone leaves the statement running on the server until it next writes:
    // pg_cancel_backend from a second connection (same role, so allowed) stops it there.
    const pid = (client as unknown as { processID?: number | null }).processID
    if (pid) void cancelBackend(config, client.host, client.port, pid)
    // end() waits for a handshake that a silent server never finishes: drop the socket instead.
    else (client as unknown as { connection?: { stream?: { destroy(): void } } }).connection?.stream?.destroy()
    void client.end().catch(() => undefined)
  }
  if (signal.aborted) throw new Error(abortReason(signal))
  signal.addEventListener('abort', abort, { once: true })
  try {
    await untilAborted(client.connect(), signal, () => undefined)
    const result = (await client.query(query)) as pg.QueryResult | pg.QueryResult[]
    const last = Array.isArray(result) ? result[result.length - 1] : result
    return { columns: (last?.fields ?? []).map((field) => field.name), rows: (last?.rows ?? []) as Record<string, unknown>[] }
  } finally {
    signal.removeEventListener('abort', abort)
    await client.end().catch(() => undefined)
  }
}

function mysqlConnectionConfig(url: string, username: string | undefined, password: string | undefined): mysql.ConnectionOptions {
  const config = mysqlConfig(url.replace(/^(mariadb|maria|my):\/\//i, 'mysql://'))
  config.user ??= username
  config.password ??= password
  return config
}

async function queryMysql(base: mysql.ConnectionOptions, query: string, signal: AbortSignal, targets: TargetGuard | undefined): Promise<Rows> {
  const config: mysql.ConnectionOptions = {
    ...base,
    supportBigNumbers: true,
    bigNumberStrings: false,
    dateStrings: false,
    timezone: 'Z',
    multipleStatements: false,
    // DECIMAL as a number when that loses nothing, otherwise its exact text (as numeric on PostgreSQL).
    typeCast: (field, next) => {
      if (field.type !== 'NEWDECIMAL' && field.type !== 'DECIMAL') return next()
      const value = field.string()
      return value === null ? null : exactNumber(value)
    },
  }
  if (targets) {
    const admission = await targets.admit(config.socketPath ?? config.host ?? 'localhost', config.port ?? 3306)
    if (admission) config.host = admission.address
  }
  if (signal.aborted) throw new Error(abortReason(signal))
  // The callback API hands the connection over before its handshake, so an abort can drop it
  // even while a silent server keeps the handshake waiting.
  const raw = mysqlCore.createConnection(config)
  raw.on('error', () => undefined)
  const connection = raw.promise()
  let connected = false
  const abort = () => {
    if (!connected) return raw.destroy()
    // KILL QUERY on a second connection stops the statement on the server; destroy() only drops our socket.
    void mysql.createConnection(config)
      .then(async (killer) => {
        await killer.query('KILL QUERY ?', [raw.threadId]).catch(() => undefined)
        await killer.end().catch(() => killer.destroy())
      })
      .catch(() => undefined)
      .finally(() => raw.destroy())
  }
  signal.addEventListener('abort', abort, { once: true })
  try {
    await untilAborted(new Promise<void>((resolve, reject) => {
      raw.once('connect', () => resolve())
      raw.once('error', reject)
    }), signal, () => undefined)
    connected = true
    const [rows, fields] = await connection.query({ sql: query })
    const list = Array.isArray(rows) ? (rows as Record<string, unknown>[]) : []
    return { columns: (fields ?? []).map((field) => field.name), rows: list }
  } finally {
    signal.removeEventListener('abort', abort)
    await connection.end().catch(() => raw.destroy())
  }
}

/**
 * The promise, or a rejection as soon as the signal aborts; what the promise yields after that
 * is disposed of (a connection that completes its handshake after the timeout is closed).
 */
function untilAborted<T>(promise: Promise<T>, signal: AbortSignal, dispose: (value: T) => void): Promise<T> {
  return new Promise<T>((resolve, reject) => {
    const onAbort = () => {
      reject(new Error(abortReason(signal)))
      promise.then(dispose, () => undefined)
    }
    if (signal.aborted) return onAbort()
    signal.addEventListener('abort', onAbort, { once: true })
    promise.then(
      (value) => {
        signal.removeEventListener('abort', onAbort)
        if (signal.aborted) return
        resolve(value)
      },
      (error: unknown) => {
        signal.removeEventListener('abort', onAbort)
        reject(error)
      },
    )
  })
}

/** Values as JSON carries them: timestamps as ISO text, bytes as text, big integers exactly. */
function jsonValue(value: unknown): unknown {
  if (value instanceof Date) return Number.isNaN(value.getTime()) ? null : value.toISOString()
  if (Buffer.isBuffer(value)) return value.toString('utf8')
  if (typeof value === 'bigint') return Number.isSafeInteger(Number(value)) ? Number(value) : value.toString()
  return value
}

/** A single column's text that holds a JSON object or list (json_agg, to_json, JSON_OBJECT on MariaDB) as that value. */
function singleColumnValue(value: unknown): unknown {
  const converted = jsonValue(value)
  if (typeof converted === 'string' && /^\s*[[{]/.test(converted)) {
    try {
      return JSON.parse(converted)
    } catch {
      return converted
    }
  }
  return converted
}

export const sqlSource: ScraperSource = {
  kind: 'sql',
  async fetch(entry, context: ScrapeRunContext): Promise<ScrapedDocument[]> {
    const query = text(entry.query)
    if (!query) throw new SqlScrapeError('query is required')
    const reference = text(entry.connection) ?? text(entry.url)
    if (!reference) throw new SqlScrapeError('connection is required: a connection://namespace/name reference, a connection id, or a connection string')
    const auth = entry.auth && typeof entry.auth === 'object' ? (entry.auth as Record<string, unknown>) : {}
    const access = await resolveAccess(
      { connection: reference, username: auth.username as EnvVar | undefined, password: auth.password as EnvVar | undefined },
      {
        resolveConnection: (ref, namespace) => findConnection(context.db, ref, namespace),
        canary: { namespace: context.namespace },
        templatesEnabled: true,
        targets: context.targets,
      },
      { connectionIsUrl: true },
    )
    if (!access.url) throw new SqlScrapeError(`connection ${reference} has no URL`)
    const driver = driverOf(access.url, text(entry.driver), access.connection?.type)
    const where = `${driver} ${redacted(access.url)}`
    let result: Rows
    try {
      result = driver === 'postgres'
        ? await queryPostgres(postgresClientConfig(access.url, access.username, access.password), query, context.signal, context.targets)
        : await queryMysql(mysqlConnectionConfig(access.url, access.username, access.password), query, context.signal, context.targets)
    } catch (error) {
      if (error instanceof SqlScrapeError) throw error
      const reason = context.signal.aborted ? abortReason(context.signal) : (error as Error).message
      throw new SqlScrapeError(`query on ${where} failed: ${reason}`)
    }
    const single = result.columns.length === 1 ? result.columns[0]! : null
    return result.rows.map((row, index) => ({
      config: single !== null ? singleColumnValue(row[single]) : Object.fromEntries(Object.entries(row).map(([key, value]) => [key, jsonValue(value)])),
      source: `query row ${index + 1}`,
    }))
  },
}
