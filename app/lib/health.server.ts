import { createHash } from 'node:crypto'
import { stringify } from 'yaml'
import { z } from 'zod'
import { apiJson, GatewayError, type ApiArgs, type ApiInit } from './gateway.server.ts'
import { dbClient, requireData, requirePage } from './data-client.server.ts'
import { consoleLog } from './log.server.ts'
import { getProperties } from './session.server.ts'
import { credentialKey } from './shared-data.server.ts'
import { durationToApiStart, type DurationKey } from './time-range.ts'
import { nextRunOf, type NextRun, type ScheduledCanary } from '#contract/canary/next-run.ts'
import { buildHealthView, summaryViewRequest, viewFromAnswer, type CheckSummary, type HealthParams, type HealthView } from '#app/components/health/health-model.ts'
import { SUMMARY_VIEW_PARAM, type SummaryEntry, type SummaryViewAnswer, type SummaryViewRequest } from '#contract/canary/summary-view.ts'
import {
  HISTORY_PAGE_SIZE,
  parseRefreshRate,
  thinGraph,
  type DetailParams,
  type GraphPoint,
} from '#app/components/health/check-detail-model.ts'

/**
 * The health domain's calls: the canary summary and graph (non-PostgREST endpoints of the
 * canary API), check records, history and relationships (data API), Run Now, and the public
 * board's read with its last-good fallback. /health and /view/health call these.
 */

/**
 * Concurrent renders for the same credential and question share one summary request (a
 * stampede guard, docs/decisions/011): a caller that arrives while one is in flight waits for
 * it, and the entry is dropped the moment it settles, so nothing is ever served from an older
 * answer. The backend computes each summary from its rollup tables and single-flights identical
 * queries itself; this guard only saves a second loopback call and parse per credential.
 */
const summariesInFlight = new Map<string, Promise<SummaryAnswer>>()

/**
 * The canary summary. The list keys rows by id and shows the name, so an entry without them is
 * dropped rather than breaking the page; the rest of an entry is passed on as the API sent it.
 * The response's envelope is read with zod; each entry is checked by hand, because zod's object
 * parse (even stripping to two keys) cost 30–100 ms per 10,000 entries, more than JSON.parse of
 * the whole response. Lookout's list answer (`lookout_view`, at most a page of entries) is read
 * with zod whole.
 */
function isSummaryEntry(entry: unknown): entry is CheckSummary {
  if (typeof entry !== 'object' || entry === null) return false
  const { id, name } = entry as { id?: unknown; name?: unknown }
  return typeof id === 'string' && id.length > 0 && typeof name === 'string'
}

const EntrySchema = z.custom<SummaryEntry>((entry) => isSummaryEntry(entry), 'a summary entry needs an id and a name')
const count = z.number().int().min(0)
const ViewAnswerSchema = z.object({
  counts: z.object({ all: count, healthy: count }),
  labels: z.array(z.tuple([z.string(), z.string().nullable()])),
  tabs: z.array(z.tuple([z.string(), count])),
  totalChecks: count,
  totalRows: count,
  page: z.number().int().min(1),
  rows: z.array(
    z.discriminatedUnion('kind', [
      z.object({ kind: z.literal('check'), check: EntrySchema }),
      z.object({
        kind: z.literal('group'),
        key: z.string(),
        stats: z.object({ count, healthy: count, unhealthy: count, passing: count, latency: z.number().nullable(), sameType: z.boolean(), namespaces: z.array(z.string()) }),
        first: EntrySchema,
        children: z.array(EntrySchema),
      }),
    ]),
  ),
}) satisfies z.ZodType<SummaryViewAnswer>

const SummarySchema = z.object({ checks_summary: z.array(z.unknown()).nullish(), [SUMMARY_VIEW_PARAM]: z.unknown().optional() })

/** Every entry (canary-checker, Mission Control, or Lookout without the list's question), or Lookout's page for the list. */
type SummaryAnswer = { checks: CheckSummary[]; view?: undefined } | { view: SummaryViewAnswer; checks?: undefined }

async function fetchSummaryAnswer(args: ApiArgs, timeRange: DurationKey, init?: ApiInit, view?: SummaryViewRequest): Promise<SummaryAnswer> {
  const start = `start=${encodeURIComponent(durationToApiStart(timeRange, new Date()))}`
  const question = view ? `&${SUMMARY_VIEW_PARAM}=${encodeURIComponent(JSON.stringify(view))}` : ''
  const { data } = await apiJson<unknown>(args, `/canary/api/summary?${start}${question}`, init)
  const summary = SummarySchema.safeParse(data)
  if (!summary.success) return { checks: [] }
  const answer = summary.data[SUMMARY_VIEW_PARAM]
  if (view && answer !== undefined) {
    const parsed = ViewAnswerSchema.safeParse(answer)
    if (!parsed.success) throw new GatewayError(502, `The health summary's list answer was not understood: ${parsed.error.issues[0]?.message ?? 'bad shape'}`, 'http')
    return { view: parsed.data }
  }
  return { checks: (summary.data.checks_summary ?? []).filter(isSummaryEntry) }
}

export async function fetchSummary(args: ApiArgs, timeRange: DurationKey, init?: ApiInit): Promise<CheckSummary[]> {
  return (await fetchSummaryAnswer(args, timeRange, init)).checks ?? []
}

/** One summary request per credential and question at a time (`fresh` starts a new one). */
function sharedSummary(args: ApiArgs, timeRange: DurationKey, view: SummaryViewRequest | undefined, fresh: boolean): Promise<SummaryAnswer> {
  const key = `${timeRange}:${credentialKey(args.request)}:${view ? JSON.stringify(view) : ''}`
  const running = summariesInFlight.get(key)
  if (running && !fresh) return running
  const answer = fetchSummaryAnswer(args, timeRange, undefined, view)
  summariesInFlight.set(key, answer)
  const settle = () => {
    if (summariesInFlight.get(key) === answer) summariesInFlight.delete(key)
  }
  answer.then(settle, settle)
  return answer
}

/**
 * The summary for this credential and window, joining a request already in flight for both
 * (`fresh` starts a new one instead, for a caller that must see a write it just made).
 */
export async function loadSummary(args: ApiArgs, timeRange: DurationKey, fresh: boolean): Promise<CheckSummary[]> {
  return (await sharedSummary(args, timeRange, undefined, fresh)).checks ?? []
}

/**
 * The /health list: the one place that decides who filters, groups and pages it. The summary
 * request carries the list's question (contract/canary/summary-view.ts); Lookout's embedded
 * backend answers with the page and its counts, computed in SQL; any other canary API
 * (canary-checker, Mission Control, in upstream mode or for a hosted organisation) ignores the
 * question and answers every entry, and the list is built here from them as before.
 * `agentNames` is read only in the second case (the backend names agents itself).
 */
export async function loadHealthView(args: ApiArgs, params: HealthParams, agentNames: () => Promise<ReadonlyMap<string, string>>, fresh = false): Promise<HealthView> {
  const answer = await sharedSummary(args, params.timeRange, summaryViewRequest(params), fresh)
  if (answer.view) return viewFromAnswer(answer.view, params)
  return buildHealthView(answer.checks, params, params.tabBy === 'agent_id' ? await agentNames() : new Map())
}

/** Agent id → name, for the Agent tabs; empty when agents cannot be read. */
export async function loadAgentNames(args: ApiArgs): Promise<Map<string, string>> {
  try {
    const agents = requireData(await dbClient(args).from('agents').select('id,name').returns<{ id: string; name: string }[]>())
    return new Map((agents ?? []).map((agent) => [agent.id, agent.name]))
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
  /** `labels` are the canary's merged with the check's own (the check's win), as the list filters by them. */
  check: CheckRecord
  nextRun: NextRun
  graph: GraphData | null
  history: { rows: HistoryRow[]; total: number; pageCount: number } | null
  specYaml: string | null
  relationships: Relationship[] | null
  error: string | null
}

const CHECK_COLUMNS = 'id,canary_id,name,type,namespace,description,icon,severity,labels,spec,status,last_runtime,last_transition_time,next_runtime,deleted_at'

const GraphSchema = z
  .object({
    status: z.array(z.object({ time: z.string() }).passthrough()).nullish().transform((points) => (points ?? []) as GraphPoint[]),
    latency: z.object({ p95: z.number().optional(), p97: z.number().optional(), p99: z.number().optional() }).catch({}),
    uptime: z
      .object({ passed: z.number().catch(0), failed: z.number().catch(0) })
      .catch({ passed: 0, failed: 0 }),
  })
  .catch({ status: [], latency: {}, uptime: { passed: 0, failed: 0 } })

async function loadGraph(args: ApiArgs, checkId: string, timeRange: DurationKey): Promise<GraphData> {
  const start = encodeURIComponent(durationToApiStart(timeRange, new Date()))
  const { data } = await apiJson<unknown>(args, `/canary/api/graph?check=${checkId}&count=300&start=${start}`)
  const graph = GraphSchema.parse(data ?? {})
  return { points: thinGraph(graph.status), latency: graph.latency, uptime: graph.uptime }
}

async function loadHistory(args: ApiArgs, checkId: string, detail: DetailParams): Promise<CheckDetail['history']> {
  let query = dbClient(args)
    .from('check_statuses')
    .select('time,duration,status,message,error,invalid', { count: 'exact' })
    .eq('check_id', checkId)
  if (detail.status !== 'all') query = query.eq('status', detail.status === 'healthy')
  if (detail.durationMs !== null) query = query.gte('duration', detail.durationMs)
  const from = (detail.page - 1) * HISTORY_PAGE_SIZE
  const { rows, total } = requirePage(await query.order('time', { ascending: false }).range(from, from + HISTORY_PAGE_SIZE - 1).returns<HistoryRow[]>())
  return { rows, total, pageCount: Math.max(1, Math.ceil(total / HISTORY_PAGE_SIZE)) }
}

type Related = { id: string; name: string; type: string | null }

async function loadRelationships(args: ApiArgs, checkId: string): Promise<Relationship[]> {
  const db = dbClient(args)
  const [components, configs] = await Promise.all([
    db.from('check_component_relationships').select('component_id').eq('check_id', checkId).is('deleted_at', null).returns<{ component_id: string }[]>(),
    db.from('check_config_relationships').select('config_id').eq('check_id', checkId).is('deleted_at', null).returns<{ config_id: string }[]>(),
  ])
  const componentIds = [...new Set(requireData(components).map((row) => row.component_id))].slice(0, 100)
  const configIds = [...new Set(requireData(configs).map((row) => row.config_id))].slice(0, 100)
  const [componentRows, configRows] = await Promise.all([
    componentIds.length ? db.from('components').select('id,name,type').in('id', componentIds).returns<Related[]>().then(requireData) : [],
    configIds.length ? db.from('config_items').select('id,name,type').in('id', configIds).returns<Related[]>().then(requireData) : [],
  ])
  return [
    ...componentRows.map((row) => ({ id: row.id, name: row.name, type: row.type, kind: 'component' as const, href: `/topology/${row.id}` })),
    ...configRows.map((row) => ({ id: row.id, name: row.name, type: row.type, kind: 'config' as const, href: `/catalog/${row.id}` })),
  ]
}

function labelsOf(value: unknown): Record<string, string> {
  if (!value || typeof value !== 'object' || Array.isArray(value)) return {}
  return Object.fromEntries(Object.entries(value).filter((entry): entry is [string, string] => typeof entry[1] === 'string'))
}

/**
 * Everything the panel shows for one check. Only the open tab's data is read (plus the graph,
 * whose figures fill the header); a failing part becomes a message in the panel rather than
 * failing the page.
 */
export async function loadCheckDetail(args: ApiArgs, checkId: string, timeRange: DurationKey, detail: DetailParams): Promise<CheckDetail | null> {
  const db = dbClient(args)
  const record = requireData(await db.from('checks').select(CHECK_COLUMNS).eq('id', checkId).limit(1).returns<CheckRecord[]>())[0]
  if (!record) return null
  const canary = requireData(
    await db.from('canaries').select('id,source,agent_id,deleted_at,annotations,labels,spec').eq('id', record.canary_id).limit(1).returns<(ScheduledCanary & { labels: unknown })[]>(),
  )[0] ?? null
  // The summary the list filters by merges the same way (canary-summary.ts): the check's own labels win.
  const check = { ...record, labels: { ...labelsOf(canary?.labels), ...labelsOf(record.labels) } }
  const nextRun = nextRunOf(record, canary, new Date())
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
  return { check, nextRun, graph, history, specYaml, relationships, error: failures.length ? failures.join('; ') : null }
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

export const DEFAULT_REFRESH_S = 30
const MIN_REFRESH_S = 5
const MAX_REFRESH_S = 3600

/** `refresh` in seconds, clamped so a typo cannot hammer the API or freeze the board. */
export function parseRefreshSeconds(value: string | null): number {
  if (!value || !/^\d{1,6}$/.test(value)) return DEFAULT_REFRESH_S
  return Math.min(MAX_REFRESH_S, Math.max(MIN_REFRESH_S, Number(value)))
}

/**
 * Which credential the board reads with: an access token in the URL, else whatever the visitor
 * sent (session cookie). Without either the backend decides: it serves the summary anonymously
 * when LOOKOUT_PUBLIC_HEALTH=true and answers 401 (a sign-in redirect here) otherwise.
 */
export function boardCredential(request: Request): { authorization?: string; mode: 'token' | 'session' } {
  const token = new URL(request.url).searchParams.get('token')
  if (token) return { authorization: `Bearer ${token}`, mode: 'token' }
  return { mode: 'session' }
}

/** The last good answer per credential, shown with a 'stale since' banner while the API is down. */
const lastGood = new Map<string, { checks: CheckSummary[]; at: string }>()
const LAST_GOOD_LIMIT = 100

function keyOf(request: Request, authorization: string | undefined): string {
  return createHash('sha256').update(authorization ?? request.headers.get('cookie') ?? '').digest('hex')
}

function isOutage(error: unknown): boolean {
  return error instanceof GatewayError && (error.kind !== 'http' || error.status >= 500)
}

export type BoardData = { checks: CheckSummary[]; fetchedAt: string; staleSince: string | null; error: string | null }

export async function loadBoard(args: ApiArgs): Promise<BoardData> {
  const credential = boardCredential(args.request)
  const key = keyOf(args.request, credential.authorization)
  const headers = credential.authorization ? { authorization: credential.authorization } : undefined
  try {
    const checks = await fetchSummary(args, '1h', headers ? { headers } : undefined)
    const at = new Date().toISOString()
    lastGood.delete(key)
    lastGood.set(key, { checks, at })
    if (lastGood.size > LAST_GOOD_LIMIT) lastGood.delete(lastGood.keys().next().value!)
    return { checks, fetchedAt: at, staleSince: null, error: null }
  } catch (error) {
    if (!isOutage(error)) throw error
    consoleLog.warn({ err: error }, 'health board: backend unreachable, showing the last good data')
    const cached = lastGood.get(key)
    const message = (error as Error).message
    if (cached) return { checks: cached.checks, fetchedAt: cached.at, staleSince: cached.at, error: message }
    return { checks: [], fetchedAt: new Date().toISOString(), staleSince: null, error: message }
  }
}
