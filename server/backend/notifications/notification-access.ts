import type { Principal } from '#server/backend/identity/principal.ts'
import type { Authorizer } from '#server/backend/rbac/authorizer.ts'
import type { Params } from '#server/backend/postgrest/sql-builder.ts'
import { configRowGuard, configVisibility, visibleIdSql, type ConfigVisibility } from '#server/backend/catalog/config-access.ts'
import { componentRowGuard, componentVisibility, visibleComponentSql, type ComponentVisibility } from '#server/backend/topology/component-access.ts'

/**
 * Row-level access to send history: a row about a config item or a component is seen only by
 * those its config and component scopes let see that resource (http-api §2.6.4), in the
 * notification API and in the data API's send-history relations alike. Rows about checks and
 * canaries follow the notification permission alone, as the reference's scopes name no checks.
 */

export type HistoryVisibility = { configs: ConfigVisibility; components: ComponentVisibility }

export async function historyVisibility(authorizer: Authorizer, principal: Principal | undefined): Promise<HistoryVisibility> {
  return { configs: await configVisibility(authorizer, principal), components: await componentVisibility(authorizer, principal) }
}

/** Conditions (all must hold) on a row whose resource kind and id are the SQL expressions given. */
export function visibleHistoryConditions(visibility: HistoryVisibility, kind: string, id: string, params: Params): string[] {
  const conditions: string[] = []
  const configs = visibleIdSql(visibility.configs, id, params)
  if (configs) conditions.push(`(${kind} IS DISTINCT FROM 'config' OR ${configs})`)
  const components = visibleComponentSql(visibility.components, id, params)
  if (components) conditions.push(`(${kind} IS DISTINCT FROM 'component' OR ${components})`)
  return conditions
}

// How each data-API relation names a row's resource. The table has the kind only in its event name.
const HISTORY_RELATIONS: Record<string, { kind: (alias: string) => string; id: string }> = {
  notification_send_history: { kind: (alias) => `split_part(${alias}.source_event, '.', 1)`, id: 'resource_id' },
  notification_send_history_summary: { kind: (alias) => `${alias}.resource_kind`, id: 'resource_id' },
  notification_send_history_resources: { kind: (alias) => `${alias}.resource_kind`, id: 'id' },
}
const HISTORY_RPCS: Record<string, { kind: (alias: string) => string; id: string }> = {
  notification_send_history_of_resource: { kind: (alias) => `${alias}.resource_kind`, id: 'resource_id' },
}

/** The data API's row guard for send-history relations (postgrest/router.ts `rowGuard`); null when nothing is hidden. */
export function historyRowGuard(visibility: HistoryVisibility) {
  if (configRowGuard(visibility.configs) === null && componentRowGuard(visibility.components) === null) return null
  return (relation: string, kind: 'table' | 'rpc', alias: string, params: Params): string | null => {
    const shape = kind === 'rpc' ? HISTORY_RPCS[relation] : HISTORY_RELATIONS[relation]
    if (!shape) return null
    const conditions = visibleHistoryConditions(visibility, shape.kind(alias), `${alias}.${shape.id}`, params)
    return conditions.length ? conditions.join(' AND ') : null
  }
}
