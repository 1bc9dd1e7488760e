import request from 'supertest'
import { beforeAll, describe, expect, it } from 'vitest'
import { useTestApp } from '#tests/support/use-test-app.ts'
import { createTestApp } from '#tests/support/test-app.ts'

// /view/topology/{id} is public under the same setting as /view/health (spec 000 §2): without a
// credential the wall reads the component tree, and nothing else the health board could not.
describe('public topology wall (LOOKOUT_PUBLIC_HEALTH)', () => {
  const testApp = useTestApp()
  let rootId = ''

  beforeAll(async () => {
    const { rows } = await testApp.db.query<{ id: string }>(
      `INSERT INTO components (name, type, status, health, external_id) VALUES ('wall-root', 'Application', 'healthy', 'healthy', 'wall/root') RETURNING id`,
    )
    rootId = rows[0]!.id
    await testApp.db.query(`INSERT INTO components (name, type, status, health, external_id, parent_id) VALUES ('wall-child', 'Service', 'unhealthy', 'unhealthy', 'wall/child', $1)`, [rootId])
  }, 60_000)

  it('serves the tree to a caller without credentials when the flag is on, and no other topology path', async () => {
    const { app } = createTestApp(testApp.db, { LOOKOUT_PUBLIC_HEALTH: 'true' })
    const tree = await request(app).get(`/api/canary/api/topology?id=${rootId}&depth=1`)
    expect(tree.status).toBe(200)
    expect(tree.body.components[0].name).toBe('wall-root')
    expect(tree.body.components[0].components.map((child: { name: string }) => child.name)).toEqual(['wall-child'])
    expect((await request(app).get(`/api/snapshot/topology/${rootId}`)).status).toBe(401)
    expect((await request(app).get(`/api/db/components?id=eq.${rootId}`)).status).toBe(401)
    expect((await request(app).post('/api/canary/run/topology/' + rootId)).status).toBe(401)
  })

  it('answers 401 without credentials when the flag is off', async () => {
    const { app } = createTestApp(testApp.db)
    expect((await request(app).get(`/api/canary/api/topology?id=${rootId}`)).status).toBe(401)
  })
})
