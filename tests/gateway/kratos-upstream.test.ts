import type { AddressInfo } from 'node:net'
import type { Server } from 'node:http'
import express from 'express'
import { pino } from 'pino'
import { afterAll, beforeAll, describe, expect, it } from 'vitest'
import { createKratosRouter } from '#server/backend/identity/kratos/kratos-router.ts'
import { createIdentity } from '#server/backend/identity/kratos/identities.ts'
import { createMailer } from '#server/backend/identity/mail/mailer.ts'
import { useTestApp } from '#tests/support/use-test-app.ts'
import { createTestApp } from '#tests/support/test-app.ts'
import { CookieJar } from '#tests/identity/kratos-harness.ts'

/**
 * Upstream Kratos mode (issue 4 item 2): with KRATOS_PUBLIC_URL set, the gateway sends
 * /api/.ory/* to that server instead of the embedded service. The "real Kratos" here is a
 * separate Express server with only the Kratos router, whose flows carry its own public URL, so
 * a flow that came from it is recognisable; cookies must travel through the gateway both ways.
 */

const UPSTREAM_PUBLIC = 'http://kratos.upstream.test'
const EMAIL = 'upstream.kratos@example.org'
const PASSWORD = 'upstream kratos passphrase 8'

const testApp = useTestApp()
let upstream: Server
let gateway: Server
let gatewayBase: string
const seenUpstream: Array<{ method: string; url: string; cookie: string | undefined }> = []

function listen(app: express.Express): Promise<Server> {
  return new Promise((resolve) => {
    const server = app.listen(0, '127.0.0.1', () => resolve(server))
  })
}

function baseOf(server: Server): string {
  return `http://127.0.0.1:${(server.address() as AddressInfo).port}`
}

beforeAll(async () => {
  const logger = pino({ level: 'silent' })
  const kratos = express()
  kratos.use((req, _res, next) => {
    seenUpstream.push({ method: req.method, url: req.url, cookie: req.headers.cookie })
    next()
  })
  kratos.use(
    createKratosRouter({
      db: testApp.db,
      publicBaseUrl: () => UPSTREAM_PUBLIC,
      uiBaseUrl: () => 'http://console.test',
      mailer: createMailer({ db: testApp.db, from: 'lookout@example.com', logger }),
      registration: 'open',
      defaultRole: 'viewer',
      logger,
    }),
  )
  upstream = await listen(kratos)
  const { app } = createTestApp(testApp.db, { KRATOS_PUBLIC_URL: baseOf(upstream) })
  gateway = await listen(app)
  gatewayBase = baseOf(gateway)
  await createIdentity(testApp.db, { email: EMAIL, firstName: 'Up', lastName: 'Stream', password: PASSWORD, role: 'viewer' })
})

afterAll(async () => {
  await Promise.all([gateway, upstream].map((server) => new Promise<void>((resolve) => (server ? server.close(() => resolve()) : resolve()))))
})

type LoginFlow = { id: string; ui: { action: string; nodes: Array<{ attributes: { name?: string; value?: unknown } }> } }

describe('gateway with KRATOS_PUBLIC_URL', () => {
  it('creates the login flow on the upstream Kratos and relays its CSRF cookie', async () => {
    const jar = new CookieJar()
    const before = seenUpstream.length
    const created = await fetch(`${gatewayBase}/api/.ory/self-service/login/browser`, { headers: { Accept: 'application/json' } })
    expect(created.status).toBe(200)
    jar.store(created.headers.getSetCookie())
    const flow = (await created.json()) as LoginFlow
    // The flow names the upstream's public URL: it was made there, not by the embedded service.
    expect(flow.ui.action).toBe(`${UPSTREAM_PUBLIC}/self-service/login?flow=${flow.id}`)
    expect(seenUpstream.slice(before).map((entry) => `${entry.method} ${entry.url.split('?')[0]}`)).toContain('GET /self-service/login/browser')
    expect([...jar.cookies.keys()].some((name) => name.startsWith('csrf_token'))).toBe(true)
  })

  it('signs in through the gateway: browser cookies reach Kratos, its session cookie reaches the browser', async () => {
    const jar = new CookieJar()
    const created = await fetch(`${gatewayBase}/api/.ory/self-service/login/browser`, { headers: { Accept: 'application/json' } })
    jar.store(created.headers.getSetCookie())
    const flow = (await created.json()) as LoginFlow
    const csrf = flow.ui.nodes.find((node) => node.attributes.name === 'csrf_token')?.attributes.value
    expect(typeof csrf).toBe('string')

    const before = seenUpstream.length
    const submitted = await fetch(`${gatewayBase}/api/.ory/self-service/login?flow=${flow.id}`, {
      method: 'POST',
      headers: { Accept: 'application/json', 'Content-Type': 'application/json', Cookie: jar.header() },
      body: JSON.stringify({ method: 'password', identifier: EMAIL, password: PASSWORD, csrf_token: csrf }),
    })
    expect(submitted.status).toBe(200)
    const post = seenUpstream.slice(before).find((entry) => entry.method === 'POST')
    expect(post?.cookie).toBe(jar.header())
    jar.store(submitted.headers.getSetCookie())
    expect(jar.get('ory_kratos_session')).toBeTruthy()

    const whoami = await fetch(`${gatewayBase}/api/.ory/sessions/whoami`, { headers: { Accept: 'application/json', Cookie: jar.header() } })
    expect(whoami.status).toBe(200)
    expect(((await whoami.json()) as { identity: { traits: { email: string } } }).identity.traits.email).toBe(EMAIL)
    expect(seenUpstream.at(-1)).toMatchObject({ method: 'GET', cookie: jar.header() })
  })

  it('passes the errors of the upstream through unchanged (an unknown flow id is its 404)', async () => {
    const response = await fetch(`${gatewayBase}/api/.ory/self-service/login/flows?id=00000000-0000-4000-8000-000000000000`, {
      headers: { Accept: 'application/json' },
    })
    expect(response.status).toBe(404)
    const body = (await response.json()) as { error?: { code?: number } }
    expect(body.error?.code).toBe(404)
    expect(seenUpstream.at(-1)?.url).toContain('/self-service/login/flows?id=00000000-0000-4000-8000-000000000000')
  })
})
