import type { AddressInfo } from 'node:net'
import type { Server } from 'node:http'
import request from 'supertest'
import { afterAll, beforeAll, describe, expect, it } from 'vitest'
import { createIdentity } from '#server/backend/identity/kratos/identities.ts'
import { createTestDb } from '#tests/support/test-db.ts'
import { useTestApp } from '#tests/support/use-test-app.ts'
import { bearer, createTestApp } from '#tests/support/test-app.ts'
import { firstAdminLines } from '#server/backend/identity/first-admin.ts'
import { personWith } from '#tests/rbac/rbac-fixture.ts'
import { CookieJar } from './kratos-harness.ts'

/**
 * The identity service as the console reaches it: through the gateway at /api/.ory, with the
 * Kratos session cookie then accepted by every other /api call.
 */
const testApp = useTestApp()
let server: Server
let base: string

beforeAll(async () => {
  const { app } = createTestApp(testApp.db)
  server = app.listen(0, '127.0.0.1')
  await new Promise((resolve) => server.once('listening', resolve))
  base = `http://127.0.0.1:${(server.address() as AddressInfo).port}`
})

afterAll(async () => {
  server?.close()
})

async function signIn(email: string, password: string): Promise<CookieJar> {
  const jar = new CookieJar()
  const created = await fetch(`${base}/api/.ory/self-service/login/browser`, { headers: { Accept: 'application/json' } })
  jar.store(created.headers.getSetCookie())
  const flow = (await created.json()) as { id: string; ui: { action: string; nodes: { attributes: { name?: string; value?: string } }[] } }
  const csrf = flow.ui.nodes.find((node) => node.attributes.name === 'csrf_token')?.attributes.value
  const submitted = await fetch(`${base}/api/.ory/self-service/login?flow=${flow.id}`, {
    method: 'POST',
    headers: { Accept: 'application/json', 'Content-Type': 'application/json', Cookie: jar.header() },
    body: JSON.stringify({ method: 'password', identifier: email, password, csrf_token: csrf }),
  })
  jar.store(submitted.headers.getSetCookie())
  expect(submitted.status).toBe(200)
  return jar
}

describe('identity through the gateway', () => {
  it('serves the Kratos API at /api/.ory with flow actions pointing back there', async () => {
    const response = await request(server).get('/api/.ory/self-service/login/browser').set('Accept', 'application/json')
    expect(response.status).toBe(200)
    expect(response.body.ui.action).toMatch(/\/api\/\.ory\/self-service\/login\?flow=[0-9a-f-]{36}$/)
  })

  it('accepts the Kratos session cookie on every /api call, with the roles of the identity', async () => {
    await createIdentity(testApp.db, {
      email: 'dana@example.org',
      firstName: 'Dana',
      lastName: 'Ops',
      password: 'correct horse battery staple 42',
      role: 'editor',
    })
    const jar = await signIn('dana@example.org', 'correct horse battery staple 42')
    expect(jar.get('ory_kratos_session')).toBeTruthy()
    const whoami = await request(server).get('/api/auth/whoami').set('Cookie', jar.header())
    expect(whoami.status).toBe(200)
    expect(whoami.body.payload.user).toMatchObject({ name: 'Dana Ops', email: 'dana@example.org' })
    expect(whoami.body.payload.roles).toContain('editor')
    // Editors read checks but may not write connections (spec 002 §6).
    expect((await request(server).get('/api/db/checks?select=id&limit=1').set('Cookie', jar.header())).status).toBe(200)
    const refused = await request(server).post('/api/db/connections').set('Cookie', jar.header()).send({ name: 'x', type: 'http' })
    expect(refused.status).toBe(403)

    // Rolling expiry: a session in use with less than half its lifetime left is extended and
    // its cookie sent again; a fresh one is left alone.
    expect((await request(server).get('/api/auth/whoami').set('Cookie', jar.header())).headers['set-cookie']).toBeUndefined()
    await testApp.db.query(`UPDATE identity.sessions SET expires_at = now() + interval '1 hour'`)
    const renewed = await request(server).get('/api/auth/whoami').set('Cookie', jar.header())
    expect(renewed.status).toBe(200)
    expect(renewed.headers['set-cookie']?.[0]).toMatch(/^ory_kratos_session=.+; Path=\/; HttpOnly; SameSite=Lax; Max-Age=86400$/)
    const { rows } = await testApp.db.query<{ hours: number }>(
      `SELECT round(extract(epoch FROM max(expires_at) - now()) / 3600)::int AS hours FROM identity.sessions`,
    )
    expect(rows[0]?.hours).toBe(24)
  })

  it('invites a user: identity with its role, and a one-time link by mail', async () => {
    const missingRole = await request(server).post('/api/auth/invite_user').set(bearer).send({ email: 'new@example.org' })
    expect(missingRole.status).toBe(400)
    expect(missingRole.body).toEqual({ error: 'role is required' })
    const missingEmail = await request(server).post('/api/auth/invite_user').set(bearer).send({ role: 'viewer' })
    expect(missingEmail.status).toBe(400)
    expect(missingEmail.body).toEqual({ error: 'email is required' })

    const invited = await request(server)
      .post('/api/auth/invite_user')
      .set(bearer)
      .send({ firstName: 'Noor', lastName: 'Ali', email: 'noor@example.org', role: 'responder' })
    expect(invited.status).toBe(200)
    expect(invited.body.link).toMatch(/\/api\/\.ory\/self-service\/recovery\?flow=.+&token=.+/)
    const { rows } = await testApp.db.query<{ recipient: string; body: string }>(
      `SELECT "to" AS recipient, body FROM identity.mail_outbox WHERE "to" = 'noor@example.org'`,
    )
    expect(rows).toHaveLength(1)
    expect(rows[0]!.body).toContain(invited.body.link)
    const roles = await testApp.db.query<{ roles: string[] }>(`SELECT roles FROM people_roles WHERE email = 'noor@example.org'`)
    expect(roles.rows[0]?.roles).toContain('responder')

    const again = await request(server)
      .post('/api/auth/invite_user')
      .set(bearer)
      .send({ firstName: 'Noor', lastName: 'Ali', email: 'noor@example.org', role: 'viewer' })
    expect(again.status).toBe(409)
    expect(again.body).toEqual({ error: 'user already exists' })

    // Without SMTP an admin can read the invitation from the outbox; nobody else can.
    const outbox = await request(server).get('/api/auth/outbox?to=noor@example.org').set(bearer)
    expect(outbox.status).toBe(200)
    expect(outbox.body.payload[0].body).toContain(invited.body.link)
    const editor = await personWith(testApp.db, ['editor'])
    expect((await request(server).get('/api/auth/outbox').set(editor.headers)).status).toBe(403)
  })

  it('creates the first admin from the environment with the admin role', async () => {
    const fresh = await createTestDb()
    try {
      const { app, backend } = createTestApp(fresh.db)
      const lines = await firstAdminLines(
        fresh.db,
        { LOOKOUT_ADMIN_EMAIL: 'root@example.org', LOOKOUT_ADMIN_PASSWORD: 'a long admin passphrase 7' },
        'http://127.0.0.1:3000',
        backend,
      )
      expect(lines.join(' ')).toContain('root@example.org')
      expect(await firstAdminLines(fresh.db, {}, 'http://127.0.0.1:3000', backend)).toEqual([])
      const { rows } = await fresh.db.query<{ roles: string[] }>(`SELECT roles FROM people_roles WHERE email = 'root@example.org'`)
      expect(rows[0]?.roles).toEqual(['admin'])
      expect(app).toBeDefined()
    } finally {
      await fresh.drop()
    }
  })
})
