import { PostgrestError, parseError, unknownColumn } from './errors.ts'
import {
  parseFilterExpression,
  parseFilterField,
  parseLogicTree,
  parseNonNegativeInt,
  parseOrder,
  parseSelect,
  type Filter,
  type LogicTree,
  type OrderTerm,
  type SelectItem,
} from './query-parser.ts'
import type { Column, Relation, Relationship, SchemaCache } from './schema-cache.ts'

/**
 * Turns the query string into a tree of resolved nodes: the root relation and each embedded
 * resource, with the relationship used to reach it and the filters, logic trees, order and
 * paging that apply at that level. Every name is checked against the schema cache here, so SQL
 * generation only ever sees known identifiers.
 */
export type QueryParams = {
  select: string | null
  columns: string | null
  onConflict: string | null
  /** Filters, logic trees and paging keyed by embed path ('' = root). */
  levels: Map<string, LevelParams>
  /** `key=value` pairs left over for RPC argument matching (GET /rpc). */
  pairs: [string, string][]
}

export type LevelParams = {
  filters: { path: string[]; field: string; value: string }[]
  trees: LogicTree[]
  order: OrderTerm[] | null
  limit: number | null
  offset: number | null
}

const RESERVED_ROOT = new Set(['select', 'columns', 'on_conflict'])
const LEVEL_KEYS = ['order', 'limit', 'offset', 'or', 'and', 'not.or', 'not.and'] as const

function newLevel(): LevelParams {
  return { filters: [], trees: [], order: null, limit: null, offset: null }
}

/** Splits `a.b.col->x.y` into the embed path and the field: dots after the first arrow belong to the field. */
function splitPath(key: string): string[] {
  const arrow = key.indexOf('->')
  const head = arrow === -1 ? key : key.slice(0, arrow)
  const tail = arrow === -1 ? '' : key.slice(arrow)
  const parts: string[] = []
  let current = ''
  let quoted = false
  for (const char of head) {
    if (char === '"') quoted = !quoted
    if (char === '.' && !quoted) {
      parts.push(current)
      current = ''
    } else current += char
  }
  parts.push(current + tail)
  return parts
}

export function classifyParams(search: string, argumentNames?: Set<string>): QueryParams {
  const params: QueryParams = { select: null, columns: null, onConflict: null, levels: new Map(), pairs: [] }
  const level = (path: string) => {
    let found = params.levels.get(path)
    if (!found) params.levels.set(path, (found = newLevel()))
    return found
  }
  level('')
  for (const [key, value] of new URLSearchParams(search)) {
    if (RESERVED_ROOT.has(key)) {
      if (key === 'select') params.select = value
      else if (key === 'columns') params.columns = value
      else params.onConflict = value
      continue
    }
    if (argumentNames?.has(key)) {
      params.pairs.push([key, value])
      continue
    }
    let handled = false
    for (const special of LEVEL_KEYS) {
      if (key !== special && !key.endsWith(`.${special}`)) continue
      // `not.or` must not be read as an embed called `not` with key `or`.
      if (special === 'or' || special === 'and') {
        if (key === `not.${special}` || key.endsWith(`.not.${special}`)) continue
      }
      const path = key === special ? '' : key.slice(0, key.length - special.length - 1)
      const target = level(path)
      handled = true
      if (special === 'order') target.order = parseOrder(value)
      else if (special === 'limit') target.limit = parseNonNegativeInt(value, 'limit')
      else if (special === 'offset') target.offset = parseNonNegativeInt(value, 'offset')
      else {
        const negate = special.startsWith('not.')
        target.trees.push(parseLogicTree(negate ? (special.slice(4) as 'and' | 'or') : (special as 'and' | 'or'), negate, value))
      }
      break
    }
    if (handled) continue
    const parts = splitPath(key)
    const field = parts.pop()!
    if (field === '') throw parseError(`"failed to parse filter (${key})"`, 'empty column name')
    level(parts.join('.')).filters.push({ path: parts, field, value })
  }
  return params
}

export type ResolvedColumn = { kind: 'column'; item: Extract<SelectItem, { kind: 'column' }>; column: Column; output: string }
export type ResolvedItem = { kind: 'star' } | ResolvedColumn | { kind: 'embed'; node: EmbedNode }

export type PlanNode = {
  relation: Relation
  /** SQL alias of this level (`_t0`, `_t1`, …). */
  alias: string
  items: ResolvedItem[]
  filters: Filter[]
  /** `embed=is.null` / `embed=not.is.null` on a child embed. */
  embedNullFilters: { node: EmbedNode; isNull: boolean }[]
  trees: LogicTree[]
  order: OrderTerm[]
  limit: number | null
  offset: number | null
  embeds: Map<string, EmbedNode>
  /**
   * Row-level access: a condition every row of this level must meet (set by the router's
   * rowGuard), its values bound through the statement's parameters (sql-builder's `Params`).
   */
  guard?: (params: GuardParams) => string
}

/** What a row guard may bind: sql-builder's `Params`, named here so the plan does not import the builder. */
export type GuardParams = { readonly values: (string | string[] | null)[]; text(value: string): string; textArray(values: string[]): string }

export type EmbedNode = PlanNode & {
  relationship: Relationship
  join: 'inner' | 'left'
  spread: boolean
  output: string
  junctionAlias: string | null
}

export function outputName(item: Extract<SelectItem, { kind: 'column' }>): string {
  if (item.alias) return item.alias
  const last = item.field.path[item.field.path.length - 1]
  return last ? last.key : item.field.name
}

export function requireColumn(relation: Relation, name: string): Column {
  const column = relation.columnsByName.get(name)
  if (!column) throw unknownColumn(relation.name, name)
  return column
}

function describe(rel: Relationship) {
  const cardinality = rel.cardinality === 'o2o' ? 'one-to-one' : rel.cardinality === 'm2o' ? 'many-to-one' : rel.cardinality === 'o2m' ? 'one-to-many' : 'many-to-many'
  const relationship = rel.junction
    ? `${rel.junction.constraintToSource} and ${rel.junction.constraintToTarget} using ${rel.junction.relation.name}`
    : `${rel.constraint} using ${rel.source.name}(${rel.sourceColumns.join(', ')}) and ${rel.target.name}(${rel.targetColumns.join(', ')})`
  return { cardinality, embedding: `${rel.source.name} with ${rel.target.name}`, relationship }
}

/** PostgREST's embed resolution: by target name, FK column, or constraint name; narrowed by the hint. */
export function findRelationship(cache: SchemaCache, parent: Relation, name: string, hint: string | null): Relationship {
  const all = cache.relationshipsFrom(parent.name)
  let candidates = all.filter((rel) => {
    if (rel.target.name === name) return true
    if (rel.cardinality === 'm2m') return false
    if (rel.constraint === name) return true
    const toOne = rel.cardinality === 'm2o' || (rel.cardinality === 'o2o' && rel.sourceColumns.length === 1)
    return toOne && rel.sourceColumns.length === 1 && rel.sourceColumns[0] === name
  })
  if (hint !== null) {
    candidates = candidates.filter((rel) => {
      if (rel.junction) return rel.junction.relation.name === hint || rel.junction.constraintToSource === hint || rel.junction.constraintToTarget === hint
      if (rel.constraint === hint) return true
      if (rel.sourceColumns.length === 1 && rel.sourceColumns[0] === hint) return true
      return rel.targetColumns.length === 1 && rel.targetColumns[0] === hint
    })
  }
  // A column-named embed (`created_by(...)`) prefers the to-one link through that column.
  if (candidates.length > 1 && hint === null) {
    const byColumn = candidates.filter((rel) => rel.target.name !== name && rel.sourceColumns[0] === name)
    if (byColumn.length === 1) candidates = byColumn
  }
  // Views re-exposing a table's keys multiply the candidates; like PostgREST, a single
  // candidate whose target is a plain table wins over those that go through views.
  if (candidates.length > 1) {
    const isTable = (relation: Relation) => relation.kind === 'table' || relation.kind === 'partitioned_table'
    const tablesOnly = candidates.filter((rel) => isTable(rel.target))
    if (tablesOnly.length === 1) candidates = tablesOnly
  }
  if (candidates.length === 1) return candidates[0]!
  if (candidates.length === 0) {
    const schema = cache.schema
    throw new PostgrestError(
      400,
      'PGRST200',
      `Could not find a relationship between '${parent.name}' and '${name}' in the schema cache`,
      `Searched for a foreign key relationship between '${parent.name}' and '${name}'${hint ? ` using the hint '${hint}'` : ''} in the schema '${schema}', but no matches were found.`,
      null,
    )
  }
  throw new PostgrestError(
    300,
    'PGRST201',
    `Could not embed because more than one relationship was found for '${parent.name}' and '${name}'`,
    candidates.map(describe),
    `Try changing '${name}' to one of the following: ${candidates
      .map((rel) => `'${rel.target.name}!${rel.junction ? rel.junction.relation.name : rel.constraint}'`)
      .join(', ')}. Find the desired relationship in the 'details' key.`,
  )
}

export class AliasCounter {
  private next = 0
  take(prefix = '_t'): string {
    return `${prefix}${this.next++}`
  }
}

export function buildPlan(
  cache: SchemaCache,
  root: Relation,
  params: QueryParams,
  aliases: AliasCounter,
  options: { allowEmbeds: boolean } = { allowEmbeds: true },
): PlanNode {
  const select = parseSelect(params.select ?? '*')
  const node = resolveNode(cache, root, select, aliases, options.allowEmbeds)
  attachLevels(node, params)
  return node
}

function resolveNode(cache: SchemaCache, relation: Relation, select: SelectItem[], aliases: AliasCounter, allowEmbeds: boolean): PlanNode {
  const node: PlanNode = {
    relation,
    alias: aliases.take(),
    items: [],
    filters: [],
    embedNullFilters: [],
    trees: [],
    order: [],
    limit: null,
    offset: null,
    embeds: new Map(),
  }
  for (const item of select) {
    if (item.kind === 'star') node.items.push(item)
    else if (item.kind === 'column') {
      node.items.push({ kind: 'column', item, column: requireColumn(relation, item.field.name), output: outputName(item) })
    } else {
      if (!allowEmbeds) throw parseError('"failed to parse select parameter"', 'embedding is not available here')
      const relationship = findRelationship(cache, relation, item.name, item.hint)
      const child = resolveNode(cache, relationship.target, item.select, aliases, true)
      const embed: EmbedNode = {
        ...child,
        relationship,
        join: item.join ?? 'left',
        spread: item.spread,
        output: item.alias ?? item.name,
        junctionAlias: relationship.junction ? aliases.take('_j') : null,
      }
      if (embed.spread && (relationship.cardinality === 'o2m' || relationship.cardinality === 'm2m')) {
        throw new PostgrestError(
          400,
          'PGRST119',
          'A spread operation on a to-many relationship is not supported',
          `'${relation.name}' and '${relationship.target.name}' do not form a many-to-one or one-to-one relationship`,
        )
      }
      node.items.push({ kind: 'embed', node: embed })
      node.embeds.set(embed.output, embed)
    }
  }
  return node
}

function findLevel(root: PlanNode, path: string): PlanNode | undefined {
  if (path === '') return root
  let current: PlanNode | undefined = root
  for (const part of splitPath(path)) {
    current = current?.embeds.get(part)
    if (!current) return undefined
  }
  return current
}

function attachLevels(root: PlanNode, params: QueryParams) {
  for (const [path, level] of params.levels) {
    const node = findLevel(root, path)
    if (!node) {
      const hasContent = level.filters.length || level.trees.length || level.order || level.limit !== null || level.offset !== null
      if (!hasContent) continue
      throw new PostgrestError(400, 'PGRST108', `'${path}' is not an embedded resource in this request`, null, `Verify that '${path}' is included in the 'select' query parameter.`)
    }
    for (const raw of level.filters) {
      const embed = node.embeds.get(raw.field)
      if (embed && !raw.field.includes('->')) {
        const filter = parseFilterExpression({ name: raw.field, path: [] }, raw.value, false)
        node.embedNullFilters.push({ node: embed, isNull: embedNullCheck(filter, raw.value) })
        continue
      }
      const filter = parseFilterExpression(parseFilterField(raw.field), raw.value, false)
      requireColumn(node.relation, filter.field.name)
      node.filters.push(filter)
    }
    for (const tree of level.trees) {
      checkTree(node, tree)
      node.trees.push(tree)
    }
    if (level.order) {
      for (const term of level.order) {
        if (term.embed) {
          const embed = node.embeds.get(term.embed)
          if (!embed) throw new PostgrestError(400, 'PGRST108', `'${term.embed}' is not an embedded resource in this request`, null, null)
          const card = embed.relationship.cardinality
          if (card === 'o2m' || card === 'm2m') {
            throw new PostgrestError(400, 'PGRST118', `A related order on '${term.embed}' is not possible`, `'${node.relation.name}' and '${embed.relationship.target.name}' do not form a many-to-one or one-to-one relationship`)
          }
          requireColumn(embed.relation, term.field.name)
        } else requireColumn(node.relation, term.field.name)
      }
      node.order = level.order
    }
    node.limit = level.limit
    node.offset = level.offset
  }
}

/** Whether `embed.is.null` (true) or `embed.not.is.null` (false); any other filter on an embed is refused. */
function embedNullCheck(filter: Filter, text: string): boolean {
  if (filter.operator !== 'is' || (filter.value !== 'null' && filter.value !== 'not_null')) {
    throw parseError(`"failed to parse filter (${text})"`, 'only is.null or not.is.null filters are allowed on embedded resources')
  }
  return (filter.value === 'null') !== filter.negate
}

/**
 * The embed a logic-tree leaf tests for presence (`or=(name.eq.x,config.not.is.null)`), as
 * PostgREST allows, or null for a leaf on the level's own column. An embed wins over a column of
 * the same name, as it does for plain filters.
 */
export function treeLeafEmbed(node: PlanNode, filter: Filter): { embed: EmbedNode; isNull: boolean } | null {
  if (filter.field.path.length > 0) return null
  const embed = node.embeds.get(filter.field.name)
  if (!embed) return null
  return { embed, isNull: embedNullCheck(filter, `${filter.field.name}.${filter.negate ? 'not.' : ''}${filter.operator}`) }
}

function checkTree(node: PlanNode, tree: LogicTree) {
  for (const child of tree.children) {
    if (child.kind === 'filter') {
      if (!treeLeafEmbed(node, child.filter)) requireColumn(node.relation, child.filter.field.name)
    } else checkTree(node, child)
  }
}

/**
 * Every relation a plan reads besides its root, each once, in the order first met: embedded
 * resources at every depth (filters, logic trees and related order can only name embeds of the
 * select, so those are all here) and the junctions many-to-many embeds test. An embed of the
 * root's own relation is listed too: the root's answer may rest on its id filter, which says
 * nothing about the embedded rows.
 */
export function relatedRelations(root: PlanNode): Relation[] {
  const found = new Map<string, Relation>()
  const visit = (node: PlanNode) => {
    const embeds = new Set<EmbedNode>(node.embeds.values())
    for (const item of node.items) if (item.kind === 'embed') embeds.add(item.node)
    for (const embed of embeds) {
      if (!found.has(embed.relation.name)) found.set(embed.relation.name, embed.relation)
      const junction = embed.relationship.junction?.relation
      if (junction && !found.has(junction.name)) found.set(junction.name, junction)
      visit(embed)
    }
  }
  visit(root)
  return [...found.values()]
}
