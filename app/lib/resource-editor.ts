import { stringify } from 'yaml'
import { RESOURCE_NAME_PATTERN, RESOURCE_NAME_RULE } from './resource-name-fields.ts'
import { z } from 'zod'
import { parseYamlDocuments, YamlInputError, type YamlDocument } from '#contract/yaml-input.ts'
import {
  EMPTY_SPEC,
  RESOURCE_LIST_PAGE_SIZES,
  resourceListColumns,
  SETTINGS_LIST_LIMIT,
  type EditorField,
  type ResourceKind,
  type ResourceListColumn,
  type ResourceListSearch,
  type ResourceRow,
} from './resource-editor-vocabulary.ts'

export * from './resource-editor-vocabulary.ts'

/**
 * The generic resource editor's rules, kept free of I/O so the server action and the unit
 * tests share them (what pages render is in `resource-editor-shapes.ts`; its vocabulary, re-exported here, in `resource-editor-vocabulary.ts`): which tables it edits, how the YAML a user pastes becomes a row (spec 002
 * §2 "Resource editor", §7 "Generic resource create, update and delete"), and which rows are
 * read-only because something other than the UI owns them.
 */

/**
 * The search parameters of /settings/{table}: sort column and direction, page and page size,
 * one schema per kind (a column the kind lacks is no sort). Each bad value falls back to its
 * default, so any URL renders the list.
 */
export function parseResourceListSearch(kind: Pick<ResourceKind, 'namespaced' | 'listRelation'>, params: URLSearchParams): ResourceListSearch {
  const columns = resourceListColumns(kind) as [ResourceListColumn, ...ResourceListColumn[]]
  const schema = z.object({
    sortBy: z.enum(columns).nullable().catch(null),
    sortDesc: z
      .string()
      .nullable()
      .transform((value) => value === 'true'),
    page: z
      .string()
      .regex(/^\d{1,6}$/)
      .transform(Number)
      .pipe(z.number().min(1))
      .catch(1),
    pageSize: z.coerce
      .number()
      .refine((value) => (RESOURCE_LIST_PAGE_SIZES as readonly number[]).includes(value))
      .catch(SETTINGS_LIST_LIMIT),
  })
  return schema.parse({ sortBy: params.get('sortBy'), sortDesc: params.get('sortDesc'), page: params.get('page'), pageSize: params.get('pageSize') })
}
/** The document users keep in git, as the editor shows an existing resource. */
export function toResourceDocument(kind: ResourceKind, row: ResourceRow): Record<string, unknown> {
  const metadata: Record<string, unknown> = { name: row.name ?? '' }
  if (kind.namespaced) metadata.namespace = row.namespace || 'default'
  if (kind.hasLabels && isPlainObject(row.labels) && Object.keys(row.labels).length > 0) metadata.labels = row.labels
  return { apiVersion: kind.apiVersion, kind: kind.kind, metadata, spec: row.spec ?? {} }
}

export function toResourceYaml(kind: ResourceKind, row: ResourceRow): string {
  return stringify(toResourceDocument(kind, row), { lineWidth: 0 })
}

/** A starting point for the create form. */
export function newResourceYaml(kind: ResourceKind): string {
  return stringify({ apiVersion: kind.apiVersion, kind: kind.kind, metadata: kind.namespaced ? { name: '', namespace: 'default' } : { name: '' }, spec: {} }, { lineWidth: 0 })
}


// ---------------------------------------------------------------------------------------------
// The editor's forms


/**
 * The Spec tab's form: name and namespace (or metadata in the YAML) and the YAML itself, which
 * the browser requires before JavaScript loads. Parsing the YAML, the name rules and the API's
 * spec validation are the action's checks (`buildPayload`, the write), shown on these fields.
 */
export const ResourceFormSchema = z.object({
  intent: z.literal('save'),
  name: z.string().trim().max(253, 'The name must be at most 253 characters.').optional(),
  namespace: z.string().trim().max(253, 'The namespace must be at most 253 characters.').optional(),
  yaml: z.string({ required_error: EMPTY_SPEC }).refine((text) => text.trim() !== '', EMPTY_SPEC),
})

export const DeleteResourceSchema = z.object({ intent: z.literal('delete') })

const unknownAction = { errorMap: () => ({ message: 'Unknown action.' }) }

/** An existing resource's page: save the spec, or delete (from the confirm dialog). */
export const ResourceActionSchema = z.discriminatedUnion('intent', [ResourceFormSchema, DeleteResourceSchema], unknownAction)

/** A new resource's YAML form: there is nothing to delete yet. */
export const NewResourceActionSchema = z.discriminatedUnion('intent', [ResourceFormSchema], unknownAction)

/** The form field an editor error is shown on: the spec's is the YAML editor. */
export function formFieldOfEditorError(field: EditorField): 'name' | 'namespace' | 'yaml' {
  return field === 'spec' ? 'yaml' : field
}
export type EditorError = { field: EditorField; message: string; line?: number }

export type ParsedYaml = {
  /** Present when the text was a whole document. */
  metadata: { name?: string; namespace?: string; labels?: Record<string, string> } | null
  spec: Record<string, unknown>
}

function isPlainObject(value: unknown): value is Record<string, unknown> {
  return typeof value === 'object' && value !== null && !Array.isArray(value)
}

const DOCUMENT_KEYS = ['apiVersion', 'kind', 'metadata', 'spec']

/**
 * Reads the editor text: either a whole `kind: <Kind>` document (metadata and spec are taken
 * from it) or a bare spec. Syntax errors carry the line the parser stopped at.
 */
export function parseResourceYaml(kind: ResourceKind, text: string): { ok: true; value: ParsedYaml } | { ok: false; error: EditorError } {
  if (!text.trim()) return { ok: false, error: { field: 'spec', message: 'The spec is empty.' } }
  let docs: YamlDocument[]
  try {
    docs = parseYamlDocuments(text)
  } catch (error) {
    if (!(error instanceof YamlInputError)) throw error
    const problem = error.problems[0]!
    return { ok: false, error: { field: 'spec', message: problem.message.replace(/^invalid/, 'Invalid'), line: problem.line } }
  }
  const filled = docs.filter((doc) => !doc.empty)
  if (filled.length === 0) return { ok: false, error: { field: 'spec', message: 'The spec is empty.' } }
  if (filled.length > 1) return { ok: false, error: { field: 'spec', message: `Paste one ${kind.kind} at a time (found ${filled.length} documents).` } }
  const doc = filled[0]!
  if (!doc.mapping) return { ok: false, error: { field: 'spec', message: 'The spec must be a YAML mapping (key: value pairs).', line: 1 } }
  const value = doc.value
  if (!isPlainObject(value)) return { ok: false, error: { field: 'spec', message: 'The spec must be a YAML mapping (key: value pairs).' } }
  const keys = Object.keys(value)
  const isDocument = ('kind' in value || 'apiVersion' in value || 'metadata' in value) && keys.every((key) => DOCUMENT_KEYS.includes(key) || key === 'status')
  if (!isDocument) return { ok: true, value: { metadata: null, spec: value } }

  if (value.kind !== undefined && value.kind !== kind.kind) {
    return { ok: false, error: { field: 'spec', message: `kind: expected ${kind.kind}, got ${JSON.stringify(value.kind)}` } }
  }
  const spec = value.spec ?? {}
  if (!isPlainObject(spec)) return { ok: false, error: { field: 'spec', message: 'spec: must be a mapping' } }
  const rawMeta = value.metadata ?? {}
  if (!isPlainObject(rawMeta)) return { ok: false, error: { field: 'spec', message: 'metadata: must be a mapping' } }
  const metadata: NonNullable<ParsedYaml['metadata']> = {}
  for (const key of ['name', 'namespace'] as const) {
    const field = rawMeta[key]
    if (field === undefined || field === null || field === '') continue
    if (typeof field !== 'string') return { ok: false, error: { field: 'spec', message: `metadata.${key}: must be a string` } }
    metadata[key] = field.trim()
  }
  if (rawMeta.labels !== undefined && rawMeta.labels !== null) {
    if (!isPlainObject(rawMeta.labels)) return { ok: false, error: { field: 'spec', message: 'metadata.labels: must be a mapping of strings' } }
    const labels: Record<string, string> = {}
    for (const [key, label] of Object.entries(rawMeta.labels)) {
      if (typeof label !== 'string' && typeof label !== 'number' && typeof label !== 'boolean') {
        return { ok: false, error: { field: 'spec', message: `metadata.labels.${key}: must be a string` } }
      }
      labels[key] = String(label)
    }
    metadata.labels = labels
  }
  return { ok: true, value: { metadata, spec } }
}

export type EditorInput = { yaml: string; name?: string | null; namespace?: string | null }

/** What the editor writes: the definition only; bookkeeping columns are added by create/update. */
export type ResourcePayload = { name: string; namespace?: string; labels?: Record<string, string>; spec: Record<string, unknown> }


function checkName(field: 'name' | 'namespace', value: string, strict: boolean): EditorError | null {
  if (value.length > 253) return { field, message: `The ${field} must be at most 253 characters.` }
  if (strict && !RESOURCE_NAME_PATTERN.test(value)) {
    return { field, message: `The ${field} ${RESOURCE_NAME_RULE}.` }
  }
  return null
}

/**
 * Editor form → payload. On an existing resource name and namespace stay as they are (spec
 * 002 §2); a pasted document that names another one is refused rather than silently ignored.
 */
export function buildPayload(
  kind: ResourceKind,
  input: EditorInput,
  existing?: Pick<ResourceRow, 'name' | 'namespace'> | null,
): { ok: true; payload: ResourcePayload } | { ok: false; error: EditorError } {
  const parsed = parseResourceYaml(kind, input.yaml)
  if (!parsed.ok) return parsed
  const { metadata, spec } = parsed.value
  const fieldName = (input.name ?? '').trim()
  const fieldNamespace = (input.namespace ?? '').trim()
  // Kubernetes-backed kinds follow its naming; incident rules and log backends are free text.
  const strict = kind.namespaced

  let name: string
  let namespace: string | undefined
  if (existing) {
    name = existing.name ?? ''
    if (metadata?.name && metadata.name !== name) {
      return { ok: false, error: { field: 'spec', message: `metadata.name: the name cannot be changed once the resource exists (it is ${name}).` } }
    }
    if (kind.namespaced) {
      namespace = existing.namespace || 'default'
      if (metadata?.namespace && metadata.namespace !== namespace) {
        return { ok: false, error: { field: 'spec', message: `metadata.namespace: the namespace cannot be changed once the resource exists (it is ${namespace}).` } }
      }
    }
  } else {
    if (fieldName && metadata?.name && fieldName !== metadata.name) {
      return { ok: false, error: { field: 'name', message: `The name field (${fieldName}) and metadata.name (${metadata.name}) disagree.` } }
    }
    name = fieldName || metadata?.name || ''
    if (!name) return { ok: false, error: { field: 'name', message: 'A name is required (in the Name field or as metadata.name).' } }
    const nameProblem = checkName('name', name, strict)
    if (nameProblem) return { ok: false, error: nameProblem }
    if (kind.namespaced) {
      if (fieldNamespace && metadata?.namespace && fieldNamespace !== metadata.namespace) {
        return { ok: false, error: { field: 'namespace', message: `The namespace field (${fieldNamespace}) and metadata.namespace (${metadata.namespace}) disagree.` } }
      }
      namespace = fieldNamespace || metadata?.namespace || 'default'
      const namespaceProblem = checkName('namespace', namespace, true)
      if (namespaceProblem) return { ok: false, error: namespaceProblem }
    }
  }
  const payload: ResourcePayload = { name, spec }
  if (namespace !== undefined) payload.namespace = namespace
  if (kind.hasLabels && metadata?.labels) payload.labels = metadata.labels
  return { ok: true, payload }
}

/** The create body (http-api §4.5): owned by the UI, created by the signed-in person. */
export function createPayload(payload: ResourcePayload, userId: string): Record<string, unknown> {
  return { ...payload, source: 'UI', created_by: userId }
}

const UPDATE_STRIPPED = ['created_by', 'created_at', 'updated_at'] as const

/**
 * The PATCH body: spec 002 §7 strips created_by, created_at and updated_at; name and
 * namespace are left out too since they cannot change.
 */
export function updatePayload(payload: Record<string, unknown>): Record<string, unknown> {
  const body: Record<string, unknown> = {}
  for (const [key, value] of Object.entries(payload)) {
    if ((UPDATE_STRIPPED as readonly string[]).includes(key) || key === 'name' || key === 'namespace' || key === 'id') continue
    body[key] = value
  }
  return body
}

// ---------------------------------------------------------------------------------------------
// Job history
