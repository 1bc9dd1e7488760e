import { createServer, type Server } from 'node:http'
import type { AddressInfo } from 'node:net'
import type { AppLoadContext } from '@remix-run/node'
import { afterAll, beforeAll, describe, expect, it } from 'vitest'
import { loadSummary } from '#app/lib/health.server.ts'

/*
 * loadSummary's stampede guard against a real HTTP server standing where the gateway would:
 * it counts the summary requests it receives and answers each after a pause, so callers that
 * arrive meanwhile find the first one still in flight.
 */
describe('loadSummary: one summary request per credential and window at a time', () => {
  let server: Server
  let baseUrl = ''
  let requests = 0
  let answer = 0

  beforeAll(async () => {
    server = createServer((request, response) => {
      requests += 1
      const id = `check-${++answer}`
      setTimeout(() => {
        response.setHeader('content-type', 'application/json')
        response.end(JSON.stringify({ runnerName: 'local', checks_summary: [{ id, name: request.url }, { name: 'no id' }] }))
      }, 100)
    })
    await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve))
    baseUrl = `http://127.0.0.1:${(server.address() as AddressInfo).port}`
  })
  afterAll(() => new Promise<void>((resolve) => server.close(() => resolve())))

  const argsFor = (authorization: string) => ({
    request: new Request('http://console.test/health', { headers: { authorization } }),
    context: { gateway: { gatewayBaseUrl: baseUrl, gatewayTimeoutMs: 5000 } } as unknown as AppLoadContext,
  })

  it('lets concurrent callers share the request in flight, then asks again', async () => {
    requests = 0
    const callers = await Promise.all(Array.from({ length: 20 }, () => loadSummary(argsFor('Bearer one'), '1h', false)))
    expect(requests).toBe(1)
    for (const checks of callers) expect(checks).toBe(callers[0])
    // Entries without an id are dropped; the rest pass as sent.
    expect(callers[0]!.map((check) => check.id)).toHaveLength(1)
    expect(callers[0]![0]!.name).toContain('/api/canary/api/summary?start=60m')

    // Settled: nothing is kept, the next caller gets a new answer.
    const later = await loadSummary(argsFor('Bearer one'), '1h', false)
    expect(requests).toBe(2)
    expect(later[0]!.id).not.toBe(callers[0]![0]!.id)
  })

  it('keeps credentials, windows and fresh callers apart', async () => {
    requests = 0
    await Promise.all([
      loadSummary(argsFor('Bearer one'), '1h', false),
      loadSummary(argsFor('Bearer two'), '1h', false),
      loadSummary(argsFor('Bearer one'), '6h', false),
      loadSummary(argsFor('Bearer one'), '6h', true),
    ])
    expect(requests).toBe(4)
  })
})
