import { ROLE_SUBJECTS } from './role-subjects.ts'

/**
 * The permissions screen's vocabulary (spec 002 §2, §5, §6): subject and resource kinds, the
 * actions each resource kind offers and why an action does not fit a target, and the list's URL
 * values. Shared by the schemas that check every post (`permissions-form.ts`, zod, actions only)
 * and the page (`permissions-form-shapes.ts`), so neither imports the other.
 */

export const SUBJECT_KINDS = ['team', 'person', 'notification', 'role', 'playbook'] as const
export type SubjectKind = (typeof SUBJECT_KINDS)[number]

export const SUBJECT_KIND_LABELS: Record<SubjectKind, string> = {
  team: 'Team',
  person: 'Person',
  notification: 'Notification',
  role: 'Role',
  playbook: 'Playbook',
}

/** What each kind stores as `subject_type`; a role is a group subject. */
export const SUBJECT_TYPE_OF: Record<SubjectKind, string> = {
  team: 'team',
  person: 'person',
  notification: 'notification',
  role: 'group',
  playbook: 'playbook',
}

export const RESOURCE_KINDS = ['global', 'config', 'component', 'canary', 'playbook', 'connection'] as const
export type ResourceKind = (typeof RESOURCE_KINDS)[number]

export const RESOURCE_KIND_LABELS: Record<ResourceKind, string> = {
  global: 'Global',
  config: 'Catalog',
  component: 'Component',
  canary: 'Canary',
  playbook: 'Playbook',
  connection: 'Connection',
}

/** The permissions column that holds each resource kind's target. */
export const RESOURCE_COLUMN_OF = {
  global: 'object',
  config: 'config_id',
  component: 'component_id',
  canary: 'canary_id',
  playbook: 'playbook_id',
  connection: 'connection_id',
} as const satisfies Record<ResourceKind, string>

/** Roles a permission can be given to (spec 002 §6). */
export { ROLE_SUBJECTS }

/** Global objects (spec 002 §6), plus `exec`: running processes, admin only unless granted. */
export const GLOBAL_OBJECTS = [
  'canaries',
  'catalog',
  'incident',
  'people',
  'topology',
  'playbooks',
  'connection',
  'connection-detail',
  'agent-push',
  'kubernetes-proxy',
  'notification',
  'rbac',
  'logs',
  'agent',
  'artifact',
  'exec',
] as const

export const BASE_ACTIONS = ['read', 'update', 'create', 'delete', '*', 'create,read,update,delete'] as const
export const PLAYBOOK_ACTIONS = ['playbook:run', 'playbook:approve', 'playbook:*'] as const
export const EXEC_ACTIONS = ['exec:run'] as const

/**
 * The actions the dialog offers, by resource kind only. The Global list does not follow the
 * chosen object: a select change cannot reach the server without JavaScript, so a list that
 * followed it would differ between the two paths. Which action fits which object is checked by
 * the schema instead (`actionRefusal`), the same way on both.
 */
export const ACTIONS_BY_RESOURCE_KIND: Record<ResourceKind, readonly string[]> = {
  global: [...BASE_ACTIONS, ...PLAYBOOK_ACTIONS, ...EXEC_ACTIONS],
  config: BASE_ACTIONS,
  component: BASE_ACTIONS,
  canary: BASE_ACTIONS,
  playbook: [...BASE_ACTIONS, ...PLAYBOOK_ACTIONS],
  connection: BASE_ACTIONS,
}

/** Before a resource kind is chosen the plain actions are offered. */
export function actionsFor(kind: ResourceKind | null | undefined): readonly string[] {
  return kind ? ACTIONS_BY_RESOURCE_KIND[kind] : BASE_ACTIONS
}

export function isSubjectKind(value: unknown): value is SubjectKind {
  return typeof value === 'string' && (SUBJECT_KINDS as readonly string[]).includes(value)
}

export function isResourceKind(value: unknown): value is ResourceKind {
  return typeof value === 'string' && (RESOURCE_KINDS as readonly string[]).includes(value)
}

/** The kind a stored subject_type belongs to; other types (canary, scraper…) have none. */
export function subjectKindOf(subjectType: string | null | undefined): SubjectKind | null {
  for (const kind of SUBJECT_KINDS) if (SUBJECT_TYPE_OF[kind] === subjectType) return kind
  return null
}

/**
 * Why an offered action does not fit the chosen target, or null. Playbook actions act on
 * playbooks; `exec:run` is the only action the `exec` object knows (rbac/exec-permission.ts),
 * besides `*`.
 */
export function actionRefusal(resource: { kind: ResourceKind; id: string }, action: string): string | null {
  if (!actionsFor(resource.kind).includes(action)) return `The action ${action} does not apply to this resource`
  const onPlaybooks = resource.kind === 'playbook' || (resource.kind === 'global' && resource.id === 'playbooks')
  const onExec = resource.kind === 'global' && resource.id === 'exec'
  if ((PLAYBOOK_ACTIONS as readonly string[]).includes(action) && !onPlaybooks) return `The action ${action} applies to playbooks only`
  if ((EXEC_ACTIONS as readonly string[]).includes(action) && !onExec) return `The action ${action} applies to the exec object only`
  if (onExec && action !== '*' && !(EXEC_ACTIONS as readonly string[]).includes(action)) return 'The exec object takes the action exec:run (or *)'
  return null
}
/**
 * The permissions list's URL (filters are not offered; sort, paging and the open dialog are).
 * Every bad value falls back to its default, so any URL renders the page.
 */
export const PERMISSION_SORT_COLUMNS = ['action', 'effect', 'description', 'source', 'updated'] as const
export type PermissionSortColumn = (typeof PERMISSION_SORT_COLUMNS)[number]
export const PERMISSION_PAGE_SIZES = [50, 100, 200] as const

export const REQUIRED_MESSAGE = 'This field is required'
