import { PostgrestClient } from '@supabase/postgrest-js'
import { describe, expect, it } from 'vitest'
import { parseCatalogListParams, parseChangeListParams, parseInsightListParams, parseRelationshipParams, parseScraperListParams, parseSpecFormat } from '#app/lib/catalog-search.ts'
import { catalogListQuery, changeListQuery, insightListQuery, mergeSummaryRows, relationshipQuery, scraperListQuery } from '#app/lib/catalog-screens.server.ts'
import { buildRelationshipTree, configTypeIcon, formatCost, hrefWith, splitPair, type RelatedItem } from '#app/lib/catalog-vocabulary.ts'
import { timeRangeFromParams } from '#app/lib/time-range.ts'

/**
 * The catalog screens' URL state (one zod schema per screen, each bad value falling back to its
 * default) and the requests their loaders then send to the data API, read back from the data
 * client's fetch.
 */

type Sent = { path: string; query: URLSearchParams; method: string; headers: Headers }

/** Runs a query builder against a data client whose fetch records the request. */
async function sent(build: (client: PostgrestClient) => PromiseLike<unknown>): Promise<Sent> {
  let request: Sent | undefined
  const client = new PostgrestClient('http://gateway.test/api/db', {
    fetch: async (input, init) => {
      const url = new URL(input.toString())
      request = { path: url.pathname, query: url.searchParams, method: init?.method ?? 'GET', headers: new Headers(init?.headers) }
      return new Response('[]', { status: 200, headers: { 'content-type': 'application/json', 'content-range': '*/0' } })
    },
  })
  await build(client)
  return request!
}

describe('catalog list parameters', () => {
  it('defaults to the summary: no type, no filters, names A to Z, page 1 of 50, the preference decides on deleted items', () => {
    expect(parseCatalogListParams(new URLSearchParams(''))).toEqual({
      type: null, search: '', health: [], status: [], label: [], tag: [], sortBy: 'name', sortDesc: false, page: 1, pageSize: 50, showDeleted: null, agent_id: null,
    })
  })

  it('keeps known values and drops junk, never failing', () => {
    const params = parseCatalogListParams(
      new URLSearchParams('type=Kubernetes::Pod&search=%20web%20&health=Unhealthy,bogus&health=warning&status=Running&label=app=web&label=broken&tag=cluster=prod&sortBy=cost_total_30d&page=3&pageSize=100&showDeleted=yes'),
    )
    expect(params).toEqual({
      type: 'Kubernetes::Pod', search: 'web', health: ['unhealthy', 'warning'], status: ['Running'], label: ['app=web'], tag: ['cluster=prod'], sortBy: 'cost_total_30d', sortDesc: true, page: 3, pageSize: 100, showDeleted: true, agent_id: null,
    })
    expect(parseCatalogListParams(new URLSearchParams('sortBy=drop;table&sortDesc=maybe&page=-2&pageSize=7&showDeleted=perhaps'))).toMatchObject({ sortBy: 'name', sortDesc: false, page: 1, pageSize: 50, showDeleted: null })
  })

  it('reads the other screens’ parameters with their own defaults', () => {
    expect(parseChangeListParams(new URLSearchParams(''))).toMatchObject({ sortBy: 'created_at', sortDesc: true, page: 1, pageSize: 50, changeType: null })
    expect(parseChangeListParams(new URLSearchParams('sortBy=name&changeType=diff&severity=high'))).toMatchObject({ sortBy: 'name', sortDesc: false, changeType: 'diff', severity: 'high' })
    expect(parseInsightListParams(new URLSearchParams('status=open&sortBy=nope'))).toMatchObject({ status: 'open', sortBy: 'last_observed', sortDesc: true, configId: null })
    // An item id narrows a list only when it is a UUID: nothing else can reach the filter.
    expect(parseChangeListParams(new URLSearchParams('configId=0190A5C4-7D8B-7000-8000-000000000001')).configId).toBe('0190a5c4-7d8b-7000-8000-000000000001')
    expect(parseInsightListParams(new URLSearchParams('configId=eq.1,or(id)')).configId).toBeNull()
    expect(parseScraperListParams(new URLSearchParams('sortBy=job_time_start'))).toMatchObject({ sortBy: 'job_time_start', sortDesc: true })
    expect(parseSpecFormat(new URLSearchParams('format=yaml'))).toBe('yaml')
    expect(parseSpecFormat(new URLSearchParams('format=xml'))).toBe('json')
  })

  it('walks relationships at most 10 deep (spec 000 §9), all directions by default', () => {
    expect(parseRelationshipParams(new URLSearchParams(''))).toEqual({ direction: 'all', depth: 3 })
    expect(parseRelationshipParams(new URLSearchParams('direction=incoming&depth=10'))).toEqual({ direction: 'incoming', depth: 10 })
    expect(parseRelationshipParams(new URLSearchParams('direction=sideways&depth=11'))).toEqual({ direction: 'all', depth: 3 })
  })
})

describe('catalog data API requests', () => {
  it('lists one type’s live items with health, status, label and tag filters, a search and a stable order', async () => {
    const params = parseCatalogListParams(new URLSearchParams('type=Kubernetes::Pod&search=web*,(x)&health=unhealthy&health=unknown&status=Running&label=app.kubernetes.io/name=web&tag=cluster=prod&sortBy=updated_at&page=2'))
    const request = await sent((client) => catalogListQuery(client, params, false))
    expect(request.path).toBe('/api/db/configs')
    expect(request.query.get('type')).toBe('eq.Kubernetes::Pod')
    expect(request.query.get('deleted_at')).toBe('is.null')
    expect(request.query.get('or')).toBe('(health.in.(unhealthy),health.is.null,health.eq.unknown)')
    expect(request.query.get('status')).toBe('in.(Running)')
    // Containment, so a key with dots and slashes stays one JSON key.
    expect(JSON.parse(request.query.get('labels')!.replace(/^cs\./, ''))).toEqual({ 'app.kubernetes.io/name': 'web' })
    expect(JSON.parse(request.query.get('tags')!.replace(/^cs\./, ''))).toEqual({ cluster: 'prod' })
    // The search's wildcard and list characters cannot reach the filter grammar.
    expect(request.query.get('name')).toBe('ilike.*web   x*')
    expect(request.query.get('order')).toBe('updated_at.desc.nullslast,id.asc')
    expect(request.query.get('offset')).toBe('50')
    expect(request.query.get('limit')).toBe('50')
    expect(request.headers.get('prefer')).toContain('count=exact')
  })

  it('shows deleted items only when asked', async () => {
    const request = await sent((client) => catalogListQuery(client, parseCatalogListParams(new URLSearchParams('type=AWS::S3::Bucket')), true))
    expect(request.query.has('deleted_at')).toBe(false)
  })

  it('reads changes of one item within the picked range, newest first', async () => {
    const url = new URLSearchParams('rangeType=relative&from=now-7d&to=now&changeType=diff&search=image')
    const now = new Date('2026-08-21T12:00:00Z')
    const request = await sent((client) => changeListQuery(client, parseChangeListParams(url), { configId: '0190a5c4-7d8b-7000-8000-000000000001', range: timeRangeFromParams(url), now }))
    expect(request.path).toBe('/api/db/catalog_changes')
    expect(request.query.get('config_id')).toBe('eq.0190a5c4-7d8b-7000-8000-000000000001')
    expect(request.query.get('change_type')).toBe('eq.diff')
    expect(request.query.getAll('created_at')).toEqual(['gte.2026-08-14T12:00:00.000Z', 'lte.2026-08-21T12:00:00.000Z'])
    expect(request.query.get('or')).toBe('(summary.ilike.*image*,name.ilike.*image*)')
    expect(request.query.get('order')).toBe('created_at.desc.nullslast,id.desc')
    expect(request.query.get('select')).toContain('diff')
  })

  it('reads live items’ insights with their filters', async () => {
    const request = await sent((client) => insightListQuery(client, parseInsightListParams(new URLSearchParams('analysisType=security&severity=high&status=open&analyzer=S3BucketPublicRead'))))
    expect(request.path).toBe('/api/db/config_analysis_items')
    expect(Object.fromEntries(['analysis_type', 'severity', 'status', 'analyzer', 'deleted_at'].map((name) => [name, request.query.get(name)]))).toEqual({
      analysis_type: 'eq.security', severity: 'eq.high', status: 'eq.open', analyzer: 'eq.S3BucketPublicRead', deleted_at: 'is.null',
    })
  })

  it('walks relationships through the RPC with a GET (read-only, cacheable)', async () => {
    const request = await sent((client) => relationshipQuery(client, '0190a5c4-7d8b-7000-8000-000000000001', 'incoming', 5))
    expect(request.method).toBe('GET')
    expect(request.path).toBe('/api/db/rpc/related_configs_recursive')
    expect(Object.fromEntries(['config_id', 'type_filter', 'max_depth', 'include_deleted_configs'].map((name) => [name, request.query.get(name)]))).toEqual({
      config_id: '0190a5c4-7d8b-7000-8000-000000000001', type_filter: 'incoming', max_depth: '5', include_deleted_configs: 'false',
    })
  })

  it('pages scrapers by their last run', async () => {
    const request = await sent((client) => scraperListQuery(client, parseScraperListParams(new URLSearchParams('sortBy=job_time_start&search=kube'))))
    expect(request.path).toBe('/api/db/config_scrapers_with_status')
    expect(request.query.get('name')).toBe('ilike.*kube*')
    expect(request.query.get('order')).toBe('job_time_start.desc.nullslast,id.asc')
  })
})

describe('catalog rules', () => {
  it('merges the summary API’s rows into one row per type', () => {
    expect(
      mergeSummaryRows([
        { type: 'Kubernetes::Pod', health: 'healthy', count: 38, changes: 17, analysis: { security: 2 }, cost_30d: 12.5 },
        { type: 'Kubernetes::Pod', health: 'unhealthy', count: 3, changes: 17, analysis: { security: 2 }, cost_30d: 12.5 },
        { type: 'AWS::S3::Bucket', health: { healthy: 4, warning: 1 }, count: 5, updated_at: '2026-08-21T08:00:00Z' },
      ]),
    ).toEqual([
      { type: 'AWS::S3::Bucket', count: 5, health: { healthy: 4, warning: 1 }, changes: 0, analysis: 0, cost_30d: null, updated_at: '2026-08-21T08:00:00Z' },
      { type: 'Kubernetes::Pod', count: 41, health: { healthy: 38, unhealthy: 3 }, changes: 17, analysis: 2, cost_30d: 12.5, updated_at: null },
    ])
  })

  it('builds a relationship tree, each item once, cycles ended, parents apart', () => {
    const item = (id: string, name: string, related: string[] = []): RelatedItem => ({ id, name, type: 'T', health: null, status: null, related_ids: related, deleted_at: null })
    const { root, detached } = buildRelationshipTree('a', [item('a', 'root', ['b', 'c']), item('b', 'bee', ['d', 'a']), item('c', 'cee', ['d']), item('d', 'dee', ['b']), item('p', 'parent')])
    expect(root?.children.map((child) => child.item.name)).toEqual(['bee', 'cee'])
    expect(root?.children[0]!.children.map((child) => child.item.id)).toEqual(['d'])
    expect(root?.children[1]!.children).toEqual([])
    expect(detached.map((row) => row.id)).toEqual(['p'])
    expect(buildRelationshipTree('missing', [item('x', 'x')])).toEqual({ root: null, detached: [item('x', 'x')] })
  })

  it('changes one URL parameter and restarts paging', () => {
    expect(hrefWith('type=T&page=3&label=a=1', { label: ['a=1', 'b=2'] })).toBe('?type=T&label=a%3D1&label=b%3D2')
    expect(hrefWith('type=T&page=3', { page: '4' })).toBe('?type=T&page=4')
    expect(hrefWith('showDeleted=yes', { showDeleted: null })).toBe('?')
    expect(splitPair('app.kubernetes.io/name=web=1')).toEqual(['app.kubernetes.io/name', 'web=1'])
    expect(splitPair('=x')).toBeNull()
  })

  it('formats costs and picks an icon per type family', () => {
    expect(formatCost('1395.648')).toBe('$1,395.65')
    expect(formatCost(0)).toBe('')
    expect(formatCost(null)).toBe('')
    expect(configTypeIcon('Kubernetes::Pod')).toBe('Boxes')
    expect(configTypeIcon('AWS::RDS::DBInstance')).toBe('Table2')
    expect(configTypeIcon('Something::Else')).toBe('Radar')
  })
})
