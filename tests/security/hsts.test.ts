import request from 'supertest'
import { describe, expect, it } from 'vitest'
import { createTestApp } from '#tests/support/test-app.ts'
import { useTestApp } from '#tests/support/use-test-app.ts'

/**
 * Issue 10, item 9: behind a TLS-terminating proxy Lookout never sent Strict-Transport-Security,
 * so a first visit over http:// could be downgraded every time. It is sent on answers to requests
 * that reached Lookout over TLS as Express judges it (`req.secure`: X-Forwarded-Proto from a
 * proxy trusted through LOOKOUT_TRUST_PROXY), and never over plain HTTP.
 */
const testApp = useTestApp()
describe('HSTS', () => {
  it('is sent when a trusted proxy says the request came over https', async () => {
    const { app } = createTestApp(testApp.db, { LOOKOUT_TRUST_PROXY: 'true' })
    const response = await request(app).get('/healthz').set('X-Forwarded-Proto', 'https')
    expect(response.status).toBe(200)
    expect(response.headers['strict-transport-security']).toMatch(/^max-age=\d{7,}; includeSubDomains$/)
  })

  it('is not sent over plain http, behind a proxy or not', async () => {
    const proxied = createTestApp(testApp.db, { LOOKOUT_TRUST_PROXY: 'true' }).app
    expect((await request(proxied).get('/healthz').set('X-Forwarded-Proto', 'http')).headers['strict-transport-security']).toBeUndefined()
    expect((await request(proxied).get('/healthz')).headers['strict-transport-security']).toBeUndefined()
    const direct = createTestApp(testApp.db).app
    expect((await request(direct).get('/healthz')).headers['strict-transport-security']).toBeUndefined()
  })
})
