import { z } from 'zod'
import { parseDurationMs } from '#contract/canary/duration.ts'
import { resourceDocumentSchema, ResourceValidationError, zodIssues } from '#contract/resource-document.ts'
import { NOTIFICATION_EVENTS } from './notification-events.ts'
import { SILENCE_RESOURCE_KEYS, SilenceTargetSchema } from './notification-api.ts'

/**
 * The `Notification` and `NotificationSilence` resources (`mission-control.flanksource.com/v1`,
 * resource-specs §3.1 and §3.2) as users write them for `npx lookout apply -f`. A Notification
 * becomes a `notifications` row through the rule editor's translation (people, teams and
 * playbooks are looked up by the server, so that step is not here); a silence's target is the
 * same shape `POST /notification/silence` takes (notification-api.ts), its times as timestamps.
 */

export const NOTIFICATION_API_VERSION = 'mission-control.flanksource.com/v1'

const text = z.string({ invalid_type_error: 'must be a string' })
const duration = text.refine((value) => parseDurationMs(value) !== null, 'must be a duration such as 30s, 5m or 1h')
const mapping = z.record(z.unknown(), { invalid_type_error: 'must be a mapping' })

const MetadataSchema = z
  .object({
    name: z.string({ required_error: 'is required', invalid_type_error: 'must be a string' }).min(1, 'must not be empty'),
    namespace: text.optional(),
    labels: z.record(text).optional(),
    annotations: z.record(text).optional(),
  })
  .passthrough()

const RECIPIENT_KEYS = ['person', 'team', 'email', 'connection', 'url', 'playbook', 'webhook'] as const

const recipientShape = {
  person: text.min(1, 'must not be empty').optional(),
  team: text.min(1, 'must not be empty').optional(),
  email: text.min(1, 'must not be empty').optional(),
  connection: text.min(1, 'must not be empty').optional(),
  url: text.min(1, 'must not be empty').optional(),
  playbook: text.min(1, 'must not be empty').optional(),
  webhook: mapping.optional(),
  properties: mapping.optional(),
}

/** `to` and `fallback` name exactly one recipient, as the rule editor requires. */
function oneRecipient(recipient: Record<string, unknown>, ctx: z.RefinementCtx) {
  const named = RECIPIENT_KEYS.filter((key) => recipient[key] !== undefined)
  if (named.length !== 1) {
    ctx.addIssue({ code: z.ZodIssueCode.custom, message: `name exactly one of ${RECIPIENT_KEYS.join(', ')}${named.length ? ` (got ${named.join(', ')})` : ''}` })
  }
}

const RecipientSchema = z.object(recipientShape, { invalid_type_error: 'must be a mapping' }).strict().superRefine(oneRecipient)
const FallbackSchema = z
  .object({ ...recipientShape, delay: duration.optional() }, { invalid_type_error: 'must be a mapping' })
  .strict()
  .superRefine(oneRecipient)

export const InhibitionSchema = z
  .object({
    direction: z.enum(['outgoing', 'incoming', 'all'], { errorMap: () => ({ message: 'must be one of outgoing, incoming, all' }) }),
    soft: z.boolean({ invalid_type_error: 'must be true or false' }).optional(),
    depth: z.number({ invalid_type_error: 'must be a number' }).int().min(0).optional(),
    from: text.min(1, 'must not be empty'),
    to: z.array(text, { invalid_type_error: 'must be a list of config types' }),
  })
  .strict()

/** A rule's spec (resource-specs §3.1); unknown keys are refused, as the rule editor refuses them. */
export const NotificationSpecSchema = z
  .object(
    {
      events: z
        .array(text.refine((event) => NOTIFICATION_EVENTS.includes(event), (event) => ({ message: `"${event}" is not an event of the reference` })), {
          required_error: 'is required',
          invalid_type_error: 'must be a list of events',
        })
        .min(1, 'needs at least one event'),
      title: text.optional(),
      template: text.optional(),
      filter: text.optional(),
      to: RecipientSchema,
      fallback: FallbackSchema.optional(),
      repeatInterval: duration.optional(),
      groupBy: z.array(text, { invalid_type_error: 'must be a list' }).optional(),
      groupByInterval: duration.optional(),
      waitFor: duration.optional(),
      waitForEvalPeriod: duration.optional(),
      inhibitions: z.array(InhibitionSchema, { invalid_type_error: 'must be a list' }).optional(),
    },
    { required_error: 'is required', invalid_type_error: 'must be a mapping' },
  )
  .strict()
export type NotificationSpec = z.infer<typeof NotificationSpecSchema>

export const NotificationDocumentSchema = resourceDocumentSchema(NOTIFICATION_API_VERSION, 'Notification', MetadataSchema, NotificationSpecSchema)

export type ParsedNotification = { name: string; namespace: string; spec: NotificationSpec }

/** A Notification document's name, namespace and spec; ResourceValidationError names each bad field (under `prefix`). */
export function parseNotificationDocument(document: unknown, prefix: (string | number)[] = []): ParsedNotification {
  const parsed = NotificationDocumentSchema.safeParse(document)
  if (!parsed.success) throw new ResourceValidationError(zodIssues(parsed.error, prefix))
  const { metadata, spec } = parsed.data
  return { name: metadata.name, namespace: metadata.namespace || 'default', spec }
}

// ---- NotificationSilence ------------------------------------------------------------------------

/** A plain date or a date and time without a zone: read as UTC, so an apply means the same anywhere. */
const PLAIN_DATE_TIME = /^\d{4}-\d{2}-\d{2}([T ]\d{2}:\d{2}(:\d{2}(\.\d+)?)?)?$/
const RFC3339 = /^\d{4}-\d{2}-\d{2}T\d{2}:\d{2}:\d{2}(\.\d+)?(Z|[+-]\d{2}:\d{2})$/i

/** `from` / `until`: RFC3339 or a plain date or datetime (a YAML timestamp may arrive parsed as a Date). */
const SilenceTimeSchema = z
  .union([text, z.date()], { errorMap: () => ({ message: 'must be an RFC3339 time, a date or a date and time' }) })
  .transform((value, ctx) => {
    if (value instanceof Date) return value.toISOString()
    const trimmed = value.trim()
    const plain = PLAIN_DATE_TIME.test(trimmed)
    const date = plain ? new Date(`${trimmed.replace(' ', 'T')}${trimmed.length === 10 ? 'T00:00:00' : ''}Z`) : RFC3339.test(trimmed) ? new Date(trimmed) : null
    if (!date || Number.isNaN(date.getTime())) {
      ctx.addIssue({ code: z.ZodIssueCode.custom, message: `"${value}" is not an RFC3339 time, a date or a date and time` })
      return z.NEVER
    }
    return date.toISOString()
  })

/**
 * A silence's spec: what it covers (the API's silence target: at most one resource id, `recursive`,
 * `filter`, `selectors`) plus `description`, `from` and `until`. A missing `until` is indefinite.
 */
export const NotificationSilenceSpecSchema = SilenceTargetSchema.extend({
  description: text.optional().nullable(),
  from: SilenceTimeSchema.optional().nullable(),
  until: SilenceTimeSchema.optional().nullable(),
})
  .strict()
  .superRefine((spec, ctx) => {
    const named = SILENCE_RESOURCE_KEYS.filter((key) => spec[key])
    if (named.length > 1) ctx.addIssue({ code: z.ZodIssueCode.custom, message: `set only one of ${SILENCE_RESOURCE_KEYS.join(', ')} (got ${named.join(', ')})` })
    if (named.length === 0 && !spec.filter?.trim() && !spec.selectors?.length) {
      ctx.addIssue({ code: z.ZodIssueCode.custom, message: `needs one of ${SILENCE_RESOURCE_KEYS.join(', ')}, selectors or filter` })
    }
    if (spec.from && spec.until && spec.until < spec.from) ctx.addIssue({ code: z.ZodIssueCode.custom, path: ['until'], message: 'must not be before from' })
  })

export const NotificationSilenceDocumentSchema = resourceDocumentSchema(NOTIFICATION_API_VERSION, 'NotificationSilence', MetadataSchema, NotificationSilenceSpecSchema)

/** The `notification_silences` columns a silence document sets (data-model §8.2); `from` only when given. */
export type SilenceColumns = {
  description: string | null
  from?: string
  until: string | null
  recursive: boolean
  filter: string | null
  selectors: Record<string, unknown>[] | null
  config_id: string | null
  canary_id: string | null
  component_id: string | null
  check_id: string | null
}

export type ParsedNotificationSilence = { name: string; namespace: string; columns: SilenceColumns }

/** A NotificationSilence document as its columns; ResourceValidationError names each bad field (under `prefix`). */
export function parseNotificationSilenceDocument(document: unknown, prefix: (string | number)[] = []): ParsedNotificationSilence {
  const parsed = NotificationSilenceDocumentSchema.safeParse(document)
  if (!parsed.success) throw new ResourceValidationError(zodIssues(parsed.error, prefix))
  const { metadata, spec } = parsed.data
  return {
    name: metadata.name,
    namespace: metadata.namespace || 'default',
    columns: {
      description: spec.description || null,
      ...(spec.from ? { from: spec.from } : {}),
      until: spec.until ?? null,
      recursive: spec.recursive === true,
      filter: spec.filter || null,
      selectors: spec.selectors?.length ? spec.selectors : null,
      config_id: spec.config_id ?? null,
      canary_id: spec.canary_id ?? null,
      component_id: spec.component_id ?? null,
      check_id: spec.check_id ?? null,
    },
  }
}

// ---- the `notifications` row (data-model §8.1), as the data API writes it --------------------

const nanos = z.number({ invalid_type_error: 'must be a number of nanoseconds' }).int('must be a whole number of nanoseconds').min(0, 'must not be negative')
const uuidText = text.uuid('must be a UUID')

/** One entry of custom_services / fallback_custom_services: a channel with its own filter. */
const CustomServiceSchema = z
  .object(
    {
      name: text.optional(),
      filter: text.optional(),
      url: text.min(1, 'must not be empty').optional(),
      connection: text.min(1, 'must not be empty').optional(),
      email: text.min(1, 'must not be empty').optional(),
      webhook: mapping.optional(),
      properties: mapping.optional(),
    },
    { invalid_type_error: 'must be a mapping' },
  )
  .passthrough()
  .superRefine((service, ctx) => {
    if (service.url === undefined && service.connection === undefined && service.email === undefined && service.webhook === undefined) {
      ctx.addIssue({ code: z.ZodIssueCode.custom, message: 'names no url, connection, email or webhook' })
    }
  })

/**
 * The columns of a rule a data-API write may carry; the others (ids, audit columns, error) are
 * the database's. A PATCH checks the columns it carries, a POST also needs `events`.
 */
export const NotificationRowSchema = z
  .object({
    name: text.min(1, 'must not be empty').max(255, 'must be at most 255 characters'),
    namespace: text.max(255, 'must be at most 255 characters').nullable(),
    events: z
      .array(text.refine((event) => NOTIFICATION_EVENTS.includes(event), (event) => ({ message: `"${event}" is not an event of the reference` })), {
        invalid_type_error: 'must be a list of events',
      })
      .min(1, 'needs at least one event'),
    title: text.nullable(),
    template: text.nullable(),
    filter: text.nullable(),
    properties: mapping.nullable(),
    playbook_id: uuidText.nullable(),
    person_id: uuidText.nullable(),
    team_id: uuidText.nullable(),
    repeat_interval: duration.nullable().or(z.literal('')),
    inhibitions: z.array(InhibitionSchema, { invalid_type_error: 'must be a list' }).nullable(),
    wait_for: nanos.nullable(),
    wait_for_eval_period: nanos.nullable(),
    group_by: z.array(text, { invalid_type_error: 'must be a list' }).nullable(),
    group_by_interval: nanos.nullable(),
    watchdog_schedule: text.nullable(),
    custom_services: z.array(CustomServiceSchema, { invalid_type_error: 'must be a list' }).nullable(),
    fallback_delay: nanos.nullable(),
    fallback_custom_services: z.array(CustomServiceSchema, { invalid_type_error: 'must be a list' }).nullable(),
    fallback_playbook_id: uuidText.nullable(),
    fallback_person_id: uuidText.nullable(),
    fallback_team_id: uuidText.nullable(),
  })
  .partial()
  .passthrough()

/** The problems of one written row, each as {path, message}; `post` requires the events. */
export function notificationRowIssues(row: Record<string, unknown>, post: boolean): { path: string; message: string }[] {
  const parsed = NotificationRowSchema.safeParse(row)
  const issues = parsed.success ? [] : parsed.error.issues.map((issue) => ({ path: issue.path.join('.'), message: issue.message }))
  if (post && row.events === undefined && row.deleted_at === undefined) issues.push({ path: 'events', message: 'is required' })
  return issues
}
