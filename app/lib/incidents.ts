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
import { z } from 'zod'
import { isUuid, type EvidenceTarget } from './evidence-target.ts'

/**
 * The incident screens' pure rules (spec 000 §4, 001 §2, §4, §5): vocabularies with labels,
 * badge colours, list URL state, the spec's form messages (the forms' schemas are in
 * incident-forms.ts) and the evidence target of the link-to-incident dialog. The detail page's
 * hypothesis tree, evidence links and timeline are in incident-detail.ts. The vocabularies
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

export type IncidentListParams = z.infer<ReturnType<typeof buildIncidentListSearchSchema>>

/** Repeated or comma-separated values, kept (deduplicated, in the vocabulary's spelling) only when they belong to it. */
function vocabularyList(allowed: readonly string[]) {
  const lowered = new Map(allowed.map((value) => [value.toLowerCase(), value]))
  return z
    .array(z.string())
    .transform((values) => [...new Set(values.flatMap((value) => value.split(',')).map((value) => lowered.get(value.trim().toLowerCase())).filter((value): value is string => Boolean(value)))])
    .catch([])
}

/**
 * The incidents list's URL state (filters, search, sort, paging, the create dialog), read by
 * one schema: each missing or bad value falls back to its default, so any URL renders the list.
 * The default order is newest first; a chosen column sorts ascending unless `sortDesc=true`.
 * Built on first use: this module's vocabulary is rendered in the browser, where zod is not
 * shipped, and a schema built at module level would bring it along (decision 016).
 */
function buildIncidentListSearchSchema() {
  return z.object({
    status: vocabularyList(INCIDENT_STATUSES),
    severity: vocabularyList(INCIDENT_SEVERITY_OPTIONS.map((option) => option.value)),
    type: vocabularyList(INCIDENT_TYPES),
    /** The incident's owner, its commander; `owner` is accepted as an alias in the URL. */
    commander: z
      .array(z.string().nullable())
      .transform((values) => values.find(isUuid) ?? null)
      .catch(null),
    search: z
      .string()
      .transform((value) => value.trim().slice(0, 200))
      .catch(''),
    sortBy: z.enum(INCIDENT_SORT_COLUMNS).nullable().catch(null),
    sortDesc: z.string().nullable().catch(null),
    page: z
      .string()
      .regex(/^\d{1,6}$/)
      .transform(Number)
      .pipe(z.number().int().min(1))
      .catch(1),
    pageSize: z.coerce
      .number()
      .refine((value) => (INCIDENT_PAGE_SIZES as readonly number[]).includes(value))
      .catch(DEFAULT_INCIDENT_PAGE_SIZE),
    dialog: z.literal('new').nullable().catch(null),
  }).transform(({ sortBy, sortDesc, ...rest }) => ({
    ...rest,
    sortBy: sortBy ?? ('created_at' as IncidentSortColumn),
    sortDesc: sortBy ? sortDesc === 'true' : sortDesc !== 'false',
  }))
}
let incidentListSearchSchema: ReturnType<typeof buildIncidentListSearchSchema> | undefined

/** Reads the list's filters, search, sort, paging and dialog from the URL; junk falls back to defaults. */
export function parseIncidentListParams(params: URLSearchParams): IncidentListParams {
  incidentListSearchSchema ??= buildIncidentListSearchSchema()
  return incidentListSearchSchema.parse({
    status: params.getAll('status'),
    severity: params.getAll('severity'),
    type: params.getAll('type'),
    commander: [params.get('commander'), params.get('owner')],
    search: params.get('search') ?? '',
    sortBy: params.get('sortBy'),
    sortDesc: params.get('sortDesc'),
    page: params.get('page'),
    pageSize: params.get('pageSize'),
    dialog: params.get('dialog'),
  })
}

/**
 * The column the data API orders by for a list column: severity and status by their rank
 * (`incident_summary.severity_rank`/`status_rank`, migration 0191), so blocker/critical come
 * above high and statuses follow the spec's order; the rest by their own value.
 */
export const INCIDENT_ORDER_COLUMN: Record<IncidentSortColumn, string> = {
  created_at: 'created_at',
  updated_at: 'updated_at',
  title: 'title',
  severity: 'severity_rank',
  status: 'status_rank',
  incident_id: 'incident_id',
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

/** The longest incident or hypothesis title the forms accept. */
export const TITLE_MAX = 500
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

/** Only paths inside the console, never another origin. */
export function safeReturnTo(value: unknown): string {
  return typeof value === 'string' && value.startsWith('/') && !value.startsWith('//') && !value.startsWith('/\\') ? value : ''
}
