import { z } from 'zod'
import { formatPath, resourceDocumentSchema, ResourceValidationError, zodIssues, type ValidationIssue } from '#contract/resource-document.ts'
import { CanaryMetadataSchema, CanarySpecSchema, TemplateObjectSchema } from '#contract/canary/canary-spec.schema.ts'
import { parseSchedule, ScheduleError } from '#contract/canary/schedule.ts'

/**
 * The Topology resource (`canaries.flanksource.com/v1`, kind `Topology`, resource-specs §3.6) as
 * users already write it. Every field the runner reads is checked (types, the canary specs of
 * lookups and inline checks, expressions present, schedules parse); fields this console does not
 * read pass through, so a pasted YAML is stored whole.
 */

const stringMap = z.record(z.string(), z.string({ invalid_type_error: 'must be a string' }))

const scheduleText = z.string().superRefine((value, ctx) => {
  try {
    parseSchedule(value)
  } catch (error) {
    ctx.addIssue({ code: z.ZodIssueCode.custom, message: error instanceof ScheduleError ? error.message : String(error) })
  }
})

/** Resource selector (§0.4): the fields the runner matches on; others pass through. */
export const TopologySelectorSchema = z
  .object({
    id: z.string().optional(),
    name: z.string().optional(),
    namespace: z.string().optional(),
    agent: z.string().optional(),
    search: z.string().optional(),
    labelSelector: z.string().optional(),
    tagSelector: z.string().optional(),
    fieldSelector: z.string().optional(),
    types: z.array(z.string()).optional(),
    statuses: z.array(z.string()).optional(),
    health: z.string().optional(),
    type: z.string().optional(),
    labels: stringMap.optional(),
    tags: stringMap.optional(),
  })
  .passthrough()

const LinkSchema = z
  .object({ type: z.string().optional(), url: z.string().optional(), tooltip: z.string().optional(), icon: z.string().optional(), text: z.string().optional(), label: z.string().optional() })
  .passthrough()

/** A canary spec inside a topology (lookups, inline checks): checked like a Canary's spec. */
const EmbeddedCanarySpec = CanarySpecSchema

const ConfigLookupSchema = z
  .object({
    id: z.string().optional(),
    config: TopologySelectorSchema.optional(),
    field: z.string().optional(),
    display: TemplateObjectSchema.optional(),
  })
  .passthrough()
  .refine((lookup) => lookup.id !== undefined || lookup.config !== undefined, 'set id or config')

/** Numbers may be written quoted, as in YAML users already keep; stored as written. */
const numberish = z.union([z.number(), z.string().regex(/^-?\d+(\.\d+)?$/, 'must be a number')])

export const TopologyPropertySchema = z
  .object({
    name: z.string({ required_error: 'is required', invalid_type_error: 'must be a string' }).min(1, 'must not be empty'),
    label: z.string().optional(),
    tooltip: z.string().optional(),
    icon: z.string().optional(),
    text: z.string().optional(),
    order: z.number().int('must be a whole number').optional(),
    headline: z.boolean().optional(),
    type: z.string().optional(),
    color: z.string().optional(),
    hidden: z.boolean().optional(),
    unit: z.string().optional(),
    value: numberish.optional(),
    min: numberish.optional(),
    max: numberish.optional(),
    status: z.string().optional(),
    lastTransition: z.string().optional(),
    links: z.array(LinkSchema).optional(),
    lookup: EmbeddedCanarySpec.optional(),
    configLookup: ConfigLookupSchema.optional(),
    summary: z.record(z.unknown()).optional(),
  })
  .passthrough()
export type TopologyProperty = z.infer<typeof TopologyPropertySchema>

const ComponentCheckSchema = z
  .object({ selector: TopologySelectorSchema.optional(), inline: EmbeddedCanarySpec.optional() })
  .passthrough()
  .refine((entry) => (entry.selector === undefined) !== (entry.inline === undefined), 'set one of selector, inline')

const RelationshipSchema = z.object({ type: z.string().optional(), ref: z.string({ required_error: 'is required' }) }).passthrough()

const LogSelectorSchema = z.object({ name: z.string({ required_error: 'is required' }).min(1, 'must not be empty') }).passthrough()

const HEALTHS = ['healthy', 'unhealthy', 'warning', 'unknown'] as const
const STATUSES = ['healthy', 'unhealthy', 'warning', 'error', 'info', 'unknown'] as const

type ComponentSpecShape = {
  name?: string
  namespace?: string
  type?: string
  icon?: string
  tooltip?: string
  text?: string
  owner?: string
  description?: string
  externalID?: string
  id?: z.infer<typeof TemplateObjectSchema>
  order?: number
  labels?: Record<string, string>
  hidden?: boolean
  lifecycle?: string
  relationships?: z.infer<typeof RelationshipSchema>[]
  parentLookup?: Record<string, unknown>
  configID?: string
  properties?: TopologyProperty[]
  components?: ComponentSpecShape[]
  selectors?: z.infer<typeof TopologySelectorSchema>[]
  checks?: z.infer<typeof ComponentCheckSchema>[]
  configs?: z.infer<typeof TopologySelectorSchema>[]
  logs?: z.infer<typeof LogSelectorSchema>[]
  lookup?: z.infer<typeof EmbeddedCanarySpec>
  forEach?: ForEachShape
  summary?: Record<string, unknown>
  statusExpr?: string
  healthExpr?: string
  health?: (typeof HEALTHS)[number]
  status?: (typeof STATUSES)[number]
  statusReason?: string
  [key: string]: unknown
}

type ForEachShape = {
  components?: ComponentSpecShape[]
  properties?: TopologyProperty[]
  configs?: z.infer<typeof TopologySelectorSchema>[]
  selectors?: z.infer<typeof TopologySelectorSchema>[]
  relationships?: z.infer<typeof RelationshipSchema>[]
  checks?: z.infer<typeof ComponentCheckSchema>[]
  [key: string]: unknown
}

const expression = z.string().min(1, 'must not be empty')

// zod calls a lazy schema's getter on every parse: built once here, or a 5,000-component spec
// rebuilds the component schema 5,000 times (seconds instead of ~0.1 s).
let componentSchema: z.ZodType<ComponentSpecShape, z.ZodTypeDef, unknown> | undefined
export const TopologyComponentSchema: z.ZodType<ComponentSpecShape, z.ZodTypeDef, unknown> = z.lazy(() =>
  componentSchema ??= z
    .object({
      name: z.string({ invalid_type_error: 'must be a string' }).min(1, 'must not be empty').optional(),
      namespace: z.string().optional(),
      type: z.string().optional(),
      icon: z.string().optional(),
      tooltip: z.string().optional(),
      text: z.string().optional(),
      owner: z.string().optional(),
      description: z.string().optional(),
      externalID: z.string().optional(),
      id: TemplateObjectSchema.optional(),
      order: z.number().int('must be a whole number').optional(),
      labels: stringMap.optional(),
      hidden: z.boolean().optional(),
      lifecycle: z.string().optional(),
      relationships: z.array(RelationshipSchema).optional(),
      parentLookup: z.object({ name: z.string().optional(), namespace: z.string().optional(), type: z.string().optional(), externalID: z.string().optional() }).passthrough().optional(),
      configID: z.string().optional(),
      properties: z.array(TopologyPropertySchema).optional(),
      components: z.array(TopologyComponentSchema).optional(),
      selectors: z.array(TopologySelectorSchema).optional(),
      checks: z.array(ComponentCheckSchema).optional(),
      configs: z.array(TopologySelectorSchema).optional(),
      logs: z.array(LogSelectorSchema).optional(),
      lookup: EmbeddedCanarySpec.optional(),
      forEach: ForEachSchema.optional(),
      summary: z.record(z.unknown()).optional(),
      statusExpr: expression.optional(),
      healthExpr: expression.optional(),
      health: z.enum(HEALTHS, { errorMap: () => ({ message: `must be one of ${HEALTHS.join(', ')}` }) }).optional(),
      status: z.enum(STATUSES, { errorMap: () => ({ message: `must be one of ${STATUSES.join(', ')}` }) }).optional(),
      statusReason: z.string().optional(),
    })
    .passthrough()
    // A component that looks others up is replaced by what its lookup yields, so it may go unnamed.
    .superRefine((component, ctx) => {
      if (component.name === undefined && component.lookup === undefined) ctx.addIssue({ code: z.ZodIssueCode.custom, path: ['name'], message: 'is required' })
    }),
)

let forEachSchema: z.ZodType<ForEachShape, z.ZodTypeDef, unknown> | undefined
const ForEachSchema: z.ZodType<ForEachShape, z.ZodTypeDef, unknown> = z.lazy(() =>
  forEachSchema ??= z
    .object({
      components: z.array(TopologyComponentSchema).optional(),
      properties: z.array(TopologyPropertySchema).optional(),
      configs: z.array(TopologySelectorSchema).optional(),
      selectors: z.array(TopologySelectorSchema).optional(),
      relationships: z.array(RelationshipSchema).optional(),
      checks: z.array(ComponentCheckSchema).optional(),
    })
    .passthrough(),
)

export const TopologySpecSchema = z
  .object({
    type: z.string().optional(),
    icon: z.string().optional(),
    label: z.string().optional(),
    text: z.string().optional(),
    tooltip: z.string().optional(),
    owner: z.string().optional(),
    id: TemplateObjectSchema.optional(),
    schedule: scheduleText.optional(),
    components: z.array(TopologyComponentSchema).optional(),
    properties: z.array(TopologyPropertySchema).optional(),
    configs: z.array(TopologySelectorSchema).optional(),
    groupBy: z.object({ tag: z.string().min(1, 'must not be empty').optional(), selector: TopologySelectorSchema.optional() }).passthrough().optional(),
    healthExpr: expression.optional(),
    statusExpr: expression.optional(),
    push: z.record(z.unknown()).optional(),
  })
  .passthrough()
export type TopologySpec = z.infer<typeof TopologySpecSchema>
export type TopologyComponentSpec = ComponentSpecShape
export type TopologyForEach = ForEachShape

const MetadataSchema = CanaryMetadataSchema

const DocumentSchema = resourceDocumentSchema('canaries.flanksource.com/v1', 'Topology', MetadataSchema, TopologySpecSchema)

/** A topology ready to store as a `topologies` row. */
export type TopologyInput = { name: string; namespace: string; labels: Record<string, string>; spec: TopologySpec }

export class TopologyValidationError extends ResourceValidationError {}


/** Validates a spec alone (the data API's PATCH of `spec`); issues are relative to `spec`. */
export function topologySpecIssues(spec: unknown): ValidationIssue[] {
  const parsed = TopologySpecSchema.safeParse(spec)
  return parsed.success ? [] : zodIssues(parsed.error, ['spec'])
}

/** The spec as stored, parsed for the runner (which only sees specs validated on write). */
export function parseTopologySpec(spec: unknown): TopologySpec {
  const parsed = TopologySpecSchema.safeParse(spec ?? {})
  if (!parsed.success) throw new TopologyValidationError(zodIssues(parsed.error, ['spec']))
  return parsed.data
}

/**
 * Accepts the Kubernetes document, or the row shape `{name, namespace, labels, spec}` the data
 * API, the topology form and the resource editor send.
 */
export function parseTopologyObject(value: unknown, prefix: (string | number)[] = []): TopologyInput {
  if (typeof value !== 'object' || value === null || Array.isArray(value)) {
    throw new TopologyValidationError([{ path: formatPath(prefix), message: 'must be a Topology object' }])
  }
  const record = value as Record<string, unknown>
  if ('apiVersion' in record || 'kind' in record || 'metadata' in record) {
    const parsed = DocumentSchema.safeParse(record)
    if (!parsed.success) throw new TopologyValidationError(zodIssues(parsed.error, prefix))
    const { metadata, spec } = parsed.data
    return { name: metadata.name, namespace: metadata.namespace ?? 'default', labels: metadata.labels ?? {}, spec }
  }
  const RowSchema = z
    .object({
      name: MetadataSchema.shape.name,
      namespace: MetadataSchema.shape.namespace.nullish(),
      labels: stringMap.nullish(),
      spec: TopologySpecSchema,
    })
    .passthrough()
  const parsed = RowSchema.safeParse(record)
  if (!parsed.success) throw new TopologyValidationError(zodIssues(parsed.error, prefix))
  return { name: parsed.data.name, namespace: parsed.data.namespace ?? 'default', labels: parsed.data.labels ?? {}, spec: parsed.data.spec }
}

/** Back to the Kubernetes shape users keep in git. */
export function toTopologyDocument(row: { id?: string; name: string; namespace: string | null; labels?: unknown; spec: unknown }) {
  const metadata: Record<string, unknown> = { name: row.name, namespace: row.namespace ?? 'default' }
  if (row.labels && typeof row.labels === 'object' && Object.keys(row.labels).length > 0) metadata.labels = row.labels
  if (row.id) metadata.uid = row.id
  return { apiVersion: 'canaries.flanksource.com/v1', kind: 'Topology', metadata, spec: row.spec }
}
