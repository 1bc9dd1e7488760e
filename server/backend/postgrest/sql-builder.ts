import type { Field, Filter, LogicNode, LogicTree, OrderTerm } from './query-parser.ts'
import { treeLeafEmbed, type EmbedNode, type PlanNode } from './request-plan.ts'
import type { Column, Relation } from './schema-cache.ts'

/**
 * SQL generation. Identifiers come only from the schema cache and are always quoted; every
 * value (filter operands, JSON keys, limits) is a bound parameter passed as text and cast to
 * the column's type in SQL, so both engines (node-postgres and PGlite) bind them identically.
 */
export function quoteIdent(name: string): string {
  return `"${name.replace(/"/g, '""')}"`
}

export class Params {
  readonly values: (string | string[] | null)[] = []
  text(value: string): string {
    this.values.push(value)
    return `$${this.values.length}::text`
  }
  textArray(values: string[]): string {
    this.values.push(values)
    return `$${this.values.length}::text[]`
  }
}

export type Operand = { sql: string; type: string; category: string; baseType: string }

const TEXT_CATEGORIES = new Set(['S'])

/** Column (or JSON path into it) on `alias`; `->` yields jsonb, `->>` text. */
export function fieldOperand(alias: string, column: Column, field: Field, params: Params, forFilter: boolean): Operand {
  let sql = `${alias}.${quoteIdent(column.name)}`
  if (field.path.length === 0) return { sql, type: column.type, category: column.category, baseType: column.baseType }
  // Filters compare jsonb (json has no equality operator); projections keep the column's kind.
  if (forFilter && column.baseType === 'json') sql = `${sql}::jsonb`
  for (const step of field.path) {
    const key = step.index ? `${params.text(step.key)}::int` : params.text(step.key)
    sql = `${sql}${step.arrow}${key}`
  }
  const last = field.path[field.path.length - 1]!
  if (last.arrow === '->>') return { sql, type: 'text', category: 'S', baseType: 'text' }
  const json = column.baseType === 'json' && !forFilter ? 'json' : 'jsonb'
  return { sql, type: json, category: 'U', baseType: json }
}

function typed(operand: Operand, value: string, params: Params): string {
  return `${params.text(value)}::${operand.type}`
}

function asText(operand: Operand): string {
  return TEXT_CATEGORIES.has(operand.category) ? operand.sql : `${operand.sql}::text`
}

function likePattern(value: string): string {
  return value.replace(/\*/g, '%')
}

const COMPARISON: Record<string, string> = { eq: '=', neq: '<>', gt: '>', gte: '>=', lt: '<', lte: '<=' }
const CONTAINMENT: Record<string, string> = { cs: '@>', cd: '<@', ov: '&&', sl: '<<', sr: '>>', nxr: '&<', nxl: '&>', adj: '-|-' }
const FTS_FUNCTIONS: Record<string, string> = { fts: 'to_tsquery', plfts: 'plainto_tsquery', phfts: 'phraseto_tsquery', wfts: 'websearch_to_tsquery' }

export function filterSql(alias: string, relation: Relation, filter: Filter, params: Params): string {
  const column = relation.columnsByName.get(filter.field.name)!
  const operand = fieldOperand(alias, column, filter.field, params, true)
  const sql = positiveFilterSql(operand, filter, params)
  return filter.negate ? `NOT (${sql})` : sql
}

function positiveFilterSql(operand: Operand, filter: Filter, params: Params): string {
  const { operator, value } = filter
  if (filter.quantifier) {
    const list = value as string[]
    const quantifier = filter.quantifier === 'any' ? 'ANY' : 'ALL'
    switch (operator) {
      case 'like':
      case 'ilike':
        return `${asText(operand)} ${operator === 'like' ? 'LIKE' : 'ILIKE'} ${quantifier}(${params.textArray(list.map(likePattern))})`
      case 'match':
      case 'imatch':
        return `${asText(operand)} ${operator === 'match' ? '~' : '~*'} ${quantifier}(${params.textArray(list)})`
      default:
        return `${operand.sql} ${COMPARISON[operator]} ${quantifier}(${arrayOf(operand, list, params)})`
    }
  }
  switch (operator) {
    case 'eq':
    case 'neq':
    case 'gt':
    case 'gte':
    case 'lt':
    case 'lte':
      return `${operand.sql} ${COMPARISON[operator]} ${typed(operand, value as string, params)}`
    case 'like':
      return `${asText(operand)} LIKE ${params.text(likePattern(value as string))}`
    case 'ilike':
      return `${asText(operand)} ILIKE ${params.text(likePattern(value as string))}`
    case 'match':
      return `${asText(operand)} ~ ${params.text(value as string)}`
    case 'imatch':
      return `${asText(operand)} ~* ${params.text(value as string)}`
    case 'in': {
      const list = value as string[]
      if (operand.category === 'A') {
        return `${operand.sql} IN (SELECT _v::${operand.type} FROM unnest(${params.textArray(list)}) AS _v)`
      }
      return `${operand.sql} = ANY(${arrayOf(operand, list, params)})`
    }
    case 'is':
      switch (value) {
        case 'null':
          return `${operand.sql} IS NULL`
        case 'not_null':
          return `${operand.sql} IS NOT NULL`
        case 'true':
          return `${operand.sql} IS TRUE`
        case 'false':
          return `${operand.sql} IS FALSE`
        default:
          return `${operand.sql} IS UNKNOWN`
      }
    case 'isdistinct':
      return `${operand.sql} IS DISTINCT FROM ${typed(operand, value as string, params)}`
    case 'fts':
    case 'plfts':
    case 'phfts':
    case 'wfts': {
      const fn = FTS_FUNCTIONS[operator]
      const language = filter.language ? `${params.text(filter.language)}::regconfig, ` : ''
      const vector = operand.baseType === 'tsvector' ? operand.sql : `to_tsvector(${language}${asText(operand)})`
      return `${vector} @@ ${fn}(${language}${params.text(value as string)})`
    }
    default:
      return `${operand.sql} ${CONTAINMENT[operator]} ${typed(operand, value as string, params)}`
  }
}

function arrayOf(operand: Operand, list: string[], params: Params): string {
  return `${params.textArray(list)}::${operand.type}[]`
}

function treeSql(node: PlanNode, tree: LogicTree, params: Params): string {
  const parts = tree.children.map((child: LogicNode) => {
    if (child.kind !== 'filter') return treeSql(node, child, params)
    const leaf = treeLeafEmbed(node, child.filter)
    if (leaf) return `${leaf.isNull ? 'NOT ' : ''}${existsSql(node.alias, leaf.embed, params)}`
    return filterSql(node.alias, node.relation, child.filter, params)
  })
  const joined = `(${parts.join(tree.kind === 'and' ? ' AND ' : ' OR ')})`
  return tree.negate ? `NOT ${joined}` : joined
}

/** The join condition linking an embed (`child.alias`) to its parent row (`parentAlias`). */
function joinConditions(parentAlias: string, embed: EmbedNode): { from: string; conditions: string[] } {
  const rel = embed.relationship
  const target = `${relationSql(embed.relation)} ${embed.alias}`
  if (rel.junction) {
    const j = embed.junctionAlias!
    const junctionConditions = [
      ...rel.junction.sourceJoinColumns.map((col, i) => `${j}.${quoteIdent(col)} = ${parentAlias}.${quoteIdent(rel.sourceColumns[i]!)}`),
      ...rel.junction.targetJoinColumns.map((col, i) => `${j}.${quoteIdent(col)} = ${embed.alias}.${quoteIdent(rel.targetColumns[i]!)}`),
    ]
    return {
      from: target,
      conditions: [`EXISTS (SELECT 1 FROM ${relationSql(rel.junction.relation)} ${j} WHERE ${junctionConditions.join(' AND ')})`],
    }
  }
  return {
    from: target,
    conditions: rel.sourceColumns.map(
      (col, i) => `${embed.alias}.${quoteIdent(rel.targetColumns[i]!)} = ${parentAlias}.${quoteIdent(col)}`,
    ),
  }
}

export function relationSql(relation: Relation): string {
  return `${quoteIdent(relation.schema)}.${quoteIdent(relation.name)}`
}

/** WHERE conditions of a level: filters, logic trees, `!inner` and `embed=is.null` checks. */
export function whereConditions(node: PlanNode, params: Params): string[] {
  const conditions: string[] = []
  for (const filter of node.filters) conditions.push(filterSql(node.alias, node.relation, filter, params))
  for (const tree of node.trees) conditions.push(treeSql(node, tree, params))
  if (node.guard) conditions.push(node.guard(params))
  for (const embed of node.embeds.values()) {
    const explicit = node.embedNullFilters.find((item) => item.node === embed)
    if (explicit) conditions.push(`${explicit.isNull ? 'NOT ' : ''}${existsSql(node.alias, embed, params)}`)
    else if (embed.join === 'inner') conditions.push(existsSql(node.alias, embed, params))
  }
  return conditions
}

function existsSql(parentAlias: string, embed: EmbedNode, params: Params): string {
  const { from, conditions } = joinConditions(parentAlias, embed)
  const all = [...conditions, ...whereConditions(embed, params)]
  return `EXISTS (SELECT 1 FROM ${from} WHERE ${all.join(' AND ')})`
}

function orderSql(node: PlanNode, terms: OrderTerm[], params: Params): string {
  return terms
    .map((term) => {
      let expression: string
      if (term.embed) {
        const embed = node.embeds.get(term.embed)!
        const column = embed.relation.columnsByName.get(term.field.name)!
        const { from, conditions } = joinConditions(node.alias, embed)
        const operand = fieldOperand(embed.alias, column, term.field, params, false)
        // A row the caller may not see must not order the parent either.
        if (embed.guard) conditions.push(embed.guard(params))
        expression = `(SELECT ${operand.sql} FROM ${from} WHERE ${conditions.join(' AND ')} LIMIT 1)`
      } else {
        const column = node.relation.columnsByName.get(term.field.name)!
        expression = fieldOperand(node.alias, column, term.field, params, false).sql
      }
      const direction = term.direction === 'desc' ? ' DESC' : term.direction === 'asc' ? ' ASC' : ''
      const nulls = term.nulls === 'first' ? ' NULLS FIRST' : term.nulls === 'last' ? ' NULLS LAST' : ''
      return `${expression}${direction}${nulls}`
    })
    .join(', ')
}

/** Select list of a level: `*`, columns with JSON paths and casts, and embeds as correlated subqueries. */
export function projection(node: PlanNode, params: Params): string {
  const parts: string[] = []
  for (const item of node.items) {
    if (item.kind === 'star') parts.push(`${node.alias}.*`)
    else if (item.kind === 'column') {
      const operand = fieldOperand(node.alias, item.column, item.item.field, params, false)
      const cast = item.item.cast ? `::${castType(item.item.cast)}` : ''
      parts.push(`${cast ? `(${operand.sql})` : operand.sql}${cast} AS ${quoteIdent(item.output)}`)
    } else if (item.node.spread) {
      parts.push(...spreadProjection(node.alias, item.node, params))
    } else {
      parts.push(`${embedSql(node.alias, item.node, params)} AS ${quoteIdent(item.node.output)}`)
    }
  }
  return parts.join(', ')
}

function castType(cast: string): string {
  return cast.endsWith('[]') ? `${quoteIdent(cast.slice(0, -2))}[]` : quoteIdent(cast)
}

/** ORDER BY expressions of a level, or null when it has none. */
export function orderClause(node: PlanNode, params: Params): string | null {
  return node.order.length ? orderSql(node, node.order, params) : null
}

function levelTail(node: PlanNode, params: Params): string {
  let sql = ''
  if (node.order.length) sql += ` ORDER BY ${orderSql(node, node.order, params)}`
  if (node.limit !== null) sql += ` LIMIT ${params.text(String(node.limit))}::int8`
  if (node.offset !== null) sql += ` OFFSET ${params.text(String(node.offset))}::int8`
  return sql
}

function embedSql(parentAlias: string, embed: EmbedNode, params: Params): string {
  const { from, conditions } = joinConditions(parentAlias, embed)
  const all = [...conditions, ...whereConditions(embed, params)]
  const inner = `SELECT ${projection(embed, params)} FROM ${from} WHERE ${all.join(' AND ')}${levelTail(embed, params)}`
  const card = embed.relationship.cardinality
  if (card === 'o2m' || card === 'm2m') {
    return `(SELECT coalesce(json_agg(_e), '[]') FROM (${inner}) _e)`
  }
  return `(SELECT row_to_json(_e) FROM (${inner} LIMIT 1) _e)`
}

function spreadProjection(parentAlias: string, embed: EmbedNode, params: Params): string[] {
  const { from, conditions } = joinConditions(parentAlias, embed)
  const where = [...conditions, ...whereConditions(embed, params)].join(' AND ')
  const names: string[] = []
  for (const item of embed.items) {
    if (item.kind === 'star') names.push(...embed.relation.columns.map((col) => col.name))
    else if (item.kind === 'column') names.push(item.output)
    else names.push(item.node.output)
  }
  // One subquery yields the whole row as json; each spread key is read back out of it.
  const row = `(SELECT row_to_json(_e) FROM (SELECT ${projection(embed, params)} FROM ${from} WHERE ${where} LIMIT 1) _e)`
  if (names.length === 1) {
    return [`(${row}->${params.text(names[0]!)}) AS ${quoteIdent(names[0]!)}`]
  }
  const holder = `_s${embed.alias}`
  return names.map((name) => `(SELECT ${holder}.r->${params.text(name)} FROM (SELECT ${row} AS r) ${holder}) AS ${quoteIdent(name)}`)
}

export type ReadSql = {
  /** Rows of this level as a subquery producing the output columns. */
  rows: string
  /** FROM … WHERE … of the root without order/paging (for counts). */
  countFrom: string
}

/** Root level: `source` is the FROM item (a relation or a function call), aliased as the root alias. */
export function readSql(node: PlanNode, source: string, params: Params, maxRows: number | null): ReadSql {
  const where = whereConditions(node, params)
  const whereSql = where.length ? ` WHERE ${where.join(' AND ')}` : ''
  const limit = maxRows !== null ? (node.limit === null ? maxRows : Math.min(node.limit, maxRows)) : node.limit
  let tail = ''
  if (node.order.length) tail += ` ORDER BY ${orderSql(node, node.order, params)}`
  if (limit !== null) tail += ` LIMIT ${params.text(String(limit))}::int8`
  if (node.offset !== null && node.offset > 0) tail += ` OFFSET ${params.text(String(node.offset))}::int8`
  return {
    rows: `SELECT ${projection(node, params)} FROM ${source} ${node.alias}${whereSql}${tail}`,
    countFrom: `FROM ${source} ${node.alias}${whereSql}`,
  }
}

/** Output column names in order, for the CSV header. */
export function outputNames(node: PlanNode): string[] {
  const names: string[] = []
  for (const item of node.items) {
    if (item.kind === 'star') names.push(...node.relation.columns.map((col) => col.name))
    else if (item.kind === 'column') names.push(item.output)
    else if (item.node.spread) names.push(...outputNames(item.node))
    else names.push(item.node.output)
  }
  return names
}

export type BodyFormat = 'array' | 'object' | 'csv'

/** Wraps a row subquery into one row: page size and the response body as text. */
export function bodySelect(rows: string, format: BodyFormat, csvHeader: string[] | null, params: Params, total: string | null): string {
  let body: string
  if (format === 'csv') {
    const header = params.text((csvHeader ?? []).map(csvField).join(','))
    body = `${header} || coalesce(E'\\n' || string_agg(substr(_r::text, 2, length(_r::text) - 2), E'\\n'), '')`
  } else if (format === 'object') {
    body = `CASE WHEN count(*) = 1 THEN (json_agg(_r)->0)::text END`
  } else {
    body = `coalesce(json_agg(_r), '[]')::text`
  }
  return `SELECT count(*)::int8 AS page, ${body} AS body${total ? `, ${total} AS total` : ''} FROM (${rows}) _r`
}

function csvField(name: string): string {
  return /[",\n\r]/.test(name) ? `"${name.replace(/"/g, '""')}"` : name
}
