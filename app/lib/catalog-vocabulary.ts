import type { IconName } from '#app/components/ui/icon-names.ts'

/**
 * The catalog screens' vocabulary and URL state as the pages render them (spec 000 §2, §3, §9):
 * health buckets, sortable columns, page sizes, relationship directions and depths, and the
 * hrefs that change one parameter. Zod-free and pure, so every catalog page may import it; the
 * loaders parse the URL with the schemas of `catalog-search.ts`.
 */

export const CONFIG_HEALTHS = ['healthy', 'warning', 'unhealthy', 'unknown'] as const
export type ConfigHealth = (typeof CONFIG_HEALTHS)[number]

export type BadgeVariant = 'success' | 'warning' | 'danger' | 'outline' | 'secondary'

export function healthVariant(health: string | null | undefined): BadgeVariant {
  switch (health) {
    case 'healthy':
      return 'success'
    case 'warning':
      return 'warning'
    case 'unhealthy':
      return 'danger'
    default:
      return 'outline'
  }
}

/** Change and insight severities, most severe first. */
export const SEVERITIES = ['critical', 'high', 'medium', 'low', 'info'] as const

export function severityVariant(severity: string | null | undefined): BadgeVariant {
  switch ((severity ?? '').toLowerCase()) {
    case 'critical':
    case 'high':
      return 'danger'
    case 'medium':
      return 'warning'
    case 'low':
      return 'secondary'
    default:
      return 'outline'
  }
}

export const INSIGHT_STATUSES = ['open', 'silenced', 'resolved'] as const
export const INSIGHT_TYPES = ['availability', 'compliance', 'cost', 'integration', 'performance', 'recommendation', 'reliability', 'security', 'technicalDebt'] as const

export const CATALOG_PAGE_SIZES = [50, 100, 200] as const
export const DEFAULT_PAGE_SIZE = 50

/** The item list's sortable columns (the `configs` view's own columns). */
export const CONFIG_SORT_COLUMNS = ['name', 'type', 'health', 'status', 'changes', 'cost_total_30d', 'created_at', 'updated_at'] as const
export type ConfigSortColumn = (typeof CONFIG_SORT_COLUMNS)[number]

export const CHANGE_SORT_COLUMNS = ['created_at', 'name', 'change_type', 'severity', 'source', 'count'] as const
export type ChangeSortColumn = (typeof CHANGE_SORT_COLUMNS)[number]

export const INSIGHT_SORT_COLUMNS = ['last_observed', 'first_observed', 'config_name', 'analyzer', 'analysis_type', 'severity', 'status'] as const
export type InsightSortColumn = (typeof INSIGHT_SORT_COLUMNS)[number]

export const SCRAPER_SORT_COLUMNS = ['name', 'source', 'job_status', 'job_time_start', 'created_at'] as const
export type ScraperSortColumn = (typeof SCRAPER_SORT_COLUMNS)[number]

/** Relationship walks: which edges, and how far (spec 000 §9: related configs at most 10 deep). */
export const RELATIONSHIP_DIRECTIONS = ['all', 'incoming', 'outgoing'] as const
export type RelationshipDirection = (typeof RELATIONSHIP_DIRECTIONS)[number]
export const RELATIONSHIP_DEPTHS = [1, 2, 3, 5, 10] as const
export const DEFAULT_RELATIONSHIP_DEPTH = 3
export const MAX_RELATIONSHIP_DEPTH = 10

export const SPEC_FORMATS = ['json', 'yaml'] as const
export type SpecFormat = (typeof SPEC_FORMATS)[number]

/** The item list's URL state. `showDeleted` null: the "Show deleted configs" preference decides. */
export type CatalogListParams = {
  type: string | null
  search: string
  health: ConfigHealth[]
  status: string[]
  /** `key=value` pairs. */
  label: string[]
  tag: string[]
  /** Only the items one agent reported (the agents screen links here). */
  agent_id?: string | null
  sortBy: ConfigSortColumn
  sortDesc: boolean
  page: number
  pageSize: number
  showDeleted: boolean | null
}

export type ChangeListParams = {
  /** One item's changes (the item's Changes tab links here with it). */
  configId: string | null
  configType: string | null
  changeType: string | null
  severity: string | null
  source: string | null
  search: string
  sortBy: ChangeSortColumn
  sortDesc: boolean
  page: number
  pageSize: number
}

export type InsightListParams = {
  configId: string | null
  analysisType: string | null
  severity: string | null
  status: string | null
  analyzer: string | null
  search: string
  sortBy: InsightSortColumn
  sortDesc: boolean
  page: number
  pageSize: number
}

export type ScraperListParams = {
  search: string
  sortBy: ScraperSortColumn
  sortDesc: boolean
  page: number
  pageSize: number
}

export type RelationshipParams = { direction: RelationshipDirection; depth: number }

/** A `key=value` filter split at its first `=`; null when either side is empty. */
export function splitPair(text: string): [string, string] | null {
  const at = text.indexOf('=')
  if (at <= 0 || at === text.length - 1) return null
  return [text.slice(0, at).trim(), text.slice(at + 1).trim()]
}

/** The URL with some parameters changed (a list value sets the parameter once per value); paging restarts unless `page` is given. */
export function hrefWith(current: URLSearchParams | string, changes: Record<string, string | readonly string[] | null>, path = ''): string {
  const next = new URLSearchParams(current)
  for (const [key, value] of Object.entries(changes)) {
    next.delete(key)
    if (value === null || value === '') continue
    if (typeof value === 'string') next.set(key, value)
    else for (const item of value) next.append(key, item)
  }
  if (!('page' in changes)) next.delete('page')
  const text = next.toString()
  return `${path}${text ? `?${text}` : path ? '' : '?'}`
}

/** The catalog list of one type. */
export function catalogTypeHref(type: string): string {
  return `/catalog?${new URLSearchParams({ type }).toString()}`
}

/**
 * An icon per family of config types: the sprite carries lucide's drawings only, so a type is
 * shown by what kind of thing it is rather than by its vendor's logo.
 */
export function configTypeIcon(type: string | null | undefined): IconName {
  const value = type ?? ''
  if (/::(Pod|Deployment|StatefulSet|DaemonSet|ReplicaSet|Job|CronJob)$/.test(value)) return 'Boxes'
  if (/Cluster$|::Namespace$|::Node$/.test(value)) return 'LayoutGrid'
  if (/RDS|Database|ElastiCache|::Table/.test(value)) return 'Table2'
  if (/Service$|Ingress|Endpoints|Network|VPC|Subnet/.test(value)) return 'Workflow'
  if (/Account|IAM|Role|Secret|Certificate/.test(value)) return 'Lock'
  if (/Instance|EC2|VirtualMachine/.test(value)) return 'AppWindow'
  return 'Radar'
}

const COST = new Intl.NumberFormat('en-US', { style: 'currency', currency: 'USD', maximumFractionDigits: 2 })

/** A cost in dollars, or '' for none (a type without cost data shows nothing rather than $0). */
export function formatCost(value: number | string | null | undefined): string {
  const number = typeof value === 'string' ? Number(value) : value
  if (number === null || number === undefined || !Number.isFinite(number) || number === 0) return ''
  return COST.format(number)
}

/** Open analyses as `{ type: count }` summed to one figure. */
export function countOf(map: Record<string, number> | null | undefined): number {
  if (!map) return 0
  return Object.values(map).reduce((sum, value) => sum + (Number(value) || 0), 0)
}

// ---- rows the lists show (read by catalog-screens.server.ts) ---------------------------------

/** A change as `catalog_changes` gives it. */
export type ChangeRow = {
  id: string
  config_id: string
  name: string | null
  type: string | null
  change_type: string | null
  severity: string | null
  source: string | null
  summary: string | null
  diff: string | null
  details: unknown
  created_at: string
  created_by: string | null
  external_created_by: string | null
  count: number | null
  first_observed: string | null
  deleted_at: string | null
}

/** An insight as `config_analysis_items` gives it. */
export type InsightRow = {
  id: string
  config_id: string
  config_name: string | null
  config_type: string | null
  analyzer: string | null
  analysis_type: string | null
  message: string | null
  summary: string | null
  severity: string | null
  status: string | null
  source: string | null
  first_observed: string | null
  last_observed: string | null
}

// ---- relationships ------------------------------------------------------------------------

export type RelatedItem = { id: string; name: string | null; type: string | null; health: string | null; status: string | null; related_ids: string[] | null; deleted_at: string | null }
export type RelationshipNode = { item: RelatedItem; children: RelationshipNode[] }

/**
 * The tree of a relationship walk (`related_configs_recursive`): each row lists the items it
 * leads to (`related_ids`), so the root's children are its related ids and so on; an item is
 * placed once, where the walk reaches it first (breadth first), which also ends cycles. Rows the
 * edges never reach (the item's parents by location) come back in `detached`.
 */
export function buildRelationshipTree(rootId: string, rows: readonly RelatedItem[]): { root: RelationshipNode | null; detached: RelatedItem[] } {
  const byId = new Map(rows.map((row) => [row.id, row]))
  const rootItem = byId.get(rootId)
  if (!rootItem) return { root: null, detached: rows.filter((row) => row.id !== rootId) }
  const root: RelationshipNode = { item: rootItem, children: [] }
  const placed = new Set([rootId])
  let frontier = [root]
  while (frontier.length > 0) {
    const next: RelationshipNode[] = []
    for (const node of frontier) {
      for (const id of [...(node.item.related_ids ?? [])].sort()) {
        const item = byId.get(id)
        if (!item || placed.has(id)) continue
        placed.add(id)
        const child = { item, children: [] }
        node.children.push(child)
        next.push(child)
      }
      node.children.sort((a, b) => (a.item.name ?? '').localeCompare(b.item.name ?? ''))
    }
    frontier = next
  }
  return { root, detached: rows.filter((row) => !placed.has(row.id)) }
}
