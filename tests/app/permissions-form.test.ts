import { describe, expect, it } from 'vitest'
import {
  EMPTY_PERMISSION,
  actionsFor,
  applyPermissionIntent,
  changeObject,
  changeResourceKind,
  changeSubjectKind,
  parsePermissionIntent,
  permissionToForm,
  readPermissionForm,
  validatePermission,
  type PermissionFormValues,
} from '#app/lib/permissions-form.ts'

const TEAM = '0190c0de-0000-7000-8000-000000000001'
const PERSON = '0190c0de-0000-7000-8000-000000000002'
const CONFIG = '0190c0de-0000-7000-8000-000000000003'
const PLAYBOOK = '0190c0de-0000-7000-8000-000000000004'

function filled(): PermissionFormValues {
  return {
    ...EMPTY_PERMISSION,
    subject_type: 'team',
    team_id: TEAM,
    person_id: PERSON,
    notification_id: 'n',
    role: 'editor',
    subject_playbook_id: PLAYBOOK,
    resource_kind: 'config',
    object: 'catalog',
    config_id: CONFIG,
    component_id: 'c',
    canary_id: 'k',
    playbook_id: PLAYBOOK,
    connection_id: 'x',
    action: 'read',
  }
}

describe('changing the subject kind', () => {
  it.each([
    ['team', 'team', 'team_id'],
    ['person', 'person', 'person_id'],
    ['notification', 'notification', 'notification_id'],
    ['role', 'group', 'role'],
    ['playbook', 'playbook', 'subject_playbook_id'],
  ] as const)('%s sets subject_type %s and keeps only %s', (kind, subjectType, kept) => {
    const next = changeSubjectKind(filled(), kind)
    expect(next.subject_type).toBe(subjectType)
    for (const field of ['team_id', 'person_id', 'notification_id', 'role', 'subject_playbook_id'] as const) {
      expect(next[field]).toBe(field === kept ? filled()[field] : '')
    }
    // Resource choices are untouched by a subject switch.
    expect(next.config_id).toBe(CONFIG)
    expect(next.action).toBe('read')
  })
})

describe('changing the resource kind', () => {
  it('clears every resource id, the new kind included', () => {
    const next = changeResourceKind(filled(), 'canary')
    expect(next.resource_kind).toBe('canary')
    for (const field of ['object', 'config_id', 'component_id', 'canary_id', 'playbook_id', 'connection_id'] as const) expect(next[field]).toBe('')
    expect(next.team_id).toBe(TEAM)
    expect(next.action).toBe('read')
  })

  it('drops a playbook action that the new kind does not offer', () => {
    const onPlaybook = { ...changeResourceKind(filled(), 'playbook'), playbook_id: PLAYBOOK, action: 'playbook:run' }
    expect(changeResourceKind(onPlaybook, 'playbook').action).toBe('playbook:run')
    expect(changeResourceKind(onPlaybook, 'config').action).toBe('')
  })

  it('offers playbook actions on playbooks only', () => {
    expect(actionsFor({ resource_kind: 'playbook', object: '' })).toContain('playbook:approve')
    expect(actionsFor({ resource_kind: 'global', object: 'playbooks' })).toContain('playbook:*')
    expect(actionsFor({ resource_kind: 'global', object: 'catalog' })).not.toContain('playbook:run')
    const global = { ...changeResourceKind(filled(), 'global'), object: 'playbooks', action: 'playbook:run' }
    expect(changeObject(global, 'catalog').action).toBe('')
    expect(changeObject(global, 'playbooks').action).toBe('playbook:run')
  })
})

describe('validation and payload', () => {
  it('requires subject, resource and action', () => {
    const result = validatePermission(EMPTY_PERMISSION)
    expect(result.errors).toEqual({ subject: 'This field is required', resource: 'This field is required', action: 'This field is required' })
    const kindsOnly = validatePermission({ ...EMPTY_PERMISSION, subject_type: 'person', resource_kind: 'config', action: 'read' })
    expect(kindsOnly.errors).toEqual({ subject: 'This field is required', resource: 'This field is required' })
  })

  it('refuses unknown roles, objects and mismatched actions', () => {
    const base = { ...EMPTY_PERMISSION, subject_type: 'group', role: 'root', resource_kind: 'global' as const, object: 'everything', action: 'playbook:run' }
    const result = validatePermission(base)
    expect(result.errors?.subject).toBe('Unknown role root')
    expect(result.errors?.resource).toBe('Unknown object everything')
    expect(validatePermission({ ...base, role: 'viewer', object: 'catalog' }).errors).toEqual({
      action: 'The action playbook:run does not apply to this resource',
    })
  })

  it('writes the chosen subject and resource and nulls every other column', () => {
    const values = changeResourceKind(changeSubjectKind(filled(), 'person'), 'config')
    const { payload } = validatePermission({ ...values, config_id: CONFIG, deny: true, description: ' audit ' })
    expect(payload).toEqual({
      subject: PERSON,
      subject_type: 'person',
      team_id: null,
      person_id: PERSON,
      notification_id: null,
      object: null,
      object_selector: null,
      config_id: CONFIG,
      component_id: null,
      canary_id: null,
      playbook_id: null,
      connection_id: null,
      action: 'read',
      deny: true,
      description: ' audit ',
    })
  })

  it('a role becomes a group subject named by the role', () => {
    const values = { ...changeSubjectKind(EMPTY_PERMISSION, 'role'), role: 'editor', resource_kind: 'global' as const, object: 'playbooks', action: 'playbook:*' }
    expect(validatePermission(values).payload).toMatchObject({ subject: 'editor', subject_type: 'group', object: 'playbooks', team_id: null, person_id: null })
  })
})

describe('reading posts and stored rows', () => {
  it('reads a posted form, trimming and dropping unknown kinds', () => {
    const form = new URLSearchParams({ subject_type: 'canary', resource_kind: 'galaxy', action: ' read ', deny: 'true', team_id: ` ${TEAM} ` })
    const values = readPermissionForm(form)
    expect(values.subject_type).toBe('')
    expect(values.resource_kind).toBe('')
    expect(values.action).toBe('read')
    expect(values.deny).toBe(true)
    expect(values.team_id).toBe(TEAM)
    expect(readPermissionForm(new URLSearchParams()).deny).toBe(false)
  })

  it('turns a stored row into edit values, legacy subject columns included', () => {
    expect(permissionToForm({ subject_type: 'team', subject: TEAM, playbook_id: PLAYBOOK, action: 'playbook:run', deny: false, description: null })).toMatchObject({
      subject_type: 'team',
      team_id: TEAM,
      resource_kind: 'playbook',
      playbook_id: PLAYBOOK,
      action: 'playbook:run',
      description: '',
    })
    expect(permissionToForm({ subject_type: 'person', subject: '', person_id: PERSON, object: 'catalog', action: 'read' })).toMatchObject({
      person_id: PERSON,
      resource_kind: 'global',
      object: 'catalog',
    })
    expect(permissionToForm({ subject_type: 'group', subject: 'viewer', action: 'read' })).toMatchObject({ role: 'viewer', resource_kind: '' })
    expect(permissionToForm({ subject_type: 'scraper', subject: 'x', action: 'read' }).subject_type).toBe('')
  })

  it('kind switches posted without JavaScript apply the same rules', () => {
    expect(parsePermissionIntent('subject:role')).toEqual({ type: 'subject', kind: 'role' })
    expect(parsePermissionIntent('resource:connection')).toEqual({ type: 'resource', kind: 'connection' })
    expect(parsePermissionIntent('subject:martian')).toEqual({ type: 'unknown' })
    expect(parsePermissionIntent(null)).toEqual({ type: 'unknown' })
    expect(parsePermissionIntent('save')).toEqual({ type: 'save' })
    const switched = applyPermissionIntent(filled(), parsePermissionIntent('subject:notification'))
    expect(switched).toEqual(changeSubjectKind(filled(), 'notification'))
    expect(applyPermissionIntent(filled(), { type: 'save' })).toEqual(filled())
  })
})
