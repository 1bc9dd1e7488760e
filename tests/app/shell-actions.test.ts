import http from 'node:http'
import type { AddressInfo } from 'node:net'
import type { AppLoadContext } from '@remix-run/node'
import { afterAll, beforeAll, describe, expect, it } from 'vitest'
import { action as loginAction, INVALID_TOKEN_MESSAGE } from '#app/routes/login_.token.tsx'
import { action as logoutAction } from '#app/routes/logout.tsx'
import { action as sidebarAction } from '#app/routes/resources.sidebar.ts'
import { getSidebarCollapsed } from '#app/lib/sidebar-cookie.server.ts'

// A stand-in for the gateway's /api/auth endpoints, so the actions run against real HTTP.
const GOOD_TOKEN = 'lko_test_token_value'
let server: http.Server
let context: AppLoadContext

beforeAll(async () => {
  server = http.createServer((req, res) => {
    let body = ''
    req.on('data', (chunk) => (body += chunk))
    req.on('end', () => {
      if (req.url === '/api/auth/login') {
        const password = (JSON.parse(body || '{}') as { password?: string }).password
        if (password === GOOD_TOKEN) {
          res.writeHead(200, { 'content-type': 'application/json', 'set-cookie': 'authorization=jwt; Path=/; HttpOnly' })
          res.end('{"message":"logged in"}')
        } else {
          res.writeHead(401, { 'content-type': 'application/json' })
          res.end('{"error":"invalid credentials"}')
        }
        return
      }
      if (req.url === '/api/auth/logout') {
        res.writeHead(200, { 'set-cookie': 'authorization=; Path=/; Max-Age=0' })
        res.end('{}')
        return
      }
      res.writeHead(404)
      res.end()
    })
  })
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve))
  const { port } = server.address() as AddressInfo
  context = {
    gateway: { gatewayBaseUrl: `http://127.0.0.1:${port}`, gatewayTimeoutMs: 2000 },
    cspNonce: 'n',
    publicEnv: { frontendVersion: 'test', mode: 'embedded' },
  }
})

afterAll(() => new Promise<void>((resolve) => server.close(() => resolve())))

function post(path: string, fields: Record<string, string>, cookie?: string): Request {
  const headers: Record<string, string> = { 'content-type': 'application/x-www-form-urlencoded' }
  if (cookie) headers.cookie = cookie
  return new Request(`http://localhost${path}`, { method: 'POST', headers, body: new URLSearchParams(fields) })
}

async function settle(run: () => Promise<unknown>): Promise<Response | unknown> {
  try {
    return await run()
  } catch (thrown) {
    return thrown
  }
}

describe('login action', () => {
  it('relays the session cookie and redirects (303) to a same-site return path', async () => {
    const request = post('/login/token', { token: GOOD_TOKEN, returnTo: '/incidents?status=open' })
    const response = (await settle(() => loginAction({ request, context, params: {} }))) as Response
    expect(response.status).toBe(303)
    expect(response.headers.get('location')).toBe('/incidents?status=open')
    expect(response.headers.get('set-cookie')).toContain('authorization=jwt')
  })

  it('refuses to redirect off-site', async () => {
    for (const returnTo of ['//evil.example', 'https://evil.example/', '/\\evil.example', '/login']) {
      const request = post('/login/token', { token: GOOD_TOKEN, returnTo })
      const response = (await settle(() => loginAction({ request, context, params: {} }))) as Response
      expect(response.headers.get('location')).toBe('/')
    }
  })

  it('answers 400 with an inline field error and without echoing the token', async () => {
    const result = (await loginAction({ request: post('/login/token', { token: 'nope', returnTo: '/' }), context, params: {} })) as unknown as {
      data: { result: { error?: Record<string, string[]>; initialValue?: Record<string, unknown> } }
      init: { status: number }
    }
    expect(result.init.status).toBe(400)
    expect(result.data.result.error?.token).toEqual([INVALID_TOKEN_MESSAGE])
    expect(result.data.result.initialValue?.token).toBeUndefined()
  })

  it('asks for a token when the field is empty, without calling the API', async () => {
    const result = (await loginAction({ request: post('/login/token', { token: '   ' }), context, params: {} })) as unknown as {
      data: { result: { error?: Record<string, string[]> } }
    }
    expect(result.data.result.error?.token).toEqual(['Access token is required'])
  })
})

describe('logout action', () => {
  it('clears the cookie and sends the person to sign-in with the page they were on', async () => {
    const response = await logoutAction({ request: post('/logout', { returnTo: '/health?x=1' }, 'authorization=jwt'), context, params: {} })
    expect(response.status).toBe(303)
    expect(response.headers.get('location')).toBe('/login?return_to=%2Fhealth%3Fx%3D1')
    expect(response.headers.get('set-cookie')).toContain('Max-Age=0')
  })
})

describe('sidebar action', () => {
  it('sets the cookie and redirects back for a plain form post', async () => {
    const response = (await sidebarAction({ request: post('/resources/sidebar', { collapsed: 'true', redirectTo: '/health' }), context, params: {} })) as Response
    expect(response.status).toBe(303)
    expect(response.headers.get('location')).toBe('/health')
    const cookie = response.headers.get('set-cookie')!.split(';')[0]!
    expect(await getSidebarCollapsed(new Request('http://localhost/', { headers: { cookie } }))).toBe(true)
  })

  it('answers with the new state for the enhanced submission', async () => {
    const result = (await sidebarAction({
      request: post('/resources/sidebar', { collapsed: 'false', redirectTo: '/health', mode: 'fetch' }),
      context,
      params: {},
    })) as unknown as { data: { collapsed: boolean }; init: { headers: Record<string, string> } }
    expect(result.data).toEqual({ collapsed: false })
    expect(result.init.headers['set-cookie']).toContain('lookout_sidebar=')
  })

  it('never redirects off-site', async () => {
    const response = (await sidebarAction({ request: post('/resources/sidebar', { collapsed: 'true', redirectTo: '//evil.example' }), context, params: {} })) as Response
    expect(response.headers.get('location')).toBe('/')
  })
})
