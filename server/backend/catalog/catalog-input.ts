import { shiftDate, startOfUnit } from '#contract/date-math.ts'
import type { Params } from '#server/backend/postgrest/sql-builder.ts'

/**
 * The catalog API's request vocabulary turned into SQL: filter expressions (`a,b,!c`, `web*`),
 * tag selectors (`cluster=prod,namespace in (a,b),team!=x`) and date math (`now-7d`). Every
 * value goes through `Params`; only column expressions chosen by the caller's code are inlined.
 */

/** A request the caller can fix: answered 400 (or ignored with `lenient`). */
export class CatalogInputError extends Error {
  readonly status = 400
}

function likePattern(glob: string): string {
  return glob.replace(/[\\%_]/g, (char) => `\\${char}`).replace(/\*/g, '%')
}

/**
 * `a,b,!c,web*,!*-test`: included terms are alternatives, excluded ones all apply; `*` is a
 * wildcard. Null when the expression names nothing.
 */
export function filterExpressionSql(expression: string, column: string, params: Params): string | null {
  const include: string[] = []
  const exclude: string[] = []
  for (const raw of expression.split(',')) {
    const term = raw.trim()
    if (!term || term === '!') continue
    const negated = term.startsWith('!')
    const value = negated ? term.slice(1).trim() : term
    if (!value) continue
    const sql = value.includes('*') ? `${column} LIKE ${params.text(likePattern(value))}` : `${column} = ${params.text(value)}`
    ;(negated ? exclude : include).push(sql)
  }
  const parts: string[] = []
  if (include.length) parts.push(`(${include.join(' OR ')})`)
  // A null column is not "excluded": it simply does not equal the value.
  for (const sql of exclude) parts.push(`(${column} IS NULL OR NOT (${sql}))`)
  return parts.length ? parts.join(' AND ') : null
}

type SelectorTerm =
  | { key: string; op: '=' | '!='; value: string }
  | { key: string; op: 'in' | 'notin'; values: string[] }
  | { key: string; op: 'exists' | '!exists' }

const KEY = /^[A-Za-z0-9_.\-/:]+$/

/** Splits on commas outside parentheses. */
function splitTopLevel(text: string): string[] {
  const parts: string[] = []
  let depth = 0
  let current = ''
  for (const char of text) {
    if (char === '(') depth += 1
    if (char === ')') depth -= 1
    if (depth < 0) throw new CatalogInputError(`invalid selector "${text}": unbalanced parentheses`)
    if (char === ',' && depth === 0) {
      parts.push(current)
      current = ''
    } else current += char
  }
  if (depth !== 0) throw new CatalogInputError(`invalid selector "${text}": unbalanced parentheses`)
  parts.push(current)
  return parts.map((part) => part.trim()).filter(Boolean)
}

/** Kubernetes-style label selector terms: `k=v`, `k==v`, `k!=v`, `k in (a,b)`, `k notin (a)`, `k`, `!k`. */
export function parseSelector(text: string): SelectorTerm[] {
  const terms: SelectorTerm[] = []
  for (const part of splitTopLevel(text)) {
    const set = /^(\S+)\s+(in|notin)\s*\(([^)]*)\)$/i.exec(part)
    if (set) {
      const key = set[1]!
      if (!KEY.test(key)) throw new CatalogInputError(`invalid selector key "${key}"`)
      const values = set[3]!.split(',').map((value) => value.trim()).filter(Boolean)
      terms.push({ key, op: set[2]!.toLowerCase() as 'in' | 'notin', values })
      continue
    }
    const pair = /^([^=!\s]+)\s*(==|!=|=)\s*(.*)$/.exec(part)
    if (pair) {
      const key = pair[1]!
      if (!KEY.test(key)) throw new CatalogInputError(`invalid selector key "${key}"`)
      terms.push({ key, op: pair[2] === '!=' ? '!=' : '=', value: pair[3]!.trim() })
      continue
    }
    const negated = part.startsWith('!')
    const key = negated ? part.slice(1).trim() : part
    if (!KEY.test(key)) throw new CatalogInputError(`invalid selector "${part}"`)
    terms.push({ key, op: negated ? '!exists' : 'exists' })
  }
  return terms
}

/** A selector over a jsonb map column (`tags`, `labels`); null when it has no terms. */
export function selectorSql(text: string, column: string, params: Params): string | null {
  const conditions: string[] = []
  for (const term of parseSelector(text)) {
    const value = `(${column} ->> ${params.text(term.key)})`
    switch (term.op) {
      case '=':
        conditions.push(`${value} = ${params.text(term.value)}`)
        break
      case '!=':
        conditions.push(`${value} IS DISTINCT FROM ${params.text(term.value)}`)
        break
      case 'in':
        conditions.push(`${value} = ANY(${params.textArray(term.values)})`)
        break
      case 'notin':
        conditions.push(`(${value} IS NULL OR NOT (${value} = ANY(${params.textArray(term.values)})))`)
        break
      case 'exists':
        conditions.push(`${value} IS NOT NULL`)
        break
      case '!exists':
        conditions.push(`${value} IS NULL`)
        break
    }
  }
  return conditions.length ? conditions.join(' AND ') : null
}

/**
 * RFC3339 or date math: `now`, `now-7d`, `now-1h30m`, `now-1M`, `now/d` (rounded down to the
 * day), `now-1d/d`. Units: s, m, h, d, w, M (months), y.
 */
export function parseDateMath(text: string, now: Date, field: string): Date {
  const value = text.trim()
  const math = /^now((?:\s*[+-]\s*\d+\s*[smhdwMy])*)(?:\/([smhdwMy]))?$/.exec(value)
  if (math) {
    let result = new Date(now)
    for (const step of math[1]!.matchAll(/([+-])\s*(\d+)\s*([smhdwMy])/g)) result = shiftDate(result, step[1] === '-' ? -1 : 1, Number(step[2]), step[3]!)
    return math[2] ? startOfUnit(result, math[2]) : result
  }
  if (/^\d{4}-\d{2}-\d{2}/.test(value)) {
    const time = Date.parse(value)
    if (!Number.isNaN(time)) return new Date(time)
  }
  throw new CatalogInputError(`invalid ${field} "${text}": expected RFC3339 or date math such as now-7d`)
}
