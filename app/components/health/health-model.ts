import type { FilterMap } from '#app/lib/filter-string.ts'
import type { DurationKey } from '#app/lib/durations.ts'
import { toDate } from '#app/lib/format.ts'
import {
  ALL_TAB,
  effectiveGroupBy,
  LABEL_PREFIX,
  NO_GROUPING,
  SORT_COLUMNS,
  type GroupStats,
  type LabelFilterSets,
  type SortColumn,
  type SummaryViewAnswer,
  type SummaryViewRequest,
} from '#contract/canary/summary-view.ts'

/**
 * The health list as pure data: the URL's parameters, the filter → tab → sort → group → page
 * pipeline of spec 001 §2–§4, and the options the toolbar offers. The loader runs it on the
 * server so the browser only ever receives one page of rows. Lookout's embedded backend runs
 * the same pipeline in SQL (contract/canary/summary-view.ts): `viewFromAnswer` turns its
 * answer into the same HealthView, `buildHealthView` computes it from a whole summary.
 */

export type CheckSummary = {
  id: string
  canary_id?: string
  canary_name?: string | null
  canary_namespace?: string | null
  agent_id?: string
  name: string
  namespace?: string | null
  type?: string
  status?: string
  description?: string
  endpoint?: string
  icon?: string
  severity?: string
  labels?: Record<string, string> | null
  uptime?: { passed?: number; failed?: number; last_pass?: string; last_fail?: string }
  latency?: { p95?: number; p97?: number; p99?: number; rolling1h?: number }
  last_runtime?: string
  last_transition_time?: string
  deleted_at?: string
}

export const NIL_AGENT_ID = '00000000-0000-0000-0000-000000000000'
export const PAGE_SIZES = [50, 100, 200] as const
export const DEFAULT_PAGE_SIZE = 50
export { ALL_TAB, NO_GROUPING, SORT_COLUMNS, type SortColumn }
export const DEFAULT_GROUP_BY = 'canary_name'
export const DEFAULT_TAB_BY = 'namespace'

export type HealthParams = {
  checkId: string | null
  timeRange: DurationKey
  layout: 'table' | 'card'
  query: string
  groupBy: string
  tabBy: string
  tab: string
  hidePassing: boolean
  labels: FilterMap
  sortBy: SortColumn | null
  sortDesc: boolean
  page: number
  pageSize: number
  expanded: string[]
  pivot: { pivotBy: string | null; pivotLabel: string | null; pivotCellType: string | null }
}

/** The display name of a check: name, else description, else endpoint (spec 001 §2). */
export function checkDisplayName(check: Pick<CheckSummary, 'name' | 'description' | 'endpoint'>): string {
  return check.name || check.description || check.endpoint || ''
}

/** Latency shown: p95, else p97, else p99. */
export function shownLatency(latency: CheckSummary['latency']): number | null {
  return latency?.p95 || latency?.p97 || latency?.p99 || null
}

export const labelFilterId = (key: string, value: string) => `canary:${key}:${value}`

function parseLabelFilterId(id: string): { key: string; value: string } | null {
  const match = /^canary:([^:]*):(.*)$/s.exec(id)
  return match ? { key: match[1]!, value: match[2]! } : null
}

export function isPassing(check: CheckSummary): boolean {
  return check.status === 'healthy'
}

function matchesQuery(check: CheckSummary, query: string): boolean {
  if (!query) return true
  const needle = query.toLowerCase()
  return [check.description, check.canary_name, check.endpoint, check.name].some((field) => field?.toLowerCase().includes(needle))
}

/** The URL's label filters (id → 1 | -1) as the sets both sides apply. */
export function labelFilterSets(filters: FilterMap): LabelFilterSets {
  const include = new Map<string, string[]>()
  const exclude: [string, string][] = []
  for (const [id, state] of Object.entries(filters)) {
    const parsed = parseLabelFilterId(id)
    if (!parsed) continue
    if (state === -1) exclude.push([parsed.key, parsed.value])
    else if (state === 1) include.set(parsed.key, [...(include.get(parsed.key) ?? []), parsed.value])
  }
  return { include: [...include.entries()], exclude }
}

/**
 * Includes: for every key with an included value the check must carry one of them; excludes:
 * any excluded pair drops the check.
 */
function matchesLabels(check: CheckSummary, sets: LabelFilterSets): boolean {
  for (const [key, value] of sets.exclude) if (check.labels?.[key] === value) return false
  for (const [key, values] of sets.include) {
    const actual = check.labels?.[key]
    if (actual === undefined || !values.includes(actual)) return false
  }
  return true
}

export type Option = { value: string; label: string }

/** Every label pair the checks carry (null for a value that is not a string), once each. */
export type LabelPairs = readonly (readonly [key: string, value: string | null])[]

export function labelPairsOf(checks: readonly CheckSummary[]): LabelPairs {
  const pairs = new Map<string, [string, string | null]>()
  for (const check of checks) {
    for (const [key, value] of Object.entries(check.labels ?? {})) {
      const text = typeof value === 'string' ? value : null
      pairs.set(JSON.stringify([key, text]), [key, text])
    }
  }
  return [...pairs.values()]
}

function labelKeys(pairs: LabelPairs): string[] {
  return [...new Set(pairs.map(([key]) => key))].sort((a, b) => a.localeCompare(b))
}

const pairsOf = (source: readonly CheckSummary[] | { pairs: LabelPairs }) => ('pairs' in source ? source.pairs : labelPairsOf(source))

/** Group By options (spec 001 §2): the fixed four, then one per label key. */
export function groupByOptions(source: readonly CheckSummary[] | { pairs: LabelPairs }): Option[] {
  return [
    { value: NO_GROUPING, label: 'No Grouping' },
    { value: 'canary_name', label: 'Group Name' },
    { value: 'name', label: 'Name' },
    { value: 'description', label: 'Description' },
    { value: 'type', label: 'Type' },
    ...labelKeys(pairsOf(source)).map((key) => ({ value: `${LABEL_PREFIX}${key}`, label: key })),
  ]
}

/** Tab By options: Namespace, Agent, then one per label key. */
export function tabByOptions(source: readonly CheckSummary[] | { pairs: LabelPairs }): Option[] {
  return [
    { value: 'namespace', label: 'Namespace' },
    { value: 'agent_id', label: 'Agent' },
    ...labelKeys(pairsOf(source)).map((key) => ({ value: `${LABEL_PREFIX}${key}`, label: key })),
  ]
}

export type LabelOption = { key: string; values: string[]; boolean: boolean }

/** Label filters: boolean-valued keys become toggles, the rest multi-selects. */
export function labelOptions(source: readonly CheckSummary[] | { pairs: LabelPairs }): LabelOption[] {
  const byKey = new Map<string, Set<string>>()
  for (const [key, value] of pairsOf(source)) {
    if (value === null) continue
    byKey.set(key, (byKey.get(key) ?? new Set()).add(value))
  }
  return [...byKey.entries()]
    .sort(([a], [b]) => a.localeCompare(b))
    .map(([key, values]) => {
      const list = [...values].sort((a, b) => a.localeCompare(b))
      return { key, values: list, boolean: list.every((value) => value === 'true' || value === 'false') }
    })
}

/** Badge on the filter toggle: hide-passing counts 1, plus each included or excluded label. */
export function activeFilterCount(params: Pick<HealthParams, 'hidePassing' | 'labels'>): number {
  return (params.hidePassing ? 1 : 0) + Object.keys(params.labels).length
}

/** A label's value as text; a label that is not a string (a number from a hand-written spec) reads as its JSON. */
function labelText(value: unknown): string {
  if (value === undefined || value === null) return ''
  return typeof value === 'string' ? value : JSON.stringify(value)
}

function fieldValue(check: CheckSummary, field: string, agentNames: ReadonlyMap<string, string>): string {
  if (field.startsWith(LABEL_PREFIX)) return labelText(check.labels?.[field.slice(LABEL_PREFIX.length)])
  switch (field) {
    case 'namespace':
      return check.namespace || 'none'
    case 'agent_id': {
      const id = check.agent_id ?? NIL_AGENT_ID
      return agentNames.get(id) ?? (id === NIL_AGENT_ID ? 'local' : id)
    }
    case 'canary_name':
      return check.canary_name ?? ''
    case 'name':
      return check.name ?? ''
    case 'description':
      return check.description ?? ''
    case 'type':
      return check.type ?? ''
    default:
      return ''
  }
}

export type CheckRow = {
  kind: 'check'
  id: string
  name: string
  icon: string | null
  type: string
  namespace: string
  status: 'healthy' | 'unhealthy' | 'unknown'
  passed: number
  failed: number
  latency: number | null
  lastRuntime: string | null
  lastTransition: string | null
  deleted: boolean
  description: string | null
  labels: Record<string, string>
}

export type GroupRow = {
  kind: 'group'
  key: string
  name: string
  icon: string | null
  type: string
  description: string | null
  namespaces: string[]
  status: 'good' | 'mixed' | 'bad'
  childCount: number
  passingChildren: number
  latency: number | null
  expanded: boolean
  children: CheckRow[]
}

export type HealthRow = CheckRow | GroupRow

export function toCheckRow(check: CheckSummary): CheckRow {
  return {
    kind: 'check',
    id: check.id,
    name: checkDisplayName(check),
    icon: check.icon ?? null,
    type: check.type ?? '',
    namespace: check.namespace ?? '',
    status: check.status === 'healthy' ? 'healthy' : check.status === 'unhealthy' ? 'unhealthy' : 'unknown',
    passed: check.uptime?.passed ?? 0,
    failed: check.uptime?.failed ?? 0,
    latency: shownLatency(check.latency),
    lastRuntime: check.last_runtime ?? null,
    lastTransition: check.last_transition_time ?? null,
    deleted: Boolean(check.deleted_at),
    description: check.description ?? null,
    labels: check.labels ?? {},
  }
}

/** Uptime as a fraction: passed over total for a check, fully passing children for a group. */
export function rowUptime(row: HealthRow): number | null {
  if (row.kind === 'group') return row.childCount ? row.passingChildren / row.childCount : null
  const total = row.passed + row.failed
  return total ? row.passed / total : null
}

function healthRank(row: HealthRow): number {
  if (row.kind === 'group') return row.status === 'bad' ? 0 : row.status === 'mixed' ? 1 : 2
  return row.status === 'unhealthy' ? 0 : row.status === 'unknown' ? 1 : 2
}

function compareRows(a: HealthRow, b: HealthRow, column: SortColumn): number {
  switch (column) {
    case 'health':
      return healthRank(a) - healthRank(b)
    case 'uptime':
      return (rowUptime(a) ?? -1) - (rowUptime(b) ?? -1)
    case 'latency':
      return (a.latency ?? -1) - (b.latency ?? -1)
    case 'name':
      return a.name.toLowerCase().localeCompare(b.name.toLowerCase())
  }
}

export function sortRows<T extends HealthRow>(rows: T[], column: SortColumn | null, desc: boolean): T[] {
  const byName = (a: T, b: T) => compareRows(a, b, 'name')
  const sorted = [...rows]
  if (!column) return sorted.sort(byName)
  sorted.sort((a, b) => {
    const primary = compareRows(a, b, column)
    return (desc ? -primary : primary) || byName(a, b)
  })
  return sorted
}

/** What a group row shows of its checks, counted here (the backend counts the same in SQL). */
export function groupStats(checks: readonly CheckRow[]): GroupStats {
  const latencies = checks.map((check) => check.latency).filter((value): value is number => value !== null)
  const first = checks[0]
  return {
    count: checks.length,
    healthy: checks.filter((check) => check.status === 'healthy').length,
    unhealthy: checks.filter((check) => check.status === 'unhealthy').length,
    passing: checks.filter((check) => check.failed === 0 && check.passed > 0).length,
    latency: latencies.length ? Math.round(latencies.reduce((sum, value) => sum + value, 0) / latencies.length) : null,
    sameType: checks.every((check) => check.type === first?.type),
    namespaces: [...new Set(checks.map((check) => check.namespace).filter(Boolean))],
  }
}

/** good when every child passes, bad when every child fails, mixed otherwise (spec 001 §4). */
function groupOf(key: string, stats: GroupStats, first: CheckRow, expanded: boolean, children: CheckRow[]): GroupRow {
  return {
    kind: 'group',
    key,
    name: key || 'none',
    icon: first.icon,
    type: stats.sameType ? first.type : 'mixed',
    description: first.description,
    namespaces: [...stats.namespaces].sort(),
    status: stats.healthy === stats.count ? 'good' : stats.unhealthy === stats.count ? 'bad' : 'mixed',
    childCount: stats.count,
    passingChildren: stats.passing,
    latency: stats.latency,
    expanded,
    children: expanded ? children : [],
  }
}

export type HealthView = {
  tabs: { value: string; label: string; count: number }[]
  activeTab: string
  rows: HealthRow[]
  totalRows: number
  totalChecks: number
  pageCount: number
  page: number
  counts: { all: number; healthy: number; unhealthy: number }
  groupByOptions: Option[]
  tabByOptions: Option[]
  labelOptions: LabelOption[]
  filterCount: number
}

/**
 * The whole pipeline: hide passing, search, labels, tabs (computed before the tab filter so
 * every tab shows its count), tab selection, sort, group, page.
 */
export function buildHealthView(checks: readonly CheckSummary[], params: HealthParams, agentNames: ReadonlyMap<string, string> = new Map()): HealthView {
  const labels = labelFilterSets(params.labels)
  let filtered = params.hidePassing ? checks.filter((check) => !isPassing(check)) : [...checks]
  filtered = filtered.filter((check) => matchesQuery(check, params.query) && matchesLabels(check, labels))

  const tabCounts = new Map<string, number>()
  for (const check of filtered) {
    const value = fieldValue(check, params.tabBy, agentNames)
    tabCounts.set(value, (tabCounts.get(value) ?? 0) + 1)
  }
  const activeTab = params.tab !== ALL_TAB && tabCounts.has(params.tab) ? params.tab : ALL_TAB
  const allTabCount = filtered.length
  if (activeTab !== ALL_TAB) filtered = filtered.filter((check) => fieldValue(check, params.tabBy, agentNames) === activeTab)

  const checkRows = filtered.map(toCheckRow)
  let rows: HealthRow[]
  const groupBy = effectiveGroupBy(params.groupBy)
  if (groupBy === null) {
    rows = sortRows(checkRows, params.sortBy, params.sortDesc)
  } else {
    const groups = new Map<string, CheckRow[]>()
    filtered.forEach((check, index) => {
      const key = fieldValue(check, groupBy, agentNames)
      const list = groups.get(key) ?? []
      list.push(checkRows[index]!)
      groups.set(key, list)
    })
    const expanded = new Set(params.expanded)
    rows = sortRows(
      [...groups.entries()].map(([key, children]) =>
        groupOf(key, groupStats(children), children[0]!, expanded.has(key), expanded.has(key) ? sortRows(children, params.sortBy, params.sortDesc) : []),
      ),
      params.sortBy,
      params.sortDesc,
    )
  }

  const pageCount = Math.max(1, Math.ceil(rows.length / params.pageSize))
  const page = Math.min(params.page, pageCount)
  const healthy = checks.filter(isPassing).length
  const pairs = labelPairsOf(checks)
  return {
    ...viewFrame(params, { all: checks.length, healthy }, pairs, [...tabCounts.entries()], allTabCount, filtered.length),
    activeTab,
    rows: rows.slice((page - 1) * params.pageSize, page * params.pageSize),
    totalRows: rows.length,
    pageCount,
    page,
  }
}

/** The parts of a view both pipelines derive alike from their counts. */
function viewFrame(
  params: HealthParams,
  counts: { all: number; healthy: number },
  pairs: LabelPairs,
  tabCounts: readonly (readonly [string, number])[],
  allTabCount: number,
  totalChecks: number,
): Omit<HealthView, 'activeTab' | 'rows' | 'totalRows' | 'pageCount' | 'page'> {
  const tabValues = [...tabCounts].sort(([a], [b]) => a.localeCompare(b))
  return {
    tabs: [{ value: ALL_TAB, label: ALL_TAB, count: allTabCount }, ...tabValues.map(([value, count]) => ({ value, label: value || 'none', count }))],
    totalChecks,
    counts: { all: counts.all, healthy: counts.healthy, unhealthy: counts.all - counts.healthy },
    groupByOptions: groupByOptions({ pairs }),
    tabByOptions: tabByOptions({ pairs }),
    labelOptions: labelOptions({ pairs }),
    filterCount: activeFilterCount(params),
  }
}

/** The list's question for Lookout's summary extension (contract/canary/summary-view.ts). */
export function summaryViewRequest(params: HealthParams): SummaryViewRequest {
  return {
    hidePassing: params.hidePassing,
    query: params.query.toLowerCase(),
    labels: labelFilterSets(params.labels),
    tabBy: params.tabBy,
    tab: params.tab,
    groupBy: effectiveGroupBy(params.groupBy) ?? NO_GROUPING,
    sortBy: params.sortBy,
    sortDesc: params.sortDesc,
    page: params.page,
    pageSize: params.pageSize,
    expanded: params.expanded,
  }
}

/**
 * The HealthView from the embedded backend's answer: the backend filtered, counted, sorted and
 * paged in SQL; rows are made here from its summary entries as `buildHealthView` makes them.
 */
export function viewFromAnswer(answer: SummaryViewAnswer, params: HealthParams): HealthView {
  const tabTotal = answer.tabs.reduce((sum, [, count]) => sum + count, 0)
  const activeTab = params.tab !== ALL_TAB && answer.tabs.some(([value]) => value === params.tab) ? params.tab : ALL_TAB
  const expanded = new Set(params.expanded)
  const rows = answer.rows.map((row): HealthRow => {
    if (row.kind === 'check') return toCheckRow(row.check as CheckSummary)
    const open = expanded.has(row.key)
    return groupOf(row.key, row.stats, toCheckRow(row.first as CheckSummary), open, open ? row.children.map((child) => toCheckRow(child as CheckSummary)) : [])
  })
  return {
    ...viewFrame(params, answer.counts, answer.labels, answer.tabs, tabTotal, answer.totalChecks),
    activeTab,
    rows,
    totalRows: answer.totalRows,
    pageCount: Math.max(1, Math.ceil(answer.totalRows / params.pageSize)),
    page: answer.page,
  }
}

/** Time-ago next to the health dot: only for last runs older than 1 h and at most 7 days. */
export function showRuntimeAge(lastRuntime: string | null, now: Date): boolean {
  const date = toDate(lastRuntime)
  if (!date) return false
  const age = now.getTime() - date.getTime()
  return age > 3_600_000 && age <= 7 * 86_400_000
}

/** Transition time-ago: shown up to 7 days. */
export function showTransitionAge(lastTransition: string | null, now: Date): boolean {
  const date = toDate(lastTransition)
  if (!date) return false
  return now.getTime() - date.getTime() <= 7 * 86_400_000
}

/** The URL with some parameters changed (null removes one) and the page reset unless set. */
export function withParams(search: URLSearchParams | string, changes: Record<string, string | null>, keepPage = false): string {
  const params = new URLSearchParams(search)
  if (!keepPage && !('page' in changes)) params.delete('page')
  for (const [name, value] of Object.entries(changes)) {
    if (value === null) params.delete(name)
    else params.set(name, value)
  }
  const text = params.toString()
  return text ? `?${text}` : '?'
}
