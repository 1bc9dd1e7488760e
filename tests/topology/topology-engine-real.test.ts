import request from 'supertest'
import { describe, expect, it } from 'vitest'
import { createTopologyEngine } from '#server/backend/topology/topology-engine.ts'
import { useTestApp } from '#tests/support/use-test-app.ts'
import { bearer } from '#tests/support/test-app.ts'
import { silentLogger, waitFor } from '#tests/catalog/scrape-fixtures.ts'
import { insertTopology } from './topology-engine-fixtures.ts'

/**
 * The engine with the real run (evaluate → store) of a static Topology: the other engine tests
 * drive the scheduling with a run of their own.
 */
const testApp = useTestApp()

const spec = {
  type: 'Application',
  icon: 'shop',
  schedule: '@every 1h',
  components: [
    {
      name: 'frontend',
      type: 'Service',
      properties: [{ name: 'replicas', value: 3, headline: true }],
      components: [{ name: 'frontend-pod', type: 'Pod' }],
    },
    { name: 'backend', type: 'Service' },
  ],
}

async function live(topologyId: string) {
  const { rows } = await testApp.db.query<{ name: string; type: string; parent: string | null }>(
    `SELECT c.name, c.type, p.name AS parent FROM components c LEFT JOIN components p ON p.id = c.parent_id
     WHERE c.topology_id = $1 AND c.deleted_at IS NULL ORDER BY c.name`,
    [topologyId],
  )
  return rows
}

describe('a static Topology through the engine', () => {
  it('runs now over HTTP, stores the tree, re-runs without writes, follows an edit and a delete', async () => {
    const { db, app } = testApp
    const id = await insertTopology(db, 'shop', spec)
    const response = await request(app).post(`/api/canary/run/topology/${id}`).set(bearer)
    expect(response.body).toEqual({ status: 'ok', count: '4' })
    expect(await live(id)).toEqual([
      { name: 'backend', type: 'Service', parent: 'shop' },
      { name: 'frontend', type: 'Service', parent: 'shop' },
      { name: 'frontend-pod', type: 'Pod', parent: 'frontend' },
      { name: 'shop', type: 'Application', parent: null },
    ])
    const { rows: jobs } = await db.query<{ status: string; success_count: number; details: { summary: { components: number } } }>(
      "SELECT status, success_count, details FROM job_history WHERE resource_id = $1 AND name = 'Topology'",
      [id],
    )
    expect(jobs).toMatchObject([{ status: 'SUCCESS', success_count: 4, details: { summary: { components: 4 } } }])

    const engine = createTopologyEngine({ db, logger: silentLogger, pollIntervalMs: 50, syncIntervalMs: 100, minIntervalMs: 200, leaseMs: 2_000 })
    const again = await engine.runNow(id)
    expect(again).toMatchObject({ status: 'SUCCESS', summary: { components: 4, created: 0, updated: 0, unchanged: 4, deleted: 0, rowWrites: 0 } })

    await engine.start()
    try {
      // Run-now left the next tick an hour away; the edit brings it forward.
      await db.query('UPDATE topologies SET spec = $2::jsonb, updated_at = now() WHERE id = $1', [id, JSON.stringify({ ...spec, components: spec.components.slice(0, 1) })])
      await waitFor(async () => !(await live(id)).some((row) => row.name === 'backend'), 10_000)
      expect((await live(id)).map((row) => row.name)).toEqual(['frontend', 'frontend-pod', 'shop'])

      await db.query('UPDATE topologies SET deleted_at = now() WHERE id = $1', [id])
      await waitFor(async () => (await live(id)).length === 0, 10_000)
    } finally {
      await engine.stop()
    }
  }, 60_000)
})
