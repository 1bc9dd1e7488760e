/**
 * Reads which base-table column each output column of a view comes from, out of the view's
 * stored rewrite rule (`pg_rewrite.ev_action`, the text form of a parse tree). The parser records
 * `resorigtbl`/`resorigcol` on every top-level target entry that is a plain column reference,
 * following subqueries and CTEs, which is exactly what embedding through views needs.
 */
export type ViewColumnOrigin = { resno: number; name: string; originRelation: number; originColumn: number }

type Token = { kind: 'open' | 'close'; char: string } | { kind: 'atom'; text: string }

function* tokens(text: string): Generator<Token> {
  let index = 0
  const length = text.length
  while (index < length) {
    const char = text[index]!
    if (char === '(' || char === '{') {
      yield { kind: 'open', char }
      index++
    } else if (char === ')' || char === '}') {
      yield { kind: 'close', char }
      index++
    } else if (char === ' ' || char === '\n' || char === '\t' || char === '\r') {
      index++
    } else {
      let atom = ''
      while (index < length) {
        const next = text[index]!
        if (next === '\\' && index + 1 < length) {
          atom += text[index + 1]
          index += 2
          continue
        }
        if (next === ' ' || next === '(' || next === ')' || next === '{' || next === '}' || next === '\n') break
        atom += next
        index++
      }
      yield { kind: 'atom', text: atom }
    }
  }
}

/** Origins of the view's output columns; columns computed from expressions are absent. */
export function viewColumnOrigins(evAction: string): ViewColumnOrigin[] {
  const origins: ViewColumnOrigin[] = []
  let depth = 0
  // States: look for `:targetList` directly inside the top-level QUERY node (depth 2), then read
  // the fields of each TARGETENTRY node (depth 4) until the list closes.
  let inTargetList = false
  let listDepth = 0
  let pendingField: string | null = null
  let entry: Partial<{ resno: number; name: string; tbl: number; col: number; junk: boolean }> | null = null
  for (const token of tokens(evAction)) {
    if (token.kind === 'open') {
      depth++
      if (inTargetList && depth === listDepth + 1 && token.char === '{') entry = {}
      pendingField = null
      continue
    }
    if (token.kind !== 'atom') {
      if (inTargetList && depth === listDepth + 1 && entry) {
        if (!entry.junk && entry.resno && entry.name !== undefined && entry.tbl && entry.col) {
          origins.push({ resno: entry.resno, name: entry.name, originRelation: entry.tbl, originColumn: entry.col })
        }
        entry = null
      }
      depth--
      if (inTargetList && depth < listDepth) return origins
      pendingField = null
      continue
    }
    const text = token.text
    if (!inTargetList) {
      if (depth === 2 && text === ':targetList') {
        inTargetList = true
        listDepth = 3
      }
      continue
    }
    if (depth !== listDepth + 1 || !entry) continue
    if (text.startsWith(':')) {
      pendingField = text
      continue
    }
    switch (pendingField) {
      case ':resno':
        entry.resno = Number(text)
        break
      case ':resname':
        entry.name = text === '<>' ? undefined : text
        break
      case ':resorigtbl':
        entry.tbl = Number(text)
        break
      case ':resorigcol':
        entry.col = Number(text)
        break
      case ':resjunk':
        entry.junk = text === 'true'
        break
    }
    pendingField = null
  }
  return origins
}
