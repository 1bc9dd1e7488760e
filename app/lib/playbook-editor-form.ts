import { z } from 'zod'
import { resourceNameField, resourceNamespaceField } from './resource-name-fields.ts'
import { playbookColumnsOf, playbookSpecIssues } from '#contract/playbook/playbook-document.ts'
import { parseYamlDocuments, YamlInputError } from '#contract/yaml-input.ts'

/**
 * The playbook editor (issue 16: a form for title, category, icon and description, and the
 * rest of the spec as YAML in a Code tab): the schema the action parses a post with, and how
 * its answers become a `playbooks` row. The spec is judged here by the Playbook schema the data
 * API applies, so a problem shows under the Code tab with its field path before anything is
 * sent; the API judges it again (http-api §4.6) and its refusal lands on the same field.
 */


/** The display fields the Form tab edits; the Code tab holds every other key of the spec. */
export const PLAYBOOK_DISPLAY_FIELDS = ['title', 'category', 'icon', 'description'] as const
export type PlaybookDisplayField = (typeof PLAYBOOK_DISPLAY_FIELDS)[number]

const optionalText = (max: number, label: string) => z.string().trim().max(max, `The ${label} must be at most ${max} characters.`).optional()

export const PlaybookEditorFormSchema = z.object({
  intent: z.literal('save'),
  name: resourceNameField,
  namespace: resourceNamespaceField,
  title: optionalText(200, 'title'),
  category: optionalText(100, 'category'),
  icon: optionalText(100, 'icon'),
  description: optionalText(2000, 'description'),
  spec: z.string({ required_error: 'The spec is empty.' }),
})
export type PlaybookEditorValue = z.infer<typeof PlaybookEditorFormSchema>

/** What the editor shows: the form fields as text, the spec's remaining keys as YAML. */
export type PlaybookEditorValues = { name: string; namespace: string; title: string; category: string; icon: string; description: string; spec: string }

/** The row the editor writes: name, namespace, the display columns (mirroring the spec) and the spec. */
export type PlaybookEditorPayload = {
  name: string
  namespace: string
  title: string
  category: string
  icon: string | null
  description: string | null
  spec: Record<string, unknown>
}

/** The spec problem to show under the Code tab: the first message, the YAML line it is on, every problem listed. */
export type PlaybookSpecProblem = { message: string; line?: number; details?: string }

const isPlainObject = (value: unknown): value is Record<string, unknown> => typeof value === 'object' && value !== null && !Array.isArray(value)

/** A stored spec split for the editor: its display fields for the Form tab, the rest for the Code tab. */
export function splitPlaybookSpec(spec: unknown): { display: Record<PlaybookDisplayField, string>; rest: Record<string, unknown> } {
  const source = isPlainObject(spec) ? spec : {}
  const display = { title: '', category: '', icon: '', description: '' }
  const rest: Record<string, unknown> = {}
  for (const [key, value] of Object.entries(source)) {
    if ((PLAYBOOK_DISPLAY_FIELDS as readonly string[]).includes(key)) display[key as PlaybookDisplayField] = typeof value === 'string' ? value : String(value ?? '')
    else rest[key] = value
  }
  return { display, rest }
}

/** The Code tab's YAML, read: a bare spec, or a whole `kind: Playbook` document (taken for its spec and metadata). */
function readSpecYaml(text: string): { ok: true; spec: Record<string, unknown>; metadata: { name?: unknown; namespace?: unknown } | null } | { ok: false; problem: PlaybookSpecProblem } {
  if (!text.trim()) return { ok: false, problem: { message: 'The spec is empty.' } }
  let documents
  try {
    documents = parseYamlDocuments(text).filter((document) => !document.empty)
  } catch (error) {
    if (!(error instanceof YamlInputError)) throw error
    const problem = error.problems[0]!
    return { ok: false, problem: { message: problem.message.replace(/^invalid/, 'Invalid'), ...(problem.line ? { line: problem.line } : {}) } }
  }
  if (documents.length === 0) return { ok: false, problem: { message: 'The spec is empty.' } }
  if (documents.length > 1) return { ok: false, problem: { message: `Paste one Playbook at a time (found ${documents.length} documents).` } }
  const value = documents[0]!.value
  if (!isPlainObject(value)) return { ok: false, problem: { message: 'The spec must be a YAML mapping (key: value pairs).', line: 1 } }
  if (!('kind' in value || 'apiVersion' in value || 'metadata' in value)) return { ok: true, spec: value, metadata: null }
  if (value.kind !== 'Playbook') return { ok: false, problem: { message: `kind: expected Playbook, got ${JSON.stringify(value.kind)}` } }
  if (!isPlainObject(value.spec)) return { ok: false, problem: { message: 'spec: must be a mapping' } }
  return { ok: true, spec: value.spec, metadata: isPlainObject(value.metadata) ? value.metadata : null }
}

/**
 * Form answers → the row, or the spec's problem. A display field given in both places must
 * agree; given in one, that one counts (so a pasted playbook keeps its title).
 */
export function playbookEditorPayload(value: PlaybookEditorValue): { ok: true; payload: PlaybookEditorPayload } | { ok: false; problem: PlaybookSpecProblem } {
  const read = readSpecYaml(value.spec)
  if (!read.ok) return read
  const namespace = value.namespace || 'default'
  const metadata = read.metadata
  if (metadata?.name !== undefined && metadata.name !== value.name) return { ok: false, problem: { message: `metadata.name (${String(metadata.name)}) and the Name field (${value.name}) disagree.` } }
  if (metadata?.namespace !== undefined && metadata.namespace !== namespace) {
    return { ok: false, problem: { message: `metadata.namespace (${String(metadata.namespace)}) and the Namespace field (${namespace}) disagree.` } }
  }
  const spec: Record<string, unknown> = { ...read.spec }
  for (const field of PLAYBOOK_DISPLAY_FIELDS) {
    const typed = value[field] ?? ''
    const written = spec[field]
    if (typed && typeof written === 'string' && written.trim() && written.trim() !== typed) {
      return { ok: false, problem: { message: `spec.${field} (${written}) and the ${field[0]!.toUpperCase()}${field.slice(1)} field (${typed}) disagree; keep one.` } }
    }
    if (typed) spec[field] = typed
  }
  const issues = playbookSpecIssues(spec)
  if (issues.length > 0) {
    const lines = issues.map((issue) => `${issue.path}: ${issue.message}`)
    return { ok: false, problem: { message: lines[0]!, ...(lines.length > 1 ? { details: lines.join('; ') } : {}) } }
  }
  const columns = playbookColumnsOf(value.name, spec as { title?: string; icon?: string; description?: string; category?: string })
  return { ok: true, payload: { name: value.name, namespace, ...columns, spec } }
}

/** The Code tab's starting YAML for a new playbook: one action to shape the rest on. */
export const NEW_PLAYBOOK_SPEC = `parameters: []
actions:
  - name: check-endpoint
    http:
      url: https://example.org/healthz
      method: GET
`
