import mysql from 'mysql2/promise'
import pg from 'pg'
import { admitPostgres, mysqlConfig, postgresConfig } from '#server/backend/health/checks/sql-check.ts'
import type { ActionContext, ActionOutcome } from '../playbook-model.ts'
import { actionTargets, ActionInputError, resolveActionAccess, stringOf } from './action-access.ts'

/**
 * `sql` (resource-specs §2.5): `connection` or `url`, `query`, `driver` (postgres or mysql; from
 * the connection's type or the URL when not given). The result is `{query, rows, count,
 * columns}` with every value as text, as the reference returns them (null stays null). Targets
 * are admitted as sql checks admit them (sql-check.ts), so untrusted playbooks are fenced too.
 */
type Driver = 'postgres' | 'mysql'
type Table = { rows: Record<string, unknown>[]; columns: string[] }

const DEFAULT_TIMEOUT_MS = 60_000

function driverOf(spec: Record<string, unknown>, url: string, connectionType: string | undefined): Driver {
  const named = stringOf(spec.driver).toLowerCase() || (connectionType ?? '').toLowerCase()
  if (['postgres', 'postgresql', 'pgx'].includes(named)) return 'postgres'
  if (['mysql', 'mariadb'].includes(named)) return 'mysql'
  if (named && !['sql', ''].includes(named)) throw new ActionInputError(`sql.driver "${named}" is not supported here (postgres or mysql)`)
  if (/^postgres(ql)?:\/\//.test(url) || /(^|\s)(host|dbname)=/.test(url)) return 'postgres'
  if (/^mysql:\/\//.test(url) || /@(tcp|unix)\(/.test(url)) return 'mysql'
  throw new ActionInputError('sql: say which database with driver (postgres or mysql) or a postgres:// / mysql:// URL')
}

function text(value: unknown): string | null {
  if (value === null || value === undefined) return null
  if (typeof value === 'string') return value
  if (value instanceof Date) return value.toISOString()
  if (Buffer.isBuffer(value)) return value.toString('utf8')
  if (typeof value === 'object') return JSON.stringify(value)
  return String(value)
}

async function queryPostgres(url: string, query: string, context: ActionContext): Promise<Table> {
  const config = postgresConfig(url)
  // Every value as the server's text: no type parsing at all.
  const client = new pg.Client({ ...config, types: { getTypeParser: () => (value: string) => value }, connectionTimeoutMillis: DEFAULT_TIMEOUT_MS, application_name: 'lookout-playbook' })
  await admitPostgres(client, actionTargets(context), config)
  // A target restarting under the query also emits 'error'; the query's rejection reports it.
  client.on('error', () => undefined)
  const abort = () => void client.end().catch(() => undefined)
  context.signal.addEventListener('abort', abort, { once: true })
  try {
    await client.connect()
    const results = await client.query(query)
    const last = Array.isArray(results) ? (results[results.length - 1] as pg.QueryResult) : results
    return { rows: last.rows ?? [], columns: (last.fields ?? []).map((field) => field.name) }
  } finally {
    context.signal.removeEventListener('abort', abort)
    await client.end().catch(() => undefined)
  }
}

async function queryMysql(url: string, query: string, context: ActionContext): Promise<Table> {
  const config = mysqlConfig(url)
  const admission = await actionTargets(context).admit(config.socketPath ?? config.host ?? 'localhost', config.port ?? 3306)
  if (admission) config.host = admission.address
  const connection = await mysql.createConnection({ ...config, connectTimeout: DEFAULT_TIMEOUT_MS, dateStrings: true, supportBigNumbers: true, bigNumberStrings: true, multipleStatements: false })
  const abort = () => connection.destroy()
  context.signal.addEventListener('abort', abort, { once: true })
  try {
    const [rows, fields] = await connection.query({ sql: query, timeout: DEFAULT_TIMEOUT_MS })
    if (!Array.isArray(rows)) return { rows: [], columns: [] }
    return { rows: rows as Record<string, unknown>[], columns: (fields ?? []).map((field) => field.name) }
  } finally {
    context.signal.removeEventListener('abort', abort)
    await connection.end().catch(() => connection.destroy())
  }
}

export async function runSqlAction(spec: Record<string, unknown>, context: ActionContext): Promise<ActionOutcome> {
  const access = await resolveActionAccess(spec, context, { connectionIsUrl: true })
  if (!access.url) throw new ActionInputError('sql.url or sql.connection is required')
  const query = stringOf(spec.query)
  if (query.trim() === '') throw new ActionInputError('sql.query is required')
  const driver = driverOf(spec, access.url, access.connection?.type)
  let table: Table
  try {
    table = driver === 'postgres' ? await queryPostgres(access.url, query, context) : await queryMysql(access.url, query, context)
  } catch (error) {
    return { result: { query }, error: `failed to execute query: ${(error as Error).message}` }
  }
  const rows = table.rows.map((row) => Object.fromEntries(Object.entries(row).map(([key, value]) => [key, text(value)])))
  return { result: { query, rows, count: rows.length, columns: table.columns } }
}
