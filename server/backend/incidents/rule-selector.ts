import { z } from 'zod'

/**
 * Resource selectors (resource-specs §0.4) as incident rules use them: matched in memory against
 * one check or component at a time, since a rule is evaluated when that resource changes.
 */
export const RuleSelectorSchema = z
  .object({
    id: z.string().optional(),
    name: z.string().optional(),
    namespace: z.string().optional(),
    search: z.string().optional(),
    agent: z.string().optional(),
    scope: z.string().optional(),
    types: z.array(z.string()).optional(),
    statuses: z.array(z.string()).optional(),
    health: z.string().optional(),
    labelSelector: z.string().optional(),
    tagSelector: z.string().optional(),
    fieldSelector: z.string().optional(),
    limit: z.number().optional(),
    includeDeleted: z.boolean().optional(),
    cache: z.string().optional(),
  })
  .strict()
export type RuleSelector = z.infer<typeof RuleSelectorSchema>

export type SelectorSubject = {
  id: string
  name: string
  namespace: string | null
  type: string | null
  status: string | null
  health?: string | null
  description?: string | null
  labels: Record<string, string>
  agentId: string | null
  /** Canary or topology id: what `scope` names. */
  scopeId?: string | null
  deleted?: boolean
}

const LOCAL_AGENT_ID = '00000000-0000-0000-0000-000000000000'

function glob(pattern: string, value: string): boolean {
  if (pattern === '*') return true
  const regex = new RegExp(`^${pattern.split('*').map((part) => part.replace(/[.+?^${}()|[\]\\]/g, '\\$&')).join('.*')}$`)
  return regex.test(value)
}

/**
 * A list of patterns, each optionally negated with `!`: the value must match no negated entry
 * and, when there are plain entries, at least one of them.
 */
export function patternListMatches(patterns: readonly string[], value: string | null | undefined): boolean {
  const entries = patterns.map((entry) => entry.trim()).filter(Boolean)
  if (entries.length === 0) return true
  const actual = value ?? ''
  const negated = entries.filter((entry) => entry.startsWith('!')).map((entry) => entry.slice(1))
  const plain = entries.filter((entry) => !entry.startsWith('!'))
  if (negated.some((pattern) => glob(pattern, actual))) return false
  return plain.length === 0 || plain.some((pattern) => glob(pattern, actual))
}

/** Splits on commas outside parentheses, so `env in (a,b),team=x` has two terms. */
function selectorTerms(selector: string): string[] {
  const terms: string[] = []
  let depth = 0
  let current = ''
  for (const char of selector) {
    if (char === '(') depth += 1
    if (char === ')') depth = Math.max(0, depth - 1)
    if (char === ',' && depth === 0) {
      terms.push(current)
      current = ''
    } else current += char
  }
  terms.push(current)
  return terms.map((term) => term.trim()).filter(Boolean)
}

export class SelectorSyntaxError extends Error {}

/** Kubernetes label-selector syntax: `k=v`, `k==v`, `k!=v`, `k in (a,b)`, `k notin (a,b)`, `k`, `!k`. */
export function labelSelectorMatches(selector: string, labels: Record<string, string>): boolean {
  for (const term of selectorTerms(selector)) {
    const set = /^([^\s!=]+)\s+(in|notin)\s+\((.*)\)$/.exec(term)
    if (set) {
      const values = set[3]!.split(',').map((value) => value.trim())
      const has = Object.prototype.hasOwnProperty.call(labels, set[1]!)
      const inside = has && values.includes(labels[set[1]!]!)
      if (set[2] === 'in' ? !inside : inside) return false
      continue
    }
    const comparison = /^([^\s!=]+)\s*(==|=|!=)\s*(.*)$/.exec(term)
    if (comparison) {
      const equal = labels[comparison[1]!] === comparison[3]!.trim()
      if (comparison[2] === '!=' ? equal : !equal) return false
      continue
    }
    if (/^![^\s!=()]+$/.test(term)) {
      if (Object.prototype.hasOwnProperty.call(labels, term.slice(1))) return false
      continue
    }
    if (/^[^\s!=()]+$/.test(term)) {
      if (!Object.prototype.hasOwnProperty.call(labels, term)) return false
      continue
    }
    throw new SelectorSyntaxError(`invalid selector term "${term}"`)
  }
  return true
}

/** Throws SelectorSyntaxError when a label, tag or field selector does not parse. */
export function checkSelectorSyntax(selector: RuleSelector): void {
  for (const text of [selector.labelSelector, selector.tagSelector, selector.fieldSelector]) {
    if (text) labelSelectorMatches(text, {})
  }
}

function fieldsOf(subject: SelectorSubject): Record<string, string> {
  const fields: Record<string, string> = { id: subject.id, name: subject.name }
  if (subject.namespace) fields.namespace = subject.namespace
  if (subject.type) fields.type = subject.type
  if (subject.status) fields.status = subject.status
  if (subject.health) fields.health = subject.health
  if (subject.agentId) fields.agent_id = subject.agentId
  return fields
}

export function selectorMatches(selector: RuleSelector, subject: SelectorSubject): boolean {
  if (subject.deleted && !selector.includeDeleted) return false
  if (selector.id && selector.id !== subject.id) return false
  if (selector.name && !patternListMatches(selector.name.split(','), subject.name)) return false
  if (selector.namespace && !patternListMatches(selector.namespace.split(','), subject.namespace)) return false
  if (selector.search) {
    const needle = selector.search.toLowerCase()
    if (![subject.name, subject.description ?? ''].some((value) => value.toLowerCase().includes(needle))) return false
  }
  if (selector.agent && selector.agent !== 'all') {
    const wanted = selector.agent === 'self' || selector.agent === 'local' ? LOCAL_AGENT_ID : selector.agent
    if ((subject.agentId ?? LOCAL_AGENT_ID) !== wanted) return false
  }
  if (selector.scope && selector.scope !== subject.scopeId) return false
  if (selector.types?.length && !patternListMatches(selector.types, subject.type)) return false
  if (selector.statuses?.length && !patternListMatches(selector.statuses, subject.status)) return false
  if (selector.health && !patternListMatches(selector.health.split(','), subject.health ?? subject.status)) return false
  if (selector.labelSelector && !labelSelectorMatches(selector.labelSelector, subject.labels)) return false
  if (selector.tagSelector && !labelSelectorMatches(selector.tagSelector, subject.labels)) return false
  if (selector.fieldSelector && !labelSelectorMatches(selector.fieldSelector, fieldsOf(subject))) return false
  return true
}
