import type { z } from 'zod'
import { formShape } from '#app/lib/form-shape.ts'
import type { PermissionFormSchema } from './permissions-form.ts'
import { ROLE_SUBJECTS } from './role-subjects.ts'

/**
 * The permissions screen's forms as the browser renders them (spec 002 §2, §5, §6; decision 016):
 * the subject and resource kinds, the actions each resource kind offers, the dialog's native
 * constraints, and how a stored row becomes the edit form. Without zod: the schemas that check
 * every post are in `permissions-form.ts`, which only the action imports.
 *
 * A subject is `{ kind, id }` and so is a resource. A kind button of the dialog is a conform
 * `update` intent that replaces the whole `subject` (or `resource`) with `{ kind }`: the id of
 * the old kind goes with it, on the server (no JavaScript) and in the browser alike.
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

export type PermissionFormValue = z.output<typeof PermissionFormSchema>
export type PermissionFormInput = z.input<typeof PermissionFormSchema>

export type PermissionRowInput = {
  id?: string | null
  subject_type?: string | null
  subject?: string | null
  team_id?: string | null
  person_id?: string | null
  notification_id?: string | null
  object?: string | null
  config_id?: string | null
  component_id?: string | null
  canary_id?: string | null
  playbook_id?: string | null
  connection_id?: string | null
  action?: string | null
  deny?: boolean | null
  description?: string | null
}

/** A stored row (from permissions_summary) as the edit form's default value. */
export function permissionToFormDefault(row: PermissionRowInput & { id: string }): Partial<PermissionFormInput> & { intent: 'edit'; id: string } {
  const subjectKind = subjectKindOf(row.subject_type)
  const legacy = subjectKind === 'team' ? row.team_id : subjectKind === 'person' ? row.person_id : subjectKind === 'notification' ? row.notification_id : null
  const subjectId = (row.subject || legacy || '').trim()
  const resourceKind = RESOURCE_KINDS.find((kind) => Boolean(row[RESOURCE_COLUMN_OF[kind]]))
  return {
    intent: 'edit',
    id: row.id,
    ...(subjectKind ? { subject: { kind: subjectKind, id: subjectId } as PermissionFormInput['subject'] } : {}),
    ...(resourceKind ? { resource: { kind: resourceKind, id: row[RESOURCE_COLUMN_OF[resourceKind]] ?? '' } as PermissionFormInput['resource'] } : {}),
    action: row.action ?? '',
    deny: row.deny === true,
    description: row.description ?? '',
  }
}

export type PermissionPayload = {
  subject: string
  subject_type: string
  team_id: string | null
  person_id: string | null
  notification_id: string | null
  object: string | null
  object_selector: null
  config_id: string | null
  component_id: string | null
  canary_id: string | null
  playbook_id: string | null
  connection_id: string | null
  action: string
  deny: boolean
  description: string | null
}

/**
 * The row sent to the data API. It names every subject and resource column, nulls included, so
 * an edit that switched kinds clears the old ones (the table allows exactly one target).
 */
export function toPermissionPayload(value: Pick<PermissionFormValue, 'subject' | 'resource' | 'action' | 'deny' | 'description'>): PermissionPayload {
  const { subject, resource } = value
  const target = (kind: ResourceKind) => (resource.kind === kind ? resource.id : null)
  return {
    subject: subject.id,
    subject_type: SUBJECT_TYPE_OF[subject.kind],
    team_id: subject.kind === 'team' ? subject.id : null,
    person_id: subject.kind === 'person' ? subject.id : null,
    notification_id: subject.kind === 'notification' ? subject.id : null,
    object: target('global'),
    object_selector: null,
    config_id: target('config'),
    component_id: target('component'),
    canary_id: target('canary'),
    playbook_id: target('playbook'),
    connection_id: target('connection'),
    action: value.action,
    deny: value.deny,
    description: value.description || null,
  }
}

export type Choice = { id: string; label: string }

/** The pickable subjects and resources, loaded only while the dialog is open. */
export type PermissionChoices = {
  teams: Choice[]
  people: Choice[]
  notifications: Choice[]
  playbooks: Choice[]
  configs: Choice[]
  components: Choice[]
  canaries: Choice[]
  connections: Choice[]
}

export function subjectChoices(kind: SubjectKind, choices: PermissionChoices): Choice[] {
  switch (kind) {
    case 'team':
      return choices.teams
    case 'person':
      return choices.people
    case 'notification':
      return choices.notifications
    case 'playbook':
      return choices.playbooks
    case 'role':
      return ROLE_SUBJECTS.map((role) => ({ id: role, label: role }))
  }
}

export function resourceChoices(kind: ResourceKind, choices: PermissionChoices): Choice[] {
  switch (kind) {
    case 'global':
      return GLOBAL_OBJECTS.map((object) => ({ id: object, label: object }))
    case 'config':
      return choices.configs
    case 'component':
      return choices.components
    case 'canary':
      return choices.canaries
    case 'playbook':
      return choices.playbooks
    case 'connection':
      return choices.connections
  }
}

/**
 * The permissions list's URL (filters are not offered; sort, paging and the open dialog are).
 * Every bad value falls back to its default, so any URL renders the page.
 */
export const PERMISSION_SORT_COLUMNS = ['action', 'effect', 'description', 'source', 'updated'] as const
export type PermissionSortColumn = (typeof PERMISSION_SORT_COLUMNS)[number]
export const PERMISSION_PAGE_SIZES = [50, 100, 200] as const

export const REQUIRED_MESSAGE = 'This field is required'

/** The dialog's native constraints: `getZodConstraint(PermissionFormSchema)`. */
export const PermissionShape = formShape<PermissionFormInput>({
  intent: { required: true },
  subject: { required: true },
  'subject.kind': { required: true },
  'subject.id': { required: true },
  resource: { required: true },
  'resource.kind': { required: true },
  'resource.id': { required: true },
  action: { required: true, maxLength: 200 },
  deny: { required: false },
  description: { required: false, maxLength: 1000 },
  id: { required: false },
})
