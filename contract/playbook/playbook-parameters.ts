import { z } from 'zod'
import { parseDurationMs } from '#contract/canary/duration.ts'
import { isUuid } from '#contract/uuid.ts'
import type { PlaybookParameterSpec } from './playbook-vocabulary.ts'

/**
 * Run parameter values (resource-specs §2.2, spec 4ea4 §5) as one zod schema that both the
 * server (POST /playbook/run) and the console's conform form use, so a value the form accepts is
 * one the run accepts. Values are strings; an empty string counts as not given.
 */

export type ParameterValues = Record<string, string>

export type ParameterSchemaOptions = {
  /**
   * `server`: missing required values fail once, at the root, with the reference's
   * "missing required parameter(s): a, b". `form`: each missing field fails on its own with the
   * console's generic 'This field is required'.
   */
  mode?: 'server' | 'form'
}

/** DNS-1123 subdomain: lowercase alphanumeric labels joined by dots, dashes inside a label, at most 253 characters. */
const DNS1123 = /^[a-z0-9]([-a-z0-9]*[a-z0-9])?(\.[a-z0-9]([-a-z0-9]*[a-z0-9])?)*$/
const BYTES = /^\d+(\.\d+)?(Mi|Gi|Ti)$/
const MILLICORES = /^\d+m$/

export const PARAMETER_MESSAGES = {
  required: 'This field is required',
  dns1123: "must be a DNS-1123 name: lowercase letters, digits, '-' and '.', starting and ending with a letter or digit",
  bytes: 'must be a size with a unit of Mi, Gi or Ti (e.g. 512Mi)',
  millicores: 'must be millicores with the suffix m (e.g. 500m)',
  checkbox: 'must be true or false',
  uuid: 'must be an id (uuid)',
  configs: 'must be a JSON selector (an object or a list of objects)',
  negativeDuration: 'must not be negative',
} as const

const isBlank = (value: unknown): boolean => value === undefined || value === null || value === ''

function numberProperty(properties: Record<string, unknown>, key: string): number | undefined {
  const value = properties[key]
  if (typeof value === 'number' && Number.isFinite(value)) return value
  if (typeof value === 'string' && /^\d+$/.test(value.trim())) return Number(value)
  return undefined
}

/** The options a `list` parameter offers: `[{label, value}]`, or plain strings. */
export function listOptions(parameter: PlaybookParameterSpec): { label: string; value: string }[] {
  const options = parameter.properties?.options
  if (!Array.isArray(options)) return []
  return options.flatMap((option: unknown) => {
    if (typeof option === 'string') return [{ label: option, value: option }]
    if (option && typeof option === 'object' && 'value' in option) {
      const { label, value } = option as { label?: unknown; value?: unknown }
      return [{ label: String(label ?? value), value: String(value) }]
    }
    return []
  })
}

/** Why one non-empty value does not fit its parameter, or null when it does. */
export function parameterValueProblem(parameter: PlaybookParameterSpec, value: string): string | null {
  const properties = parameter.properties ?? {}
  switch (parameter.type ?? 'text') {
    case 'text': {
      const minLength = numberProperty(properties, 'minLength')
      const maxLength = numberProperty(properties, 'maxLength')
      if (minLength !== undefined && value.length < minLength) return `must be at least ${minLength} characters`
      if (maxLength !== undefined && value.length > maxLength) return `must be at most ${maxLength} characters`
      if (typeof properties.regex === 'string' && properties.regex !== '') {
        let pattern: RegExp | null = null
        try {
          pattern = new RegExp(properties.regex)
        } catch {
          // A pattern JavaScript cannot read is the playbook author's problem, not the caller's.
          pattern = null
        }
        if (pattern && !pattern.test(value)) return `must match ${properties.regex}`
      }
      if (properties.format === 'dns1123' && (value.length > 253 || !DNS1123.test(value))) return PARAMETER_MESSAGES.dns1123
      return null
    }
    case 'checkbox':
      return value === 'true' || value === 'false' ? null : PARAMETER_MESSAGES.checkbox
    case 'list': {
      const options = listOptions(parameter)
      if (options.length === 0 || options.some((option) => option.value === value)) return null
      return `must be one of ${options.map((option) => option.value).join(', ')}`
    }
    case 'duration': {
      if (value.trim().startsWith('-')) return PARAMETER_MESSAGES.negativeDuration
      const ms = parseDurationMs(value)
      if (ms === null) return `"${value}" is not a duration (e.g. 30s, 5m, 1h)`
      const min = properties.min === undefined ? null : parseDurationMs(properties.min)
      const max = properties.max === undefined ? null : parseDurationMs(properties.max)
      if (min !== null && ms < min) return `must be at least ${String(properties.min)}`
      if (max !== null && ms > max) return `must be at most ${String(properties.max)}`
      return null
    }
    case 'bytes':
      return BYTES.test(value) ? null : PARAMETER_MESSAGES.bytes
    case 'millicores':
      return MILLICORES.test(value) ? null : PARAMETER_MESSAGES.millicores
    case 'people':
    case 'team':
    case 'component':
    case 'config':
    case 'check':
      return isUuid(value) ? null : PARAMETER_MESSAGES.uuid
    case 'configs': {
      try {
        const selector: unknown = JSON.parse(value)
        const selectors = Array.isArray(selector) ? selector : [selector]
        const allObjects = selectors.every((entry) => entry !== null && typeof entry === 'object' && !Array.isArray(entry))
        return allObjects ? null : PARAMETER_MESSAGES.configs
      } catch {
        return PARAMETER_MESSAGES.configs
      }
    }
    case 'code': {
      if (properties.language !== 'json') return null
      try {
        JSON.parse(value)
        return null
      } catch {
        return 'must be valid JSON'
      }
    }
    case 'secret':
      return null
  }
}

const valueSchema = z.preprocess(
  (value) => (typeof value === 'number' || typeof value === 'boolean' ? String(value) : value),
  z.string({ invalid_type_error: 'must be a string' }).optional(),
)

/**
 * The schema of a run's `params` for these parameters: every value a string fitting its type
 * and properties, required ones present and not empty, no name the playbook does not declare.
 */
export function parameterValuesSchema(parameters: PlaybookParameterSpec[], options: ParameterSchemaOptions = {}) {
  const mode = options.mode ?? 'server'
  const shape: Record<string, typeof valueSchema> = {}
  for (const parameter of parameters) shape[parameter.name] = valueSchema
  return z
    .object(shape)
    .passthrough()
    .superRefine((values, ctx) => {
      const known = new Set(parameters.map((parameter) => parameter.name))
      const unknown = Object.keys(values).filter((name) => !known.has(name))
      if (unknown.length > 0) ctx.addIssue({ code: z.ZodIssueCode.custom, path: [], message: `unknown parameter(s): ${unknown.join(', ')}` })
      const missing = parameters.filter((parameter) => parameter.required && isBlank(values[parameter.name]))
      if (missing.length > 0) {
        if (mode === 'server') {
          ctx.addIssue({ code: z.ZodIssueCode.custom, path: [], message: `missing required parameter(s): ${missing.map((parameter) => parameter.name).join(', ')}` })
        } else {
          for (const parameter of missing) ctx.addIssue({ code: z.ZodIssueCode.custom, path: [parameter.name], message: PARAMETER_MESSAGES.required })
        }
      }
      for (const parameter of parameters) {
        const value = values[parameter.name]
        if (typeof value !== 'string' || value === '') continue
        const problem = parameterValueProblem(parameter, value)
        if (problem) ctx.addIssue({ code: z.ZodIssueCode.custom, path: [parameter.name], message: problem })
      }
    })
    .transform((values) => {
      const clean: ParameterValues = {}
      for (const [name, value] of Object.entries(values)) if (typeof value === 'string') clean[name] = value
      return clean
    })
}

/**
 * Server-side check of a run's parameters: the cleaned values, or one message naming every
 * problem ("missing required parameter(s): a" first, then "parameter 'b' must ...").
 */
export function validateParameterValues(
  parameters: PlaybookParameterSpec[],
  values: Record<string, unknown>,
): { ok: true; values: ParameterValues } | { ok: false; message: string } {
  const parsed = parameterValuesSchema(parameters, { mode: 'server' }).safeParse(values)
  if (parsed.success) return { ok: true, values: parsed.data }
  const message = parsed.error.issues
    .map((issue) => (issue.path.length === 0 ? issue.message : `parameter '${String(issue.path[0])}' ${issue.message}`))
    .join('; ')
  return { ok: false, message }
}
