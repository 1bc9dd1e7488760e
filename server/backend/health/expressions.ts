import { Environment } from '@marcbachmann/cel-js'
import { formatDuration, formatSize, parseDurationMs } from '#contract/canary/duration.ts'
import { renderGoTemplate, TemplateError } from './go-template.ts'

/**
 * Template objects (`{expr | template | javascript | jsonPath}`, resource-specs §0.6) evaluated
 * over a check's variables. CEL goes through cel-js with a few of the flanksource extras users
 * lean on; Go templates through our own evaluator. `javascript` and `jsonPath` are refused with a
 * clear error rather than half-supported.
 */
export class ExpressionError extends Error {}

function semverParts(version: string): number[] {
  return version.replace(/^v/, '').split(/[.-]/).slice(0, 3).map((part) => Number.parseInt(part, 10) || 0)
}

function semverCompare(constraint: string, version: string): boolean {
  const match = /^\s*(>=|<=|>|<|=|==|!=)?\s*(.+)$/.exec(constraint)
  if (!match) return false
  const [a, b] = [semverParts(version), semverParts(match[2]!)]
  const diff = a[0]! - b[0]! || a[1]! - b[1]! || a[2]! - b[2]!
  switch (match[1]) {
    case '>=': return diff >= 0
    case '<=': return diff <= 0
    case '>': return diff > 0
    case '<': return diff < 0
    case '!=': return diff !== 0
    default: return diff === 0
  }
}

let environment: Environment | undefined

function celEnvironment(): Environment {
  if (environment) return environment
  environment = new Environment({ unlistedVariablesAreDyn: true, homogeneousAggregateLiterals: false })
    .registerFunction('HumanDuration(dyn): string', (value: unknown) => formatDuration(Number(value) / 1e6))
    .registerFunction('HumanSize(dyn): string', (value: unknown) => formatSize(Number(value)))
    .registerFunction('SemverCompare(string, string): bool', (version: string, constraint: string) => semverCompare(constraint, version))
    .registerFunction('toJSON(dyn): string', (value: unknown) => JSON.stringify(value, (_k, v) => (typeof v === 'bigint' ? Number(v) : v)))
    .registerFunction({
      name: 'toJSON',
      receiverType: 'dyn',
      returnType: 'string',
      handler: (value: unknown) => JSON.stringify(value, (_k, v) => (typeof v === 'bigint' ? Number(v) : v)),
      params: [],
    })
    .registerFunction('Duration(string): int', (text: string) => {
      const ms = parseDurationMs(text)
      if (ms === null) throw new Error(`invalid duration "${text}"`)
      return BigInt(Math.round(ms))
    })
  return environment
}

function celValue(value: unknown): unknown {
  if (typeof value === 'bigint') return Number(value)
  if (Array.isArray(value)) return value.map(celValue)
  if (value instanceof Map) return Object.fromEntries([...value.entries()].map(([k, v]) => [String(k), celValue(v)]))
  if (value && typeof value === 'object' && !(value instanceof Date) && !(value instanceof Uint8Array)) {
    return Object.fromEntries(Object.entries(value).map(([k, v]) => [k, celValue(v)]))
  }
  return value
}

export function evaluateCel(expression: string, variables: Record<string, unknown>): unknown {
  try {
    return celValue(celEnvironment().evaluate(expression, variables))
  } catch (error) {
    throw new ExpressionError(`${(error as Error).message.split('\n')[0]}`)
  }
}

export type TemplateObjectInput = { expr?: string; template?: string; javascript?: string; jsonPath?: string }

/** True when the object sets one of the four keys. */
export function isTemplateSet(template: TemplateObjectInput | undefined): template is TemplateObjectInput {
  return Boolean(template && (template.expr || template.template || template.javascript || template.jsonPath))
}

/** Renders a template object; CEL results come back as values, Go templates as strings. */
export function evaluateTemplateObject(template: TemplateObjectInput, variables: Record<string, unknown>): unknown {
  if (template.expr) return evaluateCel(template.expr, variables)
  if (template.template !== undefined && template.template !== '') {
    try {
      return renderGoTemplate(template.template, variables)
    } catch (error) {
      throw new ExpressionError(error instanceof TemplateError ? error.message : String(error))
    }
  }
  if (template.javascript) throw new ExpressionError('javascript expressions are not supported; use expr (CEL) or template')
  if (template.jsonPath) throw new ExpressionError('jsonPath expressions are not supported; use expr (CEL) or template')
  return undefined
}

/** A value rendered as message text: strings as is, everything else as JSON. */
export function asText(value: unknown): string {
  if (value === undefined || value === null) return ''
  if (typeof value === 'string') return value
  return JSON.stringify(value)
}

/** A test's output as a boolean, or null when it is neither a boolean nor "true"/"false". */
export function asBoolean(value: unknown): boolean | null {
  if (typeof value === 'boolean') return value
  if (typeof value === 'string') {
    const text = value.trim().toLowerCase()
    if (text === 'true') return true
    if (text === 'false') return false
  }
  return null
}
