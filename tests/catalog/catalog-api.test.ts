import request from 'supertest'
import { beforeAll, describe, expect, it } from 'vitest'
import type { Db } from '#server/db/client.ts'
import { parseDateMath, parseSelector } from '#server/backend/catalog/catalog-input.ts'
import { parseSearch } from '#server/backend/catalog/resource-search.ts'
import { createChangeWindows } from '#server/backend/catalog/change-windows.ts'
import { useTestApp } from '#tests/support/use-test-app.ts'
import { bearer, TEST_TOKEN } from '#tests/support/test-app.ts'

type Change = { id: string; config_id: string; change_type: string; severity?: string; name?: string; created_at: string; tags?: Record<string, string> }
type ChangesAnswer = { summary?: Record<string, number>; total?: number; changes?: Change[] }

const HOUR = 3_600_000

/**
 * A small estate: a chain of seven hard-linked items (cluster → … → container) to walk depth,
 * a soft link, tagged items on two clusters and an edge agent, changes spread over ten days.
 */
async function seedEstate(db: Db) {
  const insert = async (fields: { name: string; type: string; parent?: string; tags?: Record<string, string>; labels?: Record<string, string>; health?: string; status?: string; agent?: string; cost30?: number; cost1d?: number; deleted?: boolean; path?: string }) =>
    (
      await db.query<{ id: string }>(
        `INSERT INTO config_items (name, type, config_class, parent_id, tags, labels, health, status, agent_id, cost_total_30d, cost_total_1d, cost_per_minute, deleted_at, path)
         VALUES ($1, $2, split_part($2, '::', 2), $3, $4::jsonb, $5::jsonb, $6, $7, coalesce($8::uuid, '00000000-0000-0000-0000-000000000000'), $9, $10, $10 / 1440.0, CASE WHEN $11 THEN now() END, $12)
         RETURNING id`,
        [fields.name, fields.type, fields.parent ?? null, JSON.stringify(fields.tags ?? {}), JSON.stringify(fields.labels ?? {}), fields.health ?? null, fields.status ?? null, fields.agent ?? null, fields.cost30 ?? null, fields.cost1d ?? null, fields.deleted ?? false, fields.path ?? null],
      )
    ).rows[0]!.id
  const edge = (await db.query<{ id: string }>(`INSERT INTO agents (name) VALUES ('edge-1') RETURNING id`)).rows[0]!.id

  const chain: string[] = []
  const chainTypes = ['Kubernetes::Cluster', 'Kubernetes::Namespace', 'Kubernetes::Deployment', 'Kubernetes::ReplicaSet', 'Kubernetes::Pod', 'Kubernetes::Container', 'Kubernetes::Process']
  for (const [index, type] of chainTypes.entries()) {
    chain.push(await insert({
      name: `chain-${index}`, type, parent: chain[index - 1], tags: { cluster: 'prod', namespace: 'shop' },
      health: index === 4 ? 'unhealthy' : 'healthy', status: 'Running', cost30: 10, cost1d: 1,
      path: chain.length ? chain.join('.') : undefined,
    }))
  }
  const webProd = await insert({ name: 'web-prod', type: 'Kubernetes::Pod', tags: { cluster: 'prod', namespace: 'web', team: 'a' }, labels: { app: 'web' }, health: 'healthy', status: 'Running', cost30: 5 })
  const webDev = await insert({ name: 'web-dev', type: 'Kubernetes::Pod', tags: { cluster: 'dev', namespace: 'web', team: 'b' }, labels: { app: 'web' }, health: 'warning', status: 'Pending', cost30: 2 })
  const apiEdge = await insert({ name: 'api-edge', type: 'Kubernetes::Pod', tags: { cluster: 'edge', namespace: 'api' }, health: 'healthy', status: 'Running', agent: edge })
  const bucket = await insert({ name: 'assets', type: 'AWS::S3::Bucket', tags: { account: '1234' }, health: 'healthy' })
  const gone = await insert({ name: 'web-old', type: 'Kubernetes::Pod', tags: { cluster: 'prod' }, health: 'unknown', deleted: true })
  // A soft (scraper-defined) link from web-prod to the bucket.
  await db.query(`INSERT INTO config_relationships (config_id, related_id, relation) VALUES ($1, $2, 'uses')`, [webProd, bucket])

  const change = async (configId: string, type: string, hoursAgo: number, extra: { severity?: string; summary?: string; source?: string; createdBy?: string } = {}) => {
    await db.query(
      `INSERT INTO config_changes (config_id, change_type, severity, summary, source, external_created_by, created_at, first_observed)
       VALUES ($1, $2, $3, $4, $5, $6, now() - make_interval(secs => $7), now() - make_interval(secs => $7))`,
      [configId, type, extra.severity ?? 'info', extra.summary ?? `${type} happened`, extra.source ?? 'kubernetes', extra.createdBy ?? null, hoursAgo * 3600],
    )
  }
  for (const [index, id] of chain.entries()) await change(id, 'diff', 1 + index, { severity: index === 4 ? 'high' : 'info' })
  await change(chain[4]!, 'Pulled', 3, { severity: 'low', source: 'kubelet' })
  await change(chain[4]!, 'BackOff', 30, { severity: 'critical', source: 'kubelet', createdBy: 'deploy-bot' })
  await change(webProd, 'diff', 2, { summary: 'replicas 2 → 3' })
  await change(webDev, 'diff', 5)
  await change(apiEdge, 'diff', 6)
  await change(bucket, 'UPDATE', 7, { source: 'aws' })
  await change(webProd, 'diff', 24 * 9)
  await change(gone, 'DELETE', 4)
  await db.query(`INSERT INTO config_analysis (config_id, analyzer, analysis_type, severity, summary) VALUES ($1, 'privileged', 'security', 'high', 'runs privileged'), ($1, 'limits', 'cost', 'low', 'no limits'), ($2, 'old-image', 'security', 'medium', 'old')`, [chain[4], webProd])
  return { edge, chain, webProd, webDev, apiEdge, bucket, gone }
}

describe('catalog API', () => {
  const testApp = useTestApp()
  let estate: Awaited<ReturnType<typeof seedEstate>>
  const post = (path: string, body: unknown) => request(testApp.app).post(path).set(bearer).send(body as object)

  beforeAll(async () => {
    estate = await seedEstate(testApp.db)
  })

  describe('POST /api/catalog/summary', () => {
    it('groups live items by type with health buckets, changes, insights and cost', async () => {
      const response = await post('/api/catalog/summary', { cost: '30d', changes: { since: '7d' }, analysis: {} })
      expect(response.status, response.text).toBe(200)
      const rows = response.body as Record<string, unknown>[]
      const pods = rows.find((row) => row.type === 'Kubernetes::Pod')!
      // chain-4, web-prod, web-dev, api-edge; web-old is deleted.
      expect(pods).toMatchObject({ count: 4, health: { unhealthy: 1, healthy: 2, warning: 1 }, cost_30d: 17, analysis: { security: 2, cost: 1 } })
      // chain-4: diff, Pulled, BackOff; web-prod one (the nine-day-old one is outside 7d); web-dev; api-edge.
      expect(pods.changes).toBe(6)
      expect(typeof pods.created_at).toBe('string')
      expect(rows.map((row) => row.type)).toEqual([...rows.map((row) => row.type as string)].sort())
      expect(rows.find((row) => row.type === 'AWS::S3::Bucket')).toMatchObject({ count: 1, health: { healthy: 1 } })
    })

    it('groups by a tag key, adds tag columns, filters by health and status, and counts deleted items on request', async () => {
      const byCluster = (await post('/api/catalog/summary', { groupBy: ['cluster'], tags: ['namespace'] })).body as Record<string, unknown>[]
      expect(byCluster.find((row) => row.cluster === 'dev')).toMatchObject({ count: 1, namespace: 'web' })
      expect(byCluster.find((row) => row.cluster === 'prod')).toMatchObject({ count: 8, namespace: null })
      // Items without the tag form their own group.
      expect(byCluster.find((row) => row.cluster === null)).toMatchObject({ count: 1 })
      expect(byCluster.some((row) => 'cost_30d' in row || 'changes' in row)).toBe(false)
      const unhealthy = (await post('/api/catalog/summary', { health: 'unhealthy,warning' })).body as Record<string, unknown>[]
      expect(unhealthy).toEqual([expect.objectContaining({ type: 'Kubernetes::Pod', count: 2 })])
      const notRunning = (await post('/api/catalog/summary', { status: '!Running', filter: { app: 'web' } })).body as Record<string, unknown>[]
      expect(notRunning).toEqual([expect.objectContaining({ type: 'Kubernetes::Pod', count: 1, health: { warning: 1 } })])
      const withDeleted = (await post('/api/catalog/summary', { deleted: true })).body as Record<string, unknown>[]
      expect(withDeleted.find((row) => row.type === 'Kubernetes::Pod')).toMatchObject({ count: 5 })
      expect((await post('/api/catalog/summary', { groupBy: ['type', 'cluster'] })).body).toContainEqual(expect.objectContaining({ type: 'Kubernetes::Pod', cluster: 'dev', count: 1 }))
    })

    it('answers 400 with the reference texts', async () => {
      expect((await post('/api/catalog/summary', { cost: '7d' })).body).toEqual({ error: 'cost range is not allowed. allowed (1h, 1d, 30d)' })
      const badSince = await post('/api/catalog/summary', { changes: { since: 'soon' } })
      expect(badSince.status).toBe(400)
      expect(badSince.body.error).toMatch(/invalid changes.since "soon"/)
      const badGroup = await post('/api/catalog/summary', { groupBy: ['name; drop table'] })
      expect(badGroup.status).toBe(400)
      expect(badGroup.body.error).toMatch(/invalid groupBy "name; drop table"/)
      const wrongType = await post('/api/catalog/summary', { groupBy: 'type' })
      expect(wrongType.status).toBe(400)
      expect(wrongType.body.error).toMatch(/^bad request: groupBy: /)
      const badJson = await request(testApp.app).post('/api/catalog/summary').set(bearer).set('content-type', 'application/json').send('{"groupBy": [')
      expect(badJson.status).toBe(400)
      expect(badJson.body.error).toMatch(/invalid JSON/)
    })

    it('answers 3d, 7d and 30d from the pre-aggregated counts once refreshed, other windows live', async () => {
      const windows = createChangeWindows(testApp.db, (error) => {
        throw error
      })
      // A background refresh the API started may hold the lock: wait for ours to run.
      while (!(await windows.refresh())) await new Promise((resolve) => setTimeout(resolve, 50))
      const bucketChanges = async (since: string) =>
        ((await post('/api/catalog/summary', { changes: { since } })).body as Record<string, unknown>[]).find((row) => row.type === 'AWS::S3::Bucket')!.changes
      const { rows } = await testApp.db.query<{ id: string }>(`INSERT INTO config_changes (config_id, change_type) VALUES ($1, 'UPDATE') RETURNING id`, [estate.bucket])
      try {
        // The counts were taken before this change: 7d lags, 2d (not pre-aggregated) counts live.
        expect(await bucketChanges('7d')).toBe(1)
        expect(await bucketChanges('2d')).toBe(2)
        while (!(await windows.refresh())) await new Promise((resolve) => setTimeout(resolve, 50))
        expect(await bucketChanges('7d')).toBe(2)
        expect(await bucketChanges('30d')).toBe(2)
      } finally {
        await testApp.db.query('DELETE FROM config_changes WHERE id = $1', [rows[0]!.id])
        while (!(await windows.refresh())) await new Promise((resolve) => setTimeout(resolve, 50))
      }
    })

    it('sums cost over an hour and a day', async () => {
      const day = ((await post('/api/catalog/summary', { cost: '1d', groupBy: ['cluster'] })).body as Record<string, unknown>[]).find((row) => row.cluster === 'prod')!
      expect(day.cost_1d).toBe(7)
      const hour = ((await post('/api/catalog/summary', { cost: '1h', groupBy: ['cluster'] })).body as Record<string, unknown>[]).find((row) => row.cluster === 'prod')!
      // cost_per_minute is stored to four places: 1/1440 → 0.0007.
      expect(hour.cost_1h).toBeCloseTo(7 * 0.0007 * 60, 4)
    })
  })

  describe('POST /api/catalog/changes', () => {
    it('lists the last two days by default, newest first, with a summary and total', async () => {
      const response = await post('/api/catalog/changes', {})
      expect(response.status, response.text).toBe(200)
      const answer = response.body as ChangesAnswer
      // 7 chain diffs + Pulled + web-prod + web-dev + api-edge + bucket UPDATE; BackOff (30 h) too; not the 9-day one nor the deleted item's.
      expect(answer.total).toBe(13)
      expect(answer.summary).toEqual({ diff: 10, Pulled: 1, BackOff: 1, UPDATE: 1 })
      const times = answer.changes!.map((change) => Date.parse(change.created_at))
      expect(times).toEqual([...times].sort((a, b) => b - a))
      expect(answer.changes![0]).toMatchObject({ name: 'chain-0', type: 'Kubernetes::Cluster', change_type: 'diff', agent_id: '00000000-0000-0000-0000-000000000000', tags: { cluster: 'prod', namespace: 'shop' } })
    })

    it('reads date math and RFC3339 windows on created_at and inserted_at', async () => {
      expect(((await post('/api/catalog/changes', { from: 'now-10d' })).body as ChangesAnswer).total).toBe(14)
      expect(((await post('/api/catalog/changes', { from: 'now-10d', to: 'now-1d' })).body as ChangesAnswer).total).toBe(2)
      const since = new Date(Date.now() - 2.5 * HOUR).toISOString()
      expect(((await post('/api/catalog/changes', { from: since })).body as ChangesAnswer).total).toBe(3)
      expect(((await post('/api/catalog/changes', { from_inserted_at: 'now-1h', from: 'now-30d' })).body as ChangesAnswer).total).toBe(14)
      const bad = await post('/api/catalog/changes', { from: 'yesterday' })
      expect(bad.status).toBe(400)
      expect(bad.body.error).toMatch(/^bad request: invalid from "yesterday"/)
      // lenient: the unreadable bound is left out.
      expect(((await post('/api/catalog/changes', { from: 'yesterday', to: 'now', lenient: true })).body as ChangesAnswer).total).toBe(14)
    })

    it('filters by config type, change type, severity, source, summary, created_by, tags and agent', async () => {
      const total = async (body: Record<string, unknown>) => ((await post('/api/catalog/changes', { from: 'now-30d', ...body })).body as ChangesAnswer).total ?? 0
      expect(await total({ config_type: 'Kubernetes::Pod' })).toBe(7)
      expect(await total({ config_type: 'Kubernetes::*,!Kubernetes::Pod' })).toBe(6)
      expect(await total({ type: 'Pulled,BackOff' })).toBe(2)
      expect(await total({ type: '!diff' })).toBe(3)
      expect(await total({ severity: 'high' })).toBe(2)
      expect(await total({ severity: '!info' })).toBe(3)
      expect(await total({ source: 'kube*' })).toBe(13)
      expect(await total({ summary: 'replicas*' })).toBe(1)
      expect(await total({ created_by: 'deploy-bot' })).toBe(1)
      expect(await total({ tags: 'cluster=prod,namespace in (web,api)' })).toBe(2)
      expect(await total({ tags: 'cluster!=prod' })).toBe(3)
      expect(await total({ tags: 'account' })).toBe(1)
      expect(await total({ agent_id: estate.edge })).toBe(1)
      expect(await total({ agent_id: 'local' })).toBe(13)
      expect(await total({ include_deleted_configs: true })).toBe(15)
      const bad = await post('/api/catalog/changes', { tags: 'cluster in (a' })
      expect(bad.status).toBe(400)
      expect(bad.body.error).toMatch(/unbalanced parentheses/)
      expect((await post('/api/catalog/changes', { severity: 'urgent' })).status).toBe(400)
    })

    it('walks related items: downstream, upstream and all, at most 5 deep', async () => {
      const ids = async (body: Record<string, unknown>) =>
        new Set(((await post('/api/catalog/changes', { from: 'now-30d', page_size: 100, ...body })).body as ChangesAnswer).changes?.map((change) => change.name))
      const { chain } = estate
      expect(await ids({ id: chain[0], recursive: 'none' })).toEqual(new Set(['chain-0']))
      // Depth 5 from the cluster reaches chain-5, not chain-6.
      expect(await ids({ id: chain[0], recursive: 'downstream', depth: 5 })).toEqual(new Set(['chain-0', 'chain-1', 'chain-2', 'chain-3', 'chain-4', 'chain-5']))
      expect(await ids({ id: chain[0], depth: 2 })).toEqual(new Set(['chain-0', 'chain-1', 'chain-2']))
      expect(await ids({ id: chain[6], recursive: 'upstream', depth: 1 })).toEqual(new Set(['chain-5', 'chain-6']))
      expect(await ids({ id: chain[3], recursive: 'all', depth: 1 })).toEqual(new Set(['chain-2', 'chain-3', 'chain-4']))
      // Soft links are followed only with soft.
      expect(await ids({ id: estate.webProd })).toEqual(new Set(['web-prod']))
      expect(await ids({ id: estate.webProd, soft: true })).toEqual(new Set(['web-prod', 'assets']))
      expect(await ids({ id: `${chain[6]},${estate.webDev}`, recursive: 'none' })).toEqual(new Set(['chain-6', 'web-dev']))
      const tooDeep = await post('/api/catalog/changes', { id: chain[0], depth: 6 })
      expect(tooDeep.status).toBe(400)
      expect(tooDeep.body).toEqual({ error: 'bad request: depth must be between 1 and 5' })
      expect((await post('/api/catalog/changes', { id: chain[0], recursive: 'sideways' })).body.error).toMatch(/^bad request: invalid recursive "sideways"/)
      expect(await ids({ id: chain[0], depth: 9, lenient: true })).toEqual(new Set(['chain-0', 'chain-1', 'chain-2', 'chain-3', 'chain-4', 'chain-5']))
    })

    it('sorts and pages', async () => {
      const page = async (body: Record<string, unknown>) => (await post('/api/catalog/changes', { from: 'now-30d', ...body })).body as ChangesAnswer
      const first = await page({ page_size: 5, sort_by: 'name' })
      expect(first.total).toBe(14)
      expect(first.changes!.map((change) => change.name)).toEqual(['api-edge', 'assets', 'chain-0', 'chain-1', 'chain-2'])
      const third = await page({ page_size: 5, page: 3, sort_by: 'name' })
      expect(third.changes!.map((change) => change.name)).toEqual(['chain-6', 'web-dev', 'web-prod', 'web-prod'])
      const all = [...first.changes!, ...(await page({ page_size: 5, page: 2, sort_by: 'name' })).changes!, ...third.changes!]
      expect(new Set(all.map((change) => change.id)).size).toBe(14)
      expect((await page({ sort_by: '-change_type', page_size: 1 })).changes![0]!.change_type).toBe('diff')
      expect((await page({ page: 9, page_size: 5 })).changes).toBeUndefined()
      expect((await post('/api/catalog/changes', { sort_by: 'colour' })).body.error).toMatch(/^bad request: invalid sort_by "colour"/)
      expect((await post('/api/catalog/changes', { page_size: 5000 })).status).toBe(400)
      expect((await post('/api/catalog/changes', { page: 'two' })).status).toBe(400)
    })

    it('answers the deprecated GET with query parameters, and an empty object when nothing matches', async () => {
      const response = await request(testApp.app).get('/api/catalog/changes').query({ type: 'BackOff', from: 'now-3d', page_size: '1' }).set(bearer)
      expect(response.status, response.text).toBe(200)
      expect((response.body as ChangesAnswer).total).toBe(1)
      expect((await post('/api/catalog/changes', { type: 'Nothing' })).body).toEqual({})
    })
  })

  describe('POST /api/resources/search', () => {
    const search = (body: unknown) => post('/api/resources/search', body)

    it('reads the search grammar', async () => {
      const response = await search({ configs: [{ search: 'name=web* type=Kubernetes::Pod health=healthy,warning' }] })
      expect(response.status, response.text).toBe(200)
      expect(response.body.configs.map((row: { name: string }) => row.name)).toEqual(['web-dev', 'web-prod'])
      expect(response.body.configs[0]).toEqual({ id: estate.webDev, agent: '00000000-0000-0000-0000-000000000000', name: 'web-dev', namespace: 'web', type: 'Kubernetes::Pod', tags: { cluster: 'dev', namespace: 'web', team: 'b' }, health: 'warning', status: 'Pending' })
      const names = async (selector: Record<string, unknown>) => ((await search({ configs: [selector] })).body.configs ?? []).map((row: { name: string }) => row.name)
      expect(await names({ search: 'web' })).toEqual(['web-dev', 'web-prod'])
      expect(await names({ search: 'name!=web-dev type=Kubernetes::Pod' })).toEqual(['api-edge', 'chain-4', 'web-prod'])
      expect(await names({ search: 'cluster=dev' })).toEqual(['web-dev'])
      expect(await names({ search: 'label.app=web tag.team=a' })).toEqual(['web-prod'])
      expect(await names({ search: 'name=web* created_at>now-1h' })).toEqual(['web-dev', 'web-prod'])
      expect(await names({ search: 'name=web* created_at<now-1h' })).toEqual([])
      expect(await names({ search: 'status=Pending,Running health=!healthy' })).toEqual(['chain-4', 'web-dev'])
      expect(await names({ search: '"api-edge"' })).toEqual(['api-edge'])
      expect(parseSearch('name="a b" type=x free')).toEqual([{ key: 'name', operator: '=', value: 'a b' }, { key: 'type', operator: '=', value: 'x' }, { text: 'free' }])
      expect((await search({ configs: [{ search: 'type>now' }] })).status).toBe(400)
    })

    it('reads selector fields: id, name, namespace, agent, types, statuses, health, tag/label/field selectors, includeDeleted, limit', async () => {
      const names = async (selector: Record<string, unknown>, extra: Record<string, unknown> = {}) => ((await search({ configs: [selector], ...extra })).body.configs ?? []).map((row: { name: string }) => row.name)
      expect(await names({ id: estate.bucket })).toEqual(['assets'])
      expect(await names({ name: 'chain-1*' })).toEqual(['chain-1'])
      expect(await names({ namespace: 'web', agent: 'all' })).toEqual(['web-dev', 'web-prod'])
      expect(await names({ agent: 'edge-1' })).toEqual(['api-edge'])
      expect(await names({ agent: estate.edge })).toEqual(['api-edge'])
      expect(await names({ agent: 'self', namespace: 'api' })).toEqual([])
      expect(await names({ types: ['AWS::*'] })).toEqual(['assets'])
      expect(await names({ statuses: ['Pending'] })).toEqual(['web-dev'])
      expect(await names({ health: 'unknown', includeDeleted: true })).toEqual(['web-old'])
      expect(await names({ name: 'web-old' })).toEqual([])
      expect(await names({ tagSelector: 'cluster in (dev,edge)' })).toEqual(['api-edge', 'web-dev'])
      expect(await names({ labelSelector: 'app=web,!missing' })).toEqual(['web-dev', 'web-prod'])
      expect(await names({ fieldSelector: 'type=AWS::S3::Bucket' })).toEqual(['assets'])
      expect(await names({ name: 'chain-*' }, { limit: 3 })).toEqual(['chain-0', 'chain-1', 'chain-2'])
      expect(await names({ name: 'chain-*', limit: 2 })).toEqual(['chain-0', 'chain-1'])
      const both = await search({ configs: [{ name: 'web-dev' }, { name: 'assets' }, { name: 'web-dev' }], timestamps: true })
      expect(both.body.configs.map((row: { name: string }) => row.name)).toEqual(['assets', 'web-dev'])
      expect(both.body.configs[0].created_at).toEqual(expect.any(String))
      expect((await search({ configs: [{ fieldSelector: 'colour=red' }] })).status).toBe(400)
    })

    it('searches components, checks and insights, and leaves out kinds without hits', async () => {
      await testApp.db.query(`INSERT INTO components (name, type, status, health, labels, external_id) VALUES ('checkout', 'Application', 'healthy', 'healthy', '{"team":"a"}', 'checkout')`)
      const canary = (await testApp.db.query<{ id: string }>(`INSERT INTO canaries (name, namespace, spec) VALUES ('shop-checks', 'default', '{}') RETURNING id`)).rows[0]!.id
      await testApp.db.query(`INSERT INTO checks (canary_id, type, name, status) VALUES ($1, 'http', 'checkout-http', 'unhealthy')`, [canary])
      const response = await search({
        configs: [{ name: 'nothing-like-this' }],
        components: [{ search: 'checkout team=a' }],
        checks: [{ search: 'health=unhealthy' }],
        config_analysis: [{ search: 'type=security' }],
      })
      expect(response.status, response.text).toBe(200)
      expect(Object.keys(response.body).sort()).toEqual(['checks', 'components', 'config_analysis'])
      expect(response.body.components).toEqual([expect.objectContaining({ name: 'checkout', type: 'Application', health: 'healthy' })])
      expect(response.body.checks).toEqual([expect.objectContaining({ name: 'checkout-http', type: 'http', health: 'unhealthy' })])
      expect(response.body.config_analysis.map((row: { severity: string }) => row.severity).sort()).toEqual(['high', 'medium'])
    })

    it('answers 400 for a body it cannot read', async () => {
      expect((await search({ configs: 'web' })).status).toBe(400)
      const badJson = await request(testApp.app).post('/api/resources/search').set(bearer).set('content-type', 'application/json').send('{')
      expect(badJson.status).toBe(400)
      expect(badJson.body.error).toMatch(/^bad request: invalid JSON/)
    })
  })

  describe('query POSTs with a session cookie', () => {
    it('need no same-origin proof (they only read, as GET), but still refuse an ambiguous body type', async () => {
      const login = await request(testApp.app).post('/api/auth/login').send({ username: 'token', password: TEST_TOKEN })
      expect(login.status).toBe(200)
      const cookie = login.headers['set-cookie']![0]!.split(';')[0]!
      // A console loader (GET page) calls these over loopback without vouching for an origin.
      for (const [path, body] of [['/api/catalog/summary', {}], ['/api/catalog/changes', { type: 'BackOff', from: 'now-3d' }], ['/api/resources/search', { configs: [{ name: 'assets' }] }]] as const) {
        const answer = await request(testApp.app).post(path).set('Cookie', cookie).send(body)
        expect(answer.status, `${path}: ${answer.text}`).toBe(200)
      }
      const plain = await request(testApp.app).post('/api/catalog/summary').set('Cookie', cookie).set('content-type', 'text/plain').send('{}')
      expect(plain.status).toBe(415)
      // Writes still need the console's origin.
      const write = await request(testApp.app).post('/api/db/properties').set('Cookie', cookie).send({ name: 'forged', value: 'x' })
      expect(write.status).toBe(403)
    })
  })

  describe('GET /api/catalog/{id}/relationships', () => {
    const get = (id: string, query: Record<string, string> = {}) => request(testApp.app).get(`/api/catalog/${id}/relationships`).query(query).set(bearer)

    it('walks both directions with depths, relations and edges', async () => {
      const { chain } = estate
      const response = await get(chain[3]!, { depth: '2' })
      expect(response.status, response.text).toBe(200)
      expect(response.body).toMatchObject({ id: chain[3], direction: 'all', depth: 2 })
      expect(response.body.outgoing.map((row: { name: string; depth: number }) => [row.name, row.depth])).toEqual([['chain-4', 1], ['chain-5', 2]])
      // Ancestors come from the path as well as the hard edges.
      expect(response.body.incoming.map((row: { name: string; depth: number }) => [row.name, row.depth])).toEqual([['chain-2', 1], ['chain-1', 2]])
      expect(response.body.outgoing[0]).toMatchObject({ relation: 'hard', direction: 'outgoing', health: 'unhealthy', related_ids: [chain[5]] })
      expect(response.body.edges).toContainEqual({ config_id: chain[3], related_id: chain[4], relation: 'hard', depth: 1 })
      expect(response.body.edges).toContainEqual({ config_id: chain[1], related_id: chain[2], relation: 'hard', depth: 2 })
    })

    it('goes at most 10 deep, one direction on request', async () => {
      const deep = await get(estate.chain[0]!, { depth: '10', direction: 'outgoing' })
      expect(deep.body.outgoing).toHaveLength(6)
      expect(deep.body.incoming).toEqual([])
      const soft = await get(estate.bucket, { direction: 'incoming' })
      expect(soft.body.incoming).toEqual([expect.objectContaining({ name: 'web-prod', relation: 'uses', depth: 1 })])
      expect((await get(estate.chain[0]!, { depth: '11' })).status).toBe(400)
      expect((await get(estate.chain[0]!, { direction: 'up' })).status).toBe(400)
      expect((await get('not-a-uuid')).body).toEqual({ error: 'bad request: invalid config id "not-a-uuid"' })
      const missing = await get('0190f0f0-0000-7000-8000-00000000beef')
      expect(missing.status).toBe(404)
      expect(missing.body).toEqual({ error: 'config item 0190f0f0-0000-7000-8000-00000000beef was not found' })
    })

    it('caps the data API walk at 10 levels too', async () => {
      // A chain of 13 items: the RPC asked for 20 levels stops at 10.
      const ids: string[] = []
      for (let index = 0; index < 13; index++) {
        const { rows } = await testApp.db.query<{ id: string }>(`INSERT INTO config_items (name, type, config_class, parent_id) VALUES ($1, 'Test::Node', 'Node', $2) RETURNING id`, [`deep-${index}`, ids[index - 1] ?? null])
        ids.push(rows[0]!.id)
      }
      const response = await request(testApp.app).get('/api/db/rpc/related_configs_recursive').query({ config_id: ids[0], type_filter: 'outgoing', max_depth: '20' }).set(bearer)
      expect(response.status, response.text).toBe(200)
      expect(response.body).toHaveLength(11)
    })
  })
})

describe('catalog input', () => {
  it('reads date math', () => {
    const now = new Date('2026-08-21T10:30:45Z')
    expect(parseDateMath('now-7d', now, 'from').toISOString()).toBe('2026-08-14T10:30:45.000Z')
    expect(parseDateMath('now-1h-30m', now, 'from').toISOString()).toBe('2026-08-21T09:00:45.000Z')
    expect(parseDateMath('now-1M', now, 'from').toISOString()).toBe('2026-07-21T10:30:45.000Z')
    expect(parseDateMath('now/d', now, 'from').toISOString()).toBe('2026-08-21T00:00:00.000Z')
    expect(parseDateMath('now-1d/d', now, 'from').toISOString()).toBe('2026-08-20T00:00:00.000Z')
    expect(parseDateMath('2026-01-02T03:04:05Z', now, 'from').toISOString()).toBe('2026-01-02T03:04:05.000Z')
    expect(() => parseDateMath('now-7x', now, 'from')).toThrow(/invalid from "now-7x"/)
  })

  it('reads tag selectors', () => {
    expect(parseSelector('cluster=prod,namespace in (a, b),team!=x,env==dev,owner,!temp,zone notin (z1)')).toEqual([
      { key: 'cluster', op: '=', value: 'prod' },
      { key: 'namespace', op: 'in', values: ['a', 'b'] },
      { key: 'team', op: '!=', value: 'x' },
      { key: 'env', op: '=', value: 'dev' },
      { key: 'owner', op: 'exists' },
      { key: 'temp', op: '!exists' },
      { key: 'zone', op: 'notin', values: ['z1'] },
    ])
    expect(() => parseSelector('a in (b')).toThrow(/unbalanced/)
    expect(() => parseSelector("a'b=c")).toThrow(/invalid selector key/)
  })
})
