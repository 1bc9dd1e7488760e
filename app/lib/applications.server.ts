import { z } from 'zod'
import type { ApplicationListParams, ReportRange } from './application-search.ts'
import { REPORT_RANGES } from './application-search.ts'
import { searchResources, type FoundResource, type ResourceSelector } from './catalog-client.server.ts'
import { dbClient, requireData, requirePage } from './data-client.server.ts'
import type { ApiArgs } from './gateway.server.ts'
import { toIlikeTerm } from './incidents.ts'

/**
 * Applications (data-model.md §10.6: the `applications` table, soft delete) and the audit report
 * of one. The reference gives the table but not the shape of `spec`; the report reads
 * `spec.selectors`, a list of the catalog's resource selectors (the same shape as
 * `POST /resources/search`), so which configs belong to an application is decided by the
 * catalog's own selector code — and with it the caller's row-level scopes (decision 021): every
 * later read (changes, insights, evidences) goes through the data API, whose row guard hides
 * what the caller may not see.
 */

export type ApplicationRow = {
  id: string
  name: string
  namespace: string | null
  description: string | null
  labels: Record<string, string> | null
  source: string
  spec: Record<string, unknown>
  created_at: string
  updated_at: string | null
}

const APPLICATION_SELECT = 'id,name,namespace,description,labels,source,spec,created_at,updated_at'

export async function listApplications(args: ApiArgs, params: ApplicationListParams): Promise<{ rows: ApplicationRow[]; total: number }> {
  const offset = (params.page - 1) * params.pageSize
  let query = dbClient(args).from('applications').select(APPLICATION_SELECT, { count: 'exact' }).is('deleted_at', null)
  const term = toIlikeTerm(params.search)
  if (term) query = query.ilike('name', `*${term}*`)
  const result = await query
    .order(params.sortBy, { ascending: !params.sortDesc, nullsFirst: false })
    .order('id', { ascending: true })
    .range(offset, offset + params.pageSize - 1)
    .returns<ApplicationRow[]>()
  return requirePage(result)
}

const SelectorSchema = z
  .object({
    id: z.string().optional(),
    name: z.string().optional(),
    namespace: z.string().optional(),
    agent: z.string().optional(),
    search: z.string().optional(),
    tagSelector: z.string().optional(),
    labelSelector: z.string().optional(),
    fieldSelector: z.string().optional(),
    health: z.string().optional(),
    types: z.array(z.string()).optional(),
    statuses: z.array(z.string()).optional(),
  })
  .strip()

const SpecSelectorsSchema = z.object({ selectors: z.array(SelectorSchema).max(50).catch([]) }).partial()

/** The selectors of a stored spec; entries the catalog could not read are left out rather than failing the report. */
export function applicationSelectors(spec: unknown): ResourceSelector[] {
  const parsed = SpecSelectorsSchema.safeParse(spec ?? {})
  if (!parsed.success) return []
  return (parsed.data.selectors ?? []).filter((selector) => Object.values(selector).some((value) => value !== undefined && value !== ''))
}

export type ReportChange = { id: string; config_id: string; name: string | null; type: string | null; change_type: string; severity: string | null; summary: string | null; created_at: string; created_by: string | null; external_created_by: string | null }
export type ReportInsight = { id: string; config_id: string; name: string | null; type: string | null; analyzer: string; analysis_type: string | null; severity: string | null; status: string | null; summary: string | null; first_observed: string; last_observed: string }
export type ReportIncident = { id: string; incident_id: string; title: string; status: string; severity: string; created_at: string; configs: string[] }

export type ApplicationReport = {
  application: ApplicationRow
  selectors: ResourceSelector[]
  configs: FoundResource[]
  /** The catalog answered its limit: there may be more configs than the report lists. */
  configsTruncated: boolean
  changes: ReportChange[]
  backups: ReportChange[]
  insights: ReportInsight[]
  incidents: ReportIncident[]
  range: { from: string; to: string }
}

/** Most configs one report covers: their ids go into the data API's `in.(…)` filters. */
export const REPORT_CONFIG_LIMIT = 500
const REPORT_ROW_LIMIT = 200

export async function getApplication(args: ApiArgs, namespace: string, name: string): Promise<ApplicationRow | null> {
  const rows = requireData(
    await dbClient(args).from('applications').select(APPLICATION_SELECT).is('deleted_at', null).eq('namespace', namespace).eq('name', name).limit(1).returns<ApplicationRow[]>(),
  )
  return rows[0] ?? null
}

type EvidenceRow = { config_id: string | null; hypotheses: { incidents: Omit<ReportIncident, 'configs'> | null } | null }

export async function getApplicationReport(args: ApiArgs, namespace: string, name: string, range: ReportRange, now = new Date()): Promise<ApplicationReport | null> {
  const application = await getApplication(args, namespace, name)
  if (!application) return null
  const selectors = applicationSelectors(application.spec)
  const from = new Date(now.getTime() - REPORT_RANGES[range] * 24 * 3600_000).toISOString()
  const empty: ApplicationReport = { application, selectors, configs: [], configsTruncated: false, changes: [], backups: [], insights: [], incidents: [], range: { from, to: now.toISOString() } }
  if (selectors.length === 0) return empty

  const found = await searchResources(args, { limit: REPORT_CONFIG_LIMIT, configs: selectors })
  const byId = new Map(found.configs.map((config) => [config.id, config]))
  const configs = [...byId.values()].sort((a, b) => `${a.type ?? ''}/${a.name ?? ''}`.localeCompare(`${b.type ?? ''}/${b.name ?? ''}`))
  if (configs.length === 0) return empty
  const ids = configs.map((config) => config.id)
  const db = dbClient(args)
  const CHANGE_SELECT = 'id,config_id,name,type,change_type,severity,summary,created_at,created_by,external_created_by'

  const [changes, backups, insights, evidences] = await Promise.all([
    db.from('catalog_changes').select(CHANGE_SELECT).in('config_id', ids).gte('created_at', from).order('created_at', { ascending: false }).limit(REPORT_ROW_LIMIT).returns<ReportChange[]>(),
    // No backup table exists in the data model: backups are the changes scrapers record for them (BackupCompleted, BackupFailed…).
    db.from('catalog_changes').select(CHANGE_SELECT).in('config_id', ids).ilike('change_type', '*backup*').gte('created_at', from).order('created_at', { ascending: false }).limit(REPORT_ROW_LIMIT).returns<ReportChange[]>(),
    db
      .from('config_analysis_items')
      .select('id,config_id,name,type,analyzer,analysis_type,severity,status,summary,first_observed,last_observed')
      .in('config_id', ids)
      .order('last_observed', { ascending: false })
      .limit(REPORT_ROW_LIMIT)
      .returns<ReportInsight[]>(),
    db.from('evidences').select('config_id,hypotheses(incidents(id,incident_id,title,status,severity,created_at))').in('config_id', ids).gte('created_at', from).limit(REPORT_ROW_LIMIT).returns<EvidenceRow[]>(),
  ])

  const incidents = new Map<string, ReportIncident>()
  for (const evidence of requireData(evidences)) {
    const incident = evidence.hypotheses?.incidents
    if (!incident) continue
    const entry = incidents.get(incident.id) ?? { ...incident, configs: [] }
    const configName = evidence.config_id ? (byId.get(evidence.config_id)?.name ?? evidence.config_id) : null
    if (configName && !entry.configs.includes(configName)) entry.configs.push(configName)
    incidents.set(incident.id, entry)
  }

  return {
    ...empty,
    configs,
    configsTruncated: found.configs.length >= REPORT_CONFIG_LIMIT,
    changes: requireData(changes),
    backups: requireData(backups),
    insights: requireData(insights),
    incidents: [...incidents.values()].sort((a, b) => b.created_at.localeCompare(a.created_at)),
  }
}
