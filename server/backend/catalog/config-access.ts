import type { Principal } from '#server/backend/identity/principal.ts'
import { grantMatch, type Authorizer } from '#server/backend/rbac/authorizer.ts'
import type { Params } from '#server/backend/postgrest/sql-builder.ts'

/**
 * Row-level access to config items (data-model.md §1.8, docs/decisions/021): a stored
 * permission on `catalog` read whose `tags` or `agents` are set is a *scope*. A subject that
 * holds at least one allowing scope sees only the items some allowing scope matches; any
 * denying scope hides the items it matches from everyone but the bootstrap token. Admins are
 * not narrowed by allowing scopes. Changes, insights, relationships and component links follow
 * their config item; a relationship needs both ends visible.
 */

export type ConfigScope = { tags?: Record<string, string>; agents?: string[] }

export type ConfigVisibility = { all: true; deny: ConfigScope[] } | { all: false; allow: ConfigScope[]; deny: ConfigScope[] }

export const EVERY_CONFIG: ConfigVisibility = Object.freeze({ all: true, deny: [] }) as ConfigVisibility

export function isUnrestricted(visibility: ConfigVisibility): boolean {
  return visibility.all && visibility.deny.length === 0
}

export async function configVisibility(authorizer: Authorizer, principal: Principal | undefined): Promise<ConfigVisibility> {
  if (!principal || principal.via === 'bootstrap-token') return EVERY_CONFIG
  const now = Date.now()
  const allow: ConfigScope[] = []
  const deny: ConfigScope[] = []
  for (const permission of await authorizer.narrowedPermissions(principal)) {
    const condition = permission.condition
    if (!condition || (!condition.tags && !condition.agents)) continue
    if (condition.until !== undefined && condition.until <= now) continue
    const objects = permission.object.split(',').map((object) => object.trim())
    if (!objects.some((object) => grantMatch('database', 'catalog', 'read', object, permission.action))) continue
    const scope: ConfigScope = {
      ...(condition.tags ? { tags: condition.tags } : {}),
      ...(condition.agents && !condition.agents.includes('*') ? { agents: condition.agents } : {}),
    }
    // `agents: ['*']` alone matches every item.
    ;(permission.deny ? deny : allow).push(scope)
  }
  if (allow.length === 0) return deny.length ? { all: true, deny } : EVERY_CONFIG
  const roles = await authorizer.rolesOf(principal)
  if (roles.includes('admin')) return { all: true, deny }
  return { all: false, allow, deny }
}

function scopeSql(scope: ConfigScope, tags: string, agentId: string, params: Params): string {
  const parts: string[] = []
  if (scope.tags) parts.push(`coalesce(${tags}, '{}'::jsonb) @> ${params.text(JSON.stringify(scope.tags))}::jsonb`)
  if (scope.agents) parts.push(`${agentId}::text = ANY(${params.textArray(scope.agents)})`)
  return parts.length ? `(${parts.join(' AND ')})` : 'true'
}

/** Whether the item whose `tags` and `agent_id` are these expressions is visible; null when every item is. */
export function visibleItemSql(visibility: ConfigVisibility, tags: string, agentId: string, params: Params): string | null {
  const parts: string[] = []
  if (!visibility.all) parts.push(`(${visibility.allow.map((scope) => scopeSql(scope, tags, agentId, params)).join(' OR ')})`)
  if (visibility.deny.length) parts.push(`NOT (${visibility.deny.map((scope) => scopeSql(scope, tags, agentId, params)).join(' OR ')})`)
  return parts.length ? parts.join(' AND ') : null
}

/** Whether the config item with this id expression is visible; null when every item is. */
export function visibleIdSql(visibility: ConfigVisibility, id: string, params: Params): string | null {
  const visible = visibleItemSql(visibility, '_v.tags', '_v.agent_id', params)
  return visible ? `EXISTS (SELECT 1 FROM public.config_items _v WHERE _v.id = ${id} AND ${visible})` : null
}

// How each data-API relation (and RPC result) names its config items: the item itself (its
// tags and agent_id are columns), an id column, or both ends of an edge.
type RowShape = { direct: true } | { ids: string[] }

const TABLE_SHAPES: Record<string, RowShape> = {
  config_items: { direct: true },
  configs: { direct: true },
  config_detail: { direct: true },
  catalog_changes: { direct: true },
  config_analysis_items: { direct: true },
  config_names: { ids: ['id'] },
  config_locations: { ids: ['id'] },
  config_changes: { ids: ['config_id'] },
  config_analysis: { ids: ['config_id'] },
  config_component_relationships: { ids: ['config_id'] },
  check_config_relationships: { ids: ['config_id'] },
  analysis_by_config: { ids: ['config_id'] },
  analysis_by_component: { ids: ['config_id'] },
  changes_by_component: { ids: ['config_id'] },
  checks_by_config: { ids: ['config_id'] },
  evidences: { ids: ['config_id'] },
  playbook_runs: { ids: ['config_id'] },
  config_relationships: { ids: ['config_id', 'related_id'] },
}

const RPC_SHAPES: Record<string, RowShape> = {
  related_configs_recursive: { direct: true },
  related_configs: { direct: true },
  get_parents_by_location: { ids: ['id'] },
  get_children_by_location: { ids: ['id'] },
  config_relationships_recursive: { ids: ['id', 'related_id'] },
  lookup_configs_by_component: { ids: ['config_id'] },
}

/**
 * The data API's row guard: for a relation (or an RPC's rows) that carries config items, the
 * condition its rows must meet on `alias`; null when the relation holds no config rows or the
 * subject sees every item. Nullable id columns (evidences, playbook runs) keep rows without an item.
 */
export function configRowGuard(visibility: ConfigVisibility) {
  if (isUnrestricted(visibility)) return null
  return (relation: string, kind: 'table' | 'rpc', alias: string, params: Params): string | null => {
    const shape = kind === 'rpc' ? RPC_SHAPES[relation] : TABLE_SHAPES[relation]
    if (!shape) return null
    if ('direct' in shape) return visibleItemSql(visibility, `${alias}.tags`, `${alias}.agent_id`, params)
    const nullable = relation === 'evidences' || relation === 'playbook_runs'
    return shape.ids
      .map((column) => {
        const check = visibleIdSql(visibility, `${alias}.${column}`, params)!
        return nullable ? `(${alias}.${column} IS NULL OR ${check})` : check
      })
      .join(' AND ')
  }
}
