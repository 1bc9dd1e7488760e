import { z } from 'zod'
import { DEFAULT_TOPOLOGY_PAGE_SIZE, TOPOLOGY_PAGE_SIZES, TOPOLOGY_SORTS, type TopologyParams } from '#app/components/topology/topology-model.ts'

// The topology screens' URL, read only by loaders (zod stays out of the pages' bundle).

const optionalText = z
  .string()
  .trim()
  .max(200)
  .nullable()
  .transform((value) => (value && value !== 'All' ? value : null))
  .catch(null)

const TopologySearchSchema = z.object({
  team: optionalText,
  // One `key=value` pair, as the label filter offers them.
  label: optionalText.refine((value) => value === null || /^[^=,]+=[^,]*$/.test(value)).catch(null),
  status: optionalText,
  type: optionalText,
  search: z
    .string()
    .nullable()
    .transform((value) => (value ?? '').trim().slice(0, 200))
    .catch(''),
  sortBy: z.enum(TOPOLOGY_SORTS).catch('name'),
  sortOrder: z.enum(['asc', 'desc']).catch('asc'),
  page: z
    .string()
    .regex(/^\d{1,7}$/)
    .transform(Number)
    .pipe(z.number().min(1))
    .catch(1),
  pageSize: z.coerce
    .number()
    .refine((value) => (TOPOLOGY_PAGE_SIZES as readonly number[]).includes(value))
    .catch(DEFAULT_TOPOLOGY_PAGE_SIZE),
  // Spec 002 §2: the toggle counts as on unless the value is 'no'; absent, the preference decides.
  showHidden: z
    .string()
    .nullable()
    .transform((value) => (value === null ? null : value !== 'no'))
    .catch(null),
})

/** Every parameter of the topology screens; a bad value falls back to its default, never an error. */
export function parseTopologyParams(params: URLSearchParams): TopologyParams {
  return TopologySearchSchema.parse({
    team: params.get('team'),
    label: params.get('labels') ?? params.get('label'),
    status: params.get('status'),
    type: params.get('type'),
    search: params.get('search'),
    sortBy: params.get('sortBy') ?? undefined,
    sortOrder: params.get('sortOrder') ?? undefined,
    page: params.get('page') ?? undefined,
    pageSize: params.get('pageSize') ?? undefined,
    showHidden: params.get('showHiddenComponents'),
  })
}
