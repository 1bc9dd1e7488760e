import { dbClient, requireData, requirePage, type DbClient } from './data-client.server.ts'
import { apiJson, GatewayError, type ApiArgs } from './gateway.server.ts'
import { consoleLog } from './log.server.ts'
import { toIlikeTerm } from './incidents.ts'
import { resolveTimeRange, TimeRangeError, type TimeRange } from './time-range.ts'
import {
  splitPair,
  type CatalogListParams,
  type ChangeListParams,
  type ChangeRow,
  type InsightRow,
  type InsightListParams,
  type RelatedItem,
  type RelationshipDirection,
  type ScraperListParams,
} from './catalog-vocabulary.ts'

export type { ChangeRow, InsightRow }

/**
 * The catalog screens' reads (issue 14 item 6): named functions over the data client
 * (`/api/db`: the `configs`, `config_detail`, `config_summary`, `catalog_changes`,
 * `config_analysis_items` views and `related_configs_recursive`) and the catalog API. Routes
 * call these and build no queries; the `*Query` builders are exported so tests can read the
 * request back (tests/app/catalog-queries.test.ts).
 */

/** The list parameters every catalog table reads: its sort column and direction, and its page. */
type PageOrder = { sortBy: string; sortDesc: boolean; page: number; pageSize: number }

/**
 * A list's order and page: its sort column (empty values last), then the id, so rows of equal
 * rank keep one order from page to page (`newestIdFirst` for the change feed, whose ids grow with time).
 */
function ordered<Query extends { order(column: string, options?: { ascending?: boolean; nullsFirst?: boolean }): Query; range(from: number, to: number): Query }>(
  query: Query,
  params: PageOrder,
  newestIdFirst = false,
): Query {
  const offset = (params.page - 1) * params.pageSize
  return query
    .order(params.sortBy, { ascending: !params.sortDesc, nullsFirst: false })
    .order('id', { ascending: !newestIdFirst })
    .range(offset, offset + params.pageSize - 1)
}

// ---- summary ------------------------------------------------------------------------------

export type HealthCounts = Partial<Record<string, number>>

export type TypeSummary = {
  type: string
  count: number
  health: HealthCounts
  changes: number
  analysis: number
  cost_30d: number | null
  updated_at: string | null
}

type SummaryApiRow = { type?: string; health?: HealthCounts | string | null; count?: number; changes?: number | null; analysis?: Record<string, number> | null; cost_30d?: number | null; updated_at?: string | null }
type SummaryViewRow = { type: string; total_configs: number; changes: number | null; analysis: Record<string, number> | null; cost_total_30d: string | number | null; updated_at: string | null }

const sum = (map: Record<string, number> | null | undefined) => Object.values(map ?? {}).reduce((total, value) => total + (Number(value) || 0), 0)

/**
 * Merges the API's rows (one per type and health bucket, or per type with a health map) into one
 * row per type, the way the summary screen shows them.
 */
export function mergeSummaryRows(rows: readonly SummaryApiRow[]): TypeSummary[] {
  const byType = new Map<string, TypeSummary>()
  for (const row of rows) {
    if (!row.type) continue
    const entry = byType.get(row.type) ?? { type: row.type, count: 0, health: {}, changes: 0, analysis: 0, cost_30d: null, updated_at: null }
    const count = Number(row.count) || 0
    entry.count += count
    if (typeof row.health === 'string') entry.health[row.health] = (entry.health[row.health] ?? 0) + count
    else for (const [health, total] of Object.entries(row.health ?? {})) entry.health[health] = (entry.health[health] ?? 0) + (Number(total) || 0)
    entry.changes = Math.max(entry.changes, Number(row.changes) || 0)
    entry.analysis = Math.max(entry.analysis, sum(row.analysis))
    if (row.cost_30d !== null && row.cost_30d !== undefined) entry.cost_30d = Math.max(entry.cost_30d ?? 0, Number(row.cost_30d) || 0)
    if (row.updated_at && (!entry.updated_at || row.updated_at > entry.updated_at)) entry.updated_at = row.updated_at
    byType.set(row.type, entry)
  }
  return [...byType.values()].sort((a, b) => a.type.localeCompare(b.type))
}

/**
 * One row per config type with its count, health buckets, changes (30 days), open insights and
 * 30-day cost: `POST /catalog/summary` when the API serves it; otherwise the `config_summary`
 * view, with health counted from the items that are not healthy (few, and bounded by the data
 * API's row limit).
 */
export async function getCatalogSummary(args: ApiArgs, options: { showDeleted: boolean }): Promise<TypeSummary[]> {
  try {
    const { data } = await apiJson<SummaryApiRow[]>(args, '/catalog/summary', { method: 'POST', json: { groupBy: ['type'], cost: '30d', deleted: options.showDeleted, changes: { since: '30d' }, analysis: {} } })
    if (Array.isArray(data)) return mergeSummaryRows(data)
  } catch (error) {
    if (!(error instanceof GatewayError) || ![404, 405, 501].includes(error.status)) throw error
    consoleLog.debug({ status: error.status }, 'catalog summary API unavailable; reading the config_summary view')
  }
  const db = dbClient(args)
  const [summary, notHealthy] = await Promise.all([
    db.from('config_summary').select('type,total_configs,changes,analysis,cost_total_30d,updated_at').order('type').returns<SummaryViewRow[]>(),
    db.from('config_items').select('type,health').is('deleted_at', null).or('health.is.null,health.neq.healthy').limit(10_000).returns<Array<{ type: string; health: string | null }>>(),
  ])
  const unhealthyByType = new Map<string, HealthCounts>()
  for (const item of requireData(notHealthy) ?? []) {
    const counts = unhealthyByType.get(item.type) ?? {}
    const health = item.health ?? 'unknown'
    counts[health] = (counts[health] ?? 0) + 1
    unhealthyByType.set(item.type, counts)
  }
  return (requireData(summary) ?? [])
    .filter((row) => row.total_configs > 0)
    .map((row) => {
      const health = { ...unhealthyByType.get(row.type) }
      const healthy = row.total_configs - sum(health as Record<string, number>)
      if (healthy > 0) health.healthy = healthy
      return {
        type: row.type,
        count: Number(row.total_configs),
        health,
        changes: Number(row.changes) || 0,
        analysis: sum(row.analysis),
        cost_30d: row.cost_total_30d === null ? null : Number(row.cost_total_30d),
        updated_at: row.updated_at,
      }
    })
}

// ---- items of a type ----------------------------------------------------------------------

export type ConfigListRow = {
  id: string
  name: string | null
  type: string
  config_class: string | null
  health: string | null
  status: string | null
  labels: Record<string, string> | null
  tags: Record<string, string> | null
  changes: number | null
  analysis: Record<string, number> | null
  cost_total_30d: string | number | null
  created_at: string
  updated_at: string | null
  deleted_at: string | null
}

const CONFIG_LIST_SELECT = 'id,name,type,config_class,health,status,labels,tags,changes,analysis,cost_total_30d,created_at,updated_at,deleted_at'

/** Labels and tags filter by containment (`cs`), so any key, dots and slashes included, is a plain JSON key. */
function pairsObject(pairs: readonly string[]): Record<string, string> {
  return Object.fromEntries(pairs.map(splitPair).filter((pair): pair is [string, string] => pair !== null))
}

/** The item list's read of `configs`: its filters, search, order and page as the data API receives them. */
export function catalogListQuery(db: DbClient, params: CatalogListParams, showDeleted: boolean) {
  let query = db.from('configs').select(CONFIG_LIST_SELECT, { count: 'exact' })
  if (params.type) query = query.eq('type', params.type)
  if (!showDeleted) query = query.is('deleted_at', null)
  if (params.health.length) {
    const known = params.health.filter((health) => health !== 'unknown')
    const clauses = [...(known.length ? [`health.in.(${known.join(',')})`] : []), ...(params.health.includes('unknown') ? ['health.is.null', 'health.eq.unknown'] : [])]
    query = query.or(clauses.join(','))
  }
  if (params.status.length) query = query.in('status', params.status)
  if (params.label.length) query = query.contains('labels', pairsObject(params.label))
  if (params.tag.length) query = query.contains('tags', pairsObject(params.tag))
  if (params.agent_id) query = query.eq('agent_id', params.agent_id)
  const term = toIlikeTerm(params.search)
  if (term) query = query.ilike('name', `*${term}*`)
  return ordered(query, params).returns<ConfigListRow[]>()
}

export async function listConfigs(args: ApiArgs, params: CatalogListParams, showDeleted: boolean): Promise<{ rows: ConfigListRow[]; total: number }> {
  return requirePage(await catalogListQuery(dbClient(args), params, showDeleted))
}

/** The statuses of one type's items, for its filter (the `config_statuses` view has no type). */
export async function listTypeStatuses(args: ApiArgs, type: string): Promise<string[]> {
  const rows = requireData(
    await dbClient(args).from('config_items').select('status').eq('type', type).is('deleted_at', null).not('status', 'is', null).order('status').limit(2000).returns<Array<{ status: string }>>(),
  )
  return [...new Set((rows ?? []).map((row) => row.status))]
}

// ---- one item -----------------------------------------------------------------------------

export type ConfigDetail = {
  id: string
  name: string | null
  type: string
  config_class: string | null
  description: string | null
  health: string | null
  status: string | null
  labels: Record<string, string> | null
  tags: Record<string, string> | null
  external_id: string[] | null
  cost_per_minute: string | number | null
  cost_total_1d: string | number | null
  cost_total_7d: string | number | null
  cost_total_30d: string | number | null
  created_at: string
  updated_at: string | null
  deleted_at: string | null
  last_scraped_time: string | null
  agent_name: string | null
  scraper: { id: string; name: string } | null
  summary: { relationships?: number; analysis?: number; changes?: number; playbook_runs?: number; checks?: number } | null
}

const CONFIG_DETAIL_SELECT =
  'id,name,type,config_class,description,health,status,labels,tags,external_id,cost_per_minute,cost_total_1d,cost_total_7d,cost_total_30d,created_at,updated_at,deleted_at,last_scraped_time,agent_name,scraper,summary'

/** One item's header, or null when there is no such item. */
export async function getConfigDetail(args: ApiArgs, id: string): Promise<ConfigDetail | null> {
  const rows = requireData(await dbClient(args).from('config_detail').select(CONFIG_DETAIL_SELECT).eq('id', id).limit(1).returns<ConfigDetail[]>())
  return rows?.[0] ?? null
}

/** One item's name, for a list narrowed to it (null when there is no such item). */
export async function getConfigName(args: ApiArgs, id: string): Promise<string | null> {
  const rows = requireData(await dbClient(args).from('config_items').select('name').eq('id', id).limit(1).returns<Array<{ name: string | null }>>())
  return rows?.[0]?.name ?? null
}

/** The scraped document of one item (the Spec tab). */
export async function getConfigDocument(args: ApiArgs, id: string): Promise<unknown> {
  const rows = requireData(await dbClient(args).from('config_items').select('config').eq('id', id).limit(1).returns<Array<{ config: unknown }>>())
  return rows?.[0]?.config ?? null
}

// ---- changes ------------------------------------------------------------------------------


const CHANGE_SELECT = 'id,config_id,name,type,change_type,severity,source,summary,diff,details,created_at,created_by,external_created_by,count,first_observed,deleted_at'

/**
 * `catalog_changes` with the list's filters, the picked time range (`created_at` within it) and
 * paging; `configId` (the item's tab, or the URL's) narrows to one item's changes.
 */
export function changeListQuery(db: DbClient, params: ChangeListParams, options: { configId?: string; range?: TimeRange | null; now: Date }) {
  let query = db.from('catalog_changes').select(CHANGE_SELECT, { count: 'exact' })
  const configId = options.configId ?? params.configId
  if (configId) query = query.eq('config_id', configId)
  if (params.configType) query = query.eq('type', params.configType)
  if (params.changeType) query = query.eq('change_type', params.changeType)
  if (params.severity) query = query.eq('severity', params.severity)
  if (params.source) query = query.eq('source', params.source)
  const term = toIlikeTerm(params.search)
  if (term) query = query.or(`summary.ilike.*${term}*,name.ilike.*${term}*`)
  if (options.range) {
    try {
      const { from, to } = resolveTimeRange(options.range, options.now)
      query = query.gte('created_at', from.toISOString())
      if (to) query = query.lte('created_at', to.toISOString())
    } catch (error) {
      // A range that cannot be resolved filters nothing, as if none were picked.
      if (!(error instanceof TimeRangeError)) throw error
    }
  }
  return ordered(query, params, true).returns<ChangeRow[]>()
}

export async function listChanges(args: ApiArgs, params: ChangeListParams, options: { configId?: string; range?: TimeRange | null; now: Date }): Promise<{ rows: ChangeRow[]; total: number }> {
  return requirePage(await changeListQuery(dbClient(args), params, options))
}

/** The filters' choices: change types, config types and sources as the data API lists them. */
export async function listChangeFilterOptions(args: ApiArgs): Promise<{ changeTypes: string[]; configTypes: string[] }> {
  const db = dbClient(args)
  const [changeTypes, configTypes] = await Promise.all([
    db.from('change_types').select('change_type').limit(500).returns<Array<{ change_type: string | null }>>(),
    db.from('config_types').select('type').limit(500).returns<Array<{ type: string | null }>>(),
  ])
  return {
    changeTypes: (requireData(changeTypes) ?? []).map((row) => row.change_type).filter((value): value is string => Boolean(value)),
    configTypes: (requireData(configTypes) ?? []).map((row) => row.type).filter((value): value is string => Boolean(value)),
  }
}

// ---- insights -----------------------------------------------------------------------------


const INSIGHT_SELECT = 'id,config_id,config_name,config_type,analyzer,analysis_type,message,summary,severity,status,source,first_observed,last_observed'

export function insightListQuery(db: DbClient, params: InsightListParams, options: { configId?: string } = {}) {
  let query = db.from('config_analysis_items').select(INSIGHT_SELECT, { count: 'exact' })
  const configId = options.configId ?? params.configId
  if (configId) query = query.eq('config_id', configId)
  else query = query.is('deleted_at', null)
  if (params.analysisType) query = query.eq('analysis_type', params.analysisType)
  if (params.severity) query = query.eq('severity', params.severity)
  if (params.status) query = query.eq('status', params.status)
  if (params.analyzer) query = query.eq('analyzer', params.analyzer)
  const term = toIlikeTerm(params.search)
  if (term) query = query.or(`message.ilike.*${term}*,config_name.ilike.*${term}*,analyzer.ilike.*${term}*`)
  return ordered(query, params).returns<InsightRow[]>()
}

export async function listInsights(args: ApiArgs, params: InsightListParams, options: { configId?: string } = {}): Promise<{ rows: InsightRow[]; total: number }> {
  return requirePage(await insightListQuery(dbClient(args), params, options))
}

export async function listAnalyzers(args: ApiArgs): Promise<string[]> {
  const rows = requireData(await dbClient(args).from('analyzer_types').select('analyzer').limit(500).returns<Array<{ analyzer: string | null }>>())
  return (rows ?? []).map((row) => row.analyzer).filter((value): value is string => Boolean(value))
}

// ---- relationships ------------------------------------------------------------------------

/** One walk of `related_configs_recursive` from an item, `direction` edges only, up to `depth`. */
export function relationshipQuery(db: DbClient, id: string, direction: Exclude<RelationshipDirection, 'all'>, depth: number) {
  return db
    .rpc('related_configs_recursive', { config_id: id, type_filter: direction, include_deleted_configs: false, max_depth: depth }, { get: true })
    .select('id,name,type,health,status,related_ids,deleted_at')
    .returns<RelatedItem[]>()
}

/** The incoming and outgoing walks the tab shows (one of them when a direction is picked). */
export async function getRelationships(args: ApiArgs, id: string, direction: RelationshipDirection, depth: number): Promise<{ incoming: RelatedItem[] | null; outgoing: RelatedItem[] | null }> {
  const db = dbClient(args)
  const walk = async (which: 'incoming' | 'outgoing') => (direction === 'all' || direction === which ? (requireData(await relationshipQuery(db, id, which, depth)) ?? []) : null)
  const [incoming, outgoing] = await Promise.all([walk('incoming'), walk('outgoing')])
  return { incoming, outgoing }
}

// ---- playbooks and checks of an item ------------------------------------------------------

export type PlaybookRunRow = {
  id: string
  status: string | null
  created_at: string
  start_time: string | null
  end_time: string | null
  playbook: { id: string; name: string; title: string | null } | null
}

export type PlaybookOption = { id: string; name: string; title?: string | null; description?: string | null; category?: string | null }

/** Runs against the item (newest first) and the playbooks that may run on it (`GET /playbook/list?config_id=`, when served). */
export async function getConfigPlaybooks(args: ApiArgs, id: string): Promise<{ runs: PlaybookRunRow[]; playbooks: PlaybookOption[] | null }> {
  const [runs, playbooks] = await Promise.all([
    dbClient(args)
      .from('playbook_runs')
      .select('id,status,created_at,start_time,end_time,playbook:playbook_id(id,name,title)')
      .eq('config_id', id)
      .order('created_at', { ascending: false })
      .limit(100)
      .returns<PlaybookRunRow[]>(),
    apiJson<PlaybookOption[]>(args, `/playbook/list?${new URLSearchParams({ config_id: id }).toString()}`)
      .then(({ data }) => (Array.isArray(data) ? data : null))
      .catch((error: unknown) => {
        if (!(error instanceof GatewayError)) throw error
        consoleLog.debug({ status: error.status }, 'playbook list unavailable for a config')
        return null
      }),
  ])
  return { runs: requireData(runs) ?? [], playbooks }
}

export type ConfigCheckRow = { id: string; name: string; type: string | null; status: string | null; severity: string | null; last_runtime: string | null }

export async function listConfigChecks(args: ApiArgs, id: string): Promise<ConfigCheckRow[]> {
  return (
    requireData(
      await dbClient(args).from('checks_by_config').select('id,name,type,status,severity,last_runtime').eq('config_id', id).order('name').limit(500).returns<ConfigCheckRow[]>(),
    ) ?? []
  )
}

// ---- views of an item ---------------------------------------------------------------------

export type ConfigViewTab = { id: string; name: string; namespace: string | null; title: string | null }

/** The views usable as tabs of an item (`GET /view/list?config_id=`); none when the API does not serve it. */
export async function listConfigViewTabs(args: ApiArgs, configId: string): Promise<ConfigViewTab[]> {
  try {
    const { data } = await apiJson<ConfigViewTab[]>(args, `/view/list?${new URLSearchParams({ config_id: configId }).toString()}`)
    return Array.isArray(data) ? data.filter((view) => typeof view?.id === 'string') : []
  } catch (error) {
    if (!(error instanceof GatewayError)) throw error
    return []
  }
}

// ---- scrapers -----------------------------------------------------------------------------

export type ScraperRow = {
  id: string
  name: string
  namespace: string | null
  source: string | null
  job_status: string | null
  job_time_start: string | null
  job_success_count: number | null
  job_error_count: number | null
  created_at: string
  spec: { schedule?: string } & Record<string, unknown>
  items?: number | null
}

const SCRAPER_SELECT = 'id,name,namespace,source,job_status,job_time_start,job_success_count,job_error_count,created_at,spec'

export function scraperListQuery(db: DbClient, params: ScraperListParams) {
  let query = db.from('config_scrapers_with_status').select(SCRAPER_SELECT, { count: 'exact' })
  const term = toIlikeTerm(params.search)
  if (term) query = query.ilike('name', `*${term}*`)
  return ordered(query, params).returns<ScraperRow[]>()
}

/** A page of scrapers with their last run and how many live items each has scraped. */
export async function listScrapers(args: ApiArgs, params: ScraperListParams): Promise<{ rows: ScraperRow[]; total: number }> {
  const db = dbClient(args)
  const page = requirePage(await scraperListQuery(db, params))
  // One counted read per scraper on the page (at most a page size of them): the data API has no GROUP BY.
  const counts = await Promise.all(
    page.rows.map(async (row) => {
      const result = await db.from('config_items').select('id', { count: 'exact', head: true }).eq('scraper_id', row.id).is('deleted_at', null)
      return result.error ? null : result.count
    }),
  )
  return { rows: page.rows.map((row, index) => ({ ...row, items: counts[index] ?? null })), total: page.total }
}
