import type { SilenceResourceKey } from '#contract/notifications/notification-api.ts'
import type { Db, Queryable } from '#server/db/client.ts'
import { EVERY_CONFIG } from '#server/backend/catalog/config-access.ts'
import { resourceSearch, type SearchKind } from '#server/backend/catalog/resource-search.ts'
import { evaluateCel, ExpressionError } from '#server/backend/health/expressions.ts'
import { SelectorError, toSearchSelector } from '#server/backend/topology/component-selectors.ts'
import type { NotificationContext, NotificationResource } from './notification-context.ts'

/**
 * Whether a silence covers a notification (resource-specs §3.2), decided here for both the
 * delivery pipeline (notification-matching.ts, one event against every active silence) and the
 * silence preview (notification.routes.ts, one silence against recent sends). A silence narrows
 * by its resource, its selectors and its CEL filter, whichever it sets:
 *  - its resource covers itself, a canary covers its checks, and a `recursive` silence covers
 *    the descendants of a config (children by `parent_id` and the configs it is the
 *    `config_id` of in `config_relationships`) or of a component (children by `parent_id`);
 *  - any of its selectors must find the resource;
 *  - its filter must be true over the notification's variables (a filter that fails to
 *    evaluate covers nothing and is reported).
 */

/** How far a recursive silence reaches, in links. */
export const SILENCE_DEPTH = 20

export type SilenceScope = {
  resources: { key: SilenceResourceKey; id: string }[]
  recursive: boolean
  filter: string
  selectors: unknown[]
}

export type SilenceVerdict = { covered: boolean; error?: string }

/** The columns of a notification_silences row that say what it covers. */
export type SilenceRowScope = {
  config_id: string | null
  check_id: string | null
  canary_id: string | null
  component_id: string | null
  recursive: boolean | null
  filter: string | null
  selectors: unknown
}

export function scopeOfSilence(row: SilenceRowScope): SilenceScope {
  const resources: SilenceScope['resources'] = []
  for (const key of ['config_id', 'check_id', 'canary_id', 'component_id'] as const) {
    const id = row[key]
    if (id) resources.push({ key, id })
  }
  return { resources, recursive: row.recursive === true, filter: row.filter?.trim() ?? '', selectors: Array.isArray(row.selectors) ? row.selectors : [] }
}

/** A silence that names nothing covers nothing (the API refuses one; a row written otherwise is skipped). */
export function isEmptyScope(scope: SilenceScope): boolean {
  return scope.resources.length === 0 && scope.selectors.length === 0 && scope.filter === ''
}

type Walk = 'down' | 'up'

/**
 * The one definition of "child of" for recursive silences, walked either way: down from a
 * silence's resource (the preview's candidates) or up from a notification's resource (the
 * verdict). Both reach the same pairs within SILENCE_DEPTH links, so the candidates are
 * exactly the resources the verdict can cover.
 */
function lineageSql(table: 'config_items' | 'components', walk: Walk): string {
  const [from, to] = walk === 'down' ? ['parent_id', 'id'] : ['id', 'parent_id']
  const related = walk === 'down' ? ['config_id', 'related_id'] : ['related_id', 'config_id']
  const relationships =
    table === 'config_items' ? `\n          UNION ALL SELECT ${related[1]} FROM config_relationships WHERE ${related[0]} = w.id AND deleted_at IS NULL` : ''
  return `WITH RECURSIVE walk(id, depth) AS (
        SELECT $1::uuid, 0
        UNION
        SELECT next.id, w.depth + 1 FROM walk w
        CROSS JOIN LATERAL (
          SELECT ${to} AS id FROM ${table} WHERE ${from} = w.id AND ${to} IS NOT NULL${relationships}) next
        WHERE w.depth < $2)
      SELECT DISTINCT id FROM walk WHERE id <> $1::uuid`
}

const LINEAGE_TABLE: Partial<Record<SilenceResourceKey, 'config_items' | 'components'>> = { config_id: 'config_items', component_id: 'components' }
const RESOURCE_KEY: Partial<Record<NotificationResource['kind'], SilenceResourceKey>> = { config: 'config_id', component: 'component_id' }

async function walkFrom(q: Queryable, table: 'config_items' | 'components', id: string, walk: Walk): Promise<string[]> {
  const { rows } = await q.query<{ id: string }>(lineageSql(table, walk), [id, SILENCE_DEPTH])
  return rows.map((row) => row.id)
}

/**
 * The resources a silence's resource can cover, for narrowing a search before the verdict:
 * each resource, a canary's checks, and with `recursive` the descendants. Null when the
 * silence names no resource (any may be covered).
 */
export async function coveredResourceIds(q: Queryable, scope: Pick<SilenceScope, 'resources' | 'recursive'>): Promise<string[] | null> {
  if (scope.resources.length === 0) return null
  const ids = new Set<string>()
  for (const { key, id } of scope.resources) {
    ids.add(id)
    if (key === 'canary_id') {
      const { rows } = await q.query<{ id: string }>('SELECT id FROM checks WHERE canary_id = $1', [id])
      for (const row of rows) ids.add(row.id)
    }
    const table = LINEAGE_TABLE[key]
    if (scope.recursive && table) for (const descendant of await walkFrom(q, table, id, 'down')) ids.add(descendant)
  }
  return [...ids]
}

/** Ancestors of each resource asked about, loaded once however many silences ask. */
export type Lineage = (resource: NotificationResource) => Promise<ReadonlySet<string>>

export function createLineage(q: Queryable): Lineage {
  const known = new Map<string, Promise<ReadonlySet<string>>>()
  return (resource) => {
    const key = RESOURCE_KEY[resource.kind]
    const table = key ? LINEAGE_TABLE[key] : undefined
    if (!table) return Promise.resolve(new Set())
    let ancestors = known.get(resource.id)
    if (!ancestors) {
      ancestors = walkFrom(q, table, resource.id, 'up').then((ids) => new Set(ids))
      known.set(resource.id, ancestors)
    }
    return ancestors
  }
}

const SEARCH_KIND: Partial<Record<NotificationResource['kind'], SearchKind>> = { config: 'configs', component: 'components', check: 'checks' }

export type SilenceMatcher = { matches(context: NotificationContext): Promise<SilenceVerdict> }

/**
 * The verdict of one silence, for as many notifications as the caller has; selector searches
 * are remembered per resource. `lineage` may be shared by matchers of several silences.
 */
export function createSilenceMatcher(q: Queryable, scope: SilenceScope, lineage: Lineage = createLineage(q)): SilenceMatcher {
  const selectorHits = new Map<string, boolean>()

  async function resourceCovered(resource: NotificationResource): Promise<boolean> {
    if (scope.resources.length === 0) return true
    for (const { key, id } of scope.resources) {
      if (id === resource.id) return true
      if (key === 'canary_id' && resource.canaryId === id) return true
    }
    if (!scope.recursive) return false
    const key = RESOURCE_KEY[resource.kind]
    if (!key || !scope.resources.some((target) => target.key === key)) return false
    const ancestors = await lineage(resource)
    return scope.resources.some((target) => target.key === key && ancestors.has(target.id))
  }

  async function selectorsMatch(resource: NotificationResource): Promise<boolean> {
    const kind = SEARCH_KIND[resource.kind]
    if (!kind) return false
    const cached = selectorHits.get(resource.id)
    if (cached !== undefined) return cached
    let hit = false
    for (const raw of scope.selectors) {
      if (!raw || typeof raw !== 'object') continue
      let selector
      try {
        selector = { ...toSearchSelector(raw as Record<string, unknown>), id: resource.id }
      } catch (error) {
        // A stored selector that no longer reads as one finds nothing; the API refuses such on write.
        if (error instanceof SelectorError) continue
        throw error
      }
      // Every config visible: whether a silence applies is not any caller's view. The search only reads.
      const text = await resourceSearch(q as Db, { [kind]: [selector], limit: 1 }, EVERY_CONFIG, async () => true)
      if (((JSON.parse(text) as Partial<Record<SearchKind, unknown[]>>)[kind] ?? []).length > 0) {
        hit = true
        break
      }
    }
    selectorHits.set(resource.id, hit)
    return hit
  }

  return {
    async matches(context) {
      if (isEmptyScope(scope)) return { covered: false }
      if (!(await resourceCovered(context.resource))) return { covered: false }
      if (scope.selectors.length > 0 && !(await selectorsMatch(context.resource))) return { covered: false }
      if (scope.filter !== '') {
        try {
          const value = evaluateCel(scope.filter, context.env)
          if (value !== true && value !== 'true') return { covered: false }
        } catch (error) {
          if (!(error instanceof ExpressionError)) throw error
          return { covered: false, error: error.message }
        }
      }
      return { covered: true }
    },
  }
}
