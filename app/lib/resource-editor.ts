import { stringify } from 'yaml'
import { z } from 'zod'
import { parseYamlDocuments, YamlInputError, type YamlDocument } from '#contract/yaml-input.ts'
import type { Resource } from './access.ts'
import type { Feature } from './features.ts'
import { SETTINGS_TABLES } from './navigation.ts'

/**
 * The generic resource editor's rules, kept free of I/O so the server action and the unit
 * tests share them: which tables it edits, how the YAML a user pastes becomes a row (spec 002
 * §2 "Resource editor", §7 "Generic resource create, update and delete"), and which rows are
 * read-only because something other than the UI owns them.
 */

export type ResourceKind = {
  table: string
  label: string
  /** Singular, for messages ("Canary created"). */
  singular: string
  feature: Feature
  resource: Resource
  /** What the list reads: `<table>_with_status` unless the table is read directly (http-api §4.7). */
  listRelation: string
  /** The document kind users keep in git; a pasted document of another kind is refused. */
  kind: string
  apiVersion: string
  namespaced: boolean
  hasLabels: boolean
  /** The value job_history.resource_type carries for this table's rows. */
  jobResourceType: string
}

/** The editable kinds. Teams are not here: they have their own pages with a Members tab. */
export const RESOURCE_KINDS = {
  canaries: {
    table: 'canaries',
    label: 'Canaries',
    singular: 'Canary',
    feature: SETTINGS_TABLES.canaries.feature,
    resource: SETTINGS_TABLES.canaries.resource,
    listRelation: 'canaries_with_status',
    kind: 'Canary',
    apiVersion: 'canaries.flanksource.com/v1',
    namespaced: true,
    hasLabels: true,
    jobResourceType: 'canary',
  },
  topologies: {
    table: 'topologies',
    label: 'Topologies',
    singular: 'Topology',
    feature: SETTINGS_TABLES.topologies.feature,
    resource: SETTINGS_TABLES.topologies.resource,
    listRelation: 'topologies_with_status',
    kind: 'Topology',
    apiVersion: 'canaries.flanksource.com/v1',
    namespaced: true,
    hasLabels: true,
    jobResourceType: 'topology',
  },
  incident_rules: {
    table: 'incident_rules',
    label: 'Incident Rules',
    singular: 'Incident rule',
    feature: SETTINGS_TABLES.incident_rules.feature,
    resource: SETTINGS_TABLES.incident_rules.resource,
    listRelation: 'incident_rules',
    kind: 'IncidentRule',
    apiVersion: 'mission-control.flanksource.com/v1',
    namespaced: false,
    hasLabels: false,
    jobResourceType: 'incident_rule',
  },
  logging_backends: {
    table: 'logging_backends',
    label: 'Log Backends',
    singular: 'Log backend',
    feature: 'settings.logging_backends',
    resource: 'logging_backends',
    // No status view exists for log backends: they run no jobs.
    listRelation: 'logging_backends',
    kind: 'LoggingBackend',
    apiVersion: 'mission-control.flanksource.com/v1',
    namespaced: false,
    hasLabels: true,
    jobResourceType: 'logging_backend',
  },
  config_scrapers: {
    table: 'config_scrapers',
    label: 'Catalog Scrapers',
    singular: 'Catalog scraper',
    feature: 'settings.config_scraper',
    resource: 'config_scrapers',
    listRelation: 'config_scrapers_with_status',
    kind: 'ScrapeConfig',
    apiVersion: 'configs.flanksource.com/v1',
    namespaced: true,
    hasLabels: false,
    jobResourceType: 'config_scraper',
  },
} as const satisfies Record<string, ResourceKind>

export type ResourceTable = keyof typeof RESOURCE_KINDS

/**
 * The kinds served under /settings/{table}. Config scrapers live under /catalog/scrapers
 * (spec 000 §2), so they are not reachable here even though the editor can handle them.
 */
const SETTINGS_EDITOR_TABLES: readonly ResourceTable[] = ['canaries', 'topologies', 'incident_rules', 'logging_backends']

export function getEditorKind(table: string | undefined): ResourceKind | null {
  if (!table || !(SETTINGS_EDITOR_TABLES as readonly string[]).includes(table)) return null
  return RESOURCE_KINDS[table as ResourceTable]
}

/** The list's default page size: the platform's settings lists read 100 rows (http-api §4.7). */
export const SETTINGS_LIST_LIMIT = 100
export const RESOURCE_LIST_PAGE_SIZES = [50, SETTINGS_LIST_LIMIT, 200] as const

// ---------------------------------------------------------------------------------------------
// The list's URL state

/** The list's sortable columns; `status` is the last job's, which only `*_with_status` views carry. */
export type ResourceListColumn = 'name' | 'namespace' | 'source' | 'status' | 'updated_at' | 'created_at'

export function hasJobStatus(kind: Pick<ResourceKind, 'listRelation'>): boolean {
  return kind.listRelation.endsWith('_with_status')
}

export function resourceListColumns(kind: Pick<ResourceKind, 'namespaced' | 'listRelation'>): ResourceListColumn[] {
  return ['name', ...(kind.namespaced ? (['namespace'] as const) : []), 'source', ...(hasJobStatus(kind) ? (['status'] as const) : []), 'updated_at', 'created_at']
}

export type ResourceListSearch = {
  /** null: the platform's order, newest first. */
  sortBy: ResourceListColumn | null
  sortDesc: boolean
  page: number
  pageSize: number
}

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
export const JOB_HISTORY_PAGE_SIZE = 150
export const DELETE_CONFIRMATION = 'Are you sure you want to delete this resource?'

// ---------------------------------------------------------------------------------------------
// Source: who owns a row

export type ResourceRow = {
  id?: string
  name?: string | null
  namespace?: string | null
  labels?: unknown
  spec?: unknown
  source?: string | null
  agent_id?: string | null
  [column: string]: unknown
}

export type SourceInfo = {
  readOnly: boolean
  /** Where the resource came from, in words (spec 002 §2: agent, component, Kubernetes custom resource, local file). */
  origin: string
  href?: string
}

const LOCAL_AGENT_ID = '00000000-0000-0000-0000-000000000000'

/** A row is editable only when the UI (or nobody in particular) created it. */
export function sourceInfo(row: Pick<ResourceRow, 'source' | 'agent_id'>): SourceInfo {
  const source = (row.source ?? '').trim()
  const agent = row.agent_id && row.agent_id !== LOCAL_AGENT_ID ? row.agent_id : null
  if (agent) return { readOnly: true, origin: 'an agent', href: `/settings/agents?id=${encodeURIComponent(agent)}` }
  if (source === '' || source === 'UI') return { readOnly: false, origin: 'the UI' }
  const component = /^component=(.+)$/.exec(source)
  if (component) return { readOnly: true, origin: 'a component', href: `/topology/${encodeURIComponent(component[1]!)}` }
  const check = /^check=(.+)$/.exec(source)
  if (check) return { readOnly: true, origin: 'a health check', href: `/health?checkId=${encodeURIComponent(check[1]!)}` }
  switch (source) {
    case 'KubernetesCRD':
    case 'CRDSync':
      return { readOnly: true, origin: 'a Kubernetes custom resource' }
    case 'ConfigFile':
      return { readOnly: true, origin: 'a local file' }
    case 'Topology':
      return { readOnly: true, origin: 'a topology' }
    case 'Push':
      return { readOnly: true, origin: 'an agent (pushed)' }
    case 'ApplicationCRD':
      return { readOnly: true, origin: 'an application' }
    case 'System':
      return { readOnly: true, origin: 'the system' }
    case 'Demo':
      return { readOnly: true, origin: 'the demo data' }
    default:
      return { readOnly: true, origin: source }
  }
}

// ---------------------------------------------------------------------------------------------
// YAML document ↔ row

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

export type EditorField = 'name' | 'namespace' | 'spec'

// ---------------------------------------------------------------------------------------------
// The editor's forms

export const EMPTY_SPEC = 'The spec is empty.'

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

// Kubernetes object names: lower-case words joined by dashes or dots, at most 253 characters.
const NAME_PATTERN = /^[a-z0-9]([-a-z0-9.]*[a-z0-9])?$/

function checkName(field: 'name' | 'namespace', value: string, strict: boolean): EditorError | null {
  if (value.length > 253) return { field, message: `The ${field} must be at most 253 characters.` }
  if (strict && !NAME_PATTERN.test(value)) {
    return { field, message: `The ${field} may hold lower-case letters, digits, '-' and '.', and must start and end with a letter or digit.` }
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

export type JobHistoryRow = {
  id: string
  name?: string | null
  status?: string | null
  resource_type?: string | null
  resource_name?: string | null
  hostname?: string | null
  time_start?: string | null
  time_end?: string | null
  created_at?: string | null
  duration_millis?: number | null
  success_count?: number | null
  error_count?: number | null
  details?: unknown
  agent?: { id?: string | null; name?: string | null } | null
}

export type JobStatusTone = 'success' | 'warning' | 'danger' | 'secondary' | 'outline'

/** Statuses are colour-coded (spec 002 §2 "Job history"). */
export function jobStatusTone(status: string | null | undefined): JobStatusTone {
  switch ((status ?? '').toUpperCase()) {
    case 'SUCCESS':
      return 'success'
    case 'WARNING':
      return 'warning'
    case 'FAILED':
      return 'danger'
    case 'RUNNING':
      return 'secondary'
    default:
      return 'outline'
  }
}

export type JobDetailsTab = { id: 'errors' | 'scrape_summary' | 'summary'; label: string; content: unknown }

function hasContent(value: unknown): boolean {
  if (value === null || value === undefined || value === '') return false
  if (Array.isArray(value)) return value.length > 0
  if (typeof value === 'object') return Object.keys(value).length > 0
  return true
}

/** The tabs of the details modal that have something to show; none means no modal. */
export function jobDetailsTabs(details: unknown): JobDetailsTab[] {
  if (!isPlainObject(details)) return []
  const tabs: JobDetailsTab[] = [
    { id: 'errors', label: 'Errors', content: details.errors },
    { id: 'scrape_summary', label: 'Scrape Summary', content: details.scrape_summary },
    { id: 'summary', label: 'Reconcile Summary', content: details.summary },
  ]
  return tabs.filter((tab) => hasContent(tab.content))
}
