import { isAlias, isCollection, isMap, isPair, isScalar, parseAllDocuments, type Document } from 'yaml'

/**
 * The one way Lookout reads YAML that a person sent (canary API and CLI, resource editors,
 * incident rule specs). YAML's anchors and aliases let a few kilobytes stand for gigabytes
 * ("billion laughs"), an alias may point into its own node (a cycle JSON cannot hold), and
 * thousands of nested brackets exhaust the parser's stack; each is refused here as a problem
 * with the input, never left to become a 500, a hang or an out-of-memory crash.
 */
export type YamlProblem = { document: number; line?: number; col?: number; message: string }

export class YamlInputError extends Error {
  /** `documents`: how many documents the text holds (1 when it did not parse that far). */
  constructor(
    readonly problems: YamlProblem[],
    readonly documents = 1,
  ) {
    super(problems.map((problem) => problem.message).join('; '))
    this.name = 'YamlInputError'
  }
}

export type YamlDocument = {
  /** The document as plain JSON-compatible data (null for an empty document). */
  value: unknown
  /** The document has no content at all (`---` alone, or only comments). */
  empty: boolean
  /** The top level is a mapping (key: value pairs). */
  mapping: boolean
}

/** Aliases allowed per anchor, weighted by the aliases nested inside it (the yaml package's measure). */
export const YAML_MAX_ALIAS_COUNT = 50
/** Flow collections (`[`, `{`) open at once; real documents stay far below. */
export const YAML_MAX_FLOW_DEPTH = 200
/** Size of a document once its aliases are expanded, against its own text length. */
const EXPANSION_FACTOR = 4
const EXPANSION_FLOOR = 1024 * 1024

function flowDepth(text: string): number {
  let depth = 0
  let deepest = 0
  for (let index = 0; index < text.length; index += 1) {
    const char = text.charCodeAt(index)
    if (char === 0x5b || char === 0x7b) {
      depth += 1
      if (depth > deepest) deepest = depth
    } else if ((char === 0x5d || char === 0x7d) && depth > 0) depth -= 1
  }
  return deepest
}

/**
 * The size the document's data would have with every alias expanded, computed once per node;
 * throws on an alias inside the node it names.
 */
function expandedSize(doc: Document.Parsed): number {
  const sizes = new Map<unknown, number>()
  const open = new Set<unknown>()
  const size = (node: unknown): number => {
    if (node === null || node === undefined) return 1
    if (isAlias(node)) return size(node.resolve(doc))
    const known = sizes.get(node)
    if (known !== undefined) return known
    if (open.has(node)) throw new YamlInputError([{ document: 0, message: 'invalid YAML: an alias refers to the node that contains it' }])
    open.add(node)
    let total = 1
    if (isScalar(node)) total += String(node.value ?? '').length
    else if (isPair(node)) total += size(node.key) + size(node.value)
    else if (isCollection(node)) for (const item of node.items) total += size(item)
    open.delete(node)
    sizes.set(node, total)
    return total
  }
  return size(doc.contents)
}

/** Every document of a YAML (or JSON) text; throws YamlInputError naming where it went wrong. */
export function parseYamlDocuments(text: string): YamlDocument[] {
  if (flowDepth(text) > YAML_MAX_FLOW_DEPTH) {
    throw new YamlInputError([{ document: 0, message: `invalid YAML: more than ${YAML_MAX_FLOW_DEPTH} nested [ ] or { } collections` }])
  }
  let docs: Document.Parsed[]
  try {
    const parsed = parseAllDocuments(text, { prettyErrors: true })
    docs = Array.isArray(parsed) ? parsed : [parsed as unknown as Document.Parsed]
  } catch (error) {
    throw new YamlInputError([{ document: 0, message: `invalid YAML: ${(error as Error).message.split('\n')[0]}` }])
  }
  const problems: YamlProblem[] = []
  docs.forEach((doc, document) => {
    for (const error of doc.errors) {
      const position = error.linePos?.[0]
      const where = position ? ` at line ${position.line}, column ${position.col}` : ''
      problems.push({ document, line: position?.line, col: position?.col, message: `invalid YAML${where}: ${error.message.split('\n')[0]}` })
    }
  })
  if (problems.length > 0) throw new YamlInputError(problems, docs.length)
  const budget = Math.max(EXPANSION_FLOOR, text.length * EXPANSION_FACTOR)
  return docs.map((doc, document) => {
    try {
      if (expandedSize(doc) > budget) {
        throw new YamlInputError([{ document, message: 'invalid YAML: its aliases expand to far more data than the text holds' }], docs.length)
      }
      return { value: doc.toJS({ maxAliasCount: YAML_MAX_ALIAS_COUNT }) as unknown, empty: doc.contents === null, mapping: isMap(doc.contents) }
    } catch (error) {
      if (error instanceof YamlInputError) throw new YamlInputError(error.problems.map((problem) => ({ ...problem, document })), docs.length)
      // The yaml package's own guard (ReferenceError: excessive alias count) and stack overflows.
      const message = error instanceof RangeError ? 'nested too deeply' : (error as Error).message
      throw new YamlInputError([{ document, message: `invalid YAML: ${message}` }], docs.length)
    }
  })
}

/** One document's data (an empty text is null). */
export function parseYaml(text: string): unknown {
  const docs = parseYamlDocuments(text)
  if (docs.length > 1) throw new YamlInputError([{ document: 1, message: `expected one YAML document, found ${docs.length}` }], docs.length)
  return docs[0]?.value ?? null
}
