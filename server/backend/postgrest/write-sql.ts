import { PostgrestError, bodyError } from './errors.ts'
import type { Preferences } from './negotiation.ts'
import { parseColumns } from './query-parser.ts'
import type { PlanNode } from './request-plan.ts'
import type { Column, Relation } from './schema-cache.ts'
import { quoteIdent, relationSql, whereConditions, type Params } from './sql-builder.ts'

/**
 * INSERT / UPDATE / DELETE as data-modifying CTEs (`_w`) whose RETURNING rows feed the same
 * projection as reads, so `select=` (embeds included) works on writes. JSON values reach the
 * columns through `jsonb_populate_record`, which converts JSON arrays to SQL arrays and keeps
 * objects for json/jsonb columns.
 */
export type ParsedBody = { text: string; rows: Record<string, unknown>[]; isArray: boolean }

export function parseJsonBody(raw: string): ParsedBody {
  let value: unknown
  try {
    value = JSON.parse(raw === '' ? '{}' : raw)
  } catch {
    throw bodyError('Empty or invalid json')
  }
  const isObject = (item: unknown): item is Record<string, unknown> =>
    typeof item === 'object' && item !== null && !Array.isArray(item)
  if (Array.isArray(value)) {
    if (!value.every(isObject)) throw bodyError('All object keys must match')
    return { text: raw, rows: value, isArray: true }
  }
  if (!isObject(value)) throw bodyError('Empty or invalid json')
  return { text: `[${raw === '' ? '{}' : raw}]`, rows: [value], isArray: false }
}

const TIMESTAMP_TYPES = new Set(['timestamp with time zone', 'timestamp without time zone', 'date'])

function payloadColumns(relation: Relation, body: ParsedBody, columnsParam: string | null): Column[] {
  let names: string[]
  if (columnsParam !== null) names = parseColumns(columnsParam)
  else {
    const seen = new Set<string>()
    for (const row of body.rows) for (const key of Object.keys(row)) seen.add(key)
    names = [...seen]
  }
  return names.map((name) => {
    const column = relation.columnsByName.get(name)
    if (!column) {
      throw new PostgrestError(400, 'PGRST204', `Could not find the '${name}' column of '${relation.name}' in the schema cache`)
    }
    return column
  })
}

/** The body rows as `_j` (jsonb) and `_rec` (the relation's row type), with `"now()"` made real. */
function rowsCte(relation: Relation, body: ParsedBody, columns: Column[], params: Params): string {
  let json = '_x._j'
  for (const column of columns) {
    if (!TIMESTAMP_TYPES.has(column.type)) continue
    if (!body.rows.some((row) => row[column.name] === 'now()')) continue
    const key = params.text(column.name)
    json = `(CASE WHEN ${json}->>${key} = 'now()' THEN jsonb_set(${json}, ARRAY[${key}], to_jsonb(now())) ELSE ${json} END)`
  }
  return `_rows AS (SELECT ${json} AS _j, _x._o, jsonb_populate_record(NULL::${relationSql(relation)}, ${json}) AS _rec FROM jsonb_array_elements(${params.text(body.text)}::jsonb) WITH ORDINALITY AS _x(_j, _o))`
}

export function insertCte(
  relation: Relation,
  body: ParsedBody,
  columnsParam: string | null,
  onConflict: string | null,
  prefs: Preferences,
  params: Params,
): string {
  const columns = payloadColumns(relation, body, columnsParam)
  const rows = rowsCte(relation, body, columns, params)
  const target = relationSql(relation)
  if (columns.length === 0) {
    return `${rows}, _w AS (INSERT INTO ${target} AS _t SELECT FROM _rows ORDER BY _o RETURNING _t.*)`
  }
  const names = columns.map((col) => quoteIdent(col.name)).join(', ')
  const values = columns
    .map((col) => {
      const value = `(_rec).${quoteIdent(col.name)}`
      if (!prefs.missingDefault) return value
      return `CASE WHEN _j ? ${params.text(col.name)} THEN ${value} ELSE ${col.defaultExpr ?? 'NULL'} END`
    })
    .join(', ')
  let conflict = ''
  if (prefs.resolution) {
    const keys = onConflict !== null ? parseColumns(onConflict) : relation.primaryKey
    if (keys.length === 0) {
      throw new PostgrestError(400, 'PGRST100', '"failed to parse on_conflict parameter"', `'${relation.name}' has no primary key; pass on_conflict`)
    }
    for (const key of keys) {
      if (!relation.columnsByName.has(key)) throw new PostgrestError(400, '42703', `column ${relation.name}.${key} does not exist`)
    }
    const updates = columns.filter((col) => !keys.includes(col.name))
    const action =
      prefs.resolution === 'ignore-duplicates' || updates.length === 0
        ? 'DO NOTHING'
        : `DO UPDATE SET ${updates.map((col) => `${quoteIdent(col.name)} = EXCLUDED.${quoteIdent(col.name)}`).join(', ')}`
    conflict = ` ON CONFLICT (${keys.map(quoteIdent).join(', ')}) ${action}`
  }
  return `${rows}, _w AS (INSERT INTO ${target} AS _t (${names}) SELECT ${values} FROM _rows ORDER BY _o${conflict} RETURNING _t.*)`
}

function targetConditions(node: PlanNode, params: Params, limit: number | null, ordered: string | null): string {
  const conditions = whereConditions(node, params)
  if (limit === null) return conditions.length ? ` WHERE ${conditions.join(' AND ')}` : ''
  // PostgREST's limited update/delete: restrict to the first N matching rows by physical id.
  const inner = `SELECT ${node.alias}.ctid FROM ${relationSql(node.relation)} ${node.alias}${conditions.length ? ` WHERE ${conditions.join(' AND ')}` : ''}${ordered ? ` ORDER BY ${ordered}` : ''} LIMIT ${params.text(String(limit))}::int8`
  return ` WHERE ${node.alias}.ctid = ANY(ARRAY(${inner}))`
}

export function requireFilters(node: PlanNode, limit: number | null, verb: 'UPDATE' | 'DELETE') {
  if (limit !== null) return
  if (node.filters.length || node.trees.length || node.embedNullFilters.length) return
  throw new PostgrestError(400, '21000', `${verb} requires a WHERE clause`, null, null)
}

export function updateCte(node: PlanNode, body: ParsedBody, params: Params, limit: number | null, ordered: string | null): string | null {
  const relation = node.relation
  const columns = payloadColumns(relation, body, null)
  if (columns.length === 0) return null
  const rows = rowsCte(relation, body, columns, params)
  const sets = columns.map((col) => `${quoteIdent(col.name)} = (_rows._rec).${quoteIdent(col.name)}`).join(', ')
  return `${rows}, _w AS (UPDATE ${relationSql(relation)} AS ${node.alias} SET ${sets} FROM _rows${targetConditions(node, params, limit, ordered)} RETURNING ${node.alias}.*)`
}

export function deleteCte(node: PlanNode, params: Params, limit: number | null, ordered: string | null): string {
  return `_w AS (DELETE FROM ${relationSql(node.relation)} AS ${node.alias}${targetConditions(node, params, limit, ordered)} RETURNING ${node.alias}.*)`
}
