import http from 'node:http'
import type { AddressInfo } from 'node:net'
import type { AppLoadContext } from '@remix-run/node'
import { afterAll, beforeAll, describe, expect, it } from 'vitest'
import { dbClient, requireCount, requireData, requirePage } from '#app/lib/data-client.server.ts'
import { GatewayError, TIMEOUT_MESSAGE } from '#app/lib/gateway.server.ts'
import { bearer } from '#tests/support/test-app.ts'
import { useTestApp } from '#tests/support/use-test-app.ts'
import { personWith } from '../rbac/rbac-fixture.ts'

/**
 * The console's data client against the real gateway and embedded backend, listening on an
 * ephemeral port as the console server does: what the query builder sends is what the
 * gateway answers, and failures come back classified as the screens expect them.
 */

const testApp = useTestApp()
let server: http.Server
let base: string
let viewer: Awaited<ReturnType<typeof personWith>>
const STALL_HEADER = 'x-test-stall-ms'

beforeAll(async () => {
  const { app } = testApp
  // A request carrying the stall header waits before the gateway sees it: the console's own
  // timeout must fire first.
  server = http.createServer((req, res) => {
    const stall = Number(req.headers[STALL_HEADER] ?? 0)
    if (stall > 0) setTimeout(() => app(req, res), stall)
    else app(req, res)
  })
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve))
  base = `http://127.0.0.1:${(server.address() as AddressInfo).port}`
  viewer = await personWith(testApp.db, ['viewer'], 'data-client-viewer')
  for (const [name, icon] of [
    ['dc-alpha', 'a'],
    ['dc-beta', 'b'],
    ['dc-gamma', null],
  ]) {
    await testApp.db.query('INSERT INTO teams (name, icon, created_by) VALUES ($1, $2, $3)', [name, icon, viewer.id])
  }
  await testApp.db.query(`UPDATE teams SET deleted_at = now() WHERE name = 'dc-gamma'`)
})

afterAll(async () => {
  await new Promise<void>((resolve) => server.close(() => resolve()))
})

function argsFor(headers: Record<string, string>, options: { timeoutMs?: number; url?: string; method?: string } = {}) {
  const context = {
    gateway: { gatewayBaseUrl: base, gatewayTimeoutMs: options.timeoutMs ?? 5_000 },
    cspNonce: 'n',
    publicEnv: { frontendVersion: 't', mode: 'embedded' },
  } as AppLoadContext
  const request = new Request(options.url ?? 'http://console.test/settings/teams?page=2', { method: options.method ?? 'GET', headers })
  return { request, context }
}

async function thrown(promise: Promise<unknown>): Promise<unknown> {
  try {
    await promise
  } catch (error) {
    return error
  }
  throw new Error('expected a thrown failure')
}

describe('dbClient over the gateway', () => {
  it('reads with filters, order and columns built by the client', async () => {
    const db = dbClient(argsFor(bearer))
    const rows = requireData(
      await db.from('teams').select('name,icon').like('name', 'dc-*').is('deleted_at', null).order('name', { ascending: false }),
    )
    expect(rows).toEqual([
      { name: 'dc-beta', icon: 'b' },
      { name: 'dc-alpha', icon: 'a' },
    ])
    const some = requireData(await db.from('teams').select('name').in('name', ['dc-alpha', 'dc-gamma', 'nope']).order('name'))
    expect(some.map((row: { name: string }) => row.name)).toEqual(['dc-alpha', 'dc-gamma'])
  })

  it('takes totals from count exact, with and without rows', async () => {
    const db = dbClient(argsFor(bearer))
    const page = requirePage(await db.from('teams').select('name', { count: 'exact' }).like('name', 'dc-*').order('name').range(0, 0))
    expect(page).toEqual({ rows: [{ name: 'dc-alpha' }], total: 3 })
    const total = requireCount(await db.from('teams').select('id', { count: 'exact', head: true }).like('name', 'dc-*').is('deleted_at', null))
    expect(total).toBe(2)
  })

  it('turns a 401 into the sign-in redirect with the page the browser wanted', async () => {
    const db = dbClient(argsFor({}))
    const failure = await thrown(Promise.resolve(db.from('teams').select('id')).then(requireData))
    expect(failure).toBeInstanceOf(Response)
    const response = failure as Response
    expect(response.status).toBe(302)
    expect(response.headers.get('location')).toBe(`/auth-state-checker?return_to=${encodeURIComponent('/settings/teams?page=2')}`)
  })

  it('turns a 403 into a GatewayError with the API status and message', async () => {
    const db = dbClient(argsFor(viewer.headers, { method: 'POST' }))
    const failure = await thrown(Promise.resolve(db.from('teams').insert({ name: 'dc-forbidden', created_by: viewer.id })).then(requireData))
    expect(failure).toBeInstanceOf(GatewayError)
    const error = failure as GatewayError
    expect(error.kind).toBe('http')
    expect(error.status).toBe(403)
    expect(error.message).toMatch(/\S/)
    const { rows } = await testApp.db.query(`SELECT 1 FROM teams WHERE name = 'dc-forbidden'`)
    expect(rows).toHaveLength(0)
  })

  it('turns a gateway that does not answer in time into a timeout GatewayError', async () => {
    const db = dbClient(argsFor(bearer, { timeoutMs: 100 }))
    const failure = await thrown(Promise.resolve(db.from('teams').select('id').setHeader(STALL_HEADER, '1000')).then(requireData))
    expect(failure).toBeInstanceOf(GatewayError)
    expect(failure).toMatchObject({ kind: 'timeout', status: 504, message: TIMEOUT_MESSAGE })
  })

  it('turns an unreachable gateway into a network GatewayError', async () => {
    const closed = http.createServer()
    await new Promise<void>((resolve) => closed.listen(0, '127.0.0.1', resolve))
    const port = (closed.address() as AddressInfo).port
    await new Promise<void>((resolve) => closed.close(() => resolve()))
    const args = argsFor(bearer)
    args.context.gateway.gatewayBaseUrl = `http://127.0.0.1:${port}`
    const failure = await thrown(Promise.resolve(dbClient(args).from('teams').select('id')).then(requireData))
    expect(failure).toMatchObject({ kind: 'network', status: 502 })
  })

  it('forwards the console client headers and the request id to the gateway', async () => {
    const seen: http.IncomingHttpHeaders[] = []
    const spy = http.createServer((req, res) => {
      seen.push(req.headers)
      res.writeHead(200, { 'content-type': 'application/json' })
      res.end('[]')
    })
    await new Promise<void>((resolve) => spy.listen(0, '127.0.0.1', resolve))
    try {
      const args = argsFor({ ...bearer, 'x-request-id': 'req-42', cookie: 'a=b' })
      args.context.gateway.gatewayBaseUrl = `http://127.0.0.1:${(spy.address() as AddressInfo).port}`
      args.context.gateway.clientHeaders = { 'x-lookout-console': 'proof' }
      expect(requireData(await dbClient(args).from('teams').select('id').eq('name', 'x'))).toEqual([])
      expect(seen[0]).toMatchObject({ 'x-request-id': 'req-42', cookie: 'a=b', 'x-lookout-console': 'proof', authorization: bearer.Authorization })
    } finally {
      await new Promise<void>((resolve) => spy.close(() => resolve()))
    }
  })
})
