import request from 'supertest'
import { describe, expect, it } from 'vitest'
import { useTestApp } from '#tests/support/use-test-app.ts'
import { createTestApp } from '#tests/support/test-app.ts'

const testApp = useTestApp()

describe('SESSION_DISABLED=true (single-user local mode)', () => {
  it('serves callers without credentials as the local admin, and still checks credentials that are sent', async () => {
    const { app } = createTestApp(testApp.db, { SESSION_DISABLED: 'true' })
    const whoami = await request(app).get('/api/auth/whoami')
    expect(whoami.status).toBe(200)
    expect(whoami.body.payload.roles).toContain('admin')
    expect((await request(app).post('/api/db/connections').send({ name: 'local-pg', type: 'postgres' })).status).toBe(201)
    expect((await request(app).get('/api/db/checks').set('Authorization', 'Bearer wrong-token-0123456789abcdef')).status).toBe(401)
  })

  it('answers 401 without credentials when sessions are on', async () => {
    const { app } = createTestApp(testApp.db)
    expect((await request(app).get('/api/auth/whoami')).status).toBe(401)
  })
})
