import { parseWithZod } from '@conform-to/zod'
import { describe, expect, it } from 'vitest'
import { CreateTeamSchema } from '#app/components/access/team-form.ts'
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
    expect(submission.error?.name).toEqual(['Name is required'])
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
    expect(submission.error?.expiry).toEqual(['Expiry must be never'])
  })

  it('tells the delete form apart by its intent', () => {
    const submission = parseWithZod(formData([['intent', 'delete'], ['id', 'abc'], ['name', 'ci']]), { schema: TokenActionSchema })
    expect(submission.status === 'success' ? submission.value : null).toEqual({ intent: 'delete', id: 'abc', name: 'ci' })
    expect(parseWithZod(formData([['intent', 'rename']]), { schema: TokenActionSchema }).status).toBe('error')
  })
})

describe('team create schema', () => {
  it('requires a name, defaults the icon and parses the spec', () => {
    expect(parseWithZod(formData([['name', '']]), { schema: CreateTeamSchema }).error?.name).toEqual(['This field is required'])
    const submission = parseWithZod(formData([['name', 'SRE'], ['icon', ''], ['spec', '{"a":1}']]), { schema: CreateTeamSchema })
    expect(submission.status === 'success' ? submission.value : null).toEqual({ name: 'SRE', icon: 'group', spec: { a: 1 } })
    expect(parseWithZod(formData([['name', 'SRE'], ['spec', '[]']]), { schema: CreateTeamSchema }).error?.spec).toEqual(['The spec must be a JSON object'])
  })
})
