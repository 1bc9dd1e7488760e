/**
 * What each part of the API is, for authorization: the resource area of the spec's role matrix
 * (002 §6) and the permission object that stored permissions and token scopes name
 * (http-api.md §1.7, §4.1). The two vocabularies differ, so every request carries both.
 */

import { AREAS, ROLES, type Area, type Role } from '#contract/role-matrix.ts'

export { AREAS, ROLES, type Area, type Role }

export function isRole(value: string): value is Role {
  return (ROLES as readonly string[]).includes(value)
}

/** The kinds of resource a permission can name by id, by tags/agents or by selector. */
export type ResourceKind = 'config' | 'component' | 'canary' | 'check' | 'playbook' | 'connection' | 'view'

export type RelationAccess = {
  area: Area
  object: string
  /** Rows of this relation are resources of this kind (for id-, tag- and agent-scoped rules). */
  resource?: ResourceKind
}

function entries(area: Area, object: string, names: string[], resource?: ResourceKind): [string, RelationAccess][] {
  return names.map((name) => [name, resource ? { area, object, resource } : { area, object }])
}

/**
 * Every relation of the data model the API exposes. Anything else (internal helper tables such
 * as checks_unlogged, trigger helpers, the spec's `jobs` and `config_item`) is answered 404.
 */
const RELATIONS = new Map<string, RelationAccess>([
  ...entries('database', 'catalog', [
    'analysis_by_component', 'analysis_by_config', 'analysis_types', 'analyzer_types', 'catalog_changes',
    'change_types', 'config_analysis', 'config_analysis_analyzers', 'config_analysis_by_severity',
    'config_analysis_items', 'config_changes', 'config_changes_by_types', 'config_class_summary', 'config_classes',
    'config_component_relationships', 'config_labels', 'config_locations', 'config_names', 'config_relationships',
    'config_statuses', 'config_summary', 'config_tags', 'config_tags_labels_keys', 'config_types',
  ]),
  ...entries('database', 'catalog', ['config_items', 'configs', 'config_detail'], 'config'),
  ...entries('database', 'people', ['people', 'person_analytics']),
  // http-api §4.1 puts the component name, label and team lists under database.public, not topology.
  ...entries('database', 'database.public', [
    'teams', 'teams_with_status', 'team_members', 'severities', 'component_names', 'component_labels', 'team_components',
  ]),
  ...entries('database', 'application', ['applications']),
  ...entries('database', 'artifact', ['artifacts']),
  ...entries('database', 'database.monitor', [
    'event_queue', 'event_queue_name_summary', 'event_queue_summary', 'failed_events', 'job_history', 'job_histories', 'job_history_latest_status',
    'job_history_names', 'job_history_summary',
  ]),
  ...entries('incident', 'incident', [
    'incidents', 'incident_summary', 'incident_summary_by_component', 'incident_histories', 'incident_relationships',
    'incident_rules', 'hypotheses', 'incidents_by_component', 'incidents_by_config',
  ]),
  ...entries('responder', 'incident', ['responders', 'comment_responders']),
  ...entries('evidences', 'incident', ['evidences']),
  ...entries('comments', 'incident', ['comments']),
  ...entries('canaries', 'canaries', [
    'canaries_with_status', 'canary_names', 'check_statuses', 'check_statuses_1d', 'check_statuses_1h',
    'check_statuses_5m', 'check_summary', 'check_summary_by_component', 'check_summary_by_config',
    'check_summary_for_config', 'checks_by_component', 'checks_by_config', 'check_labels', 'check_names',
    'checks_labels_keys', 'checks_status_artifacts', 'check_component_relationships', 'check_config_relationships',
  ]),
  ...entries('canaries', 'canaries', ['canaries'], 'canary'),
  ...entries('canaries', 'canaries', ['checks'], 'check'),
  ...entries('topologies', 'topology', [
    'topologies', 'topologies_with_status', 'topology', 'component_relationships', 'component_labels_keys',
    'component_names_all', 'component_types', 'components_with_logs', 'changes_by_component',
  ]),
  ...entries('topologies', 'topology', ['components'], 'component'),
  ...entries('config_scrapers', 'database.config_scrapers', ['config_scrapers', 'config_scrapers_with_status']),
  ...entries('identities', 'people', ['identities', 'people_roles']),
  ...entries('connections', 'connection', ['connections_list'], 'connection'),
  ...entries('connections', 'connection', ['connections'], 'connection'),
  ...entries('connections', 'connection-detail', ['connection_details']),
  ...entries('kratos', 'database.kratos', ['access_tokens']),
  ...entries('auth', 'auth', ['invites']),
  ...entries('agents', 'agent', ['agents', 'agents_summary']),
  ...entries('feature_flags', 'database.system', ['properties']),
  ...entries('logging_backends', 'database.config_scrapers', ['logging_backends']),
  ...entries('integrations', 'database.monitor', ['integrations', 'integrations_with_status']),
  ...entries('notifications', 'notification', [
    'notifications', 'notification_silences', 'notification_groups', 'notification_group_resources',
    'notification_send_history', 'notifications_summary', 'notification_send_history_summary',
    'notification_send_history_resources', 'notification_send_history_resource_tags', 'notification_send_history_resource_types',
  ]),
  ...entries('playbooks', 'playbooks', ['playbook_names', 'playbooks_for_agent']),
  ...entries('playbooks', 'playbooks', ['playbooks'], 'playbook'),
  ...entries('playbook_runs', 'playbooks', ['playbook_runs', 'playbook_run_actions', 'playbook_approvals', 'playbook_action_agent_data']),
  ...entries('permissions', 'database.system', [
    'permissions', 'permissions_summary', 'permissions_group_summary', 'permission_groups', 'permission_subjects', 'scopes',
  ]),
  ...entries('rbac', 'rbac', ['casbin_rule']),
  ...entries('views', 'views', ['views_summary', 'view_panels']),
  ...entries('views', 'views', ['views'], 'view'),
])

/** Functions callable as `/db/rpc/<name>`; helpers that write or leak internals are not listed. */
const ROUTINES = new Map<string, RelationAccess>([
  ...entries('database', 'catalog', [
    'config_open_analysis', 'config_relationships_recursive', 'get_children_by_location', 'get_parents_by_location',
    'related_configs', 'related_configs_recursive',
  ]),
  ...entries('database', 'database.monitor', ['latest_job']),
  ...entries('incident', 'incident', ['lookup_component_incidents']),
  ...entries('canaries', 'canaries', ['check_summary_for_component']),
  ...entries('topologies', 'topology', [
    'lookup_analysis_by_component', 'lookup_changes_by_component', 'lookup_components_by_check',
    'lookup_components_by_config', 'lookup_configs_by_component',
  ]),
  ...entries('playbook_runs', 'playbooks', ['get_playbook_run_actions']),
  ...entries('notifications', 'notification', ['notification_send_history_of_resource']),
  ...entries('permissions', 'database.system', ['permissions_for_obj_selector']),
])

// Generated per-view tables (`view_<namespace>_<name>`) all belong to custom views.
const VIEW_TABLE = /^view_[a-z0-9_]+$/

export function relationAccess(name: string, kind: 'table' | 'rpc'): RelationAccess | undefined {
  if (kind === 'rpc') return ROUTINES.get(name)
  const known = RELATIONS.get(name)
  if (known) return known
  if (VIEW_TABLE.test(name)) return { area: 'views', object: 'views' }
  return undefined
}

export function mappedRelations(): { tables: string[]; routines: string[] } {
  return { tables: [...RELATIONS.keys()], routines: [...ROUTINES.keys()] }
}

/**
 * The area a permission object falls in when a caller names only the object (e.g. a handler
 * checking `playbooks:playbook:run`). Objects outside the matrix (mcp, exec) have no area: only
 * `*` grants and stored permissions on that object reach them.
 */
const OBJECT_AREAS: Record<string, Area> = {
  canaries: 'canaries',
  catalog: 'database',
  application: 'database',
  artifact: 'database',
  'database.public': 'database',
  'database.monitor': 'database',
  incident: 'incident',
  people: 'database',
  topology: 'topologies',
  playbooks: 'playbooks',
  connection: 'connections',
  'connection-detail': 'connections',
  'agent-push': 'agents',
  agent: 'agents',
  'kubernetes-proxy': 'auth',
  auth: 'auth',
  notification: 'notifications',
  rbac: 'rbac',
  logs: 'logging_backends',
  views: 'views',
  'database.config_scrapers': 'config_scrapers',
  'database.system': 'permissions',
  'database.kratos': 'kratos',
}

export function areaOfObject(object: string): Area | undefined {
  if ((AREAS as readonly string[]).includes(object)) return object as Area
  return OBJECT_AREAS[object]
}

/** Every permission object a request can carry: token scopes deny the ones not chosen. */
export function permissionObjects(): string[] {
  const objects = new Set<string>(['mcp', 'exec', 'logs', 'kubernetes-proxy', 'agent-push', 'auth'])
  for (const access of [...RELATIONS.values(), ...ROUTINES.values()]) objects.add(access.object)
  for (const object of Object.keys(OBJECT_AREAS)) objects.add(object)
  return [...objects].sort()
}

/** Actions a token scope can leave out; `run` (check Run Now) follows `create` on canaries. */
export const SCOPABLE_ACTIONS = [
  'read',
  'create',
  'update',
  'delete',
  'playbook:run',
  'playbook:approve',
  'playbook:cancel',
  'mcp:use',
  'mcp:run',
  // Running processes (exec checks, scrapers, actions): see rbac/exec-permission.ts.
  'exec:run',
] as const
