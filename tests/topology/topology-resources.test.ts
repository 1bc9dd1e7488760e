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
import { tempFolder } from '#tests/catalog/scrape-fixtures.ts'

const testApp = useTestApp()
let db: Db
let app: Express
let server: http.Server
let baseUrl: string
let editor: Awaited<ReturnType<typeof personWith>>

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
})

async function storedNamed(name: string) {
  return (await db.query<{ id: string; spec: Record<string, unknown>; source: string; namespace: string; labels: unknown }>(
    'SELECT id, spec, source, namespace, labels FROM topologies WHERE name = $1 AND deleted_at IS NULL',
    [name],
  )).rows
}

const goodSpec = {
  type: 'System',
  schedule: '@every 5m',
  components: [
    { name: 'api', type: 'Service', checks: [{ selector: { labelSelector: 'app=api' } }], properties: [{ name: 'cpu', value: '12', unit: 'millicores', headline: true }] },
    { name: 'database', type: 'Database', checks: [{ inline: { tcp: [{ name: 'pg-port', endpoint: '127.0.0.1:5432', thresholdMillis: 1000 }] } }] },
  ],
}

describe('the data API validates Topology specs', () => {
  it('answers 400 naming the field, and stores nothing', async () => {
    const cases: [Record<string, unknown>, RegExp][] = [
      [{ schedule: '8 46 *' }, /spec\.schedule: invalid cron/],
      [{ components: [{ type: 'Service' }] }, /spec\.components\[0\]\.name: is required/],
      [{ components: [{ name: 'a', components: [{ name: 'b', properties: [{ name: 'p', value: 'lots' }] }] }] }, /spec\.components\[0\]\.components\[0\]\.properties\[0\]\.value: must be a number/],
      [{ components: [{ name: 'a', checks: [{}] }] }, /spec\.components\[0\]\.checks\[0\]: set one of selector, inline/],
      [{ components: [{ name: 'a', checks: [{ inline: { http: [{ name: 'h', thresholdMillis: -1 }] } }] }] }, /spec\.components\[0\]\.checks\[0\]\.inline\.http\[0\]\.thresholdMillis/],
      [{ components: [{ name: 'a', lookup: { tcpp: [] } }] }, /spec\.components\[0\]\.lookup\.tcpp: unknown field "tcpp"/],
      [{ components: [{ name: 'a', health: 'fine' }] }, /spec\.components\[0\]\.health: must be one of healthy, unhealthy, warning, unknown/],
      [{ components: 'api' }, /spec\.components: Expected array/],
    ]
    for (const [index, [spec, message]] of cases.entries()) {
      const name = `bad-topology-${index}`
      const response = await request(app).post('/api/db/topologies').set(bearer).send({ name, namespace: 'default', source: 'UI', spec })
      expect(response.status, JSON.stringify(spec)).toBe(400)
      expect(response.body.message).toMatch(message)
      expect(await storedNamed(name)).toEqual([])
    }
    const unnamed = await request(app).post('/api/db/topologies').set(bearer).send({ namespace: 'default', spec: goodSpec })
    expect(unnamed.status).toBe(400)
    expect(unnamed.body.message).toMatch(/^name: is required/)
  })

  it('stores a valid spec as written and refuses a bad PATCH of it', async () => {
    const created = await request(app).post('/api/db/topologies').set(bearer).set('Prefer', 'return=representation')
      .send({ name: 'api-stack', namespace: 'default', source: 'UI', labels: { team: 'web' }, spec: { ...goodSpec, unknownKey: { kept: true } } })
    expect(created.status, created.text).toBe(201)
    const [row] = await storedNamed('api-stack')
    expect(row!.spec).toMatchObject({ unknownKey: { kept: true }, components: [{ properties: [{ value: '12' }] }, {}] })
    const patch = await request(app).patch(`/api/db/topologies?id=eq.${row!.id}`).set(bearer).send({ spec: { components: [{ name: 'x', order: 1.5 }] } })
    expect(patch.status).toBe(400)
    expect(patch.body.message).toMatch(/spec\.components\[0\]\.order: must be a whole number/)
    const [after] = await storedNamed('api-stack')
    expect(after!.spec).toEqual(row!.spec)
    // Writes that leave the spec alone (a soft delete, a label edit) are not judged by it.
    expect((await request(app).patch(`/api/db/topologies?id=eq.${row!.id}`).set(bearer).send({ labels: { team: 'ops' } })).status).toBe(204)
  })

  it('refuses inline exec checks and exec lookups to writers without the exec permission', async () => {
    const execSpec = { components: [{ name: 'runner', lookup: { exec: [{ name: 'list', script: 'echo []' }] } }] }
    const refused = await request(app).post('/api/db/topologies').set(editor.headers).send({ name: 'editor-exec', namespace: 'default', spec: execSpec })
    expect(refused.status).toBe(403)
    expect(refused.body.message).toMatch(/exec checks need the exec permission, which you do not hold \(spec\.components\[0\]\.lookup\.exec\)/)
    expect(await storedNamed('editor-exec')).toEqual([])
    const plain = await request(app).post('/api/db/topologies').set(editor.headers).send({ name: 'editor-plain', namespace: 'default', spec: { ...goodSpec, type: 'EditorSystem' } })
    expect(plain.status, plain.text).toBe(201)
  })

  it("records the spec of an exec holder's topology as trusted (its lookups may reach this server), not an editor's", async () => {
    const trusted = async (name: string) =>
      (await db.query(
        `SELECT 1 FROM topologies t JOIN lookout.check_spec_trust s ON s.spec_hash = md5(t.spec::text) WHERE t.name = $1 AND t.deleted_at IS NULL`,
        [name],
      )).rows.length > 0
    expect(await trusted('api-stack')).toBe(true)
    expect(await trusted('editor-plain')).toBe(false)
  })
})

function cli(...args: string[]): Promise<{ code: number; stdout: string; stderr: string }> {
  return new Promise((resolve) => {
    execFile(process.execPath, [path.join(ROOT, 'node_modules/tsx/dist/cli.mjs'), path.join(ROOT, 'bin/lookout.ts'), ...args], {
      env: { ...process.env, LOOKOUT_URL: baseUrl, LOOKOUT_TOKEN: TEST_TOKEN },
    }, (error, stdout, stderr) => resolve({ code: error ? Number(error.code ?? 1) : 0, stdout, stderr }))
  })
}

describe('lookout apply -f with Topology documents', () => {
  it('validates first, creates, configures and deletes', async () => {
    const yaml = (schedule: string, extra = '') => `apiVersion: canaries.flanksource.com/v1
kind: Topology
metadata: {name: local-stack, namespace: ops, labels: {env: lab}}
spec:
  type: System
  schedule: "${schedule}"
  components:
    - name: api
      type: Service
      checks: [{selector: {labelSelector: "app=api"}}]
    - name: database
      type: Database${extra}
      checks:
        - inline:
            tcp: [{name: pg-port, endpoint: "127.0.0.1:5432", thresholdMillis: 1000}]
`
    const folder = tempFolder({ 'bad.yaml': yaml('@every 5m', '\n      hidden: sometimes') })
    try {
      const bad = await cli('apply', '-f', path.join(folder.dir, 'bad.yaml'))
      expect(bad.code).toBe(1)
      expect(bad.stderr).toContain('bad.yaml: spec.components[1].hidden: Expected boolean, received string')
      expect(await storedNamed('local-stack')).toEqual([])

      folder.write('good.yaml', yaml('@every 5m'))
      folder.remove('bad.yaml')
      const applied = await cli('apply', '-f', folder.dir)
      expect(applied.stderr).toBe('')
      expect(applied.stdout).toContain('topology ops/local-stack created')
      folder.write('good.yaml', yaml('@every 10m'))
      expect((await cli('apply', '-f', folder.dir)).stdout).toContain('topology ops/local-stack configured')
      const rows = await storedNamed('local-stack')
      expect(rows).toHaveLength(1)
      expect(rows[0]).toMatchObject({ spec: { schedule: '@every 10m', type: 'System' }, source: 'ConfigFile', namespace: 'ops', labels: { env: 'lab' } })

      const removed = await cli('delete', '-f', folder.dir)
      expect(removed.stdout).toContain('topology ops/local-stack deleted')
      expect(await storedNamed('local-stack')).toEqual([])
    } finally {
      folder.cleanup()
    }
  }, 60_000)
})
