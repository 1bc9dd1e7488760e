import { parseWithZod } from '@conform-to/zod'
import { describe, expect, it } from 'vitest'
import { CreateTeamSchema } from '#app/components/access/team-form.ts'
import { UsersActionSchema } from '#app/components/access/user-forms.ts'
import { TokenActionSchema } from '#app/lib/token-scopes.ts'

function formData(entries: Array<[string, string]>): FormData {
  const data = new FormData()
  for (const [name, value] of entries) data.append(name, value)
  return data
}

describe('token form schema', () => {
  it('requires a name that is more than whitespace', () => {
    const submission = parseWithZod(formData([['intent', 'create'], ['name', '   ']]), { schema: TokenActionSchema })
    expect(submission.status).toBe('error')
    expect(submission.reply().error?.name).toEqual(['Name is required'])
  })

  it('reads one or several scope checkboxes into entries and drops unknown ones', () => {
    const one = parseWithZod(formData([['intent', 'create'], ['name', ' ci '], ['scope', 'canaries/read']]), { schema: TokenActionSchema })
    expect(one.status === 'success' ? one.value : null).toEqual({ intent: 'create', name: 'ci', expiry: 'never', scope: [{ subject: '', object: 'canaries', action: 'read' }] })
    const several = parseWithZod(
      formData([['intent', 'create'], ['name', 'ci'], ['scope', 'mcp/*'], ['scope', 'mcp/read'], ['scope', 'exec/exec:run'], ['scope', 'mcp/*']]),
      { schema: TokenActionSchema },
    )
    expect(several.status === 'success' && several.value.intent === 'create' ? several.value.scope.map((entry) => `${entry.object}/${entry.action}`) : null).toEqual(['mcp/*', 'exec/exec:run'])
  })

  it('offers only the expiry never', () => {
    const submission = parseWithZod(formData([['intent', 'create'], ['name', 'ci'], ['expiry', '30d']]), { schema: TokenActionSchema })
    expect(submission.reply().error?.expiry).toEqual(['Expiry must be never'])
  })

  it('tells the delete form apart by its intent', () => {
    const submission = parseWithZod(formData([['intent', 'delete'], ['id', 'abc'], ['name', 'ci']]), { schema: TokenActionSchema })
    expect(submission.status === 'success' ? submission.value : null).toEqual({ intent: 'delete', id: 'abc', name: 'ci' })
    expect(parseWithZod(formData([['intent', 'rename']]), { schema: TokenActionSchema }).status).toBe('error')
  })
})

describe('team create schema', () => {
  it('requires a name, defaults the icon and parses the spec', () => {
    expect(parseWithZod(formData([['name', '']]), { schema: CreateTeamSchema }).reply().error?.name).toEqual(['This field is required'])
    const submission = parseWithZod(formData([['name', 'SRE'], ['icon', ''], ['spec', '{"a":1}']]), { schema: CreateTeamSchema })
    expect(submission.status === 'success' ? submission.value : null).toEqual({ name: 'SRE', icon: 'group', spec: { a: 1 } })
    expect(parseWithZod(formData([['name', 'SRE'], ['spec', '[]']]), { schema: CreateTeamSchema }).reply().error?.spec).toEqual(['The spec must be a JSON object'])
  })
})

describe('users screen schemas', () => {
  it('requires an e-mail and a known role on an invitation', () => {
    const submission = parseWithZod(formData([['intent', 'invite'], ['email', 'not-mail'], ['role', 'owner']]), { schema: UsersActionSchema })
    expect(submission.reply().error?.email).toEqual(['Enter a valid email address'])
    expect(submission.reply().error?.role).toEqual(['Role is required'])
    const ok = parseWithZod(formData([['intent', 'invite'], ['email', ' eve@example.com '], ['role', 'viewer']]), { schema: UsersActionSchema })
    expect(ok.status === 'success' ? ok.value : null).toEqual({ intent: 'invite', firstName: '', lastName: '', email: 'eve@example.com', role: 'viewer' })
  })

  it('needs a user id on the row forms', () => {
    expect(parseWithZod(formData([['intent', 'delete'], ['id', 'x']]), { schema: UsersActionSchema }).reply().error?.id).toEqual(['No user was chosen.'])
    const role = parseWithZod(formData([['intent', 'role'], ['id', '00000000-0000-4000-8000-000000000001'], ['name', 'Eve'], ['role', 'editor']]), { schema: UsersActionSchema })
    expect(role.status).toBe('success')
  })
})
