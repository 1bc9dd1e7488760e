import http from 'node:http'
import type { AddressInfo } from 'node:net'
import type { AppLoadContext } from '@remix-run/node'
import { createStaticHandler } from '@remix-run/router'
import { createElement } from 'react'
import { renderToString } from 'react-dom/server'
import { createStaticRouter, StaticRouterProvider } from 'react-router-dom/server.js'
import { afterAll, beforeAll, describe, expect, it } from 'vitest'
import { requireSessionInfo } from '#app/lib/session.server.ts'
import { ErrorBoundary as ConsoleErrorBoundary } from '#app/routes/_console.tsx'

/**
 * Spec 000 §8, the two whoami rows: a 5xx or 404 from whoami is the provisioning screen (the
 * backend is not ready), any other failure the error view. The console layout's error boundary
 * is rendered for real, from what its session loader throws against a fake gateway.
 */

let server: http.Server
let base: string
let whoamiStatus = 503

beforeAll(async () => {
  server = http.createServer((_req, res) => {
    res.writeHead(whoamiStatus, { 'content-type': 'application/json' })
    res.end(JSON.stringify({ message: `whoami answered ${whoamiStatus}` }))
  })
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve))
  base = `http://127.0.0.1:${(server.address() as AddressInfo).port}`
})

afterAll(async () => {
  await new Promise<void>((resolve) => server.close(() => resolve()))
})

async function renderLayoutFailure(status: number): Promise<string> {
  whoamiStatus = status
  const context: AppLoadContext = { gateway: { gatewayBaseUrl: base, gatewayTimeoutMs: 5_000 }, cspNonce: 'n', publicEnv: { frontendVersion: 't', mode: 'embedded' } }
  const routes = [
    {
      id: 'console',
      path: '/',
      loader: ({ request }: { request: Request }) => requireSessionInfo({ request, context }),
      Component: () => null,
      errorElement: createElement(ConsoleErrorBoundary),
    },
  ]
  const handler = createStaticHandler(routes)
  const result = await handler.query(new Request('http://console.test/'))
  if (result instanceof Response) throw new Error(`unexpected response ${result.status}`)
  const router = createStaticRouter(handler.dataRoutes, result)
  return renderToString(createElement(StaticRouterProvider, { router, context: result, hydrate: false }))
}

describe('whoami failures in the console layout', () => {
  it.each([500, 502, 503, 504, 404])('whoami %i shows the provisioning screen', async (status) => {
    const html = await renderLayoutFailure(status)
    expect(html).toContain('The console cannot reach its backend yet')
    expect(html).toContain(`whoami answered ${status}`)
  })

  it.each([400, 403, 409])('whoami %i shows the error view, not the provisioning screen', async (status) => {
    const html = await renderLayoutFailure(status)
    expect(html).toContain('data-testid="error-view"')
    expect(html).not.toContain('The console cannot reach its backend yet')
  })
})
