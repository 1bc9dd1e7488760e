import { z } from 'zod'
import { CUSTOM_DURATION, DETAIL_TABS, DURATION_PRESETS, parseDurationFilter, type DetailParams } from './check-detail-model.ts'
import { parseLabelFilterJson } from '#app/lib/filter-string.ts'
import { DEFAULT_DURATION, isDurationKey, type DurationKey } from '#app/lib/durations.ts'
import { isUuid } from '#contract/uuid.ts'
import { ALL_TAB, DEFAULT_GROUP_BY, DEFAULT_PAGE_SIZE, DEFAULT_TAB_BY, PAGE_SIZES, SORT_COLUMNS, type HealthParams } from './health-model.ts'

// The /health URL parameters, read only by the loader. Kept apart from health-model.ts and
// check-detail-model.ts, which ship to the browser: zod's module-level schemas would otherwise
// put 12 KB gzip into /health's bundle (decision 007's 100 KB budget).

/**
 * Every parameter of spec 001 §2, read by one schema: a missing or bad value falls back to its
 * default (never an error), so any URL renders a page.
 */
const HealthSearchSchema = z.object({
  checkId: z
    .string()
    .refine((value) => isUuid(value))
    .transform((value) => value.toLowerCase())
    .nullable()
    .catch(null),
  timeRange: z.custom<DurationKey>((value) => isDurationKey(value)).catch(DEFAULT_DURATION),
  layout: z.enum(['table', 'card']).catch('table'),
  query: z
    .string()
    .transform((value) => value.slice(0, 200))
    .catch(''),
  groupBy: z.string().min(1).catch(DEFAULT_GROUP_BY),
  tabBy: z.string().min(1).catch(DEFAULT_TAB_BY),
  tab: z.string().min(1).catch(ALL_TAB),
  hidePassing: z
    .string()
    .nullable()
    .transform((value) => value !== 'false'),
  labels: z
    .string()
    .nullable()
    .transform((value) => parseLabelFilterJson(value)),
  sortBy: z.enum(SORT_COLUMNS).nullable().catch(null),
  sortDesc: z
    .string()
    .nullable()
    .transform((value) => value === 'true'),
  page: z
    .string()
    .regex(/^\d{1,7}$/)
    .transform(Number)
    .pipe(z.number().min(1))
    .catch(1),
  pageSize: z.coerce
    .number()
    .refine((value) => (PAGE_SIZES as readonly number[]).includes(value))
    .catch(DEFAULT_PAGE_SIZE),
  expanded: z
    .string()
    .nullable()
    .transform((value) => (value ?? '').split(',').filter(Boolean).slice(0, 200)),
  pivotBy: z.string().nullable().catch(null),
  pivotLabel: z.string().nullable().catch(null),
  pivotCellType: z.string().nullable().catch(null),
})

export function parseHealthParams(params: URLSearchParams): HealthParams {
  const raw = Object.fromEntries(Object.keys(HealthSearchSchema.shape).map((key) => [key, params.get(key)]))
  const { pivotBy, pivotLabel, pivotCellType, ...rest } = HealthSearchSchema.parse(raw)
  return { ...rest, pivot: { pivotBy, pivotLabel, pivotCellType } }
}

/**
 * The panel's own parameters, read by one schema like the list's (`parseHealthParams`): a
 * missing or bad value falls back to its default. `historyDuration` holds a preset or a custom
 * value; the no-JS form sends `historyDuration=custom` with the value in `historyDurationCustom`.
 */
const DetailSearchSchema = z.object({
  checkTab: z.enum(DETAIL_TABS).catch('history'),
  historyStatus: z.enum(['all', 'healthy', 'unhealthy']).catch('all'),
  historyDuration: z
    .string()
    .transform((value) => value.trim().slice(0, 32))
    .catch(''),
  historyDurationCustom: z
    .string()
    .transform((value) => value.trim().slice(0, 32))
    .catch(''),
  historyPage: z
    .string()
    .regex(/^\d{1,6}$/)
    .transform(Number)
    .pipe(z.number().min(1))
    .catch(1),
})

export function parseDetailParams(params: URLSearchParams): DetailParams {
  const raw = Object.fromEntries(Object.keys(DetailSearchSchema.shape).map((key) => [key, params.get(key)]))
  const parsed = DetailSearchSchema.parse(raw)
  const duration = parsed.historyDuration === CUSTOM_DURATION ? parsed.historyDurationCustom : parsed.historyDuration
  const filter = parseDurationFilter(duration)
  return {
    tab: parsed.checkTab,
    status: parsed.historyStatus,
    duration,
    durationIsPreset: duration === '' || (DURATION_PRESETS as readonly string[]).includes(duration),
    durationMs: filter.ok ? filter.ms : null,
    durationError: filter.ok ? null : filter.error,
    page: parsed.historyPage,
  }
}

/** Run Now's post (a button with hidden fields); the messages are the panel's toasts. */
const RunNowSchema = z.object({
  intent: z.literal('run-now', { errorMap: () => ({ message: 'Unknown action' }) }),
  checkId: z.string({ errorMap: () => ({ message: 'A check id is required' }) }).refine((value) => isUuid(value), 'A check id is required'),
})

export function parseRunNow(form: FormData): { ok: true; checkId: string } | { ok: false; message: string } {
  const parsed = RunNowSchema.safeParse(Object.fromEntries(form))
  if (parsed.success) return { ok: true, checkId: parsed.data.checkId }
  return { ok: false, message: parsed.error.issues[0]?.message ?? 'Unknown action' }
}
