import http from 'node:http'
import type { AddressInfo } from 'node:net'
import type { AppLoadContext } from '@remix-run/node'
import { afterAll, beforeAll, describe, expect, it } from 'vitest'
import { loader as consoleLayoutLoader } from '#app/routes/_console.tsx'
import { loader as connectionsLoader } from '#app/routes/_console.settings.connections.tsx'

// A gateway whose database is down: whoami answers 503 as the real one does then.
let server: http.Server
let base: string
let whoamiCalls = 0

beforeAll(async () => {
  server = http.createServer((req, res) => {
    if (req.url?.startsWith('/api/auth/whoami')) whoamiCalls += 1
    res.writeHead(503, { 'content-type': 'application/json' })
    res.end(JSON.stringify({ error: 'database_unavailable', message: 'The database is not reachable right now; try again in a moment.' }))
  })
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve))
  base = `http://127.0.0.1:${(server.address() as AddressInfo).port}`
})

afterAll(() => new Promise<void>((resolve) => server.close(() => resolve())))

describe('a shared-data failure seen by the layout and the page of one request', () => {
  it('asks once, and gives each loader its own readable 503', async () => {
    const context: AppLoadContext = { gateway: { gatewayBaseUrl: base, gatewayTimeoutMs: 5000 }, cspNonce: 'n', publicEnv: { frontendVersion: 't', mode: 'embedded' } }
    const request = () => new Request('http://console.test/settings/connections', { headers: { authorization: 'Bearer x' } })
    const outcomes = await Promise.allSettled([
      consoleLayoutLoader({ request: request(), context, params: {} }),
      connectionsLoader({ request: request(), context, params: {} }),
    ])
    expect(whoamiCalls).toBe(1)
    for (const outcome of outcomes) {
      expect(outcome.status).toBe('rejected')
      const thrown = (outcome as PromiseRejectedResult).reason as Response
      expect(thrown).toBeInstanceOf(Response)
      expect(thrown.status).toBe(503)
      expect(await thrown.json()).toMatchObject({ message: expect.stringMatching(/database/) })
    }
  })
})
