import { z } from 'zod'
import type { Db } from '#server/db/client.ts'
import { Params } from '#server/backend/postgrest/sql-builder.ts'
import { isUuid } from '#contract/uuid.ts'
import { CatalogInputError, filterExpressionSql, parseDateMath, parseSelector, selectorSql } from './catalog-input.ts'
import { visibleItemSql, type ConfigVisibility } from './config-access.ts'

/**
 * `POST /api/resources/search` (http-api.md §2.2.3): resource selectors per kind, including the
 * search grammar `name=web* type=Kubernetes::Pod health=healthy,warning`.
 */

export const SelectorSchema = z.object({
  id: z.string().optional(),
  name: z.string().optional(),
  namespace: z.string().optional(),
  agent: z.string().optional(),
  scope: z.string().optional(),
  search: z.string().max(2000).optional(),
  cache: z.string().optional(),
  limit: z.number().int().min(1).optional(),
  includeDeleted: z.boolean().optional(),
  tagSelector: z.string().optional(),
  labelSelector: z.string().optional(),
  fieldSelector: z.string().optional(),
  health: z.string().optional(),
  types: z.array(z.string()).optional(),
  statuses: z.array(z.string()).optional(),
})
export type Selector = z.infer<typeof SelectorSchema>

export const SEARCH_KINDS = ['configs', 'components', 'checks', 'canaries', 'config_changes', 'config_analysis', 'playbooks', 'connections'] as const
export type SearchKind = (typeof SEARCH_KINDS)[number]

const selectors = z.array(SelectorSchema).max(50).optional()
export const SearchRequestSchema = z.object({
  limit: z.number().int().min(1).optional(),
  timestamps: z.boolean().optional(),
  ...(Object.fromEntries(SEARCH_KINDS.map((kind) => [kind, selectors])) as Record<SearchKind, typeof selectors>),
})
export type SearchRequest = z.infer<typeof SearchRequestSchema>

export const DEFAULT_SEARCH_LIMIT = 50
export const MAX_SEARCH_LIMIT = 1000
const NIL_AGENT = '00000000-0000-0000-0000-000000000000'

/**
 * How one kind is read: its FROM clause (aliased `r`) and the SQL of each field a selector can
 * name (null: the kind has no such field, and a selector on it matches nothing). `configItem`
 * names the joined config item whose row-level access applies.
 */
type KindSource = {
  from: string
  /** The permission object a caller must read to see this kind. */
  object: string
  fields: Record<'id' | 'name' | 'namespace' | 'type' | 'health' | 'status' | 'agent' | 'tags' | 'labels' | 'deleted_at' | 'created_at' | 'updated_at', string | null>
  severity?: string
  configItem?: string
}

const KINDS: Record<SearchKind, KindSource> = {
  configs: {
    from: 'public.config_items r',
    object: 'catalog',
    fields: { id: 'r.id', name: 'r.name', namespace: "(r.tags ->> 'namespace')", type: 'r.type', health: 'r.health', status: 'r.status', agent: 'r.agent_id', tags: 'r.tags', labels: 'r.labels', deleted_at: 'r.deleted_at', created_at: 'r.created_at', updated_at: 'r.updated_at' },
    configItem: 'r',
  },
  components: {
    from: 'public.components r',
    object: 'topology',
    fields: { id: 'r.id', name: 'r.name', namespace: 'r.namespace', type: 'r.type', health: 'r.health', status: 'r.status', agent: 'r.agent_id', tags: 'r.labels', labels: 'r.labels', deleted_at: 'r.deleted_at', created_at: 'r.created_at', updated_at: 'r.updated_at' },
  },
  checks: {
    from: 'public.checks r',
    object: 'canaries',
    // A check's status is its health (healthy / unhealthy).
    fields: { id: 'r.id', name: 'r.name', namespace: 'r.namespace', type: 'r.type', health: 'r.status', status: 'r.status', agent: 'r.agent_id', tags: 'r.labels', labels: 'r.labels', deleted_at: 'r.deleted_at', created_at: 'r.created_at', updated_at: 'r.updated_at' },
  },
  canaries: {
    from: 'public.canaries r',
    object: 'canaries',
    fields: { id: 'r.id', name: 'r.name', namespace: 'r.namespace', type: null, health: null, status: null, agent: 'r.agent_id', tags: 'r.labels', labels: 'r.labels', deleted_at: 'r.deleted_at', created_at: 'r.created_at', updated_at: 'r.updated_at' },
  },
  config_changes: {
    from: 'public.config_changes r JOIN public.config_items ci ON ci.id = r.config_id',
    object: 'catalog',
    fields: { id: 'r.id', name: 'ci.name', namespace: "(ci.tags ->> 'namespace')", type: 'r.change_type', health: null, status: null, agent: 'ci.agent_id', tags: 'ci.tags', labels: 'ci.labels', deleted_at: 'ci.deleted_at', created_at: 'r.created_at', updated_at: 'r.inserted_at' },
    severity: 'r.severity',
    configItem: 'ci',
  },
  config_analysis: {
    from: 'public.config_analysis r JOIN public.config_items ci ON ci.id = r.config_id',
    object: 'catalog',
    fields: { id: 'r.id', name: 'r.analyzer', namespace: "(ci.tags ->> 'namespace')", type: 'r.analysis_type', health: null, status: 'r.status', agent: 'ci.agent_id', tags: 'ci.tags', labels: 'ci.labels', deleted_at: 'ci.deleted_at', created_at: 'r.first_observed', updated_at: 'r.last_observed' },
    severity: 'r.severity',
    configItem: 'ci',
  },
  playbooks: {
    from: 'public.playbooks r',
    object: 'playbooks',
    fields: { id: 'r.id', name: 'r.name', namespace: 'r.namespace', type: null, health: null, status: null, agent: null, tags: null, labels: null, deleted_at: 'r.deleted_at', created_at: 'r.created_at', updated_at: 'r.updated_at' },
  },
  connections: {
    from: 'public.connections r',
    object: 'connection',
    fields: { id: 'r.id', name: 'r.name', namespace: 'r.namespace', type: 'r.type', health: null, status: null, agent: null, tags: null, labels: null, deleted_at: 'r.deleted_at', created_at: 'r.created_at', updated_at: 'r.updated_at' },
  },
}

/** Kinds whose rows the caller may read: each needs its own permission object's read. */
export function searchObjects(): Record<SearchKind, string> {
  return Object.fromEntries(SEARCH_KINDS.map((kind) => [kind, KINDS[kind].object])) as Record<SearchKind, string>
}

type Field = keyof KindSource['fields']
const GRAMMAR_FIELDS: Record<string, Field> = {
  id: 'id', name: 'name', namespace: 'namespace', type: 'type', types: 'type', health: 'health', status: 'status',
  statuses: 'status', agent: 'agent', agent_id: 'agent', created_at: 'created_at', updated_at: 'updated_at', deleted_at: 'deleted_at',
}

/** A field's condition: `value` is a filter expression (`a,b,!c`, globs). Null field → nothing matches. */
function fieldSql(source: KindSource, field: Field, expression: string, params: Params): string | null {
  const column = source.fields[field]
  if (column === null) return 'false'
  if (field === 'agent') return agentSql(column, expression, params)
  if (field === 'id') {
    const ids = expression.split(',').map((id) => id.trim()).filter(Boolean)
    const bad = ids.find((id) => !isUuid(id))
    if (bad) throw new CatalogInputError(`invalid id "${bad}"`)
    return ids.length ? `${column} = ANY(${params.textArray(ids)}::uuid[])` : null
  }
  return filterExpressionSql(expression, field === 'health' ? `coalesce(nullif(${column}, ''), 'unknown')` : `${column}::text`, params)
}

/** `all` (or empty): any agent; `self`/`local`: the local agent; otherwise agent ids or names. */
function agentSql(column: string, expression: string, params: Params): string | null {
  const terms = expression.split(',').map((term) => term.trim()).filter(Boolean)
  if (terms.length === 0 || terms.includes('all')) return null
  const ids = terms.map((term) => (term === 'self' || term === 'local' ? NIL_AGENT : term))
  const uuids = ids.filter((term) => isUuid(term))
  const names = ids.filter((term) => !isUuid(term))
  const parts: string[] = []
  if (uuids.length) parts.push(`${column} = ANY(${params.textArray(uuids)}::uuid[])`)
  if (names.length) parts.push(`${column} IN (SELECT a.id FROM public.agents a WHERE a.name = ANY(${params.textArray(names)}) AND a.deleted_at IS NULL)`)
  return `(${parts.join(' OR ')})`
}

type GrammarToken = { key: string; operator: '=' | '!=' | '>' | '<' | '>=' | '<='; value: string } | { text: string }

/**
 * The search grammar: space-separated `field=value` terms (`!=`, and `>`, `<`, `>=`, `<=` on
 * dates), values comma lists with `*` wildcards and `!` negation, quoted with `"` when they hold
 * spaces; `tag.<key>=v` / `label.<key>=v` (or any other key, read as a tag) select on maps; a
 * bare word matches names containing it.
 */
export function parseSearch(text: string): GrammarToken[] {
  const tokens: GrammarToken[] = []
  const pattern = /\s*(?:([A-Za-z0-9_.\-/:]+)\s*(!=|>=|<=|=|>|<)\s*("([^"]*)"|\S*)|"([^"]*)"|(\S+))/gy
  let match: RegExpExecArray | null
  while ((match = pattern.exec(text)) !== null) {
    if (match[0].trim() === '') break
    if (match[1] !== undefined) {
      tokens.push({ key: match[1], operator: match[2] as '=', value: match[4] ?? match[3] ?? '' })
    } else {
      tokens.push({ text: match[5] ?? match[6]! })
    }
  }
  return tokens
}

function grammarSql(source: KindSource, text: string, params: Params, now: Date): string[] {
  const conditions: string[] = []
  for (const token of parseSearch(text)) {
    if ('text' in token) {
      const column = source.fields.name
      if (column === null) return ['false']
      const words = token.text.includes('*') ? token.text.replace(/[\\%_]/g, (c) => `\\${c}`).replace(/\*/g, '%') : `%${token.text.replace(/[\\%_]/g, (c) => `\\${c}`)}%`
      conditions.push(`${column} ILIKE ${params.text(words)}`)
      continue
    }
    const key = token.key.toLowerCase()
    const field = GRAMMAR_FIELDS[key]
    if (field === 'created_at' || field === 'updated_at' || field === 'deleted_at') {
      const column = source.fields[field]
      if (column === null) return ['false']
      const operator = token.operator === '=' ? '>=' : token.operator === '!=' ? '<' : token.operator
      conditions.push(`${column} ${operator} ${params.text(parseDateMath(token.value, now, token.key).toISOString())}::timestamptz`)
      continue
    }
    if (token.operator !== '=' && token.operator !== '!=') throw new CatalogInputError(`invalid search "${token.key}${token.operator}${token.value}": ${token.operator} compares dates only`)
    // `!=` negates every term of the value.
    const value = token.operator === '!=' ? token.value.split(',').map((term) => `!${term.replace(/^!/, '')}`).join(',') : token.value
    if (field) {
      const sql = fieldSql(source, field, value, params)
      if (sql) conditions.push(sql)
      continue
    }
    const [map, mapKey] = key.startsWith('label.') || key.startsWith('labels.') ? ['labels', token.key.slice(token.key.indexOf('.') + 1)] as const
      : key.startsWith('tag.') || key.startsWith('tags.') ? ['tags', token.key.slice(token.key.indexOf('.') + 1)] as const
      : ['tags', token.key] as const
    const column = source.fields[map]
    if (column === null) return ['false']
    const sql = filterExpressionSql(value, `(${column} ->> ${params.text(mapKey)})`, params)
    if (sql) conditions.push(sql)
  }
  return conditions
}

/** `fieldSelector`: label-selector syntax over the row's own fields. */
function fieldSelectorSql(source: KindSource, text: string, params: Params): string[] {
  const conditions: string[] = []
  for (const term of parseSelector(text)) {
    const field = GRAMMAR_FIELDS[term.key.toLowerCase()]
    if (!field || field === 'created_at' || field === 'updated_at' || field === 'deleted_at') {
      throw new CatalogInputError(`invalid fieldSelector field "${term.key}": expected one of id, name, namespace, type, health, status, agent`)
    }
    const expression =
      term.op === '=' ? term.value.replace(/,/g, '')
      : term.op === '!=' ? `!${term.value}`
      : term.op === 'in' ? term.values.join(',')
      : term.op === 'notin' ? term.values.map((value) => `!${value}`).join(',')
      : null
    if (expression === null) throw new CatalogInputError(`invalid fieldSelector "${text}": a field needs a value`)
    const sql = fieldSql(source, field, expression, params)
    if (sql) conditions.push(sql)
  }
  return conditions
}

function selectorConditions(kind: SearchKind, selector: Selector, params: Params, now: Date): string[] {
  const source = KINDS[kind]
  const conditions: string[] = []
  const add = (sql: string | null | undefined) => {
    if (sql) conditions.push(sql)
  }
  if (selector.id) add(fieldSql(source, 'id', selector.id, params))
  if (selector.name && selector.name !== '*') add(fieldSql(source, 'name', selector.name, params))
  if (selector.namespace) add(fieldSql(source, 'namespace', selector.namespace, params))
  if (selector.agent) add(source.fields.agent === null ? null : agentSql(source.fields.agent, selector.agent, params))
  if (selector.health) add(fieldSql(source, 'health', selector.health, params))
  if (selector.types?.length) add(fieldSql(source, 'type', selector.types.join(','), params))
  if (selector.statuses?.length) add(fieldSql(source, 'status', selector.statuses.join(','), params))
  if (selector.tagSelector) add(source.fields.tags === null ? 'false' : selectorSql(selector.tagSelector, source.fields.tags, params))
  if (selector.labelSelector) add(source.fields.labels === null ? 'false' : selectorSql(selector.labelSelector, source.fields.labels, params))
  if (selector.fieldSelector) conditions.push(...fieldSelectorSql(source, selector.fieldSelector, params))
  if (selector.search) conditions.push(...grammarSql(source, selector.search, params, now))
  if (!selector.includeDeleted && source.fields.deleted_at !== null) conditions.push(`${source.fields.deleted_at} IS NULL`)
  return conditions
}

/** One kind's rows matching any of its selectors, as a JSON array text (null when none). */
async function searchKind(db: Db, kind: SearchKind, list: Selector[], request: SearchRequest, visibility: ConfigVisibility, now: Date): Promise<string | null> {
  const source = KINDS[kind]
  const params = new Params()
  const limit = Math.min(request.limit ?? DEFAULT_SEARCH_LIMIT, MAX_SEARCH_LIMIT)
  const branches = list.map((selector) => {
    const conditions = selectorConditions(kind, selector, params, now)
    if (source.configItem) {
      const visible = visibleItemSql(visibility, `${source.configItem}.tags`, `${source.configItem}.agent_id`, params)
      if (visible) conditions.push(visible)
    }
    const own = Math.min(selector.limit ?? limit, limit)
    return `(SELECT ${source.fields.id} AS id FROM ${source.from}${conditions.length ? ` WHERE ${conditions.join(' AND ')}` : ''}
      ORDER BY ${source.fields.name ?? source.fields.id} NULLS LAST, ${source.fields.id} LIMIT ${own})`
  })
  const f = source.fields
  const members = [
    `'id', ${f.id}`,
    ...(f.agent ? [`'agent', ${f.agent}`] : []),
    `'name', ${f.name ?? 'NULL'}`,
    `'namespace', ${f.namespace ?? 'NULL'}`,
    `'type', ${f.type ?? 'NULL'}`,
    `'tags', ${f.tags ?? 'NULL'}`,
    `'health', ${f.health ?? 'NULL'}`,
    `'status', ${f.status ?? 'NULL'}`,
    ...(source.severity ? [`'severity', ${source.severity}`] : []),
    ...(request.timestamps ? [`'created_at', ${f.created_at ?? 'NULL'}`, `'updated_at', ${f.updated_at ?? 'NULL'}`, `'deleted_at', ${f.deleted_at ?? 'NULL'}`] : []),
  ]
  const sql = `WITH hits AS (SELECT DISTINCT h.id FROM (${branches.join(' UNION ALL ')}) h)
    SELECT json_agg(jsonb_strip_nulls(jsonb_build_object(${members.join(', ')})) ORDER BY ${f.name ?? f.id} NULLS LAST, ${f.id})::text AS body
    FROM (SELECT id FROM hits LIMIT ${limit}) hit JOIN ${source.from.includes(' JOIN ') ? `(${source.from})` : source.from} ON ${f.id} = hit.id`
  const { rows } = await db.query<{ body: string | null }>(sql, params.values)
  return rows[0]?.body ?? null
}

/** Every asked kind the caller may read, as one JSON object text; kinds without hits are left out. */
export async function resourceSearch(
  db: Db,
  request: SearchRequest,
  visibility: ConfigVisibility,
  mayRead: (object: string) => Promise<boolean>,
  now = new Date(),
): Promise<string> {
  const members: string[] = []
  for (const kind of SEARCH_KINDS) {
    const list = request[kind]
    if (!list?.length) continue
    if (!(await mayRead(KINDS[kind].object))) continue
    const body = await searchKind(db, kind, list, request, visibility, now)
    if (body) members.push(`${JSON.stringify(kind)}:${body}`)
  }
  return `{${members.join(',')}}`
}

/**
 * One selector of a custom view's `configs` or `changes` query (views/view-queries.ts): the
 * kind's FROM (alias `r`, config item `ci` for changes) and its conditions, row-level access included.
 */
export function selectorSource(kind: 'configs' | 'config_changes', selector: Selector, visibility: ConfigVisibility, params: Params, now = new Date()): { from: string; conditions: string[] } {
  const source = KINDS[kind]
  const conditions = selectorConditions(kind, selector, params, now)
  const visible = visibleItemSql(visibility, `${source.configItem}.tags`, `${source.configItem}.agent_id`, params)
  if (visible) conditions.push(visible)
  return { from: source.from, conditions }
}
