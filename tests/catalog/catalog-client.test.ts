import http from 'node:http'
import type { AddressInfo } from 'node:net'
import type { AppLoadContext } from '@remix-run/node'
import request from 'supertest'
import { afterAll, beforeAll, describe, expect, it } from 'vitest'
import { getCatalogChanges, getCatalogSummary, getConfigChange, getConfigDetail, getConfigRelationships, searchResources } from '#app/lib/catalog-client.server.ts'
import { GatewayError } from '#app/lib/gateway.server.ts'
import { TEST_TOKEN } from '#tests/support/test-app.ts'
import { useTestApp } from '#tests/support/use-test-app.ts'
import { personWith } from '#tests/rbac/rbac-fixture.ts'

/**
 * The console's catalog client against the real gateway and backend on a loopback port, called
 * as a page loader calls it: a GET page request carrying the browser's session cookie.
 */
describe('catalog client', () => {
  const testApp = useTestApp()
  let server: http.Server
  let base: string
  let cookie: string
  const ids: Record<string, string> = {}

  beforeAll(async () => {
    server = http.createServer((req, res) => testApp.app(req, res))
    await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve))
    base = `http://127.0.0.1:${(server.address() as AddressInfo).port}`
    const login = await request(testApp.app).post('/api/auth/login').send({ username: 'token', password: TEST_TOKEN })
    cookie = login.headers['set-cookie']![0]!.split(';')[0]!
    for (const [name, type, parent] of [['cluster-a', 'Kubernetes::Cluster', null], ['ns-a', 'Kubernetes::Namespace', 'cluster-a'], ['pod-a', 'Kubernetes::Pod', 'ns-a']] as const) {
      const { rows } = await testApp.db.query<{ id: string }>(
        `INSERT INTO config_items (name, type, config_class, parent_id, tags, health, config) VALUES ($1, $2, split_part($2, '::', 2), $3, '{"cluster":"a"}', 'healthy', '{"spec":{"replicas":2}}') RETURNING id`,
        [name, type, parent ? ids[parent] : null],
      )
      ids[name] = rows[0]!.id
    }
    const { rows } = await testApp.db.query<{ id: string }>(`INSERT INTO config_changes (config_id, change_type, summary, diff, severity) VALUES ($1, 'diff', 'replicas 1 → 2', '-1\n+2', 'info') RETURNING id`, [ids['pod-a']])
    ids.change = rows[0]!.id
  })

  afterAll(async () => {
    await new Promise<void>((resolve) => server.close(() => resolve()))
  })

  function args(headers: Record<string, string> = { cookie }) {
    const context = { gateway: { gatewayBaseUrl: base, gatewayTimeoutMs: 5_000 }, cspNonce: 'n', publicEnv: { frontendVersion: 't', mode: 'embedded' } } as AppLoadContext
    return { request: new Request('http://console.test/catalog', { headers }), context }
  }

  it('reads the summary, changes, one change, search, relationships and detail', async () => {
    const summary = await getCatalogSummary(args(), { cost: '30d', changes: { since: '7d' }, analysis: {} })
    expect(summary.find((row) => row.type === 'Kubernetes::Pod')).toMatchObject({ count: 1, health: { healthy: 1 }, changes: 1, analysis: {} })
    const changes = await getCatalogChanges(args(), { id: ids['cluster-a'], recursive: 'downstream', depth: 5 })
    expect(changes).toMatchObject({ total: 1, summary: { diff: 1 }, changes: [{ id: ids.change, name: 'pod-a', summary: 'replicas 1 → 2' }] })
    expect(await getCatalogChanges(args(), { type: 'Nothing' })).toEqual({ summary: {}, total: 0, changes: [] })
    expect(await getConfigChange(args(), ids.change!)).toMatchObject({ diff: '-1\n+2', change_type: 'diff' })
    const found = await searchResources(args(), { configs: [{ search: 'name=pod-* type=Kubernetes::Pod' }] })
    expect(found.configs.map((row) => row.name)).toEqual(['pod-a'])
    expect(found.components).toEqual([])
    const related = await getConfigRelationships(args(), ids['ns-a']!, { depth: 3 })
    expect(related!.incoming.map((row) => row.name)).toEqual(['cluster-a'])
    expect(related!.outgoing.map((row) => row.name)).toEqual(['pod-a'])
    expect(await getConfigRelationships(args(), '0190f0f0-0000-7000-8000-00000000beef')).toBeNull()
    const detail = await getConfigDetail(args(), ids['pod-a']!)
    expect(detail).toMatchObject({ name: 'pod-a', type: 'Kubernetes::Pod', config: { spec: { replicas: 2 } }, summary: { changes: 1, relationships: 1 } })
    expect(await getConfigDetail(args(), '0190f0f0-0000-7000-8000-00000000beef')).toBeNull()
  })

  it('turns a 400 into a GatewayError with the API message, and sees only what the person may', async () => {
    const error = await getCatalogSummary(args(), { cost: '7d' as '1d' }).catch((failure: unknown) => failure)
    expect(error).toBeInstanceOf(GatewayError)
    expect((error as GatewayError).status).toBe(400)
    expect((error as GatewayError).message).toBe('cost range is not allowed. allowed (1h, 1d, 30d)')
    const scoped = await personWith(testApp.db, ['viewer'], 'client-scoped')
    await testApp.db.query(`INSERT INTO permissions (subject_type, subject, object, action, tags) VALUES ('person', $1, 'catalog', 'read', '{"cluster":"b"}')`, [scoped.id])
    testApp.backend.authorizer.invalidate()
    expect(await getCatalogSummary(args({ authorization: `Bearer ${scoped.token}` }))).toEqual([])
    expect(await getConfigDetail(args({ authorization: `Bearer ${scoped.token}` }), ids['pod-a']!)).toBeNull()
  })
})
