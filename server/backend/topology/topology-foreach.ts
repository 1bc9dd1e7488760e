import { renderGoTemplate, TemplateError } from '#server/backend/health/go-template.ts'
import { propertiesAsMap } from './topology-properties.ts'

/**
 * `forEach` (resource-specs §3.6): entries added to every component a lookup yields, after
 * `$(...)` placeholders in their strings are filled in from that component.
 *
 * Syntax supported (canary-checker's struct templating with `$(` `)` delimiters):
 *   - `$(<Go template pipeline>)`, e.g. `$(.component.name)`, `$(.properties.region)`,
 *     `$(.component.labels.zone | upper)`, `$(index .component.labels "app.kubernetes.io/name")`;
 *     a bare path without the leading dot (`$(component.name)`) reads the same variable;
 *   - parentheses inside a placeholder must balance (`$(printf "%s-%s" .component.name (.properties.env))`);
 *   - variables: `component` — the looked-up component as it came back (name, type, namespace,
 *     labels, properties, … as written in its JSON), `properties` — its properties as a map
 *     name → text (or value when there is no text);
 *   - a missing value renders empty; `{{ }}` is left alone, so the display/test templates of
 *     inline checks still see their own variables when they run.
 * Every string of the entry is rendered (map keys are not); other values are kept as they are.
 */

export class ForEachTemplateError extends Error {}

export type ForEachVariables = { component: Record<string, unknown>; properties: Record<string, unknown> }

export function forEachVariables(component: Record<string, unknown>): ForEachVariables {
  const properties = Array.isArray(component.properties) ? (component.properties as Record<string, unknown>[]) : []
  return { component, properties: propertiesAsMap(properties) }
}

/** End index (exclusive) of the placeholder starting at `start` (at `$(`), or -1 when it does not close. */
function placeholderEnd(text: string, start: number): number {
  let depth = 0
  let quote: string | null = null
  for (let index = start + 1; index < text.length; index++) {
    const char = text[index]!
    if (quote) {
      if (char === '\\' && quote === '"') index++
      else if (char === quote) quote = null
      continue
    }
    if (char === '"' || char === '`') quote = char
    else if (char === '(') depth++
    else if (char === ')') {
      depth--
      if (depth === 0) return index + 1
    }
  }
  return -1
}

export function substitutePlaceholders(text: string, variables: ForEachVariables): string {
  if (!text.includes('$(')) return text
  let out = ''
  let index = 0
  for (;;) {
    const start = text.indexOf('$(', index)
    if (start === -1) break
    const end = placeholderEnd(text, start)
    if (end === -1) throw new ForEachTemplateError(`unclosed placeholder in "${text}"`)
    const inner = text.slice(start + 2, end - 1).trim()
    const pipeline = /^[A-Za-z_][\w.]*$/.test(inner) ? `.${inner}` : inner
    let value: string
    try {
      value = renderGoTemplate(`{{${pipeline}}}`, variables)
    } catch (error) {
      throw new ForEachTemplateError(`${text.slice(start, end)}: ${error instanceof TemplateError ? error.message : String(error)}`)
    }
    out += text.slice(index, start) + (value === '<no value>' ? '' : value)
    index = end
  }
  return out + text.slice(index)
}

/** A deep copy of `value` with every string's placeholders filled in. */
export function substituteDeep<T>(value: T, variables: ForEachVariables): T {
  if (typeof value === 'string') return substitutePlaceholders(value, variables) as T
  if (Array.isArray(value)) return value.map((item) => substituteDeep(item, variables)) as T
  if (value && typeof value === 'object') {
    return Object.fromEntries(Object.entries(value).map(([key, item]) => [key, substituteDeep(item, variables)])) as T
  }
  return value
}

const FOR_EACH_LISTS = ['properties', 'components', 'configs', 'selectors', 'relationships', 'checks'] as const

/**
 * The looked-up component spec with the forEach entries appended to its own lists, each
 * rendered for it. Properties are added first, so the later entries see them in `properties`.
 */
export function applyForEach(item: Record<string, unknown>, forEach: Record<string, unknown>): Record<string, unknown> {
  const result: Record<string, unknown> = { ...item }
  for (const key of FOR_EACH_LISTS) {
    const entries = forEach[key]
    if (!Array.isArray(entries) || entries.length === 0) continue
    const rendered = substituteDeep(entries, forEachVariables(result))
    result[key] = [...(Array.isArray(result[key]) ? (result[key] as unknown[]) : []), ...rendered]
  }
  return result
}
