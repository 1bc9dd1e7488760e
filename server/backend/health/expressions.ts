import { type Environment } from '@marcbachmann/cel-js'
import { CEL_LIBRARY_NAMESPACES, createCelEnvironment } from './cel-library.ts'
import { renderGoTemplate, TemplateError } from './go-template.ts'

/**
 * Template objects (`{expr | template | javascript | jsonPath}`, resource-specs §0.6) evaluated
 * over a check's variables. CEL goes through cel-js with a few of the flanksource extras users
 * lean on; Go templates through our own evaluator. `javascript` and `jsonPath` are refused with a
 * clear error rather than half-supported.
 */
export class ExpressionError extends Error {}

const environments = new Map<boolean, Environment>()

/** The environment for these variables: one that names `time` (say) keeps it, without the library's time functions. */
function celEnvironment(variables: Record<string, unknown>): Environment {
  const namespaces = !CEL_LIBRARY_NAMESPACES.some((name) => name in variables)
  let environment = environments.get(namespaces)
  if (!environment) {
    environment = createCelEnvironment({ namespaces })
    environments.set(namespaces, environment)
  }
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
    return celValue(celEnvironment(variables).evaluate(expression, variables))
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
