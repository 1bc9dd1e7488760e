import { randomBytes } from 'node:crypto'
import { mkdtemp, rm, utimes, writeFile } from 'node:fs/promises'
import type { Server } from 'node:http'
import type { AddressInfo } from 'node:net'
import { tmpdir } from 'node:os'
import path from 'node:path'
import express from 'express'
import pg from 'pg'
import request from 'supertest'
import { afterAll, beforeAll, describe, expect, it } from 'vitest'
import type { LogSearchAnswer } from '#contract/logs/log-search.ts'
import { personWith } from '#tests/rbac/rbac-fixture.ts'
import { TEST_PG_ADMIN_URL } from '#tests/support/test-db.ts'
import { useTestApp } from '#tests/support/use-test-app.ts'

// POST /api/logs against real peers: loopback servers speaking Loki's query_range and
// OpenSearch's _search, log files in a temp folder, a table on the PostgreSQL server and one in
// Lookout's own database (PGlite or PostgreSQL, whichever this pass runs on).

const testApp = useTestApp()
type Person = Awaited<ReturnType<typeof personWith>>
let admin: Person
let editor: Person
let nobody: Person
let peers: Server
let peerUrl: string
let folder: string
let pgTable: string
const received: { path: string; query: Record<string, unknown>; body: unknown; authorization?: string }[] = []

const NOW = Date.now()
const iso = (msAgo: number) => new Date(NOW - msAgo).toISOString()

async function addBackend(who: Person, name: string, spec: unknown) {
  return request(testApp.app).post('/api/db/logging_backends').set(who.headers).set('Prefer', 'return=representation').send({ name, spec })
}

async function search(who: Person, body: Record<string, unknown>) {
  return request(testApp.app).post('/api/logs').set(who.headers).send(body)
}

beforeAll(async () => {
  admin = await personWith(testApp.db, ['admin'])
  editor = await personWith(testApp.db, ['editor'])
  nobody = await personWith(testApp.db, [], 'no-role')

  const app = express()
  app.use(express.json())
  app.get('/loki/api/v1/query_range', (req, res) => {
    received.push({ path: req.path, query: req.query, body: null, authorization: req.headers.authorization })
    const end = BigInt(String(req.query.end))
    res.json({
      status: 'success',
      data: {
        resultType: 'streams',
        result: [
          { stream: { app: 'web', level: 'error' }, values: [[`${end - 1_000_000_000n}`, 'timeout talking to db']] },
          { stream: { app: 'web', level: 'info' }, values: [[`${end - 2_000_000_000n}`, 'request served'], [`${end - 3_000_000_000n}`, 'request served']] },
        ],
      },
    })
  })
  app.post('/app-logs/_search', (req, res) => {
    received.push({ path: req.path, query: req.query, body: req.body, authorization: req.headers.authorization })
    res.json({
      hits: {
        total: { value: 2, relation: 'eq' },
        hits: [
          { _index: 'app-logs', _id: '1', _source: { '@timestamp': iso(60_000), message: 'disk full', level: 'error', host: { name: 'db-1' } } },
          { _index: 'app-logs', _id: '2', _source: { '@timestamp': iso(120_000), message: 'disk almost full', level: 'warn', host: { name: 'db-1' } } },
        ],
      },
    })
  })
  app.get('/loki-down/loki/api/v1/query_range', (_req, res) => {
    res.status(500).send('too many outstanding requests')
  })
  peers = app.listen(0, '127.0.0.1')
  await new Promise((resolve) => peers.once('listening', resolve))
  peerUrl = `http://127.0.0.1:${(peers.address() as AddressInfo).port}`

  folder = await mkdtemp(path.join(tmpdir(), 'lookout-logs-'))
  await writeFile(
    path.join(folder, 'api.log'),
    [
      `${JSON.stringify({ time: iso(30_000), level: 'error', msg: 'payment declined', order: '42' })}`,
      `ts=${iso(90_000)} level=info msg="payment accepted" order=41`,
      `ts=${iso(3 * 3_600_000)} level=error msg="too old to show"`,
      '',
    ].join('\n'),
  )
  await writeFile(path.join(folder, 'plain.log'), 'a line with no time\n')
  await utimes(path.join(folder, 'plain.log'), new Date(NOW - 10_000), new Date(NOW - 10_000))
  await writeFile(path.join(folder, 'skip.txt'), 'not a log\n')

  pgTable = `lookout_logs_${randomBytes(4).toString('hex')}`
  const client = new pg.Client({ connectionString: TEST_PG_ADMIN_URL })
  await client.connect()
  try {
    await client.query(`CREATE TABLE ${pgTable} (logged_at timestamptz NOT NULL, body text NOT NULL, level text, service text)`)
    await client.query(`INSERT INTO ${pgTable} VALUES ($1, 'checkout failed: card expired', 'error', 'checkout'), ($2, 'checkout ok', 'info', 'checkout'), ($3, 'search ok', 'info', 'search'), ($4, 'old failure', 'error', 'checkout')`, [
      iso(10_000),
      iso(20_000),
      iso(30_000),
      iso(48 * 3_600_000),
    ])
  } finally {
    await client.end()
  }
  await testApp.db.query('CREATE TABLE app_audit_log (at timestamptz NOT NULL, line text NOT NULL, level text)')
  await testApp.db.query(`INSERT INTO app_audit_log VALUES ($1, 'user 7 signed in', 'info'), ($2, 'user 7 failed MFA', 'warn')`, [iso(5_000), iso(6_000)])
})

afterAll(async () => {
  await new Promise((resolve) => peers?.close(resolve))
  if (folder) await rm(folder, { recursive: true, force: true })
  if (pgTable) {
    const client = new pg.Client({ connectionString: TEST_PG_ADMIN_URL })
    await client.connect()
    await client.query(`DROP TABLE IF EXISTS ${pgTable}`)
    await client.end()
  }
})

describe('backends', () => {
  it('asks Loki query_range with a stream selector from the labels, nanosecond times and the limit', async () => {
    expect((await addBackend(admin, 'loki-web', { loki: { url: peerUrl, username: 'reader', password: 'secret' } })).status).toBe(201)
    received.length = 0
    const response = await search(admin, { backend: 'loki-web', labels: { app: 'web' }, query: 'timeout', start: 'now-15m', limit: 50 })
    expect(response.status, response.text).toBe(200)
    const query = received[0]!.query
    expect(query.query).toBe('{app="web"} |= "timeout"')
    expect(query.limit).toBe('50')
    expect(query.direction).toBe('backward')
    const start = BigInt(String(query.start))
    const end = BigInt(String(query.end))
    expect(end - start).toBe(15n * 60n * 1_000_000_000n)
    expect(received[0]!.authorization).toBe(`Basic ${Buffer.from('reader:secret').toString('base64')}`)
    const answer = response.body as LogSearchAnswer
    expect(answer.total).toBe(3)
    // Loki's `level` label becomes the line's severity; newest first.
    expect(answer.results[0]).toEqual({ timestamp: expect.any(String), message: 'timeout talking to db', labels: { app: 'web' }, severity: 'error', backend: 'loki-web' })
    expect(answer.results.map((line) => line.severity)).toEqual(['error', 'info', 'info'])
  })

  it('passes a full LogQL query through and refuses label names Loki cannot have', async () => {
    received.length = 0
    expect((await search(admin, { backend: 'loki-web', query: '{app="web"} |= "x" | json' })).status).toBe(200)
    expect(received[0]!.query.query).toBe('{app="web"} |= "x" | json')
    const bad = await search(admin, { backend: 'loki-web', labels: { 'app-name': 'web' } })
    expect(bad.status).toBe(400)
    expect(bad.body.message).toBe(`log backend 'loki-web': label "app-name" is not a Loki label name`)
  })

  it('posts an OpenSearch _search with the range filter, the labels as phrases and the query', async () => {
    expect((await addBackend(admin, 'opensearch-app', { opensearch: { url: peerUrl, index: 'app-logs' }, parse: undefined })).status).toBe(201)
    received.length = 0
    const response = await search(admin, { backend: 'opensearch-app', labels: { 'host.name': 'db-1' }, query: 'disk', start: '2026-01-01T00:00:00Z', end: new Date(NOW).toISOString(), limit: 10 })
    expect(response.status, response.text).toBe(200)
    expect(received[0]!.path).toBe('/app-logs/_search')
    expect(received[0]!.body).toEqual({
      size: 10,
      sort: [{ '@timestamp': { order: 'desc' } }],
      query: {
        bool: {
          must: [{ match_phrase: { 'host.name': 'db-1' } }, { query_string: { query: 'disk' } }],
          filter: [{ range: { '@timestamp': { gte: '2026-01-01T00:00:00.000Z', lte: new Date(NOW).toISOString() } } }],
        },
      },
    })
    const answer = response.body as LogSearchAnswer
    expect(answer.results.map(({ message, severity, host, labels }) => ({ message, severity, host, labels }))).toEqual([
      { message: 'disk full', severity: 'error', host: undefined, labels: { 'host.name': 'db-1' } },
      { message: 'disk almost full', severity: 'warn', host: undefined, labels: { 'host.name': 'db-1' } },
    ])
  })

  it('reads log files by glob, parses each line, keeps the time range and the text', async () => {
    expect((await addBackend(admin, 'files-api', { files: { paths: [`${folder}/*.log`], labels: { source: 'disk' } } })).status).toBe(201)
    const all = await search(admin, { backend: 'files-api' })
    expect(all.status, all.text).toBe(200)
    const answer = all.body as LogSearchAnswer
    expect(answer.results.map((line) => [line.message, line.severity, line.labels.path && path.basename(line.labels.path)])).toEqual([
      ['a line with no time', '', 'plain.log'],
      ['payment declined', 'error', 'api.log'],
      ['payment accepted', 'info', 'api.log'],
    ])
    expect(answer.results[1]!.labels).toMatchObject({ source: 'disk', order: '42' })
    const filtered = await search(admin, { backend: 'files-api', query: 'PAYMENT', labels: { severity: 'error' } })
    expect((filtered.body as LogSearchAnswer).results.map((line) => line.message)).toEqual(['payment declined'])
  })

  it('reads a table on the PostgreSQL server with parameters for the range, text and label columns', async () => {
    const url = new URL(TEST_PG_ADMIN_URL)
    const spec = { postgres: { url: url.toString(), table: `public.${pgTable}`, timestampColumn: 'logged_at', messageColumn: 'body', severityColumn: 'level', labelColumns: ['service'] } }
    expect((await addBackend(admin, 'pg-table', spec)).status).toBe(201)
    const response = await search(admin, { backend: 'pg-table', labels: { service: 'checkout' }, start: 'now-1d' })
    expect(response.status, response.text).toBe(200)
    expect((response.body as LogSearchAnswer).results.map(({ message, severity, labels }) => ({ message, severity, labels }))).toEqual([
      { message: 'checkout failed: card expired', severity: 'error', labels: { service: 'checkout' } },
      { message: 'checkout ok', severity: 'info', labels: { service: 'checkout' } },
    ])
    // `%` and `_` in the text are matched as themselves, not as patterns.
    const literal = await search(admin, { backend: 'pg-table', query: 'card_expired' })
    expect((literal.body as LogSearchAnswer).results).toEqual([])
    const severity = await search(admin, { backend: 'pg-table', labels: { severity: 'error' }, query: "'; DROP TABLE x; --", start: 'now-7d' })
    expect(severity.status).toBe(200)
    const unknown = await search(admin, { backend: 'pg-table', labels: { region: 'eu' } })
    expect(unknown.status).toBe(400)
    expect(unknown.body.message).toBe(`log backend 'pg-table': label "region" is not a column this backend filters on (severity, service)`)
  })

  it("reads a table of Lookout's own database when an exec holder wrote the backend", async () => {
    expect((await addBackend(admin, 'own-audit', { postgres: { table: 'app_audit_log', timestampColumn: 'at', messageColumn: 'line', severityColumn: 'level' } })).status).toBe(201)
    const response = await search(admin, { backend: 'own-audit', query: 'user 7' })
    expect(response.status, response.text).toBe(200)
    expect((response.body as LogSearchAnswer).results.map((line) => [line.message, line.severity])).toEqual([
      ['user 7 signed in', 'info'],
      ['user 7 failed MFA', 'warn'],
    ])
  })

  it('answers a failing backend 502 with what it said', async () => {
    expect((await addBackend(admin, 'loki-down', { loki: { url: `${peerUrl}/loki-down`, query: '{app="x"}' } })).status).toBe(201)
    const response = await search(admin, { backend: 'loki-down' })
    expect(response.status).toBe(502)
    expect(response.body.message).toBe("log backend 'loki-down' failed: loki answered 500: too many outstanding requests")
  })
})

describe('component selectors and routes', () => {
  it("searches a component's named log selector with its labels, and names the others when one is missing", async () => {
    const { rows } = await testApp.db.query<{ id: string }>(
      `INSERT INTO components (name, type, status, health, external_id, log_selectors) VALUES ('web', 'WebApp', 'healthy', 'healthy', 'web', $1::jsonb) RETURNING id`,
      [JSON.stringify([{ name: 'loki-web', labels: { app: 'web' } }, { name: 'files', backend: 'files-api' }])],
    )
    const id = rows[0]!.id
    received.length = 0
    const response = await search(admin, { id, name: 'loki-web', query: 'timeout' })
    expect(response.status, response.text).toBe(200)
    expect(received[0]!.query.query).toBe('{app="web"} |= "timeout"')
    const both = await search(admin, { id })
    expect(new Set((both.body as LogSearchAnswer).results.map((line) => line.backend))).toEqual(new Set(['loki-web', 'files-api']))
    const missing = await search(admin, { id, name: 'nope' })
    expect(missing.status).toBe(404)
    expect(missing.body.message).toBe("log selector with the name 'nope' was not found. Available names: [loki-web, files]")
  })

  it("routes a config item to the backends whose routes take its type", async () => {
    expect((await addBackend(admin, 'loki-pods', { loki: { url: peerUrl, query: '{namespace="default"}' }, routes: [{ type: 'Kubernetes::Pod' }] })).status).toBe(201)
    const { rows } = await testApp.db.query<{ id: string }>(`INSERT INTO config_items (name, type, config_class, config) VALUES ('web-0', 'Kubernetes::Pod', 'Pod', '{}') RETURNING id`)
    received.length = 0
    const response = await search(admin, { id: rows[0]!.id })
    expect(response.status, response.text).toBe(200)
    expect(received[0]!.query.query).toBe('{namespace="default"}')
  })
})

describe('errors and access', () => {
  it('answers 400 for a request without a target and for bad fields, 404 for unknown ids and backends', async () => {
    expect((await search(admin, {})).body).toEqual({ error: 'invalid', message: 'component ID is required' })
    const bad = await search(admin, { id: 'web', limit: 0, labels: ['x'] })
    expect(bad.status).toBe(400)
    expect(bad.body.message).toBe('id: id must be a component or config item id; labels: labels must be an object of names to values; limit: limit must be at least 1')
    expect((await search(admin, { backend: 'loki-web', start: 'yesterday-ish' })).status).toBe(400)
    expect((await search(admin, { backend: 'loki-web', start: 'now', end: 'now-1h' })).body.message).toBe('start is after end')
    expect((await search(admin, { id: '0190f0f0-0000-7000-8000-00000000beef' })).status).toBe(404)
    expect((await search(admin, { backend: 'missing' })).body).toEqual({ error: 'not_found', message: "log backend 'missing' was not found" })
  })

  it('needs logs:read', async () => {
    const response = await search(nobody, { backend: 'loki-web' })
    expect(response.status).toBe(403)
    expect((await search(editor, { backend: 'loki-web', labels: { app: 'web' } })).status).toBe(200)
  })

  it('refuses files and own-database backends from writers without exec, and fences what they may reach', async () => {
    const files = await addBackend(editor, 'files-by-editor', { files: { paths: ['/etc/*'] } })
    expect(files.status).toBe(403)
    expect(files.body.message).toMatch(/need the exec permission, which you do not hold \(spec.files\)/)
    const own = await addBackend(editor, 'own-by-editor', { postgres: { table: 'people' } })
    expect(own.status).toBe(403)
    const shape = await addBackend(editor, 'two-kinds', { loki: { url: peerUrl }, files: { paths: ['/x'] } })
    expect(shape.status).toBe(400)
    expect(shape.body.message).toBe('spec: set exactly one of loki, opensearch, elasticsearch, files, postgres (got loki, files)')
    // An editor's Loki on this server's loopback address is fenced like an untrusted canary.
    expect((await addBackend(editor, 'loki-by-editor', { loki: { url: peerUrl } })).status).toBe(201)
    const fenced = await search(editor, { backend: 'loki-by-editor', labels: { app: 'web' } })
    expect(fenced.status).toBe(400)
    expect(fenced.body.message).toMatch(/^log backend 'loki-by-editor': target 127\.0\.0\.1/)
    // A files backend stored behind the API's back (no exec holder's mark) is not read.
    await testApp.db.query(`INSERT INTO logging_backends (name, spec) VALUES ('files-unmarked', $1::jsonb)`, [JSON.stringify({ files: { paths: [`${folder}/*.log`] } })])
    const unmarked = await search(admin, { backend: 'files-unmarked' })
    expect(unmarked.status).toBe(400)
    expect(unmarked.body.message).toMatch(/files backends read this server's disk and run only when someone holding the exec permission wrote the backend/)
  })
})
