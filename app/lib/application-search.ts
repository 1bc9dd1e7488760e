import { z } from 'zod'
import { CATALOG_PAGE_SIZES, DEFAULT_PAGE_SIZE } from './catalog-vocabulary.ts'

/**
 * URL state of /applications and /applications/{ns}/{name}: every bad value falls back to its
 * default (docs/adding-a-screen.md §2), so a hand-edited link never becomes a 500.
 */

export const APPLICATION_SORT_COLUMNS = ['name', 'namespace', 'source', 'created_at', 'updated_at'] as const
export type ApplicationSortColumn = (typeof APPLICATION_SORT_COLUMNS)[number]

export type ApplicationListParams = { search: string; sortBy: ApplicationSortColumn; sortDesc: boolean; page: number; pageSize: number }

const ListSchema = z.object({
  search: z.string().max(200).catch(''),
  sortBy: z.enum(APPLICATION_SORT_COLUMNS).catch('name'),
  sortDesc: z.enum(['true', 'false']).nullish().catch(null),
  page: z.coerce.number().int().min(1).catch(1),
  pageSize: z.coerce
    .number()
    .int()
    .refine((size) => (CATALOG_PAGE_SIZES as readonly number[]).includes(size))
    .catch(DEFAULT_PAGE_SIZE),
})

export function parseApplicationListParams(params: URLSearchParams): ApplicationListParams {
  const parsed = ListSchema.parse({
    search: params.get('search') ?? '',
    sortBy: params.get('sortBy') ?? undefined,
    sortDesc: params.get('sortDesc'),
    page: params.get('page') ?? undefined,
    pageSize: params.get('pageSize') ?? undefined,
  })
  // Dates read newest first unless asked otherwise; names read A→Z.
  const sortDesc = parsed.sortDesc ? parsed.sortDesc === 'true' : parsed.sortBy === 'created_at' || parsed.sortBy === 'updated_at'
  return { ...parsed, sortDesc }
}

/** How far back the report's changes, backups and incidents reach. */
export const REPORT_RANGES = { '1d': 1, '7d': 7, '30d': 30, '90d': 90 } as const
export type ReportRange = keyof typeof REPORT_RANGES
export const DEFAULT_REPORT_RANGE: ReportRange = '30d'

export type ReportParams = { range: ReportRange; print: boolean }

export function parseReportParams(params: URLSearchParams): ReportParams {
  const range = z
    .enum(Object.keys(REPORT_RANGES) as [ReportRange, ...ReportRange[]])
    .catch(DEFAULT_REPORT_RANGE)
    .parse(params.get('range') ?? undefined)
  return { range, print: params.get('print') === '1' }
}
