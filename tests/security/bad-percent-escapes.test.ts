import { request as httpRequest } from 'node:http'
import request from 'supertest'
import { afterAll, beforeAll, describe, expect, it } from 'vitest'
import { startProductionConsole, type ProductionConsole } from '#tests/support/production-console.ts'
import { bearer, createTestApp, TEST_TOKEN } from '#tests/support/test-app.ts'
import { useTestApp } from '#tests/support/use-test-app.ts'

/**
 * Issue 10, item 9: a malformed percent-escape in a path or query (`%zz`, a lone `%`, a cut-off
 * UTF-8 sequence) made Express's router, the PostgREST engine or the console throw a URIError
 * that surfaced as a 500. Every such request now gets a 400 before any of them reads the URL.
 */
const MALFORMED = [
  '/api/db/checks?name=eq.%E0%A4%A',
  '/api/db/checks?name=eq.%zz',
  '/api/db/%E0%A4',
  '/api/canary/%zz',
  '/api/canary/api/canaries/%zz',
  '/api/canary/api/summary?labels=%',
  '/api/auth/%C0%AF',
]

/** A raw GET, so the client sends the target exactly as written. */
function rawGet(base: string, target: string, headers: Record<string, string> = {}): Promise<{ status: number; body: string }> {
  const url = new URL(base)
  return new Promise((resolve, reject) => {
    const req = httpRequest({ host: url.hostname, port: url.port, path: target, headers: { accept: 'text/html', ...headers } }, (res) => {
      let body = ''
      res.setEncoding('utf8')
      res.on('data', (chunk: string) => (body += chunk))
      res.on('end', () => resolve({ status: res.statusCode ?? 0, body }))
    })
    req.on('error', reject)
    req.end()
  })
}

describe('malformed percent-escapes (API, in process)', () => {
  const testApp = useTestApp()
  it.each(MALFORMED)('%s answers 400 with a clear message', async (target) => {
    const { app } = createTestApp(testApp.db)
    const response = await request(app).get(target).set(bearer)
    expect(response.status).toBe(400)
    expect(response.body.message).toMatch(/percent-escape/)
  })

  it('well-formed escapes still reach their handler', async () => {
    const { app } = createTestApp(testApp.db)
    const encoded = await request(app).get('/api/db/checks?name=eq.%E0%A4%A4&select=id').set(bearer)
    expect(encoded.status).toBe(200)
    expect(encoded.body).toEqual([])
  })
})

describe('malformed percent-escapes (a real production server with its console)', () => {
  let server: ProductionConsole

  beforeAll(async () => {
    server = await startProductionConsole('percent', { LOOKOUT_BOOTSTRAP_TOKEN: TEST_TOKEN })
  }, 300_000)

  afterAll(async () => {
    await server?.close()
  })

  it.each(['/health?query=%', '/health/%zz', '/settings/connections?q=%E0%A4%A', ...MALFORMED])('%s answers 400, never 500', async (target) => {
    const response = await rawGet(server.url, target, { authorization: `Bearer ${TEST_TOKEN}` })
    expect(response.status).toBe(400)
    expect(response.body).toMatch(/percent-escape/)
  })

  it('the server is still serving afterwards', async () => {
    expect((await rawGet(server.url, '/healthz')).status).toBe(200)
  })
})
