import { z } from 'zod'
import { parseYamlDocuments, YamlInputError, type YamlDocument } from '#contract/yaml-input.ts'
import { formatPath, resourceDocumentSchema, ResourceValidationError, zodIssues, type ValidationIssue } from '#contract/resource-document.ts'
import { parseDurationMs } from '#contract/canary/duration.ts'
import { parseSchedule, ScheduleError } from '#contract/canary/schedule.ts'

/**
 * The ScrapeConfig resource (`configs.flanksource.com/v1`, resource-specs §3.7) as users already
 * write it. The common fields every scraper entry shares and the fields this console runs
 * (`file`, `http`, `sql`, `exec`, `kubernetesFile`) are checked; the cloud scrapers only need to
 * be lists of objects — they are stored as written and run by their own platform. Unknown
 * fields inside an entry pass through so a pasted YAML is kept whole.
 */

/** Scraper lists this console runs itself. */
export const RUNNABLE_SCRAPER_KINDS = ['file', 'http', 'sql', 'postgres', 'exec', 'kubernetesFile'] as const
/** Scraper lists accepted and stored, run by config-db or the agent. */
export const PLATFORM_SCRAPER_KINDS = [
  'kubernetes', 'aws', 'azure', 'gcp', 'azureDevops', 'github', 'githubActions', 'slack', 'trivy',
  'terraform', 'clickhouse', 'logs', 'pubsub', 'playwright', 'openssf', 'gcpAudit',
] as const
export const SCRAPER_KINDS: readonly string[] = [...RUNNABLE_SCRAPER_KINDS, ...PLATFORM_SCRAPER_KINDS]

/** At most this many tags per scraper entry (§3.7). */
export const MAX_SCRAPER_TAGS = 5

const durationText = z.union([z.string(), z.number()]).superRefine((value, ctx) => {
  if (parseDurationMs(value) === null) ctx.addIssue({ code: z.ZodIssueCode.custom, message: `invalid duration "${value}"` })
})

const scheduleText = z.string().superRefine((value, ctx) => {
  try {
    parseSchedule(value)
  } catch (error) {
    ctx.addIssue({ code: z.ZodIssueCode.custom, message: error instanceof ScheduleError ? error.message : String(error) })
  }
})

/** A field written either as a static value or as a JSONPath (`$.metadata.name`). */
const fieldText = z.string()

const TagSchema = z
  .object({
    name: z.string({ required_error: 'is required' }).min(1, 'must not be empty'),
    label: z.string().optional(),
    jsonpath: z.string().optional(),
    value: z.string().optional(),
  })
  .passthrough()
  .refine((tag) => tag.label !== undefined || tag.jsonpath !== undefined || tag.value !== undefined, 'set one of label, jsonpath, value')

const CelText = z.string().min(1, 'must not be empty')

const MaskSchema = z
  .object({
    selector: z.string().optional(),
    jsonpath: z.string({ required_error: 'is required' }).min(1),
    value: z.string({ required_error: 'is required' }),
  })
  .passthrough()

const ExcludeSchema = z
  .object({ types: z.array(z.string()).optional(), jsonpath: z.string({ required_error: 'is required' }).min(1) })
  .passthrough()

/** A relationship lookup field: static `value`, CEL `expr`, or the item's `label`. */
const LookupSchema = z
  .object({ value: z.string().optional(), expr: z.string().optional(), label: z.string().optional() })
  .passthrough()

const RelationshipSchema = z
  .object({
    filter: z.string().optional(),
    expr: z.string().optional(),
    id: LookupSchema.optional(),
    external_id: LookupSchema.optional(),
    type: LookupSchema.optional(),
    name: LookupSchema.optional(),
    namespace: LookupSchema.optional(),
    labels: z.record(z.string(), z.union([z.string(), LookupSchema])).optional(),
    parent: z.boolean().optional(),
    relation: z.string().optional(),
  })
  .passthrough()

const ChangeMappingSchema = z
  .object({
    filter: z.string().optional(),
    type: z.string().optional(),
    severity: z.string().optional(),
    action: z.string().optional(),
    summary: z.string().optional(),
  })
  .passthrough()

const LocationAliasSchema = z
  .object({
    type: z.union([z.string(), z.array(z.string())]).optional(),
    values: z.array(z.string()).min(1, 'must not be empty'),
    withParent: z.union([z.string(), z.array(z.string())]).optional(),
  })
  .passthrough()

export const TransformSchema = z
  .object({
    expr: CelText.optional(),
    gotemplate: z.string().optional(),
    javascript: z.string().optional(),
    jsonpath: z.string().optional(),
    exclude: z.array(ExcludeSchema).optional(),
    mask: z.array(MaskSchema).optional(),
    relationship: z.array(RelationshipSchema).optional(),
    changes: z
      .object({ mapping: z.array(ChangeMappingSchema).optional(), exclude: z.array(CelText).optional() })
      .passthrough()
      .optional(),
    locations: z.array(LocationAliasSchema).optional(),
    aliases: z.array(LocationAliasSchema).optional(),
  })
  .passthrough()
  .refine(
    (value) => [value.expr, value.gotemplate, value.javascript, value.jsonpath].filter((v) => v !== undefined && v !== '').length <= 1,
    'set only one of expr, gotemplate, javascript, jsonpath',
  )

/** Fields every scraper entry accepts (§3.7). */
const CommonFields = {
  id: fieldText.optional(),
  name: fieldText.optional(),
  description: fieldText.optional(),
  type: fieldText.optional(),
  class: fieldText.optional(),
  status: fieldText.optional(),
  health: fieldText.optional(),
  items: z.string().optional(),
  format: z.string().optional(),
  timestampFormat: z.string().optional(),
  createFields: z.array(z.string()).optional(),
  deleteFields: z.array(z.string()).optional(),
  labels: z.record(z.string(), z.string()).optional(),
  tags: z.array(TagSchema).max(MAX_SCRAPER_TAGS, `at most ${MAX_SCRAPER_TAGS} tags`).optional(),
  properties: z.array(z.record(z.unknown())).optional(),
  transform: TransformSchema.optional(),
  icon: z.string().optional(),
}

const EntrySchema = z.object(CommonFields).passthrough()

const FileScraperSchema = z
  .object({
    ...CommonFields,
    paths: z.array(z.string().min(1)).optional(),
    url: z.string().optional(),
    connection: z.string().optional(),
    ignore: z.array(z.string()).optional(),
  })
  .passthrough()
  .refine((entry) => (entry.paths?.length ?? 0) > 0 || Boolean(entry.url), { message: 'set paths or url', path: ['paths'] })

const ExecScraperSchema = z
  .object({
    ...CommonFields,
    script: z.string({ required_error: 'is required' }).min(1, 'must not be empty'),
    env: z.array(z.unknown()).optional(),
  })
  .passthrough()

const HttpScraperSchema = z
  .object({
    ...CommonFields,
    url: z.string().optional(),
    connection: z.string().optional(),
    method: z.string().optional(),
    body: z.string().optional(),
    headers: z.array(z.unknown()).optional(),
    pagination: z
      .object({
        nextPageExpr: z.string({ required_error: 'is required' }).min(1, 'must not be empty'),
        reduceExpr: z.string().optional(),
        // A flag in the platform (each page its own config), not a page size.
        perPage: z.boolean().optional(),
        maxPages: z.number().int().nonnegative().optional(),
        delay: durationText.optional(),
      })
      .passthrough()
      .optional(),
  })
  .passthrough()
  .refine((entry) => Boolean(entry.url) || Boolean(entry.connection), { message: 'set url or connection', path: ['url'] })

const SqlScraperSchema = z
  .object({
    ...CommonFields,
    connection: z.string({ required_error: 'is required' }).min(1, 'must not be empty'),
    driver: z.string().optional(),
    query: z.string({ required_error: 'is required' }).min(1, 'must not be empty'),
    auth: z.record(z.unknown()).optional(),
  })
  .passthrough()

const KubernetesFileScraperSchema = z
  .object({
    ...CommonFields,
    paths: z.array(z.string().min(1)).optional(),
    ignore: z.array(z.string()).optional(),
    selector: z.unknown().optional(),
  })
  .passthrough()
  .refine((entry) => (entry.paths?.length ?? 0) > 0, { message: 'is required (the files holding the Kubernetes objects)', path: ['paths'] })

const ENTRY_SCHEMAS: Record<string, z.ZodTypeAny> = {
  file: FileScraperSchema,
  exec: ExecScraperSchema,
  http: HttpScraperSchema,
  sql: SqlScraperSchema,
  postgres: SqlScraperSchema,
  kubernetesFile: KubernetesFileScraperSchema,
}

const RetentionSchema = z
  .object({
    changes: z
      .array(z.object({ name: z.string().min(1), age: durationText.optional(), count: z.number().int().nonnegative().optional() }).passthrough())
      .optional(),
    types: z
      .array(
        z
          .object({ name: z.string().min(1), createdAge: durationText.optional(), updatedAge: durationText.optional(), deletedAge: durationText.optional() })
          .passthrough(),
      )
      .optional(),
    staleItemAge: durationText.optional(),
    staleAnalysisAge: z.union([z.literal('keep'), durationText]).optional(),
  })
  .passthrough()

const SPEC_SCALARS = new Set(['schedule', 'timeout', 'logLevel', 'full', 'crdSync', 'system', 'retention'])

export const ScrapeConfigSpecSchema = z
  .object({
    schedule: scheduleText.optional(),
    timeout: durationText.optional(),
    logLevel: z.string().optional(),
    full: z.boolean().optional(),
    crdSync: z.boolean().optional(),
    system: z.boolean().optional(),
    retention: RetentionSchema.optional(),
  })
  .passthrough()
  .superRefine((spec, ctx) => {
    for (const [key, value] of Object.entries(spec)) {
      if (SPEC_SCALARS.has(key)) continue
      if (!SCRAPER_KINDS.includes(key)) {
        ctx.addIssue({ code: z.ZodIssueCode.custom, path: [key], message: `unknown scraper "${key}"` })
        continue
      }
      if (!Array.isArray(value)) {
        ctx.addIssue({ code: z.ZodIssueCode.custom, path: [key], message: 'must be a list of scrapers' })
        continue
      }
      const schema = ENTRY_SCHEMAS[key] ?? EntrySchema
      value.forEach((entry, index) => {
        const parsed = schema.safeParse(entry)
        if (parsed.success) return
        for (const issue of parsed.error.issues) ctx.addIssue({ ...issue, path: [key, index, ...issue.path] })
      })
    }
  })
export type ScrapeConfigSpec = z.infer<typeof ScrapeConfigSpecSchema> & Record<string, unknown>

const NAME = /^[a-z0-9]([-a-z0-9.]*[a-z0-9])?$/

const MetadataSchema = z
  .object({
    name: z.string({ required_error: 'is required' }).min(1, 'must not be empty').max(253).regex(NAME, 'must be lowercase letters, digits, "-" or "."'),
    namespace: z.string().min(1).max(63).regex(NAME, 'must be lowercase letters, digits, "-" or "."').optional(),
    labels: z.record(z.string(), z.string()).optional(),
    annotations: z.record(z.string(), z.string()).optional(),
    uid: z.string().optional(),
  })
  .passthrough()

const DocumentSchema = resourceDocumentSchema('configs.flanksource.com/v1', 'ScrapeConfig', MetadataSchema, ScrapeConfigSpecSchema)

/** A scrape config ready to store as a `config_scrapers` row. */
export type ScrapeConfigInput = { name: string; namespace: string; description?: string; spec: ScrapeConfigSpec }

export class ScrapeConfigValidationError extends ResourceValidationError {}


/** Validates a spec alone (the data API's PATCH of `spec`); issues are relative to `spec`. */
export function scrapeConfigSpecIssues(spec: unknown): ValidationIssue[] {
  const parsed = ScrapeConfigSpecSchema.safeParse(spec)
  return parsed.success ? [] : zodIssues(parsed.error, ['spec'])
}

/**
 * Accepts the Kubernetes document, or the row shape `{name, namespace, spec}` the data API and
 * the resource editor send.
 */
export function parseScrapeConfigObject(value: unknown, prefix: (string | number)[] = []): ScrapeConfigInput {
  if (typeof value !== 'object' || value === null || Array.isArray(value)) {
    throw new ScrapeConfigValidationError([{ path: formatPath(prefix), message: 'must be a ScrapeConfig object' }])
  }
  const record = value as Record<string, unknown>
  if ('apiVersion' in record || 'kind' in record || 'metadata' in record) {
    const parsed = DocumentSchema.safeParse(record)
    if (!parsed.success) throw new ScrapeConfigValidationError(zodIssues(parsed.error, prefix))
    const { metadata, spec } = parsed.data
    const description = metadata.annotations?.description
    return { name: metadata.name, namespace: metadata.namespace ?? 'default', ...(description ? { description } : {}), spec: spec as ScrapeConfigSpec }
  }
  const RowSchema = z
    .object({
      name: MetadataSchema.shape.name,
      namespace: MetadataSchema.shape.namespace.nullish(),
      description: z.string().nullish(),
      spec: ScrapeConfigSpecSchema,
    })
    .passthrough()
  const parsed = RowSchema.safeParse(record)
  if (!parsed.success) throw new ScrapeConfigValidationError(zodIssues(parsed.error, prefix))
  return {
    name: parsed.data.name,
    namespace: parsed.data.namespace ?? 'default',
    ...(parsed.data.description ? { description: parsed.data.description } : {}),
    spec: parsed.data.spec as ScrapeConfigSpec,
  }
}

/** The `kind` of a parsed YAML document, for tools that take several resource kinds at once. */
export function documentKind(value: unknown): string | undefined {
  return value && typeof value === 'object' && !Array.isArray(value) && typeof (value as { kind?: unknown }).kind === 'string'
    ? (value as { kind: string }).kind
    : undefined
}

/** One or more YAML documents (a `kind: List` unwrapped) as plain values; empty ones skipped. */
export function resourceDocuments(text: string): unknown[] {
  let docs: YamlDocument[]
  try {
    docs = parseYamlDocuments(text)
  } catch (error) {
    if (!(error instanceof YamlInputError)) throw error
    throw new ScrapeConfigValidationError(error.problems.map((problem) => ({ path: error.documents > 1 ? `[${problem.document}]` : '', message: problem.message })))
  }
  const flat: unknown[] = []
  for (const { value } of docs) {
    if (value === null || value === undefined) continue
    const list = value as { kind?: unknown; items?: unknown }
    if (typeof list === 'object' && list.kind === 'List' && Array.isArray(list.items)) flat.push(...list.items)
    else if (Array.isArray(value)) flat.push(...value)
    else flat.push(value)
  }
  return flat
}

/** Back to the Kubernetes shape users keep in git. */
export function toScrapeConfigDocument(row: { id?: string; name: string; namespace: string | null; description?: string | null; spec: unknown }) {
  const metadata: Record<string, unknown> = { name: row.name, namespace: row.namespace ?? 'default' }
  if (row.description) metadata.annotations = { description: row.description }
  if (row.id) metadata.uid = row.id
  return { apiVersion: 'configs.flanksource.com/v1', kind: 'ScrapeConfig', metadata, spec: row.spec }
}
