import pg from 'pg'
import { admitPostgres, postgresConfig } from '#server/backend/health/checks/sql-check.ts'
import { LogInputError, type LogLine } from './log-line.ts'
import { resolveBackendAccess, type LogQueryContext, type LogWindow } from './log-query-context.ts'

/**
 * Log lines kept in a PostgreSQL table (`postgres {connection | url, table, timestampColumn,
 * messageColumn, severityColumn, labelColumns}`). The names were checked to be plain
 * identifiers by the spec schema and are quoted; every value is a parameter. Without a url or
 * connection the table is one of Lookout's own database, which only an exec holder's backend may
 * read (the caller refuses the rest, and so does this when the targets are fenced).
 */

export type TableSearch = { labels: Record<string, string>; text: string }

const STATEMENT_TIMEOUT_MS = 30_000

function quoted(name: string): string {
  return name
    .split('.')
    .map((part) => `"${part.replace(/"/g, '""')}"`)
    .join('.')
}

/** The statement and its parameters; exported so tests can read the SQL a search makes. */
export function tableQuery(block: Record<string, unknown>, search: TableSearch, window: LogWindow): { text: string; values: unknown[] } {
  const timestamp = typeof block.timestampColumn === 'string' ? block.timestampColumn : 'timestamp'
  const message = typeof block.messageColumn === 'string' ? block.messageColumn : 'message'
  const severity = typeof block.severityColumn === 'string' ? block.severityColumn : null
  const labelColumns = Array.isArray(block.labelColumns) ? (block.labelColumns as string[]) : []
  const values: unknown[] = [window.start.toISOString(), window.end.toISOString()]
  const select = [`t.${quoted(timestamp)} AS log_timestamp`, `t.${quoted(message)}::text AS log_message`]
  if (severity) select.push(`t.${quoted(severity)}::text AS log_severity`)
  labelColumns.forEach((column, index) => select.push(`t.${quoted(column)}::text AS label_${index}`))
  const where = [`t.${quoted(timestamp)} >= $1::timestamptz`, `t.${quoted(timestamp)} <= $2::timestamptz`]
  const text = search.text.trim()
  if (text) {
    values.push(`%${text.replace(/[\\%_]/g, (char) => `\\${char}`)}%`)
    where.push(`t.${quoted(message)}::text ILIKE $${values.length}`)
  }
  for (const [name, value] of Object.entries(search.labels)) {
    const column = name === 'severity' && severity ? severity : labelColumns.includes(name) ? name : null
    if (!column) throw new LogInputError(`label "${name}" is not a column this backend filters on (${[...(severity ? ['severity'] : []), ...labelColumns].join(', ') || 'none'})`)
    values.push(value)
    where.push(`t.${quoted(column)}::text = $${values.length}`)
  }
  values.push(window.limit)
  return {
    text: `SELECT ${select.join(', ')} FROM ${quoted(String(block.table))} t WHERE ${where.join(' AND ')} ORDER BY t.${quoted(timestamp)} DESC LIMIT $${values.length}`,
    values,
  }
}

type Row = Record<string, unknown> & { log_timestamp: unknown; log_message: string | null; log_severity?: string | null }

function lineOf(row: Row, labelColumns: string[]): LogLine {
  const time = row.log_timestamp instanceof Date ? row.log_timestamp : new Date(String(row.log_timestamp))
  const labels: Record<string, string> = {}
  labelColumns.forEach((column, index) => {
    const value = row[`label_${index}`]
    if (value !== null && value !== undefined) labels[column] = String(value)
  })
  return {
    timestamp: Number.isNaN(time.getTime()) ? String(row.log_timestamp) : time.toISOString(),
    message: row.log_message ?? '',
    labels,
    ...(row.log_severity ? { severity: row.log_severity } : {}),
  }
}

async function queryRemote(url: string, statement: { text: string; values: unknown[] }, context: LogQueryContext): Promise<Row[]> {
  const config = postgresConfig(url)
  const client = new pg.Client({ ...config, connectionTimeoutMillis: STATEMENT_TIMEOUT_MS, statement_timeout: STATEMENT_TIMEOUT_MS, application_name: 'lookout-logs' })
  await admitPostgres(client, context.targets, config)
  // A server going away mid-query also emits 'error'; the query's rejection reports it.
  client.on('error', () => undefined)
  const abort = () => void client.end().catch(() => undefined)
  context.signal?.addEventListener('abort', abort, { once: true })
  try {
    await client.connect()
    const result = await client.query<Row>(statement.text, statement.values)
    return result.rows
  } finally {
    context.signal?.removeEventListener('abort', abort)
    await client.end().catch(() => undefined)
  }
}

export async function queryTable(block: Record<string, unknown>, search: TableSearch, window: LogWindow, context: LogQueryContext): Promise<LogLine[]> {
  const statement = tableQuery(block, search, window)
  const labelColumns = Array.isArray(block.labelColumns) ? (block.labelColumns as string[]) : []
  let rows: Row[]
  if (!block.url && !block.connection) {
    if (await context.targets.isRestricted()) {
      throw new LogInputError("a postgres backend without a url or connection reads Lookout's own database and runs only when someone holding the exec permission wrote it")
    }
    rows = (await context.db.query<Row>(statement.text, statement.values)).rows
  } else {
    const access = await resolveBackendAccess(block, context)
    if (!access.url) throw new LogInputError('spec.postgres needs a url or a connection')
    rows = await queryRemote(access.url, statement, context)
  }
  return rows.map((row) => lineOf(row, labelColumns))
}
