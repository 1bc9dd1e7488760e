import type { Queryable } from '#server/db/client.ts'
import { quoteIdent } from '#server/backend/postgrest/sql-builder.ts'
import type { ViewColumnType } from '#contract/views/view-document.ts'

/**
 * The SQL side of a view evaluation: per-query temporary tables, and the authors' `merge` and
 * panel SQL run over them. That SQL is the view author's, so it runs as one statement (the
 * extended protocol refuses a second), in a read-only transaction, as `lookout_view_reader`
 * (migration 0310) which may read only the temporary tables granted to it.
 */

export class ViewQueryError extends Error {
  readonly status = 400
}

/** PostgreSQL type of each column type of the reference (data-model §11.4). */
export const COLUMN_SQL_TYPES: Record<ViewColumnType, string> = {
  string: 'text',
  health: 'text',
  status: 'text',
  number: 'numeric',
  boolean: 'boolean',
  datetime: 'timestamptz',
  duration: 'bigint',
  bytes: 'bigint',
  gauge: 'double precision',
  millicore: 'double precision',
  labels: 'jsonb',
  decimal: 'text',
  config_item: 'text',
}

/** Most rows one merge, panel or mapping read returns. */
export const MAX_VIEW_ROWS = 1_000_000

/** Query names become table names: letters, digits and _ (the View schema), lower-cased as PostgreSQL folds them. */
export const queryTable = (name: string) => quoteIdent(name.toLowerCase())

/**
 * A statement that reads: SELECT, WITH, VALUES or TABLE, and none of the ways a statement could
 * change the session's role (set_config) or hide a name from this check (U& escapes).
 */
export function assertReadQuery(sql: string, field: string): string {
  const text = sql.replace(/--[^\n]*/g, ' ').replace(/\/\*[\s\S]*?\*\//g, ' ').trim().replace(/;\s*$/, '')
  if (!/^(select|with|values|table)\b/i.test(text)) throw new ViewQueryError(`${field}: must be a SELECT query`)
  if (/set_config|\bu&/i.test(text)) throw new ViewQueryError(`${field}: set_config and U& names are not allowed`)
  return text
}

/** Whether this database has the sandbox role and the session may take it. */
export async function sandboxAvailable(tx: Queryable): Promise<boolean> {
  const { rows } = await tx.query<{ ok: boolean }>(
    `SELECT EXISTS (SELECT 1 FROM pg_roles WHERE rolname = 'lookout_view_reader') AND pg_has_role(current_user, 'lookout_view_reader', 'MEMBER') AS ok`,
  ).catch(() => ({ rows: [{ ok: false }] }))
  return rows[0]?.ok ?? false
}

/** Column definitions for rows of unknown shape: types from the query's `columns`, else from the values. */
export function inferColumns(rows: Record<string, unknown>[], declared: Record<string, ViewColumnType> = {}): { name: string; type: string }[] {
  const names = new Map<string, string>()
  for (const row of rows) {
    for (const [key, value] of Object.entries(row)) {
      const known = names.get(key)
      const type = declared[key] ? COLUMN_SQL_TYPES[declared[key]] : sqlTypeOf(value)
      if (known === undefined || known === 'unknown') names.set(key, type)
      else if (known !== type && type !== 'unknown') names.set(key, known === 'double precision' && type === 'bigint' ? known : type === 'double precision' && known === 'bigint' ? type : 'text')
    }
  }
  return [...names.entries()].map(([name, type]) => ({ name, type: type === 'unknown' ? 'text' : type }))
}

function sqlTypeOf(value: unknown): string {
  if (value === null || value === undefined) return 'unknown'
  if (typeof value === 'boolean') return 'boolean'
  if (typeof value === 'number') return Number.isInteger(value) ? 'bigint' : 'double precision'
  if (typeof value === 'bigint') return 'bigint'
  if (typeof value === 'object') return 'jsonb'
  return 'text'
}

/** Rows fetched outside the database into a temporary table, bound as one JSON parameter. */
export async function loadRows(tx: Queryable, table: string, rows: Record<string, unknown>[], declared?: Record<string, ViewColumnType>): Promise<void> {
  const columns = inferColumns(rows, declared)
  if (columns.length === 0) {
    await tx.query(`CREATE TEMP TABLE ${queryTable(table)} (__empty boolean) ON COMMIT DROP`)
    return
  }
  const definitions = columns.map((column) => `${quoteIdent(column.name)} ${column.type}`).join(', ')
  await tx.query(`CREATE TEMP TABLE ${queryTable(table)} (${definitions}) ON COMMIT DROP`)
  // jsonb_to_recordset reads scalars of jsonb columns as they are and coerces the rest from text.
  const json = JSON.stringify(rows, (_key, value: unknown) => (typeof value === 'bigint' ? Number(value) : value))
  await tx.query(`INSERT INTO ${queryTable(table)} SELECT * FROM jsonb_to_recordset($1::jsonb) AS x(${definitions})`, [json])
}

/**
 * From here on the transaction only reads, as the sandbox role when there is one: called once,
 * after the last write of an evaluation and before the first of the authors' statements.
 */
export async function enterReadOnly(tx: Queryable, sandbox: boolean, tables: string[]): Promise<void> {
  if (sandbox) {
    for (const table of tables) await tx.query(`GRANT SELECT ON ${queryTable(table)} TO lookout_view_reader`)
    await tx.query('SET LOCAL ROLE lookout_view_reader')
  }
  await tx.query('SET TRANSACTION READ ONLY')
}

/** The author's SQL as one read (enterReadOnly first). */
export async function readAuthorSql(tx: Queryable, sql: string, field: string): Promise<Record<string, unknown>[]> {
  const text = assertReadQuery(sql, field)
  try {
    // A bound parameter keeps the statement single (the extended protocol has no second one);
    // rows as JSON keep numbers numbers (drivers hand numeric and bigint over as text).
    const { rows } = await tx.query<{ row: Record<string, unknown> }>(`SELECT row_to_json(__view_query) AS row FROM (${text}) AS __view_query LIMIT $1::bigint`, [MAX_VIEW_ROWS])
    return rows.map((entry) => (typeof entry.row === 'string' ? (JSON.parse(entry.row) as Record<string, unknown>) : entry.row))
  } catch (error) {
    throw new ViewQueryError(`${field}: ${(error as Error).message}`)
  }
}
