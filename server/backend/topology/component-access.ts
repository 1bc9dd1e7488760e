import type { Principal } from '#server/backend/identity/principal.ts'
import { grantMatch, type Authorizer } from '#server/backend/rbac/authorizer.ts'
import type { ResourceSelector } from '#server/backend/rbac/conditions.ts'
import type { Params } from '#server/backend/postgrest/sql-builder.ts'

/**
 * Row-level access to components (data-model.md §1.8, http-api §2.6.4 "row-level security"),
 * on the pattern of config items (catalog/config-access.ts, docs/decisions/021). A stored
 * permission on `topology` read that names a component (`component_id`), a component selector
 * (`object_selector.components`), `tags` (matched against the component's labels) or `agents`
 * is a *scope*. A component matched by a scope brings its whole subtree with it: a topology is
 * one tree, and a permission on its root component is how one grants "this topology".
 *
 * - Holding an allowing scope narrows the subject to the subtrees its allowing scopes match
 *   (role grants do not widen that); admins are not narrowed.
 * - A denying scope hides the subtrees it matches from everyone but the bootstrap token.
 */

export type ComponentScope = { id?: string; selector?: ResourceSelector; tags?: Record<string, string>; agents?: string[] }

export type ComponentVisibility = { all: true; deny: ComponentScope[] } | { all: false; allow: ComponentScope[]; deny: ComponentScope[] }

export const EVERY_COMPONENT: ComponentVisibility = Object.freeze({ all: true, deny: [] }) as ComponentVisibility

export function isUnrestrictedComponents(visibility: ComponentVisibility): boolean {
  return visibility.all && visibility.deny.length === 0
}

export async function componentVisibility(authorizer: Authorizer, principal: Principal | undefined): Promise<ComponentVisibility> {
  if (!principal || principal.via === 'bootstrap-token') return EVERY_COMPONENT
  const now = Date.now()
  const allow: ComponentScope[] = []
  const deny: ComponentScope[] = []
  for (const permission of await authorizer.narrowedPermissions(principal)) {
    const condition = permission.condition
    if (!condition) continue
    if (condition.until !== undefined && condition.until <= now) continue
    const objects = permission.object.split(',').map((object) => object.trim())
    if (!objects.some((object) => grantMatch('topologies', 'topology', 'read', object, permission.action))) continue
    if (condition.resourceId && condition.resourceId.kind !== 'component') continue
    const selectors = condition.selectors?.filter((entry) => entry.kind === 'component').map((entry) => entry.selector)
    if (condition.selectors && !selectors?.length) continue
    if (!condition.resourceId && !selectors && !condition.tags && !condition.agents) continue
    const base: ComponentScope = {
      ...(condition.resourceId ? { id: condition.resourceId.id } : {}),
      ...(condition.tags ? { tags: condition.tags } : {}),
      ...(condition.agents && !condition.agents.includes('*') ? { agents: condition.agents } : {}),
    }
    const scopes = selectors ? selectors.map((selector) => ({ ...base, selector })) : [base]
    ;(permission.deny ? deny : allow).push(...scopes)
  }
  if (allow.length === 0) return deny.length ? { all: true, deny } : EVERY_COMPONENT
  if ((await authorizer.rolesOf(principal)).includes('admin')) return { all: true, deny }
  return { all: false, allow, deny }
}

/** A permission glob (`*` anywhere, a leading `!` negates) as a LIKE over `column`. */
function globSql(pattern: string, column: string, params: Params): string {
  if (pattern === '' || pattern === '*') return 'true'
  const negate = pattern.startsWith('!')
  const body = (negate ? pattern.slice(1) : pattern).replace(/[\\%_]/g, (char) => `\\${char}`).replaceAll('*', '%')
  const like = `${column} LIKE ${params.text(body)}`
  // A missing value matches no positive pattern, and so every negated one (conditions.ts globMatch).
  return negate ? `(${column} IS NULL OR NOT ${like})` : `coalesce(${like}, false)`
}

/** The label-selector subset permissions use (`k=v,k2!=v2,k3,!k4`, conditions.ts tagSelectorMatches). */
function tagSelectorSql(selector: string, labels: string, params: Params): string {
  const parts: string[] = []
  for (const raw of selector.split(',')) {
    const term = raw.trim()
    if (!term) continue
    const notEquals = term.indexOf('!=')
    if (notEquals > 0) {
      parts.push(`(${labels} ->> ${params.text(term.slice(0, notEquals).trim())}) IS DISTINCT FROM ${params.text(term.slice(notEquals + 2).trim())}`)
      continue
    }
    const equals = term.indexOf('=')
    if (equals > 0) {
      const value = term.slice(equals + (term[equals + 1] === '=' ? 2 : 1)).trim()
      parts.push(`coalesce((${labels} ->> ${params.text(term.slice(0, equals).trim())}) = ${params.text(value)}, false)`)
      continue
    }
    if (term.startsWith('!')) parts.push(`NOT coalesce(${labels} ? ${params.text(term.slice(1))}, false)`)
    else parts.push(`coalesce(${labels} ? ${params.text(term)}, false)`)
  }
  return parts.length ? parts.join(' AND ') : 'true'
}

function scopeSql(scope: ComponentScope, alias: string, params: Params): string {
  const parts: string[] = []
  if (scope.id) parts.push(`${alias}.id = ${params.text(scope.id)}::uuid`)
  if (scope.tags) parts.push(`coalesce(${alias}.labels, '{}'::jsonb) @> ${params.text(JSON.stringify(scope.tags))}::jsonb`)
  if (scope.agents) parts.push(`${alias}.agent_id::text = ANY(${params.textArray(scope.agents)})`)
  const selector = scope.selector
  if (selector) {
    if (selector.id) parts.push(`${alias}.id::text = ${params.text(selector.id)}`)
    if (selector.name) parts.push(globSql(selector.name, `${alias}.name`, params))
    if (selector.namespace) parts.push(globSql(selector.namespace, `${alias}.namespace`, params))
    if (selector.types?.length) parts.push(`(${selector.types.map((type) => globSql(type, `${alias}.type`, params)).join(' OR ')})`)
    if (selector.tagSelector) parts.push(tagSelectorSql(selector.tagSelector, `${alias}.labels`, params))
    if (selector.agent && selector.agent !== 'all') parts.push(`${alias}.agent_id::text = ${params.text(selector.agent)}`)
  }
  return parts.length ? `(${parts.join(' AND ')})` : 'true'
}

/** Whether the component row `alias` itself matches an allowing scope; null when not narrowed. */
export function allowMatchSql(visibility: ComponentVisibility, alias: string, params: Params): string | null {
  if (visibility.all) return null
  return `(${visibility.allow.map((scope) => scopeSql(scope, alias, params)).join(' OR ')})`
}

/** Whether the component row `alias` itself matches a denying scope; null when nothing is denied. */
export function denyMatchSql(visibility: ComponentVisibility, alias: string, params: Params): string | null {
  if (visibility.deny.length === 0) return null
  return `(${visibility.deny.map((scope) => scopeSql(scope, alias, params)).join(' OR ')})`
}

/**
 * Whether the component with this id expression is visible: it or an ancestor matches an
 * allowing scope, and neither it nor an ancestor matches a denying one. Null when every component is.
 */
export function visibleComponentSql(visibility: ComponentVisibility, id: string, params: Params): string | null {
  const parts: string[] = []
  const lineage = (match: string) => `EXISTS (SELECT 1 FROM public.components _l WHERE _l.id = ANY(lookout.component_lineage(${id})) AND ${match})`
  const allow = allowMatchSql(visibility, '_l', params)
  if (allow) parts.push(lineage(allow))
  const deny = denyMatchSql(visibility, '_l', params)
  if (deny) parts.push(`NOT ${lineage(deny)}`)
  return parts.length ? parts.join(' AND ') : null
}

// How each data-API relation names its components: by id columns (all must be visible).
const TABLE_COMPONENT_IDS: Record<string, string[]> = {
  components: ['id'],
  topology: ['id'],
  component_names: ['id'],
  component_names_all: ['id'],
  components_with_logs: ['id'],
  component_relationships: ['component_id', 'relationship_id'],
  config_component_relationships: ['component_id'],
  check_component_relationships: ['component_id'],
  checks_by_component: ['component_id'],
  check_summary_by_component: ['component_id'],
  team_components: ['component_id'],
  analysis_by_component: ['component_id'],
  changes_by_component: ['component_id'],
  incident_summary_by_component: ['component_id'],
  evidences: ['component_id'],
}

const RPC_COMPONENT_IDS: Record<string, string[]> = {
  lookup_components_by_check: ['id'],
  lookup_components_by_config: ['component_id'],
}

/**
 * The data API's row guard for component rows (postgrest/router.ts `rowGuard`), as
 * configRowGuard is for config items; null when the subject sees every component.
 */
export function componentRowGuard(visibility: ComponentVisibility) {
  if (isUnrestrictedComponents(visibility)) return null
  return (relation: string, kind: 'table' | 'rpc', alias: string, params: Params): string | null => {
    const columns = kind === 'rpc' ? RPC_COMPONENT_IDS[relation] : TABLE_COMPONENT_IDS[relation]
    if (!columns) return null
    // Evidences without a component stay (they follow their incident).
    const nullable = relation === 'evidences'
    return columns
      .map((column) => {
        const check = visibleComponentSql(visibility, `${alias}.${column}`, params)!
        return nullable ? `(${alias}.${column} IS NULL OR ${check})` : check
      })
      .join(' AND ')
  }
}
