import { afterAll, beforeAll, expect, it } from 'vitest'
import { runTopology } from '#server/backend/topology/topology-run.ts'
import { createTestDb, type TestDb } from '#tests/support/test-db.ts'
import { applyYaml, canaryYaml, silentLogger, startLocalServer, type LocalServer } from '#tests/health/health-fixtures.ts'
import { insertTopology } from './topology-store-fixtures.ts'

let testDb: TestDb
let peer: LocalServer
let pods = [{ name: 'web-1', zone: 'a' }, { name: 'web-2', zone: 'b' }]
let failing = false

beforeAll(async () => {
  testDb = await createTestDb()
  peer = await startLocalServer((_req, res) => {
    if (failing) {
      res.statusCode = 503
      return res.end('maintenance')
    }
    res.setHeader('content-type', 'application/json')
    res.end(JSON.stringify({ items: pods }))
  })
})
afterAll(async () => {
  await peer?.close()
  await testDb?.drop()
})

it('a looked-up inventory with forEach links is stored, re-runs without writes, follows the inventory, and survives its source failing', async () => {
  const db = testDb.db
  const { checks } = await applyYaml(db, canaryYaml('pod-checks', `  tcp:
    - {name: web-1, endpoint: "127.0.0.1:1"}
    - {name: web-2, endpoint: "127.0.0.1:1"}`))
  const { rows: [node] } = await db.query<{ id: string }>(`INSERT INTO config_items (name, type, config_class, tags) VALUES ('node-a', 'Test::Node', 'Node', '{"zone":"a"}') RETURNING id`)
  const topology = await insertTopology(db, 'inventory', {
    type: 'Cluster',
    schedule: '@every 1h',
    components: [
      {
        name: 'pods',
        type: 'Pod',
        lookup: { http: [{ name: 'pods', url: `${peer.url}/pods`, display: { expr: 'json.items.map(p, {"name": p.name, "labels": {"zone": p.zone}})' } }] },
        forEach: {
          properties: [{ name: 'zone', text: '$(.component.labels.zone)', headline: true }],
          checks: [{ selector: { name: '$(.component.name)', types: ['tcp'] } }],
          configs: [{ types: ['Test::Node'], tagSelector: 'zone=$(.component.labels.zone)' }],
        },
      },
    ],
  })

  const first = await runTopology(db, topology, { trusted: true, logger: silentLogger })
  expect(first.errors).toEqual([])
  expect(first.summary).toMatchObject({ components: 3 })
  const live = async () => (await db.query<{ id: string; name: string; type: string; properties: unknown }>(
    'SELECT id, name, type, properties FROM components WHERE topology_id = $1 AND deleted_at IS NULL ORDER BY name', [topology.id])).rows
  const rows = await live()
  expect(rows.map((row) => [row.name, row.type])).toEqual([['inventory', 'Cluster'], ['web-1', 'Pod'], ['web-2', 'Pod']])
  const web1 = rows.find((row) => row.name === 'web-1')!
  expect(web1.properties).toEqual([expect.objectContaining({ name: 'zone', text: 'a', headline: true })])
  const { rows: checkLinks } = await db.query<{ check_id: string }>(
    'SELECT check_id FROM check_component_relationships WHERE component_id = $1 AND deleted_at IS NULL', [web1.id])
  expect(checkLinks.map((link) => link.check_id)).toEqual([checks.get('web-1')])
  const { rows: configLinks } = await db.query<{ component_id: string }>(
    'SELECT component_id FROM config_component_relationships WHERE config_id = $1 AND deleted_at IS NULL', [node!.id])
  expect(configLinks.map((link) => link.component_id)).toEqual([web1.id])

  // Nothing changed at the source: nothing is written.
  expect((await runTopology(db, topology, { trusted: true })).summary.rowWrites).toBe(0)

  // web-2 leaves the inventory: its component goes on the next run.
  pods = [{ name: 'web-1', zone: 'a' }]
  const third = await runTopology(db, topology, { trusted: true })
  expect(third.errors).toEqual([])
  expect((await live()).map((row) => row.name)).toEqual(['inventory', 'web-1'])
  expect(third.summary.deleted).toBe(1)

  // The source failing is not the inventory emptying: the run reports it and keeps the components.
  failing = true
  const fourth = await runTopology(db, topology, { trusted: true })
  expect(fourth.errors).toEqual([expect.stringMatching(/^component pods: lookup: http check pods: expected 503 to be 200\.\.299/)])
  expect((await live()).map((row) => row.name)).toEqual(['inventory', 'web-1'])
  expect(fourth.summary.deleted).toBe(0)
})
