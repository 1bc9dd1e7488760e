import { parse } from 'yaml'
import { describe, expect, it } from 'vitest'
import { canaryFromForm, canaryYamlFromForm, CHECK_TYPE_FORMS, formFieldOfPath, getCheckTypeForm } from '#app/lib/canary-check-forms.ts'
import { CHECK_SCHEMAS } from '#contract/canary/canary-spec.schema.ts'
import { CanaryValidationError, parseCanaryObject } from '#contract/canary/canary-document.ts'

describe('health check type forms', () => {
  it('covers only types the engine runs, with field names its schema knows', () => {
    for (const form of CHECK_TYPE_FORMS) {
      const schema = CHECK_SCHEMAS[form.type as keyof typeof CHECK_SCHEMAS]
      expect(schema, form.type).toBeDefined()
      for (const field of form.fields) expect(Object.keys(schema.shape), `${form.type}.${field.name}`).toContain(field.name.split('.')[0])
    }
  })

  it('turns every type form filled with its placeholders into a canary the API accepts', () => {
    for (const form of CHECK_TYPE_FORMS) {
      const values: Record<string, string> = { name: `form-${form.type}`, namespace: 'checks' }
      for (const field of form.fields) if (field.placeholder) values[field.name] = field.placeholder
      for (const field of form.fields) if (field.kind === 'select') values[field.name] = field.options![0]!
      const built = canaryFromForm(form, values)
      expect(built.ok, form.type).toBe(true)
      if (!built.ok) continue
      const canary = parseCanaryObject(built.document)
      expect(canary).toMatchObject({ name: `form-${form.type}`, namespace: 'checks', spec: { schedule: '@every 5m' } })
      const checks = (canary.spec as Record<string, unknown>)[form.type] as Record<string, unknown>[]
      expect(checks).toHaveLength(1)
      expect(checks[0]!.name).toBe(`form-${form.type}`)
      // The Code tab starts from the same canary.
      expect(parse(canaryYamlFromForm(form, values))).toEqual(built.document)
    }
  })

  it('converts numbers, lists and nested fields, and names the fields at fault', () => {
    const http = getCheckTypeForm('http')!
    const built = canaryFromForm(http, {
      name: 'web', schedule: '@every 1m', checkName: 'home', url: 'https://example.com', responseCodes: '200, 204', thresholdMillis: '750', 'test.expr': 'code == 200',
    })
    expect(built).toEqual({
      ok: true,
      document: {
        apiVersion: 'canaries.flanksource.com/v1', kind: 'Canary', metadata: { name: 'web', namespace: 'default' },
        spec: { schedule: '@every 1m', http: [{ name: 'home', url: 'https://example.com', responseCodes: [200, 204], thresholdMillis: 750, test: { expr: 'code == 200' } }] },
      },
    })
    expect(canaryFromForm(http, { url: '', thresholdMillis: 'fast', responseCodes: '200, ok', method: 'FETCH' })).toEqual({
      ok: false,
      errors: {
        name: 'Name is required.',
        url: 'URL is required.',
        thresholdMillis: 'Latency threshold (ms) must be a number of 0 or more.',
        responseCodes: 'Accepted status codes must be whole numbers separated by commas.',
        method: 'Method must be one of GET, POST, PUT, PATCH, DELETE, HEAD, OPTIONS.',
      },
    })
  })

  it('maps the schema’s field paths back to form fields', () => {
    const http = getCheckTypeForm('http')!
    expect(formFieldOfPath(http, 'spec.http[0].url')).toBe('url')
    expect(formFieldOfPath(http, 'spec.http[0].responseCodes[0]')).toBe('responseCodes')
    expect(formFieldOfPath(http, 'spec.http[0].test')).toBe('test.expr')
    expect(formFieldOfPath(http, 'spec.http[0].name')).toBe('checkName')
    expect(formFieldOfPath(http, 'spec.schedule')).toBe('schedule')
    expect(formFieldOfPath(http, 'metadata.name')).toBe('name')
    expect(formFieldOfPath(http, 'spec.tcp[0].endpoint')).toBeNull()
    // An out-of-range status code passes the form's own check and is caught by the schema.
    const built = canaryFromForm(http, { name: 'web', url: 'https://example.com', responseCodes: '999' })
    expect(built.ok).toBe(true)
    if (!built.ok) return
    try {
      parseCanaryObject(built.document)
      expect.unreachable()
    } catch (error) {
      expect(error).toBeInstanceOf(CanaryValidationError)
      expect((error as CanaryValidationError).issues.map((issue) => formFieldOfPath(http, issue.path))).toEqual(['responseCodes'])
    }
  })
})
