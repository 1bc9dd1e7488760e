import { getZodConstraint, parseWithZod } from '@conform-to/zod'
import { describe, expect, it } from 'vitest'
import { checkTypeFormConstraint, checkTypeFormSchema, flattenCheckFormValues, getCheckTypeForm, isCheckFormIntent } from '#app/lib/canary-check-forms.ts'
import { EMPTY_SPEC, getEditorKind, NewResourceActionSchema, parseResourceListSearch, ResourceActionSchema, resourceListColumns, ResourceFormSchema } from '#app/lib/resource-editor.ts'

function formData(entries: Array<[string, string]>): FormData {
  const data = new FormData()
  for (const [name, value] of entries) data.append(name, value)
  return data
}

const canaries = getEditorKind('canaries')!
const incidentRules = getEditorKind('incident_rules')!

describe('resource YAML form', () => {
  it('requires the YAML, natively too, and leaves name and namespace to the YAML', () => {
    expect(getZodConstraint(ResourceFormSchema)).toMatchObject({ yaml: { required: true }, name: { required: false }, namespace: { required: false } })
    expect(parseWithZod(formData([['intent', 'save'], ['yaml', '']]), { schema: ResourceFormSchema }).reply().error?.yaml).toEqual([EMPTY_SPEC])
    expect(parseWithZod(formData([['intent', 'save'], ['yaml', '  \n ']]), { schema: ResourceFormSchema }).reply().error?.yaml).toEqual([EMPTY_SPEC])
    const saved = parseWithZod(formData([['intent', 'save'], ['name', ' web '], ['yaml', 'spec: {}']]), { schema: ResourceFormSchema })
    expect(saved.status === 'success' ? saved.value : null).toEqual({ intent: 'save', name: 'web', yaml: 'spec: {}' })
  })

  it('offers delete only where a resource exists', () => {
    expect(parseWithZod(formData([['intent', 'delete']]), { schema: ResourceActionSchema }).status).toBe('success')
    expect(parseWithZod(formData([['intent', 'delete']]), { schema: NewResourceActionSchema }).reply().error?.intent).toEqual(['Unknown action.'])
    expect(parseWithZod(formData([['intent', 'rename']]), { schema: ResourceActionSchema }).status).toBe('error')
  })
})

describe('resource list search', () => {
  const params = (query: string) => new URLSearchParams(query)

  it('defaults to the platform order, page 1 of 100', () => {
    expect(parseResourceListSearch(canaries, params(''))).toEqual({ sortBy: null, sortDesc: false, page: 1, pageSize: 100 })
  })

  it('reads sort, direction, page and page size', () => {
    expect(parseResourceListSearch(canaries, params('sortBy=status&sortDesc=true&page=3&pageSize=50'))).toEqual({ sortBy: 'status', sortDesc: true, page: 3, pageSize: 50 })
  })

  it('falls back to defaults on bad values, and on columns the kind lacks', () => {
    expect(parseResourceListSearch(canaries, params('sortBy=__proto__&sortDesc=yes&page=-2&pageSize=7'))).toEqual({ sortBy: null, sortDesc: false, page: 1, pageSize: 100 })
    expect(parseResourceListSearch(canaries, params('page=1e3'))).toMatchObject({ page: 1 })
    // Incident rules are read from their table: no namespace, no last job to sort by.
    expect(resourceListColumns(incidentRules)).toEqual(['name', 'source', 'updated_at', 'created_at'])
    expect(parseResourceListSearch(incidentRules, params('sortBy=status')).sortBy).toBeNull()
    expect(parseResourceListSearch(incidentRules, params('sortBy=namespace')).sortBy).toBeNull()
    expect(parseResourceListSearch(canaries, params('sortBy=namespace')).sortBy).toBe('namespace')
  })
})

describe('health check type form schema', () => {
  const http = getCheckTypeForm('http')!
  const schema = checkTypeFormSchema(http)

  it('sends the required fields to the browser', () => {
    expect(checkTypeFormConstraint(http)).toMatchObject({ name: { required: true }, url: { required: true }, namespace: { required: false }, 'test.expr': { required: false } })
  })

  it('refuses Create with the canary builder’s messages, on each field', () => {
    const submission = parseWithZod(formData([['intent', 'create-from-form'], ['checkType', 'http'], ['thresholdMillis', 'fast'], ['responseCodes', '200, ok'], ['method', 'FETCH']]), { schema })
    expect(submission.reply().error).toEqual({
      name: ['Name is required.'],
      url: ['URL is required.'],
      thresholdMillis: ['Latency threshold (ms) must be a number of 0 or more.'],
      responseCodes: ['Accepted status codes must be whole numbers separated by commas.'],
      method: ['Method must be one of GET, POST, PUT, PATCH, DELETE, HEAD, OPTIONS.'],
    })
  })

  it('checks as Create when no button is named (revalidating while typing)', () => {
    expect(parseWithZod(formData([['checkType', 'http'], ['name', 'web']]), { schema }).reply().error).toEqual({ url: ['URL is required.'] })
  })

  it('takes Edit as YAML unchecked, and reads dotted fields back flat', () => {
    const submission = parseWithZod(formData([['intent', 'form-to-code'], ['checkType', 'http'], ['thresholdMillis', 'fast'], ['test.expr', 'code == 200']]), { schema })
    expect(submission.status).toBe('success')
    if (submission.status !== 'success') return
    expect(flattenCheckFormValues(submission.value)).toEqual({ thresholdMillis: 'fast', 'test.expr': 'code == 200' })
  })

  it('accepts a complete answer and refuses another type’s post', () => {
    const submission = parseWithZod(formData([['intent', 'create-from-form'], ['checkType', 'http'], ['name', 'web'], ['url', 'https://example.com'], ['responseCodes', '200']]), { schema })
    expect(submission.status === 'success' ? flattenCheckFormValues(submission.value) : null).toEqual({ name: 'web', url: 'https://example.com', responseCodes: '200' })
    expect(parseWithZod(formData([['intent', 'create-from-form'], ['checkType', 'tcp'], ['name', 'web'], ['url', 'x']]), { schema }).status).toBe('error')
    expect(isCheckFormIntent('form-to-code')).toBe(true)
    expect(isCheckFormIntent('save')).toBe(false)
  })
})
