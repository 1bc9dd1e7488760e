import { parseWithZod, getZodConstraint } from '@conform-to/zod'
import { describe, expect, it } from 'vitest'
import { AddMembersSchema, CreateTeamSchema, NO_PERSON_CHOSEN, TeamActionSchema } from '#app/components/access/team-form.ts'

function formData(entries: Array<[string, string]>): FormData {
  const data = new FormData()
  for (const [name, value] of entries) data.append(name, value)
  return data
}

const ADA = '0198a2c4-1111-7000-8000-000000000001'
const GRACE = '0198A2C4-2222-7000-8000-000000000002'

describe('team detail forms (one union, told apart by intent)', () => {
  it('reads the Spec tab: icon defaults to group, an empty spec is {}', () => {
    const submission = parseWithZod(formData([['intent', 'save'], ['icon', ' '], ['spec', '']]), { schema: TeamActionSchema })
    expect(submission.status === 'success' ? submission.value : null).toEqual({ intent: 'save', icon: 'group', spec: {} })
    const filled = parseWithZod(formData([['intent', 'save'], ['icon', 'shield'], ['spec', '{"components":[]}']]), { schema: TeamActionSchema })
    expect(filled.status === 'success' ? filled.value : null).toEqual({ intent: 'save', icon: 'shield', spec: { components: [] } })
  })

  it('refuses a spec that is not a JSON object, on the spec field', () => {
    expect(parseWithZod(formData([['intent', 'save'], ['spec', '{']]), { schema: TeamActionSchema }).reply().error?.spec).toEqual(['The spec is not valid JSON'])
    expect(parseWithZod(formData([['intent', 'save'], ['spec', '[1]']]), { schema: TeamActionSchema }).reply().error?.spec).toEqual(['The spec must be a JSON object'])
  })

  it('adds one or several people, deduplicated and lower-cased, and needs at least one', () => {
    const one = parseWithZod(formData([['intent', 'add-members'], ['person_id', ADA]]), { schema: TeamActionSchema })
    expect(one.status === 'success' ? one.value : null).toEqual({ intent: 'add-members', person_id: [ADA] })
    const several = parseWithZod(formData([['intent', 'add-members'], ['person_id', ADA], ['person_id', GRACE], ['person_id', ADA]]), { schema: TeamActionSchema })
    expect(several.status === 'success' ? several.value : null).toEqual({ intent: 'add-members', person_id: [ADA, GRACE.toLowerCase()] })
    expect(parseWithZod(formData([['intent', 'add-members']]), { schema: TeamActionSchema }).reply().error?.person_id).toEqual([NO_PERSON_CHOSEN])
    expect(parseWithZod(formData([['intent', 'add-members'], ['person_id', 'not-a-uuid']]), { schema: TeamActionSchema }).status).toBe('error')
  })

  it('removes a member by id and refuses anything that is not one', () => {
    const removed = parseWithZod(formData([['intent', 'remove-member'], ['person_id', ADA], ['name', 'Ada']]), { schema: TeamActionSchema })
    expect(removed.status === 'success' ? removed.value : null).toEqual({ intent: 'remove-member', person_id: ADA, name: 'Ada' })
    expect(parseWithZod(formData([['intent', 'remove-member'], ['person_id', '1 OR 1=1']]), { schema: TeamActionSchema }).reply().error?.person_id).toEqual(['No member was chosen.'])
  })

  it('takes delete with nothing else and refuses an unknown intent', () => {
    const deleted = parseWithZod(formData([['intent', 'delete']]), { schema: TeamActionSchema })
    expect(deleted.status === 'success' ? deleted.value : null).toEqual({ intent: 'delete' })
    expect(parseWithZod(formData([['intent', 'rename']]), { schema: TeamActionSchema }).status).toBe('error')
  })

  it('sends no native required to the checkbox group (it would need every box checked)', () => {
    expect(getZodConstraint(AddMembersSchema).person_id).toMatchObject({ multiple: true })
  })
})

describe('Add Team schema', () => {
  it('requires a name that is more than whitespace, natively too', () => {
    expect(parseWithZod(formData([['name', '  ']]), { schema: CreateTeamSchema }).reply().error?.name).toEqual(['This field is required'])
    expect(getZodConstraint(CreateTeamSchema).name).toMatchObject({ required: true })
    // Icon and spec have defaults: the browser must not demand them.
    expect(getZodConstraint(CreateTeamSchema).icon?.required).toBeFalsy()
    expect(getZodConstraint(CreateTeamSchema).spec?.required).toBeFalsy()
  })
})
