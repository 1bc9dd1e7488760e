import {
  HYPOTHESIS_PARENT_TYPE,
  HYPOTHESIS_STATUSES,
  HYPOTHESIS_TYPES,
  INCIDENT_STATUSES,
  INCIDENT_TYPES,
  type HypothesisStatus,
  type HypothesisType,
  type IncidentStatus,
} from '#contract/incident-vocabulary.ts'
import { isUuid, type EvidenceTarget } from './evidence-target.ts'

/**
 * The incident screens' pure rules (spec 000 §4, 001 §2, §4, §5): vocabularies with labels,
 * badge colours, list URL state, the spec's form messages (the forms' schemas are in
 * incident-forms.ts) and the evidence target of the link-to-incident dialog. The vocabularies
 * come from the shared contract so the UI never offers a value the API refuses.
 */

export { HYPOTHESIS_PARENT_TYPE, HYPOTHESIS_STATUSES, HYPOTHESIS_TYPES, INCIDENT_STATUSES, INCIDENT_TYPES }
export type { HypothesisStatus, HypothesisType, IncidentStatus }
export { EVIDENCE_TARGET_COLUMN, EVIDENCE_TARGET_TYPES, evidenceTargetFields, evidenceTargetId, isUuid, parseEvidenceTarget } from './evidence-target.ts'
export type { EvidenceTarget, EvidenceTargetType } from './evidence-target.ts'

export type BadgeTone = 'gray' | 'blue' | 'red' | 'orange' | 'yellow' | 'green' | 'purple'

export const INCIDENT_STATUS_LABELS: Record<IncidentStatus, string> = {
  new: 'New',
  open: 'Open',
  investigating: 'Investigating',
  mitigated: 'Mitigated',
  resolved: 'Resolved',
  closed: 'Closed',
}

/** Each status has its own badge colour (001 §4). */
export const INCIDENT_STATUS_TONES: Record<IncidentStatus, BadgeTone> = {
  new: 'blue',
  open: 'red',
  investigating: 'orange',
  mitigated: 'yellow',
  resolved: 'green',
  closed: 'gray',
}

/**
 * The severities offered when creating an incident: 001 §4's badge set, whose medium value is
 * spelt 'Medium'. Stored values keep whatever spelling they were created with.
 */
export const INCIDENT_SEVERITY_OPTIONS = [
  { value: 'info', label: 'Info' },
  { value: 'warning', label: 'Warning' },
  { value: 'low', label: 'Low' },
  { value: 'Medium', label: 'Medium' },
  { value: 'high', label: 'High' },
  { value: 'blocker', label: 'Blocker' },
  { value: 'critical', label: 'Critical' },
] as const
export type IncidentSeverityValue = (typeof INCIDENT_SEVERITY_OPTIONS)[number]['value']

/** Severity badge mapping (001 §4): 4 critical, 3 blocker, 2 high, 1 medium, anything else low. */
export function getSeverityLevel(severity: string | null | undefined): 0 | 1 | 2 | 3 | 4 {
  switch ((severity ?? '').toLowerCase()) {
    case 'critical':
      return 4
    case 'blocker':
      return 3
    case 'high':
      return 2
    case 'medium':
      return 1
    default:
      return 0
  }
}

const SEVERITY_BY_LEVEL = [
  { label: 'Low', tone: 'gray' },
  { label: 'Medium', tone: 'yellow' },
  { label: 'High', tone: 'orange' },
  { label: 'Blocker', tone: 'red' },
  { label: 'Critical', tone: 'purple' },
] as const satisfies ReadonlyArray<{ label: string; tone: BadgeTone }>

export function getSeverityBadge(severity: string | null | undefined): { level: number; label: string; tone: BadgeTone } {
  const level = getSeverityLevel(severity)
  return { level, ...SEVERITY_BY_LEVEL[level] }
}

export const INCIDENT_TYPE_LABELS: Record<(typeof INCIDENT_TYPES)[number], string> = {
  cost: 'Cost',
  availability: 'Availability',
  performance: 'Performance',
  security: 'Security',
  integration: 'Integration',
  compliance: 'Compliance',
  technicalDebt: 'Technical Debt',
  reliability: 'Reliability',
}

export const HYPOTHESIS_STATUS_TONES: Record<HypothesisStatus, BadgeTone> = {
  proven: 'green',
  likely: 'blue',
  possible: 'yellow',
  unlikely: 'orange',
  improbable: 'gray',
  disproven: 'red',
}

export function labelOf(value: string | null | undefined): string {
  if (!value) return ''
  if (Object.hasOwn(INCIDENT_TYPE_LABELS, value)) return INCIDENT_TYPE_LABELS[value as keyof typeof INCIDENT_TYPE_LABELS]
  return value.charAt(0).toUpperCase() + value.slice(1)
}

export function isIncidentStatus(value: unknown): value is IncidentStatus {
  return typeof value === 'string' && (INCIDENT_STATUSES as readonly string[]).includes(value)
}

export function isHypothesisStatus(value: unknown): value is HypothesisStatus {
  return typeof value === 'string' && (HYPOTHESIS_STATUSES as readonly string[]).includes(value)
}

export function isIncidentType(value: unknown): value is (typeof INCIDENT_TYPES)[number] {
  return typeof value === 'string' && (INCIDENT_TYPES as readonly string[]).includes(value)
}

export function isSeverityOption(value: unknown): value is IncidentSeverityValue {
  return typeof value === 'string' && INCIDENT_SEVERITY_OPTIONS.some((option) => option.value === value)
}

// ---------------------------------------------------------------------------------------------
// List URL state

export const INCIDENT_SORT_COLUMNS = ['created_at', 'updated_at', 'title', 'severity', 'status', 'incident_id'] as const
export type IncidentSortColumn = (typeof INCIDENT_SORT_COLUMNS)[number]
export const INCIDENT_PAGE_SIZES = [50, 100, 200] as const
export const DEFAULT_INCIDENT_PAGE_SIZE = 50

export type IncidentListParams = {
  status: string[]
  severity: string[]
  type: string[]
  /** The incident's owner, its commander; `owner` is accepted as an alias in the URL. */
  commander: string | null
  search: string
  sortBy: IncidentSortColumn
  sortDesc: boolean
  page: number
  pageSize: number
}

/** Repeated or comma-separated values, kept only when they belong to the vocabulary. */
function listParam(params: URLSearchParams, name: string, allowed: readonly string[]): string[] {
  const values = params.getAll(name).flatMap((value) => value.split(','))
  const lowered = new Map(allowed.map((value) => [value.toLowerCase(), value]))
  return [...new Set(values.map((value) => lowered.get(value.trim().toLowerCase())).filter((value): value is string => Boolean(value)))]
}

function positiveInt(value: string | null, fallback: number, max: number): number {
  const parsed = Number(value)
  return Number.isInteger(parsed) && parsed >= 1 ? Math.min(parsed, max) : fallback
}

/** Reads the list's filters, search, sort and paging from the URL; junk falls back to defaults. */
export function parseIncidentListParams(params: URLSearchParams): IncidentListParams {
  const sortBy = params.get('sortBy')
  const pageSize = Number(params.get('pageSize'))
  return {
    status: listParam(params, 'status', INCIDENT_STATUSES),
    severity: listParam(params, 'severity', INCIDENT_SEVERITY_OPTIONS.map((option) => option.value)),
    type: listParam(params, 'type', INCIDENT_TYPES),
    commander: [params.get('commander'), params.get('owner')].find(isUuid) ?? null,
    search: (params.get('search') ?? '').trim().slice(0, 200),
    sortBy: (INCIDENT_SORT_COLUMNS as readonly string[]).includes(sortBy ?? '') ? (sortBy as IncidentSortColumn) : 'created_at',
    sortDesc: params.has('sortBy') ? params.get('sortDesc') === 'true' : params.get('sortDesc') !== 'false',
    page: positiveInt(params.get('page'), 1, 100_000),
    pageSize: (INCIDENT_PAGE_SIZES as readonly number[]).includes(pageSize) ? pageSize : DEFAULT_INCIDENT_PAGE_SIZE,
  }
}

/** PostgREST ilike patterns treat `*` as the wildcard; commas and parentheses would break `or=(...)`. */
export function toIlikeTerm(text: string): string {
  return text.replace(/[*,()"\\]/g, ' ').trim()
}

/** The URL of the list with some parameters changed; paging restarts when a filter changes. */
export function incidentListHref(current: URLSearchParams, changes: Record<string, string | null>): string {
  const next = new URLSearchParams(current)
  for (const [key, value] of Object.entries(changes)) {
    if (value === null || value === '') next.delete(key)
    else next.set(key, value)
  }
  if (!('page' in changes)) next.delete('page')
  const text = next.toString()
  return text ? `/incidents?${text}` : '/incidents'
}

// ---------------------------------------------------------------------------------------------
// Forms

export const REQUIRED_MESSAGE = 'This field is required'
export const SEVERITY_REQUIRED = 'Please select incident severity'
export const TYPE_REQUIRED = 'Please select an incident type'
export const INCIDENT_REQUIRED = 'Must select or create an incident'
export const HYPOTHESIS_REQUIRED = 'Must select or create a hypothesis'
export const LINK_SUCCESS = 'Linked to incident successfully'

// ---------------------------------------------------------------------------------------------
// Link to incident

export const NEW_OPTION = 'new'

export type LinkPlan = {
  target: EvidenceTarget
  description: string
  incident: { kind: 'existing'; id: string } | { kind: 'new'; title: string; type: string; severity: string }
  hypothesis: { kind: 'existing'; id: string } | { kind: 'new'; title: string }
}

/** Exactly one hypothesis is picked for the user (001 §2); otherwise they choose. */
export function getDefaultHypothesis(hypotheses: ReadonlyArray<{ id: string }>, chosen: string): string {
  if (chosen) return chosen
  return hypotheses.length === 1 ? hypotheses[0]!.id : ''
}

// ---------------------------------------------------------------------------------------------
// Detail

export type HypothesisNode<T extends { id: string; parent_id: string | null; type: string }> = T & { children: HypothesisNode<T>[] }

/** Nests root > factor > solution; orphans (a parent outside the list) surface as roots. */
export function buildHypothesisTree<T extends { id: string; parent_id: string | null; type: string; created_at?: string }>(rows: readonly T[]): HypothesisNode<T>[] {
  const nodes = new Map(rows.map((row) => [row.id, { ...row, children: [] as HypothesisNode<T>[] }]))
  const roots: HypothesisNode<T>[] = []
  const byCreated = (a: { created_at?: string }, b: { created_at?: string }) => (a.created_at ?? '').localeCompare(b.created_at ?? '')
  for (const node of [...nodes.values()].sort(byCreated)) {
    const parent = node.parent_id ? nodes.get(node.parent_id) : undefined
    if (parent && parent !== node) parent.children.push(node)
    else roots.push(node)
  }
  return roots
}

/** The type a child of this hypothesis gets, or null when it cannot have children. */
export function getChildHypothesisType(type: string): HypothesisType | null {
  const entry = (Object.entries(HYPOTHESIS_PARENT_TYPE) as Array<[HypothesisType, HypothesisType | null]>).find(([, parent]) => parent === type)
  return entry ? entry[0] : null
}

export type EvidenceLink = { href: string; label: string } | null

/** Where an evidence points (001 §2): a check to /health, a config to /catalog, a component to /topology. */
export function getEvidenceLink(evidence: {
  type: string
  check_id?: string | null
  config_id?: string | null
  component_id?: string | null
  config_change_id?: string | null
  config_analysis_id?: string | null
}): EvidenceLink {
  if (evidence.check_id) return { href: `/health?checkId=${encodeURIComponent(evidence.check_id)}&timeRange=1h`, label: 'Open check' }
  if (evidence.config_id) {
    const base = `/catalog/${encodeURIComponent(evidence.config_id)}`
    if (evidence.type === 'config_change') return { href: `${base}/changes`, label: 'Open changes' }
    if (evidence.type === 'config_analysis') return { href: `${base}/insights`, label: 'Open insights' }
    return { href: base, label: 'Open config' }
  }
  if (evidence.component_id) return { href: `/topology/${encodeURIComponent(evidence.component_id)}`, label: 'Open component' }
  return null
}

const HISTORY_TEXT: Record<string, (description: string | null) => string> = {
  'incident.created': (description) => `created the incident${description ? ` ${description}` : ''}`,
  'incident.status_updated': (description) => `changed the status to ${labelOf(description) || 'unknown'}`,
  'incident_status.updated': (description) => `changed the status to ${labelOf(description) || 'unknown'}`,
  'responder.created': () => 'added a responder',
  'responder.commented': () => 'commented',
  'evidence.created': () => 'added evidence',
  'evidence.done_definition_added': () => 'added a definition of done',
  'hypothesis.created': () => 'created a hypothesis',
  'hypothesis.status_updated': (description) => `changed a hypothesis status${description ? ` to ${labelOf(description)}` : ''}`,
}

export function describeHistory(type: string | null, description: string | null): string {
  const render = type ? HISTORY_TEXT[type] : undefined
  return render ? render(description) : `${type ?? 'event'}${description ? `: ${description}` : ''}`
}

/**
 * `2026-11-21 16:09 UTC`: the same text on the server and in the browser, so hydration never
 * disagrees about a time zone or a "now".
 */
export function formatTimestamp(value: string | null | undefined): string {
  if (!value) return ''
  const date = new Date(value)
  if (Number.isNaN(date.getTime())) return value
  return `${date.toISOString().slice(0, 16).replace('T', ' ')} UTC`
}

/** Only paths inside the console, never another origin. */
export function safeReturnTo(value: unknown): string {
  return typeof value === 'string' && value.startsWith('/') && !value.startsWith('//') && !value.startsWith('/\\') ? value : ''
}
