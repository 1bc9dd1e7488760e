import { parseError } from './errors.ts'

/**
 * Parsers for PostgREST's query-string grammar (v12): `select`, filters, logic trees and
 * `order`. They produce plain syntax trees; names are checked against the schema cache later.
 */
export type JsonPathStep = { arrow: '->' | '->>'; key: string; index: boolean }
export type Field = { name: string; path: JsonPathStep[] }

export type SelectItem =
  | { kind: 'star' }
  | { kind: 'column'; field: Field; alias: string | null; cast: string | null }
  | {
      kind: 'embed'
      name: string
      alias: string | null
      hint: string | null
      join: 'inner' | 'left' | null
      spread: boolean
      select: SelectItem[]
    }

export const OPERATORS = [
  'eq', 'neq', 'gt', 'gte', 'lt', 'lte', 'like', 'ilike', 'match', 'imatch', 'in', 'is', 'isdistinct',
  'fts', 'plfts', 'phfts', 'wfts', 'cs', 'cd', 'ov', 'sl', 'sr', 'nxr', 'nxl', 'adj',
] as const
export type Operator = (typeof OPERATORS)[number]
const OPERATOR_SET = new Set<string>(OPERATORS)
const QUANTIFIABLE = new Set<string>(['eq', 'neq', 'gt', 'gte', 'lt', 'lte', 'like', 'ilike', 'match', 'imatch'])
const FTS = new Set<string>(['fts', 'plfts', 'phfts', 'wfts'])

export type Filter = {
  field: Field
  negate: boolean
  operator: Operator
  quantifier: 'any' | 'all' | null
  language: string | null
  /** Scalar operand, or the element list for `in` and quantified operators. */
  value: string | string[]
}

export type LogicTree = { kind: 'and' | 'or'; negate: boolean; children: LogicNode[] }
export type LogicNode = { kind: 'filter'; filter: Filter } | LogicTree

export type OrderTerm = {
  field: Field
  /** Set for `order=embed(col)`: sort parents by a to-one embedded resource's column. */
  embed: string | null
  direction: 'asc' | 'desc' | null
  nulls: 'first' | 'last' | null
}

const IDENT_CHAR = /[\p{L}\p{N}_$ ]/u

class Cursor {
  index = 0
  constructor(readonly text: string, readonly what: string) {}
  get done() {
    return this.index >= this.text.length
  }
  peek(offset = 0) {
    return this.text[this.index + offset] ?? ''
  }
  startsWith(token: string) {
    return this.text.startsWith(token, this.index)
  }
  skipSpaces() {
    while (this.peek() === ' ') this.index++
  }
  fail(expected: string): never {
    const at = this.index >= this.text.length ? 'end of input' : `"${this.text.slice(this.index, this.index + 20)}"`
    throw parseError(`"failed to parse ${this.what} (${this.text})"`, `unexpected ${at} expecting ${expected}`)
  }
  expect(token: string) {
    if (!this.startsWith(token)) this.fail(`"${token}"`)
    this.index += token.length
  }
  /** A bare identifier (letters, digits, `_`, `$`, inner spaces) or a double-quoted name. */
  identifier(expected = 'an identifier'): string {
    this.skipSpaces()
    if (this.peek() === '"') return this.quoted()
    const start = this.index
    while (!this.done && IDENT_CHAR.test(this.peek())) this.index++
    const name = this.text.slice(start, this.index).trim()
    if (!name) this.fail(expected)
    return name
  }
  quoted(): string {
    this.expect('"')
    let out = ''
    while (!this.done && this.peek() !== '"') {
      if (this.peek() === '\\' && this.index + 1 < this.text.length) this.index++
      out += this.peek()
      this.index++
    }
    this.expect('"')
    return out
  }
}

function parseJsonPath(cursor: Cursor): JsonPathStep[] {
  const path: JsonPathStep[] = []
  while (cursor.startsWith('->')) {
    const arrow = cursor.startsWith('->>') ? '->>' : '->'
    cursor.index += arrow.length
    if (cursor.peek() === '"') {
      path.push({ arrow, key: cursor.quoted(), index: false })
      continue
    }
    const start = cursor.index
    if (cursor.peek() === '-') cursor.index++
    while (!cursor.done && /[\p{L}\p{N}_$]/u.test(cursor.peek())) cursor.index++
    const key = cursor.text.slice(start, cursor.index)
    if (!key || key === '-') cursor.fail('a JSON key')
    path.push({ arrow, key, index: /^-?\d+$/.test(key) })
  }
  return path
}

function parseField(cursor: Cursor): Field {
  const name = cursor.identifier('a column name')
  return { name, path: parseJsonPath(cursor) }
}

function parseCast(cursor: Cursor): string {
  const start = cursor.index
  while (!cursor.done && /[a-zA-Z0-9_]/.test(cursor.peek())) cursor.index++
  let type = cursor.text.slice(start, cursor.index)
  if (!type) cursor.fail('a type name')
  if (cursor.startsWith('[]')) {
    cursor.index += 2
    type += '[]'
  }
  return type
}

function parseSelectList(cursor: Cursor, nested: boolean): SelectItem[] {
  const items: SelectItem[] = []
  for (;;) {
    cursor.skipSpaces()
    if (nested && cursor.peek() === ')' && items.length === 0) return items
    items.push(parseSelectItem(cursor))
    cursor.skipSpaces()
    if (cursor.peek() === ',') {
      cursor.index++
      continue
    }
    if (nested) {
      if (cursor.peek() !== ')') cursor.fail('"," or ")"')
      return items
    }
    if (!cursor.done) cursor.fail('"," or end of input')
    return items
  }
}

function parseSelectItem(cursor: Cursor): SelectItem {
  cursor.skipSpaces()
  if (cursor.peek() === '*') {
    cursor.index++
    return { kind: 'star' }
  }
  let spread = false
  if (cursor.startsWith('...')) {
    spread = true
    cursor.index += 3
  }
  let alias: string | null = null
  let name = cursor.identifier('a column or relation name')
  cursor.skipSpaces()
  if (cursor.peek() === ':' && cursor.peek(1) !== ':') {
    cursor.index++
    alias = name
    name = cursor.identifier('a column or relation name')
    cursor.skipSpaces()
  }
  // Embedded resource: name[!hint][!inner|!left](...)
  if (cursor.peek() === '!' || cursor.peek() === '(') {
    let hint: string | null = null
    let join: 'inner' | 'left' | null = null
    while (cursor.peek() === '!') {
      cursor.index++
      const word = cursor.identifier('a hint or join type')
      if ((word === 'inner' || word === 'left') && join === null && (cursor.peek() === '(' || cursor.peek() === '!')) {
        join = word
      } else if (hint === null) hint = word
      else cursor.fail('"("')
    }
    cursor.expect('(')
    const select = parseSelectList(cursor, true)
    cursor.expect(')')
    // The console's run-action read casts its embed (`artifacts(*)::jsonb`); an embed already is
    // JSON, so a json or jsonb cast changes nothing and is taken rather than refused.
    if (cursor.startsWith('::')) {
      cursor.index += 2
      const cast = parseCast(cursor)
      if (cast !== 'json' && cast !== 'jsonb') cursor.fail('"," or ")" (an embedded resource can only be cast to json or jsonb)')
    }
    return { kind: 'embed', name, alias, hint, join, spread, select }
  }
  if (spread) cursor.fail('"(" after a spread relation')
  const field: Field = { name, path: parseJsonPath(cursor) }
  let cast: string | null = null
  if (cursor.startsWith('::')) {
    cursor.index += 2
    cast = parseCast(cursor)
  }
  return { kind: 'column', field, alias, cast }
}

export function parseSelect(text: string): SelectItem[] {
  if (text.trim() === '') return [{ kind: 'star' }]
  const cursor = new Cursor(text, 'select parameter')
  return parseSelectList(cursor, false)
}

/** Elements of `(a,b,"c,d")`: quoted elements may hold commas, parentheses and `\"` escapes. */
function parseList(raw: string, what: string): string[] {
  if (!raw.startsWith('(') || !raw.endsWith(')')) {
    throw parseError(`"failed to parse ${what}"`, 'expecting a list in parentheses')
  }
  const inner = raw.slice(1, -1)
  if (inner.trim() === '') return []
  const items: string[] = []
  let index = 0
  while (index <= inner.length) {
    while (inner[index] === ' ') index++
    if (inner[index] === '"') {
      let out = ''
      index++
      while (index < inner.length && inner[index] !== '"') {
        if (inner[index] === '\\' && index + 1 < inner.length) index++
        out += inner[index]
        index++
      }
      if (inner[index] !== '"') throw parseError(`"failed to parse ${what}"`, 'unterminated quoted value')
      index++
      while (inner[index] === ' ') index++
      items.push(out)
    } else {
      const next = inner.indexOf(',', index)
      const end = next === -1 ? inner.length : next
      items.push(inner.slice(index, end).trim())
      index = end
    }
    if (index >= inner.length) break
    if (inner[index] !== ',') throw parseError(`"failed to parse ${what}"`, 'expecting "," between list elements')
    index++
    if (index === inner.length) items.push('')
  }
  return items
}

const IS_VALUES = new Set(['null', 'not_null', 'true', 'false', 'unknown'])

/**
 * `[not.]op[(any|all)][(language)].value` applied to `field`. `unquote` is set inside logic
 * trees, where a value may be double-quoted to hold commas and parentheses.
 */
export function parseFilterExpression(field: Field, expression: string, unquote: boolean): Filter {
  const fail = (detail: string): never => {
    throw parseError(`"failed to parse filter (${expression})"`, detail)
  }
  let rest = expression
  let negate = false
  if (rest.startsWith('not.')) {
    negate = true
    rest = rest.slice(4)
  }
  const match = /^([a-z]+)(?:\((any|all)\))?(?:\(([^)]*)\))?\./.exec(rest)
  if (!match) return fail('expecting an operator such as eq., in. or is.')
  const operator = match[1]!
  if (!OPERATOR_SET.has(operator)) return fail(`unknown operator "${operator}"`)
  const quantifier = (match[2] as 'any' | 'all' | undefined) ?? null
  const language = match[3] ?? null
  if (quantifier && !QUANTIFIABLE.has(operator)) fail(`operator "${operator}" takes no (any)/(all) modifier`)
  if (language !== null && !FTS.has(operator)) fail(`operator "${operator}" takes no language`)
  if (language !== null && !/^[a-zA-Z_][a-zA-Z0-9_]*$/.test(language)) fail('invalid text search language')
  let raw = rest.slice(match[0].length)
  if (unquote && raw.startsWith('"') && raw.endsWith('"') && raw.length >= 2) {
    raw = raw.slice(1, -1).replace(/\\(.)/g, '$1')
  }
  let value: string | string[] = raw
  if (operator === 'in' || quantifier) {
    if (quantifier && raw.startsWith('{') && raw.endsWith('}')) value = parseList(`(${raw.slice(1, -1)})`, 'filter')
    else value = parseList(raw, 'filter')
  } else if (operator === 'is') {
    const lowered = raw.toLowerCase()
    if (!IS_VALUES.has(lowered)) fail('is. accepts null, not_null, true, false or unknown')
    value = lowered
  }
  return { field, negate, operator: operator as Operator, quantifier, language, value }
}

export function parseFilterField(text: string): Field {
  const cursor = new Cursor(text, 'filter')
  const field = parseField(cursor)
  if (!cursor.done) cursor.fail('"->", "->>" or end of the column name')
  return field
}

/** Splits `a.b,c(d,e),"f,g"` at top-level commas (outside parentheses, braces and quotes). */
function splitTopLevel(text: string, what: string): string[] {
  const parts: string[] = []
  let depth = 0
  let quoted = false
  let start = 0
  for (let index = 0; index < text.length; index++) {
    const char = text[index]
    if (quoted) {
      if (char === '\\') index++
      else if (char === '"') quoted = false
      continue
    }
    if (char === '"') quoted = true
    else if (char === '(' || char === '{' || char === '[') depth++
    else if (char === ')' || char === '}' || char === ']') depth--
    else if (char === ',' && depth === 0) {
      parts.push(text.slice(start, index))
      start = index + 1
    }
    if (depth < 0) throw parseError(`"failed to parse ${what}"`, 'unbalanced parentheses')
  }
  if (quoted || depth !== 0) throw parseError(`"failed to parse ${what}"`, 'unbalanced parentheses or quotes')
  parts.push(text.slice(start))
  return parts
}

const MAX_LOGIC_DEPTH = 32

/** The `(…)` of `or=(…)`/`and=(…)`: filters `col.op.val` and nested `and(…)`/`not.or(…)`. */
export function parseLogicTree(kind: 'and' | 'or', negate: boolean, text: string, depth = 0): LogicTree {
  const what = 'logic tree'
  if (depth > MAX_LOGIC_DEPTH) throw parseError(`"failed to parse ${what}"`, 'logic tree nested too deeply')
  if (!text.startsWith('(') || !text.endsWith(')')) {
    throw parseError(`"failed to parse ${what} (${text})"`, 'expecting "(" … ")"')
  }
  const children: LogicNode[] = []
  for (const part of splitTopLevel(text.slice(1, -1), what)) {
    const item = part.trim()
    const nested = /^(not\.)?(and|or)(\(.*\))$/s.exec(item)
    if (nested) {
      children.push(parseLogicTree(nested[2] as 'and' | 'or', !!nested[1], nested[3]!, depth + 1))
      continue
    }
    const cursor = new Cursor(item, what)
    const field = parseField(cursor)
    if (cursor.peek() !== '.') cursor.fail('"." after the column name')
    children.push({ kind: 'filter', filter: parseFilterExpression(field, item.slice(cursor.index + 1), true) })
  }
  if (children.length === 0) throw parseError(`"failed to parse ${what} (${text})"`, 'empty logic tree')
  return { kind, negate, children }
}

export function parseOrder(text: string): OrderTerm[] {
  const terms: OrderTerm[] = []
  for (const part of splitTopLevel(text, 'order')) {
    const cursor = new Cursor(part.trim(), 'order')
    let embed: string | null = null
    let field = parseField(cursor)
    if (cursor.peek() === '(') {
      cursor.index++
      embed = field.name
      field = parseField(cursor)
      cursor.expect(')')
    }
    let direction: OrderTerm['direction'] = null
    let nulls: OrderTerm['nulls'] = null
    while (cursor.peek() === '.') {
      cursor.index++
      const word = cursor.identifier('asc, desc, nullsfirst or nullslast')
      if ((word === 'asc' || word === 'desc') && direction === null) direction = word
      else if ((word === 'nullsfirst' || word === 'nullslast') && nulls === null) nulls = word === 'nullsfirst' ? 'first' : 'last'
      else cursor.fail('asc, desc, nullsfirst or nullslast')
    }
    if (!cursor.done) cursor.fail('"." or ","')
    terms.push({ field, embed, direction, nulls })
  }
  return terms
}

/** `columns=a,"b c"` as sent by clients for bulk inserts. */
export function parseColumns(text: string): string[] {
  const cursor = new Cursor(text, 'columns parameter')
  const names: string[] = []
  for (;;) {
    names.push(cursor.identifier('a column name'))
    cursor.skipSpaces()
    if (cursor.done) return names
    cursor.expect(',')
  }
}

export function parseNonNegativeInt(text: string, what: string): number {
  if (!/^\d{1,15}$/.test(text)) throw parseError(`"failed to parse ${what} parameter (${text})"`, 'expecting a non-negative integer')
  return Number(text)
}
