import { describe, expect, it } from 'vitest'
import { parameterValuesSchema, validateParameterValues, PARAMETER_MESSAGES } from '#contract/playbook/playbook-parameters.ts'
import type { PlaybookParameterSpec } from '#contract/playbook/playbook-vocabulary.ts'

const problem = (parameter: PlaybookParameterSpec, value: string) => {
  const verdict = validateParameterValues([parameter], { [parameter.name]: value })
  return verdict.ok ? null : verdict.message
}

describe('playbook parameter values', () => {
  it('names every missing required parameter at once on the server', () => {
    const verdict = validateParameterValues(
      [{ name: 'a', required: true }, { name: 'b', required: true }, { name: 'c' }],
      { b: '' },
    )
    expect(verdict).toEqual({ ok: false, message: 'missing required parameter(s): a, b' })
  })

  it('marks each missing field with the generic message in form mode', () => {
    const parsed = parameterValuesSchema([{ name: 'a', required: true }], { mode: 'form' }).safeParse({})
    expect(parsed.success).toBe(false)
    expect(parsed.error?.issues).toEqual([expect.objectContaining({ path: ['a'], message: PARAMETER_MESSAGES.required })])
  })

  it('rejects names the playbook does not declare', () => {
    expect(validateParameterValues([{ name: 'a' }], { a: 'x', other: 'y' })).toEqual({ ok: false, message: 'unknown parameter(s): other' })
  })

  it('checks text length, regex and dns1123', () => {
    const text: PlaybookParameterSpec = { name: 't', properties: { minLength: 2, maxLength: 4, regex: '^[a-z]+$' } }
    expect(problem(text, 'a')).toBe("parameter 't' must be at least 2 characters")
    expect(problem(text, 'abcde')).toBe("parameter 't' must be at most 4 characters")
    expect(problem(text, 'ab1')).toBe("parameter 't' must match ^[a-z]+$")
    expect(problem(text, 'abc')).toBeNull()
    const dns: PlaybookParameterSpec = { name: 'd', type: 'text', properties: { format: 'dns1123' } }
    expect(problem(dns, 'web-1.prod')).toBeNull()
    expect(problem(dns, 'Web_1')).toBe(`parameter 'd' ${PARAMETER_MESSAGES.dns1123}`)
    expect(problem(dns, '-web')).not.toBeNull()
  })

  it('checks list options, checkbox, bytes and millicores', () => {
    const list: PlaybookParameterSpec = { name: 'l', type: 'list', properties: { options: [{ label: 'One', value: '1' }, { label: 'Two', value: '2' }] } }
    expect(problem(list, '2')).toBeNull()
    expect(problem(list, '3')).toBe("parameter 'l' must be one of 1, 2")
    expect(problem({ name: 'c', type: 'checkbox' }, 'true')).toBeNull()
    expect(problem({ name: 'c', type: 'checkbox' }, 'on')).toBe(`parameter 'c' ${PARAMETER_MESSAGES.checkbox}`)
    for (const good of ['512Mi', '2Gi', '1Ti', '1.5Gi']) expect(problem({ name: 'b', type: 'bytes' }, good)).toBeNull()
    for (const bad of ['512', '512MB', '2G', 'Mi']) expect(problem({ name: 'b', type: 'bytes' }, bad)).toBe(`parameter 'b' ${PARAMETER_MESSAGES.bytes}`)
    expect(problem({ name: 'm', type: 'millicores' }, '500m')).toBeNull()
    expect(problem({ name: 'm', type: 'millicores' }, '0.5')).toBe(`parameter 'm' ${PARAMETER_MESSAGES.millicores}`)
  })

  it('checks durations against min and max and refuses negatives', () => {
    const duration: PlaybookParameterSpec = { name: 'd', type: 'duration', properties: { min: '1m', max: '1h' } }
    expect(problem(duration, '30m')).toBeNull()
    expect(problem(duration, '30s')).toBe("parameter 'd' must be at least 1m")
    expect(problem(duration, '2h')).toBe("parameter 'd' must be at most 1h")
    expect(problem(duration, '-5m')).toBe("parameter 'd' must not be negative")
    expect(problem(duration, 'soon')).toBe('parameter \'d\' "soon" is not a duration (e.g. 30s, 5m, 1h)')
  })

  it('checks resource ids, configs selectors and json code', () => {
    for (const type of ['people', 'team', 'component', 'config', 'check'] as const) {
      expect(problem({ name: 'r', type }, '0190c3a0-1111-7000-8000-000000000001')).toBeNull()
      expect(problem({ name: 'r', type }, 'web')).toBe(`parameter 'r' ${PARAMETER_MESSAGES.uuid}`)
    }
    expect(problem({ name: 's', type: 'configs' }, '{"types":["Kubernetes::Pod"]}')).toBeNull()
    expect(problem({ name: 's', type: 'configs' }, '[{"name":"a"}]')).toBeNull()
    expect(problem({ name: 's', type: 'configs' }, '"x"')).toBe(`parameter 's' ${PARAMETER_MESSAGES.configs}`)
    expect(problem({ name: 'j', type: 'code', properties: { language: 'json' } }, '{')).toBe("parameter 'j' must be valid JSON")
    expect(problem({ name: 'y', type: 'code', properties: { language: 'yaml' } }, '{')).toBeNull()
    expect(problem({ name: 'p', type: 'secret' }, 'anything')).toBeNull()
  })

  it('keeps given string values and drops blanks that are not required', () => {
    const verdict = validateParameterValues([{ name: 'a' }, { name: 'b', type: 'bytes' }], { a: 'x', b: '' })
    expect(verdict).toEqual({ ok: true, values: { a: 'x', b: '' } })
  })
})
