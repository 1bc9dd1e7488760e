import request from 'supertest'
import { beforeAll, describe, expect, it } from 'vitest'
import { useTestApp } from '#tests/support/use-test-app.ts'
import { bearer, createTestApp } from '#tests/support/test-app.ts'

describe('public health board (LOOKOUT_PUBLIC_HEALTH)', () => {
  const testApp = useTestApp()

  beforeAll(async () => {
    const { rows } = await testApp.db.query<{ id: string }>(
      `INSERT INTO canaries (name, namespace, spec, source) VALUES ('board', 'default', '{}'::jsonb, 'UI') RETURNING id`,
    )
    await testApp.db.query(`INSERT INTO checks (canary_id, type, name, status) VALUES ($1, 'http', 'board-check', 'healthy')`, [rows[0]!.id])
  }, 60_000)
  it('serves only the summary to a caller without credentials when the flag is on', async () => {
    const { app } = createTestApp(testApp.db, { LOOKOUT_PUBLIC_HEALTH: 'true' })
    const summary = await request(app).get('/api/canary/api/summary')
    expect(summary.status).toBe(200)
    expect(summary.body.checks_summary.map((check: { name: string }) => check.name)).toContain('board-check')
    expect((await request(app).get('/api/db/checks')).status).toBe(401)
    expect((await request(app).get('/api/canary/api/canaries')).status).toBe(401)
    expect((await request(app).get('/api/auth/whoami')).status).toBe(401)
    // The summary's POST form and Run Now are not reads the board needs.
    expect((await request(app).post('/api/canary/api/summary').send({})).status).toBe(401)
  })

  it('judges a request that carries a credential on that credential, not as anonymous', async () => {
    const { app } = createTestApp(testApp.db, { LOOKOUT_PUBLIC_HEALTH: 'true' })
    expect((await request(app).get('/api/canary/api/summary').set('Authorization', 'Bearer not-a-real-token-0123456789')).status).toBe(401)
    expect((await request(app).get('/api/canary/api/summary').set('Cookie', 'lookout_session=unknown-session')).status).toBe(401)
    expect((await request(app).get('/api/canary/api/summary').set(bearer)).status).toBe(200)
  })

  it('answers 401 without credentials when the flag is off (the default)', async () => {
    const { app, env } = createTestApp(testApp.db)
    expect(env.LOOKOUT_PUBLIC_HEALTH).toBe(false)
    expect((await request(app).get('/api/canary/api/summary')).status).toBe(401)
    expect((await request(app).get('/api/db/checks')).status).toBe(401)
  })
})
