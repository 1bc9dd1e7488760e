import { z } from 'zod'
import { UUID_PATTERN } from '#contract/uuid.ts'

/**
 * Request bodies of the notification API (http-api §2.3, §2.7.5), shared by the embedded
 * backend and the console's forms. The shapes only: what a value means (date math, selectors,
 * CEL) is judged by the server, which has the parsers.
 */

/** The resource columns a silence may name; at most one of them is set. */
export const SILENCE_RESOURCE_KEYS = ['config_id', 'canary_id', 'component_id', 'check_id'] as const
export type SilenceResourceKey = (typeof SILENCE_RESOURCE_KEYS)[number]

const optionalText = z.string({ invalid_type_error: 'must be a string' }).trim().optional().nullable()
/** Empty strings are how forms say "not given". */
const optionalId = z
  .string({ invalid_type_error: 'must be a string' })
  .trim()
  .refine((value) => value === '' || UUID_PATTERN.test(value), 'must be a uuid')
  .optional()
  .nullable()
  .transform((value) => (value ? value.toLowerCase() : undefined))

/** A resource selector (resource-specs §0.3) as stored in `notification_silences.selectors`. */
const SelectorSchema = z.record(z.unknown(), { invalid_type_error: 'must be an object' })

/** The parts of a silence that decide what it covers (used alone by the preview). */
export const SilenceTargetSchema = z.object({
  config_id: optionalId,
  canary_id: optionalId,
  component_id: optionalId,
  check_id: optionalId,
  recursive: z.boolean({ invalid_type_error: 'must be true or false' }).optional().nullable(),
  filter: optionalText,
  selectors: z.array(SelectorSchema, { invalid_type_error: 'must be a list of resource selectors' }).optional().nullable(),
})
export type SilenceTarget = z.infer<typeof SilenceTargetSchema>

/**
 * `POST /notification/silence`. `from`/`until` are date math (`now`, `now+2h`) or timestamps;
 * `until` null, empty or "indefinitely" means the silence never ends (spec 000 §5). `id`,
 * `namespace` and `source` are accepted and ignored (the reference forces source `UI`).
 */
export const SilenceBodySchema = SilenceTargetSchema.extend({
  name: optionalText,
  description: optionalText,
  from: optionalText,
  until: optionalText,
  id: z.unknown().optional(),
  namespace: z.unknown().optional(),
  source: z.unknown().optional(),
})
export type SilenceBody = z.infer<typeof SilenceBodySchema>

/** `POST /notification/silence_preview`: the silence's target plus how far back to look. */
export const SilencePreviewBodySchema = SilenceTargetSchema.extend({
  /** Date math or a timestamp; sends since then are considered (default `now-7d`). */
  since: optionalText,
  limit: z.number({ invalid_type_error: 'must be a number' }).int().min(1).max(500).optional(),
})
export type SilencePreviewBody = z.infer<typeof SilencePreviewBodySchema>

export const NOTIFICATION_SUMMARY_GROUPS = ['resource', 'resource_id', 'resource_type', 'resource_kind', 'resource_tags', 'status', 'source_event'] as const
export type NotificationSummaryGroup = (typeof NOTIFICATION_SUMMARY_GROUPS)[number]

export const NOTIFICATION_SUMMARY_MAX_PAGE_SIZE = 50

/** Send-history statuses counted as `suppressed` and `in_progress` by the summary (http-api §2.3.1). */
export const SUPPRESSED_STATUSES = ['silenced', 'inhibited', 'repeat-interval', 'skipped'] as const
export const IN_PROGRESS_STATUSES = ['pending', 'pending_playbook_run', 'pending_playbook_completion', 'evaluating-waitfor', 'attempting_fallback'] as const

const filterText = z.string({ invalid_type_error: 'must be a string' }).optional().nullable()

/**
 * `POST /notification/summary`. A page size outside 1..50 is 50 and a negative page index 0,
 * as the reference clamps rather than refuses them.
 */
export const NotificationSummaryBodySchema = z.object({
  search: filterText,
  includeDeletedResources: z.boolean({ invalid_type_error: 'must be true or false' }).optional().nullable(),
  pageIndex: z.number({ invalid_type_error: 'must be a number' }).int().optional().nullable()
    .transform((value) => (value && value > 0 ? value : 0)),
  pageSize: z.number({ invalid_type_error: 'must be a number' }).int().optional().nullable()
    .transform((value) => (value && value >= 1 && value <= NOTIFICATION_SUMMARY_MAX_PAGE_SIZE ? value : NOTIFICATION_SUMMARY_MAX_PAGE_SIZE)),
  status: filterText,
  resourceType: filterText,
  resourceKind: filterText,
  tags: filterText,
  from: filterText,
  to: filterText,
  groupBy: z
    .array(z.enum(NOTIFICATION_SUMMARY_GROUPS, { errorMap: () => ({ message: `must be one of ${NOTIFICATION_SUMMARY_GROUPS.join(', ')}` }) }))
    .optional()
    .nullable()
    .transform((value) => (value && value.length > 0 ? [...new Set(value)] : (['resource'] as NotificationSummaryGroup[]))),
})
export type NotificationSummaryBody = z.infer<typeof NotificationSummaryBodySchema>
