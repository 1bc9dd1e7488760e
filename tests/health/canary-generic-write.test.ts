import request from 'supertest'
import { describe, expect, it } from 'vitest'
import { syncCanaries } from '#server/backend/health/canary-sync.ts'
import { useTestApp } from '#tests/support/use-test-app.ts'
import { bearer } from '#tests/support/test-app.ts'

const testApp = useTestApp()

describe('resources written through the generic API', () => {
  it('stores a valid canary row and the engine materialises its checks', async () => {
    const created = await request(testApp.app)
      .post('/api/db/canaries')
      .set({ ...bearer, Prefer: 'return=representation' })
      .send({ name: 'generic', namespace: 'default', spec: { schedule: '@every 1m', http: [{ name: 'home', url: 'http://127.0.0.1:9/' }] } })
    expect(created.status).toBe(201)
    await syncCanaries(testApp.db, { wait: true })
    const { rows } = await testApp.db.query<{ name: string; type: string }>('SELECT name, type FROM checks WHERE canary_id = $1', [created.body[0].id])
    expect(rows).toEqual([{ name: 'home', type: 'http' }])
  })

  it('refuses a bad canary spec with the field path, storing nothing', async () => {
    const refused = await request(testApp.app)
      .post('/api/db/canaries')
      .set(bearer)
      .send({ name: 'broken', namespace: 'default', spec: { http: [{ name: 'bad-url', url: 42 }] } })
    expect(refused.status).toBe(400)
    expect(refused.body.message).toContain('spec.http[0].url')
    const { rows } = await testApp.db.query(`SELECT 1 FROM canaries WHERE name = 'broken'`)
    expect(rows).toHaveLength(0)

    const patched = await request(testApp.app)
      .patch('/api/db/canaries?name=eq.generic')
      .set(bearer)
      .send({ spec: { http: [{ name: 'x', url: 42 }] } })
    expect(patched.status).toBe(400)
    expect(patched.body.message).toContain('spec.http[0].url')
    expect((await request(testApp.app).patch('/api/db/canaries?name=eq.generic').set(bearer).send({ deleted_at: 'now()' })).status).toBe(204)
  })

  it('refuses an incident rule without a name or with a bad spec', async () => {
    const unnamed = await request(testApp.app).post('/api/db/incident_rules').set(bearer).send({ spec: {} })
    expect(unnamed.status).toBe(400)
    expect(unnamed.body.message).toBe('name: is required')
    const bad = await request(testApp.app).post('/api/db/incident_rules').set(bearer).send({ name: 'r1', spec: 'checks: [' })
    expect(bad.status).toBe(400)
    expect(bad.body.message).toMatch(/^spec/)
  })
})
