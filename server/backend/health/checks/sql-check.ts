import net from 'node:net'
import mysql from 'mysql2/promise'
import pg from 'pg'
import { failResult, invalidResult, newResult, type CheckResult, type CheckRunContext, type CheckRunner } from '../check-result.ts'
import { renderGoTemplate } from '../go-template.ts'
import { resolveAccess } from './check-inputs.ts'
import type { TargetGuard } from './target-guard.ts'

type Rows = Record<string, unknown>[]

// Integers and numerics as numbers so `results.rows[0].count < 5` compares numbers, as the reference's native values do.
const NUMERIC_OIDS = new Set([20, 1700])
const pgTypes = {
  getTypeParser: (oid: number, format?: string) =>
    NUMERIC_OIDS.has(oid) ? (value: string) => Number(value) : pg.types.getTypeParser(oid, format as 'text'),
}

/** `key=value` DSNs (libpq style) as node-postgres options; URLs pass straight through. */
export function postgresConfig(url: string): pg.ClientConfig {
  if (/^postgres(ql)?:\/\//.test(url)) return { connectionString: url }
  const config: Record<string, string> = {}
  for (const match of url.matchAll(/(\w+)\s*=\s*('(?:[^'\\]|\\.)*'|\S+)/g)) config[match[1]!] = match[2]!.replace(/^'|'$/g, '')
  return {
    host: config.host,
    port: config.port ? Number(config.port) : undefined,
    user: config.user,
    password: config.password,
    database: config.dbname ?? config.database,
    ssl: config.sslmode && config.sslmode !== 'disable' ? { rejectUnauthorized: config.sslmode === 'verify-full' } : undefined,
  }
}

/**
 * Dials the address the guard admitted instead of resolving the host again. node-postgres has no
 * lookup hook, so the client's resolved host is swapped for the address, and TLS keeps checking
 * the certificate against the name the user wrote.
 */
export async function admitPostgres(client: pg.Client, targets: TargetGuard | undefined, config: pg.ClientConfig): Promise<void> {
  if (!targets) return
  const original = client.host
  const admission = await targets.admit(original, client.port)
  if (!admission) return
  client.host = admission.address
  // node-postgres fills a missing password from the server's own PGPASSWORD: a fenced check
  // sends only what its spec says.
  if (!configuredPassword(config)) client.password = ''
  const connection = (client as unknown as { connection?: { ssl?: unknown } }).connection
  if (connection?.ssl && !net.isIP(original)) {
    connection.ssl = { ...(typeof connection.ssl === 'object' ? connection.ssl : {}), servername: original }
  }
}

function configuredPassword(config: pg.ClientConfig): boolean {
  if (config.password) return true
  if (!config.connectionString) return false
  try {
    return new URL(config.connectionString).password !== ''
  } catch {
    return false
  }
}

export async function queryPostgres(url: string, query: string, timeoutMs: number, signal: AbortSignal, targets?: TargetGuard): Promise<Rows> {
  const config = postgresConfig(url)
  const client = new pg.Client({ ...config, types: pgTypes, connectionTimeoutMillis: timeoutMs, statement_timeout: timeoutMs, application_name: 'lookout-check' })
  await admitPostgres(client, targets, config)
  // A target restarting under the query also emits 'error' on the client; unheard, it would end
  // the process. The query's own rejection reports the failure.
  client.on('error', () => undefined)
  const abort = () => void client.end().catch(() => undefined)
  signal.addEventListener('abort', abort, { once: true })
  try {
    await client.connect()
    const result = await client.query(query)
    return (Array.isArray(result) ? result[result.length - 1] : result).rows as Rows
  } finally {
    signal.removeEventListener('abort', abort)
    await client.end().catch(() => undefined)
  }
}

/** Go-style `user:pass@tcp(host:port)/db?x=y` (and `mysql://` URLs) as mysql2 options. */
export function mysqlConfig(url: string): mysql.ConnectionOptions {
  const text = url.replace(/^mysql:\/\//, '')
  const go = /^(?:([^:@]*)(?::([^@]*))?@)?(?:(tcp|unix)\(([^)]*)\))?\/([^?]*)(?:\?(.*))?$/.exec(text)
  if (go) {
    const [host, port] = (go[4] ?? '127.0.0.1:3306').split(':')
    return { user: go[1] || undefined, password: go[2] ?? undefined, host: host || '127.0.0.1', port: port ? Number(port) : 3306, database: go[5] || undefined }
  }
  const parsed = new URL(`mysql://${text}`)
  return {
    user: decodeURIComponent(parsed.username) || undefined,
    password: decodeURIComponent(parsed.password) || undefined,
    host: parsed.hostname,
    port: parsed.port ? Number(parsed.port) : 3306,
    database: parsed.pathname.replace(/^\//, '') || undefined,
  }
}

export async function queryMysql(url: string, query: string, timeoutMs: number, signal: AbortSignal, targets?: TargetGuard): Promise<Rows> {
  const config = mysqlConfig(url)
  if (targets) {
    const admission = await targets.admit(config.socketPath ?? config.host ?? 'localhost', config.port ?? 3306)
    if (admission) config.host = admission.address
  }
  const connection = await mysql.createConnection({ ...config, connectTimeout: timeoutMs, supportBigNumbers: true, bigNumberStrings: false, decimalNumbers: true })
  const abort = () => connection.destroy()
  signal.addEventListener('abort', abort, { once: true })
  try {
    const [rows] = await connection.query({ sql: query, timeout: timeoutMs })
    return (Array.isArray(rows) ? rows : []) as Rows
  } finally {
    signal.removeEventListener('abort', abort)
    await connection.end().catch(() => connection.destroy())
  }
}

function nativeRow(row: Record<string, unknown>): Record<string, unknown> {
  const out: Record<string, unknown> = {}
  for (const [key, value] of Object.entries(row)) {
    if (value instanceof Date) out[key] = value.toISOString()
    else if (Buffer.isBuffer(value)) out[key] = value.toString('utf8')
    else if (typeof value === 'bigint') out[key] = Number(value)
    else out[key] = value
  }
  return out
}

function sqlRunner(driver: 'postgres' | 'mysql'): CheckRunner {
  return async (spec: Record<string, unknown>, context: CheckRunContext): Promise<CheckResult[]> => {
    const result = newResult()
    let url: string
    try {
      url = (await resolveAccess(spec, context, { connectionIsUrl: true })).url
    } catch (error) {
      return [invalidResult(result, (error as Error).message)]
    }
    if (!url) return [invalidResult(result, 'url or connection is required')]
    let query = typeof spec.query === 'string' && spec.query.trim() !== '' ? spec.query : 'SELECT 1'
    if (context.templatesEnabled && query.includes('{{')) {
      try {
        query = renderGoTemplate(query, { last_result: query.includes('last_result') ? await context.lastResult() : null })
      } catch (error) {
        return [invalidResult(result, `query: ${(error as Error).message}`)]
      }
    }
    const timeoutMs = Math.min(context.timeoutMs, (Number(spec.timeout ?? 60) || 60) * 1000)
    const started = performance.now()
    let rows: Rows
    try {
      rows = driver === 'postgres'
        ? await queryPostgres(url, query, timeoutMs, context.signal, context.targets)
        : await queryMysql(url, query, timeoutMs, context.signal, context.targets)
    } catch (error) {
      result.duration = Math.round(performance.now() - started)
      return [failResult(result, `failed to execute query: ${(error as Error).message}`)]
    }
    result.duration = Math.round(performance.now() - started)
    const detail = { rows: rows.map(nativeRow), count: rows.length }
    result.data = { ...detail, results: detail }
    result.detail = detail
    result.message = `${rows.length} row(s) returned`
    if (rows.length === 0 && spec.markFailOnEmpty) return [failResult(result, 'query returned 0 rows')]
    const minimum = Number(spec.results ?? 0)
    if (rows.length < minimum) failResult(result, `Query return ${rows.length} rows, expected ${minimum}`)
    return [result]
  }
}

export const runPostgresCheck = sqlRunner('postgres')
export const runMysqlCheck = sqlRunner('mysql')
