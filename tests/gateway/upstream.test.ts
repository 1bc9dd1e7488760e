import { mkdtempSync, rmSync } from 'node:fs'
import http from 'node:http'
import type { AddressInfo } from 'node:net'
import os from 'node:os'
import path from 'node:path'
import request from 'supertest'
import { afterAll, beforeAll, describe, expect, it } from 'vitest'
import { openDatabase } from '#server/db/client.ts'
import { startProcess, type RunningProcess } from '#tests/support/processes.ts'
import { TEST_ENGINE, createEmptyPostgresDatabase } from '#tests/support/test-db.ts'
import { TEST_TOKEN, bearer, createTestApp } from '#tests/support/test-app.ts'

/**
 * Upstream mode for real: `npm run backend` runs as a second process and the gateway proxies
 * to it. The same requests are then answered by the embedded backend over the same database,
 * and the two sets of answers must match.
 */
const REQUESTS: { path: string; headers?: Record<string, string>; credentials?: boolean }[] = [
  { path: '/api/db/checks?select=id,name,type,status,namespace,labels&order=id.asc&limit=20' },
  { path: '/api/db/checks?select=id&deleted_at=is.null&limit=5', headers: { Prefer: 'count=exact' } },
  { path: '/api/db/agents?select=id,name&order=name.asc' },
  { path: '/api/db/no_such_table' },
  { path: '/api/about' },
  { path: '/api/properties' },
  { path: '/api/auth/whoami' },
  { path: '/api/playbook/list' },
  { path: '/api/db/checks', credentials: false },
]

type Answer = { status: number; body: unknown; contentType?: string; contentRange?: string }

async function answers(app: Parameters<typeof request>[0]): Promise<Answer[]> {
  const collected: Answer[] = []
  for (const entry of REQUESTS) {
    let call = request(app).get(entry.path)
    if (entry.credentials !== false) call = call.set(bearer)
    for (const [name, value] of Object.entries(entry.headers ?? {})) call = call.set(name, value)
    const response = await call
    collected.push({
      status: response.status,
      body: response.body,
      contentType: response.headers['content-type']?.split(';')[0],
      contentRange: response.headers['content-range'],
    })
  }
  return collected
}

let dataDir: string
let databaseUrl: string | undefined
let dropDatabase: (() => Promise<void>) | undefined
let backend: RunningProcess | undefined
let viaUpstream: Answer[]

beforeAll(async () => {
  dataDir = mkdtempSync(path.join(os.tmpdir(), 'lookout-upstream-'))
  if (TEST_ENGINE === 'postgres') {
    const database = await createEmptyPostgresDatabase()
    databaseUrl = database.url
    dropDatabase = database.drop
  }
  backend = await startProcess('server/backend-server.ts', {
    LOOKOUT_BOOTSTRAP_TOKEN: TEST_TOKEN,
    LOOKOUT_DATA_DIR: dataDir,
    ...(databaseUrl ? { DATABASE_URL: databaseUrl } : {}),
  })
  const upstreamGateway = createTestApp(await openDatabase({ dataDir: undefined }), {
    LOOKOUT_MODE: 'upstream',
    BACKEND_URL: backend.url,
    LOOKOUT_UPSTREAM_TIMEOUT_MS: '2000',
  })
  viaUpstream = await answers(upstreamGateway.app)
}, 120_000)

afterAll(async () => {
  await backend?.stop()
  await dropDatabase?.()
  rmSync(dataDir, { recursive: true, force: true })
})

describe('upstream mode against `npm run backend`', () => {
  it('serves demo checks through the proxy', () => {
    const checks = viaUpstream[0]!
    expect(checks.status).toBe(200)
    expect(Array.isArray(checks.body)).toBe(true)
    expect((checks.body as unknown[]).length).toBe(20)
    expect(viaUpstream[1]!.contentRange).toMatch(/^0-4\/\d+$/)
  })

  it('answers exactly as the embedded backend does over the same database', async () => {
    const stopped = await backend!.stop()
    expect(stopped).toBe(0)
    const db = await openDatabase({ databaseUrl, dataDir: databaseUrl ? undefined : path.join(dataDir, 'pglite') })
    try {
      const embedded = await answers(createTestApp(db).app)
      expect(embedded).toEqual(viaUpstream)
    } finally {
      await db.close()
    }
  })

  it('turns a stopped upstream into a 502 JSON error at once', async () => {
    const gateway = createTestApp(await openDatabase({ dataDir: undefined }), {
      LOOKOUT_MODE: 'upstream',
      BACKEND_URL: backend!.url,
    })
    const started = Date.now()
    const response = await request(gateway.app).get('/api/db/checks').set(bearer)
    expect(Date.now() - started).toBeLessThan(2_000)
    expect(response.status).toBe(502)
    expect(response.body).toEqual({ error: 'upstream_unreachable', message: expect.stringContaining('unreachable') })

    const page = await request(gateway.app).get('/api/db/checks').set('Accept', 'text/html')
    expect(page.status).toBe(502)
    expect(page.text).toContain('The service behind this page is not answering')
  })
})

describe('upstream timeouts and streaming', () => {
  let silent: http.Server
  let echo: http.Server
  let silentUrl: string
  let echoUrl: string

  beforeAll(async () => {
    // Accepts connections and never answers: the gateway must give up on its own.
    silent = http.createServer(() => undefined)
    echo = http.createServer((req, res) => {
      if (req.url?.startsWith('/db/stream')) {
        res.writeHead(200, { 'content-type': 'text/plain' })
        res.write('first\n')
        setTimeout(() => res.end('second\n'), 300)
        return
      }
      res.writeHead(200, {
        'content-type': 'application/json',
        'x-seen-forwarded-for': String(req.headers['x-forwarded-for'] ?? ''),
        'x-seen-forwarded-proto': String(req.headers['x-forwarded-proto'] ?? ''),
        'x-seen-forwarded-host': String(req.headers['x-forwarded-host'] ?? ''),
        'x-seen-authorization': String(req.headers.authorization ?? ''),
        'x-seen-cookie': String(req.headers.cookie ?? ''),
        'x-seen-path': req.url ?? '',
      })
      req.pipe(res)
    })
    await Promise.all([silent, echo].map((server) => new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve))))
    silentUrl = `http://127.0.0.1:${(silent.address() as AddressInfo).port}`
    echoUrl = `http://127.0.0.1:${(echo.address() as AddressInfo).port}`
  })

  afterAll(async () => {
    silent.closeAllConnections()
    await Promise.all([silent, echo].map((server) => new Promise((resolve) => server.close(resolve))))
  })

  it('answers 504 JSON when the upstream stays silent past the configured timeout', async () => {
    const { app } = createTestApp(await openDatabase({ dataDir: undefined }), {
      LOOKOUT_MODE: 'upstream',
      BACKEND_URL: silentUrl,
      LOOKOUT_UPSTREAM_TIMEOUT_MS: '400',
    })
    const started = Date.now()
    const response = await request(app).get('/api/db/checks').set(bearer)
    const elapsed = Date.now() - started
    expect(response.status).toBe(504)
    expect(response.body.error).toBe('upstream_timeout')
    expect(elapsed).toBeGreaterThanOrEqual(350)
    expect(elapsed).toBeLessThan(2_000)
  })

  it('streams bodies both ways and forwards cookies, Authorization and X-Forwarded-*', async () => {
    const { app } = createTestApp(await openDatabase({ dataDir: undefined }), { LOOKOUT_MODE: 'upstream', BACKEND_URL: echoUrl })
    const big = JSON.stringify({ blob: 'x'.repeat(2_000_000) })
    const response = await request(app)
      .post('/api/db/things?select=id')
      .set('Authorization', 'Bearer abc')
      .set('Cookie', 'lookout_session=s1; other=2')
      .set('Host', 'console.example.org')
      .set('Content-Type', 'application/json')
      .send(big)
    expect(response.status).toBe(200)
    expect(response.text.length).toBe(big.length)
    expect(response.headers['x-seen-path']).toBe('/db/things?select=id')
    expect(response.headers['x-seen-authorization']).toBe('Bearer abc')
    expect(response.headers['x-seen-cookie']).toBe('lookout_session=s1; other=2')
    expect(response.headers['x-seen-forwarded-proto']).toBe('http')
    expect(response.headers['x-seen-forwarded-host']).toBe('console.example.org')
    expect(response.headers['x-seen-forwarded-for']).toContain('127.0.0.1')
    expect(response.headers['x-request-id']).toMatch(/^[0-9a-f-]{36}$/)
    expect(response.headers['x-content-type-options']).toBe('nosniff')
    const metrics = await request(app).get('/metrics').set(bearer)
    expect(metrics.text).toMatch(/lookout_http_requests_total\{method="POST",route="\/api\/db",status="200"\} 1/)
  })

  it('refuses forged or oversized writes before they reach the upstream (issue 10 items 5 and 7)', async () => {
    const { app } = createTestApp(await openDatabase({ dataDir: undefined }), { LOOKOUT_MODE: 'upstream', BACKEND_URL: echoUrl })
    // The served listener, where the upstream fast path runs before Express.
    const server = http.createServer(app.listener).listen(0, '127.0.0.1')
    await new Promise((resolve) => server.once('listening', resolve))
    try {
      const forged = await request(server)
        .post('/api/db/things')
        .set('Cookie', 'lookout_session=s1')
        .set('Host', 'console.example.org')
        .set('Origin', 'http://console.example.org:8080')
        .set('Content-Type', 'application/json')
        .send('{}')
      expect(forged.status).toBe(403)
      expect(forged.body.error).toBe('forbidden_origin')
      expect(forged.headers['x-seen-path']).toBeUndefined()

      const plain = await request(server)
        .post('/api/canary/api/canaries')
        .set('Cookie', 'ory_kratos_session=k1')
        .set('Sec-Fetch-Site', 'same-origin')
        .set('Content-Type', 'text/plain')
        .send('apiVersion: canaries.flanksource.com/v1')
      expect(plain.status).toBe(415)
      expect(plain.headers['x-seen-path']).toBeUndefined()

      const sameOrigin = await request(server)
        .post('/api/db/things')
        .set('Cookie', 'lookout_session=s1')
        .set('Host', 'console.example.org')
        .set('Origin', 'http://console.example.org')
        .set('Content-Type', 'application/json')
        .send('{}')
      expect(sameOrigin.status).toBe(200)
      expect(sameOrigin.headers['x-seen-path']).toBe('/db/things')

      const anonymous = await request(server).post('/api/db/things').set('Content-Type', 'application/json').send(JSON.stringify({ blob: 'x'.repeat(100_000) }))
      expect(anonymous.status).toBe(413)
      expect(anonymous.headers['x-seen-path']).toBeUndefined()

      // Chunked, so only counting the stream on its way to the upstream can stop it.
      const chunk = new TextEncoder().encode('x'.repeat(16 * 1024))
      let sent = 0
      const body = new ReadableStream<Uint8Array>({
        pull(controller) {
          if (sent >= 1024 * 1024) return controller.close()
          sent += chunk.length
          controller.enqueue(chunk)
        },
      })
      const streamed = await fetch(`http://127.0.0.1:${(server.address() as AddressInfo).port}/api/db/things`, {
        method: 'POST',
        headers: { 'content-type': 'application/json' },
        body,
        duplex: 'half',
      } as RequestInit)
      expect(streamed.status).toBe(413)
      expect(((await streamed.json()) as { error: string }).error).toBe('payload_too_large')
    } finally {
      await new Promise((resolve) => server.close(resolve))
    }
  })

  it('delivers the first chunk before the upstream has finished', async () => {
    const { app } = createTestApp(await openDatabase({ dataDir: undefined }), { LOOKOUT_MODE: 'upstream', BACKEND_URL: echoUrl })
    const server = app.listen(0, '127.0.0.1')
    await new Promise((resolve) => server.once('listening', resolve))
    try {
      const response = await fetch(`http://127.0.0.1:${(server.address() as AddressInfo).port}/api/db/stream`)
      const reader = response.body!.getReader()
      const started = Date.now()
      const first = await reader.read()
      expect(new TextDecoder().decode(first.value)).toBe('first\n')
      expect(Date.now() - started).toBeLessThan(250)
      let rest = ''
      for (let chunk = await reader.read(); !chunk.done; chunk = await reader.read()) rest += new TextDecoder().decode(chunk.value)
      expect(rest).toBe('second\n')
    } finally {
      server.close()
    }
  })

  it('routes a hosted organisation to its backend, with a bearer token only when direct', async () => {
    const db = await openDatabase({ dataDir: undefined })
    const { migrate } = await import('#server/db/migrate.ts')
    await migrate(db)
    const organizations: [string, unknown, string | null][] = [
      ['acme', { backend_url: echoUrl, direct: true }, 'org-jwt'],
      ['text-flag', { backend_url: echoUrl, direct: 'true' }, 'org-jwt'],
      ['proxied', { backend_url: echoUrl, direct: false }, 'org-jwt'],
      ['bad-flag', { backend_url: echoUrl, direct: 'yes' }, null],
      ['new-org', {}, null],
    ]
    for (const [id, metadata, token] of organizations) {
      await db.query('INSERT INTO lookout.organizations (id, name, public_metadata, backend_token) VALUES ($1, $1, $2, $3)', [
        id,
        JSON.stringify(metadata),
        token,
      ])
    }
    const { app } = createTestApp(db)
    const direct = await request(app).get('/api/db/checks').set('X-Lookout-Organization', 'acme').set('Authorization', 'Bearer user')
    expect(direct.status).toBe(200)
    expect(direct.headers['x-seen-authorization']).toBe('Bearer org-jwt')
    expect(direct.headers['x-seen-path']).toBe('/db/checks')

    const textFlag = await request(app).get('/api/canary/api/summary').set('Cookie', 'lookout_org=text-flag')
    expect(textFlag.headers['x-seen-authorization']).toBe('Bearer org-jwt')
    expect(textFlag.headers['x-seen-path']).toBe('/canary/api/summary')

    const proxied = await request(app).get('/api/db/checks').set('X-Lookout-Organization', 'proxied').set('Authorization', 'Bearer user')
    expect(proxied.headers['x-seen-authorization']).toBe('Bearer user')

    const invalid = await request(app).get('/api/db/checks').set('X-Lookout-Organization', 'bad-flag')
    expect(invalid.status).toBe(500)
    expect(invalid.body).toEqual({ error: 'invalid_organization', message: expect.stringContaining('"direct" flag') })

    const provisioning = await request(app).get('/api/db/checks').set('X-Lookout-Organization', 'new-org')
    expect(provisioning.status).toBe(503)
    expect(provisioning.body.error).toBe('provisioning')
    await db.close()
  })
})
