import request from 'supertest'
import { beforeAll, describe, expect, it } from 'vitest'
import type { TopologyComponentNode, TopologyResponse } from '#contract/topology/topology-tree.ts'
import { useTestApp } from '#tests/support/use-test-app.ts'
import { bearer } from '#tests/support/test-app.ts'
import { seedTopologyEstate, type TopologyEstate } from './topology-api-fixture.ts'

/** GET /api/canary/api/topology (http-api §2.6.4): every query parameter, the facets, the node extras and the 400s. */
describe('GET /api/canary/api/topology', () => {
  const testApp = useTestApp()
  let estate: TopologyEstate

  beforeAll(async () => {
    estate = await seedTopologyEstate(testApp.db)
  })

  const topology = async (query = '') => {
    const response = await request(testApp.app).get(`/api/canary/api/topology${query}`).set(bearer)
    expect(response.status, response.text).toBe(200)
    return response.body as TopologyResponse
  }
  const names = (nodes: TopologyComponentNode[] | undefined) => (nodes ?? []).map((node) => node.name)
  const find = (nodes: TopologyComponentNode[], name: string): TopologyComponentNode | undefined => {
    for (const node of nodes) {
      if (node.name === name) return node
      const inner = find(node.components ?? [], name)
      if (inner) return inner
    }
    return undefined
  }

  it('answers the top-level components as trees, live and not hidden, sorted by name, with the facets', async () => {
    const body = await topology()
    expect(names(body.components)).toEqual(['billing', 'shop'])
    const shop = body.components[1]!
    expect(names(shop.components)).toEqual(['api', 'db', 'web'])
    expect(names(find(body.components, 'web')!.components)).toEqual(['web-1', 'web-2'])
    expect(names(find(body.components, 'web-1')!.components)).toEqual(['web-1-c'])
    expect(body.healthStatuses).toEqual(['healthy', 'unhealthy'])
    expect(body.types).toEqual(['Container', 'Database', 'Pod', 'Service', 'Topology'])
    expect(body.teams).toEqual(['frontend', 'payments'])
    expect(body.tags).toEqual({ env: ['prod'], tier: ['data', 'web'] })
    expect(shop).toMatchObject({ id: estate.ids.shop, type: 'Topology', status: 'unhealthy', labels: { env: 'prod' }, summary: { healthy: 5, unhealthy: 2 }, external_id: 'shop' })
    expect(shop.parent_id).toBeUndefined()
    expect(shop.created_at).toMatch(/^\d{4}-\d{2}-\d{2}T\d{2}:\d{2}:\d{2}\.\d{3}Z$/)
  })

  it("carries the topology view's extras on every node: checks, incidents, analysis, team names, logs, properties", async () => {
    const body = await topology()
    const web = find(body.components, 'web')!
    expect(web).toMatchObject({
      checks: { healthy: 1, unhealthy: 1 },
      team_names: ['frontend'],
      logs: ['web-logs'],
      owner: 'web-team',
      properties: [{ name: 'cpu', value: 80, unit: 'percent' }],
      parent_id: estate.ids.shop,
    })
    const db = find(body.components, 'db')!
    expect(db).toMatchObject({ analysis: { security: { high: 1 } }, incidents: { availability: { High: 1 } }, team_names: ['payments'] })
    expect(find(body.components, 'db-1')!.checks).toEqual({ healthy: 1 })
    // Empty extras are left out, as the platform does.
    expect(find(body.components, 'api')).not.toHaveProperty('checks')
    expect(find(body.components, 'api')).not.toHaveProperty('team_names')
  })

  it('walks only as deep as depth (default 5) and from the root named by id', async () => {
    const shallow = await topology('?depth=1')
    expect(names(shallow.components[1]!.components)).toEqual(['api', 'db', 'web'])
    expect(find(shallow.components, 'web')!.components).toEqual([])
    expect((await topology('?depth=0')).components.map((node) => node.components)).toEqual([[], []])

    const web = await topology(`?id=${estate.ids.web}`)
    expect(names(web.components)).toEqual(['web'])
    expect(names(web.components[0]!.components)).toEqual(['web-1', 'web-2'])
    expect(web.types).toEqual(['Container', 'Pod', 'Service'])
    expect(web.teams).toEqual(['frontend'])
    expect((await topology(`?id=${estate.ids.web}&depth=1`)).components[0]!.components!.map((node) => node.components)).toEqual([[], []])
    // An id nobody has (or a deleted component) answers an empty list, not 404.
    expect((await topology('?id=0190f0f0-0000-7000-8000-00000000beef')).components).toEqual([])
    expect((await topology(`?id=${estate.ids.old}`)).components).toEqual([])
  })

  it('filters by status, type, owner, labels, team (name or id) and agent_id on every level; All is dropped', async () => {
    const shopChildren = async (query: string) => names((await topology(`?id=${estate.ids.shop}&${query}`)).components[0]!.components)
    expect(await shopChildren('status=unhealthy')).toEqual(['db'])
    expect(await shopChildren('type=Service,Database')).toEqual(['api', 'db', 'web'])
    expect(await shopChildren('type=Service,All')).toEqual(['api', 'web'])
    expect(await shopChildren('owner=web-team')).toEqual(['web'])
    expect(await shopChildren('labels=tier=web')).toEqual(['web'])
    expect(await shopChildren('labels=tier')).toEqual(['db', 'web'])
    expect(await shopChildren('team=payments')).toEqual(['db'])
    expect(await shopChildren(`team=${estate.teams.frontend}`)).toEqual(['web'])
    expect(await shopChildren('status=All&type=All&team=All&owner=All&labels=All')).toEqual(['api', 'db', 'web'])
    // A filtered-out component takes its subtree with it; the facets still list every choice.
    const unhealthy = await topology(`?id=${estate.ids.shop}&status=unhealthy`)
    expect(find(unhealthy.components, 'db')!.components).toEqual([])
    expect(unhealthy.healthStatuses).toEqual(['healthy', 'unhealthy'])
    // Roots are filtered too.
    expect(names((await topology('?status=healthy')).components)).toEqual(['billing'])
    expect(names((await topology(`?agent_id=${estate.edgeAgent}&flatten=true`)).components)).toEqual(['ledger'])
  })

  it('shows hidden components only with hidden=true', async () => {
    expect(names((await topology(`?id=${estate.ids.shop}&hidden=true`)).components[0]!.components)).toEqual(['api', 'cache', 'db', 'web'])
    expect(names((await topology(`?id=${estate.ids.shop}&hidden=false`)).components[0]!.components)).toEqual(['api', 'db', 'web'])
  })

  it('flattens the walked components into one sorted list', async () => {
    const flat = await topology(`?id=${estate.ids.shop}&flatten=true`)
    expect(names(flat.components)).toEqual(['api', 'db', 'db-1', 'shop', 'web', 'web-1', 'web-1-c', 'web-2'])
    expect(flat.components.every((node) => node.components === undefined)).toBe(true)
    expect(names((await topology(`?id=${estate.ids.shop}&flatten=true&type=Pod&sortOrder=desc`)).components)).toEqual(['web-2', 'web-1', 'shop', 'db-1'])
    expect(names((await topology('?flatten=true&type=Pod&depth=1')).components)).toEqual([])
  })

  it('sorts by name or by a field path, numerically when the values are numbers', async () => {
    const children = async (query: string) => names((await topology(`?id=${estate.ids.shop}&${query}`)).components[0]!.components)
    expect(await children('sortBy=name&sortOrder=desc')).toEqual(['web', 'db', 'api'])
    expect(await children('sortBy=field:properties.cpu&sortOrder=desc')).toEqual(['api', 'web', 'db'])
    expect(await children('sortBy=field:properties.cpu')).toEqual(['db', 'web', 'api'])
    expect(await children('sortBy=field:status')).toEqual(['api', 'web', 'db'])
    expect(await children('sortBy=field:labels.tier&sortOrder=desc')).toEqual(['web', 'db', 'api'])
    expect(await children('sortBy=field:properties.cpu.unit')).toEqual(['web', 'api', 'db'])
  })

  it('refuses bad parameters with 400 naming the field', async () => {
    const bad = async (query: string) => {
      const response = await request(testApp.app).get(`/api/canary/api/topology${query}`).set(bearer)
      expect(response.status).toBe(400)
      return response.body.error as string
    }
    expect(await bad('?id=shop')).toBe('id must be a component id')
    expect(await bad('?depth=-1')).toMatch(/^depth must be/)
    expect(await bad('?depth=deep')).toMatch(/^depth must be/)
    expect(await bad('?sortBy=cpu')).toMatch(/^sortBy must be/)
    expect(await bad('?sortBy=field:secrets')).toMatch(/^sortBy field 'secrets'/)
    expect(await bad('?sortBy=field:name.first')).toMatch(/^sortBy field/)
    expect(await bad('?sortOrder=sideways')).toBe('sortOrder must be asc or desc')
    expect(await bad('?flatten=maybe')).toBe('flatten must be true or false')
    expect(await bad('?agent_id=edge')).toBe('agent_id must be an agent id')
    expect(await bad('?labels==web')).toMatch(/^labels must be/)
    // noCache is accepted (there is no cache to bypass).
    expect((await topology('?noCache=true')).components).toHaveLength(2)
  })
})
