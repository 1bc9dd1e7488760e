import net from 'node:net'
import type { AddressInfo } from 'node:net'
import { afterAll, beforeAll, expect, it } from 'vitest'
import { runTopology } from '#server/backend/topology/topology-run.ts'
import { createTestDb, type TestDb } from '../support/test-db.ts'
import { silentLogger, testEngine } from '../health/health-fixtures.ts'
import { insertTopology } from './topology-store-fixtures.ts'

let testDb: TestDb
let peer: net.Server
let port: number

beforeAll(async () => {
  testDb = await createTestDb()
  peer = net.createServer((socket) => socket.end())
  await new Promise<void>((resolve) => peer.listen(0, '127.0.0.1', resolve))
  port = (peer.address() as AddressInfo).port
})
afterAll(async () => {
  peer?.close()
  await testDb?.drop()
})

it('a Topology spec with an inline tcp check: evaluated, stored, run by the check engine, rolled up on the next run; unchanged runs write nothing', async () => {
  const topology = await insertTopology(testDb.db, 'payments', {
    type: 'Application',
    icon: 'bank',
    schedule: '@every 1h',
    components: [
      {
        name: 'ledger',
        type: 'Database',
        properties: [{ name: 'engine', text: 'postgres', headline: true }],
        checks: [{ inline: { tcp: [{ name: 'ledger-port', endpoint: `127.0.0.1:${port}` }] } }],
      },
      { name: 'api', type: 'Service', components: [{ name: 'worker', type: 'Process' }] },
    ],
  })
  const engine = testEngine(testDb.db)
  try {
    const first = await runTopology(testDb.db, topology, { trusted: true, logger: silentLogger })
    expect(first.errors).toEqual([])
    expect(first.summary).toMatchObject({ components: 4, created: 4 })
    const { rows: components } = await testDb.db.query<{ id: string; name: string; health: string; summary: unknown; properties: unknown }>(
      'SELECT id, name, health, summary, properties FROM components WHERE topology_id = $1 AND deleted_at IS NULL', [topology.id])
    const ledger = components.find((row) => row.name === 'ledger')!
    expect(ledger.properties).toEqual([expect.objectContaining({ name: 'engine', text: 'postgres', headline: true })])
    const { rows: links } = await testDb.db.query<{ check_id: string }>(
      "SELECT check_id FROM check_component_relationships WHERE component_id = $1 AND selector_id = 'inline' AND deleted_at IS NULL", [ledger.id])
    expect(links).toHaveLength(1)

    expect((await runTopology(testDb.db, topology, { trusted: true })).summary.rowWrites).toBe(0)

    expect((await engine.runNow(links[0]!.check_id))!.pass).toBe(true)
    await runTopology(testDb.db, topology, { trusted: true })
    const { rows: after } = await testDb.db.query<{ name: string; health: string; summary: unknown }>(
      'SELECT name, health, summary FROM components WHERE topology_id = $1 AND deleted_at IS NULL', [topology.id])
    expect(after.find((row) => row.name === 'ledger')).toMatchObject({ health: 'healthy', summary: { checks: { healthy: 1 } } })
    expect(after.find((row) => row.name === 'payments')).toMatchObject({ health: 'healthy' })
    expect((await runTopology(testDb.db, topology, { trusted: true })).summary.rowWrites).toBe(0)

    // The api component leaves the spec: it and its child are soft-deleted on the next run.
    await testDb.db.query(`UPDATE topologies SET spec = spec #- '{components,1}' WHERE id = $1`, [topology.id])
    const { rows: [edited] } = await testDb.db.query<{ spec: Record<string, unknown> }>('SELECT spec FROM topologies WHERE id = $1', [topology.id])
    const removed = await runTopology(testDb.db, { ...topology, spec: edited!.spec }, { trusted: true })
    expect(removed.summary).toMatchObject({ components: 2, deleted: 2 })
  } finally {
    await engine.stop()
  }
})
