import http from 'node:http'
import type { AddressInfo } from 'node:net'
import request from 'supertest'
import { afterAll, beforeAll, describe, expect, it } from 'vitest'
import { createApp } from '#server/app.ts'
import { createBackend } from '#server/backend/backend-app.ts'
import { firstAdminLines } from '#server/backend/identity/first-admin.ts'
import { APP_VERSION } from '#server/boot.ts'
import { createConsoleHandler } from '#server/console.ts'
import { createLogger } from '#server/logger.ts'
import { ensureConsoleBuild } from '#tests/support/console-build.ts'
import { useTestApp } from '#tests/support/use-test-app.ts'
import { TEST_TOKEN, bearer, testEnv } from '#tests/support/test-app.ts'

/**
 * Finding 5 of the security review: a page of another origin on the same site (another port of
 * the same host) could post to /api and to console actions with the visitor's SameSite=Lax
 * session cookie, send text/plain that the API read as JSON or YAML, and `/login?username=&
 * password=` signed a browser in without a click. The app here is the real one: gateway,
 * embedded backend and the built console, listening on a loopback port.
 */

const PUBLIC_URL = 'http://console.test'
const ADMIN = { email: 'forgery-admin@example.com', password: 'forgery-Admin-passw0rd!' }

const testApp = useTestApp()
let server: http.Server
let base = ''
let session = ''

beforeAll(async () => {
  await ensureConsoleBuild()
  const env = testEnv({ LOOKOUT_PUBLIC_URL: PUBLIC_URL, LOOKOUT_ADMIN_EMAIL: ADMIN.email, LOOKOUT_ADMIN_PASSWORD: ADMIN.password })
  const logger = createLogger('silent')
  const backend = createBackend({ db: testApp.db, env, logger, appVersion: APP_VERSION, consoleUrl: () => PUBLIC_URL })
  await firstAdminLines(testApp.db, env, PUBLIC_URL, backend)
  const consoleHandler = await createConsoleHandler({
    isProduction: true,
    getLoadContext: (_req, res) => ({
      gateway: { gatewayBaseUrl: base, gatewayTimeoutMs: 10_000 },
      cspNonce: res.locals.cspNonce as string,
      publicEnv: { frontendVersion: APP_VERSION, mode: 'embedded' },
    }),
  })
  const app = createApp({ env, db: testApp.db, logger, embedded: backend.router, console: consoleHandler.handler, isMigrated: () => true })
  server = http.createServer(app.listener).listen(0, '127.0.0.1')
  await new Promise((resolve) => server.once('listening', resolve))
  base = `http://127.0.0.1:${(server.address() as AddressInfo).port}`

  const login = await request(base).post('/api/auth/login').send({ username: 'token', password: TEST_TOKEN })
  expect(login.status).toBe(200)
  session = login.headers['set-cookie']![0]!.split(';')[0]!
}, 240_000)

afterAll(async () => {
  await new Promise((resolve) => server?.close(resolve))
})

async function propertyValue(name: string): Promise<string | undefined> {
  const { rows } = await testApp.db.query<{ value: string }>('SELECT value FROM properties WHERE name = $1', [name])
  return rows[0]?.value
}

describe('cookie-authenticated writes to /api need the console origin', () => {
  it.each([
    ['no Origin header', {}],
    ['a foreign site', { Origin: 'http://evil.example' }],
    ['another port of the same host (same site, other origin)', { Origin: 'http://console.test:8080' }],
    ['Origin: null', { Origin: 'null' }],
    ['Sec-Fetch-Site: same-site', { 'Sec-Fetch-Site': 'same-site' }],
  ])('refuses a POST from %s with 403 in the gateway error shape', async (_label, headers) => {
    const response = await request(base)
      .post('/api/db/properties')
      .set('Cookie', session)
      .set(headers as Record<string, string>)
      .send({ name: 'forged.post', value: 'yes' })
    expect(response.status).toBe(403)
    expect(response.body).toEqual({ error: 'forbidden_origin', message: expect.stringMatching(/session cookie needs a same-origin request/) })
    expect(await propertyValue('forged.post')).toBeUndefined()
  })

  it('refuses PATCH and DELETE without a matching Origin, leaving the row alone', async () => {
    await testApp.db.query(`INSERT INTO properties (name, value) VALUES ('forged.target', 'original')`)
    const patch = await request(base)
      .patch('/api/db/properties?name=eq.forged.target')
      .set('Cookie', session)
      .set('Origin', 'http://console.test:9999')
      .send({ value: 'changed' })
    expect(patch.status).toBe(403)
    const remove = await request(base).delete('/api/db/properties?name=eq.forged.target').set('Cookie', session)
    expect(remove.status).toBe(403)
    expect(await propertyValue('forged.target')).toBe('original')
  })

  it('refuses an identity API write and a sign-out by a foreign page', async () => {
    const settings = await request(base)
      .post('/api/.ory/self-service/settings?flow=00000000-0000-4000-8000-000000000000')
      .set('Cookie', session)
      .set('Origin', 'http://evil.example')
      .type('form')
      .send({ method: 'password', password: 'attacker-chosen-1!' })
    expect(settings.status).toBe(403)
    const logout = await request(base).post('/api/auth/logout').set('Cookie', session).set('Origin', 'http://evil.example')
    expect(logout.status).toBe(403)
    expect((await request(base).get('/api/auth/whoami').set('Cookie', session)).status).toBe(200)
  })

  it('accepts the console origin, Sec-Fetch-Site: same-origin and the host the request was sent to', async () => {
    const byPublicUrl = await request(base)
      .post('/api/db/properties')
      .set('Cookie', session)
      .set('Origin', PUBLIC_URL)
      .send({ name: 'same.origin', value: 'public-url' })
    expect(byPublicUrl.status).toBe(201)
    const byFetchMetadata = await request(base)
      .patch('/api/db/properties?name=eq.same.origin')
      .set('Cookie', session)
      .set('Sec-Fetch-Site', 'same-origin')
      .send({ value: 'fetch-metadata' })
    expect(byFetchMetadata.status).toBe(204)
    expect(await propertyValue('same.origin')).toBe('fetch-metadata')
    const byHost = await request(base).delete('/api/db/properties?name=eq.same.origin').set('Cookie', session).set('Origin', base)
    expect(byHost.status).toBe(204)
    expect(await propertyValue('same.origin')).toBeUndefined()
  })

  it('leaves token-authenticated calls alone, with or without a cookie', async () => {
    const token = await request(base).post('/api/db/properties').set(bearer).send({ name: 'token.write', value: 'ok' })
    expect(token.status).toBe(201)
    const tokenWithCookie = await request(base)
      .patch('/api/db/properties?name=eq.token.write')
      .set(bearer)
      .set('Cookie', session)
      .set('Origin', 'http://evil.example')
      .send({ value: 'still-ok' })
    expect(tokenWithCookie.status).toBe(204)
    expect(await propertyValue('token.write')).toBe('still-ok')
  })

  it('keeps safe methods open to any origin (reads are not forgery)', async () => {
    const read = await request(base).get('/api/db/properties?limit=1').set('Cookie', session).set('Origin', 'http://evil.example')
    expect(read.status).toBe(200)
  })
})

describe('text/plain and untyped bodies are not JSON or YAML for a session', () => {
  it('refuses text/plain and an untyped body to /api/db with 415, even from the console origin', async () => {
    const plain = await request(base)
      .post('/api/db/properties')
      .set('Cookie', session)
      .set('Origin', PUBLIC_URL)
      .set('Content-Type', 'text/plain')
      .send('{"name":"plain.forged","value":"x"}')
    expect(plain.status).toBe(415)
    // A no-cors fetch with a Blob body sends no Content-Type at all: PostgREST read that as JSON.
    const untyped = await request(base)
      .post('/api/db/properties')
      .set('Cookie', session)
      .set('Origin', PUBLIC_URL)
      .send(Buffer.from('{"name":"untyped.forged","value":"x"}'))
    expect(untyped.request.getHeader('content-type')).toBeUndefined()
    expect(untyped.status).toBe(415)
    expect(untyped.body.message).toMatch(/cannot send its body with no Content-Type/)
    expect(await propertyValue('plain.forged')).toBeUndefined()
    expect(await propertyValue('untyped.forged')).toBeUndefined()
  })

  it('refuses text/plain YAML to the canary API for a session, and still takes it from a token', async () => {
    const yaml = (name: string) =>
      `apiVersion: canaries.flanksource.com/v1\nkind: Canary\nmetadata:\n  name: ${name}\nspec:\n  schedule: '@every 1h'\n  tcp:\n    - name: port\n      endpoint: 127.0.0.1:9\n`
    const forged = await request(base)
      .post('/api/canary/api/canaries')
      .set('Cookie', session)
      .set('Origin', PUBLIC_URL)
      .set('Content-Type', 'text/plain')
      .send(yaml('plain-forged'))
    expect(forged.status).toBe(415)
    expect((await testApp.db.query(`SELECT 1 FROM canaries WHERE name = 'plain-forged'`)).rows).toHaveLength(0)

    const cli = await request(base).post('/api/canary/api/canaries').set(bearer).set('Content-Type', 'text/plain').send(yaml('plain-cli'))
    expect(cli.status).toBeLessThan(300)
    expect((await testApp.db.query(`SELECT 1 FROM canaries WHERE name = 'plain-cli'`)).rows).toHaveLength(1)
  })

  it('still takes an untyped JSON body from a token (PostgREST clients)', async () => {
    const response = await request(base).post('/api/db/properties').set(bearer).send(Buffer.from('{"name":"untyped.token","value":"ok"}'))
    expect(response.status).toBe(201)
    expect(await propertyValue('untyped.token')).toBe('ok')
  })
})

describe('console actions', () => {
  it('answers a foreign-origin form post with a readable 403, not a 500', async () => {
    const response = await request(base)
      .post('/settings/users')
      .set('Cookie', session)
      .set('Origin', 'http://console.test:8080')
      .set('Accept', 'text/html')
      .type('form')
      .send({ intent: 'delete', id: '00000000-0000-0000-0000-000000000000' })
    expect(response.status).toBe(403)
    expect(response.headers['content-type']).toMatch(/text\/html/)
    expect(response.text).toContain('This form was sent from another site')
  })

  it('refuses a session-cookie form post with no Origin and no fetch metadata', async () => {
    const response = await request(base).post('/logout').set('Cookie', session).type('form').send({ returnTo: '/' })
    expect(response.status).toBe(403)
    expect((await request(base).get('/api/auth/whoami').set('Cookie', session)).status).toBe(200)
  })

  it('lets the console origin through to the action, whose API calls the gateway accepts', async () => {
    const login = await request(base).post('/api/auth/login').send({ username: 'token', password: TEST_TOKEN })
    const throwaway = login.headers['set-cookie']![0]!.split(';')[0]!
    const response = await request(base).post('/logout').set('Cookie', throwaway).set('Origin', base).type('form').send({ returnTo: '/' })
    expect(response.status).toBe(303)
    // The action's own POST /api/auth/logout went through the gateway's origin check.
    expect((await request(base).get('/api/auth/whoami').set('Cookie', throwaway)).status).toBe(401)
  })
})

describe('sign-in and sign-out need a gesture', () => {
  it('GET /login?username=&password= shows the form instead of signing in', async () => {
    const query = new URLSearchParams({ username: ADMIN.email, password: ADMIN.password, return_to: '/health' })
    // As the browser addresses it, so `return_to` resolves inside the allowed console URL.
    const first = await request(base).get(`/login?${query.toString()}`).set('Host', 'console.test')
    expect(first.status).toBe(303)
    const cookies = (first.headers['set-cookie'] as unknown as string[] | undefined) ?? []
    expect(cookies.some((cookie) => /^(ory_kratos_session|lookout_session)=/.test(cookie))).toBe(false)
    const location = new URL(first.headers.location!, base)
    expect(location.pathname).toBe('/login')
    expect(location.searchParams.get('flow')).toBeTruthy()
    expect(location.searchParams.get('username')).toBe(ADMIN.email)
    expect(location.searchParams.has('password')).toBe(false)

    const jar = cookies.map((cookie) => cookie.split(';')[0]).join('; ')
    const page = await request(base).get(`${location.pathname}${location.search}`).set('Host', 'console.test').set('Cookie', jar)
    expect(page.status).toBe(200)
    expect(page.text).toMatch(new RegExp(`name="identifier"[^>]*value="${ADMIN.email.replace('.', '\\.')}"|value="${ADMIN.email.replace('.', '\\.')}"[^>]*name="identifier"`))
    expect(page.text).not.toContain(ADMIN.password)
    const sessions = await testApp.db.query(`SELECT 1 FROM identity.sessions WHERE active`)
    expect(sessions.rows).toHaveLength(0)
  })

  it('GET /api/auth/logout no longer ends a session', async () => {
    const response = await request(base).get('/api/auth/logout').set('Cookie', session)
    expect(response.status).toBe(405)
    expect(response.headers.allow).toBe('POST')
    expect((await request(base).get('/api/auth/whoami').set('Cookie', session)).status).toBe(200)
  })
})
