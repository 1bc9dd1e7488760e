import { z } from 'zod'
import { TABLE_PAGE_SIZES } from '#app/components/data-table/pagination.tsx'
import { INTEGRATION_SORT_COLUMNS, INTEGRATION_TYPES, JOB_STATUSES, parseAddState, type AddState, type IntegrationSortColumn, type IntegrationType } from './integration-vocabulary.ts'

/* Loader-only: module-level zod schemas stay out of the modules a page's component imports (decision 016). */

const TYPE_VALUES = INTEGRATION_TYPES.map((entry) => entry.value) as [IntegrationType, ...IntegrationType[]]

/** /settings/integrations search parameters; a bad value falls back to its default, never a 500. */
const IntegrationSearchSchema = z.object({
  search: z
    .string()
    .transform((value) => value.trim().slice(0, 200))
    .catch(''),
  type: z.enum(TYPE_VALUES).nullable().catch(null),
  status: z.enum(JOB_STATUSES).nullable().catch(null),
  sortBy: z.enum(INTEGRATION_SORT_COLUMNS).catch('name'),
  sortDesc: z.enum(['true', 'false']).nullable().catch(null),
  page: z.coerce.number().int().min(1).max(100_000).catch(1),
  pageSize: z.coerce
    .number()
    .int()
    .refine((value) => (TABLE_PAGE_SIZES as readonly number[]).includes(value))
    .catch(TABLE_PAGE_SIZES[0]),
})

export type IntegrationSearch = {
  search: string
  type: IntegrationType | null
  status: (typeof JOB_STATUSES)[number] | null
  sortBy: IntegrationSortColumn
  sortDesc: boolean
  page: number
  pageSize: number
  add: AddState
}

/** Dates sort newest first unless the URL says otherwise; names and types A to Z. */
export function parseIntegrationSearch(params: URLSearchParams): IntegrationSearch {
  const value = (name: string) => params.get(name) || null
  const parsed = IntegrationSearchSchema.parse({
    search: params.get('search') ?? '',
    type: value('type'),
    status: value('status'),
    sortBy: value('sortBy') ?? undefined,
    sortDesc: value('sortDesc'),
    page: value('page') ?? undefined,
    pageSize: value('pageSize') ?? undefined,
  })
  const dateColumn = parsed.sortBy === 'job_time_start' || parsed.sortBy === 'created_at'
  return { ...parsed, sortDesc: parsed.sortDesc === null ? dateColumn : parsed.sortDesc === 'true', add: parseAddState(params.get('add')) }
}
