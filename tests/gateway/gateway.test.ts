import request from 'supertest'
import { beforeAll, describe, expect, it } from 'vitest'
import { useTestApp } from '#tests/support/use-test-app.ts'
import { TEST_TOKEN, bearer, createTestApp } from '#tests/support/test-app.ts'
import { APP_VERSION } from '#server/boot.ts'

const testApp = useTestApp()
let app: ReturnType<typeof createTestApp>['app']

beforeAll(async () => {
  await testApp.db.query(`INSERT INTO properties (name, value) VALUES ('incidents.disable', 'true')`)
  app = createTestApp(testApp.db).app
})

describe('credentials', () => {
  it('answers 401 JSON without credentials', async () => {
    const response = await request(app).get('/api/db/checks')
    expect(response.status).toBe(401)
    expect(response.headers['content-type']).toMatch(/application\/json/)
    expect(response.body).toEqual({ error: 'unauthorized', message: 'Not logged in' })
  })

  it('answers 401 for a wrong bearer token', async () => {
    const response = await request(app).get('/api/about').set('Authorization', 'Bearer wrong-token-0123456789abcdef')
    expect(response.status).toBe(401)
    expect(response.body.message).toBe('invalid access token')
  })

  it('accepts the bootstrap token as bearer and as basic auth with user "token"', async () => {
    const asBearer = await request(app).get('/api/auth/whoami').set(bearer)
    expect(asBearer.status).toBe(200)
    expect(asBearer.body.payload.roles).toEqual(['admin'])
    expect(asBearer.body.payload.user.name).toBe('System')

    const basic = Buffer.from(`Token:${TEST_TOKEN}`).toString('base64')
    const asBasic = await request(app).get('/api/auth/whoami').set('Authorization', `Basic ${basic}`)
    expect(asBasic.status).toBe(200)
    expect(asBasic.body.payload.user.id).toBe(asBearer.body.payload.user.id)

    const otherUser = Buffer.from(`admin:${TEST_TOKEN}`).toString('base64')
    expect((await request(app).get('/api/auth/whoami').set('Authorization', `Basic ${otherUser}`)).status).toBe(401)
  })

  it('signs in with the token, keeps a server-side session and signs out', async () => {
    const refused = await request(app).post('/api/auth/login').send({ username: 'token', password: 'nope' })
    expect(refused.status).toBe(401)
    expect(refused.body).toEqual({ error: 'invalid credentials' })
    expect((await request(app).post('/api/auth/login').send({})).status).toBe(400)

    const login = await request(app).post('/api/auth/login').send({ username: 'token', password: TEST_TOKEN })
    expect(login.status).toBe(200)
    const cookie = login.headers['set-cookie']?.[0] ?? ''
    expect(cookie).toMatch(/^lookout_session=[\w-]{20,};/)
    expect(cookie).toContain('HttpOnly')
    expect(cookie).toContain('SameSite=Lax')
    expect(cookie).not.toContain('Secure')
    const sessionCookie = cookie.split(';')[0]!

    const { rows } = await testApp.db.query<{ id_hash: string }>('SELECT id_hash FROM lookout.sessions')
    expect(rows.length).toBeGreaterThan(0)
    // Only a hash of the cookie value is stored.
    expect(rows.map((row) => row.id_hash)).not.toContain(sessionCookie.split('=')[1])

    const whoami = await request(app).get('/api/auth/whoami').set('Cookie', sessionCookie)
    expect(whoami.status).toBe(200)
    expect(whoami.body.payload.roles).toEqual(['admin'])
    expect(whoami.headers['set-cookie']).toBeUndefined()

    // Rolling expiry: less than half the lifetime left → extended, cookie sent again.
    await testApp.db.query(`UPDATE lookout.sessions SET expires_at = now() + interval '1 hour'`)
    const renewed = await request(app).get('/api/auth/whoami').set('Cookie', sessionCookie)
    expect(renewed.headers['set-cookie']?.[0]).toBe(`${sessionCookie}; Path=/; HttpOnly; SameSite=Lax; Max-Age=86400`)

    // A cookie-authenticated write must come from the console's own pages (issue 10 item 5).
    const forged = await request(app).post('/api/auth/logout').set('Cookie', sessionCookie)
    expect(forged.status).toBe(403)
    const logout = await request(app).post('/api/auth/logout').set('Cookie', sessionCookie).set('Sec-Fetch-Site', 'same-origin')
    expect(logout.status).toBe(200)
    expect(logout.headers['set-cookie']?.[0]).toContain('Max-Age=0')
    expect((await request(app).get('/api/auth/whoami').set('Cookie', sessionCookie)).status).toBe(401)
  })

  it('marks the session cookie Secure behind a TLS-terminating proxy it trusts', async () => {
    const trusted = createTestApp(testApp.db, { LOOKOUT_TRUST_PROXY: 'true' }).app
    const login = await request(trusted)
      .post('/api/auth/login')
      .set('X-Forwarded-Proto', 'https')
      .send({ username: 'token', password: TEST_TOKEN })
    expect(login.headers['set-cookie']?.[0]).toContain('Secure')
  })
})

describe('gateway routing in embedded mode', () => {
  it('serves /api/db reads from the embedded data API', async () => {
    const response = await request(app).get('/api/db/agents?select=id,name&order=name').set(bearer)
    expect(response.status).toBe(200)
    expect(response.body).toEqual(expect.arrayContaining([{ id: '00000000-0000-0000-0000-000000000000', name: 'local' }]))
  })

  it('serves /api/about and /api/properties', async () => {
    const about = await request(app).get('/api/about').set(bearer)
    expect(about.body).toMatchObject({ appVersion: APP_VERSION, Version: APP_VERSION })
    const properties = await request(app).get('/api/properties').set(bearer)
    expect(properties.body).toContainEqual({ name: 'incidents.disable', value: 'true', source: 'db', type: '', description: '' })
  })

  it('answers 501 for a sub-base whose service is not built yet, and 404 outside every sub-base', async () => {
    // The deprecated apm-hub log search is proxied upstream only (the embedded backend serves /logs).
    const notBuilt = await request(app).post('/api/apm/search').set(bearer).send({})
    expect(notBuilt.status).toBe(501)
    expect(notBuilt.body.error).toBe('not_implemented')
    expect(notBuilt.body.message).toContain('/api/apm/search')

    const unknown = await request(app).get('/api/nowhere').set(bearer)
    expect(unknown.status).toBe(404)
    expect(unknown.body.error).toBe('not_found')
  })

  it('answers /api/_health without credentials', async () => {
    const response = await request(app).get('/api/_health')
    expect(response.body).toEqual({ health: 'ok' })
  })

  it('serves /mcp at the root as well as under /api', async () => {
    const root = await request(app).post('/mcp').set(bearer).send({ jsonrpc: '2.0', id: 1, method: 'initialize' })
    const underApi = await request(app).post('/api/mcp').set(bearer).send({ jsonrpc: '2.0', id: 1, method: 'initialize' })
    expect(root.status).toBe(underApi.status)
    expect(root.body).toEqual(underApi.body)
    expect((await request(app).post('/mcp')).status).toBe(401)
  })
})

describe('operations endpoints', () => {
  it('/healthz and /readyz', async () => {
    expect((await request(app).get('/healthz')).body).toEqual({ status: 'ok' })
    const ready = await request(app).get('/readyz')
    expect(ready.status).toBe(200)
    expect(ready.body).toEqual({ status: 'ready', checks: { database: 'ok', migrations: 'ok' } })
  })

  it('/metrics exposes request histograms by route, pool and process metrics', async () => {
    await request(app).get('/api/about').set(bearer)
    const metrics = await request(app).get('/metrics').set(bearer)
    expect(metrics.status).toBe(200)
    expect(metrics.text).toMatch(/lookout_http_request_duration_seconds_bucket\{.*route="\/api\/about".*\}/)
    expect(metrics.text).toContain('lookout_db_pool_connections{state="total"}')
    expect(metrics.text).toContain('lookout_process_cpu_user_seconds_total')
  })

  it('echoes a sane X-Request-Id and replaces an unsafe one', async () => {
    const kept = await request(app).get('/healthz').set('X-Request-Id', 'abc-123')
    expect(kept.headers['x-request-id']).toBe('abc-123')
    const replaced = await request(app).get('/healthz').set('X-Request-Id', 'bad id <script>')
    expect(replaced.headers['x-request-id']).toMatch(/^[0-9a-f-]{36}$/)
  })

  it('sends security headers', async () => {
    const response = await request(app).get('/healthz')
    expect(response.headers['x-content-type-options']).toBe('nosniff')
    expect(response.headers['referrer-policy']).toBe('same-origin')
    expect(response.headers['content-security-policy']).toContain("frame-ancestors 'none'")
    expect(response.headers['x-powered-by']).toBeUndefined()
  })
})
