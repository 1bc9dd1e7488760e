import { apiJson, type ApiArgs, type ApiInit } from './gateway.server.ts'
import { dbClient, requireData } from './data-client.server.ts'
import { listPlaybooksFor, type RunnablePlaybook } from './playbooks.server.ts'
import { FINISHED_INCIDENT_STATUSES } from '#contract/incident-vocabulary.ts'
import type { TopologyComponentNode, TopologyResponse } from '#contract/topology/topology-tree.ts'
import {
  NODE_INFO_LABELS,
  cardProperties,
  componentIcon,
  healthOf,
  type ChildSummary,
  type TopologyCardData,
  type TopologyParams,
} from '#app/components/topology/topology-model.ts'

/**
 * The topology domain's calls: the component tree (`GET /canary/api/topology`, http-api §2.6.4)
 * and, for one component's side panel, its checks, configs, incidents, insights, teams and the
 * playbooks that may run on it (`/playbook/list`). /topology, /topology/{id} and /view/topology/{id}
 * call these.
 */

/** Properties a card shows; the side panel shows them all. */
const CARD_PROPERTY_LIMIT = 6

export type TopologyTreeQuery = {
  id?: string
  depth: number
  team?: string | null
  labels?: string | null
  status?: string | null
  type?: string | null
  sortBy?: string
  sortOrder?: 'asc' | 'desc'
  showHidden: boolean
}

/** The tree as the API answers it (a null body, which the platform may send, reads as empty). */
export async function getTopologyTree(args: ApiArgs, query: TopologyTreeQuery, init?: ApiInit): Promise<TopologyResponse> {
  const params = new URLSearchParams({ depth: String(query.depth) })
  if (query.id) params.set('id', query.id)
  if (query.team) params.set('team', query.team)
  if (query.labels) params.set('labels', query.labels)
  if (query.status) params.set('status', query.status)
  if (query.type) params.set('type', query.type)
  if (query.sortBy) params.set('sortBy', query.sortBy === 'name' ? 'name' : `field:${query.sortBy}`)
  if (query.sortOrder) params.set('sortOrder', query.sortOrder)
  // Hidden components are left out unless asked for (the platform's API answers them only with hidden=true).
  params.set('hidden', query.showHidden ? 'true' : 'false')
  const { data } = await apiJson<TopologyResponse | null>(args, `/canary/api/topology?${params.toString()}`, init)
  return {
    components: Array.isArray(data?.components) ? data.components : [],
    healthStatuses: data?.healthStatuses ?? [],
    teams: data?.teams ?? [],
    tags: data?.tags ?? {},
    types: data?.types ?? [],
  }
}

const sumValues = (map: Record<string, unknown> | undefined): number =>
  Object.values(map ?? {}).reduce<number>((total, value): number => total + (typeof value === 'number' ? value : value && typeof value === 'object' ? sumValues(value as Record<string, unknown>) : 0), 0)

/** Direct children by health: the child list when the answer carries it, else the rolled-up summary. */
function childSummary(node: TopologyComponentNode): ChildSummary {
  const summary: ChildSummary = { total: 0, healthy: 0, unhealthy: 0, warning: 0, unknown: 0 }
  if (node.components?.length) {
    for (const child of node.components) {
      const health = healthOf(child.health, child.status) as keyof Omit<ChildSummary, 'total'>
      summary[health] += 1
      summary.total += 1
    }
    return summary
  }
  for (const key of ['healthy', 'unhealthy', 'warning', 'unknown'] as const) {
    const value = node.summary?.[key]
    if (typeof value === 'number' && value > 0) {
      summary[key] = value
      summary.total += value
    }
  }
  return summary
}

function nodeInfo(node: TopologyComponentNode): TopologyCardData['nodeInfo'] {
  if (!/node/i.test(node.type)) return []
  const properties = new Map<string, string>()
  for (const raw of Array.isArray(node.properties) ? node.properties : []) {
    if (!raw || typeof raw !== 'object') continue
    const { name, text, value } = raw as { name?: unknown; text?: unknown; value?: unknown }
    if (typeof name === 'string' && (typeof text === 'string' || typeof value === 'number')) properties.set(name.toLowerCase(), typeof text === 'string' && text ? text : String(value))
  }
  const labels = Object.entries(node.labels ?? {})
  const info: TopologyCardData['nodeInfo'] = []
  for (const label of NODE_INFO_LABELS) {
    if (label === 'created') {
      info.push({ label, value: node.created_at, isDate: true })
      continue
    }
    if (label === 'node') continue
    const fromProperty = properties.get(label.toLowerCase())
    const fromLabel = labels.find(([key]) => key === label || key.endsWith(`/${label}`))?.[1]
    const value = fromProperty ?? fromLabel
    if (value) info.push({ label, value })
  }
  return info
}

/** What a card shows of one component. */
export function toCard(node: TopologyComponentNode): TopologyCardData {
  return {
    id: node.id,
    name: node.name || node.external_id,
    type: node.type ?? '',
    icon: componentIcon(node.icon, node.type),
    health: healthOf(node.health, node.status),
    status: node.status ?? '',
    statusReason: node.status_reason ?? null,
    text: node.text ?? null,
    hidden: node.hidden === true,
    properties: cardProperties(node.properties, CARD_PROPERTY_LIMIT),
    nodeInfo: nodeInfo(node),
    checks: Object.entries(node.checks ?? {}).filter(([, count]) => count > 0),
    insights: sumValues(node.analysis),
    incidents: sumValues(node.incidents),
    children: childSummary(node),
    teams: node.team_names ?? [],
    updatedAt: node.updated_at ?? null,
  }
}

const SORT_VALUE: Record<TopologyParams['sortBy'], (node: TopologyComponentNode) => string> = {
  name: (node) => node.name.toLowerCase(),
  status: (node) => node.status ?? '',
  type: (node) => node.type ?? '',
  updated_at: (node) => node.updated_at ?? node.created_at,
}

export type TopologyPage = {
  /** The component the page is about (/topology/{id}); null on /topology. */
  root: TopologyComponentNode | null
  cards: TopologyCardData[]
  total: number
  page: number
  pageCount: number
  facets: { teams: string[]; types: string[]; statuses: string[]; labels: string[] }
}

/**
 * One page of cards: the roots (or `id`'s children), filtered and sorted as the URL says. Only
 * one level below the cards is asked for — the cards count their children from it or from the
 * rolled-up summary — so a topology of thousands costs one page of cards, not the whole tree.
 * Team, search and hidden are also applied here, since an upstream may ignore them (§2.6.4).
 */
export async function loadTopologyPage(args: ApiArgs, params: TopologyParams, options: { id?: string; showHidden: boolean; init?: ApiInit }): Promise<TopologyPage | null> {
  const tree = await getTopologyTree(args, {
    id: options.id,
    depth: 1,
    team: params.team,
    labels: params.label,
    status: params.status,
    type: params.type,
    sortBy: params.sortBy,
    sortOrder: params.sortOrder,
    showHidden: options.showHidden,
  }, options.init)
  let root: TopologyComponentNode | null = null
  let nodes = tree.components
  if (options.id) {
    root = tree.components.find((node) => node.id === options.id) ?? null
    if (!root) return null
    nodes = root.components ?? []
  }
  const needle = params.search.toLowerCase()
  const chosen = nodes.filter(
    (node) =>
      (options.showHidden || node.hidden !== true) &&
      (!params.team || (node.team_names ?? []).includes(params.team)) &&
      (!needle || node.name.toLowerCase().includes(needle) || (node.type ?? '').toLowerCase().includes(needle)),
  )
  const value = SORT_VALUE[params.sortBy]
  const direction = params.sortOrder === 'desc' ? -1 : 1
  chosen.sort((a, b) => {
    const left = value(a)
    const right = value(b)
    return (left < right ? -1 : left > right ? 1 : a.id < b.id ? -1 : 1) * direction
  })
  const pageCount = Math.max(1, Math.ceil(chosen.length / params.pageSize))
  const page = Math.min(params.page, pageCount)
  const cards = chosen.slice((page - 1) * params.pageSize, page * params.pageSize).map(toCard)
  const labels = Object.entries(tree.tags)
    .flatMap(([key, values]) => values.map((tagValue) => `${key}=${tagValue}`))
    .sort()
    .slice(0, 500)
  return {
    root: root ? { ...root, components: undefined } : null,
    cards,
    total: chosen.length,
    page,
    pageCount,
    facets: { teams: tree.teams, types: tree.types, statuses: tree.healthStatuses, labels },
  }
}

// ---- one component's side panel -------------------------------------------------------------

export type ComponentCheck = { id: string; name: string; type: string | null; status: string | null; severity: string | null }
export type ComponentConfig = { config_id: string; config: { id: string; name: string | null; type: string | null; health: string | null } | null }
export type ComponentIncident = { id: string; title: string; type: string | null; status: string; severity: string; created_at: string }
export type ComponentInsight = { id: string; config_id: string; name: string | null; analysis_type: string | null; analyzer: string | null; severity: string | null; summary: string | null; last_observed: string | null }

export type ComponentPanel = {
  checks: ComponentCheck[]
  configs: ComponentConfig[]
  incidents: ComponentIncident[]
  insights: ComponentInsight[]
  teams: string[]
  /** The playbooks that may run on the component (`/playbook/list`), or null while that API cannot answer. */
  playbooks: RunnablePlaybook[] | null
  /** Names of the component's log selectors. */
  logs: string[]
  /** The component's properties as stored (the tree may leave them out). */
  properties: unknown[]
}

/**
 * The component's checks, configs, open incidents, insights, teams and matching playbooks. The
 * reads start at once, beside the tree's, so the
 * page waits for the slower of the two rather than for both in turn; null when there is no such
 * component.
 */
export async function getComponentPanel(args: ApiArgs, id: string, pending: Promise<TopologyComponentNode | null>, canRunPlaybooks: boolean): Promise<ComponentPanel | null> {
  const db = dbClient(args)
  const [component, checks, configs, incidents, insights, teams, playbooks, own] = await Promise.all([
    pending,
    db.from('checks_by_component').select('id,name,type,status,severity').eq('component_id', id).order('name').limit(200).returns<ComponentCheck[]>(),
    db
      .from('config_component_relationships')
      .select('config_id,config:config_items!config_component_relationships_config_id_fkey(id,name,type,health)')
      .eq('component_id', id)
      .is('deleted_at', null)
      .limit(200)
      .returns<ComponentConfig[]>(),
    db
      .from('incidents_by_component')
      .select('id,title,type,status,severity,created_at')
      .eq('component_id', id)
      .not('status', 'in', `(${FINISHED_INCIDENT_STATUSES.join(',')})`)
      .order('created_at', { ascending: false })
      .limit(50)
      .returns<ComponentIncident[]>(),
    db.from('analysis_by_component').select('id,config_id,name,analysis_type,analyzer,severity,summary,last_observed').eq('component_id', id).limit(100).returns<ComponentInsight[]>(),
    db.from('team_components').select('team:teams(name)').eq('component_id', id).returns<{ team: { name: string } | null }[]>(),
    canRunPlaybooks ? listPlaybooksFor(args, { component_id: id }) : null,
    db.from('components').select('log_selectors,properties').eq('id', id).limit(1).returns<{ log_selectors: unknown; properties: unknown }[]>(),
  ])
  if (!component) return null
  const row = requireData(own)?.[0]
  const selectorNames = Array.isArray(row?.log_selectors)
    ? row.log_selectors.flatMap((selector: unknown) => (selector && typeof selector === 'object' && typeof (selector as { name?: unknown }).name === 'string' ? [(selector as { name: string }).name] : []))
    : []
  const teamNames = new Set([...(component.team_names ?? []), ...(requireData(teams) ?? []).flatMap((row) => (row.team?.name ? [row.team.name] : []))])
  return {
    checks: requireData(checks) ?? [],
    configs: (requireData(configs) ?? []).filter((row) => row.config !== null),
    incidents: requireData(incidents) ?? [],
    insights: requireData(insights) ?? [],
    teams: [...teamNames].sort(),
    playbooks,
    logs: [...new Set([...(component.logs ?? []), ...selectorNames])],
    properties: Array.isArray(component.properties) ? component.properties : Array.isArray(row?.properties) ? row.properties : [],
  }
}
