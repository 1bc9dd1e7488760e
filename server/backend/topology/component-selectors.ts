import { createHash } from 'node:crypto'
import type { Db } from '#server/db/client.ts'
import { MAX_SEARCH_LIMIT, resourceSearch, SelectorSchema, type SearchKind, type Selector } from '#server/backend/catalog/resource-search.ts'
import { EVERY_CONFIG } from '#server/backend/catalog/config-access.ts'
import { CatalogInputError } from '#server/backend/catalog/catalog-input.ts'
import { canonicalJson } from '#server/backend/catalog/scrape-store.ts'
import type { CheckLink, ComponentLink, ConfigLink } from './topology-model.ts'

/**
 * A component's `checks: [{selector}]`, `configs` and `selectors` resolved to live rows through
 * the resource selectors of `/api/resources/search` (resource-specs §0.4), so a topology selects
 * exactly what the search API would. The runner reads as the system: every row, no caller's
 * row-level scope.
 */

/** A selector the search cannot run (bad syntax, a field of the wrong type): reported per spec entry. */
export class SelectorError extends Error {}

export type SelectorInput = Record<string, unknown>

/** Which spec entry made a link: stable across runs while the entry is unchanged, so unchanged links cost no write. */
export function selectorIdOf(selector: unknown): string {
  return createHash('sha256').update(canonicalJson(selector)).digest('hex').slice(0, 16)
}

function mapTerms(map: unknown): string[] {
  if (!map || typeof map !== 'object' || Array.isArray(map)) return []
  return Object.entries(map as Record<string, unknown>).map(([key, value]) => `${key}=${String(value)}`)
}

function joinTerms(existing: unknown, extra: string[]): string | undefined {
  const terms = [typeof existing === 'string' && existing.trim() !== '' ? existing.trim() : undefined, ...extra].filter(Boolean)
  return terms.length > 0 ? terms.join(',') : undefined
}

/**
 * The topology dialect to the search's selector: older specs write `type: X` for `types: [X]`
 * and `labels:`/`tags:` maps for label and tag selectors; fields the search does not know are
 * dropped rather than silently matching everything.
 */
export function toSearchSelector(input: SelectorInput): Selector {
  const types = [...(Array.isArray(input.types) ? input.types : []), ...(typeof input.type === 'string' && input.type !== '' ? [input.type] : [])]
  const candidate = {
    ...input,
    types: types.length > 0 ? types : undefined,
    labelSelector: joinTerms(input.labelSelector, mapTerms(input.labels)),
    tagSelector: joinTerms(input.tagSelector, mapTerms(input.tags)),
  }
  const parsed = SelectorSchema.safeParse(candidate)
  if (!parsed.success) {
    const issue = parsed.error.issues[0]!
    throw new SelectorError(`${issue.path.join('.') || 'selector'}: ${issue.message}`)
  }
  return parsed.data
}

/** True when the selector names nothing: it would match every row, which no spec means. */
function isEmptySelector(selector: Selector): boolean {
  return Object.entries(selector).every(([key, value]) => value === undefined || key === 'limit' || key === 'includeDeleted' || key === 'cache')
}

type Hit = { id: string; tags?: Record<string, string> }

async function search(db: Db, kind: SearchKind, selector: Selector): Promise<Hit[]> {
  if (isEmptySelector(selector)) throw new SelectorError('the selector names no field; it would match everything')
  let text: string
  try {
    text = await resourceSearch(db, { [kind]: [selector], limit: MAX_SEARCH_LIMIT }, EVERY_CONFIG, async () => true)
  } catch (error) {
    // The search's input errors (a bad label selector, an id that is no UUID) are the spec's fault.
    if (error instanceof CatalogInputError) throw new SelectorError(error.message)
    throw error
  }
  return ((JSON.parse(text) as Partial<Record<SearchKind, Hit[]>>)[kind] ?? [])
}

export async function resolveCheckLinks(db: Db, input: SelectorInput): Promise<CheckLink[]> {
  const hits = await search(db, 'checks', toSearchSelector(input))
  if (hits.length === 0) return []
  const { rows } = await db.query<{ id: string; canary_id: string }>('SELECT id, canary_id FROM checks WHERE id = ANY($1::uuid[])', [hits.map((hit) => hit.id)])
  const selectorId = selectorIdOf(input)
  return rows.map((row) => ({ checkId: row.id, canaryId: row.canary_id, selectorId }))
}

export async function resolveConfigLinks(db: Db, input: SelectorInput): Promise<ConfigLink[]> {
  const hits = await search(db, 'configs', toSearchSelector(input))
  const selectorId = selectorIdOf(input)
  return hits.map((hit) => ({ configId: hit.id, selectorId }))
}

export async function resolveComponentLinks(db: Db, input: SelectorInput): Promise<ComponentLink[]> {
  const hits = await search(db, 'components', toSearchSelector(input))
  const selectorId = selectorIdOf(input)
  return hits.map((hit) => ({ componentId: hit.id, selectorId }))
}

/** The distinct values of one config tag among the configs a selector matches (groupBy). */
export async function configTagValues(db: Db, tag: string, input: SelectorInput | undefined): Promise<string[]> {
  const selector = toSearchSelector({ ...(input ?? {}), tagSelector: joinTerms(input?.tagSelector, [tag]) })
  const hits = await search(db, 'configs', selector)
  const values = new Set<string>()
  for (const hit of hits) {
    const value = hit.tags?.[tag]
    if (typeof value === 'string' && value !== '') values.add(value)
  }
  return [...values].sort()
}
