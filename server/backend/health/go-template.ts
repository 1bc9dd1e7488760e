import { formatDuration, formatSize } from '#contract/canary/duration.ts'

/**
 * A small evaluator for the Go `text/template` subset canary specs use in `display`, `transform`
 * and templated fields: `{{.a.b}}`, pipelines (`{{.x | upper}}`), `if`/`else if`/`else`,
 * `range` (with `$i, $v :=`), `with`, variables, parenthesised calls, `{{-`/`-}}` trimming and a
 * handful of sprig-style functions. Anything outside it fails with a TemplateError that names it.
 */
export class TemplateError extends Error {}

type Node =
  | { kind: 'text'; text: string }
  | { kind: 'action'; pipe: Pipe }
  | { kind: 'if'; branches: { pipe: Pipe; body: Node[] }[]; otherwise: Node[] }
  | { kind: 'range'; pipe: Pipe; keyVar?: string; valueVar?: string; body: Node[]; otherwise: Node[] }
  | { kind: 'with'; pipe: Pipe; body: Node[]; otherwise: Node[] }

type Operand =
  | { kind: 'field'; root: 'dot' | string; path: string[] }
  | { kind: 'literal'; value: unknown }
  | { kind: 'ident'; name: string }
  | { kind: 'sub'; pipe: Pipe; path?: string[] }
type Command = Operand[]
type Pipe = { decl?: string[]; commands: Command[] }

const FUNCTIONS: Record<string, (...args: unknown[]) => unknown> = {
  eq: (a, ...rest) => rest.some((b) => looseEqual(a, b)),
  ne: (a, b) => !looseEqual(a, b),
  lt: (a, b) => compare(a, b) < 0,
  le: (a, b) => compare(a, b) <= 0,
  gt: (a, b) => compare(a, b) > 0,
  ge: (a, b) => compare(a, b) >= 0,
  and: (...args) => args.find((arg) => !truthy(arg)) ?? args[args.length - 1],
  or: (...args) => args.find((arg) => truthy(arg)) ?? args[args.length - 1],
  not: (a) => !truthy(a),
  len: (a) => (typeof a === 'string' || Array.isArray(a) ? a.length : a && typeof a === 'object' ? Object.keys(a).length : 0),
  index: (a, ...keys) => keys.reduce((value: unknown, key) => (value == null ? undefined : (value as Record<string, unknown>)[String(key)]), a),
  print: (...args) => args.map(toText).join(''),
  println: (...args) => `${args.map(toText).join(' ')}\n`,
  printf: (format, ...args) => sprintf(String(format), args),
  default: (fallback, value) => (truthy(value) ? value : fallback),
  upper: (a) => toText(a).toUpperCase(),
  lower: (a) => toText(a).toLowerCase(),
  title: (a) => toText(a).replace(/\b\w/g, (c) => c.toUpperCase()),
  trim: (a) => toText(a).trim(),
  trimSpace: (a) => toText(a).trim(),
  quote: (a) => JSON.stringify(toText(a)),
  contains: (needle, haystack) => toText(haystack).includes(toText(needle)),
  hasPrefix: (prefix, text) => toText(text).startsWith(toText(prefix)),
  hasSuffix: (suffix, text) => toText(text).endsWith(toText(suffix)),
  replace: (from, to, text) => toText(text).split(toText(from)).join(toText(to)),
  join: (sep, list) => (Array.isArray(list) ? list.map(toText).join(toText(sep)) : toText(list)),
  split: (sep, text) => toText(text).split(toText(sep)),
  toJSON: (a) => JSON.stringify(a),
  toJson: (a) => JSON.stringify(a),
  toPrettyJson: (a) => JSON.stringify(a, null, 2),
  fromJSON: (a) => JSON.parse(toText(a)),
  toString: (a: unknown) => toText(a),
  toInt: (a) => Math.trunc(Number(a)),
  humanDuration: (a) => formatDuration(Number(a)),
  humanSize: (a) => formatSize(Number(a)),
  list: (...args) => args,
}

function truthy(value: unknown): boolean {
  if (Array.isArray(value)) return value.length > 0
  if (value && typeof value === 'object') return Object.keys(value).length > 0
  return Boolean(value)
}
function looseEqual(a: unknown, b: unknown): boolean {
  if (typeof a === 'number' || typeof b === 'number') return Number(a) === Number(b)
  return a === b || toText(a) === toText(b)
}
function compare(a: unknown, b: unknown): number {
  if (typeof a === 'number' || typeof b === 'number') return Number(a) - Number(b)
  return toText(a) < toText(b) ? -1 : toText(a) > toText(b) ? 1 : 0
}
export function toText(value: unknown): string {
  if (value === undefined || value === null) return '<no value>'
  if (typeof value === 'string') return value
  if (typeof value === 'number' || typeof value === 'boolean' || typeof value === 'bigint') return String(value)
  if (value instanceof Date) return value.toISOString()
  if (Array.isArray(value)) return `[${value.map(toText).join(' ')}]`
  return `map[${Object.entries(value as object).map(([k, v]) => `${k}:${toText(v)}`).join(' ')}]`
}
function sprintf(format: string, args: unknown[]): string {
  let index = 0
  return format.replace(/%([-+ 0#]*)(\d*)(?:\.(\d+))?([vdsfqtx%])/g, (_m, _flags, _width, precision: string | undefined, verb: string) => {
    if (verb === '%') return '%'
    const arg = args[index++]
    switch (verb) {
      case 'd': return String(Math.trunc(Number(arg)))
      case 'f': return Number(arg).toFixed(precision === undefined ? 6 : Number(precision))
      case 'q': return JSON.stringify(toText(arg))
      case 'x': return Math.trunc(Number(arg)).toString(16)
      default: return toText(arg)
    }
  })
}

// ---- parsing ----------------------------------------------------------------------------

type Token = { kind: 'text'; text: string } | { kind: 'action'; body: string }

function tokenize(source: string, left = '{{', right = '}}'): Token[] {
  const tokens: Token[] = []
  let position = 0
  while (position < source.length) {
    const start = source.indexOf(left, position)
    if (start === -1) {
      tokens.push({ kind: 'text', text: source.slice(position) })
      break
    }
    const end = source.indexOf(right, start + left.length)
    if (end === -1) throw new TemplateError(`unclosed action at offset ${start}`)
    let text = source.slice(position, start)
    let body = source.slice(start + left.length, end)
    if (body.startsWith('- ')) {
      text = text.trimEnd()
      body = body.slice(1)
    }
    tokens.push({ kind: 'text', text })
    position = end + right.length
    if (body.endsWith(' -')) {
      body = body.slice(0, -1)
      const rest = source.slice(position)
      position += rest.length - rest.trimStart().length
    }
    body = body.trim()
    if (!body.startsWith('/*')) tokens.push({ kind: 'action', body })
  }
  return tokens.filter((token) => token.kind === 'action' || token.text !== '')
}

function lexAction(body: string): string[] {
  const words: string[] = []
  const pattern = /\s*("(?:[^"\\]|\\.)*"|`[^`]*`|'(?:[^'\\]|\\.)'|\(|\)|\||:=|=|,|[^\s()|,]+)/gy
  let match: RegExpExecArray | null
  while ((match = pattern.exec(body)) !== null) {
    if (match[1] === undefined) break
    words.push(match[1])
    if (pattern.lastIndex >= body.length) break
  }
  return words
}

function parsePipe(words: string[]): Pipe {
  let rest = words
  let decl: string[] | undefined
  const assign = rest.findIndex((word) => word === ':=' || word === '=')
  if (assign > 0 && rest.slice(0, assign).every((word) => word.startsWith('$') || word === ',')) {
    decl = rest.slice(0, assign).filter((word) => word !== ',')
    rest = rest.slice(assign + 1)
  }
  const commands: Command[] = []
  let current: Operand[] = []
  for (let index = 0; index < rest.length; index += 1) {
    const word = rest[index]!
    if (word === '|') {
      if (current.length === 0) throw new TemplateError('empty command in pipeline')
      commands.push(current)
      current = []
    } else if (word === '(') {
      let depth = 1
      let close = index + 1
      while (close < rest.length && depth > 0) {
        if (rest[close] === '(') depth += 1
        if (rest[close] === ')') depth -= 1
        close += 1
      }
      if (depth !== 0) throw new TemplateError('unbalanced parentheses')
      const pipe = parsePipe(rest.slice(index + 1, close - 1))
      const after = rest[close]
      // `(index .x 0).name`: a field chain read off the parenthesised result.
      if (after && after.startsWith('.') && after.length > 1) {
        current.push({ kind: 'sub', pipe, path: after.slice(1).split('.') })
        index = close
      } else {
        current.push({ kind: 'sub', pipe })
        index = close - 1
      }
    } else if (word === ')') {
      throw new TemplateError('unexpected )')
    } else {
      current.push(parseOperand(word))
    }
  }
  if (current.length > 0) commands.push(current)
  if (commands.length === 0) throw new TemplateError('missing value for command')
  return { decl, commands }
}

function parseOperand(word: string): Operand {
  if (word === '.') return { kind: 'field', root: 'dot', path: [] }
  if (word.startsWith('.')) return { kind: 'field', root: 'dot', path: word.slice(1).split('.') }
  if (word.startsWith('$')) {
    const [name, ...path] = word.split('.')
    return { kind: 'field', root: name!, path }
  }
  if (word.startsWith('"')) return { kind: 'literal', value: JSON.parse(word) }
  if (word.startsWith('`')) return { kind: 'literal', value: word.slice(1, -1) }
  if (word.startsWith("'")) return { kind: 'literal', value: JSON.parse(`"${word.slice(1, -1)}"`).charCodeAt(0) }
  if (word === 'true' || word === 'false') return { kind: 'literal', value: word === 'true' }
  if (word === 'nil') return { kind: 'literal', value: null }
  if (/^[-+]?(\d+\.?\d*|\.\d+)(e[-+]?\d+)?$/i.test(word)) return { kind: 'literal', value: Number(word) }
  if (/^[A-Za-z_][A-Za-z0-9_]*$/.test(word)) return { kind: 'ident', name: word }
  throw new TemplateError(`unexpected "${word}" in action`)
}

function parseNodes(tokens: Token[], position: { index: number }, stopAt: string[]): { nodes: Node[]; stop: string } {
  const nodes: Node[] = []
  while (position.index < tokens.length) {
    const token = tokens[position.index++]!
    if (token.kind === 'text') {
      nodes.push({ kind: 'text', text: token.text })
      continue
    }
    const words = lexAction(token.body)
    const keyword = words[0]
    if (keyword === 'end' || keyword === 'else') {
      if (!stopAt.includes(keyword)) throw new TemplateError(`unexpected {{${keyword}}}`)
      position.index -= 1
      return { nodes, stop: keyword }
    }
    if (keyword === 'if' || keyword === 'with' || keyword === 'range') {
      const pipe = parsePipe(words.slice(1))
      const branches = [{ pipe, body: [] as Node[] }]
      let otherwise: Node[] = []
      const first = parseNodes(tokens, position, ['end', 'else'])
      let stop = first.stop
      branches[0]!.body = first.nodes
      while (stop === 'else') {
        const elseWords = lexAction((tokens[position.index++] as { body: string }).body)
        if (elseWords[1] === 'if' && keyword === 'if') {
          const next = parseNodes(tokens, position, ['end', 'else'])
          branches.push({ pipe: parsePipe(elseWords.slice(2)), body: next.nodes })
          stop = next.stop
        } else {
          const next = parseNodes(tokens, position, ['end'])
          otherwise = next.nodes
          stop = next.stop
        }
      }
      if (stop !== 'end') throw new TemplateError(`missing {{end}} for {{${keyword}}}`)
      position.index += 1
      if (keyword === 'if') nodes.push({ kind: 'if', branches, otherwise })
      else if (keyword === 'with') nodes.push({ kind: 'with', pipe, body: branches[0]!.body, otherwise })
      else {
        const decl = pipe.decl ?? []
        nodes.push({
          kind: 'range',
          pipe: { commands: pipe.commands },
          keyVar: decl.length === 2 ? decl[0] : undefined,
          valueVar: decl.length === 2 ? decl[1] : decl[0],
          body: branches[0]!.body,
          otherwise,
        })
      }
      continue
    }
    if (keyword === 'define' || keyword === 'template' || keyword === 'block') {
      throw new TemplateError(`{{${keyword}}} is not supported`)
    }
    nodes.push({ kind: 'action', pipe: parsePipe(words) })
  }
  if (stopAt.length > 0) throw new TemplateError(`missing {{end}}`)
  return { nodes, stop: '' }
}

// ---- evaluation -------------------------------------------------------------------------

type Scope = { dot: unknown; vars: Map<string, unknown>; funcs: Record<string, (...args: unknown[]) => unknown> }

function field(value: unknown, path: string[]): unknown {
  let current = value
  for (const key of path) {
    if (current === null || current === undefined) return undefined
    if (current instanceof Map) current = current.get(key)
    else current = (current as Record<string, unknown>)[key]
  }
  return current
}

function evalOperand(operand: Operand, scope: Scope, finalArg?: { value: unknown }): unknown {
  switch (operand.kind) {
    case 'literal':
      return operand.value
    case 'sub':
      return field(evalPipe(operand.pipe, scope), operand.path ?? [])
    case 'field': {
      if (operand.root === 'dot') return field(scope.dot, operand.path)
      if (!scope.vars.has(operand.root)) throw new TemplateError(`undefined variable: ${operand.root}`)
      return field(scope.vars.get(operand.root), operand.path)
    }
    case 'ident': {
      const fn = scope.funcs[operand.name]
      if (!fn) throw new TemplateError(`function "${operand.name}" not defined`)
      return finalArg ? fn(finalArg.value) : fn()
    }
  }
}

function evalCommand(command: Command, scope: Scope, piped?: { value: unknown }): unknown {
  const [head, ...args] = command
  if (head!.kind === 'ident') {
    const fn = scope.funcs[head!.name]
    if (!fn) throw new TemplateError(`function "${head!.name}" not defined`)
    const values = args.map((arg) => evalOperand(arg, scope))
    if (piped) values.push(piped.value)
    return fn(...values)
  }
  if (args.length > 0 || piped) throw new TemplateError("can't give argument to non-function")
  return evalOperand(head!, scope)
}

function evalPipe(pipe: Pipe, scope: Scope): unknown {
  let piped: { value: unknown } | undefined
  for (const command of pipe.commands) piped = { value: evalCommand(command, scope, piped) }
  const value = piped?.value
  if (pipe.decl) for (const name of pipe.decl) scope.vars.set(name, value)
  return value
}

function render(nodes: Node[], scope: Scope, out: string[]): void {
  for (const node of nodes) {
    switch (node.kind) {
      case 'text':
        out.push(node.text)
        break
      case 'action': {
        const value = evalPipe(node.pipe, scope)
        if (!node.pipe.decl) out.push(toText(value))
        break
      }
      case 'if': {
        const branch = node.branches.find((candidate) => truthy(evalPipe(candidate.pipe, scope)))
        render(branch ? branch.body : node.otherwise, scope, out)
        break
      }
      case 'with': {
        const value = evalPipe(node.pipe, scope)
        if (truthy(value)) render(node.body, { ...scope, dot: value }, out)
        else render(node.otherwise, scope, out)
        break
      }
      case 'range': {
        const value = evalPipe(node.pipe, scope)
        const entries: [unknown, unknown][] = Array.isArray(value)
          ? value.map((item, index) => [index, item])
          : value && typeof value === 'object'
            ? Object.entries(value).sort(([a], [b]) => (a < b ? -1 : 1))
            : typeof value === 'number'
              ? Array.from({ length: value }, (_, index) => [index, index])
              : []
        if (entries.length === 0) render(node.otherwise, scope, out)
        for (const [key, item] of entries) {
          const vars = new Map(scope.vars)
          if (node.keyVar) vars.set(node.keyVar, key)
          if (node.valueVar) vars.set(node.valueVar, item)
          render(node.body, { ...scope, dot: item, vars }, out)
        }
        break
      }
    }
  }
}

const CACHE = new Map<string, Node[]>()

function compile(source: string, left: string, right: string): Node[] {
  const key = `${left}${right}${source}`
  let nodes = CACHE.get(key)
  if (!nodes) {
    nodes = parseNodes(tokenize(source, left, right), { index: 0 }, []).nodes
    if (CACHE.size > 2_000) CACHE.clear()
    CACHE.set(key, nodes)
  }
  return nodes
}

/** Renders a Go text/template over `data` (`.` is data, `$` too). Throws TemplateError. */
export function renderGoTemplate(
  source: string,
  data: unknown,
  extraFunctions: Record<string, (...args: unknown[]) => unknown> = {},
): string {
  try {
    const out: string[] = []
    const vars = new Map<string, unknown>([['$', data]])
    render(compile(source, '{{', '}}'), { dot: data, vars, funcs: { ...FUNCTIONS, ...extraFunctions } }, out)
    return out.join('')
  } catch (error) {
    if (error instanceof TemplateError) throw error
    throw new TemplateError((error as Error).message)
  }
}

/**
 * `$(...)` struct templating of fields such as URLs: `$(username)` and `$(.url)` both read a
 * variable. Strings without `$(` come back untouched, and without `{{` Go templating is skipped.
 */
export function renderFieldTemplate(source: string, data: Record<string, unknown>): string {
  let text = source
  if (text.includes('$(')) {
    text = text.replace(/\$\(([^()]*)\)/g, (_match, inner: string) => {
      const expression = inner.trim()
      const pipe = /^[A-Za-z_][\w.]*$/.test(expression) ? `.${expression}` : expression
      return renderGoTemplate(`{{${pipe}}}`, data).replace(/^<no value>$/, '')
    })
  }
  if (text.includes('{{')) text = renderGoTemplate(text, data)
  return text
}
