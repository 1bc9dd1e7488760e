import request from 'supertest'
import { beforeAll, describe, expect, it } from 'vitest'
import type { Db } from '#server/db/client.ts'
import { useTestApp } from '#tests/support/use-test-app.ts'
import { personWith } from '#tests/rbac/rbac-fixture.ts'

type Person = Awaited<ReturnType<typeof personWith>>

/**
 * Row-level access (docs/decisions/021): a permission's tags/agents narrow which config items a
 * subject sees — in the catalog API and in every /api/db read that reaches config rows. Each
 * test closes one way a hidden item could otherwise be seen.
 */
describe('row-level access to config items', () => {
  const testApp = useTestApp()
  let db: Db
  let prodOnly: Person
  let edgeOnly: Person
  let notDev: Person
  let adminScoped: Person
  let editorProd: Person
  let viewer: Person
  const items: Record<string, string> = {}
  let edgeAgent: string
  let component: string

  async function grant(fields: { subject: string; action?: string; object?: string; tags?: Record<string, string>; agents?: string[]; deny?: boolean }) {
    await db.query(
      `INSERT INTO permissions (subject_type, subject, object, action, tags, agents, deny) VALUES ('person', $1, $2, $3, $4::jsonb, $5::text[], $6)`,
      [fields.subject, fields.object ?? 'catalog', fields.action ?? 'read', fields.tags ? JSON.stringify(fields.tags) : null, fields.agents ?? null, fields.deny ?? false],
    )
  }

  beforeAll(async () => {
    db = testApp.db
    edgeAgent = (await db.query<{ id: string }>(`INSERT INTO agents (name) VALUES ('edge-2') RETURNING id`)).rows[0]!.id
    const insert = async (name: string, tags: Record<string, string>, extra: { parent?: string; agent?: string; externalId?: string } = {}) => {
      const { rows } = await db.query<{ id: string }>(
        `INSERT INTO config_items (name, type, config_class, tags, parent_id, agent_id, external_id, health)
         VALUES ($1, 'Kubernetes::Pod', 'Pod', $2::jsonb, $3, coalesce($4::uuid, '00000000-0000-0000-0000-000000000000'), $5::text[], 'healthy') RETURNING id`,
        [name, JSON.stringify(tags), extra.parent ?? null, extra.agent ?? null, extra.externalId ? [extra.externalId] : null],
      )
      items[name] = rows[0]!.id
      await db.query(`INSERT INTO config_changes (config_id, change_type, summary) VALUES ($1, 'diff', $2)`, [rows[0]!.id, `${name} changed`])
      await db.query(`INSERT INTO config_analysis (config_id, analyzer, analysis_type) VALUES ($1, $2, 'security')`, [rows[0]!.id, `${name}-finding`])
      return rows[0]!.id
    }
    await insert('prod-cluster', { cluster: 'prod' }, { externalId: 'cluster/prod' })
    await insert('prod-pod', { cluster: 'prod' }, { parent: items['prod-cluster'] })
    // A dev pod hanging off the prod cluster: its edge must stay hidden from prod-only callers.
    await insert('dev-pod', { cluster: 'dev' }, { parent: items['prod-cluster'] })
    await insert('edge-pod', { cluster: 'edge' }, { agent: edgeAgent })
    await db.query(`INSERT INTO config_locations (id, location) VALUES ($1, 'cluster/prod'), ($2, 'cluster/prod')`, [items['prod-pod'], items['dev-pod']])
    component = (await db.query<{ id: string }>(`INSERT INTO components (name, type, status, external_id) VALUES ('shop', 'Application', 'healthy', 'shop') RETURNING id`)).rows[0]!.id
    await db.query(`INSERT INTO config_component_relationships (component_id, config_id) VALUES ($1, $2), ($1, $3)`, [component, items['prod-pod'], items['dev-pod']])

    prodOnly = await personWith(db, ['viewer'], 'prod-only')
    await grant({ subject: prodOnly.id, tags: { cluster: 'prod' } })
    edgeOnly = await personWith(db, ['viewer'], 'edge-only')
    await grant({ subject: edgeOnly.id, agents: [edgeAgent] })
    notDev = await personWith(db, ['viewer'], 'not-dev')
    await grant({ subject: notDev.id, tags: { cluster: 'dev' }, deny: true })
    adminScoped = await personWith(db, ['admin'], 'admin-scoped')
    await grant({ subject: adminScoped.id, tags: { cluster: 'prod' } })
    editorProd = await personWith(db, ['editor'], 'editor-prod')
    await grant({ subject: editorProd.id, action: '*', tags: { cluster: 'prod' } })
    viewer = await personWith(db, ['viewer'], 'plain')
    testApp.backend.authorizer.invalidate()
  })

  const names = (rows: { name?: string | null }[]) => rows.map((row) => row.name).sort()
  const dbRead = (person: Person, path: string) => request(testApp.app).get(`/api/db/${path}`).set(person.headers)

  it('narrows /api/db reads of config_items, configs, config_detail, config_names and catalog_changes', async () => {
    expect(names((await dbRead(prodOnly, 'config_items?select=name')).body)).toEqual(['prod-cluster', 'prod-pod'])
    expect(names((await dbRead(prodOnly, 'configs?select=name')).body)).toEqual(['prod-cluster', 'prod-pod'])
    expect(names((await dbRead(edgeOnly, 'config_detail?select=name')).body)).toEqual(['edge-pod'])
    expect(names((await dbRead(notDev, 'config_names?select=name')).body)).toEqual(['edge-pod', 'prod-cluster', 'prod-pod'])
    expect(names((await dbRead(prodOnly, 'catalog_changes?select=name')).body)).toEqual(['prod-cluster', 'prod-pod'])
    // Asking for a hidden item by id finds nothing, and the count agrees.
    const hidden = await dbRead(prodOnly, `config_detail?id=eq.${items['dev-pod']}`).set('Prefer', 'count=exact')
    expect(hidden.body).toEqual([])
    expect(hidden.headers['content-range']).toBe('*/0')
    // Without a narrowing permission, and for an admin, every item shows.
    expect((await dbRead(viewer, 'config_items?select=name')).body).toHaveLength(4)
    expect((await dbRead(adminScoped, 'config_items?select=name')).body).toHaveLength(4)
  })

  it('narrows rows that hang off config items: changes, insights, component links, locations, relationships', async () => {
    expect((await dbRead(prodOnly, 'config_changes?select=summary')).body.map((row: { summary: string }) => row.summary).sort()).toEqual(['prod-cluster changed', 'prod-pod changed'])
    expect((await dbRead(edgeOnly, 'config_analysis?select=analyzer')).body).toEqual([{ analyzer: 'edge-pod-finding' }])
    expect((await dbRead(prodOnly, 'config_analysis_items?select=name')).body).toHaveLength(2)
    expect((await dbRead(prodOnly, 'config_component_relationships?select=config_id')).body).toEqual([{ config_id: items['prod-pod'] }])
    expect((await dbRead(prodOnly, 'config_locations?select=id')).body).toEqual([{ id: items['prod-pod'] }])
    // The cluster → dev-pod edge needs both ends visible.
    const edges = (await dbRead(prodOnly, 'config_relationships?select=config_id,related_id')).body as { related_id: string }[]
    expect(edges.map((edge) => edge.related_id)).toEqual([items['prod-pod']])
    expect((await dbRead(viewer, 'config_relationships?select=config_id')).body).toHaveLength(2)
  })

  it('narrows embeds reached from other relations', async () => {
    const shop = (await dbRead(prodOnly, `components?id=eq.${component}&select=name,config_component_relationships(config_items(name))`)).body as { config_component_relationships: { config_items: { name: string } }[] }[]
    expect(shop[0]!.config_component_relationships.map((link) => link.config_items.name)).toEqual(['prod-pod'])
    // Filtering on an embed cannot find hidden rows either.
    const inner = (await dbRead(prodOnly, `config_component_relationships?select=config_id,config_items!inner(name)&config_items.name=eq.dev-pod`)).body
    expect(inner).toEqual([])
    const withConfig = (await dbRead(prodOnly, 'config_changes?select=summary,config:config_items(name)')).body as { config: { name: string } | null }[]
    expect(withConfig.every((row) => row.config !== null)).toBe(true)
    // Links of a check (a relation with no config rows of its own) to hidden items stay hidden.
    const canary = (await db.query<{ id: string }>(`INSERT INTO canaries (name, namespace, spec) VALUES ('row-access', 'default', '{}') RETURNING id`)).rows[0]!.id
    const check = (await db.query<{ id: string }>(`INSERT INTO checks (canary_id, type, name) VALUES ($1, 'http', 'pods-http') RETURNING id`, [canary])).rows[0]!.id
    await db.query(`INSERT INTO check_config_relationships (check_id, canary_id, config_id) VALUES ($1, $2, $3), ($1, $2, $4)`, [check, canary, items['prod-pod'], items['dev-pod']])
    const links = (await dbRead(prodOnly, `checks?id=eq.${check}&select=name,check_config_relationships(config_id)`)).body
    expect(links).toEqual([{ name: 'pods-http', check_config_relationships: [{ config_id: items['prod-pod'] }] }])
    expect((await dbRead(viewer, `checks?id=eq.${check}&select=name,check_config_relationships(config_id)`)).body[0].check_config_relationships).toHaveLength(2)
  })

  it('narrows RPC results: related configs, parents by location, analysis by component', async () => {
    const related = (await dbRead(prodOnly, `rpc/related_configs_recursive?config_id=${items['prod-cluster']}&type_filter=all`)).body
    expect(names(related)).toEqual(['prod-cluster', 'prod-pod'])
    expect((await dbRead(viewer, `rpc/related_configs_recursive?config_id=${items['prod-cluster']}&type_filter=all`)).body).toHaveLength(3)
    expect((await dbRead(edgeOnly, `rpc/get_parents_by_location?config_id=${items['prod-pod']}`)).body).toEqual([])
    expect(names((await dbRead(prodOnly, `rpc/get_parents_by_location?config_id=${items['prod-pod']}`)).body)).toEqual(['prod-cluster'])
    const analysis = (await dbRead(prodOnly, `rpc/lookup_analysis_by_component?id=${component}`)).body as { analyzer: string }[]
    expect(analysis.map((row) => row.analyzer)).toEqual(['prod-pod-finding'])
    const edges = (await dbRead(prodOnly, `rpc/config_relationships_recursive?config_id=${items['prod-cluster']}&type_filter=all`)).body as { related_id: string }[]
    expect(edges.map((edge) => edge.related_id)).toEqual([items['prod-pod']])
  })

  it('keeps hidden items out of writes', async () => {
    const patched = await request(testApp.app)
      .patch(`/api/db/config_items?id=eq.${items['dev-pod']}`)
      .set(editorProd.headers)
      .set('Prefer', 'return=representation')
      .send({ description: 'changed by someone who cannot see it' })
    expect(patched.status, patched.text).toBe(200)
    expect(patched.body).toEqual([])
    expect((await db.query(`SELECT description FROM config_items WHERE id = $1`, [items['dev-pod']])).rows[0]).toEqual({ description: null })
    const own = await request(testApp.app).patch(`/api/db/config_items?id=eq.${items['prod-pod']}`).set(editorProd.headers).set('Prefer', 'return=representation').send({ description: 'ok' })
    expect(own.body).toHaveLength(1)
  })

  it('narrows the catalog summary, changes, search and relationships', async () => {
    const summary = (await request(testApp.app).post('/api/catalog/summary').set(prodOnly.headers).send({ changes: { since: '1d' } })).body
    expect(summary).toEqual([expect.objectContaining({ type: 'Kubernetes::Pod', count: 2, changes: 2 })])
    const notDevSummary = (await request(testApp.app).post('/api/catalog/summary').set(notDev.headers).send({})).body
    expect(notDevSummary[0].count).toBe(3)

    const changes = (await request(testApp.app).post('/api/catalog/changes').set(edgeOnly.headers).send({})).body
    expect(changes.changes.map((change: { name: string }) => change.name)).toEqual(['edge-pod'])
    // Walking from a visible item does not reach hidden neighbours' changes.
    const walked = (await request(testApp.app).post('/api/catalog/changes').set(prodOnly.headers).send({ id: items['prod-cluster'] })).body
    expect(names(walked.changes)).toEqual(['prod-cluster', 'prod-pod'])

    const found = (await request(testApp.app).post('/api/resources/search').set(prodOnly.headers).send({ configs: [{ name: '*' }], config_changes: [{ search: 'type=diff' }] })).body
    expect(names(found.configs)).toEqual(['prod-cluster', 'prod-pod'])
    expect(found.config_changes).toHaveLength(2)

    const hidden = await request(testApp.app).get(`/api/catalog/${items['dev-pod']}/relationships`).set(prodOnly.headers)
    expect(hidden.status).toBe(404)
    const cluster = (await request(testApp.app).get(`/api/catalog/${items['prod-cluster']}/relationships`).set(prodOnly.headers)).body
    expect(cluster.outgoing.map((row: { name: string }) => row.name)).toEqual(['prod-pod'])
    expect(cluster.edges).toHaveLength(1)
    const all = (await request(testApp.app).get(`/api/catalog/${items['prod-cluster']}/relationships`).set(viewer.headers)).body
    expect(all.outgoing).toHaveLength(2)
  })

  it('leaves search kinds the caller may not read out of the answer', async () => {
    await db.query(`INSERT INTO permissions (subject_type, subject, object, action, deny) VALUES ('person', $1, 'topology', 'read', true)`, [viewer.id])
    testApp.backend.authorizer.invalidate()
    const found = (await request(testApp.app).post('/api/resources/search').set(viewer.headers).send({ configs: [{ name: 'prod-pod' }], components: [{ name: 'shop' }] })).body
    expect(Object.keys(found)).toEqual(['configs'])
  })
})
