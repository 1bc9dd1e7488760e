import type { AddressInfo } from 'node:net'
import type { Server } from 'node:http'
import type { AppLoadContext } from '@remix-run/node'
import express from 'express'
import { afterAll, beforeAll, describe, expect, it } from 'vitest'
import { createIdentity } from '#server/backend/identity/kratos/identities.ts'
import { action as loginAction, loader as loginLoader } from '#app/routes/login.tsx'
import { action as logoutAction } from '#app/routes/logout.tsx'
import { loader as settingsLoader, action as settingsAction } from '#app/routes/profile-settings.tsx'
import type { Flow } from '#app/lib/identity-flow.ts'
import { useTestApp } from '#tests/support/use-test-app.ts'
import { createTestApp } from '#tests/support/test-app.ts'
import { CookieJar } from './kratos-harness.ts'

/**
 * Issue 4 item 2: the screens' server half speaks only the Kratos contract through
 * `@ory/client`, so the embedded service and a real Kratos are interchangeable. Here the login,
 * settings and logout routes' own loader and action functions run against the embedded service
 * behind a real gateway, the way Remix calls them, with a cookie jar standing in for the browser.
 */

const EMAIL = 'sdk.screens@example.org'
const PASSWORD = 'sdk screens passphrase 31'

const testApp = useTestApp()
let server: Server
let base: string
let context: AppLoadContext
/** What reached the identity service, to prove the calls are the SDK's JSON calls. */
const oryRequests: Array<{ method: string; path: string; contentType: string | undefined; userAgent: string | undefined }> = []

beforeAll(async () => {
  const options: { consoleUrl?: string } = {}
  const { app } = createTestApp(testApp.db, {}, options)
  const outer = express()
  outer.use((req, _res, next) => {
    if (req.path.startsWith('/api/.ory/')) {
      oryRequests.push({ method: req.method, path: req.path, contentType: req.headers['content-type'], userAgent: req.headers['user-agent'] })
    }
    next()
  })
  outer.use(app)
  server = await new Promise<Server>((resolve) => {
    const s = outer.listen(0, '127.0.0.1', () => resolve(s))
  })
  base = `http://127.0.0.1:${(server.address() as AddressInfo).port}`
  // The console and the gateway share one origin here, as in the single-process deployment.
  options.consoleUrl = base
  context = {
    gateway: { gatewayBaseUrl: base, gatewayTimeoutMs: 10_000 },
    cspNonce: 'test',
    publicEnv: { frontendVersion: 'test', mode: 'embedded' },
  }
  await createIdentity(testApp.db, { email: EMAIL, firstName: 'Sam', lastName: 'Dk', password: PASSWORD, role: 'editor' })
})

afterAll(async () => {
  await new Promise<void>((resolve) => (server ? server.close(() => resolve()) : resolve()))
})

type Outcome = { kind: 'redirect'; status: number; location: string; cookies: string[] } | { kind: 'data'; status: number; data: { flow: Flow | null; notice: string | null; error: string | null } }

/** Runs a loader or action as Remix would: a thrown or returned Response is a redirect, anything else page data. */
async function run(fn: () => Promise<unknown>): Promise<Outcome> {
  let result: unknown
  try {
    result = await fn()
  } catch (error) {
    if (!(error instanceof Response)) throw error
    result = error
  }
  if (result instanceof Response) {
    return { kind: 'redirect', status: result.status, location: result.headers.get('location') ?? '', cookies: result.headers.getSetCookie() }
  }
  const wrapped = result as { type?: string; data: unknown; init?: { status?: number } | null }
  if (wrapped?.type === 'DataWithResponseInit') return { kind: 'data', status: wrapped.init?.status ?? 200, data: wrapped.data as never }
  return { kind: 'data', status: 200, data: result as never }
}

function get(path: string, jar: CookieJar): Request {
  return new Request(`${base}${path}`, { headers: jar.header() ? { cookie: jar.header() } : {} })
}

function post(path: string, jar: CookieJar, fields: Record<string, string>): Request {
  const headers: Record<string, string> = { 'content-type': 'application/x-www-form-urlencoded' }
  if (jar.header()) headers.cookie = jar.header()
  return new Request(`${base}${path}`, { method: 'POST', headers, body: new URLSearchParams(fields).toString() })
}

function csrfOf(flow: Flow): string {
  const node = flow.ui.nodes.find((n) => n.attributes.node_type === 'input' && n.attributes.name === 'csrf_token')
  const value = node?.attributes.node_type === 'input' ? node.attributes.value : undefined
  if (typeof value !== 'string' || !value) throw new Error('flow has no csrf_token')
  return value
}

/** GET /login?return_to=… → redirect to the flow's URL → the flow itself, cookies kept. */
async function openLogin(jar: CookieJar, returnTo: string): Promise<{ flow: Flow; page: string }> {
  const created = await run(() => loginLoader({ request: get(`/login?return_to=${encodeURIComponent(returnTo)}`, jar), context, params: {} }))
  expect(created.kind).toBe('redirect')
  if (created.kind !== 'redirect') throw new Error('no redirect')
  jar.store(created.cookies)
  const target = new URL(created.location, base)
  expect(target.pathname).toBe('/login')
  expect(target.searchParams.get('return_to')).toBe(returnTo)
  expect(target.searchParams.get('flow')).toMatch(/^[0-9a-f-]{36}$/)
  const shown = await run(() => loginLoader({ request: get(created.location, jar), context, params: {} }))
  if (shown.kind !== 'data' || !shown.data.flow) throw new Error(`expected the login flow, got ${JSON.stringify(shown)}`)
  return { flow: shown.data.flow, page: created.location }
}

describe('identity screens through @ory/client against the embedded service', () => {
  it('signs in with a password: wrong password inline, then a session cookie and the return path', async () => {
    const jar = new CookieJar()
    const { flow, page } = await openLogin(jar, '/health')
    expect(flow.ui.action).toContain('/api/.ory/self-service/login?flow=')

    const wrong = await run(() =>
      loginAction({ request: post(page, jar, { csrf_token: csrfOf(flow), identifier: EMAIL, password: 'not the password', method: 'password' }), context, params: {} }),
    )
    expect(wrong.kind).toBe('data')
    if (wrong.kind !== 'data') return
    expect(wrong.status).toBe(400)
    // 4000006: "The provided credentials are invalid…", shown with the flow (spec 000 §8: 400 on update).
    expect(wrong.data.flow?.ui.messages?.map((m) => m.id)).toContain(4000006)

    const signedIn = await run(() =>
      loginAction({ request: post(page, jar, { csrf_token: csrfOf(wrong.data.flow!), identifier: EMAIL, password: PASSWORD, method: 'password' }), context, params: {} }),
    )
    expect(signedIn).toMatchObject({ kind: 'redirect', status: 303, location: '/health' })
    if (signedIn.kind !== 'redirect') return
    jar.store(signedIn.cookies)
    expect(jar.get('ory_kratos_session')).toBeTruthy()

    const whoami = await fetch(`${base}/api/auth/whoami`, { headers: { cookie: jar.header() } })
    expect(whoami.status).toBe(200)
    expect(((await whoami.json()) as { payload: { user: { email: string } } }).payload.user.email).toBe(EMAIL)

    // The calls were the SDK's: JSON bodies, from axios, never a form relay.
    const submits = oryRequests.filter((r) => r.method === 'POST' && r.path === '/api/.ory/self-service/login')
    expect(submits.length).toBeGreaterThanOrEqual(2)
    for (const submit of submits) {
      expect(submit.contentType).toMatch(/^application\/json/)
      expect(submit.userAgent ?? '').toMatch(/axios/i)
    }
  })

  it('opens ?username=&password= as a filled-in form (no sign-in without a click), then edits the profile with dotted trait names', async () => {
    const jar = new CookieJar()
    // Issue 10 item 5: the link no longer signs in by itself; it names the account in the form.
    const opened = await run(() =>
      loginLoader({ request: get(`/login?return_to=%2Fprofile-settings&username=${encodeURIComponent(EMAIL)}&password=${encodeURIComponent(PASSWORD)}`, jar), context, params: {} }),
    )
    if (opened.kind !== 'redirect') throw new Error('expected a redirect to the login flow')
    jar.store(opened.cookies)
    expect(jar.get('ory_kratos_session')).toBeFalsy()
    const target = new URL(opened.location, base)
    expect(target.searchParams.get('username')).toBe(EMAIL)
    expect(target.searchParams.has('password')).toBe(false)
    const loginPage = await run(() => loginLoader({ request: get(opened.location, jar), context, params: {} }))
    if (loginPage.kind !== 'data' || !loginPage.data.flow) throw new Error('expected the login flow')
    const loginFlow = loginPage.data.flow

    const auto = await run(() =>
      loginAction({ request: post(opened.location, jar, { csrf_token: csrfOf(loginFlow), identifier: EMAIL, password: PASSWORD, method: 'password' }), context, params: {} }),
    )
    expect(auto).toMatchObject({ kind: 'redirect', status: 303, location: '/profile-settings' })
    if (auto.kind !== 'redirect') return
    jar.store(auto.cookies)

    const created = await run(() => settingsLoader({ request: get('/profile-settings', jar), context, params: {} }))
    if (created.kind !== 'redirect') throw new Error('expected a redirect to the settings flow')
    jar.store(created.cookies)
    const shown = await run(() => settingsLoader({ request: get(created.location, jar), context, params: {} }))
    if (shown.kind !== 'data' || !shown.data.flow) throw new Error('expected the settings flow')
    const flow = shown.data.flow

    const saved = await run(() =>
      settingsAction({
        request: post(created.location, jar, {
          csrf_token: csrfOf(flow),
          'traits.email': EMAIL,
          'traits.name.first': 'Samira',
          'traits.name.last': 'Dk',
          method: 'profile',
        }),
        context,
        params: {},
      }),
    )
    expect(saved.kind).toBe('data')
    if (saved.kind !== 'data') return
    expect(saved.status).toBe(200)
    // 1050001: "Your changes have been saved!"
    expect(saved.data.flow?.ui.messages?.map((m) => m.id)).toContain(1050001)
    const { rows } = await testApp.db.query<{ traits: { name: { first: string } } }>(
      `SELECT traits FROM identity.identities WHERE traits->>'email' = $1`,
      [EMAIL],
    )
    expect(rows[0]?.traits.name.first).toBe('Samira')

    // Sign-out through the SDK's logout flow ends the identity session.
    const out = await run(() => logoutAction({ request: post('/logout', jar, { returnTo: '/health' }), context, params: {} }))
    expect(out).toMatchObject({ kind: 'redirect', status: 303, location: '/login?return_to=%2Fhealth' })
    if (out.kind !== 'redirect') return
    jar.store(out.cookies)
    expect(jar.get('ory_kratos_session')).toBeUndefined()
    expect((await fetch(`${base}/api/auth/whoami`, { headers: { cookie: jar.header() } })).status).toBe(401)
  })

  it('a tampered CSRF token restarts the flow with the spec text', async () => {
    const jar = new CookieJar()
    const { flow, page } = await openLogin(jar, '/health')
    const tampered = await run(() =>
      loginAction({ request: post(page, jar, { csrf_token: `${csrfOf(flow)}x`, identifier: EMAIL, password: PASSWORD, method: 'password' }), context, params: {} }),
    )
    expect(tampered).toMatchObject({ kind: 'redirect', location: '/login?return_to=%2Fhealth&notice=security_csrf_violation' })
  })

  it('an expired flow restarts with the spec text; a return_to off the allow-list is refused', async () => {
    const jar = new CookieJar()
    const { flow, page } = await openLogin(jar, '/health')
    await testApp.db.query(`UPDATE identity.flows SET expires_at = now() - interval '1 minute' WHERE id = $1`, [flow.id])
    const expired = await run(() =>
      loginAction({ request: post(page, jar, { csrf_token: csrfOf(flow), identifier: EMAIL, password: PASSWORD, method: 'password' }), context, params: {} }),
    )
    if (expired.kind !== 'redirect') throw new Error('expected a restart')
    const restart = new URL(expired.location, base)
    expect(restart.pathname).toBe('/login')
    expect(restart.searchParams.get('notice')).toBe('self_service_flow_expired')
    expect(restart.searchParams.get('return_to')).toBe('/health')
    // The replacement flow Kratos offers is the one the page continues with.
    expect(restart.searchParams.get('flow')).toMatch(/^[0-9a-f-]{36}$/)
    expect(restart.searchParams.get('flow')).not.toBe(flow.id)
    const shown = await run(() => loginLoader({ request: get(expired.location, jar), context, params: {} }))
    expect(shown).toMatchObject({ kind: 'data', data: { notice: 'Your interaction expired, please fill out the form again.' } })

    const forbidden = await run(() => loginLoader({ request: get(`/login?return_to=${encodeURIComponent('https://evil.example/steal')}`, new CookieJar()), context, params: {} }))
    expect(forbidden).toMatchObject({ kind: 'redirect', location: '/login?notice=self_service_flow_return_to_forbidden' })
  })
})
