import { z } from 'zod'
import { RUN_STATUSES } from '#contract/playbook/playbook-vocabulary.ts'
import { isUuid } from '#contract/uuid.ts'
import { TABLE_PAGE_SIZES } from '#app/components/data-table/pagination.tsx'
import { RUN_RANGES, type RunRange } from '#app/components/playbooks/run-status.tsx'
import { DURATION_MINUTES } from './durations.ts'

/* Loader-only: module-level zod schemas stay out of the modules a page's component imports (decision 016). */

const uuidOrNull = z
  .string()
  .nullable()
  .transform((value) => (value && isUuid(value) ? value : null))
  .catch(null)

/** /playbooks/runs search parameters; a bad value falls back to its default, never a 500. */
const RunsSearchSchema = z.object({
  playbook: uuidOrNull,
  status: z.enum(RUN_STATUSES).nullable().catch(null),
  resource: uuidOrNull,
  range: z
    .string()
    .nullable()
    .transform((value) => RUN_RANGES.find(([key]) => key === value)?.[0] ?? null)
    .catch(null),
  page: z.coerce.number().int().min(1).max(100_000).catch(1),
  pageSize: z.coerce
    .number()
    .int()
    .refine((value) => (TABLE_PAGE_SIZES as readonly number[]).includes(value))
    .catch(TABLE_PAGE_SIZES[0]),
})
export type RunsSearch = z.infer<typeof RunsSearchSchema>

export function parseRunsSearch(params: URLSearchParams): RunsSearch {
  const value = (name: string) => params.get(name) || null
  return RunsSearchSchema.parse({
    playbook: value('playbook'),
    status: value('status'),
    resource: value('resource'),
    range: value('range'),
    page: value('page') ?? undefined,
    pageSize: value('pageSize') ?? undefined,
  })
}

/** The instant a range starts at, counted back from now. */
export function rangeStart(range: RunRange | null, now: Date): Date | null {
  return range ? new Date(now.getTime() - DURATION_MINUTES[range] * 60_000) : null
}
