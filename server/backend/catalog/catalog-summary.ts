import { z } from 'zod'
import type { Db } from '#server/db/client.ts'
import { Params } from '#server/backend/postgrest/sql-builder.ts'
import { parseDurationMs } from '#contract/canary/duration.ts'
import { CatalogInputError, filterExpressionSql } from './catalog-input.ts'
import { visibleItemSql, type ConfigVisibility } from './config-access.ts'
import type { ChangeWindows } from './change-windows.ts'

/** `POST /api/catalog/summary` (http-api.md §2.2.1): config items per group with health, changes, insights and cost. */

export const SummaryRequestSchema = z.object({
  groupBy: z.array(z.string()).max(5).optional(),
  tags: z.array(z.string()).max(10).optional(),
  filter: z.record(z.string(), z.string()).optional(),
  status: z.string().optional(),
  health: z.string().optional(),
  deleted: z.boolean().optional(),
  cost: z.string().optional(),
  changes: z.object({ since: z.string().optional() }).optional(),
  analysis: z.object({}).passthrough().optional(),
})
export type SummaryRequest = z.infer<typeof SummaryRequestSchema>

// Tag keys as Kubernetes writes label keys (an optional DNS prefix, then a name).
const TAG_KEY = /^[A-Za-z0-9]([A-Za-z0-9_.\-/]*[A-Za-z0-9])?$/
const COSTS: Record<string, string> = {
  '1h': 'sum(ci.cost_per_minute) * 60',
  '1d': 'sum(ci.cost_total_1d)',
  '30d': 'sum(ci.cost_total_30d)',
}

function checkTagKey(key: string, field: string): void {
  if (key.length > 253 || !TAG_KEY.test(key)) throw new CatalogInputError(`invalid ${field} "${key}": expected type or a tag key`)
}

/** The summary as JSON text (a bare array), computed in one statement. */
export async function catalogSummary(db: Db, request: SummaryRequest, visibility: ConfigVisibility, windows?: ChangeWindows, now = new Date()): Promise<string> {
  const groupBy = request.groupBy?.length ? [...new Set(request.groupBy)] : ['type']
  for (const key of groupBy) if (key !== 'type') checkTagKey(key, 'groupBy')
  const extraTags = [...new Set(request.tags ?? [])].filter((key) => !groupBy.includes(key))
  for (const key of extraTags) checkTagKey(key, 'tags')
  if (request.cost !== undefined && !(request.cost in COSTS)) throw new CatalogInputError('cost range is not allowed. allowed (1h, 1d, 30d)')
  let since: Date | undefined
  let windowColumn: string | null = null
  if (request.changes) {
    const text = request.changes.since ?? '7d'
    const ms = parseDurationMs(text)
    if (ms === null || ms <= 0) throw new CatalogInputError(`invalid changes.since "${text}": expected a duration such as 3d, 7d or 30d`)
    since = new Date(now.getTime() - ms)
    windowColumn = windows ? await windows.columnFor(text) : null
  }

  const params = new Params()
  const where: string[] = []
  if (!request.deleted) where.push('ci.deleted_at IS NULL')
  const visible = visibleItemSql(visibility, 'ci.tags', 'ci.agent_id', params)
  if (visible) where.push(visible)
  for (const [key, expression] of Object.entries(request.filter ?? {})) {
    const sql = filterExpressionSql(expression, `coalesce(ci.labels ->> ${params.text(key)}, ci.tags ->> ${params.text(key)})`, params)
    if (sql) where.push(sql)
  }
  if (request.status) {
    const sql = filterExpressionSql(request.status, 'ci.status', params)
    if (sql) where.push(sql)
  }
  if (request.health) {
    const sql = filterExpressionSql(request.health, "coalesce(nullif(ci.health, ''), 'unknown')", params)
    if (sql) where.push(sql)
  }

  // Group columns: g0, g1, … in the CTEs; named after the group key in the answer. One scan of
  // the items makes per-(group, health) buckets, with changes counted per item first (an index-only
  // scan of the window, docs/decisions/021); the groups roll the buckets up.
  const keyExpr = (key: string) => (key === 'type' ? 'ci.type' : `(ci.tags ->> ${params.text(key)})`)
  const gs = groupBy.map((_, index) => `g${index}`)
  const groupCols = groupBy.map((key, index) => `${keyExpr(key)} AS g${index}`)
  const tagKeys = extraTags.map((key) => params.text(key))
  const whereSql = where.length ? ` WHERE ${where.join(' AND ')}` : ''
  const joinOn = (a: string, b: string) => gs.map((g) => `${a}.${g} IS NOT DISTINCT FROM ${b}.${g}`).join(' AND ')

  const ctes: string[] = []
  if (windowColumn) {
    // 3d, 7d and 30d from the pre-aggregated counts (change-windows.ts); the column name is one of three constants.
    ctes.push(`changes AS (SELECT w.config_id, w.${windowColumn} AS total FROM lookout.config_change_windows w WHERE w.${windowColumn} > 0)`)
  } else if (since) {
    ctes.push(`changes AS (SELECT cc.config_id, count(*) AS total FROM public.config_changes cc
      WHERE cc.created_at > ${params.text(since.toISOString())}::timestamptz GROUP BY cc.config_id)`)
  }
  ctes.push(`buckets AS (SELECT ${groupCols.join(', ')}, coalesce(nullif(ci.health, ''), 'unknown') AS health,
      count(*) AS total, max(ci.created_at) AS created_at, max(ci.updated_at) AS updated_at
      ${request.cost ? `, ${COSTS[request.cost]} AS cost` : ''}
      ${since ? ', sum(ch.total) AS changes' : ''}
      ${tagKeys.map((key, index) => `, min(ci.tags ->> ${key}) AS tmin${index}, max(ci.tags ->> ${key}) AS tmax${index}`).join('')}
    FROM public.config_items ci${since ? ' LEFT JOIN changes ch ON ch.config_id = ci.id' : ''}${whereSql}
    GROUP BY ${groupBy.map((_, index) => String(index + 1)).join(', ')}, ${groupBy.length + 1})`)
  ctes.push(`groups AS (SELECT ${gs.join(', ')}, sum(b.total) AS total, max(b.created_at) AS created_at, max(b.updated_at) AS updated_at,
      jsonb_object_agg(b.health, b.total) AS health
      ${request.cost ? ', sum(b.cost) AS cost' : ''}
      ${since ? ', sum(b.changes) AS changes' : ''}
      ${tagKeys.map((_, index) => `, CASE WHEN min(b.tmin${index}) = max(b.tmax${index}) THEN min(b.tmin${index}) END AS t${index}`).join('')}
    FROM buckets b GROUP BY ${gs.join(', ')})`)
  if (request.analysis) {
    ctes.push(`analysis AS (SELECT ${gs.join(', ')}, jsonb_object_agg(a.analysis_type, a.total) AS analysis
      FROM (SELECT ${groupCols.join(', ')}, coalesce(ca.analysis_type, 'other') AS analysis_type, count(*) AS total
            FROM public.config_analysis ca JOIN public.config_items ci ON ci.id = ca.config_id
            ${whereSql ? `${whereSql} AND` : 'WHERE'} ca.status = 'open'
            GROUP BY ${groupBy.map((_, index) => String(index + 1)).join(', ')}, ${groupBy.length + 1}) a
      GROUP BY ${gs.join(', ')})`)
  }

  const members: string[] = []
  groupBy.forEach((key, index) => members.push(`${params.text(key)}, g.g${index}`))
  extraTags.forEach((key, index) => members.push(`${params.text(key)}, g.t${index}`))
  members.push(`'health', g.health`, `'count', g.total`, `'created_at', g.created_at`, `'updated_at', g.updated_at`)
  if (request.analysis) members.push(`'analysis', coalesce(a.analysis, '{}'::jsonb)`)
  if (since) members.push(`'changes', coalesce(g.changes, 0)`)
  if (request.cost) members.push(`${params.text(`cost_${request.cost}`)}, round(g.cost::numeric, 4)`)

  // jsonb_build_object takes at most 100 arguments: 5 groups + 10 tags + 8 figures stay well under.
  const sql = `WITH ${ctes.join(',\n')}
    SELECT coalesce(json_agg(jsonb_build_object(${members.join(', ')}) ORDER BY ${gs.map((g) => `g.${g}`).join(', ')}), '[]')::text AS body
    FROM groups g${request.analysis ? ` LEFT JOIN analysis a ON ${joinOn('a', 'g')}` : ''}`
  const { rows } = await db.query<{ body: string }>(sql, params.values)
  return rows[0]!.body
}
