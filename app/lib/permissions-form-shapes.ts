import type { z } from 'zod'
import { formShape } from '#app/lib/form-shape.ts'
import type { PermissionFormSchema } from './permissions-form.ts'
import {
  GLOBAL_OBJECTS,
  RESOURCE_KINDS,
  RESOURCE_COLUMN_OF,
  ROLE_SUBJECTS,
  SUBJECT_TYPE_OF,
  subjectKindOf,
  type ResourceKind,
  type SubjectKind,
} from './permissions-vocabulary.ts'

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

export * from './permissions-vocabulary.ts'


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
