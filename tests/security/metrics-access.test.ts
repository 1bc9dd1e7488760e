import request from 'supertest'
import { describe, expect, it } from 'vitest'
import { parseEnv } from '#server/env.ts'
import { bearer, createTestApp } from '#tests/support/test-app.ts'
import { useTestApp } from '#tests/support/use-test-app.ts'

/**
 * Issue 10, item 9: /metrics (routes, pool sizes, memory, versions) was open to anyone who could
 * reach the port. It now needs a bearer token (LOOKOUT_METRICS_TOKEN or the bootstrap token);
 * LOOKOUT_METRICS_PUBLIC=true restores the open endpoint.
 */
const METRICS_TOKEN = 'metrics-scraper-token-0123456789abcdef'

const testApp = useTestApp()
describe('/metrics access', () => {
  it('refuses an anonymous scrape with 401 and a bearer challenge, without any figure', async () => {
    const { app } = createTestApp(testApp.db, { LOOKOUT_METRICS_TOKEN: METRICS_TOKEN })
    const response = await request(app).get('/metrics')
    expect(response.status).toBe(401)
    expect(response.headers['www-authenticate']).toMatch(/^Bearer/)
    expect(response.text).not.toContain('lookout_')
  })

  it('refuses a wrong token, and a token sent any other way than as a bearer', async () => {
    const { app } = createTestApp(testApp.db, { LOOKOUT_METRICS_TOKEN: METRICS_TOKEN })
    expect((await request(app).get('/metrics').set('Authorization', 'Bearer not-the-token-0123456789abc')).status).toBe(401)
    expect((await request(app).get('/metrics').set('Authorization', `Basic ${METRICS_TOKEN}`)).status).toBe(401)
    expect((await request(app).get(`/metrics?token=${METRICS_TOKEN}`)).status).toBe(401)
  })

  it('serves the metrics token and the bootstrap token', async () => {
    const { app } = createTestApp(testApp.db, { LOOKOUT_METRICS_TOKEN: METRICS_TOKEN })
    const scraped = await request(app).get('/metrics').set('Authorization', `Bearer ${METRICS_TOKEN}`)
    expect(scraped.status).toBe(200)
    expect(scraped.text).toContain('lookout_http_requests_total')
    expect((await request(app).get('/metrics').set(bearer)).status).toBe(200)
  })

  it('LOOKOUT_METRICS_PUBLIC=true opts back into the open endpoint', async () => {
    const { app } = createTestApp(testApp.db, { LOOKOUT_METRICS_PUBLIC: 'true' })
    const response = await request(app).get('/metrics')
    expect(response.status).toBe(200)
    expect(response.text).toContain('lookout_process_cpu_user_seconds_total')
  })

  it('validates the new settings', () => {
    expect(() => parseEnv({ LOOKOUT_METRICS_TOKEN: 'short' })).toThrow(/LOOKOUT_METRICS_TOKEN/)
    expect(() => parseEnv({ LOOKOUT_METRICS_PUBLIC: 'maybe' })).toThrow(/LOOKOUT_METRICS_PUBLIC/)
    expect(parseEnv({}).LOOKOUT_METRICS_PUBLIC).toBe(false)
  })
})
