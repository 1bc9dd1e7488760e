import { z } from 'zod'
import type { Db } from '#server/db/client.ts'
import { Params } from '#server/backend/postgrest/sql-builder.ts'
import { isUuid } from '#contract/uuid.ts'
import { CatalogInputError, filterExpressionSql, parseDateMath, selectorSql } from './catalog-input.ts'
import { visibleItemSql, type ConfigVisibility } from './config-access.ts'

/** `POST /api/catalog/changes` (http-api.md §2.2.2): changes of config items, filtered, sorted and paged. */

const flag = z.preprocess((value) => (value === 'true' ? true : value === 'false' ? false : value), z.boolean())
const whole = z.coerce.number().int()

export const ChangesRequestSchema = z.object({
  id: z.union([z.string(), z.array(z.string())]).optional(),
  config_type: z.string().optional(),
  type: z.string().optional(),
  summary: z.string().optional(),
  source: z.string().optional(),
  severity: z.string().optional(),
  created_by: z.string().optional(),
  tags: z.string().optional(),
  agent_id: z.string().optional(),
  from: z.string().optional(),
  to: z.string().optional(),
  from_inserted_at: z.string().optional(),
  to_inserted_at: z.string().optional(),
  page: whole.optional(),
  page_size: whole.optional(),
  sort_by: z.string().optional(),
  recursive: z.string().optional(),
  depth: whole.optional(),
  soft: flag.optional(),
  include_deleted_configs: flag.optional(),
  lenient: flag.optional(),
})
export type ChangesRequest = z.infer<typeof ChangesRequestSchema>

/** The most changes one page holds. */
export const MAX_PAGE_SIZE = 1000
/** Changes of related items are followed at most this deep (spec 000 §9). */
export const MAX_CHANGE_DEPTH = 5

const SEVERITIES = ['info', 'low', 'medium', 'high', 'critical']
const SORTS: Record<string, string> = {
  name: 'ci.name',
  change_type: 'cc.change_type',
  summary: 'cc.summary',
  source: 'cc.source',
  created_at: 'cc.created_at',
  count: 'cc.count',
}
const DIRECTIONS: Record<string, 'outgoing' | 'incoming' | 'all' | null> = { downstream: 'outgoing', upstream: 'incoming', all: 'all', none: null }
const NIL_AGENT = '00000000-0000-0000-0000-000000000000'

function badRequest(message: string): CatalogInputError {
  return new CatalogInputError(`bad request: ${message}`)
}

/** `high` = high and above; `!low` excludes low; several terms are comma-separated. */
function severitySql(expression: string, params: Params): string | null {
  const include = new Set<string>()
  const exclude: string[] = []
  for (const raw of expression.split(',')) {
    const term = raw.trim().toLowerCase()
    if (!term) continue
    const negated = term.startsWith('!')
    const level = negated ? term.slice(1) : term
    const rank = SEVERITIES.indexOf(level)
    if (rank === -1) throw badRequest(`invalid severity "${level}": expected one of ${SEVERITIES.join(', ')}`)
    if (negated) exclude.push(level)
    else for (const higher of SEVERITIES.slice(rank)) include.add(higher)
  }
  const parts: string[] = []
  if (include.size) parts.push(`lower(cc.severity) = ANY(${params.textArray([...include])})`)
  if (exclude.length) parts.push(`(cc.severity IS NULL OR NOT lower(cc.severity) = ANY(${params.textArray(exclude)}))`)
  return parts.length ? parts.join(' AND ') : null
}

/** The changes page as JSON text: `{summary, total, changes}`, empty members left out. */
export async function catalogChanges(db: Db, request: ChangesRequest, visibility: ConfigVisibility, now = new Date()): Promise<string> {
  const lenient = request.lenient === true
  const params = new Params()
  const where: string[] = []
  /** Runs one filter; with `lenient` a filter that cannot be read is left out instead of refused. */
  const tryFilter = (build: () => string | null | undefined) => {
    try {
      const sql = build()
      if (sql) where.push(sql)
    } catch (error) {
      if (!(lenient && error instanceof CatalogInputError)) throw error
    }
  }

  const page = request.page ?? 1
  const pageSize = request.page_size ?? 50
  if (page < 1) throw badRequest('page must be 1 or more')
  if (pageSize < 1 || pageSize > MAX_PAGE_SIZE) throw badRequest(`page_size must be between 1 and ${MAX_PAGE_SIZE}`)

  let sortColumn = 'cc.created_at'
  let descending = true
  if (request.sort_by) {
    const desc = request.sort_by.startsWith('-')
    const column = SORTS[desc ? request.sort_by.slice(1) : request.sort_by]
    if (column) {
      sortColumn = column
      descending = desc
    } else if (!lenient) throw badRequest(`invalid sort_by "${request.sort_by}": expected one of ${Object.keys(SORTS).join(', ')} (prefix - for descending)`)
  }

  let direction: 'outgoing' | 'incoming' | 'all' | null = 'outgoing'
  if (request.recursive !== undefined && request.recursive !== '') {
    if (request.recursive in DIRECTIONS) direction = DIRECTIONS[request.recursive]!
    else if (!lenient) throw badRequest(`invalid recursive "${request.recursive}": expected upstream, downstream, all or none`)
  }
  let depth = request.depth ?? MAX_CHANGE_DEPTH
  if (depth < 1 || depth > MAX_CHANGE_DEPTH) {
    if (!lenient) throw badRequest(`depth must be between 1 and ${MAX_CHANGE_DEPTH}`)
    depth = Math.min(Math.max(depth, 1), MAX_CHANGE_DEPTH)
  }

  const ids = (Array.isArray(request.id) ? request.id : (request.id ?? '').split(','))
    .map((id) => id.trim())
    .filter(Boolean)
  const anchors: string[] = []
  for (const id of ids) {
    if (isUuid(id)) anchors.push(id)
    else if (!lenient) throw badRequest(`invalid id "${id}": expected a config item uuid`)
  }
  const includeDeleted = request.include_deleted_configs === true
  const ctes: string[] = []
  if (ids.length > 0) {
    const anchorList = params.textArray(anchors)
    if (direction) {
      // Only hard (parent/child) edges unless `soft`; the walk itself is bounded by depth.
      const relation = request.soft ? "'both'" : "'hard'"
      ctes.push(`scope AS (
        SELECT a.id FROM unnest(${anchorList}::uuid[]) AS a (id)
        UNION
        SELECT w.related_id FROM unnest(${anchorList}::uuid[]) AS a (id)
        CROSS JOIN LATERAL public.config_relationships_recursive(a.id, ${params.text(direction)}, ${includeDeleted ? 'true' : 'false'},
          ${params.text(String(depth))}::int, ${relation}, ${relation}) AS w)`)
    } else {
      ctes.push(`scope AS (SELECT a.id FROM unnest(${anchorList}::uuid[]) AS a (id))`)
    }
    where.push('cc.config_id IN (SELECT s.id FROM scope s)')
  }

  if (!includeDeleted) where.push('ci.deleted_at IS NULL')
  const visible = visibleItemSql(visibility, 'ci.tags', 'ci.agent_id', params)
  if (visible) where.push(visible)
  if (request.config_type) tryFilter(() => filterExpressionSql(request.config_type!, 'ci.type', params))
  if (request.type) tryFilter(() => filterExpressionSql(request.type!, 'cc.change_type', params))
  if (request.summary) tryFilter(() => filterExpressionSql(request.summary!, 'cc.summary', params))
  if (request.source) tryFilter(() => filterExpressionSql(request.source!, 'cc.source', params))
  if (request.severity) tryFilter(() => severitySql(request.severity!, params))
  if (request.tags) tryFilter(() => selectorSql(request.tags!, 'ci.tags', params))
  if (request.created_by) {
    const createdBy = request.created_by.trim()
    tryFilter(() => (isUuid(createdBy) ? `cc.created_by = ${params.text(createdBy)}::uuid` : filterExpressionSql(createdBy, 'cc.external_created_by', params)))
  }
  if (request.agent_id) {
    const agents = request.agent_id.split(',').map((agent) => agent.trim()).filter(Boolean).map((agent) => (agent === 'local' ? NIL_AGENT : agent))
    tryFilter(() => {
      const bad = agents.find((agent) => !isUuid(agent))
      if (bad) throw badRequest(`invalid agent_id "${bad}": expected an agent uuid or local`)
      return `ci.agent_id = ANY(${params.textArray(agents)}::uuid[])`
    })
  }
  const timeBound = (value: string | undefined, column: string, operator: string, field: string) => {
    if (!value) return
    tryFilter(() => {
      try {
        return `${column} ${operator} ${params.text(parseDateMath(value, now, field).toISOString())}::timestamptz`
      } catch (error) {
        throw error instanceof CatalogInputError ? badRequest(error.message) : error
      }
    })
  }
  // Neither end of the window given: the last two days.
  const from = !request.from && !request.to ? 'now-2d' : request.from
  timeBound(from, 'cc.created_at', '>=', 'from')
  timeBound(request.to, 'cc.created_at', '<=', 'to')
  timeBound(request.from_inserted_at, 'cc.inserted_at', '>=', 'from_inserted_at')
  timeBound(request.to_inserted_at, 'cc.inserted_at', '<=', 'to_inserted_at')

  const order = `${sortColumn} ${descending ? 'DESC' : 'ASC'} NULLS LAST, cc.id ${descending ? 'DESC' : 'ASC'}`
  ctes.push(`matched AS MATERIALIZED (
    SELECT cc.id, cc.change_type, ${sortColumn} AS sort_key
    FROM public.config_changes cc JOIN public.config_items ci ON ci.id = cc.config_id
    ${where.length ? `WHERE ${where.join(' AND ')}` : ''})`)
  const pageRows = `SELECT m.id FROM matched m ORDER BY m.sort_key ${descending ? 'DESC' : 'ASC'} NULLS LAST, m.id ${descending ? 'DESC' : 'ASC'}
    LIMIT ${params.text(String(pageSize))}::int8 OFFSET ${params.text(String((page - 1) * pageSize))}::int8`
  const sql = `WITH ${ctes.join(',\n')}
    SELECT
      (SELECT count(*) FROM matched) AS total,
      (SELECT jsonb_object_agg(s.change_type, s.total) FROM (
         SELECT coalesce(m.change_type, '') AS change_type, count(*) AS total FROM matched m GROUP BY 1) s)::text AS summary,
      (SELECT json_agg(jsonb_strip_nulls(jsonb_build_object(
         'id', cc.id, 'config_id', cc.config_id, 'agent_id', ci.agent_id, 'external_change_id', cc.external_change_id,
         'change_type', cc.change_type, 'severity', cc.severity, 'source', cc.source, 'summary', cc.summary,
         'created_at', cc.created_at, 'first_observed', cc.first_observed, 'count', cc.count,
         'name', ci.name, 'type', ci.type, 'tags', ci.tags, 'created_by', cc.created_by,
         'external_created_by', cc.external_created_by, 'inserted_at', cc.inserted_at, 'deleted_at', ci.deleted_at))
         ORDER BY ${order})
       FROM (${pageRows}) p
       JOIN public.config_changes cc ON cc.id = p.id JOIN public.config_items ci ON ci.id = cc.config_id)::text AS changes`
  const { rows } = await db.query<{ total: string | number; summary: string | null; changes: string | null }>(sql, params.values)
  const row = rows[0]!
  const total = Number(row.total)
  const members: string[] = []
  if (row.summary) members.push(`"summary":${row.summary}`)
  if (total > 0) members.push(`"total":${total}`)
  if (row.changes) members.push(`"changes":${row.changes}`)
  return `{${members.join(',')}}`
}
