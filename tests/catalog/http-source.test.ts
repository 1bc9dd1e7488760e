import http from 'node:http'
import type { AddressInfo } from 'node:net'
import pino from 'pino'
import { afterAll, beforeAll, beforeEach, describe, expect, it } from 'vitest'
import { scrapeConfigSpecIssues } from '#contract/catalog/scrape-config-document.ts'
import { httpSource } from '#server/backend/catalog/scrapers/http-source.ts'
import type { ScrapeRunContext } from '#server/backend/catalog/scrapers/scraper-source.ts'
import { restrictedGuard } from '#server/backend/health/checks/target-guard.ts'
import { createTestDb, type TestDb } from '#tests/support/test-db.ts'

/**
 * The http scraper against a loopback server: single requests, pagination by next URL (in the
 * body and in a Link header) and by request maps with a body, reduceExpr, perPage, maxPages,
 * loop refusal, errors, timeouts, 429 retries and stored connections.
 */

type Seen = { method: string; url: string; body: string; headers: http.IncomingHttpHeaders }

let testDb: TestDb
let server: http.Server
let base: string
const seen: Seen[] = []

const ITEMS = Array.from({ length: 7 }, (_, index) => ({ id: `item-${index + 1}`, name: `Item ${index + 1}` }))
const PAGE_SIZE = 3

function json(res: http.ServerResponse, status: number, body: unknown, headers: http.OutgoingHttpHeaders = {}) {
  res.writeHead(status, { 'content-type': 'application/json', ...headers }).end(JSON.stringify(body))
}

function route(req: http.IncomingMessage, body: string, res: http.ServerResponse) {
  const url = new URL(req.url ?? '/', base)
  const page = Number(url.searchParams.get('page') ?? '1')
  const slice = ITEMS.slice((page - 1) * PAGE_SIZE, page * PAGE_SIZE)
  const last = page * PAGE_SIZE >= ITEMS.length
  switch (url.pathname) {
    case '/single':
      return json(res, 200, { services: ITEMS.slice(0, 2) })
    case '/list':
      return json(res, 200, ITEMS.slice(0, 2))
    case '/text':
      return res.writeHead(200, { 'content-type': 'text/plain' }).end('plain words')
    case '/body-next':
      // The next page's URL in the body, relative, as many APIs answer.
      return json(res, 200, { items: slice, next: last ? null : `/body-next?page=${page + 1}` })
    case '/link': {
      // GitHub-style Link header; the body is a bare list.
      const link = last ? `<${base}/link?page=1>; rel="first"` : `<${base}/link?page=1>; rel="first", <${base}/link?page=${page + 1}>; rel="next"`
      return json(res, 200, slice, { link })
    }
    case '/search': {
      // Cursor pagination by POST: the cursor travels in a JSON body.
      if (req.method !== 'POST' || !/json/.test(req.headers['content-type'] ?? '')) return json(res, 400, { error: 'POST a JSON body' })
      const cursor = (JSON.parse(body || '{}') as { cursor?: number }).cursor ?? 0
      const results = ITEMS.slice(cursor, cursor + PAGE_SIZE)
      const nextCursor = cursor + PAGE_SIZE < ITEMS.length ? cursor + PAGE_SIZE : null
      return json(res, 200, { results, cursor: nextCursor })
    }
    case '/endless':
      return json(res, 200, { items: [{ page }], next: `/endless?page=${page + 1}` })
    case '/self':
      return json(res, 200, { items: [{ page }], next: '/self' })
    case '/cycle':
      return json(res, 200, { items: [{ page }], next: `/cycle?page=${page === 1 ? 2 : 1}` })
    case '/fail':
      return res.writeHead(500, { 'content-type': 'text/plain' }).end('boom: the backend is down')
    case '/fail-later':
      if (page >= 2) return res.writeHead(503, { 'content-type': 'text/plain' }).end('page two unavailable')
      return json(res, 200, { items: [1], next: '/fail-later?page=2' })
    case '/slow':
      return void setTimeout(() => json(res, 200, { late: true }), 5_000).unref()
    case '/busy': {
      const attempts = seen.filter((entry) => entry.url.startsWith('/busy')).length
      if (attempts < 3) return json(res, 429, { error: 'slow down' }, { 'retry-after': '0' })
      return json(res, 200, { ok: true, attempts })
    }
    case '/token': {
      const form = new URLSearchParams(body)
      if (form.get('grant_type') !== 'client_credentials' || form.get('client_secret') !== 's3cret') return json(res, 401, { error: 'invalid_client' })
      return json(res, 200, { access_token: `token-for-${form.get('client_id')}`, token_type: 'Bearer', expires_in: 3600 })
    }
    case '/bad-json':
      return res.writeHead(200, { 'content-type': 'application/json' }).end('{"truncated": ')
    case '/echo':
      return json(res, 200, { method: req.method, path: url.pathname + url.search, body, authorization: req.headers.authorization ?? null, tenant: req.headers['x-tenant'] ?? null })
    default:
      return json(res, 404, { error: 'not found' })
  }
}

function context(overrides: Partial<ScrapeRunContext> = {}): ScrapeRunContext {
  return {
    db: testDb.db,
    logger: pino({ level: 'silent' }),
    signal: AbortSignal.timeout(10_000),
    scraperId: '00000000-0000-0000-0000-000000000001',
    namespace: 'default',
    ...overrides,
  }
}

function hits(path: string): Seen[] {
  return seen.filter((entry) => entry.url.split('?')[0] === path)
}

beforeAll(async () => {
  testDb = await createTestDb()
  server = http.createServer((req, res) => {
    let body = ''
    req.on('data', (chunk: Buffer) => (body += chunk.toString('utf8')))
    req.on('end', () => {
      seen.push({ method: req.method ?? 'GET', url: req.url ?? '/', body, headers: req.headers })
      route(req, body, res)
    })
  })
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve))
  base = `http://127.0.0.1:${(server.address() as AddressInfo).port}`
})

afterAll(async () => {
  server?.closeAllConnections()
  await new Promise<void>((resolve) => (server ? server.close(() => resolve()) : resolve()))
  await testDb?.drop()
})

beforeEach(() => {
  seen.length = 0
})

describe('http scraper: one request', () => {
  it('returns the JSON body (object or list) as one document, and text bodies as text', async () => {
    const [object] = await httpSource.fetch({ url: `${base}/single` }, context())
    expect(object).toEqual({ config: { services: ITEMS.slice(0, 2) }, source: `GET ${base}/single` })
    const [list] = await httpSource.fetch({ url: `${base}/list` }, context())
    expect(list!.config).toEqual(ITEMS.slice(0, 2))
    const [plain] = await httpSource.fetch({ url: `${base}/text` }, context())
    expect(plain!.config).toBe('plain words')
  })

  it('sends method, body, headers, env-templated URL and basic auth from URL credentials', async () => {
    const [document] = await httpSource.fetch({
      url: `http://scraper:s3cret@127.0.0.1:${new URL(base).port}/echo?region={{.region}}`,
      method: 'put',
      body: '{"hello":"world"}',
      headers: [{ name: 'X-Tenant', value: 'acme' }],
      env: [{ name: 'region', value: 'eu-west-1' }],
    }, context())
    expect(document!.config).toEqual({
      method: 'PUT',
      path: '/echo?region=eu-west-1',
      body: '{"hello":"world"}',
      authorization: `Basic ${Buffer.from('scraper:s3cret').toString('base64')}`,
      tenant: 'acme',
    })
    // Credentials never reach job history or change sources.
    expect(document!.source).toBe(`PUT ${base}/echo?region=eu-west-1`)
  })

  it('uses a stored connection: its URL, bearer token and headers; inline headers win by name', async () => {
    await testDb.db.query(
      `INSERT INTO connections (name, namespace, type, url, properties) VALUES ($1, 'default', 'http', $2, $3)`,
      ['inventory-api', `${base}/echo`, JSON.stringify({ bearer: 'tok-123', headers: JSON.stringify([{ name: 'X-Tenant', value: 'stored' }]) })],
    )
    const [stored] = await httpSource.fetch({ connection: 'connection://default/inventory-api' }, context())
    expect(stored!.config).toMatchObject({ method: 'GET', path: '/echo', authorization: 'Bearer tok-123', tenant: 'stored' })
    const [inline] = await httpSource.fetch({ connection: 'connection://inventory-api', headers: [{ name: 'x-tenant', value: 'inline' }] }, context())
    expect(inline!.config).toMatchObject({ authorization: 'Bearer tok-123', tenant: 'inline' })
    await expect(httpSource.fetch({ connection: 'connection://default/missing-api' }, context())).rejects.toThrow('connection connection://default/missing-api was not found')
  })

  it('gets an OAuth2 client-credentials token, and keeps a stored client secret to its own token URL when fenced', async () => {
    await testDb.db.query(
      `INSERT INTO connections (name, namespace, type, url, properties) VALUES ('oauth-api', 'default', 'http', $1, $2)`,
      [`${base}/echo`, JSON.stringify({ clientID: 'lookout', clientSecret: 's3cret', tokenURL: `${base}/token`, scopes: 'read,list' })],
    )
    const [document] = await httpSource.fetch({ connection: 'connection://default/oauth-api' }, context())
    expect(document!.config).toMatchObject({ authorization: 'Bearer token-for-lookout' })
    expect(hits('/token').map((hit) => hit.body)).toEqual(['grant_type=client_credentials&client_id=lookout&client_secret=s3cret&scope=read+list'])
    const fence = { admit: async () => null, isRestricted: async () => true }
    await expect(httpSource.fetch({ connection: 'connection://default/oauth-api', oauth: { tokenURL: 'https://collector.example/token' } }, context({ targets: fence })))
      .rejects.toThrow(/^oauth\.tokenURL: a stored connection's client credentials go only to its own token URL/)
    expect(hits('/token')).toHaveLength(1)
  })

  it('a non-2xx answer fails the run with the status and the start of the body', async () => {
    await expect(httpSource.fetch({ url: `${base}/fail` }, context())).rejects.toThrow(`GET ${base}/fail returned HTTP 500: boom: the backend is down`)
    await expect(httpSource.fetch({ url: `${base}/nowhere` }, context())).rejects.toThrow(/returned HTTP 404/)
  })

  it('a JSON content type that does not parse is an error, not a truncated item', async () => {
    await expect(httpSource.fetch({ url: `${base}/bad-json` }, context())).rejects.toThrow(/answered application\/json that does not parse/)
  })

  it('stops at the scraper timeout with a clear message', async () => {
    const started = Date.now()
    await expect(httpSource.fetch({ url: `${base}/slow` }, context({ signal: AbortSignal.timeout(200) }))).rejects.toThrow(`GET ${base}/slow: timed out (the scraper's timeout)`)
    expect(Date.now() - started).toBeLessThan(2_000)
  })

  it('retries a 429 answer after Retry-After (two refusals, then the answer)', async () => {
    const [document] = await httpSource.fetch({ url: `${base}/busy` }, context())
    expect(document!.config).toEqual({ ok: true, attempts: 3 })
    expect(hits('/busy')).toHaveLength(3)
  })

  it('refuses invalid URLs, unsupported auth schemes and loopback targets for untrusted scrapers', async () => {
    await expect(httpSource.fetch({ url: 'ftp://example.org/x' }, context())).rejects.toThrow('invalid url "ftp://example.org/x": must have an http(s) scheme and a host')
    await expect(httpSource.fetch({ url: `${base}/single`, ntlm: true }, context())).rejects.toThrow(/ntlm authentication is not supported/)
    await expect(httpSource.fetch({ url: `${base}/single` }, context({ targets: restrictedGuard([]) }))).rejects.toThrow(/target 127\.0\.0\.1:\d+ .*ask an admin to allow it/)
    expect(hits('/single')).toHaveLength(0)
  })
})

describe('http scraper: pagination', () => {
  it('follows a relative next URL from the body and merges the pages (default merge unwraps items)', async () => {
    const documents = await httpSource.fetch({
      url: `${base}/body-next`,
      pagination: { nextPageExpr: 'body.next' },
    }, context())
    expect(documents).toEqual([{ config: ITEMS, source: `GET ${base}/body-next` }])
    expect(hits('/body-next').map((hit) => hit.url)).toEqual(['/body-next', '/body-next?page=2', '/body-next?page=3'])
  })

  it('follows a Link header (the platform spelling response.headers works too)', async () => {
    // The target of the `rel="next"` entry; dyn() because CEL's ternary wants one type for both branches.
    const linkNext = `response.headers.link.contains('rel="next"') ? dyn(response.headers.link.split(',').filter(l, l.contains('rel="next"')).map(l, l.substring(l.indexOf('<') + 1, l.indexOf('>')))[0]) : null`
    const [document] = await httpSource.fetch({ url: `${base}/link`, pagination: { nextPageExpr: linkNext } }, context())
    expect(document!.config).toEqual(ITEMS)
    expect(hits('/link')).toHaveLength(3)
  })

  it('sends request maps with a JSON body (cursor by POST) and accumulates with reduceExpr', async () => {
    const [document] = await httpSource.fetch({
      url: `${base}/search`,
      method: 'POST',
      body: '{}',
      headers: [{ name: 'Content-Type', value: 'application/json' }],
      pagination: {
        // The platform's idiom: a map with an empty url stops.
        nextPageExpr: `body.cursor == null ? {"url": ""} : {"url": url, "method": "POST", "body": {"cursor": body.cursor}}`,
        reduceExpr: `acc + page.results.map(r, {"id": r.id, "page_status": "seen"})`,
      },
    }, context())
    expect(document!.config).toEqual(ITEMS.map((item) => ({ id: item.id, page_status: 'seen' })))
    expect(hits('/search').map((hit) => [hit.method, hit.body])).toEqual([
      ['POST', '{}'],
      ['POST', '{"cursor":3}'],
      ['POST', '{"cursor":6}'],
    ])
  })

  it('keeps each page a document of its own with perPage', async () => {
    const documents = await httpSource.fetch({ url: `${base}/body-next`, pagination: { nextPageExpr: 'body.next', perPage: true } }, context())
    expect(documents.map((document) => document.source)).toEqual([
      `GET ${base}/body-next (page 1)`,
      `GET ${base}/body-next?page=2 (page 2)`,
      `GET ${base}/body-next?page=3 (page 3)`,
    ])
    expect((documents[2]!.config as { items: unknown[] }).items).toEqual([ITEMS[6]])
  })

  it('the ScrapeConfig schema takes pagination as the platform writes it', () => {
    const pagination = { nextPageExpr: 'body.next', reduceExpr: 'acc + page.items', perPage: true, maxPages: 0, delay: '500ms' }
    expect(scrapeConfigSpecIssues({ http: [{ url: `${base}/x`, type: 'T', id: '$.id', pagination }] })).toEqual([])
    expect(scrapeConfigSpecIssues({ http: [{ url: `${base}/x`, pagination: { perPage: 5 } }] }).map((issue) => issue.path)).toEqual([
      'spec.http[0].pagination.nextPageExpr',
      'spec.http[0].pagination.perPage',
    ])
  })

  it('stops at maxPages on an endless API', async () => {
    const [document] = await httpSource.fetch({ url: `${base}/endless`, pagination: { nextPageExpr: 'body.next', maxPages: 4 } }, context())
    expect(document!.config).toEqual([{ page: 1 }, { page: 2 }, { page: 3 }, { page: 4 }])
    expect(hits('/endless')).toHaveLength(4)
  })

  it('never repeats a request: a next page equal to the current one, or a cycle, ends the pagination', async () => {
    const [self] = await httpSource.fetch({ url: `${base}/self`, pagination: { nextPageExpr: 'body.next' } }, context())
    expect(self!.config).toEqual([{ page: 1 }])
    expect(hits('/self')).toHaveLength(1)
    const [cycle] = await httpSource.fetch({ url: `${base}/cycle?page=1`, pagination: { nextPageExpr: 'body.next', maxPages: 0 } }, context())
    expect(cycle!.config).toEqual([{ page: 1 }, { page: 2 }])
    expect(hits('/cycle')).toHaveLength(2)
  })

  it("sends the scraper's credentials and headers only to its own origin, and follows only http(s)", async () => {
    const elsewhere = http.createServer((req, res) => json(res, 200, { items: [{ authorization: req.headers.authorization ?? null, tenant: req.headers['x-tenant'] ?? null, cursor: req.headers['x-cursor'] ?? null }] }))
    await new Promise<void>((resolve) => elsewhere.listen(0, '127.0.0.1', resolve))
    const other = `http://127.0.0.1:${(elsewhere.address() as AddressInfo).port}`
    try {
      const entry = (nextPageExpr: string) => ({
        url: `${base}/single`,
        bearer: { value: 'tok-secret' },
        headers: [{ name: 'X-Tenant', value: 'acme' }],
        pagination: { nextPageExpr, perPage: true },
      })
      const secondPage = async (nextPageExpr: string) => (await httpSource.fetch(entry(nextPageExpr), context()))[1]!.config
      expect(await secondPage(`url.contains('/single') ? dyn("${other}/page2") : null`))
        .toEqual({ items: [{ authorization: null, tenant: null, cursor: null }] })
      expect(await secondPage(`url.contains('/single') ? {"url": "${other}/page2", "headers": {"X-Cursor": "c2"}} : {"url": ""}`))
        .toEqual({ items: [{ authorization: null, tenant: null, cursor: 'c2' }] })
      // The same origin keeps them.
      expect(await secondPage(`url.contains('/single') ? dyn("/echo") : null`)).toMatchObject({ authorization: 'Bearer tok-secret', tenant: 'acme' })
    } finally {
      elsewhere.closeAllConnections()
      await new Promise<void>((resolve) => elsewhere.close(() => resolve()))
    }
    await expect(httpSource.fetch({ url: `${base}/single`, pagination: { nextPageExpr: '"file:///etc/passwd"' } }, context()))
      .rejects.toThrow('pagination.nextPageExpr returned "file:///etc/passwd": only http(s) URLs are followed')
  })

  it('waits delay between pages', async () => {
    const started = Date.now()
    await httpSource.fetch({ url: `${base}/body-next`, pagination: { nextPageExpr: 'body.next', delay: '150ms' } }, context())
    expect(Date.now() - started).toBeGreaterThanOrEqual(300)
  })

  it('reports a failing later page, a broken expression and a reduceExpr that is not a list', async () => {
    await expect(httpSource.fetch({ url: `${base}/fail-later`, pagination: { nextPageExpr: 'body.next' } }, context()))
      .rejects.toThrow(`GET ${base}/fail-later?page=2 (page 2) returned HTTP 503: page two unavailable`)
    await expect(httpSource.fetch({ url: `${base}/body-next`, pagination: { nextPageExpr: 'body.next +' } }, context()))
      .rejects.toThrow(/^pagination\.nextPageExpr failed on page 1: /)
    await expect(httpSource.fetch({ url: `${base}/body-next`, pagination: { nextPageExpr: 'body.next', reduceExpr: 'size(acc)' } }, context()))
      .rejects.toThrow('pagination.reduceExpr must return a list, got number on page 1')
    await expect(httpSource.fetch({ url: `${base}/body-next`, pagination: { nextPageExpr: '42' } }, context()))
      .rejects.toThrow('pagination.nextPageExpr must return a URL, a request map or null, got 42')
  })

  it('stops paging at the scraper timeout', async () => {
    await expect(httpSource.fetch({ url: `${base}/endless`, pagination: { nextPageExpr: 'body.next', delay: '100ms' } }, context({ signal: AbortSignal.timeout(350) })))
      .rejects.toThrow(/\(page \d\): timed out \(the scraper's timeout\)/)
    expect(hits('/endless').length).toBeLessThanOrEqual(5)
  })
})
