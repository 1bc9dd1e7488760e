/**
 * The Add/Edit Permission form as data (spec 002 §2, §3, §5, §6): which subject and resource
 * kinds exist, what changing a kind clears, validation, and the row sent to the data API.
 * The same functions run in the browser (on change) and in the route's action (when a form
 * without JavaScript posts a kind switch), so both paths clear the same fields.
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

/** The form field holding the chosen subject for each kind. */
export const SUBJECT_FIELD_OF = {
  team: 'team_id',
  person: 'person_id',
  notification: 'notification_id',
  role: 'role',
  playbook: 'subject_playbook_id',
} as const satisfies Record<SubjectKind, string>

export type SubjectField = (typeof SUBJECT_FIELD_OF)[SubjectKind]
const SUBJECT_FIELDS = Object.values(SUBJECT_FIELD_OF) as SubjectField[]

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

export const RESOURCE_FIELD_OF = {
  global: 'object',
  config: 'config_id',
  component: 'component_id',
  canary: 'canary_id',
  playbook: 'playbook_id',
  connection: 'connection_id',
} as const satisfies Record<ResourceKind, string>

export type ResourceField = (typeof RESOURCE_FIELD_OF)[ResourceKind]
const RESOURCE_FIELDS = Object.values(RESOURCE_FIELD_OF) as ResourceField[]

/** Roles a permission can be given to (spec 002 §6). */
export const ROLE_SUBJECTS = ['admin', 'editor', 'guest', 'viewer', 'responder', 'commander'] as const

/** Global objects (spec 002 §6). */
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
  // Running processes: exec checks, scrapers and actions (admin only unless granted).
  'exec',
] as const

export const BASE_ACTIONS = ['read', 'update', 'create', 'delete', '*', 'create,read,update,delete'] as const
export const PLAYBOOK_ACTIONS = ['playbook:run', 'playbook:approve', 'playbook:*'] as const
export const EXEC_ACTIONS = ['exec:run'] as const

export type PermissionFormValues = {
  subject_type: string
  team_id: string
  person_id: string
  notification_id: string
  role: string
  subject_playbook_id: string
  resource_kind: ResourceKind | ''
  object: string
  config_id: string
  component_id: string
  canary_id: string
  playbook_id: string
  connection_id: string
  action: string
  deny: boolean
  description: string
}

export const EMPTY_PERMISSION: PermissionFormValues = {
  subject_type: '',
  team_id: '',
  person_id: '',
  notification_id: '',
  role: '',
  subject_playbook_id: '',
  resource_kind: '',
  object: '',
  config_id: '',
  component_id: '',
  canary_id: '',
  playbook_id: '',
  connection_id: '',
  action: '',
  deny: false,
  description: '',
}

export function isSubjectKind(value: unknown): value is SubjectKind {
  return typeof value === 'string' && (SUBJECT_KINDS as readonly string[]).includes(value)
}

export function isResourceKind(value: unknown): value is ResourceKind {
  return typeof value === 'string' && (RESOURCE_KINDS as readonly string[]).includes(value)
}

/** The kind a stored subject_type belongs to; unknown types (canary, scraper…) have none. */
export function subjectKindOf(subjectType: string): SubjectKind | null {
  for (const kind of SUBJECT_KINDS) if (SUBJECT_TYPE_OF[kind] === subjectType) return kind
  return null
}

/** Playbook actions only make sense on playbooks: a playbook resource or the playbooks object. */
export function actionsFor(values: Pick<PermissionFormValues, 'resource_kind' | 'object'>): string[] {
  const playbooks = values.resource_kind === 'playbook' || (values.resource_kind === 'global' && values.object === 'playbooks')
  if (values.resource_kind === 'global' && values.object === 'exec') return [...EXEC_ACTIONS, '*']
  return playbooks ? [...BASE_ACTIONS, ...PLAYBOOK_ACTIONS] : [...BASE_ACTIONS]
}

/** Switching the subject kind keeps only the chosen kind's subject and sets subject_type. */
export function changeSubjectKind(values: PermissionFormValues, kind: SubjectKind): PermissionFormValues {
  const next = { ...values, subject_type: SUBJECT_TYPE_OF[kind] }
  const keep = SUBJECT_FIELD_OF[kind]
  for (const field of SUBJECT_FIELDS) if (field !== keep) next[field] = ''
  return next
}

/**
 * Switching the resource kind clears every resource id, the chosen kind's included: an id of
 * one kind is never a valid id of another. An action the new kind does not offer goes too.
 */
export function changeResourceKind(values: PermissionFormValues, kind: ResourceKind): PermissionFormValues {
  const next: PermissionFormValues = { ...values, resource_kind: kind }
  for (const field of RESOURCE_FIELDS) next[field] = ''
  if (next.action && !actionsFor(next).includes(next.action)) next.action = ''
  return next
}

/** Changing the global object can take playbook actions away (playbooks → catalog). */
export function changeObject(values: PermissionFormValues, object: string): PermissionFormValues {
  const next = { ...values, object }
  if (next.action && !actionsFor(next).includes(next.action)) next.action = ''
  return next
}

type FieldSource = { get(name: string): unknown }

function text(source: FieldSource, name: string): string {
  const value = source.get(name)
  return typeof value === 'string' ? value.trim() : ''
}

/** Reads the posted form; anything unknown is dropped rather than trusted. */
export function readPermissionForm(source: FieldSource): PermissionFormValues {
  const kind = text(source, 'resource_kind')
  const deny = text(source, 'deny')
  return {
    subject_type: subjectKindOf(text(source, 'subject_type')) ? text(source, 'subject_type') : '',
    team_id: text(source, 'team_id'),
    person_id: text(source, 'person_id'),
    notification_id: text(source, 'notification_id'),
    role: text(source, 'role'),
    subject_playbook_id: text(source, 'subject_playbook_id'),
    resource_kind: isResourceKind(kind) ? kind : '',
    object: text(source, 'object'),
    config_id: text(source, 'config_id'),
    component_id: text(source, 'component_id'),
    canary_id: text(source, 'canary_id'),
    playbook_id: text(source, 'playbook_id'),
    connection_id: text(source, 'connection_id'),
    action: text(source, 'action'),
    deny: deny === 'true' || deny === 'on',
    description: text(source, 'description'),
  }
}

export type PermissionRowInput = {
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

/** A stored row (from permissions_summary) as form values for edit mode. */
export function permissionToForm(row: PermissionRowInput): PermissionFormValues {
  const values: PermissionFormValues = { ...EMPTY_PERMISSION }
  const kind = subjectKindOf(row.subject_type ?? '')
  if (kind) {
    values.subject_type = SUBJECT_TYPE_OF[kind]
    const legacy = kind === 'team' ? row.team_id : kind === 'person' ? row.person_id : kind === 'notification' ? row.notification_id : null
    values[SUBJECT_FIELD_OF[kind]] = (row.subject || legacy || '').trim()
  }
  for (const resource of RESOURCE_KINDS) {
    const field = RESOURCE_FIELD_OF[resource]
    const value = row[field]
    if (typeof value === 'string' && value) {
      values.resource_kind = resource
      values[field] = value
      break
    }
  }
  values.action = row.action ?? ''
  values.deny = row.deny === true
  values.description = row.description ?? ''
  return values
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

export type PermissionValidation = { payload: PermissionPayload; errors?: undefined } | { payload?: undefined; errors: Record<string, string> }

export const REQUIRED_MESSAGE = 'This field is required'

/**
 * Subject, resource and action are required (spec 002 §5). The payload names every subject and
 * resource column, nulls included, so an edit that switched kinds clears the old ones (the
 * table allows exactly one target).
 */
export function validatePermission(values: PermissionFormValues): PermissionValidation {
  const errors: Record<string, string> = {}
  const subjectKind = subjectKindOf(values.subject_type)
  const subject = subjectKind ? values[SUBJECT_FIELD_OF[subjectKind]] : ''
  if (!subjectKind || !subject) errors.subject = REQUIRED_MESSAGE
  else if (subjectKind === 'role' && !(ROLE_SUBJECTS as readonly string[]).includes(subject)) errors.subject = `Unknown role ${subject}`

  const resourceKind = values.resource_kind
  const resource = resourceKind ? values[RESOURCE_FIELD_OF[resourceKind]] : ''
  if (!resourceKind || !resource) errors.resource = REQUIRED_MESSAGE
  else if (resourceKind === 'global' && !(GLOBAL_OBJECTS as readonly string[]).includes(resource)) errors.resource = `Unknown object ${resource}`

  if (!values.action) errors.action = REQUIRED_MESSAGE
  else if (resourceKind && !actionsFor(values).includes(values.action)) errors.action = `The action ${values.action} does not apply to this resource`
  if (values.description.length > 1000) errors.description = 'Description must be at most 1000 characters'

  if (Object.keys(errors).length > 0 || !subjectKind || !resourceKind) return { errors }
  const idOrNull = (kind: ResourceKind) => (resourceKind === kind ? resource : null)
  return {
    payload: {
      subject,
      subject_type: SUBJECT_TYPE_OF[subjectKind],
      team_id: subjectKind === 'team' ? subject : null,
      person_id: subjectKind === 'person' ? subject : null,
      notification_id: subjectKind === 'notification' ? subject : null,
      object: idOrNull('global'),
      object_selector: null,
      config_id: idOrNull('config'),
      component_id: idOrNull('component'),
      canary_id: idOrNull('canary'),
      playbook_id: idOrNull('playbook'),
      connection_id: idOrNull('connection'),
      action: values.action,
      deny: values.deny,
      description: values.description || null,
    },
  }
}

/** What the form's buttons ask for: save, or a kind switch posted without JavaScript. */
export type PermissionIntent =
  | { type: 'save' }
  | { type: 'subject'; kind: SubjectKind }
  | { type: 'resource'; kind: ResourceKind }
  | { type: 'delete' }
  | { type: 'unknown' }

export function parsePermissionIntent(intent: unknown): PermissionIntent {
  if (intent === 'save') return { type: 'save' }
  if (intent === 'delete') return { type: 'delete' }
  if (typeof intent === 'string') {
    const [prefix, kind] = intent.split(':')
    if (prefix === 'subject' && isSubjectKind(kind)) return { type: 'subject', kind }
    if (prefix === 'resource' && isResourceKind(kind)) return { type: 'resource', kind }
  }
  return { type: 'unknown' }
}

/** Applies a kind switch posted by a form; other intents leave the values as they are. */
export function applyPermissionIntent(values: PermissionFormValues, intent: PermissionIntent): PermissionFormValues {
  if (intent.type === 'subject') return changeSubjectKind(values, intent.kind)
  if (intent.type === 'resource') return changeResourceKind(values, intent.kind)
  return values
}
