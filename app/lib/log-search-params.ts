import { z } from 'zod'
import { isUuid } from '#contract/uuid.ts'
import { DEFAULT_LOG_RANGE, DEFAULT_PAGE_LOG_LIMIT, LOG_LIMITS, LOG_RANGES, parseLabelText, type LogSource } from '#app/components/logs/log-vocabulary.ts'

/* Loader-only: module-level zod schemas stay out of the modules a page's component imports (decision 016). */

const text = (max: number) => z.string().trim().max(max).nullable().transform((value) => value ?? '').catch('')

/** /logs search parameters; a bad value falls back to its default, never a 500. */
const LogPageSearchSchema = z.object({
  source: z
    .string()
    .nullable()
    .transform((value): LogSource | null => {
      if (!value) return null
      if (value.startsWith('backend:') && value.length > 8 && value.length <= 208) return { kind: 'backend', name: value.slice(8) }
      if (value.startsWith('component:') && isUuid(value.slice(10))) return { kind: 'component', id: value.slice(10) }
      return null
    })
    .catch(null),
  range: z
    .string()
    .nullable()
    .transform((value) => LOG_RANGES.find(([key]) => key === value)?.[0] ?? DEFAULT_LOG_RANGE)
    .catch(DEFAULT_LOG_RANGE),
  labels: text(1000),
  query: text(1000),
  filter: text(200),
  limit: z.coerce
    .number()
    .int()
    .refine((value) => (LOG_LIMITS as readonly number[]).includes(value))
    .catch(DEFAULT_PAGE_LOG_LIMIT),
})

export type LogPageSearch = z.infer<typeof LogPageSearchSchema>

export function parseLogPageSearch(params: URLSearchParams): LogPageSearch {
  const search = LogPageSearchSchema.parse({
    source: params.get('source'),
    range: params.get('range'),
    labels: params.get('labels'),
    query: params.get('query'),
    filter: params.get('filter'),
    limit: params.get('limit') ?? undefined,
  })
  // Links from elsewhere name a component or backend directly.
  if (!search.source) {
    const id = params.get('id')
    const backend = params.get('backend')?.trim()
    if (id && isUuid(id)) search.source = { kind: 'component', id }
    else if (backend && backend.length <= 200) search.source = { kind: 'backend', name: backend }
  }
  return search
}

export { parseLabelText }
