import { createHash } from 'node:crypto'
import type { Db, Queryable } from '#server/db/client.ts'
import { quoteIdent } from '#server/backend/postgrest/sql-builder.ts'
import type { Params } from '#server/backend/postgrest/sql-builder.ts'
import { isUnrestricted, type ConfigVisibility } from '#server/backend/catalog/config-access.ts'
import type { ViewColumn } from '#contract/views/view-document.ts'
import { COLUMN_SQL_TYPES } from './view-sql.ts'

/**
 * The materialised `view_<namespace>_<name>` table (data-model §11.4): one column per view column,
 * the reserved columns, and `__scope`, which names the row-level access the rows were evaluated
 * under, so the data API shows a narrowed caller only rows evaluated for that narrowing.
 */

export const RESERVED_COLUMNS: { name: string; definition: string }[] = [
  { name: '__row__attributes', definition: 'jsonb' },
  { name: '__grants', definition: 'jsonb' },
  { name: '__scope', definition: "text NOT NULL DEFAULT ''" },
  { name: 'request_fingerprint', definition: "text NOT NULL DEFAULT ''" },
  { name: 'agent_id', definition: "uuid DEFAULT '00000000-0000-0000-0000-000000000000'" },
  { name: 'is_pushed', definition: 'boolean DEFAULT false' },
]

/** '' for a caller who sees every config item; otherwise a short hash of what narrows them. */
export function visibilityScope(visibility: ConfigVisibility): string {
  if (isUnrestricted(visibility)) return ''
  return createHash('sha256').update(JSON.stringify(visibility)).digest('hex').slice(0, 16)
}

function columnDefinitions(columns: ViewColumn[]): { name: string; type: string }[] {
  return columns.filter((column) => !RESERVED_COLUMNS.some((reserved) => reserved.name === column.name)).map((column) => ({ name: column.name, type: COLUMN_SQL_TYPES[column.type] }))
}

// Per database (tests open several in one process): the column signature each table was made with.
const created = new WeakMap<Db, Map<string, string>>()

/**
 * Creates the table, or drops and re-creates it when the view's columns changed (its rows are a
 * cache). Returns true when the catalog changed, so the data API re-reads its schema.
 */
export async function ensureViewTable(db: Db, table: string, columns: ViewColumn[]): Promise<boolean> {
  const wanted = columnDefinitions(columns)
  const keys = columns.filter((column) => column.primaryKey).map((column) => column.name)
  // format_type's spelling, so a table made earlier compares equal.
  const spelled = (type: string) => (type === 'timestamptz' ? 'timestamp with time zone' : type)
  const signature = JSON.stringify([wanted.map((column) => ({ name: column.name, type: spelled(column.type) })), keys])
  let known = created.get(db)
  if (!known) created.set(db, (known = new Map()))
  if (known.get(table) === signature) return false
  const { rows } = await db.query<{ name: string; type: string; key: boolean }>(
    `SELECT a.attname AS name, format_type(a.atttypid, a.atttypmod) AS type,
       EXISTS (SELECT 1 FROM pg_index i WHERE i.indrelid = a.attrelid AND i.indisprimary AND a.attnum = ANY(i.indkey)) AS key
     FROM pg_attribute a WHERE a.attrelid = to_regclass($1) AND a.attnum > 0 AND NOT a.attisdropped ORDER BY a.attnum`,
    [`public.${table}`],
  )
  const existing = JSON.stringify([
    rows.filter((row) => !RESERVED_COLUMNS.some((reserved) => reserved.name === row.name)).map((row) => ({ name: row.name, type: row.type })),
    rows.filter((row) => row.key && row.name !== 'request_fingerprint').map((row) => row.name),
  ])
  if (rows.length > 0 && existing === signature) {
    known.set(table, signature)
    return false
  }
  const definitions = [
    ...wanted.map((column) => `${quoteIdent(column.name)} ${column.type}${keys.includes(column.name) ? ' NOT NULL' : ''}`),
    ...RESERVED_COLUMNS.map((column) => `${quoteIdent(column.name)} ${column.definition}`),
    `PRIMARY KEY (${[...keys, 'request_fingerprint'].map(quoteIdent).join(', ')})`,
  ]
  await db.transaction(async (tx) => {
    await tx.query(`DROP TABLE IF EXISTS public.${quoteIdent(table)}`)
    // Unlogged: the rows are a cache rebuilt by the next refresh, so they skip the WAL (a crash empties them).
    await tx.query(`CREATE UNLOGGED TABLE public.${quoteIdent(table)} (${definitions.join(', ')})`)
  })
  known.set(table, signature)
  return true
}

/** The cast of a source value into a view column's type (the fast path copies in SQL). */
export function castSql(expression: string, sourceType: string, column: ViewColumn): string {
  const target = COLUMN_SQL_TYPES[column.type]
  if (target === 'jsonb') return sourceType === 'jsonb' ? expression : `to_jsonb(${expression})`
  if (sourceType === 'jsonb' && target === 'text') return `(${expression} #>> '{}')`
  if (sourceType === 'interval' && target === 'bigint') return `(extract(epoch from ${expression}) * 1e9)::bigint`
  return `(${expression})::${target}`
}

/** Replaces the rows of one fingerprint with `rows` (JSON objects keyed by column name). */
export async function writeViewRows(tx: Queryable, table: string, columns: ViewColumn[], fingerprint: string, scope: string, rows: Record<string, unknown>[]): Promise<void> {
  const wanted = columnDefinitions(columns)
  await tx.query(`DELETE FROM public.${quoteIdent(table)} WHERE request_fingerprint = $1`, [fingerprint])
  if (rows.length === 0) return
  const names = [...wanted.map((column) => quoteIdent(column.name)), '"__row__attributes"']
  const record = [...wanted.map((column) => `${quoteIdent(column.name)} ${column.type}`), '"__row__attributes" jsonb'].join(', ')
  const json = JSON.stringify(rows, (_key, value: unknown) => (typeof value === 'bigint' ? Number(value) : value))
  await tx.query(
    `INSERT INTO public.${quoteIdent(table)} (${names.join(', ')}, request_fingerprint, "__scope")
     SELECT ${names.map((name) => `x.${name}`).join(', ')}, $2, $3 FROM jsonb_to_recordset($1::jsonb) AS x(${record})
     ON CONFLICT DO NOTHING`,
    [json, fingerprint, scope],
  )
}

/** Data API row guard for `view_*` tables: a narrowed caller reads only rows evaluated for that narrowing. */
export function viewRowGuard(visibility: ConfigVisibility) {
  if (isUnrestricted(visibility)) return null
  const scope = visibilityScope(visibility)
  return (relation: string, kind: 'table' | 'rpc', alias: string, params: Params): string | null =>
    kind === 'table' && /^view_[a-z0-9_]+$/.test(relation) && relation !== 'view_panels' ? `${alias}."__scope" = ${params.text(scope)}` : null
}
