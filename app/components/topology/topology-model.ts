import type { IconName } from '#app/components/ui/icon-names.ts'
import { configTypeIcon } from '#app/lib/catalog-vocabulary.ts'

/**
 * What the topology screens render, shaped on the server from the `/canary/api/topology` tree
 * (contract/topology/topology-tree.ts): only what a card shows travels to the browser, so a page
 * of cards stays small whatever the size of the topology. Pure and zod-free (the browser loads it).
 */

export const TOPOLOGY_PAGE_SIZES = [25, 50, 100, 200] as const
export const DEFAULT_TOPOLOGY_PAGE_SIZE = 50
export const TOPOLOGY_SORTS = ['name', 'status', 'type', 'updated_at'] as const
export type TopologySort = (typeof TOPOLOGY_SORTS)[number]
export const TOPOLOGY_STATUSES = ['healthy', 'unhealthy', 'warning', 'error', 'info', 'unknown'] as const

/** The node info labels spec 002 §2 lists for components that are nodes, in its order. */
export const NODE_INFO_LABELS = ['node', 'created', 'instance-type', 'zone', 'os', 'containerRuntime', 'kernel', 'kubeProxy', 'kubelet', 'version', 'memory', 'cpu', 'ip'] as const

export type TopologyParams = {
  team: string | null
  label: string | null
  status: string | null
  type: string | null
  search: string
  sortBy: TopologySort
  sortOrder: 'asc' | 'desc'
  page: number
  pageSize: number
  /** `showHiddenComponents` of the URL: null when absent (the stored preference decides). */
  showHidden: boolean | null
}

export type CardProperty = { name: string; label: string; value: string; headline: boolean; tooltip?: string }

/** What the side panel shows; the loader builds it (app/lib/topology.server.ts). */
export type SidePanelData = {
  id: string
  name: string
  properties: CardProperty[]
  checks: { id: string; name: string; type: string | null; status: string | null }[]
  configs: { id: string; name: string | null; type: string | null; health: string | null }[]
  incidents: { id: string; title: string; status: string; severity: string; created_at: string }[]
  insights: { id: string; config_id: string; name: string | null; analysis_type: string | null; severity: string | null; summary: string | null }[]
  teams: string[]
  playbooks: { id: string; name: string; title: string }[] | null
  logs: string[]
  canLink: boolean
  description: string
}
export type ChildSummary = { total: number; healthy: number; unhealthy: number; warning: number; unknown: number }

export type TopologyCardData = {
  id: string
  name: string
  type: string
  icon: IconName
  /** healthy | unhealthy | warning | unknown: the card's colour. */
  health: string
  status: string
  statusReason: string | null
  text: string | null
  hidden: boolean
  properties: CardProperty[]
  nodeInfo: { label: string; value: string; isDate?: boolean }[]
  checks: [string, number][]
  insights: number
  incidents: number
  children: ChildSummary
  teams: string[]
  updatedAt: string | null
}

/** The health a card shows: the component's health, else what its status says. */
export function healthOf(health: string | null | undefined, status: string | null | undefined): string {
  const value = (health || status || '').toLowerCase()
  if (value === 'healthy' || value === 'unhealthy' || value === 'warning') return value
  if (value === 'error') return 'unhealthy'
  return 'unknown'
}

/** A card's badge tone per health (the four values `healthOf` gives). */
export const HEALTH_BADGE: Record<string, 'success' | 'danger' | 'warning' | 'outline'> = { healthy: 'success', unhealthy: 'danger', warning: 'warning', unknown: 'outline' }

export const HEALTH_BORDER: Record<string, string> = {
  healthy: 'border-l-success',
  unhealthy: 'border-l-danger',
  warning: 'border-l-warning',
  unknown: 'border-l-muted-foreground/40',
}

const ICON_KEYWORDS: [RegExp, IconName][] = [
  [/kubernetes|k8s|eks|aks|gke|cluster|namespace|node/i, 'LayoutGrid'],
  [/postgres|mysql|mongo|redis|database|db|sql|elastic/i, 'Table2'],
  [/nginx|ingress|web|http|network|api|service|lb/i, 'Workflow'],
  [/lock|auth|ory|vault|secret|cert/i, 'Lock'],
  [/search/i, 'Search'],
  [/go|java|python|node|nextjs|deploy|pod|container|docker/i, 'Boxes'],
  [/application|shop|store|cart|dollar|app/i, 'AppWindow'],
]

const keywordIcon = (value: string | null | undefined): IconName | null => (value ? (ICON_KEYWORDS.find(([pattern]) => pattern.test(value))?.[1] ?? null) : null)

/**
 * The sprite icon closest to the component's own icon name (the platform's icon names, such as
 * `postgres` or `nginx`), else its type's: a catalog type's icon when the type is one
 * (`Kubernetes::Pod`), else by keyword.
 */
export function componentIcon(icon: string | null | undefined, type: string | null | undefined): IconName {
  const byIcon = keywordIcon(icon)
  if (byIcon) return byIcon
  const byCatalogType = configTypeIcon(type)
  return byCatalogType !== 'Radar' ? byCatalogType : (keywordIcon(type) ?? byCatalogType)
}

const BYTE_UNITS = ['B', 'KB', 'MB', 'GB', 'TB', 'PB', 'EB', 'ZB', 'YB']

/** Bytes with base 1024, B to YB (spec 002 §9). */
export function formatBytes(value: number): string {
  let amount = Math.abs(value)
  let unit = 0
  while (amount >= 1024 && unit < BYTE_UNITS.length - 1) {
    amount /= 1024
    unit += 1
  }
  const text = unit === 0 ? String(Math.round(amount)) : amount.toFixed(amount >= 100 ? 0 : 1)
  return `${value < 0 ? '-' : ''}${text} ${BYTE_UNITS[unit]}`
}

function formatNumber(value: number): string {
  if (Number.isInteger(value)) return value.toLocaleString('en-US')
  return value.toLocaleString('en-US', { maximumFractionDigits: 2 })
}

/** One value with its unit as a person reads it: bytes scaled, millicores as cores, percentages. */
export function formatValue(value: number, unit: string | null | undefined): string {
  const u = (unit ?? '').trim()
  const lower = u.toLowerCase()
  if (lower === 'bytes' || lower === 'byte' || lower === 'b') return formatBytes(value)
  if (lower === 'millicores' || lower === 'millicore' || lower === 'm') return value < 1000 ? `${formatNumber(value)}m` : `${formatNumber(value / 1000)} cores`
  if (lower === '%' || lower === 'percent') return `${formatNumber(value)}%`
  return u ? `${formatNumber(value)} ${u}` : formatNumber(value)
}

type RawProperty = {
  name?: unknown
  label?: unknown
  text?: unknown
  value?: unknown
  unit?: unknown
  max?: unknown
  headline?: unknown
  hidden?: unknown
  tooltip?: unknown
  order?: unknown
}

const asText = (value: unknown) => (typeof value === 'string' ? value : typeof value === 'number' || typeof value === 'boolean' ? String(value) : '')
const asNumber = (value: unknown) => (typeof value === 'number' && Number.isFinite(value) ? value : typeof value === 'string' && value.trim() !== '' && Number.isFinite(Number(value)) ? Number(value) : null)

/** A property's shown value: its text, else its value (and max) with the unit, else nothing. */
export function propertyValue(property: RawProperty): string {
  const text = asText(property.text)
  if (text) return text
  const value = asNumber(property.value)
  if (value === null) return ''
  const max = asNumber(property.max)
  const unit = asText(property.unit)
  return max !== null ? `${formatValue(value, unit)} / ${formatValue(max, unit)}` : formatValue(value, unit)
}

/** Visible properties with a value, headline ones first, then by `order` (as the spec lists them). */
export function cardProperties(properties: unknown, limit: number): CardProperty[] {
  if (!Array.isArray(properties)) return []
  const shown: (CardProperty & { order: number; index: number })[] = []
  properties.forEach((raw: unknown, index) => {
    if (!raw || typeof raw !== 'object') return
    const property = raw as RawProperty
    if (property.hidden === true) return
    const value = propertyValue(property)
    const name = asText(property.name)
    if (!value || !name) return
    const tooltip = asText(property.tooltip)
    shown.push({ name, label: asText(property.label) || name, value, headline: property.headline === true, ...(tooltip ? { tooltip } : {}), order: asNumber(property.order) ?? 0, index })
  })
  return shown
    .sort((a, b) => Number(b.headline) - Number(a.headline) || a.order - b.order || a.index - b.index)
    .slice(0, limit)
    .map(({ order: _order, index: _index, ...property }) => property)
}

/** The current query string with some parameters set (a list sets one entry each) or removed (null). */
export function topologyHref(search: string, changes: Record<string, string | null>, pathname = ''): string {
  const params = new URLSearchParams(search)
  for (const [name, value] of Object.entries(changes)) {
    if (value === null || value === '') params.delete(name)
    else params.set(name, value)
  }
  const text = params.toString()
  return `${pathname}${text ? `?${text}` : pathname ? '' : '?'}`
}
