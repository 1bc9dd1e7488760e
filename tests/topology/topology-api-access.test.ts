import request from 'supertest'
import { beforeAll, describe, expect, it } from 'vitest'
import type { TopologyComponentNode, TopologyResponse } from '#contract/topology/topology-tree.ts'
import type { Db } from '#server/db/client.ts'
import { useTestApp } from '#tests/support/use-test-app.ts'
import { bearer } from '#tests/support/test-app.ts'
import { personWith } from '#tests/rbac/rbac-fixture.ts'
import { seedTopologyEstate, type TopologyEstate } from './topology-api-fixture.ts'

type Person = Awaited<ReturnType<typeof personWith>>

/**
 * Row-level access to components (http-api §2.6.4 "row-level security"; topology/component-access.ts):
 * a permission naming a component, a component selector, labels or agents narrows what a person
 * sees to those subtrees, in the topology API and in /api/db; the route table's topology:read
 * guards the API; and the component views answer with the reference's columns and objects (§4.1).
 */
describe('topology access', () => {
  const testApp = useTestApp()
  let db: Db
  let estate: TopologyEstate
  let webOnly: Person
  let billingBySelector: Person
  let dataByLabel: Person
  let notDb: Person
  let adminScoped: Person
  let viewer: Person
  let nobody: Person
  let publicLists: Person

  async function grant(fields: { subject: string; componentId?: string; objectSelector?: unknown; object?: string; tags?: Record<string, string>; deny?: boolean }) {
    await db.query(
      `INSERT INTO permissions (subject_type, subject, object, action, component_id, object_selector, tags, deny)
       VALUES ('person', $1, $2, 'read', $3, $4::jsonb, $5::jsonb, $6)`,
      [fields.subject, fields.object ?? null, fields.componentId ?? null, fields.objectSelector ? JSON.stringify(fields.objectSelector) : null,
        fields.tags ? JSON.stringify(fields.tags) : null, fields.deny ?? false],
    )
  }

  beforeAll(async () => {
    db = testApp.db
    estate = await seedTopologyEstate(db)
    webOnly = await personWith(db, ['viewer'], 'web-only')
    await grant({ subject: webOnly.id, componentId: estate.ids.web })
    billingBySelector = await personWith(db, ['viewer'], 'billing-selector')
    await grant({ subject: billingBySelector.id, objectSelector: { components: [{ name: 'bill*', types: ['Topology'] }] } })
    dataByLabel = await personWith(db, ['viewer'], 'data-label')
    await grant({ subject: dataByLabel.id, object: 'topology', tags: { tier: 'data' } })
    notDb = await personWith(db, ['viewer'], 'not-db')
    await grant({ subject: notDb.id, componentId: estate.ids.db, deny: true })
    adminScoped = await personWith(db, ['admin'], 'admin-scoped')
    await grant({ subject: adminScoped.id, componentId: estate.ids.web })
    viewer = await personWith(db, ['viewer'], 'plain')
    nobody = await personWith(db, [], 'nobody')
    publicLists = await personWith(db, [], 'public-lists')
    await grant({ subject: publicLists.id, object: 'database.public' })
    testApp.backend.authorizer.invalidate()
  })

  const topology = async (person: Person, query = '') => {
    const response = await request(testApp.app).get(`/api/canary/api/topology${query}`).set(person.headers)
    expect(response.status, response.text).toBe(200)
    return response.body as TopologyResponse
  }
  const flatNames = (nodes: TopologyComponentNode[]): string[] => nodes.flatMap((node) => [node.name, ...flatNames(node.components ?? [])]).sort()
  const dbRead = (person: Person, path: string) => request(testApp.app).get(`/api/db/${path}`).set(person.headers)
  const names = (rows: { name?: string }[]) => rows.map((row) => row.name).sort()

  it('narrows the topology API to the subtree a component permission names', async () => {
    const roots = await topology(webOnly)
    expect(roots.components.map((node) => node.name)).toEqual(['web'])
    expect(flatNames(roots.components)).toEqual(['web', 'web-1', 'web-1-c', 'web-2'])
    expect(roots.teams).toEqual(['frontend'])
    expect(roots.types).toEqual(['Container', 'Pod', 'Service'])
    // Above and beside the subtree is out of reach, by id too; inside it is not.
    expect((await topology(webOnly, `?id=${estate.ids.shop}`)).components).toEqual([])
    expect((await topology(webOnly, `?id=${estate.ids.db}`)).components).toEqual([])
    expect(flatNames((await topology(webOnly, `?id=${estate.ids['web-1']}`)).components)).toEqual(['web-1', 'web-1-c'])
    expect(flatNames((await topology(webOnly, '?flatten=true')).components)).toEqual(['web', 'web-1', 'web-1-c', 'web-2'])
  })

  it('narrows by a component selector and by labels (topmost matches become the roots)', async () => {
    expect(flatNames((await topology(billingBySelector)).components)).toEqual(['billing', 'ledger'])
    const data = await topology(dataByLabel)
    expect(data.components.map((node) => node.name)).toEqual(['db'])
    expect(flatNames(data.components)).toEqual(['db', 'db-1'])
  })

  it('hides a denied subtree, and does not narrow admins or people without scopes', async () => {
    const denied = await topology(notDb)
    expect(flatNames(denied.components)).not.toContain('db')
    expect(flatNames(denied.components)).not.toContain('db-1')
    expect(flatNames(denied.components)).toContain('web')
    expect((await topology(notDb, `?id=${estate.ids['db-1']}`)).components).toEqual([])
    expect(flatNames((await topology(adminScoped)).components)).toHaveLength(10)
    expect(flatNames((await topology(viewer)).components)).toHaveLength(10)
  })

  it('refuses the topology API and snapshots to a person without topology read (route access table)', async () => {
    const api = await request(testApp.app).get('/api/canary/api/topology').set(nobody.headers)
    expect(api.status).toBe(403)
    expect(api.text).toBe('unauthorized. Access Denied')
    expect(api.headers['x-rbac-object']).toBe('topology')
    expect((await request(testApp.app).get(`/api/snapshot/topology/${estate.ids.shop}`).set(nobody.headers)).status).toBe(403)
  })

  it('narrows /api/db reads of components and what hangs off them', async () => {
    expect(names((await dbRead(webOnly, 'components?select=name')).body)).toEqual(['web', 'web-1', 'web-1-c', 'web-2'])
    expect(names((await dbRead(webOnly, 'topology?select=name')).body)).toEqual(['web', 'web-1', 'web-1-c', 'web-2'])
    expect(names((await dbRead(webOnly, 'checks_by_component?select=name')).body)).toEqual(['web-http', 'web-tls'])
    expect((await dbRead(webOnly, 'team_components?select=component_id')).body).toEqual([{ component_id: estate.ids.web }])
    expect((await dbRead(webOnly, `components?id=eq.${estate.ids.db}`)).body).toEqual([])
    expect(names((await dbRead(notDb, 'component_names?select=name')).body)).not.toContain('db-1')
    expect((await dbRead(viewer, 'components?select=name')).body).toHaveLength(12)
    // A write reaches only what the writer can see.
    const editor = await personWith(db, ['editor'], 'editor-web')
    await grant({ subject: editor.id, componentId: estate.ids.web })
    testApp.backend.authorizer.invalidate()
    const patched = await request(testApp.app).patch(`/api/db/components?id=eq.${estate.ids.db}`).set(editor.headers).set('Prefer', 'return=representation').send({ description: 'not yours' })
    expect(patched.body).toEqual([])
    expect((await db.query(`SELECT description FROM components WHERE id = $1`, [estate.ids.db])).rows[0]).toEqual({ description: null })
  })

  it('answers component_names, component_labels, checks_by_component and team_components with the reference columns', async () => {
    const componentNames = (await dbRead(viewer, 'component_names').set(bearer)).body as Record<string, unknown>[]
    expect(Object.keys(componentNames[0]!).sort()).toEqual(['created_at', 'external_id', 'icon', 'id', 'name', 'parent_id', 'path', 'type', 'updated_at'])
    // Live and not hidden, ordered by name.
    expect(componentNames.map((row) => row.name)).toEqual(['api', 'billing', 'db', 'db-1', 'ledger', 'shop', 'web', 'web-1', 'web-1-c', 'web-2'])
    const labels = (await dbRead(viewer, 'component_labels')).body
    expect(labels).toEqual([{ key: 'env', value: 'prod' }, { key: 'tier', value: 'data' }, { key: 'tier', value: 'web' }])
    const checks = (await dbRead(viewer, `checks_by_component?component_id=eq.${estate.ids.web}&order=name`)).body as Record<string, unknown>[]
    expect(checks.map((row) => row.name)).toEqual(['web-http', 'web-tls'])
    expect(Object.keys(checks[0]!).sort()).toEqual(['component_id', 'id', 'name', 'severity', 'status', 'type'])
    expect(checks[1]).toMatchObject({ component_id: estate.ids.web, id: estate.checks['web-tls'], type: 'http', severity: 'high', status: 'unhealthy' })
    const teams = (await dbRead(viewer, `team_components?select=role,component_id,team:teams(name)&component_id=eq.${estate.ids.db}`)).body
    expect(teams).toEqual([{ role: 'owner', component_id: estate.ids.db, team: { name: 'payments' } }])
  })

  it('serves the component lists under database.public and checks_by_component under canaries (http-api §4.1)', async () => {
    for (const view of ['component_names', 'component_labels', 'team_components']) {
      expect((await dbRead(publicLists, view)).status, view).toBe(200)
      expect((await dbRead(nobody, view)).status, view).toBe(403)
    }
    expect((await dbRead(publicLists, 'components')).status).toBe(403)
    expect((await dbRead(publicLists, 'checks_by_component')).status).toBe(403)
    expect((await dbRead(viewer, 'checks_by_component')).status).toBe(200)
  })
})
