import http from 'node:http'
import type { AddressInfo } from 'node:net'
import type { AppLoadContext } from '@remix-run/node'
import { afterAll, beforeAll, describe, expect, it } from 'vitest'
import { apiFetch, apiJson, GatewayError, NETWORK_MESSAGE, TIMEOUT_MESSAGE } from '#app/lib/gateway.server.ts'
import { FLOW_NOTICES, type Flow } from '#app/lib/identity-flow.ts'
import { formToUpdateBody, loadFlow, mapFlowAnswer, oryRequest, type OryAnswer } from '#app/lib/identity.server.ts'
import { loader as authStateChecker } from '#app/routes/auth-state-checker.tsx'
import { BAD_SESSION_MESSAGE, loader as errorLoader, UNKNOWN_ERROR_MESSAGE } from '#app/routes/error.tsx'

/**
 * Spec 000 §8, row by row, for the parts that need no identity service: the mapping of each
 * Kratos answer, and what a timeout, a refused connection and a 401 become. The gateway here is
 * a fake HTTP server whose answers each test chooses.
 */

let server: http.Server
let base: string
let handler: (req: http.IncomingMessage, res: http.ServerResponse) => void = (_req, res) => res.end()
let closedPortBase: string

beforeAll(async () => {
  server = http.createServer((req, res) => handler(req, res))
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve))
  base = `http://127.0.0.1:${(server.address() as AddressInfo).port}`
  // A port that was just free and is closed again: connections are refused.
  const probe = http.createServer()
  await new Promise<void>((resolve) => probe.listen(0, '127.0.0.1', resolve))
  closedPortBase = `http://127.0.0.1:${(probe.address() as AddressInfo).port}`
  await new Promise<void>((resolve) => probe.close(() => resolve()))
})

afterAll(async () => {
  server.closeAllConnections()
  await new Promise<void>((resolve) => server.close(() => resolve()))
})

function contextFor(gatewayBaseUrl: string, gatewayTimeoutMs = 5_000): AppLoadContext {
  return { gateway: { gatewayBaseUrl, gatewayTimeoutMs }, cspNonce: 'n', publicEnv: { frontendVersion: 't', mode: 'embedded' } }
}

const PAGE = 'http://console.test/login?return_to=%2Fhealth&flow=f1'

function answer(status: number, body: unknown): OryAnswer {
  return { status, body, cookies: [] }
}

const FLOW: Flow = { id: 'f2', ui: { action: '/api/.ory/self-service/login?flow=f2', method: 'POST', nodes: [], messages: [{ id: 4000006, text: 'bad', type: 'error' }] } }

async function thrown(fn: () => Promise<unknown>): Promise<Response> {
  try {
    await fn()
  } catch (error) {
    if (error instanceof Response) return error
    throw error
  }
  throw new Error('expected a thrown Response')
}

describe('spec 000 §8: each Kratos answer', () => {
  const request = new Request(PAGE)
  const map = (status: number, body: unknown, kind: Parameters<typeof mapFlowAnswer>[1] = 'login', phase: 'create' | 'get' | 'submit' = 'submit') =>
    mapFlowAnswer(request, kind, answer(status, body), phase)

  it('session_aal2_required goes to the second-factor sign-in', () => {
    expect(map(403, { error: { id: 'session_aal2_required' }, redirect_browser_to: 'http://console.test/api/.ory/self-service/login/browser?aal=aal2' })).toEqual({
      kind: 'redirect',
      to: '/login?aal=aal2',
    })
    expect(map(403, { error: { id: 'session_aal2_required' } }, 'settings')).toEqual({ kind: 'redirect', to: `/login?aal=aal2&return_to=${encodeURIComponent('/login?return_to=%2Fhealth&flow=f1')}` })
  })

  it('session_already_available continues to the validated return_to (home when there is none)', () => {
    expect(map(400, { error: { id: 'session_already_available' } })).toEqual({ kind: 'redirect', to: '/health' })
    expect(mapFlowAnswer(new Request('http://console.test/login?return_to=https%3A%2F%2Fevil.example'), 'login', answer(400, { error: { id: 'session_already_available' } }), 'create')).toEqual({
      kind: 'redirect',
      to: '/',
    })
  })

  it('session_refresh_required signs in again with refresh', () => {
    expect(map(403, { error: { id: 'session_refresh_required' } }, 'settings')).toMatchObject({ kind: 'redirect', to: expect.stringMatching(/^\/login\?refresh=true&return_to=/) })
  })

  it('return_to_forbidden, expired and CSRF restart with the spec texts', () => {
    expect(map(400, { error: { id: 'self_service_flow_return_to_forbidden' } })).toEqual({ kind: 'redirect', to: '/login?notice=self_service_flow_return_to_forbidden' })
    expect(map(410, { error: { id: 'self_service_flow_expired' }, use_flow_id: 'f9' })).toEqual({
      kind: 'redirect',
      to: '/login?return_to=%2Fhealth&flow=f9&notice=self_service_flow_expired',
    })
    expect(map(403, { error: { id: 'security_csrf_violation' } })).toEqual({ kind: 'redirect', to: '/login?return_to=%2Fhealth&notice=security_csrf_violation' })
    expect(FLOW_NOTICES).toEqual({
      self_service_flow_return_to_forbidden: 'The return_to address is not allowed.',
      self_service_flow_expired: 'Your interaction expired, please fill out the form again.',
      security_csrf_violation: 'A security violation was detected, please fill out the form again.',
    })
  })

  it('security_identity_mismatch and a bare 410 restart the flow', () => {
    expect(map(400, { error: { id: 'security_identity_mismatch' } })).toEqual({ kind: 'redirect', to: '/login?return_to=%2Fhealth' })
    expect(map(410, { error: { code: 410 } })).toEqual({ kind: 'redirect', to: '/login?return_to=%2Fhealth' })
  })

  it('browser_location_change_required follows the redirect (a foreign one as a document load)', () => {
    expect(map(422, { error: { id: 'browser_location_change_required' }, redirect_browser_to: 'http://console.test/api/.ory/self-service/settings?flow=s1' }, 'recovery')).toEqual({
      kind: 'redirect',
      to: '/profile-settings?flow=s1',
    })
    expect(map(422, { error: { id: 'browser_location_change_required' }, redirect_browser_to: 'https://idp.example/authorize' })).toEqual({
      kind: 'redirect',
      to: 'https://idp.example/authorize',
      document: true,
    })
  })

  it('session_inactive goes to sign-in; settings come back to /profile-settings', () => {
    expect(map(401, { error: { id: 'session_inactive' } }, 'settings')).toEqual({ kind: 'redirect', to: '/login?return_to=%2Fprofile-settings' })
  })

  it('a 400 on update shows the flow with its messages', () => {
    expect(map(400, FLOW)).toEqual({ kind: 'render', flow: FLOW, status: 400 })
  })

  it('verification: 410 or 403 on the flow restarts it', () => {
    expect(map(410, { error: { code: 410 } }, 'verification', 'get')).toEqual({ kind: 'redirect', to: '/verification?return_to=%2Fhealth' })
    expect(map(403, { error: { code: 403 } }, 'verification', 'get')).toEqual({ kind: 'redirect', to: '/verification' })
  })
})

describe('timeouts, network failures and 401s', () => {
  it('the SDK path: a refused connection is the network text, a silent server the timeout text', async () => {
    const request = new Request('http://console.test/login')
    const refused = await oryRequest({ request, context: contextFor(closedPortBase) }, undefined, (api, options) => api.createBrowserLoginFlow({}, options))
    expect(refused).toEqual({ status: 502, body: { error: { message: NETWORK_MESSAGE } }, cookies: [] })

    handler = () => undefined // never answers
    const silent = await oryRequest({ request, context: contextFor(base, 200) }, undefined, (api, options) => api.createBrowserLoginFlow({}, options))
    expect(silent).toEqual({ status: 504, body: { error: { message: TIMEOUT_MESSAGE } }, cookies: [] })
  })

  it('a screen shows those texts as its error, with the matching status', async () => {
    handler = () => undefined
    const timedOut = (await loadFlow({ request: new Request('http://console.test/login?flow=f1'), context: contextFor(base, 200), params: {} }, 'login')) as unknown as {
      data: { error: string }
      init: { status: number }
    }
    expect(timedOut.init.status).toBe(504)
    expect(timedOut.data.error).toBe(TIMEOUT_MESSAGE)
    const offline = (await loadFlow({ request: new Request('http://console.test/recovery?flow=f1'), context: contextFor(closedPortBase), params: {} }, 'recovery')) as unknown as {
      data: { error: string }
      init: { status: number }
    }
    expect(offline.init.status).toBe(502)
    expect(offline.data.error).toBe(NETWORK_MESSAGE)
  })

  it('the other API calls classify the same failures into GatewayError', async () => {
    const request = new Request('http://console.test/health')
    handler = () => undefined
    await expect(apiFetch({ request, context: contextFor(base, 200) }, '/auth/whoami')).rejects.toMatchObject({ status: 504, kind: 'timeout', message: TIMEOUT_MESSAGE })
    await expect(apiFetch({ request, context: contextFor(closedPortBase) }, '/auth/whoami')).rejects.toBeInstanceOf(GatewayError)
    await expect(apiFetch({ request, context: contextFor(closedPortBase) }, '/auth/whoami')).rejects.toMatchObject({ status: 502, kind: 'network', message: NETWORK_MESSAGE })
  })

  it('a 401 from any API call goes to the auth state checker with the return path, which goes to sign-in', async () => {
    handler = (_req, res) => {
      res.writeHead(401, { 'content-type': 'application/json' })
      res.end('{"error":"unauthorized"}')
    }
    const request = new Request('http://console.test/incidents?status=open')
    const redirect = await thrown(() => apiJson({ request, context: contextFor(base) }, '/db/incidents'))
    expect(redirect.headers.get('location')).toBe('/auth-state-checker?return_to=%2Fincidents%3Fstatus%3Dopen')
    const next = (await authStateChecker({ request: new Request(`http://console.test${redirect.headers.get('location')}`), context: contextFor(base), params: {} })) as Response
    expect(next.headers.get('location')).toBe('/login?return_to=%2Fincidents%3Fstatus%3Dopen')
    const offsite = (await authStateChecker({ request: new Request('http://console.test/auth-state-checker?return_to=%2F%2Fevil.example'), context: contextFor(base), params: {} })) as Response
    expect(offsite.headers.get('location')).toBe('/login?return_to=%2F')
  })
})

describe('the error page', () => {
  it('BAD_SESSION asks to sign out and in again; any other code is "Unknown error"', async () => {
    const args = (query: string) => ({ request: new Request(`http://console.test/error${query}`), context: contextFor(base), params: {} })
    expect(await errorLoader(args('?error_code=BAD_SESSION'))).toMatchObject({ kind: 'bad-session', message: BAD_SESSION_MESSAGE })
    expect(await errorLoader(args('?error_code=SOMETHING'))).toMatchObject({ kind: 'unknown', message: UNKNOWN_ERROR_MESSAGE })
  })

  it('a flow error that is gone (404, 403, 410) goes home', async () => {
    for (const status of [404, 403, 410]) {
      handler = (_req, res) => {
        res.writeHead(status, { 'content-type': 'application/json' })
        res.end(JSON.stringify({ error: { code: status } }))
      }
      const response = await thrown(() => errorLoader({ request: new Request('http://console.test/error?id=e1'), context: contextFor(base), params: {} }))
      expect(response.headers.get('location')).toBe('/')
    }
  })
})

describe('posted forms as SDK update bodies', () => {
  it('nests dotted names, types the boolean buttons and infers the settings method', () => {
    expect(formToUpdateBody(new URLSearchParams({ csrf_token: 't', 'traits.email': 'a@b.c', 'traits.name.first': 'A', method: 'profile' }))).toEqual({
      csrf_token: 't',
      traits: { email: 'a@b.c', name: { first: 'A' } },
      method: 'profile',
    })
    expect(formToUpdateBody(new URLSearchParams({ csrf_token: 't', lookup_secret_regenerate: 'true' }))).toEqual({
      csrf_token: 't',
      lookup_secret_regenerate: true,
      method: 'lookup_secret',
    })
    expect(formToUpdateBody(new URLSearchParams({ csrf_token: 't', totp_unlink: 'true' }))).toEqual({ csrf_token: 't', totp_unlink: true, method: 'totp' })
    expect(formToUpdateBody(new URLSearchParams([['__proto__.polluted', 'x'], ['a..b', 'y'], ['code', '123456'], ['method', 'code']]))).toEqual({ code: '123456', method: 'code' })
    expect(({} as Record<string, unknown>).polluted).toBeUndefined()
  })
})
