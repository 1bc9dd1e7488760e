import { parseWithZod } from '@conform-to/zod'
import { describe, expect, it } from 'vitest'
import { permissionToFormDefault, toPermissionPayload } from '#app/lib/permissions-form-shapes.ts'
import { PermissionActionSchema, PermissionFormSchema, parsePermissionsSearch } from '#app/lib/permissions-form.ts'
import { ACTIONS_BY_RESOURCE_KIND, actionRefusal, actionsFor } from '#app/lib/permissions-vocabulary.ts'

const TEAM = '0190c0de-0000-7000-8000-000000000001'
const PERSON = '0190c0de-0000-7000-8000-000000000002'
const CONFIG = '0190c0de-0000-7000-8000-000000000003'
const PLAYBOOK = '0190c0de-0000-7000-8000-000000000004'
const PERMISSION = '0190c0de-0000-7000-8000-000000000005'

function form(fields: Record<string, string>, intent?: unknown): FormData {
  const data = new FormData()
  for (const [name, value] of Object.entries(fields)) data.append(name, value)
  if (intent) data.append('__intent__', JSON.stringify(intent))
  return data
}

const filled = {
  intent: 'add',
  'subject.kind': 'team',
  'subject.id': TEAM,
  'resource.kind': 'config',
  'resource.id': CONFIG,
  action: 'read',
  description: 'who reads the catalog',
}

const parse = (data: FormData) => parseWithZod(data, { schema: PermissionActionSchema })
/** The messages of a refused submission by field (undefined when it passed). */
function errorsOf(submission: { status?: string; error?: unknown }): Record<string, string[] | null> | undefined {
  return submission.status === 'success' ? undefined : (submission.error as Record<string, string[] | null>)
}

describe('the page schema: one discriminated union on intent', () => {
  it('reads an add, an edit and a delete', () => {
    expect(parse(form(filled)).status).toBe('success')
    const edit = parse(form({ ...filled, intent: 'edit', id: PERMISSION }))
    expect(edit.status === 'success' && edit.value).toMatchObject({ intent: 'edit', id: PERMISSION, subject: { kind: 'team', id: TEAM } })
    const remove = parse(form({ intent: 'delete', id: PERMISSION }))
    expect(remove.status === 'success' && remove.value).toEqual({ intent: 'delete', id: PERMISSION })
  })

  it('refuses an unknown intent, and an edit or delete without a permission id', () => {
    expect(parse(form({ ...filled, intent: 'grant' })).status).toBe('error')
    expect(errorsOf(parse(form({ ...filled, intent: 'edit' })))?.id).toEqual(['No permission was chosen.'])
    expect(errorsOf(parse(form({ intent: 'delete', id: 'not-a-uuid' })))?.id).toEqual(['No permission was chosen.'])
  })

  it('requires a subject, a resource and an action with the generic message', () => {
    const empty = parse(form({ intent: 'add' }))
    expect(empty.status).toBe('error')
    const messages = Object.entries(errorsOf(empty) ?? {}).map(([name, errors]) => [name.split('.')[0], errors])
    expect(messages).toEqual([
      ['subject', ['This field is required']],
      ['resource', ['This field is required']],
      ['action', ['This field is required']],
    ])
    // A kind without its choice is still missing.
    const kindsOnly = parse(form({ intent: 'add', 'subject.kind': 'person', 'resource.kind': 'config', action: 'read' }))
    expect(errorsOf(kindsOnly)).toEqual({ 'subject.id': ['This field is required'], 'resource.id': ['This field is required'] })
  })

  it('checks each kind its own way: ids from the pickers, known roles and objects', () => {
    const bad = parse(form({ ...filled, 'subject.kind': 'role', 'subject.id': 'root', 'resource.kind': 'global', 'resource.id': 'everything' }))
    expect(errorsOf(bad)).toEqual({ 'subject.id': ['Unknown role root'], 'resource.id': ['Unknown object everything'] })
    expect(errorsOf(parse(form({ ...filled, 'subject.id': 'payments' })))).toEqual({ 'subject.id': ['Choose one from the list'] })
    expect(errorsOf(parse(form({ ...filled, 'subject.kind': 'martian' })))).toEqual({ 'subject.kind': ['This field is required'] })
  })

  it('checks that the action fits the target, on the server and in the browser alike', () => {
    const onCatalog = { ...filled, 'resource.kind': 'global', 'resource.id': 'catalog', action: 'playbook:run' }
    expect(errorsOf(parse(form(onCatalog)))).toEqual({ action: ['The action playbook:run applies to playbooks only'] })
    expect(errorsOf(parseWithZod(form(onCatalog), { schema: PermissionFormSchema }))).toEqual({ action: ['The action playbook:run applies to playbooks only'] })
    expect(parse(form({ ...onCatalog, 'resource.id': 'playbooks' })).status).toBe('success')
    expect(errorsOf(parse(form({ ...filled, action: 'playbook:run' })))).toEqual({ action: ['The action playbook:run does not apply to this resource'] })
    expect(errorsOf(parse(form({ ...onCatalog, 'resource.id': 'exec', action: 'read' })))).toEqual({ action: ['The exec object takes the action exec:run (or *)'] })
    expect(parse(form({ ...onCatalog, 'resource.id': 'exec', action: 'exec:run' })).status).toBe('success')
    expect(errorsOf(parse(form({ ...onCatalog, action: 'exec:run' })))).toEqual({ action: ['The action exec:run applies to the exec object only'] })
  })

  it('the form schema knows no delete', () => {
    expect(parseWithZod(form({ intent: 'delete', id: PERMISSION }), { schema: PermissionFormSchema }).status).toBe('error')
  })
})

describe('kind buttons: conform update intents that work without JavaScript', () => {
  it('a subject kind button replaces the subject, the old id included, and keeps every other value', () => {
    const switched = parse(form({ ...filled, deny: 'on' }, { type: 'update', payload: { name: 'subject', value: { kind: 'person' } } }))
    // An intent is never a submission: nothing is saved, the form comes back as it now stands.
    expect(switched.status).toBeUndefined()
    expect(switched.payload).toMatchObject({ subject: { kind: 'person' }, resource: { kind: 'config', id: CONFIG }, action: 'read', deny: 'on', description: 'who reads the catalog' })
    expect((switched.payload.subject as Record<string, unknown>).id).toBeUndefined()
    const reply = switched.reply()
    expect(reply.intent).toEqual({ type: 'update', payload: { name: 'subject', value: { kind: 'person' } } })
    expect(reply.initialValue).toMatchObject({ subject: { kind: 'person' }, description: 'who reads the catalog' })
  })

  it('pressing the current subject kind keeps its choice', () => {
    const same = parse(form(filled, { type: 'update', payload: { name: 'subject.kind', value: 'team' } }))
    expect(same.payload.subject).toEqual({ kind: 'team', id: TEAM })
  })

  it('a resource kind button clears the resource and leaves the subject alone', () => {
    const switched = parse(form(filled, { type: 'update', payload: { name: 'resource', value: { kind: 'global' } } }))
    expect(switched.payload).toMatchObject({ subject: { kind: 'team', id: TEAM }, resource: { kind: 'global' } })
    expect((switched.payload.resource as Record<string, unknown>).id).toBeUndefined()
  })
})

describe('the actions offered', () => {
  it('depend on the resource kind only, so Global offers one list whatever the object', () => {
    expect(actionsFor('global')).toEqual(['read', 'update', 'create', 'delete', '*', 'create,read,update,delete', 'playbook:run', 'playbook:approve', 'playbook:*', 'exec:run'])
    expect(actionsFor('playbook')).toContain('playbook:approve')
    expect(actionsFor('config')).not.toContain('playbook:run')
    expect(actionsFor(null)).toEqual(ACTIONS_BY_RESOURCE_KIND.config)
  })

  it('refuse pairings that mean nothing', () => {
    expect(actionRefusal({ kind: 'playbook', id: PLAYBOOK }, 'playbook:*')).toBeNull()
    expect(actionRefusal({ kind: 'global', id: 'exec' }, '*')).toBeNull()
    expect(actionRefusal({ kind: 'canary', id: CONFIG }, 'exec:run')).toBe('The action exec:run does not apply to this resource')
  })
})

describe('rows and payloads', () => {
  it('writes the chosen subject and resource and nulls every other column', () => {
    const result = parse(form({ ...filled, 'subject.kind': 'person', 'subject.id': PERSON, deny: 'on', description: ' audit ' }))
    if (result.status !== 'success' || result.value.intent === 'delete') throw new Error('expected a save')
    expect(toPermissionPayload(result.value)).toEqual({
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
      description: 'audit',
    })
  })

  it('a role becomes a group subject named by the role', () => {
    const result = parse(form({ ...filled, 'subject.kind': 'role', 'subject.id': 'editor', 'resource.kind': 'global', 'resource.id': 'playbooks', action: 'playbook:*' }))
    if (result.status !== 'success' || result.value.intent === 'delete') throw new Error('expected a save')
    expect(toPermissionPayload(result.value)).toMatchObject({ subject: 'editor', subject_type: 'group', object: 'playbooks', team_id: null, person_id: null, description: 'who reads the catalog' })
  })

  it('turns a stored row into the edit form, legacy subject columns included', () => {
    expect(permissionToFormDefault({ id: PERMISSION, subject_type: 'team', subject: TEAM, playbook_id: PLAYBOOK, action: 'playbook:run', deny: false, description: null })).toEqual({
      intent: 'edit',
      id: PERMISSION,
      subject: { kind: 'team', id: TEAM },
      resource: { kind: 'playbook', id: PLAYBOOK },
      action: 'playbook:run',
      deny: false,
      description: '',
    })
    expect(permissionToFormDefault({ id: PERMISSION, subject_type: 'person', subject: '', person_id: PERSON, object: 'catalog', action: 'read' })).toMatchObject({
      subject: { kind: 'person', id: PERSON },
      resource: { kind: 'global', id: 'catalog' },
    })
    expect(permissionToFormDefault({ id: PERMISSION, subject_type: 'group', subject: 'viewer', action: 'read' })).toMatchObject({ subject: { kind: 'role', id: 'viewer' } })
    expect(permissionToFormDefault({ id: PERMISSION, subject_type: 'scraper', subject: 'x', action: 'read' }).subject).toBeUndefined()
  })
})

describe('the list URL', () => {
  it('reads page, size, sort and dialog, each bad value falling back to its default', () => {
    expect(parsePermissionsSearch(new URLSearchParams())).toEqual({ page: 1, pageSize: 50, sortBy: null, sortDesc: false, dialog: null, id: null })
    expect(parsePermissionsSearch(new URLSearchParams({ page: '3', pageSize: '100', sortBy: 'action', sortDesc: 'true', dialog: 'permission', id: PERMISSION.toUpperCase() }))).toEqual({
      page: 3,
      pageSize: 100,
      sortBy: 'action',
      sortDesc: true,
      dialog: 'permission',
      id: PERMISSION,
    })
    expect(parsePermissionsSearch(new URLSearchParams({ page: '-2', pageSize: '7', sortBy: 'subject;drop', sortDesc: 'yes', dialog: 'nuke', id: "1' or 1=1" }))).toEqual({
      page: 1,
      pageSize: 50,
      sortBy: null,
      sortDesc: false,
      dialog: null,
      id: null,
    })
  })
})
