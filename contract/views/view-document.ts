import { z } from 'zod'
import { formatPath, resourceDocumentSchema, ResourceValidationError, zodIssues, type ValidationIssue } from '#contract/resource-document.ts'
import { CanaryMetadataSchema } from '#contract/canary/canary-spec.schema.ts'
import { parseDurationMs } from '#contract/canary/duration.ts'

/**
 * The View resource (`mission-control.flanksource.com/v1`, kind `View`, resource-specs §3.8): the
 * fields the evaluator reads are checked; others (pdf, mcp, card layouts) pass through so a
 * pasted YAML is stored whole. The four rules of the reference come last, with its wording.
 */

export const VIEW_API_VERSION = 'mission-control.flanksource.com/v1'

export const VIEW_COLUMN_TYPES = [
  'string',
  'number',
  'boolean',
  'datetime',
  'duration',
  'health',
  'status',
  'gauge',
  'bytes',
  'decimal',
  'millicore',
  'config_item',
  'labels',
] as const
export type ViewColumnType = (typeof VIEW_COLUMN_TYPES)[number]

export const VIEW_PANEL_TYPES = ['piechart', 'text', 'gauge', 'number', 'table', 'duration', 'bargauge', 'properties', 'timeseries', 'heatmap'] as const
export type ViewPanelType = (typeof VIEW_PANEL_TYPES)[number]

const oneOf = <T extends readonly [string, ...string[]]>(values: T) => z.enum(values, { errorMap: () => ({ message: `must be one of ${values.join(', ')}` }) })

const text = z.string({ invalid_type_error: 'must be a string' })
const required = z.string({ required_error: 'is required', invalid_type_error: 'must be a string' }).min(1, 'must not be empty')
const stringMap = z.record(z.string(), text)

const durationText = text.refine((value) => parseDurationMs(value) !== null, 'must be a duration such as 30s, 15m or 1h')

/** A resource selector (§0.4) as the catalog matches it. */
export const ViewSelectorSchema = z
  .object({
    id: text.optional(),
    name: text.optional(),
    namespace: text.optional(),
    agent: text.optional(),
    search: text.optional(),
    labelSelector: text.optional(),
    tagSelector: text.optional(),
    fieldSelector: text.optional(),
    types: z.array(text).optional(),
    statuses: z.array(text).optional(),
    health: text.optional(),
    type: text.optional(),
    limit: z.number().int().positive().optional(),
  })
  .passthrough()
export type ViewSelector = z.infer<typeof ViewSelectorSchema>

const SqlQuerySchema = z
  .object({
    connection: text.optional(),
    url: text.optional(),
    username: z.unknown().optional(),
    password: z.unknown().optional(),
    type: oneOf(['postgres', 'mysql', 'sqlserver'] as const).optional(),
    query: required,
  })
  .passthrough()
  .refine((sql) => sql.connection !== undefined || sql.url !== undefined, { message: 'set connection or url', path: ['connection'] })

const PrometheusQuerySchema = z
  .object({
    connection: text.optional(),
    url: text.optional(),
    query: required,
    range: z.object({ start: text.optional(), end: text.optional(), step: text.optional() }).passthrough().optional(),
  })
  .passthrough()
  .refine((prom) => prom.connection !== undefined || prom.url !== undefined, { message: 'set connection or url', path: ['connection'] })

const HttpQuerySchema = z
  .object({
    url: text.optional(),
    connection: text.optional(),
    method: text.optional(),
    headers: z.unknown().optional(),
    body: text.optional(),
    /** A dotted path into the JSON answer where the rows are (`items`, `data.result`). */
    jsonPath: text.optional(),
  })
  .passthrough()
  .refine((http) => http.connection !== undefined || http.url !== undefined, { message: 'set connection or url', path: ['url'] })

export const VIEW_QUERY_SOURCES = ['configs', 'changes', 'viewTableSelector', 'sql', 'prometheus', 'http'] as const
export type ViewQuerySource = (typeof VIEW_QUERY_SOURCES)[number]

const ViewQuerySchema = z
  .object({
    configs: ViewSelectorSchema.optional(),
    changes: ViewSelectorSchema.optional(),
    viewTableSelector: z.object({ name: text.optional(), namespace: text.optional() }).passthrough().optional(),
    sql: SqlQuerySchema.optional(),
    prometheus: PrometheusQuerySchema.optional(),
    http: HttpQuerySchema.optional(),
    columns: z.record(z.string(), oneOf(VIEW_COLUMN_TYPES)).optional(),
  })
  .passthrough()
export type ViewQuery = z.infer<typeof ViewQuerySchema>

const GaugeSchema = z
  .object({
    min: z.union([z.number(), text]).optional(),
    max: z.union([z.number(), text]).optional(),
    precision: z.number().int().optional(),
    unit: text.optional(),
    thresholds: z.array(z.object({ percent: z.number(), color: text.optional() }).passthrough()).optional(),
  })
  .passthrough()

export const ViewColumnSchema = z
  .object({
    name: required,
    type: oneOf(VIEW_COLUMN_TYPES),
    primaryKey: z.boolean().optional(),
    hidden: z.boolean().optional(),
    width: z.union([z.number(), text]).optional(),
    description: text.optional(),
    unit: text.optional(),
    icon: text.optional(),
    badge: z.unknown().optional(),
    gauge: GaugeSchema.optional(),
    url: z.unknown().optional(),
    filter: z.unknown().optional(),
    card: z.unknown().optional(),
    cardPosition: text.optional(),
    configItem: z.object({ idField: text.optional() }).passthrough().optional(),
    for: text.optional(),
    config: text.optional(),
    template: text.optional(),
    view: z.unknown().optional(),
  })
  .passthrough()
export type ViewColumn = z.infer<typeof ViewColumnSchema>

export const ViewPanelSchema = z
  .object({
    name: required,
    description: text.optional(),
    type: oneOf(VIEW_PANEL_TYPES),
    query: required,
    gauge: GaugeSchema.optional(),
    piechart: z.object({ showLabels: z.boolean().optional(), colors: stringMap.optional() }).passthrough().optional(),
    number: z.object({ unit: text.optional(), precision: z.number().int().optional() }).passthrough().optional(),
    bargauge: z.object({ min: z.number().optional(), max: z.number().optional(), unit: text.optional() }).passthrough().optional(),
    timeseries: z.object({ timeKey: text.optional(), valueKey: text.optional(), seriesKey: text.optional() }).passthrough().optional(),
    table: z.unknown().optional(),
    text: z.unknown().optional(),
  })
  .passthrough()
export type ViewPanel = z.infer<typeof ViewPanelSchema>

const TemplateVariableSchema = z
  .object({
    key: required.regex(/^[A-Za-z_][A-Za-z0-9_]*$/, 'must be letters, digits or _'),
    label: text.optional(),
    values: z.array(text).optional(),
    valueFrom: z
      .object({ config: ViewSelectorSchema, label: text.optional(), value: text.optional() })
      .passthrough()
      .optional(),
    default: text.optional(),
    dependsOn: z.array(text).optional(),
  })
  .passthrough()
export type ViewVariable = z.infer<typeof TemplateVariableSchema>

const SectionSchema = z
  .object({
    title: required,
    icon: text.optional(),
    viewRef: z.object({ namespace: text.optional(), name: required }).passthrough().optional(),
    uiRef: z.object({ changes: z.unknown(), configs: z.unknown(), access: z.unknown(), accessLogs: z.unknown() }).partial().passthrough().optional(),
  })
  .passthrough()

const DisplaySchema = z
  .object({
    title: text.optional(),
    icon: text.optional(),
    ordinal: z.number({ invalid_type_error: 'must be a number' }).int('must be a whole number').optional(),
    sidebar: z.boolean({ invalid_type_error: 'must be true or false' }).optional(),
    card: z.unknown().optional(),
    table: z.unknown().optional(),
    plugins: z.array(z.object({ configTab: ViewSelectorSchema, variables: stringMap.optional() }).passthrough()).optional(),
  })
  .passthrough()

const CacheSchema = z
  .object({ maxAge: durationText.optional(), minAge: durationText.optional(), refreshTimeout: durationText.optional() })
  .passthrough()

const ViewSpecObject = z
  .object({
    description: text.optional(),
    display: DisplaySchema.optional(),
    queries: z.record(z.string().regex(/^[A-Za-z_][A-Za-z0-9_]*$/, 'query names must be letters, digits or _'), ViewQuerySchema).optional(),
    columns: z.array(ViewColumnSchema).optional(),
    merge: text.optional(),
    mapping: z.record(z.string(), text).optional(),
    panels: z.array(ViewPanelSchema).optional(),
    templating: z.array(TemplateVariableSchema).optional(),
    sections: z.array(SectionSchema).optional(),
    cache: CacheSchema.optional(),
    pdf: z.unknown().optional(),
    mcp: z.unknown().optional(),
  })
  .passthrough()

export const ViewSpecSchema = ViewSpecObject.superRefine((spec, ctx) => {
  const queries = Object.entries(spec.queries ?? {})
  for (const [name, query] of queries) {
    const sources = VIEW_QUERY_SOURCES.filter((source) => query[source] !== undefined)
    if (sources.length === 0) ctx.addIssue({ code: z.ZodIssueCode.custom, path: ['queries', name], message: `query ${name} is empty: set one of ${VIEW_QUERY_SOURCES.join(', ')}` })
    if (sources.length > 1) ctx.addIssue({ code: z.ZodIssueCode.custom, path: ['queries', name], message: `query ${name} sets ${sources.join(' and ')}: set exactly one source` })
  }
  const onlySections = (spec.sections?.length ?? 0) > 0 && !spec.columns?.length && !spec.panels?.length
  if (queries.length === 0 && !onlySections) ctx.addIssue({ code: z.ZodIssueCode.custom, path: ['queries'], message: 'view must have at least one query' })
  if (!onlySections && !spec.columns?.length && !spec.panels?.length) ctx.addIssue({ code: z.ZodIssueCode.custom, path: [], message: 'view must have at least one column or panel' })
  if (spec.columns?.length && !spec.columns.some((column) => column.primaryKey)) {
    ctx.addIssue({ code: z.ZodIssueCode.custom, path: ['columns'], message: 'view must have at least one primary key column' })
  }
  const names = new Set<string>()
  spec.columns?.forEach((column, index) => {
    if (names.has(column.name)) ctx.addIssue({ code: z.ZodIssueCode.custom, path: ['columns', index, 'name'], message: `column ${column.name} is defined twice` })
    names.add(column.name)
  })
  if (queries.length > 1 && spec.columns?.length && !spec.panels?.length && !spec.merge?.trim()) {
    ctx.addIssue({ code: z.ZodIssueCode.custom, path: ['merge'], message: 'merge is required when a view with columns has more than one query' })
  }
  const keys = new Set((spec.templating ?? []).map((variable) => variable.key))
  spec.templating?.forEach((variable, index) => {
    variable.dependsOn?.forEach((dependency, position) => {
      if (!keys.has(dependency)) ctx.addIssue({ code: z.ZodIssueCode.custom, path: ['templating', index, 'dependsOn', position], message: `no variable ${dependency}` })
    })
  })
})
export type ViewSpec = z.infer<typeof ViewSpecObject>

const DocumentSchema = resourceDocumentSchema(VIEW_API_VERSION, 'View', CanaryMetadataSchema, ViewSpecSchema)

export class ViewValidationError extends ResourceValidationError {}

export type ViewInput = { name: string; namespace: string; labels: Record<string, string>; spec: ViewSpec }

/** Validates a spec alone (the data API's PATCH of `spec`); issues are relative to `spec`. */
export function viewSpecIssues(spec: unknown): ValidationIssue[] {
  const parsed = ViewSpecSchema.safeParse(spec)
  return parsed.success ? [] : zodIssues(parsed.error, ['spec'])
}

/** The stored spec, for the evaluator (only specs validated on write reach it). */
export function parseViewSpec(spec: unknown): ViewSpec {
  const parsed = ViewSpecSchema.safeParse(spec ?? {})
  if (!parsed.success) throw new ViewValidationError(zodIssues(parsed.error, ['spec']))
  return parsed.data
}

/** The Kubernetes document, or the row shape `{name, namespace, labels, spec}` of the data API. */
export function parseViewObject(value: unknown, prefix: (string | number)[] = []): ViewInput {
  if (typeof value !== 'object' || value === null || Array.isArray(value)) {
    throw new ViewValidationError([{ path: formatPath(prefix), message: 'must be a View object' }])
  }
  const record = value as Record<string, unknown>
  if ('apiVersion' in record || 'kind' in record || 'metadata' in record) {
    const parsed = DocumentSchema.safeParse(record)
    if (!parsed.success) throw new ViewValidationError(zodIssues(parsed.error, prefix))
    const { metadata, spec } = parsed.data
    return { name: metadata.name, namespace: metadata.namespace ?? 'default', labels: metadata.labels ?? {}, spec }
  }
  const RowSchema = z
    .object({ name: CanaryMetadataSchema.shape.name, namespace: CanaryMetadataSchema.shape.namespace.nullish(), labels: stringMap.nullish(), spec: ViewSpecSchema })
    .passthrough()
  const parsed = RowSchema.safeParse(record)
  if (!parsed.success) throw new ViewValidationError(zodIssues(parsed.error, prefix))
  return { name: parsed.data.name, namespace: parsed.data.namespace ?? 'default', labels: parsed.data.labels ?? {}, spec: parsed.data.spec }
}

/** `view_<namespace>_<name>` with `-` (and anything else PostgreSQL would need quoted) as `_`. */
export function viewTableName(namespace: string | null, name: string): string {
  return `view_${namespace ?? 'default'}_${name}`.toLowerCase().replace(/[^a-z0-9_]/g, '_')
}
