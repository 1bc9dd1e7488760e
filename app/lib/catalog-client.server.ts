import { z } from 'zod'
import { apiJson, GatewayError, type ApiArgs } from './gateway.server.ts'
import { dbClient, requireData } from './data-client.server.ts'

/**
 * The catalog's typed calls for the console: the catalog API (`/api/catalog/summary`,
 * `/api/catalog/changes`, `/api/catalog/{id}/relationships`), resource search
 * (`/api/resources/search`) and one config item's detail row (`/api/db/config_detail`).
 * Request shapes follow http-api.md §2.2; each answer is read with zod, so a backend that
 * answers something else fails here with a clear message instead of deep inside a page.
 * Row-level access is the backend's: these calls see only what the signed-in person may see.
 */

/* ------------------------------------------------------------------------------------------ */
/* Summary                                                                                      */

export type CostRange = '1h' | '1d' | '30d'

export type CatalogSummaryRequest = {
  /** `type` or tag keys; default `['type']`. */
  groupBy?: string[]
  /** Extra tag columns to return with each group (their single value, or null when mixed). */
  tags?: string[]
  /** label/tag key → filter expression (`a,b,!c`, `web*`). */
  filter?: Record<string, string>
  /** Filter expressions on the item's status and health. */
  status?: string
  health?: string
  /** Count soft-deleted items too. */
  deleted?: boolean
  /** Adds `cost_<range>` to each row. */
  cost?: CostRange
  /** Adds `changes`: changes since this duration ago (`3d`, `7d`, `30d`, `12h`). */
  changes?: { since: string }
  /** Adds `analysis`: open insights by analysis type. */
  analysis?: Record<string, never>
}

const countMap = z.record(z.string(), z.number())

const SummaryRowSchema = z
  .object({
    health: countMap,
    count: z.number(),
    created_at: z.string().nullable(),
    updated_at: z.string().nullable(),
    analysis: countMap.nullish(),
    changes: z.number().nullish(),
    cost_1h: z.number().nullish(),
    cost_1d: z.number().nullish(),
    cost_30d: z.number().nullish(),
  })
  .catchall(z.unknown())

/** One group: `type` and/or one column per tag key of groupBy (and of `tags`), with its figures. */
export type CatalogSummaryRow = z.infer<typeof SummaryRowSchema>

export async function getCatalogSummary(args: ApiArgs, request: CatalogSummaryRequest = {}): Promise<CatalogSummaryRow[]> {
  const { data } = await apiJson<unknown>(args, '/catalog/summary', { method: 'POST', json: request })
  return parseAnswer(z.array(SummaryRowSchema), data, 'catalog summary')
}

/* ------------------------------------------------------------------------------------------ */
/* Changes                                                                                      */

export type ChangeDirection = 'upstream' | 'downstream' | 'none' | 'all'

export type CatalogChangesRequest = {
  /** Anchor config ids (comma-separated, or one). */
  id?: string
  /** Filter expressions (`a,b,!c`, wildcards). */
  config_type?: string
  /** Change type filter expression. */
  type?: string
  summary?: string
  source?: string
  /** `high` = high and above; `!low` excludes low. */
  severity?: string
  created_by?: string
  /** Tag selector: `cluster=prod,namespace in (a,b),team!=x`. */
  tags?: string
  agent_id?: string
  /** RFC3339 or date math (`now-7d`); both empty → the last two days. */
  from?: string
  to?: string
  from_inserted_at?: string
  to_inserted_at?: string
  /** 1-based. */
  page?: number
  page_size?: number
  /** `name`, `change_type`, `summary`, `source`, `created_at`, `count`; `-` prefix = descending. */
  sort_by?: string
  recursive?: ChangeDirection
  /** At most 5. */
  depth?: number
  soft?: boolean
  include_deleted_configs?: boolean
  /** Ignore filters that cannot be read instead of answering 400. */
  lenient?: boolean
}

const ChangeSchema = z
  .object({
    id: z.string(),
    config_id: z.string(),
    agent_id: z.string().nullish(),
    external_change_id: z.string().nullish(),
    change_type: z.string().nullish(),
    severity: z.string().nullish(),
    source: z.string().nullish(),
    summary: z.string().nullish(),
    created_at: z.string(),
    first_observed: z.string().nullish(),
    count: z.number().nullish(),
    name: z.string().nullish(),
    type: z.string().nullish(),
    tags: z.record(z.string(), z.unknown()).nullish(),
    created_by: z.string().nullish(),
    external_created_by: z.string().nullish(),
    inserted_at: z.string().nullish(),
    deleted_at: z.string().nullish(),
  })
  .catchall(z.unknown())

export type CatalogChange = z.infer<typeof ChangeSchema>

const ChangesAnswerSchema = z.object({
  summary: countMap.optional(),
  total: z.number().optional(),
  changes: z.array(ChangeSchema).optional(),
})

export type CatalogChangesPage = { summary: Record<string, number>; total: number; changes: CatalogChange[] }

export async function getCatalogChanges(args: ApiArgs, request: CatalogChangesRequest = {}): Promise<CatalogChangesPage> {
  const { data } = await apiJson<unknown>(args, '/catalog/changes', { method: 'POST', json: request })
  // The API leaves out empty members (http-api.md §2.2.2).
  const answer = parseAnswer(ChangesAnswerSchema, data, 'catalog changes')
  return { summary: answer.summary ?? {}, total: answer.total ?? 0, changes: answer.changes ?? [] }
}

/** One change with its diff, patches and details (the list leaves them out), or null. */
export async function getConfigChange(args: ApiArgs, id: string): Promise<ConfigChangeDetail | null> {
  const rows = requireData(
    await dbClient(args)
      .from('config_changes')
      .select('id,config_id,change_type,severity,source,summary,diff,patches,details,created_at,first_observed,count,created_by,external_created_by')
      .eq('id', id)
      .limit(1),
  )
  const row = (rows as unknown[] | null)?.[0]
  return row ? parseAnswer(ConfigChangeDetailSchema, row, 'config change') : null
}

const ConfigChangeDetailSchema = ChangeSchema.extend({
  diff: z.string().nullish(),
  patches: z.unknown(),
  details: z.unknown(),
})
export type ConfigChangeDetail = z.infer<typeof ConfigChangeDetailSchema>

/* ------------------------------------------------------------------------------------------ */
/* Resource search                                                                              */

export type ResourceSelector = {
  id?: string
  name?: string
  namespace?: string
  /** Agent id or name, `all` (default for configs) or `self` (the local agent). */
  agent?: string
  /** Free text or the grammar `name=web* type=Kubernetes::Pod health=healthy,warning`. */
  search?: string
  limit?: number
  includeDeleted?: boolean
  tagSelector?: string
  labelSelector?: string
  fieldSelector?: string
  health?: string
  types?: string[]
  statuses?: string[]
}

export type ResourceSearchRequest = {
  /** Most rows per kind (default 50, at most 1000). */
  limit?: number
  timestamps?: boolean
  configs?: ResourceSelector[]
  components?: ResourceSelector[]
  checks?: ResourceSelector[]
  canaries?: ResourceSelector[]
  config_changes?: ResourceSelector[]
  config_analysis?: ResourceSelector[]
  playbooks?: ResourceSelector[]
  connections?: ResourceSelector[]
}

const FoundSchema = z
  .object({
    id: z.string(),
    agent: z.string().nullish(),
    name: z.string().nullish(),
    namespace: z.string().nullish(),
    type: z.string().nullish(),
    tags: z.record(z.string(), z.unknown()).nullish(),
    health: z.string().nullish(),
    status: z.string().nullish(),
    severity: z.string().nullish(),
    created_at: z.string().nullish(),
    updated_at: z.string().nullish(),
    deleted_at: z.string().nullish(),
  })
  .catchall(z.unknown())

export type FoundResource = z.infer<typeof FoundSchema>

const SEARCH_KINDS = ['configs', 'components', 'checks', 'canaries', 'config_changes', 'config_analysis', 'playbooks', 'connections'] as const
export type SearchKind = (typeof SEARCH_KINDS)[number]
export type ResourceSearchResult = Record<SearchKind, FoundResource[]>

const SearchAnswerSchema = z.object(Object.fromEntries(SEARCH_KINDS.map((kind) => [kind, z.array(FoundSchema).optional()])) as Record<SearchKind, z.ZodOptional<z.ZodArray<typeof FoundSchema>>>)

export async function searchResources(args: ApiArgs, request: ResourceSearchRequest): Promise<ResourceSearchResult> {
  const { data } = await apiJson<unknown>(args, '/resources/search', { method: 'POST', json: request })
  const answer = parseAnswer(SearchAnswerSchema, data, 'resource search')
  // Kinds without hits are left out of the answer (http-api.md §2.2.3).
  return Object.fromEntries(SEARCH_KINDS.map((kind) => [kind, answer[kind] ?? []])) as ResourceSearchResult
}

/* ------------------------------------------------------------------------------------------ */
/* Relationships                                                                                */

export type RelationshipDirection = 'incoming' | 'outgoing' | 'all'

const RelatedSchema = z
  .object({
    id: z.string(),
    name: z.string().nullish(),
    type: z.string().nullish(),
    health: z.string().nullish(),
    status: z.string().nullish(),
    tags: z.record(z.string(), z.unknown()).nullish(),
    deleted_at: z.string().nullish(),
    depth: z.number(),
    direction: z.enum(['incoming', 'outgoing', 'self']),
    relation: z.string().nullish(),
    related_ids: z.array(z.string()).nullish(),
  })
  .catchall(z.unknown())
export type RelatedConfig = z.infer<typeof RelatedSchema>

const EdgeSchema = z.object({
  config_id: z.string(),
  related_id: z.string(),
  relation: z.string().nullable(),
  depth: z.number(),
})
export type RelationshipEdge = z.infer<typeof EdgeSchema>

const RelationshipsSchema = z.object({
  id: z.string(),
  direction: z.enum(['incoming', 'outgoing', 'all']),
  depth: z.number(),
  incoming: z.array(RelatedSchema),
  outgoing: z.array(RelatedSchema),
  edges: z.array(EdgeSchema),
})
export type ConfigRelationships = z.infer<typeof RelationshipsSchema>

/**
 * The items related to one config item, walked `depth` levels (1–10, default 5) in one or both
 * directions. Null when the item does not exist or is not visible to this person.
 */
export async function getConfigRelationships(
  args: ApiArgs,
  id: string,
  options: { direction?: RelationshipDirection; depth?: number; includeDeleted?: boolean } = {},
): Promise<ConfigRelationships | null> {
  const query = new URLSearchParams()
  if (options.direction) query.set('direction', options.direction)
  if (options.depth !== undefined) query.set('depth', String(options.depth))
  if (options.includeDeleted) query.set('include_deleted', 'true')
  const search = query.toString()
  const suffix = search ? `?${search}` : ''
  try {
    const { data } = await apiJson<unknown>(args, `/catalog/${encodeURIComponent(id)}/relationships${suffix}`)
    return parseAnswer(RelationshipsSchema, data, 'config relationships')
  } catch (error) {
    if (error instanceof GatewayError && error.status === 404) return null
    throw error
  }
}

/* ------------------------------------------------------------------------------------------ */
/* Config detail                                                                                */

const ConfigDetailSchema = z
  .object({
    id: z.string(),
    name: z.string().nullable(),
    type: z.string(),
    config_class: z.string().nullish(),
    icon: z.string().nullish(),
    status: z.string().nullish(),
    health: z.string().nullish(),
    ready: z.boolean().nullish(),
    description: z.string().nullish(),
    labels: z.record(z.string(), z.unknown()).nullish(),
    tags: z.record(z.string(), z.unknown()).nullish(),
    properties: z.unknown(),
    config: z.unknown(),
    external_id: z.array(z.string()).nullish(),
    agent_id: z.string().nullish(),
    agent_name: z.string().nullish(),
    parent_id: z.string().nullish(),
    path: z.string().nullish(),
    source: z.string().nullish(),
    cost_per_minute: z.number().nullish(),
    cost_total_1d: z.number().nullish(),
    cost_total_7d: z.number().nullish(),
    cost_total_30d: z.number().nullish(),
    created_at: z.string(),
    updated_at: z.string().nullish(),
    deleted_at: z.string().nullish(),
    delete_reason: z.string().nullish(),
    last_scraped_time: z.string().nullish(),
    summary: z
      .object({ relationships: z.number(), analysis: z.number(), changes: z.number(), playbook_runs: z.number(), checks: z.number() })
      .partial()
      .nullish(),
    scraper: z.object({ id: z.string(), name: z.string() }).nullish(),
  })
  .catchall(z.unknown())

export type ConfigDetail = z.infer<typeof ConfigDetailSchema>

/** One config item with its counts (`config_detail`), or null when it does not exist or is not visible. */
export async function getConfigDetail(args: ApiArgs, id: string): Promise<ConfigDetail | null> {
  const rows = requireData(await dbClient(args).from('config_detail').select('*').eq('id', id).limit(1))
  const row = (rows as unknown[] | null)?.[0]
  return row ? parseAnswer(ConfigDetailSchema, row, 'config detail') : null
}

/* ------------------------------------------------------------------------------------------ */

function parseAnswer<T>(schema: z.ZodType<T>, data: unknown, what: string): T {
  const parsed = schema.safeParse(data)
  if (parsed.success) return parsed.data
  const issue = parsed.error.issues[0]
  const where = issue?.path.length ? ` at ${issue.path.join('.')}` : ''
  throw new GatewayError(502, `The ${what} answer was not understood${where}: ${issue?.message ?? 'unexpected shape'}`, 'http', data)
}
