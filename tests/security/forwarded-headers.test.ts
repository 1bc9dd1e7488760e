import http, { type IncomingMessage } from 'node:http'
import type { AddressInfo } from 'node:net'
import express from 'express'
import request from 'supertest'
import type { AppLoadContext } from '@remix-run/node'
import type { UiNode } from '@ory/client'
import { afterEach, beforeAll, describe, expect, it } from 'vitest'
import { apiFetch } from '#app/lib/gateway.server.ts'
import { createIdentity } from '#server/backend/identity/kratos/identities.ts'
import { tokenHash } from '#server/backend/identity/kratos/sessions.ts'
import { CONSOLE_SECRET_HEADER, CLIENT_ADDRESS_HEADER, clientAddressMiddleware, consoleClientHeaders } from '#server/ops/client-address.ts'
import { createTestApp } from '#tests/support/test-app.ts'
import { useTestApp } from '#tests/support/use-test-app.ts'
import { csrfOf } from '#tests/identity/kratos-harness.ts'
import { browserFrom, listenApp, signIn, type ListeningApp } from './loopback-clients.ts'

/**
 * Issue 10 item 9, "X-Forwarded-* trusted only when LOOKOUT_TRUST_PROXY says so": every
 * loopback caller was trusted, so anything on the machine (or a proxy that passes the header
 * through) could choose its client address — escaping per-client rate limits — and its
 * protocol. Now only LOOKOUT_TRUST_PROXY makes them count; the console's own loopback calls
 * prove themselves with a per-process secret and carry the browser's address.
 */

const EMAIL = 'forwarded@example.com'
const PASSWORD = 'forwarded headers 12345'
const SPOOFED = { 'X-Forwarded-For': '203.0.113.9', 'X-Forwarded-Proto': 'https', 'X-Forwarded-Host': 'evil.example' }
const testApp = useTestApp()
const apps: ListeningApp[] = []

beforeAll(async () => {
  await createIdentity(testApp.db, { email: EMAIL, firstName: 'F', lastName: 'H', password: PASSWORD })
})

afterEach(async () => {
  await Promise.all(apps.splice(0).map((app) => app.close()))
})

async function start(env: Record<string, string> = {}): Promise<ListeningApp> {
  const app = await listenApp(testApp.db, env)
  apps.push(app)
  return app
}

/** The address the server recorded for the session a Set-Cookie carries (what it took as the client). */
async function sessionAddress(setCookie: string[] | undefined): Promise<string | null> {
  const token = decodeURIComponent(sessionCookieOf(setCookie).split(';')[0]!.slice('ory_kratos_session='.length))
  const { rows } = await testApp.db.query<{ ip_address: string | null }>('SELECT ip_address FROM identity.sessions WHERE token_hash = $1', [tokenHash(token)])
  return rows[0]?.ip_address ?? null
}

function sessionCookieOf(setCookie: string[] | undefined): string {
  const line = (setCookie ?? []).find((cookie) => cookie.startsWith('ory_kratos_session='))
  if (!line) throw new Error('no session cookie was set')
  return line
}

describe('X-Forwarded-* without LOOKOUT_TRUST_PROXY', () => {
  it('ignores a loopback caller\'s X-Forwarded-For and -Proto: the socket is the client, no Secure cookie', async () => {
    const app = await start()
    const answer = await signIn(browserFrom(app, '127.0.0.2', SPOOFED), EMAIL, PASSWORD)
    expect(answer.status).toBe(200)
    expect(await sessionAddress(answer.headers['set-cookie'])).toBe('127.0.0.2')
    expect(sessionCookieOf(answer.headers['set-cookie'])).not.toMatch(/;\s*Secure/i)
  })

  it('does not let a spoofed X-Forwarded-For escape the per-client sign-in limit', async () => {
    const app = await start({ LOOKOUT_RATE_LIMIT_LOGIN_PER_CLIENT_ACCOUNT: '2' })
    const statuses: number[] = []
    for (let i = 0; i < 4; i++) {
      const browser = browserFrom(app, '127.0.0.3', { 'X-Forwarded-For': `198.51.100.${i + 1}` })
      statuses.push((await signIn(browser, 'spoof-target@example.com', `wrong ${i}`)).status)
    }
    expect(statuses).toEqual([400, 400, 429, 429])
  })

  it('ignores a forged console secret and the address it claims', async () => {
    const app = await start()
    const forged = { [CONSOLE_SECRET_HEADER]: 'not-the-secret', [CLIENT_ADDRESS_HEADER]: '198.51.100.99', 'X-Forwarded-Proto': 'https' }
    const answer = await signIn(browserFrom(app, '127.0.0.4', forged), EMAIL, PASSWORD)
    expect(answer.status).toBe(200)
    expect(await sessionAddress(answer.headers['set-cookie'])).toBe('127.0.0.4')
    expect(sessionCookieOf(answer.headers['set-cookie'])).not.toMatch(/;\s*Secure/i)
  })
})

describe('X-Forwarded-* with LOOKOUT_TRUST_PROXY=true', () => {
  it('takes the client address and protocol from the proxy\'s headers', async () => {
    const app = await start({ LOOKOUT_TRUST_PROXY: 'true' })
    const answer = await signIn(browserFrom(app, '127.0.0.5', SPOOFED), EMAIL, PASSWORD)
    expect(answer.status).toBe(200)
    expect(await sessionAddress(answer.headers['set-cookie'])).toBe('203.0.113.9')
    expect(sessionCookieOf(answer.headers['set-cookie'])).toMatch(/;\s*Secure/i)
  })
})

describe('the console\'s own loopback calls', () => {
  /**
   * A console page as server.ts serves it: the load context carries consoleClientHeaders(req),
   * and the page's action signs in through apiFetch. The browser connects from 127.0.0.9.
   */
  async function consoleSignIn(api: ListeningApp, browserAddress: string): Promise<{ status: number; setCookie: string[] }> {
    const page = express()
    page.set('trust proxy', 'loopback')
    page.use(clientAddressMiddleware(false))
    page.get('/login', async (req, res) => {
      const context = {
        gateway: { gatewayBaseUrl: api.base, gatewayTimeoutMs: 10_000, clientHeaders: consoleClientHeaders(req) },
        cspNonce: 'n',
        publicEnv: { frontendVersion: 't', mode: 'embedded' },
      } as AppLoadContext
      const url = `https://console.example.org${req.url}`
      const created = await apiFetch({ request: new Request(url, { headers: { host: 'console.example.org' } }), context }, '/.ory/self-service/login/browser')
      const flow = (await created.json()) as { id: string; ui: { nodes: UiNode[] } }
      const cookie = created.headers.getSetCookie().map((line) => line.split(';')[0]).join('; ')
      const submitted = await apiFetch(
        { request: new Request(url, { headers: { host: 'console.example.org', cookie } }), context },
        `/.ory/self-service/login?flow=${flow.id}`,
        { method: 'POST', json: { method: 'password', identifier: EMAIL, password: PASSWORD, csrf_token: csrfOf(flow) } },
      )
      res.json({ status: submitted.status, setCookie: submitted.headers.getSetCookie() })
    })
    const server = http.createServer(page)
    await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve))
    try {
      const port = (server.address() as AddressInfo).port
      const response = await new Promise<string>((resolve, reject) => {
        http
          .get({ host: '127.0.0.1', port, path: '/login', localAddress: browserAddress }, (res) => {
            let body = ''
            res.on('data', (chunk: Buffer) => (body += chunk.toString()))
            res.on('end', () => resolve(body))
          })
          .on('error', reject)
      })
      return JSON.parse(response) as { status: number; setCookie: string[] }
    } finally {
      server.close()
    }
  }

  it('carry the browser\'s address and protocol, proven by the per-process secret', async () => {
    const api = await start()
    const answer = await consoleSignIn(api, '127.0.0.9')
    expect(answer.status).toBe(200)
    expect(await sessionAddress(answer.setCookie)).toBe('127.0.0.9')
    // The page was served over https (as the console saw it), so the cookie is Secure.
    expect(sessionCookieOf(answer.setCookie)).toMatch(/;\s*Secure/i)
  })
})

describe('upstream mode', () => {
  it('never passes the console secret on, and names only a proven browser address in X-Forwarded-For', async () => {
    const seen: http.IncomingHttpHeaders[] = []
    const upstream = http.createServer((req, res) => {
      seen.push(req.headers)
      res.setHeader('Content-Type', 'application/json')
      res.end('[]')
    })
    await new Promise<void>((resolve) => upstream.listen(0, '127.0.0.1', resolve))
    try {
      const { app } = createTestApp(testApp.db, { LOOKOUT_MODE: 'upstream', BACKEND_URL: `http://127.0.0.1:${(upstream.address() as AddressInfo).port}` })
      // What server.ts puts in the load context for a browser at 198.51.100.7.
      const proven = consoleClientHeaders({ ip: '198.51.100.7' } as IncomingMessage & { ip: string })
      expect((await request(app).get('/api/db/checks').set(proven)).status).toBe(200)
      expect(seen[0]?.[CONSOLE_SECRET_HEADER]).toBeUndefined()
      expect(seen[0]?.[CLIENT_ADDRESS_HEADER]).toBeUndefined()
      expect(String(seen[0]?.['x-forwarded-for'])).toMatch(/^198\.51\.100\.7, /)

      expect((await request(app).get('/api/db/checks').set('X-Forwarded-For', '203.0.113.9')).status).toBe(200)
      expect(String(seen[1]?.['x-forwarded-for'])).not.toContain('203.0.113.9')
    } finally {
      upstream.close()
    }
  })
})
