import { z } from 'zod'
import { formatPath, resourceDocumentSchema, ResourceValidationError, zodIssues, type ValidationIssue } from '#contract/resource-document.ts'
import { CanaryMetadataSchema } from '#contract/canary/canary-spec.schema.ts'
import { parseDurationMs } from '#contract/canary/duration.ts'
import { parseSchedule, ScheduleError } from '#contract/canary/schedule.ts'
import { ACTION_TYPES, PARAMETER_TYPES, type ActionType } from './playbook-vocabulary.ts'

/**
 * The Playbook resource (`mission-control.flanksource.com/v1`, kind `Playbook`, resource-specs
 * §2) as users write it. Every field the runner, the triggers and the run form read is typed;
 * fields this console does not read pass through, so a pasted YAML is stored whole. The rules of
 * §2.1 (one primary action type, unique trimmed action names, consistent duration parameters,
 * valid cron, no approvers on a scheduled playbook) fail with the field path at fault.
 */

export const PLAYBOOK_API_VERSION = 'mission-control.flanksource.com/v1'

const text = z.string({ invalid_type_error: 'must be a string' })
const nonEmpty = text.min(1, 'must not be empty')
const required = z.string({ required_error: 'is required', invalid_type_error: 'must be a string' }).min(1, 'must not be empty')
const stringList = z.array(text, { invalid_type_error: 'must be a list' })
const stringMap = z.record(z.string(), text)
/** Numbers as YAML users keep them: quoted or not. */
const numberish = z.union([z.number(), z.string().regex(/^-?\d+(\.\d+)?$/, 'must be a number')], { errorMap: () => ({ message: 'must be a number' }) })
const optionalBoolean = z.boolean({ invalid_type_error: 'must be true or false' }).optional()

/** A duration of resource-specs §0.5 (`30s`, `1h30m`, `7d`); a leading `-` is refused by name. */
const duration = text.superRefine((value, ctx) => {
  if (value.trim().startsWith('-')) ctx.addIssue({ code: z.ZodIssueCode.custom, message: 'must not be negative' })
  else if (parseDurationMs(value) === null) ctx.addIssue({ code: z.ZodIssueCode.custom, message: `"${value}" is not a duration (e.g. 30s, 5m, 1h)` })
})

/** EnvVar of resource-specs §0.2: a static value or exactly one `valueFrom` source. */
const ValueFromSchema = z
  .object({
    secretKeyRef: z.object({ name: nonEmpty, key: nonEmpty }).passthrough().optional(),
    configMapKeyRef: z.object({ name: nonEmpty, key: nonEmpty }).passthrough().optional(),
    helmRef: z.object({ name: nonEmpty, key: nonEmpty }).passthrough().optional(),
    serviceAccount: nonEmpty.optional(),
  })
  .passthrough()
  .superRefine((source, ctx) => {
    const set = (['secretKeyRef', 'configMapKeyRef', 'helmRef', 'serviceAccount'] as const).filter((key) => source[key] !== undefined)
    if (set.length > 1) ctx.addIssue({ code: z.ZodIssueCode.custom, message: `set only one of ${set.join(', ')}` })
  })
const EnvVarValueSchema = z.object({ name: text.optional(), value: text.optional(), valueFrom: ValueFromSchema.optional() }).passthrough()
/** Secret-bearing fields take a plain string or an EnvVar. */
const secretValue = z.union([text, EnvVarValueSchema], { errorMap: () => ({ message: 'must be a string or {value | valueFrom}' }) })
const EnvVarSchema = EnvVarValueSchema.extend({ name: nonEmpty })

const SelectorSchema = z
  .object({
    id: text.optional(),
    name: text.optional(),
    namespace: text.optional(),
    search: text.optional(),
    agent: text.optional(),
    scope: text.optional(),
    types: stringList.optional(),
    statuses: stringList.optional(),
    health: text.optional(),
    labelSelector: text.optional(),
    fieldSelector: text.optional(),
    tagSelector: text.optional(),
    limit: numberish.optional(),
    includeDeleted: optionalBoolean,
    cache: text.optional(),
  })
  .passthrough()

// ---------------------------------------------------------------------------------------------
// Parameters (§2.2)

const ParameterSchema = z
  .object({
    name: required,
    label: text.optional(),
    description: text.optional(),
    icon: text.optional(),
    type: z.enum(PARAMETER_TYPES, { errorMap: () => ({ message: `must be one of ${PARAMETER_TYPES.join(', ')}` }) }).optional(),
    // A default is a Go template; YAML's bare numbers and booleans are its text.
    default: z.preprocess((value) => (typeof value === 'number' || typeof value === 'boolean' ? String(value) : value), text).optional(),
    required: optionalBoolean,
    dependsOn: stringList.optional(),
    properties: z.record(z.unknown()).optional(),
  })
  .passthrough()

const isTemplated = (value: string) => value.includes('{{') || value.includes('$(')

/** A duration parameter's min, max, default and options (§2.2): each a duration, none negative, all within min..max. */
function checkDurationParameter(parameter: z.infer<typeof ParameterSchema>, ctx: z.RefinementCtx, at: (string | number)[]): void {
  const properties = parameter.properties ?? {}
  const read = (value: unknown, path: (string | number)[]): number | null | undefined => {
    if (value === undefined || value === null || value === '') return undefined
    if (typeof value !== 'string' && typeof value !== 'number') {
      ctx.addIssue({ code: z.ZodIssueCode.custom, path, message: 'must be a duration' })
      return null
    }
    const textValue = String(value)
    if (textValue.trim().startsWith('-')) {
      ctx.addIssue({ code: z.ZodIssueCode.custom, path, message: 'must not be negative' })
      return null
    }
    const ms = parseDurationMs(value)
    if (ms === null) ctx.addIssue({ code: z.ZodIssueCode.custom, path, message: `"${textValue}" is not a duration (e.g. 30s, 5m, 1h)` })
    return ms
  }
  const min = read(properties.min, [...at, 'properties', 'min'])
  const max = read(properties.max, [...at, 'properties', 'max'])
  if (typeof min === 'number' && typeof max === 'number' && min > max) {
    ctx.addIssue({ code: z.ZodIssueCode.custom, path: [...at, 'properties', 'min'], message: `must not be more than max (${String(properties.max)})` })
  }
  const within = (value: number | null | undefined, path: (string | number)[], what: string) => {
    if (typeof value !== 'number') return
    if (typeof min === 'number' && value < min) ctx.addIssue({ code: z.ZodIssueCode.custom, path, message: `${what} is below min (${String(properties.min)})` })
    else if (typeof max === 'number' && value > max) ctx.addIssue({ code: z.ZodIssueCode.custom, path, message: `${what} is above max (${String(properties.max)})` })
  }
  // A templated default is only known at run time, where the run form checks it.
  if (parameter.default !== undefined && !isTemplated(parameter.default)) within(read(parameter.default, [...at, 'default']), [...at, 'default'], 'the default')
  if (properties.options !== undefined) {
    if (!Array.isArray(properties.options)) {
      ctx.addIssue({ code: z.ZodIssueCode.custom, path: [...at, 'properties', 'options'], message: 'must be a list of durations' })
      return
    }
    properties.options.forEach((option, index) => {
      const path = [...at, 'properties', 'options', index]
      within(read(option, path), path, 'the option')
    })
  }
}

// ---------------------------------------------------------------------------------------------
// Triggers (§2.3)

export const CANARY_EVENTS = ['passed', 'failed'] as const
export const CONFIG_EVENTS = ['created', 'updated', 'changed', 'deleted', 'healthy', 'unhealthy', 'warning', 'degraded', 'unknown'] as const
export const COMPONENT_EVENTS = ['healthy', 'unhealthy', 'warning', 'unknown'] as const

const eventTrigger = <Events extends readonly [string, ...string[]]>(events: Events) =>
  z
    .object({
      event: z.enum(events, { errorMap: () => ({ message: `must be one of ${events.join(', ')}` }) }),
      labels: stringMap.optional(),
      filter: text.optional(),
    })
    .passthrough()

export const WEBHOOK_AUTHENTICATIONS = ['basic', 'github', 'svix', 'jwt'] as const

const WebhookAuthenticationSchema = z
  .object({
    basic: z.object({ username: secretValue, password: secretValue }).passthrough().optional(),
    github: z.object({ token: secretValue }).passthrough().optional(),
    svix: z.object({ secret: secretValue, verifyTimestamp: text.optional() }).passthrough().optional(),
    jwt: z.object({ jwksUri: required }).passthrough().optional(),
  })
  .passthrough()
  .superRefine((auth, ctx) => {
    const set = WEBHOOK_AUTHENTICATIONS.filter((key) => auth[key] !== undefined)
    if (set.length !== 1) ctx.addIssue({ code: z.ZodIssueCode.custom, message: `set exactly one of ${WEBHOOK_AUTHENTICATIONS.join(', ')}` })
  })

const WebhookSchema = z
  .object({
    // Served at /playbook/webhook/<path>: one URL segment.
    path: z.string({ required_error: 'is required', invalid_type_error: 'must be a string' }).regex(/^[^/\s?#]+$/, "must be one URL path segment (no '/', '?', '#' or spaces)"),
    authentication: WebhookAuthenticationSchema.optional(),
  })
  .passthrough()

const scheduleText = z.string({ required_error: 'is required', invalid_type_error: 'must be a string' }).superRefine((value, ctx) => {
  // @never is a canary-only schedule (§0.5).
  if (value.trim().replace(/^(?:CRON_TZ|TZ)=\S+\s+/, '') === '@never') {
    ctx.addIssue({ code: z.ZodIssueCode.custom, message: '@never is not a playbook schedule' })
    return
  }
  try {
    parseSchedule(value)
  } catch (error) {
    ctx.addIssue({ code: z.ZodIssueCode.custom, message: error instanceof ScheduleError ? error.message : String(error) })
  }
})

const ScheduleTriggerSchema = z
  .object({
    schedule: scheduleText,
    parameters: z.record(z.string(), z.preprocess((value) => (typeof value === 'number' || typeof value === 'boolean' ? String(value) : value), text)).optional(),
  })
  .passthrough()

const TriggersSchema = z
  .object({
    canary: z.array(eventTrigger(CANARY_EVENTS)).optional(),
    config: z.array(eventTrigger(CONFIG_EVENTS)).optional(),
    component: z.array(eventTrigger(COMPONENT_EVENTS)).optional(),
    webhook: WebhookSchema.optional(),
    schedule: z.array(ScheduleTriggerSchema).optional(),
  })
  .passthrough()

// ---------------------------------------------------------------------------------------------
// Approval (§2.4)

const ApprovalSchema = z
  .object({
    type: z.enum(['any', 'all', ''], { errorMap: () => ({ message: 'must be any or all' }) }).optional(),
    approvers: z.object({ people: stringList.optional(), teams: stringList.optional() }).passthrough().optional(),
  })
  .passthrough()

// ---------------------------------------------------------------------------------------------
// Actions (§2.5)

const ArtifactSchema = z.object({ path: nonEmpty }).passthrough()
const connectionFields = { connection: text.optional(), url: text.optional() }

const ExecActionSchema = z
  .object({
    script: required,
    env: z.array(EnvVarSchema).optional(),
    connections: z.record(z.unknown()).optional(),
    checkout: z.object({ url: text.optional(), connection: text.optional(), destination: text.optional() }).passthrough().optional(),
    artifacts: z.array(ArtifactSchema).optional(),
    setup: z.record(z.unknown()).optional(),
  })
  .passthrough()

export const HTTP_METHODS = ['GET', 'POST', 'PUT', 'PATCH', 'DELETE', 'HEAD', 'OPTIONS'] as const

const HttpActionSchema = z
  .object({
    ...connectionFields,
    method: z.preprocess((value) => (typeof value === 'string' ? value.toUpperCase() : value), z.enum(HTTP_METHODS, { errorMap: () => ({ message: `must be one of ${HTTP_METHODS.join(', ')}` }) })).optional(),
    headers: z.array(EnvVarSchema).optional(),
    username: secretValue.optional(),
    password: secretValue.optional(),
    body: text.optional(),
    templateBody: optionalBoolean,
  })
  .passthrough()
  .refine((action) => action.url !== undefined || action.connection !== undefined, 'set url or connection')

const SqlActionSchema = z
  .object({ ...connectionFields, query: required, driver: text.optional() })
  .passthrough()
  .refine((action) => action.url !== undefined || action.connection !== undefined, 'set url or connection')

const NotificationActionSchema = z
  .object({
    ...connectionFields,
    title: text.optional(),
    message: text.optional(),
    properties: z.record(z.unknown()).optional(),
    attachments: z.array(z.object({ filename: nonEmpty, content: text.optional(), contentType: text.optional() }).passthrough()).optional(),
  })
  .passthrough()
  .refine((action) => action.url !== undefined || action.connection !== undefined, 'set url or connection')

const GitopsActionSchema = z
  .object({
    repo: z
      .object({
        url: text.optional(),
        connection: text.optional(),
        username: secretValue.optional(),
        password: secretValue.optional(),
        base: text.optional(),
        branch: text.optional(),
        skipExisting: optionalBoolean,
        force: optionalBoolean,
        type: text.optional(),
      })
      .passthrough()
      .optional(),
    commit: z.object({ author: text.optional(), email: text.optional(), message: text.optional() }).passthrough().optional(),
    pr: z
      .object({ title: text.optional(), tags: stringList.optional(), autoMerge: z.object({ enabled: optionalBoolean, rebase: optionalBoolean }).passthrough().optional() })
      .passthrough()
      .optional(),
    patches: z.array(z.object({ path: nonEmpty, yq: text.optional(), jq: text.optional(), if: text.optional() }).passthrough()).optional(),
    files: z.array(z.object({ path: nonEmpty, content: text.optional() }).passthrough()).optional(),
  })
  .passthrough()

const GithubActionSchema = z
  .object({
    repo: required,
    username: text.optional(),
    token: secretValue.optional(),
    workflows: z.array(z.object({ id: required, ref: text.optional(), input: text.optional() }).passthrough()).optional(),
  })
  .passthrough()

const AzureDevopsPipelineActionSchema = z
  .object({
    org: required,
    project: required,
    token: secretValue.optional(),
    pipeline: z.object({ id: z.union([text, z.number()]), version: z.union([text, z.number()]).optional() }).passthrough(),
    parameters: z
      .object({ resources: z.record(z.unknown()).optional(), templateParameters: z.record(z.unknown()).optional(), variables: z.record(z.unknown()).optional(), stagesToSkip: stringList.optional() })
      .passthrough()
      .optional(),
  })
  .passthrough()

const PodActionSchema = z
  .object({ name: required, spec: z.record(z.unknown(), { required_error: 'is required', invalid_type_error: 'must be an object' }), maxLength: numberish.optional(), artifacts: z.array(ArtifactSchema).optional() })
  .passthrough()

export const LOG_BACKENDS = ['loki', 'cloudwatch', 'opensearch', 'kubernetes'] as const
export const LOG_PARSERS = ['logfmt', 'klogfmt', 'json', 'syslog', 'autodetect'] as const

const LogsActionSchema = z
  .object({
    loki: z.object({ query: text.optional() }).passthrough().optional(),
    cloudwatch: z.object({ logGroup: text.optional(), query: text.optional() }).passthrough().optional(),
    opensearch: z.object({ index: text.optional(), query: text.optional() }).passthrough().optional(),
    kubernetes: z
      .object({ kind: text.optional(), apiVersion: text.optional(), namespace: text.optional(), name: text.optional(), pods: stringList.optional(), containers: stringList.optional() })
      .passthrough()
      .optional(),
    start: text.optional(),
    end: text.optional(),
    limit: numberish.optional(),
    match: stringList.optional(),
    dedupe: z.object({ fields: stringList.optional(), window: duration.optional() }).passthrough().optional(),
    mapping: z.record(z.unknown()).optional(),
    parse: z.enum(LOG_PARSERS, { errorMap: () => ({ message: `must be one of ${LOG_PARSERS.join(', ')}` }) }).optional(),
  })
  .passthrough()
  .superRefine((action, ctx) => {
    const set = LOG_BACKENDS.filter((key) => action[key] !== undefined)
    if (set.length !== 1) ctx.addIssue({ code: z.ZodIssueCode.custom, message: `set exactly one of ${LOG_BACKENDS.join(', ')}` })
  })

export const AI_BACKENDS = ['anthropic', 'openai', 'ollama', 'gemini', 'bedrock'] as const
export const AI_FORMATS = ['markdown', 'slack', 'recommendPlaybook'] as const

const AiActionSchema = z
  .object({
    connection: text.optional(),
    apiKey: secretValue.optional(),
    backend: z.enum(AI_BACKENDS, { errorMap: () => ({ message: `must be one of ${AI_BACKENDS.join(', ')}` }) }).optional(),
    model: text.optional(),
    apiURL: text.optional(),
    config: text.optional(),
    changes: z.object({ since: text.optional() }).passthrough().optional(),
    analysis: z.object({ since: text.optional() }).passthrough().optional(),
    relationships: z.array(z.record(z.unknown())).optional(),
    playbooks: z.array(z.record(z.unknown())).optional(),
    systemPrompt: text.optional(),
    prompt: text.optional(),
    formats: z.array(z.enum(AI_FORMATS, { errorMap: () => ({ message: `must be one of ${AI_FORMATS.join(', ')}` }) })).optional(),
    recommendPlaybooks: z.array(z.record(z.unknown())).optional(),
    skills: z.array(z.unknown()).optional(),
    outputSchema: z.unknown().optional(),
    dryRun: optionalBoolean,
  })
  .passthrough()

const PrometheusActionSchema = z
  .object({ ...connectionFields, query: required, range: z.object({ start: text.optional(), end: text.optional(), step: text.optional() }).passthrough().optional() })
  .passthrough()

const ACTION_SCHEMAS = {
  exec: ExecActionSchema,
  http: HttpActionSchema,
  sql: SqlActionSchema,
  notification: NotificationActionSchema,
  gitops: GitopsActionSchema,
  github: GithubActionSchema,
  azureDevopsPipeline: AzureDevopsPipelineActionSchema,
  pod: PodActionSchema,
  logs: LogsActionSchema,
  ai: AiActionSchema,
  prometheus: PrometheusActionSchema,
  report: z.record(z.unknown()),
  catalog: z.record(z.unknown()),
} satisfies Record<ActionType, z.ZodTypeAny>

/** Keys that may stand beside one primary action type, or alone (§2.5). */
export const SIDE_ACTION_TYPES: readonly ActionType[] = ['notification', 'gitops']
export const PRIMARY_ACTION_TYPES: readonly ActionType[] = ACTION_TYPES.filter((type) => !SIDE_ACTION_TYPES.includes(type))

export const CONTENT_TYPES = ['text/plain', 'text/markdown', 'text/x-shellscript', 'application/json', 'application/yaml', 'application/log+json', 'application/sql'] as const

const ActionSchema = z
  .object({
    name: z
      .string({ required_error: 'is required', invalid_type_error: 'must be a string' })
      .min(1, 'must not be empty')
      .refine((name) => name === name.trim(), 'must not have leading or trailing spaces'),
    if: text.optional(),
    delay: nonEmpty.optional(),
    timeout: duration.optional(),
    retry: z
      .object({
        limit: z.number({ required_error: 'is required', invalid_type_error: 'must be a number' }).int('must be a whole number').min(0, 'must not be negative'),
        duration: duration.optional(),
        jitter: z.number({ invalid_type_error: 'must be a number' }).min(0, 'must be between 0 and 100').max(100, 'must be between 0 and 100').optional(),
        exponent: z.object({ multiplier: z.number({ invalid_type_error: 'must be a number' }).positive('must be more than 0').optional() }).passthrough().optional(),
      })
      .passthrough()
      .optional(),
    runsOn: stringList.optional(),
    templatesOn: z.enum(['host', 'agent'], { errorMap: () => ({ message: 'must be host or agent' }) }).optional(),
    contentType: z.enum(CONTENT_TYPES, { errorMap: () => ({ message: `must be one of ${CONTENT_TYPES.join(', ')}` }) }).optional(),
    exec: ACTION_SCHEMAS.exec.optional(),
    http: ACTION_SCHEMAS.http.optional(),
    sql: ACTION_SCHEMAS.sql.optional(),
    notification: ACTION_SCHEMAS.notification.optional(),
    gitops: ACTION_SCHEMAS.gitops.optional(),
    github: ACTION_SCHEMAS.github.optional(),
    azureDevopsPipeline: ACTION_SCHEMAS.azureDevopsPipeline.optional(),
    pod: ACTION_SCHEMAS.pod.optional(),
    logs: ACTION_SCHEMAS.logs.optional(),
    ai: ACTION_SCHEMAS.ai.optional(),
    prometheus: ACTION_SCHEMAS.prometheus.optional(),
    report: ACTION_SCHEMAS.report.optional(),
    catalog: ACTION_SCHEMAS.catalog.optional(),
  })
  .passthrough()
  .superRefine((action, ctx) => {
    const primaries = PRIMARY_ACTION_TYPES.filter((type) => action[type] !== undefined && action[type] !== null)
    const sides = SIDE_ACTION_TYPES.filter((type) => action[type] !== undefined && action[type] !== null)
    if (primaries.length > 1) ctx.addIssue({ code: z.ZodIssueCode.custom, message: `has more than one action type (${primaries.join(', ')}); an action has exactly one` })
    else if (primaries.length === 0 && sides.length === 0) ctx.addIssue({ code: z.ZodIssueCode.custom, message: `has no action type; set one of ${ACTION_TYPES.join(', ')}` })
  })

// ---------------------------------------------------------------------------------------------
// The spec (§2.1)

export const PlaybookSpecSchema = z
  .object({
    title: text.optional(),
    description: text.optional(),
    category: text.optional(),
    icon: text.optional(),
    timeout: duration.optional(),
    parameters: z.array(ParameterSchema, { invalid_type_error: 'must be a list' }).optional(),
    configs: z.array(SelectorSchema).optional(),
    checks: z.array(SelectorSchema).optional(),
    components: z.array(SelectorSchema).optional(),
    filters: z.array(nonEmpty, { invalid_type_error: 'must be a list' }).optional(),
    approval: ApprovalSchema.optional(),
    on: TriggersSchema.optional(),
    actions: z.array(ActionSchema, { required_error: 'is required', invalid_type_error: 'must be a list' }).min(1, 'needs at least one action'),
    env: z.array(EnvVarSchema).optional(),
    runsOn: stringList.optional(),
    templatesOn: z.enum(['host', 'agent'], { errorMap: () => ({ message: 'must be host or agent' }) }).optional(),
    permissions: z.array(z.object({ role: text.optional(), team: text.optional(), ref: text.optional() }).passthrough()).optional(),
    jsonSchema: z.unknown().optional(),
    ui: z.unknown().optional(),
    mcp: z.unknown().optional(),
  })
  .passthrough()
  .superRefine((spec, ctx) => {
    const seenActions = new Map<string, number>()
    spec.actions.forEach((action, index) => {
      const first = seenActions.get(action.name)
      if (first !== undefined) ctx.addIssue({ code: z.ZodIssueCode.custom, path: ['actions', index, 'name'], message: `duplicate action name "${action.name}" (also actions[${first}])` })
      else seenActions.set(action.name, index)
    })
    const seenParameters = new Set<string>()
    spec.parameters?.forEach((parameter, index) => {
      if (seenParameters.has(parameter.name)) ctx.addIssue({ code: z.ZodIssueCode.custom, path: ['parameters', index, 'name'], message: `duplicate parameter name "${parameter.name}"` })
      seenParameters.add(parameter.name)
      if (parameter.type === 'duration') checkDurationParameter(parameter, ctx, ['parameters', index])
    })
    const approvers = spec.approval?.approvers
    const hasApprovers = (approvers?.people?.length ?? 0) + (approvers?.teams?.length ?? 0) > 0
    // A scheduled run has nobody to wait for: it would sit in pending_approval for ever.
    if (hasApprovers && (spec.on?.schedule?.length ?? 0) > 0) {
      ctx.addIssue({ code: z.ZodIssueCode.custom, path: ['approval', 'approvers'], message: 'a playbook with on.schedule cannot have approvers' })
    }
  })

export type PlaybookDocumentSpec = z.infer<typeof PlaybookSpecSchema>

const DocumentSchema = resourceDocumentSchema(PLAYBOOK_API_VERSION, 'Playbook', CanaryMetadataSchema, PlaybookSpecSchema)

/** A playbook ready to store as a `playbooks` row. */
export type PlaybookInput = { name: string; namespace: string; labels: Record<string, string>; spec: PlaybookDocumentSpec }

export class PlaybookValidationError extends ResourceValidationError {}


/** Every problem of a spec, each with its path from `spec` (the editor lists them all). */
export function playbookSpecIssues(spec: unknown): ValidationIssue[] {
  if (spec === undefined || spec === null) return [{ path: 'spec', message: 'is required' }]
  const parsed = PlaybookSpecSchema.safeParse(spec)
  return parsed.success ? [] : zodIssues(parsed.error, ['spec'])
}

export const PLAYBOOK_VALIDATION_PREFIX = 'playbook validation failed: '

/** The data API's judgement of a spec (http-api §4.6): the first problem as `playbook validation failed: <path>: <reason>`. */
export function parsePlaybookSpec(spec: unknown): { success: true; spec: PlaybookDocumentSpec } | { success: false; message: string } {
  const parsed = PlaybookSpecSchema.safeParse(spec)
  if (parsed.success) return { success: true, spec: parsed.data }
  const [first] = zodIssues(parsed.error, ['spec'])
  return { success: false, message: `${PLAYBOOK_VALIDATION_PREFIX}${first ? `${first.path}: ${first.message}` : 'spec: is invalid'}` }
}

/** A Kubernetes `kind: Playbook` document (from `lookout apply -f`); `prefix` places the errors inside a multi-document file. */
export function parsePlaybookDocument(value: unknown, prefix: (string | number)[] = []): PlaybookInput {
  if (typeof value !== 'object' || value === null || Array.isArray(value)) {
    throw new PlaybookValidationError([{ path: formatPath(prefix), message: 'must be a Playbook object' }])
  }
  const parsed = DocumentSchema.safeParse(value)
  if (!parsed.success) throw new PlaybookValidationError(zodIssues(parsed.error, prefix))
  const { metadata, spec } = parsed.data
  return { name: metadata.name, namespace: metadata.namespace ?? 'default', labels: metadata.labels ?? {}, spec }
}

/** Back to the Kubernetes shape users keep in git. */
export function toPlaybookDocument(row: { id?: string; name: string; namespace: string | null; spec: unknown }) {
  const metadata: Record<string, unknown> = { name: row.name, namespace: row.namespace ?? 'default' }
  if (row.id) metadata.uid = row.id
  return { apiVersion: PLAYBOOK_API_VERSION, kind: 'Playbook', metadata, spec: row.spec }
}

/** The webhook path a spec serves, if any (unique across live playbooks). */
export function webhookPathOf(spec: unknown): string | null {
  const on = spec && typeof spec === 'object' ? (spec as { on?: unknown }).on : undefined
  const webhook = on && typeof on === 'object' ? (on as { webhook?: unknown }).webhook : undefined
  const path = webhook && typeof webhook === 'object' ? (webhook as { path?: unknown }).path : undefined
  return typeof path === 'string' && path !== '' ? path : null
}

/** The `playbooks` columns that mirror the spec's display fields (lists read them; title defaults to the name). */
export function playbookColumnsOf(name: string, spec: { title?: string; icon?: string; description?: string; category?: string }) {
  return { title: spec.title?.trim() || name, icon: spec.icon ?? null, description: spec.description ?? null, category: spec.category ?? '' }
}

/** Why a playbook another source owns may not be changed here (http-api §4.6, the guard's 409; the editor shows it too). */
export function playbookReadOnlyReason(namespace: string, name: string): string {
  return `playbook ${namespace}/${name} was not created through the API and cannot be modified`
}
