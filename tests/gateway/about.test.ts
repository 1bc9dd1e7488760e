import http from 'node:http'
import type { AddressInfo } from 'node:net'
import type { AppLoadContext } from '@remix-run/node'
import request from 'supertest'
import { afterAll, beforeAll, describe, expect, it } from 'vitest'
import { getBackendVersion } from '#app/lib/about.server.ts'
import { openDatabase, type Db } from '#server/db/client.ts'
import { APP_VERSION } from '#server/boot.ts'
import { bearer, createTestApp } from '#tests/support/test-app.ts'
import { useTestApp } from '#tests/support/use-test-app.ts'

/**
 * /api/about and the version line's backend part (issue 12 item 8): Lookout's own backend answers
 * with its version; in upstream mode the console's loopback call goes through the gateway to
 * Mission Control, so the line shows Mission Control's version.
 */
const testApp = useTestApp()

function listen(handler: http.RequestListener): Promise<{ server: http.Server; url: string }> {
  const server = http.createServer(handler)
  return new Promise((resolve) => server.listen(0, '127.0.0.1', () => resolve({ server, url: `http://127.0.0.1:${(server.address() as AddressInfo).port}` })))
}

function loaderArgs(gatewayBaseUrl: string): { request: Request; context: AppLoadContext } {
  return {
    request: new Request('http://localhost/health', { headers: bearer }),
    context: { gateway: { gatewayBaseUrl, gatewayTimeoutMs: 5_000 }, cspNonce: 'n', publicEnv: { frontendVersion: 't', mode: 'upstream' } },
  }
}

describe('GET /api/about from the embedded backend', () => {
  it("answers Mission Control's shape with Lookout's version, to signed-in callers only", async () => {
    const about = await request(testApp.app).get('/api/about').set(bearer)
    expect(about.status).toBe(200)
    expect(about.body).toEqual({ appVersion: APP_VERSION, chartVersion: '', Version: APP_VERSION })
    expect((await request(testApp.app).get('/api/about')).status).toBe(401)
  })
})

describe('the backend version in upstream mode', () => {
  let missionControl: { server: http.Server; url: string }
  let consoleServer: { server: http.Server; url: string }
  let aboutAnswer: { status: number; body: string }
  let db: Db

  beforeAll(async () => {
    aboutAnswer = { status: 200, body: JSON.stringify({ appVersion: 'v0.0.1234', chartVersion: '0.1.500' }) }
    missionControl = await listen((req, res) => {
      if (req.url === '/about' && req.headers.authorization === bearer.Authorization) {
        res.writeHead(aboutAnswer.status, { 'content-type': 'application/json' })
        res.end(aboutAnswer.body)
        return
      }
      res.writeHead(404, { 'content-type': 'application/json' })
      res.end('{"error":"not found"}')
    })
    db = await openDatabase({ dataDir: undefined })
    const gateway = createTestApp(db, { LOOKOUT_MODE: 'upstream', BACKEND_URL: missionControl.url, LOOKOUT_UPSTREAM_TIMEOUT_MS: '2000' })
    consoleServer = await listen(gateway.app)
  })

  afterAll(async () => {
    await new Promise((resolve) => consoleServer.server.close(resolve))
    await new Promise((resolve) => missionControl.server.close(resolve))
    await db.close()
  })

  it("shows Mission Control's chartVersion, as its own console does", async () => {
    expect(await getBackendVersion(loaderArgs(consoleServer.url))).toBe('0.1.500')
  })

  it('falls back to appVersion, and to NA (null) when the upstream cannot say', async () => {
    aboutAnswer = { status: 200, body: JSON.stringify({ appVersion: 'v0.0.1234', chartVersion: '' }) }
    expect(await getBackendVersion(loaderArgs(consoleServer.url))).toBe('v0.0.1234')
    aboutAnswer = { status: 500, body: '{"error":"boom"}' }
    expect(await getBackendVersion(loaderArgs(consoleServer.url))).toBeNull()
    aboutAnswer = { status: 200, body: 'not json' }
    expect(await getBackendVersion(loaderArgs(consoleServer.url))).toBeNull()
  })
})
