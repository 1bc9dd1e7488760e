import { z } from 'zod'
import { isUuid } from '#contract/uuid.ts'
import {
  CATALOG_PAGE_SIZES,
  CHANGE_SORT_COLUMNS,
  CONFIG_HEALTHS,
  CONFIG_SORT_COLUMNS,
  DEFAULT_PAGE_SIZE,
  DEFAULT_RELATIONSHIP_DEPTH,
  INSIGHT_SORT_COLUMNS,
  MAX_RELATIONSHIP_DEPTH,
  RELATIONSHIP_DIRECTIONS,
  SCRAPER_SORT_COLUMNS,
  SPEC_FORMATS,
  splitPair,
  type CatalogListParams,
  type ChangeListParams,
  type InsightListParams,
  type RelationshipParams,
  type ScraperListParams,
  type SpecFormat,
} from './catalog-vocabulary.ts'

/*
 * Loader-only: the catalog screens' URL state, one zod schema per screen, each bad value falling
 * back to its default (docs/adding-a-screen.md §2). Module-level schemas stay out of the modules
 * a page's component imports (decision 016).
 */

const MAX_TEXT = 200

/** Free text, trimmed and capped; anything else is no search. */
const text = z
  .string()
  .transform((value) => value.trim().slice(0, MAX_TEXT))
  .catch('')

/** One optional value: empty or missing is none. */
const optionalText = z
  .string()
  .transform((value) => value.trim().slice(0, MAX_TEXT) || null)
  .nullable()
  .catch(null)

const page = z.coerce.number().int().min(1).max(100_000).catch(1)
const pageSize = z.coerce
  .number()
  .int()
  .refine((value) => (CATALOG_PAGE_SIZES as readonly number[]).includes(value))
  .catch(DEFAULT_PAGE_SIZE)

/** `sortDesc`: 'true' or 'false'; anything else is the screen's default direction. */
function direction(fallback: boolean) {
  return z
    .enum(['true', 'false'])
    .transform((value) => value === 'true')
    .catch(fallback)
}

/** Repeated or comma-separated values of a vocabulary, de-duplicated; unknown ones dropped. */
function listOf<T extends string>(allowed: readonly T[]) {
  return z
    .array(z.string())
    .transform((values) => [...new Set(values.flatMap((value) => value.split(',')).map((value) => value.trim().toLowerCase()))].filter((value): value is T => (allowed as readonly string[]).includes(value)))
    .catch([])
}

/** Free values (statuses), repeated or comma-separated, de-duplicated and capped. */
const freeList = z
  .array(z.string())
  .transform((values) => [...new Set(values.flatMap((value) => value.split(',')).map((value) => value.trim()).filter(Boolean))].slice(0, 20))
  .catch([])

/** `key=value` filters (labels, tags); malformed pairs are dropped. */
const pairList = z
  .array(z.string())
  .transform((values) => [...new Set(values.map((value) => value.trim()).filter((value) => splitPair(value) !== null))].slice(0, 20))
  .catch([])

/** An item id: a UUID or nothing (anything else could never match, and must not reach a filter). */
const configId = z
  .string()
  .refine((value) => isUuid(value))
  .transform((value) => value.toLowerCase())
  .nullable()
  .catch(null)

const yesNo = z
  .enum(['yes', 'no'])
  .transform((value) => value === 'yes')
  .nullable()
  .catch(null)

const CatalogListSchema = z.object({
  type: optionalText,
  search: text,
  health: listOf(CONFIG_HEALTHS),
  status: freeList,
  label: pairList,
  tag: pairList,
  agent_id: z.string().refine(isUuid).nullable().catch(null),
  sortBy: z.enum(CONFIG_SORT_COLUMNS).catch('name'),
  sortDesc: z.string().nullable(),
  page,
  pageSize,
  showDeleted: yesNo,
})

/** /catalog: the summary, or with `type` the list of that type's items. */
export function parseCatalogListParams(params: URLSearchParams): CatalogListParams {
  const parsed = CatalogListSchema.parse({
    type: params.get('type'),
    search: params.get('search') ?? '',
    health: params.getAll('health'),
    status: params.getAll('status'),
    label: params.getAll('label'),
    tag: params.getAll('tag'),
    agent_id: params.get('agent_id'),
    sortBy: params.get('sortBy') ?? undefined,
    sortDesc: params.get('sortDesc'),
    page: params.get('page') ?? undefined,
    pageSize: params.get('pageSize') ?? undefined,
    showDeleted: params.get('showDeleted'),
  })
  // Names read best A to Z; every other column newest or largest first.
  const sortDesc = direction(parsed.sortBy !== 'name').parse(parsed.sortDesc ?? undefined)
  return { ...parsed, sortDesc }
}

const ChangeListSchema = z.object({
  configId,
  configType: optionalText,
  changeType: optionalText,
  severity: optionalText,
  source: optionalText,
  search: text,
  sortBy: z.enum(CHANGE_SORT_COLUMNS).catch('created_at'),
  sortDesc: z.string().nullable(),
  page,
  pageSize,
})

/** /catalog/changes and an item's Changes tab (the time range is read by `timeRangeFromParams`). */
export function parseChangeListParams(params: URLSearchParams): ChangeListParams {
  const parsed = ChangeListSchema.parse({
    configId: params.get('configId'),
    configType: params.get('configType'),
    changeType: params.get('changeType'),
    severity: params.get('severity'),
    source: params.get('source'),
    search: params.get('search') ?? '',
    sortBy: params.get('sortBy') ?? undefined,
    sortDesc: params.get('sortDesc'),
    page: params.get('page') ?? undefined,
    pageSize: params.get('pageSize') ?? undefined,
  })
  const sortDesc = direction(parsed.sortBy === 'created_at' || parsed.sortBy === 'count' || parsed.sortBy === 'severity').parse(parsed.sortDesc ?? undefined)
  return { ...parsed, sortDesc }
}

const InsightListSchema = z.object({
  configId,
  analysisType: optionalText,
  severity: optionalText,
  status: optionalText,
  analyzer: optionalText,
  search: text,
  sortBy: z.enum(INSIGHT_SORT_COLUMNS).catch('last_observed'),
  sortDesc: z.string().nullable(),
  page,
  pageSize,
})

/** /catalog/insights and an item's Insights tab. */
export function parseInsightListParams(params: URLSearchParams): InsightListParams {
  const parsed = InsightListSchema.parse({
    configId: params.get('configId'),
    analysisType: params.get('analysisType'),
    severity: params.get('severity'),
    status: params.get('status'),
    analyzer: params.get('analyzer'),
    search: params.get('search') ?? '',
    sortBy: params.get('sortBy') ?? undefined,
    sortDesc: params.get('sortDesc'),
    page: params.get('page') ?? undefined,
    pageSize: params.get('pageSize') ?? undefined,
  })
  const sortDesc = direction(parsed.sortBy.endsWith('_observed')).parse(parsed.sortDesc ?? undefined)
  return { ...parsed, sortDesc }
}

const ScraperListSchema = z.object({
  search: text,
  sortBy: z.enum(SCRAPER_SORT_COLUMNS).catch('name'),
  sortDesc: z.string().nullable(),
  page,
  pageSize,
})

export function parseScraperListParams(params: URLSearchParams): ScraperListParams {
  const parsed = ScraperListSchema.parse({
    search: params.get('search') ?? '',
    sortBy: params.get('sortBy') ?? undefined,
    sortDesc: params.get('sortDesc'),
    page: params.get('page') ?? undefined,
    pageSize: params.get('pageSize') ?? undefined,
  })
  const sortDesc = direction(parsed.sortBy === 'job_time_start' || parsed.sortBy === 'created_at').parse(parsed.sortDesc ?? undefined)
  return { ...parsed, sortDesc }
}

const RelationshipSchema = z.object({
  direction: z.enum(RELATIONSHIP_DIRECTIONS).catch('all'),
  depth: z.coerce.number().int().min(1).max(MAX_RELATIONSHIP_DEPTH).catch(DEFAULT_RELATIONSHIP_DEPTH),
})

/** An item's Relationships tab: which way and how deep to walk (at most 10, spec 000 §9). */
export function parseRelationshipParams(params: URLSearchParams): RelationshipParams {
  return RelationshipSchema.parse({ direction: params.get('direction') ?? undefined, depth: params.get('depth') ?? undefined })
}

/** The Spec tab's format. */
export function parseSpecFormat(params: URLSearchParams): SpecFormat {
  return z.enum(SPEC_FORMATS).catch('json').parse(params.get('format') ?? undefined)
}
