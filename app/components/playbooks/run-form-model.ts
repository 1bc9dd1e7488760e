import type { PlaybookParameterSpec } from '#contract/playbook/playbook-vocabulary.ts'
import type { FormConstraint } from '#app/lib/form-shape.ts'

/** Where a parameter's value sits in the Run Playbook form (`params.<name>`), apart from the resource fields. */
export const paramField = (name: string) => `params.${name}`

/** A parameter's `properties` entry as text, or undefined. */
export function propertyText(param: PlaybookParameterSpec, key: string): string | undefined {
  const value = param.properties?.[key]
  return typeof value === 'string' || typeof value === 'number' ? String(value) : undefined
}

/** A whole-number property (`minLength`, `size`), as the shared schema reads it. */
export function propertyNumber(param: PlaybookParameterSpec, key: string): number | undefined {
  const value = param.properties?.[key]
  if (typeof value === 'number' && Number.isFinite(value)) return value
  if (typeof value === 'string' && /^\d+$/.test(value.trim())) return Number(value)
  return undefined
}

export type ListOption = { label: string; value: string }

/**
 * A list parameter's choices: `properties.options` as strings or `{label, value}`, read as
 * contract/playbook/playbook-parameters.ts reads them (that module builds zod schemas, which the
 * page's bundle must not carry: decision 016).
 */
export function listOptions(param: PlaybookParameterSpec): ListOption[] {
  const options = param.properties?.options
  if (!Array.isArray(options)) return []
  return options.flatMap((option: unknown): ListOption[] => {
    if (typeof option === 'string') return [{ label: option, value: option }]
    if (option && typeof option === 'object' && 'value' in option) {
      const { label, value } = option as { label?: unknown; value?: unknown }
      return [{ label: String(label ?? value), value: String(value) }]
    }
    return []
  })
}

/** Hints shown under the fields whose text has a grammar (spec 002 §5). */
export const FORMAT_HINTS: Partial<Record<NonNullable<PlaybookParameterSpec['type']>, string>> = {
  duration: 'A duration such as 30s, 5m or 1h',
  configs: 'A JSON selector, such as {"types": ["Kubernetes::Pod"]}',
  bytes: 'A size with a unit of Mi, Gi or Ti, such as 512Mi',
  millicores: 'CPU in millicores with the suffix m, such as 500m',
}

/** The same grammars as the shared schema's, written so the browser's `v`-mode patterns accept them. */
const DNS1123_PATTERN = '[a-z0-9]([\\-a-z0-9]*[a-z0-9])?(\\.[a-z0-9]([\\-a-z0-9]*[a-z0-9])?)*'
const BYTES_PATTERN = '\\d+(\\.\\d+)?(Mi|Gi|Ti)'
const MILLICORES_PATTERN = '\\d+m'

/**
 * A parameter's own `regex` as a `pattern` attribute: the server tests it anywhere in the value
 * (RegExp.test), the browser matches the whole value, so it is wrapped to match anywhere; one
 * the browser could not read in its `v` mode is left to the server, rather than the browser
 * dropping it with a console error.
 */
export function regexPattern(regex: string): string | undefined {
  const pattern = `[\\s\\S]*(?:${regex})[\\s\\S]*`
  try {
    new RegExp(regex)
    new RegExp(`^(?:${pattern})$`, 'v')
    return pattern
  } catch {
    return undefined
  }
}

/**
 * The browser's own checks of the Run Playbook form: `required`, the text lengths, and the
 * patterns of regex, dns1123, bytes and millicores parameters. Each refuses only what the shared
 * parameter schema (contract/playbook/playbook-parameters.ts) refuses too, so the form stops the
 * same mistakes before anything is posted, with or without JavaScript; the server's schema
 * remains the judge of the rest (durations, uuids, JSON).
 */
export function parameterConstraint(params: PlaybookParameterSpec[]): FormConstraint {
  const constraint: FormConstraint = {}
  for (const param of params) {
    const type = param.type ?? 'text'
    const field: FormConstraint[string] = {}
    if (param.required) field.required = true
    if (type === 'text') {
      const minLength = propertyNumber(param, 'minLength')
      const maxLength = propertyNumber(param, 'maxLength')
      if (minLength !== undefined) field.minLength = minLength
      if (maxLength !== undefined) field.maxLength = maxLength
      const regex = propertyText(param, 'regex')
      const format = propertyText(param, 'format')
      // The browser takes one pattern: the author's regex when both are given (the server checks both).
      const pattern = regex ? regexPattern(regex) : format === 'dns1123' ? DNS1123_PATTERN : undefined
      if (pattern) field.pattern = pattern
      if (format === 'dns1123' && (field.maxLength === undefined || field.maxLength > 253)) field.maxLength = 253
    }
    if (type === 'bytes') field.pattern = BYTES_PATTERN
    if (type === 'millicores') field.pattern = MILLICORES_PATTERN
    constraint[paramField(param.name)] = field
  }
  return constraint
}
