import { createHash } from 'node:crypto'
import { stringify } from 'yaml'
import { apiFetch, apiJson, GatewayError, type ApiArgs } from '#app/lib/gateway.server.ts'
import { consoleLog } from '#app/lib/log.server.ts'
import { parseContentRangeTotal } from '#app/lib/live-figures.server.ts'
import { getProperties } from '#app/lib/session.server.ts'
import { durationToApiStart, type DurationKey } from '#app/lib/time-range.ts'
import type { CheckSummary } from '#app/components/health/health-model.ts'
import {
  HISTORY_PAGE_SIZE,
  historyQuery,
  parseRefreshRate,
  thinGraph,
  type DetailParams,
  type GraphPoint,
} from '#app/components/health/check-detail-model.ts'

/**
 * Paging, sorting and expanding a group each re-run the loader; re-reading thousands of
 * summaries for every click would make the page slow for large estates. Summaries are kept
 * for a few seconds per credential and window (the API's own figures lag by up to a minute).
 */
const SUMMARY_TTL_MS = Number(process.env.LOOKOUT_HEALTH_SUMMARY_TTL_MS ?? 5000)
const summaryCache = new Map<string, { at: number; checks: Promise<CheckSummary[]> }>()

function credentialKey(request: Request, extra: string): string {
  const hash = createHash('sha256')
  hash.update(request.headers.get('cookie') ?? '')
  hash.update('\0')
  hash.update(request.headers.get('authorization') ?? '')
  hash.update('\0')
  hash.update(extra)
  return hash.digest('hex')
}

type SummaryBody = { checks_summary?: CheckSummary[] }

export async function fetchSummary(args: ApiArgs, timeRange: DurationKey, init?: Parameters<typeof apiJson>[2]): Promise<CheckSummary[]> {
  const { data } = await apiJson<SummaryBody>(args, `/canary/api/summary?start=${encodeURIComponent(durationToApiStart(timeRange, new Date()))}`, init)
  return Array.isArray(data?.checks_summary) ? data.checks_summary : []
}

export function loadSummary(args: ApiArgs, timeRange: DurationKey, fresh: boolean): Promise<CheckSummary[]> {
  const key = credentialKey(args.request, timeRange)
  const now = Date.now()
  for (const [entryKey, entry] of summaryCache) if (now - entry.at > SUMMARY_TTL_MS) summaryCache.delete(entryKey)
  const cached = summaryCache.get(key)
  if (cached && !fresh) return cached.checks
  const checks = fetchSummary(args, timeRange)
  summaryCache.set(key, { at: now, checks })
  checks.catch(() => summaryCache.delete(key))
  return checks
}

/** Agent id → name, for the Agent tabs; empty when agents cannot be read. */
export async function loadAgentNames(args: ApiArgs): Promise<Map<string, string>> {
  try {
    const { data } = await apiJson<{ id: string; name: string }[]>(args, '/db/agents?select=id,name')
    return new Map((Array.isArray(data) ? data : []).map((agent) => [agent.id, agent.name]))
  } catch (error) {
    if (error instanceof Response) throw error
    consoleLog.warn({ err: error }, 'agents could not be read; agent tabs show ids')
    return new Map()
  }
}

/** Names of the property that sets how often health data reloads (spec 001 §4). */
export const REFRESH_RATE_PROPERTIES = ['health.refresh_rate', 'refresh_rate']

export async function loadRefreshMs(args: ApiArgs): Promise<number> {
  const properties = await getProperties(args)
  for (const name of REFRESH_RATE_PROPERTIES) {
    const property = properties.find((item) => item.name === name)
    if (property) return parseRefreshRate(String(property.value))
  }
  return 0
}

export type CheckRecord = {
  id: string
  canary_id: string
  name: string
  type: string
  namespace: string | null
  description: string | null
  icon: string | null
  severity: string | null
  labels: Record<string, string> | null
  spec: unknown
  status: string | null
  last_runtime: string | null
  last_transition_time: string | null
  next_runtime: string | null
  deleted_at: string | null
}

export type HistoryRow = { time: string; duration: number | null; status: boolean; message: string | null; error: string | null; invalid: boolean | null }

export type GraphData = {
  points: GraphPoint[]
  latency: { p95?: number; p97?: number; p99?: number }
  uptime: { passed: number; failed: number }
}

export type Relationship = { id: string; name: string; type: string | null; kind: 'component' | 'config'; href: string }

export type CheckDetail = {
  check: CheckRecord
  graph: GraphData | null
  history: { rows: HistoryRow[]; total: number; pageCount: number } | null
  specYaml: string | null
  relationships: Relationship[] | null
  error: string | null
}

const CHECK_FIELDS = 'id,canary_id,name,type,namespace,description,icon,severity,labels,spec,status,last_runtime,last_transition_time,next_runtime,deleted_at'

async function loadGraph(args: ApiArgs, checkId: string, timeRange: DurationKey): Promise<GraphData> {
  const start = encodeURIComponent(durationToApiStart(timeRange, new Date()))
  const { data } = await apiJson<{ status?: GraphPoint[] | null; latency?: GraphData['latency']; uptime?: GraphData['uptime'] }>(
    args,
    `/canary/api/graph?check=${checkId}&count=300&start=${start}`,
  )
  return {
    points: thinGraph(Array.isArray(data?.status) ? data.status : []),
    latency: data?.latency ?? {},
    uptime: { passed: data?.uptime?.passed ?? 0, failed: data?.uptime?.failed ?? 0 },
  }
}

async function loadHistory(args: ApiArgs, checkId: string, detail: DetailParams): Promise<CheckDetail['history']> {
  const response = await apiFetch(args, `/db/check_statuses?${historyQuery(checkId, detail)}`, { headers: { prefer: 'count=exact' } })
  const text = await response.text()
  if (!response.ok) throw new GatewayError(response.status, `History could not be loaded (status ${response.status})`, 'http', text)
  const rows = JSON.parse(text) as HistoryRow[]
  const total = parseContentRangeTotal(response.headers.get('content-range')) ?? rows.length
  return { rows, total, pageCount: Math.max(1, Math.ceil(total / HISTORY_PAGE_SIZE)) }
}

async function loadRelationships(args: ApiArgs, checkId: string): Promise<Relationship[]> {
  const [components, configs] = await Promise.all([
    apiJson<{ component_id: string }[]>(args, `/db/check_component_relationships?check_id=eq.${checkId}&deleted_at=is.null&select=component_id`),
    apiJson<{ config_id: string }[]>(args, `/db/check_config_relationships?check_id=eq.${checkId}&deleted_at=is.null&select=config_id`),
  ])
  const componentIds = [...new Set(components.data.map((row) => row.component_id))].slice(0, 100)
  const configIds = [...new Set(configs.data.map((row) => row.config_id))].slice(0, 100)
  const [componentRows, configRows] = await Promise.all([
    componentIds.length
      ? apiJson<{ id: string; name: string; type: string | null }[]>(args, `/db/components?id=in.(${componentIds.join(',')})&select=id,name,type`)
      : Promise.resolve({ data: [] as { id: string; name: string; type: string | null }[] }),
    configIds.length
      ? apiJson<{ id: string; name: string; type: string | null }[]>(args, `/db/config_items?id=in.(${configIds.join(',')})&select=id,name,type`)
      : Promise.resolve({ data: [] as { id: string; name: string; type: string | null }[] }),
  ])
  return [
    ...componentRows.data.map((row) => ({ id: row.id, name: row.name, type: row.type, kind: 'component' as const, href: `/topology/${row.id}` })),
    ...configRows.data.map((row) => ({ id: row.id, name: row.name, type: row.type, kind: 'config' as const, href: `/catalog/${row.id}` })),
  ]
}

/**
 * Everything the panel shows for one check. Only the open tab's data is read (plus the graph,
 * whose figures fill the header); a failing part becomes a message in the panel rather than
 * failing the page.
 */
export async function loadCheckDetail(args: ApiArgs, checkId: string, timeRange: DurationKey, detail: DetailParams): Promise<CheckDetail | null> {
  const { data } = await apiJson<CheckRecord[]>(args, `/db/checks?id=eq.${checkId}&select=${CHECK_FIELDS}`)
  const check = Array.isArray(data) ? data[0] : undefined
  if (!check) return null
  const failures: string[] = []
  const guard = async <T,>(label: string, load: () => Promise<T>): Promise<T | null> => {
    try {
      return await load()
    } catch (error) {
      if (error instanceof Response) throw error
      consoleLog.warn({ err: error, checkId, part: label }, 'check detail part failed')
      failures.push(`${label}: ${(error as Error).message}`)
      return null
    }
  }
  const [graph, history, relationships] = await Promise.all([
    guard('Graph', () => loadGraph(args, checkId, timeRange)),
    detail.tab === 'history' && !detail.durationError ? guard('History', () => loadHistory(args, checkId, detail)) : Promise.resolve(null),
    detail.tab === 'relationships' ? guard('Relationships', () => loadRelationships(args, checkId)) : Promise.resolve(null),
  ])
  const specYaml = detail.tab === 'spec' ? stringify(check.spec ?? {}, { lineWidth: 0 }) : null
  return { check, graph, history, specYaml, relationships, error: failures.length ? failures.join('; ') : null }
}

/** Run Now through the canary API; its message, or the server's refusal. */
export async function runCheckNow(args: ApiArgs, checkId: string): Promise<{ ok: true; message: string } | { ok: false; message: string }> {
  try {
    await apiJson<unknown>(args, `/canary/run/check/${checkId}`, { method: 'POST', json: {} })
    return { ok: true, message: 'Check run started' }
  } catch (error) {
    if (error instanceof Response) throw error
    if (error instanceof GatewayError) return { ok: false, message: error.status === 403 ? 'You do not have permission to run this check' : error.message }
    throw error
  }
}
