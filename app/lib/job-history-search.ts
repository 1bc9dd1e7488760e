import { z } from 'zod'
import { isUuid } from '#contract/uuid.ts'
import {
  ALL_JOB_STATUSES,
  DEFAULT_JOB_PAGE_SIZE,
  DEFAULT_JOB_RANGE,
  DEFAULT_JOB_STATUS,
  JOB_DETAIL_TABS,
  JOB_DURATIONS,
  JOB_PAGE_SIZES,
  JOB_RANGES,
  JOB_RESOURCE_TYPES,
  JOB_SORT_COLUMNS,
  JOB_STATUSES,
} from '#app/components/jobs/job-vocabulary.ts'

/* Loader-only: module-level zod schemas stay out of the modules a page's component imports (decision 016). */

const oneOf = <T extends string>(values: readonly T[]) =>
  z
    .string()
    .nullable()
    .transform((value) => (values as readonly string[]).find((known) => known === value) as T | undefined ?? null)
    .catch(null)

/** /settings/jobs search parameters; a bad value falls back to its default, never a 500. */
const JobHistorySearchSchema = z.object({
  name: z.string().trim().max(200).nullable().transform((value) => value || null).catch(null),
  resourceType: oneOf(JOB_RESOURCE_TYPES),
  status: z
    .string()
    .nullable()
    .transform((value) => (value === ALL_JOB_STATUSES ? null : (JOB_STATUSES.find((known) => known === value) ?? DEFAULT_JOB_STATUS)))
    .catch(DEFAULT_JOB_STATUS),
  range: z
    .string()
    .nullable()
    .transform((value) => JOB_RANGES.find(([key]) => key === value)?.[0] ?? DEFAULT_JOB_RANGE)
    .catch(DEFAULT_JOB_RANGE),
  duration: z
    .string()
    .nullable()
    .transform((value) => JOB_DURATIONS.find(([key]) => key === value)?.[0] ?? null)
    .catch(null),
  sortBy: oneOf(JOB_SORT_COLUMNS),
  sortDesc: z
    .string()
    .nullable()
    .transform((value) => value !== 'false')
    .catch(true),
  page: z.coerce.number().int().min(1).max(100_000).catch(1),
  pageSize: z.coerce
    .number()
    .int()
    .refine((value) => (JOB_PAGE_SIZES as readonly number[]).includes(value))
    .catch(DEFAULT_JOB_PAGE_SIZE),
  job: z
    .string()
    .nullable()
    .transform((value) => (value && isUuid(value) ? value : null))
    .catch(null),
  tab: oneOf(JOB_DETAIL_TABS.map(([key]) => key)),
})
export type JobHistorySearch = z.infer<typeof JobHistorySearchSchema>

export function parseJobHistorySearch(params: URLSearchParams): JobHistorySearch {
  const value = (name: string) => params.get(name) || null
  return JobHistorySearchSchema.parse({
    name: value('name'),
    resourceType: value('resourceType'),
    status: value('status'),
    range: value('range'),
    duration: value('duration'),
    sortBy: value('sortBy'),
    sortDesc: value('sortDesc'),
    page: value('page') ?? undefined,
    pageSize: value('pageSize') ?? undefined,
    job: value('job'),
    tab: value('tab'),
  })
}

/** The instant the range starts at, and the least duration in milliseconds, for the query. */
export function jobHistoryBounds(search: JobHistorySearch, now: Date): { since: Date; minDurationMs: number | null } {
  const minutes = JOB_RANGES.find(([key]) => key === search.range)?.[2] ?? 2880
  const duration = JOB_DURATIONS.find(([key]) => key === search.duration)?.[1] ?? null
  return { since: new Date(now.getTime() - minutes * 60_000), minDurationMs: duration }
}
