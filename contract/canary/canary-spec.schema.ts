import { z } from 'zod'
import { resourceDocumentSchema } from '#contract/resource-document.ts'
import { parseDurationMs, parseSizeBytes } from './duration.ts'
import { parseSchedule, ScheduleError } from './schedule.ts'

/**
 * The Canary resource as users already write it (resource-specs §1). Schemas check shape and the
 * fields the engine relies on; everything else passes through untouched so an existing YAML is
 * stored as written. Runtime-only problems (a URL without a host after templating, an unknown
 * DNS query type) make a run invalid instead of rejecting the resource, as the reference does.
 */

const nonNegativeInt = z.number().int().nonnegative()
const durationLike = z.union([z.string(), z.number()]).superRefine((value, ctx) => {
  if (parseDurationMs(value) === null) ctx.addIssue({ code: z.ZodIssueCode.custom, message: `invalid duration "${value}"` })
})
const sizeLike = z.union([z.string(), z.number()]).superRefine((value, ctx) => {
  if (parseSizeBytes(value) === null) ctx.addIssue({ code: z.ZodIssueCode.custom, message: `invalid size "${value}"` })
})
const stringMap = z.record(z.string(), z.string())

const KeyRefSchema = z.object({ name: z.string().min(1), key: z.string().min(1) }).passthrough()

export const EnvVarSchema = z.union([
  z.string(),
  z
    .object({
      name: z.string().optional(),
      value: z.string().optional(),
      valueFrom: z
        .object({
          secretKeyRef: KeyRefSchema.optional(),
          configMapKeyRef: KeyRefSchema.optional(),
          helmRef: KeyRefSchema.optional(),
          serviceAccount: z.string().optional(),
        })
        .passthrough()
        .refine(
          (from) => [from.secretKeyRef, from.configMapKeyRef, from.helmRef, from.serviceAccount].filter(Boolean).length === 1,
          'valueFrom must set exactly one of secretKeyRef, configMapKeyRef, helmRef, serviceAccount',
        )
        .optional(),
    })
    .passthrough(),
])
export type EnvVar = z.infer<typeof EnvVarSchema>

export const TemplateObjectSchema = z
  .object({
    expr: z.string().optional(),
    template: z.string().optional(),
    javascript: z.string().optional(),
    jsonPath: z.string().optional(),
  })
  .passthrough()
  .refine(
    (value) => [value.expr, value.template, value.javascript, value.jsonPath].filter((v) => v !== undefined && v !== '').length <= 1,
    'set only one of expr, template, javascript, jsonPath',
  )
export type TemplateObject = z.infer<typeof TemplateObjectSchema>

export const RetriesSchema = z
  .object({
    delay: durationLike.optional(),
    maxRetries: nonNegativeInt.optional(),
    timeout: durationLike.optional(),
    interval: durationLike.optional(),
    disabled: z.boolean().optional(),
  })
  .passthrough()
  .superRefine((value, ctx) => {
    const intervalMs = value.interval === undefined ? undefined : parseDurationMs(value.interval)
    const timeoutMs = value.timeout === undefined ? 0 : parseDurationMs(value.timeout) ?? 0
    if (timeoutMs > 0 && intervalMs === 0) {
      ctx.addIssue({ code: z.ZodIssueCode.custom, path: ['interval'], message: 'interval 0 cannot be combined with timeout' })
    }
  })
export type Retries = z.infer<typeof RetriesSchema>

const MetricSchema = z
  .object({
    name: z.string().min(1),
    type: z.enum(['counter', 'gauge', 'histogram']).optional(),
    value: z.string().optional(),
    labels: z.array(z.object({ name: z.string().min(1), value: z.string().optional(), valueExpr: z.string().optional() }).passthrough()).optional(),
  })
  .passthrough()

const CommonCheckFields = {
  name: z.string({ required_error: 'is required' }).min(1, 'must not be empty'),
  description: z.string().optional(),
  namespace: z.string().optional(),
  icon: z.string().optional(),
  labels: stringMap.optional(),
  metrics: z.array(MetricSchema).optional(),
  markFailOnEmpty: z.boolean().optional(),
  dependsOn: z.array(z.string().min(1)).optional(),
  retries: RetriesSchema.optional(),
  transformDeleteStrategy: z.enum(['MarkHealthy', 'MarkUnhealthy', 'Ignore']).optional(),
  relationships: z.record(z.unknown()).optional(),
  test: TemplateObjectSchema.optional(),
  display: TemplateObjectSchema.optional(),
  transform: TemplateObjectSchema.optional(),
}
const connectionFields = {
  connection: z.string().optional(),
  username: EnvVarSchema.optional(),
  password: EnvVarSchema.optional(),
}

const check = <T extends z.ZodRawShape>(shape: T) => z.object({ ...CommonCheckFields, ...shape }).passthrough()

const TlsConfigSchema = z
  .object({
    insecureSkipVerify: z.boolean().optional(),
    handshakeTimeout: durationLike.optional(),
    ca: EnvVarSchema.optional(),
    cert: EnvVarSchema.optional(),
    key: EnvVarSchema.optional(),
    enable: z.boolean().optional(),
  })
  .passthrough()
  .refine((tls) => (tls.cert === undefined) === (tls.key === undefined), 'cert and key must be set together')

export const HttpCheckSchema = check({
  ...connectionFields,
  url: z.string().optional(),
  endpoint: z.string().optional(),
  method: z.string().min(1).optional(),
  body: z.string().optional(),
  templateBody: z.boolean().optional(),
  headers: z.array(EnvVarSchema).optional(),
  env: z.array(EnvVarSchema).optional(),
  responseCodes: z.array(z.number().int().min(100).max(599)).optional(),
  responseContent: z.string().optional(),
  thresholdMillis: nonNegativeInt.optional(),
  maxSSLExpiry: nonNegativeInt.optional(),
  maxRedirects: nonNegativeInt.optional(),
  tlsConfig: TlsConfigSchema.optional(),
})
export const TcpCheckSchema = check({ endpoint: z.string({ required_error: 'is required' }).min(1), thresholdMillis: nonNegativeInt.optional() })
export const DnsCheckSchema = check({
  query: z.string({ required_error: 'is required' }).min(1),
  querytype: z.string().optional(),
  server: z.string().optional(),
  port: z.number().int().min(1).max(65_535).optional(),
  minrecords: nonNegativeInt.optional(),
  exactreply: z.array(z.string()).optional(),
  timeout: nonNegativeInt.optional(),
  thresholdMillis: nonNegativeInt.optional(),
})
export const IcmpCheckSchema = check({
  endpoint: z.string({ required_error: 'is required' }).min(1),
  packetCount: z.number().int().positive().optional(),
  thresholdMillis: nonNegativeInt.optional(),
  packetLossThreshold: z.number().min(0).max(100).optional(),
})
export const ExecCheckSchema = check({
  script: z.string({ required_error: 'is required' }).min(1, 'must not be empty'),
  env: z.array(EnvVarSchema).optional(),
  timeout: durationLike.optional(),
})
const FolderFilterSchema = z
  .object({
    minAge: durationLike.optional(),
    maxAge: durationLike.optional(),
    minSize: sizeLike.optional(),
    maxSize: sizeLike.optional(),
    regex: z.string().optional(),
    since: z.string().optional(),
  })
  .passthrough()
export const FolderCheckSchema = check({
  path: z.string({ required_error: 'is required' }).min(1),
  recursive: z.boolean().optional(),
  filter: FolderFilterSchema.optional(),
  minCount: nonNegativeInt.optional(),
  maxCount: nonNegativeInt.optional(),
  minAge: durationLike.optional(),
  maxAge: durationLike.optional(),
  minSize: sizeLike.optional(),
  maxSize: sizeLike.optional(),
  availableSize: sizeLike.optional(),
  totalSize: sizeLike.optional(),
})
export const RedisCheckSchema = check({
  ...connectionFields,
  url: z.string().optional(),
  addr: z.string().optional(),
  db: nonNegativeInt.optional(),
  tlsConfig: TlsConfigSchema.optional(),
})
export const MongoCheckSchema = check({ ...connectionFields, url: z.string().optional() })
export const ElasticsearchCheckSchema = check({
  ...connectionFields,
  url: z.string().optional(),
  index: z.string().optional(),
  query: z.string().optional(),
  results: nonNegativeInt.optional(),
})
export const AlertmanagerCheckSchema = check({
  ...connectionFields,
  url: z.string().optional(),
  alerts: z.array(z.string()).optional(),
  filters: stringMap.optional(),
  ignore: z.array(z.string()).optional(),
  exclude_filters: stringMap.optional(),
})
export const PrometheusCheckSchema = check({
  ...connectionFields,
  url: z.string().optional(),
  query: z.string({ required_error: 'is required' }).min(1),
  bearer: EnvVarSchema.optional(),
  headers: z.array(EnvVarSchema).optional(),
  host: z.string().optional(),
})
export const SqlCheckSchema = check({
  ...connectionFields,
  url: z.string().optional(),
  query: z.string().optional(),
  results: nonNegativeInt.optional(),
  timeout: nonNegativeInt.optional(),
})

/** Check list keys the engine runs, with their schema. */
export const CHECK_SCHEMAS = {
  http: HttpCheckSchema,
  tcp: TcpCheckSchema,
  dns: DnsCheckSchema,
  icmp: IcmpCheckSchema,
  exec: ExecCheckSchema,
  folder: FolderCheckSchema,
  redis: RedisCheckSchema,
  mongodb: MongoCheckSchema,
  elasticsearch: ElasticsearchCheckSchema,
  opensearch: ElasticsearchCheckSchema,
  alertmanager: AlertmanagerCheckSchema,
  prometheus: PrometheusCheckSchema,
  postgres: SqlCheckSchema,
  mysql: SqlCheckSchema,
  mssql: SqlCheckSchema,
} as const
export type RunnableCheckType = keyof typeof CHECK_SCHEMAS

/** Types the reference knows but this engine does not run: kept, stored, and marked invalid at run time (§1.7.13). */
export const KNOWN_UNSUPPORTED_TYPES = [
  'ldap', 's3', 'restic', 'jmeter', 'junit', 'helm', 'namespace', 'pod', 'docker', 'dockerPush', 'containerd',
  'containerdPush', 'cloudwatch', 'pubsub', 'github', 'gitProtocol', 'kubernetes', 'kubernetesResource', 'awsConfig',
  'awsConfigRule', 'databaseBackup', 'catalog', 'dynatrace', 'azureDevops', 'webhook',
] as const

const SPEC_SCALAR_KEYS = new Set([
  'schedule', 'interval', 'replicas', 'retries', 'icon', 'severity', 'owner', 'resultMode', 'agentSelector', 'env',
])

/**
 * Spec keys that are neither known fields nor check lists, and duplicate check names. Also run on
 * specs that failed other checks, since zod skips object refinements once a field is invalid.
 */
export function specKeyIssues(spec: unknown): { path: (string | number)[]; message: string }[] {
  if (!spec || typeof spec !== 'object' || Array.isArray(spec)) return []
  const issues: { path: (string | number)[]; message: string }[] = []
  for (const [key, value] of Object.entries(spec)) {
    if (SPEC_SCALAR_KEYS.has(key) || key in CHECK_SCHEMAS || key === 'webhook') continue
    if ((KNOWN_UNSUPPORTED_TYPES as readonly string[]).includes(key)) {
      if (!Array.isArray(value)) issues.push({ path: [key], message: 'must be a list of checks' })
      continue
    }
    issues.push({ path: [key], message: `unknown field "${key}"` })
  }
  // (canary, type, name) is the check's identity in the database, so a repeat would overwrite.
  for (const key of Object.keys(CHECK_SCHEMAS)) {
    const list = (spec as Record<string, unknown>)[key]
    if (!Array.isArray(list)) continue
    const seen = new Set<string>()
    list.forEach((entry: { name?: unknown }, index) => {
      if (typeof entry?.name !== 'string') return
      if (seen.has(entry.name)) issues.push({ path: [key, index, 'name'], message: `duplicate ${key} check name "${entry.name}"` })
      seen.add(entry.name)
    })
  }
  return issues
}

const scheduleString = z.string().superRefine((value, ctx) => {
  try {
    parseSchedule(value)
  } catch (error) {
    ctx.addIssue({ code: z.ZodIssueCode.custom, message: error instanceof ScheduleError ? error.message : String(error) })
  }
})

export const CanarySpecSchema = z
  .object({
    schedule: scheduleString.optional(),
    interval: z.union([nonNegativeInt, z.string().regex(/^\d+$/, 'must be a whole number of seconds')]).optional(),
    replicas: nonNegativeInt.optional(),
    retries: RetriesSchema.optional(),
    icon: z.string().optional(),
    severity: z.string().optional(),
    owner: z.string().optional(),
    resultMode: z.string().optional(),
    agentSelector: z.array(z.string()).optional(),
    env: z.record(z.unknown()).optional(),
    ...Object.fromEntries(Object.entries(CHECK_SCHEMAS).map(([key, schema]) => [key, z.array(schema).optional()])),
    webhook: z.record(z.unknown()).optional(),
  })
  .passthrough()
  .superRefine((spec, ctx) => {
    for (const issue of specKeyIssues(spec)) ctx.addIssue({ code: z.ZodIssueCode.custom, ...issue })
  })
export type CanarySpec = z.infer<typeof CanarySpecSchema> & Record<string, unknown>

const DNS_LABEL = /^[a-z0-9]([-a-z0-9.]*[a-z0-9])?$/

export const CanaryMetadataSchema = z
  .object({
    name: z.string({ required_error: 'is required' }).min(1, 'must not be empty').max(253).regex(DNS_LABEL, 'must be lowercase letters, digits, "-" or "."'),
    namespace: z.string().min(1).max(63).regex(DNS_LABEL, 'must be lowercase letters, digits, "-" or "."').optional(),
    labels: stringMap.optional(),
    annotations: stringMap.optional(),
    uid: z.string().optional(),
  })
  .passthrough()

export const CanaryDocumentSchema = resourceDocumentSchema('canaries.flanksource.com/v1', 'Canary', CanaryMetadataSchema, CanarySpecSchema)
export type CanaryDocument = z.infer<typeof CanaryDocumentSchema>
