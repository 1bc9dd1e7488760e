import { z } from 'zod'
import { resourceNameField, resourceNamespaceField } from './resource-name-fields.ts'
import { topologySpecIssues } from '#contract/topology/topology-document.ts'
import { getEditorKind, parseResourceYaml, type ResourceKind } from './resource-editor.ts'

/**
 * The topology form of spec 001 §2 (Name, Namespace default 'default', Labels as a key/value list,
 * Spec as YAML): the schema the action parses a post with. The spec is judged here by the
 * Topology schema the API applies, so a problem shows under the editor with its field path
 * before anything is sent; the API checks it again.
 */

export const TOPOLOGY_KIND: ResourceKind = getEditorKind('topologies')!

// Label keys as Kubernetes takes them: an optional DNS prefix and a name of letters, digits, '-', '_' and '.'.
const LABEL_KEY_PATTERN = /^([a-z0-9]([-a-z0-9.]*[a-z0-9])?\/)?[A-Za-z0-9]([-A-Za-z0-9_.]*[A-Za-z0-9])?$/

const LabelRowSchema = z.object({
  key: z.string().trim().max(316, 'A label key is at most 316 characters.').optional(),
  value: z.string().trim().max(63, 'A label value is at most 63 characters.').optional(),
})

export const TopologyFormSchema = z
  .object({
    intent: z.literal('save'),
    name: resourceNameField,
    namespace: resourceNamespaceField,
    labels: z.array(LabelRowSchema).optional(),
    spec: z.string({ required_error: 'The spec is empty.' }),
  })

/** The label rows' problems (blank rows are left out): a value without a key, a bad or repeated key. */
export function checkLabelRows(value: Pick<TopologyFormValue, 'labels'>, ctx: z.RefinementCtx): void {
  const seen = new Set<string>()
  value.labels?.forEach((row, index) => {
    if (!row.key && !row.value) return
    if (!row.key) return void ctx.addIssue({ code: z.ZodIssueCode.custom, path: ['labels', index, 'key'], message: 'A label needs a key.' })
    if (!LABEL_KEY_PATTERN.test(row.key)) ctx.addIssue({ code: z.ZodIssueCode.custom, path: ['labels', index, 'key'], message: `${row.key} is not a valid label key.` })
    if (seen.has(row.key)) ctx.addIssue({ code: z.ZodIssueCode.custom, path: ['labels', index, 'key'], message: `The label ${row.key} is given twice.` })
    seen.add(row.key)
  })
}

export const DeleteTopologySchema = z.object({ intent: z.literal('delete') })

const unknownAction = { errorMap: () => ({ message: 'Unknown action.' }) }
export const TopologyActionSchema = z.discriminatedUnion('intent', [TopologyFormSchema, DeleteTopologySchema], unknownAction)

export type TopologyFormValue = z.infer<typeof TopologyFormSchema>

/** What the form writes to `topologies` (name, namespace, labels, spec). */
export type TopologyPayload = { name: string; namespace: string; labels: Record<string, string>; spec: Record<string, unknown> }

/** The spec problem to show under the editor: the first message, the line a YAML error is on, every problem listed. */
export type TopologySpecProblem = { message: string; line?: number; details?: string }

/**
 * Form answers → the row, or the spec's problem. The Spec field holds the spec; a whole
 * `kind: Topology` document pasted there is taken for its spec (its metadata must then agree).
 */
export function topologyPayload(value: TopologyFormValue): { ok: true; payload: TopologyPayload } | { ok: false; problem: TopologySpecProblem } {
  const parsed = parseResourceYaml(TOPOLOGY_KIND, value.spec)
  if (!parsed.ok) return { ok: false, problem: { message: parsed.error.message, ...(parsed.error.line ? { line: parsed.error.line } : {}) } }
  const namespace = value.namespace || 'default'
  const metadata = parsed.value.metadata
  if (metadata?.name && metadata.name !== value.name) return { ok: false, problem: { message: `metadata.name (${metadata.name}) and the Name field (${value.name}) disagree.` } }
  if (metadata?.namespace && metadata.namespace !== namespace) return { ok: false, problem: { message: `metadata.namespace (${metadata.namespace}) and the Namespace field (${namespace}) disagree.` } }
  const issues = topologySpecIssues(parsed.value.spec)
  if (issues.length > 0) {
    const lines = issues.map((issue) => `${issue.path}: ${issue.message}`)
    return { ok: false, problem: { message: lines[0]!, ...(lines.length > 1 ? { details: lines.join('; ') } : {}) } }
  }
  const labels: Record<string, string> = { ...(metadata?.labels ?? {}) }
  for (const row of value.labels ?? []) if (row.key) labels[row.key] = row.value ?? ''
  return { ok: true, payload: { name: value.name, namespace, labels, spec: parsed.value.spec } }
}
