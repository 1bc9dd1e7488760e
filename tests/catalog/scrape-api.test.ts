import { execFile } from 'node:child_process'
import http from 'node:http'
import type { AddressInfo } from 'node:net'
import path from 'node:path'
import type { Express } from 'express'
import request from 'supertest'
import { afterAll, beforeAll, describe, expect, it } from 'vitest'
import type { Db } from '#server/db/client.ts'
import { useTestApp } from '#tests/support/use-test-app.ts'
import { bearer, createTestApp, TEST_TOKEN } from '#tests/support/test-app.ts'
import { ROOT } from '#tests/support/processes.ts'
import { personWith } from '#tests/rbac/rbac-fixture.ts'
import { insertScraper, itemsOf, tempFolder, waitFor } from './scrape-fixtures.ts'

const testApp = useTestApp()
let db: Db
let app: Express
let server: http.Server
let baseUrl: string
let editor: Awaited<ReturnType<typeof personWith>>
const files = tempFolder({ 'a.json': '{"id": "a", "name": "alpha"}', 'b.yaml': 'id: b\nname: beta\n' })

beforeAll(async () => {
  db = testApp.db
  app = createTestApp(db).app
  server = http.createServer(app)
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve))
  baseUrl = `http://127.0.0.1:${(server.address() as AddressInfo).port}`
  editor = await personWith(db, ['editor'])
})

afterAll(async () => {
  await new Promise((resolve) => server?.close(resolve))
  files.cleanup()
})

const fileSpec = (extra: Record<string, unknown> = {}) => ({
  schedule: '@every 1h',
  file: [{ type: 'Lab::Doc', id: '$.id', name: '$.name', paths: [path.join(files.dir, '*')], ...extra }],
})

async function storedNamed(name: string) {
  return (await db.query('SELECT id, spec FROM config_scrapers WHERE name = $1 AND deleted_at IS NULL', [name])).rows
}

describe('the data API validates ScrapeConfig specs', () => {
  it('answers 400 naming the field, and stores nothing', async () => {
    const tags = Array.from({ length: 6 }, (_, index) => ({ name: `t${index}`, value: 'x' }))
    const cases: [Record<string, unknown>, RegExp][] = [
      [fileSpec({ tags }), /spec\.file\[0\]\.tags: at most 5 tags/],
      [{ file: [{ type: 'X', id: '$.id' }] }, /spec\.file\[0\]\.paths: set paths or url/],
      [{ schedule: '8 46 *', file: [{ paths: ['/tmp/x'] }] }, /spec\.schedule: invalid cron/],
      [{ fiel: [{ paths: ['/tmp/x'] }] }, /spec\.fiel: unknown scraper "fiel"/],
      [{ sql: [{ query: 'select 1' }] }, /spec\.sql\[0\]\.connection: is required/],
      [{ exec: [{ type: 'X' }] }, /spec\.exec\[0\]\.script: is required/],
      [{ kubernetes: { clusterName: 'x' } }, /spec\.kubernetes: must be a list of scrapers/],
      [{ retention: { changes: [{ name: 'diff', age: 'soon' }] } }, /spec\.retention\.changes\[0\]\.age: invalid duration "soon"/],
    ]
    for (const [index, [spec, message]] of cases.entries()) {
      const name = `bad-${index}`
      const response = await request(app).post('/api/db/config_scrapers').set(bearer).send({ name, namespace: 'default', source: 'UI', spec })
      expect(response.status, JSON.stringify(spec)).toBe(400)
      expect(response.body.message).toMatch(message)
      expect(await storedNamed(name)).toEqual([])
    }
  })

  it('accepts a valid spec (cloud kinds too) and refuses a bad PATCH of it', async () => {
    const created = await request(app).post('/api/db/config_scrapers').set(bearer).set('Prefer', 'return=representation')
      .send({ name: 'api-files', namespace: 'default', source: 'UI', spec: { ...fileSpec(), aws: [{ region: ['eu-west-1'], connection: 'connection://aws' }] } })
    expect(created.status, created.text).toBe(201)
    const [row] = await storedNamed('api-files')
    const patch = await request(app).patch(`/api/db/config_scrapers?id=eq.${(row as { id: string }).id}`).set(bearer).send({ spec: fileSpec({ tags: 'many' }) })
    expect(patch.status).toBe(400)
    expect(patch.body.message).toMatch(/spec\.file\[0\]\.tags/)
    const [after] = await storedNamed('api-files')
    expect((after as { spec: { aws?: unknown } }).spec.aws).toBeDefined()
  })
})

describe('POST /api/config/run/{id}', () => {
  it('runs a scraper and answers with the job and its summary; async answers RUNNING at once', async () => {
    const id = await insertScraper(db, 'run-now', fileSpec())
    const response = await request(app).post(`/api/config/run/${id}`).set(bearer).send({})
    expect(response.status, response.text).toBe(200)
    expect(response.body).toMatchObject({ message: 'success', payload: { status: 'SUCCESS', scrape_summary: { added: 2, updated: 0, unchanged: 0, deleted: 0, errors: 0 } } })
    const jobId = response.body.payload.job_history_id as string
    const { rows: [job] } = await db.query<{ status: string; resource_id: string }>('SELECT status, resource_id FROM job_history WHERE id = $1', [jobId])
    expect(job).toEqual({ status: 'SUCCESS', resource_id: id })
    expect((await itemsOf(db, id)).map((item) => item.name)).toEqual(['alpha', 'beta'])

    const async = await request(app).post(`/api/config/run/${id}`).set(bearer).send({ async: true, capture_logs: true })
    expect(async.status).toBe(200)
    expect(async.body.payload).toMatchObject({ status: 'RUNNING' })
    await waitFor(async () => (await db.query<{ status: string }>('SELECT status FROM job_history WHERE id = $1', [async.body.payload.job_history_id])).rows[0]?.status === 'SUCCESS')
  })

  it('answers 404 for an unknown scraper and 400 for a bad body', async () => {
    const missing = await request(app).post('/api/config/run/0190f0f0-0000-7000-8000-00000000beef').set(bearer).send({})
    expect(missing.status).toBe(404)
    expect(missing.body).toEqual({ message: 'scraper with id=0190f0f0-0000-7000-8000-00000000beef was not found' })
    const id = await insertScraper(db, 'run-bad-body', fileSpec())
    const bad = await request(app).post(`/api/config/run/${id}`).set(bearer).send({ async: 'yes' })
    expect(bad.status).toBe(400)
    expect(bad.body.message).toMatch(/async/)
    const large = await request(app).post(`/api/config/run/${id}`).set(bearer).set('Content-Type', 'application/json').send(JSON.stringify({ pad: 'x'.repeat(9000) }))
    expect(large.status).toBe(400)
  })

  it('lets an editor run a file scraper but not an exec scraper', async () => {
    const fileScraper = await insertScraper(db, 'editor-file', fileSpec())
    const ok = await request(app).post(`/api/config/run/${fileScraper}`).set(editor.headers).send({})
    expect(ok.status, ok.text).toBe(200)
    // Stored by an admin (or by SQL): the editor still may not start its process.
    const execScraper = await insertScraper(db, 'editor-exec', { exec: [{ type: 'Lab::X', id: '$.id', script: 'echo \'{"id": "x"}\'' }] })
    const refused = await request(app).post(`/api/config/run/${execScraper}`).set(editor.headers).send({})
    expect(refused.status).toBe(403)
    expect(refused.body.message).toMatch(/exec scrapers need the exec permission, which you do not hold \(spec\.exec\)/)
    expect((await db.query("SELECT 1 FROM job_history WHERE resource_id = $1", [execScraper])).rows).toEqual([])
    const admin = await request(app).post(`/api/config/run/${execScraper}`).set(bearer).send({})
    expect(admin.body.payload.status).toBe('SUCCESS')
  })
})

function cli(...args: string[]): Promise<{ code: number; stdout: string; stderr: string }> {
  return new Promise((resolve) => {
    execFile(process.execPath, [path.join(ROOT, 'node_modules/tsx/dist/cli.mjs'), path.join(ROOT, 'bin/lookout.ts'), ...args], {
      env: { ...process.env, LOOKOUT_URL: baseUrl, LOOKOUT_TOKEN: TEST_TOKEN },
    }, (error, stdout, stderr) => resolve({ code: error ? Number(error.code ?? 1) : 0, stdout, stderr }))
  })
}

describe('lookout apply -f', () => {
  it('applies ScrapeConfig documents beside canaries, validates first, updates and deletes', async () => {
    const yaml = (schedule: string, tags = 1) => `apiVersion: configs.flanksource.com/v1
kind: ScrapeConfig
metadata: {name: cli-inventory, namespace: ops}
spec:
  schedule: "${schedule}"
  file:
    - type: Lab::Doc
      id: $.id
      paths: ["${path.join(files.dir, '*')}"]
      tags: [${Array.from({ length: tags }, (_, index) => `{name: t${index}, value: v}`).join(', ')}]
---
apiVersion: canaries.flanksource.com/v1
kind: Canary
metadata: {name: cli-canary, namespace: ops}
spec:
  schedule: "@never"
  http: [{name: web, url: "http://127.0.0.1:1/"}]
`
    const folder = tempFolder({ 'bad.yaml': yaml('@every 5m', 6) })
    try {
      const bad = await cli('apply', '-f', path.join(folder.dir, 'bad.yaml'))
      expect(bad.code).toBe(1)
      expect(bad.stderr).toContain('bad.yaml: [0].spec.file[0].tags: at most 5 tags')
      expect((await db.query("SELECT 1 FROM config_scrapers WHERE name = 'cli-inventory'")).rows).toEqual([])
      expect((await db.query("SELECT 1 FROM canaries WHERE name = 'cli-canary'")).rows).toEqual([])

      folder.write('good.yaml', yaml('@every 5m'))
      folder.remove('bad.yaml')
      const applied = await cli('apply', '-f', folder.dir)
      expect(applied.stderr).toBe('')
      expect(applied.stdout).toContain('scrapeconfig ops/cli-inventory created')
      expect(applied.stdout).toContain('canary ops/cli-canary created')
      folder.write('good.yaml', yaml('@every 10m'))
      expect((await cli('apply', '-f', folder.dir)).stdout).toContain('scrapeconfig ops/cli-inventory configured')
      const { rows } = await db.query<{ spec: { schedule: string }; source: string; namespace: string }>("SELECT spec, source, namespace FROM config_scrapers WHERE name = 'cli-inventory' AND deleted_at IS NULL")
      expect(rows).toHaveLength(1)
      expect(rows[0]).toMatchObject({ spec: { schedule: '@every 10m' }, source: 'ConfigFile', namespace: 'ops' })

      const removed = await cli('delete', '-f', folder.dir)
      expect(removed.stdout).toContain('scrapeconfig ops/cli-inventory deleted')
      expect((await db.query("SELECT 1 FROM config_scrapers WHERE name = 'cli-inventory' AND deleted_at IS NULL")).rows).toEqual([])
    } finally {
      folder.cleanup()
    }
  }, 60_000)
})
