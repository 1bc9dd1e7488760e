import { createServer, type Server } from 'node:http'
import type { AddressInfo } from 'node:net'
import type { AppLoadContext } from '@remix-run/node'
import { afterAll, beforeAll, describe, expect, it } from 'vitest'
import { loadHealthView, loadSummary } from '#app/lib/health.server.ts'
import { parseHealthParams } from '#app/components/health/health-params.ts'

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

/*
 * loadHealthView: one function decides who builds the /health list. Against a canary API that
 * ignores the list's question (canary-checker, Mission Control) the console builds it from the
 * whole summary; against Lookout's backend, which answers `lookout_view`, it takes the page.
 */
describe('loadHealthView: the page from Lookout, or the list built here from a whole summary', () => {
  let server: Server
  let baseUrl = ''
  let answerView = false
  const urls: string[] = []
  const entry = (id: string, status: string, canary: string) => ({ id, name: id, canary_name: canary, namespace: 'default', type: 'http', status, uptime: { passed: 1, failed: 0 }, latency: { p95: 10, rolling1h: 0 } })

  beforeAll(async () => {
    server = createServer((request, response) => {
      urls.push(request.url ?? '')
      response.setHeader('content-type', 'application/json')
      if (answerView && (request.url ?? '').includes('lookout_view=')) {
        const view = {
          counts: { all: 3, healthy: 2 },
          labels: [],
          tabs: [['default', 1]],
          totalChecks: 1,
          totalRows: 1,
          page: 1,
          rows: [{ kind: 'group', key: 'web', stats: { count: 1, healthy: 0, unhealthy: 1, passing: 1, latency: 10, sameType: true, namespaces: ['default'] }, first: entry('c', 'unhealthy', 'web'), children: [] }],
        }
        response.end(JSON.stringify({ runnerName: 'local', lookout_view: view }))
        return
      }
      response.end(JSON.stringify({ runnerName: 'local', checks_summary: [entry('a', 'healthy', 'pay'), entry('b', 'healthy', 'pay'), entry('c', 'unhealthy', 'web')] }))
    })
    await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve))
    baseUrl = `http://127.0.0.1:${(server.address() as AddressInfo).port}`
  })
  afterAll(() => new Promise<void>((resolve) => server.close(() => resolve())))

  const args = () => ({
    request: new Request('http://console.test/health', { headers: { authorization: 'Bearer view' } }),
    context: { gateway: { gatewayBaseUrl: baseUrl, gatewayTimeoutMs: 5000 } } as unknown as AppLoadContext,
  })

  it('asks once with the question and builds the same view either way', async () => {
    const params = parseHealthParams(new URLSearchParams(''))
    answerView = false
    urls.length = 0
    let agentReads = 0
    const upstream = await loadHealthView(args(), params, async () => (agentReads++, new Map()))
    expect(urls).toHaveLength(1)
    expect(urls[0]).toContain('lookout_view=')
    expect(agentReads).toBe(0)
    expect(upstream.rows.map((row) => row.name)).toEqual(['web'])
    expect(upstream.counts).toEqual({ all: 3, healthy: 2, unhealthy: 1 })

    answerView = true
    urls.length = 0
    const embedded = await loadHealthView(args(), params, async () => (agentReads++, new Map()))
    expect(urls).toHaveLength(1)
    expect(embedded).toEqual(upstream)
  })

  it('reads agent names only when it builds Agent tabs itself', async () => {
    answerView = false
    let agentReads = 0
    const view = await loadHealthView(args(), parseHealthParams(new URLSearchParams('tabBy=agent_id&hidePassing=false')), async () => (agentReads++, new Map()))
    expect(agentReads).toBe(1)
    expect(view.tabs.map((tab) => tab.label)).toEqual(['All', 'local'])
  })
})
