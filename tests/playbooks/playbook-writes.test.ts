import { execFile } from 'node:child_process'
import http from 'node:http'
import type { AddressInfo } from 'node:net'
import path from 'node:path'
import type { Express } from 'express'
import request from 'supertest'
import { afterAll, beforeAll, describe, expect, it } from 'vitest'
import type { Db } from '#server/db/client.ts'
import { useTestApp } from '#tests/support/use-test-app.ts'
import { bearer, TEST_TOKEN } from '#tests/support/test-app.ts'
import { ROOT } from '#tests/support/processes.ts'
import { personWith, RANDOM_ID } from '#tests/rbac/rbac-fixture.ts'
import { tempFolder } from '#tests/catalog/scrape-fixtures.ts'

/** The playbook write guard of http-api §4.6 and the exec right, through /api/db/playbooks. */

const testApp = useTestApp()
let db: Db
let app: Express
let server: http.Server
let baseUrl: string
let editor: Awaited<ReturnType<typeof personWith>>
let viewer: Awaited<ReturnType<typeof personWith>>

beforeAll(async () => {
  db = testApp.db
  app = testApp.app
  server = http.createServer(app)
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve))
  baseUrl = `http://127.0.0.1:${(server.address() as AddressInfo).port}`
  editor = await personWith(db, ['editor'])
  viewer = await personWith(db, ['viewer'])
})

afterAll(async () => {
  await new Promise((resolve) => server?.close(resolve))
})

const httpSpec = (extra: Record<string, unknown> = {}) => ({ title: 'Ping', actions: [{ name: 'ping', http: { url: 'http://127.0.0.1:9/healthz' } }], ...extra })
const execSpec = { actions: [{ name: 'restart', exec: { script: 'systemctl restart web' } }] }

async function stored(name: string) {
  return (await db.query<{ id: string; source: string; spec: Record<string, unknown>; deleted_at: Date | null; created_by: string | null; title: string }>(
    'SELECT id, source::text AS source, spec, deleted_at, created_by, title FROM playbooks WHERE name = $1 ORDER BY created_at',
    [name],
  )).rows
}

async function create(name: string, spec: Record<string, unknown>, headers: Record<string, string> = bearer) {
  const response = await request(app).post('/api/db/playbooks').set(headers).set('Prefer', 'return=representation').send({ name, namespace: 'default', spec })
  expect(response.status, response.text).toBe(201)
  return (response.body as { id: string }[])[0]!.id
}

async function insertWithSource(name: string, source: string): Promise<string> {
  const { rows } = await db.query<{ id: string }>(`INSERT INTO playbooks (name, namespace, spec, source) VALUES ($1, 'platform', $2, $3) RETURNING id`, [name, JSON.stringify(httpSpec()), source])
  return rows[0]!.id
}

describe('POST /api/db/playbooks', () => {
  it('refuses a missing spec, a source other than UI and upserts, in the plain error shape', async () => {
    const cases: [Record<string, unknown>, Record<string, string>, string][] = [
      [{ name: 'no-spec', namespace: 'default' }, {}, 'playbook spec is required'],
      [{ name: 'null-spec', namespace: 'default', spec: null }, {}, 'playbook spec is required'],
      [{ name: 'crd', namespace: 'default', source: 'KubernetesCRD', spec: httpSpec() }, {}, 'playbook source must be UI, not "KubernetesCRD"'],
      [{ name: 'upsert', namespace: 'default', spec: httpSpec() }, { Prefer: 'resolution=merge-duplicates' }, 'upserts are not supported for playbooks'],
    ]
    for (const [body, headers, error] of cases) {
      const response = await request(app).post('/api/db/playbooks').set(bearer).set(headers).send(body)
      expect(response.status, JSON.stringify(body)).toBe(400)
      expect(response.body).toEqual({ error })
      expect(await stored(String(body.name))).toEqual([])
    }
  })

  it('answers 400 naming the field for an invalid spec, and stores nothing', async () => {
    const cases: [Record<string, unknown>, string][] = [
      [{ actions: [{ name: 'nothing' }] }, 'playbook validation failed: spec.actions[0]: has no action type; set one of exec, http, sql, notification, gitops, github, azureDevopsPipeline, pod, logs, ai, prometheus, report, catalog'],
      [{ actions: [{ name: 'a', http: { url: 'http://x' } }, { name: 'a', http: { url: 'http://y' } }] }, 'playbook validation failed: spec.actions[1].name: duplicate action name "a" (also actions[0])'],
      [
        httpSpec({ on: { schedule: [{ schedule: '@hourly' }] }, approval: { approvers: { teams: ['sre'] } } }),
        'playbook validation failed: spec.approval.approvers: a playbook with on.schedule cannot have approvers',
      ],
      [httpSpec({ on: { schedule: [{ schedule: '8 46 *' }] } }), 'playbook validation failed: spec.on.schedule[0].schedule: invalid cron "8 46 *": expected 5 fields (minute hour day month weekday), got 3'],
      [{ title: 'no actions' }, 'playbook validation failed: spec.actions: is required'],
    ]
    for (const [index, [spec, error]] of cases.entries()) {
      const name = `bad-playbook-${index}`
      const response = await request(app).post('/api/db/playbooks').set(bearer).send({ name, namespace: 'default', spec })
      expect(response.status, JSON.stringify(spec)).toBe(400)
      expect(response.body).toEqual({ error })
      expect(await stored(name)).toEqual([])
    }
  })

  it('stores a valid playbook as the UI’s, with its author, and a list body row by row', async () => {
    await create('ping-service', httpSpec())
    const [row] = await stored('ping-service')
    expect(row).toMatchObject({ source: 'UI', spec: httpSpec(), deleted_at: null })
    expect(row!.created_by).not.toBeNull()
    const list = await request(app)
      .post('/api/db/playbooks')
      .set(bearer)
      .send([
        { name: 'list-one', namespace: 'default', spec: httpSpec() },
        { name: 'list-two', namespace: 'default', source: 'UI', spec: httpSpec() },
      ])
    expect(list.status, list.text).toBe(201)
    expect((await stored('list-two'))[0]!.source).toBe('UI')
    const badSecond = await request(app)
      .post('/api/db/playbooks')
      .set(bearer)
      .send([{ name: 'list-three', namespace: 'default', spec: httpSpec() }, { name: 'list-four', namespace: 'default' }])
    expect(badSecond.status).toBe(400)
    expect(badSecond.body).toEqual({ error: 'playbook spec is required' })
    expect(await stored('list-three')).toEqual([])
  })

  it('keeps webhook paths unique among live playbooks (400), freeing a deleted one’s', async () => {
    const hook = (path: string) => httpSpec({ on: { webhook: { path, authentication: { basic: { username: 'u', password: 'p' } } } } })
    const owner = await create('hook-owner', hook('deploy-done'))
    const taken = await request(app).post('/api/db/playbooks').set(bearer).send({ name: 'hook-thief', namespace: 'default', spec: hook('deploy-done') })
    expect(taken.status).toBe(400)
    expect(taken.body).toEqual({ error: 'playbook validation failed: spec.on.webhook.path: "deploy-done" is already served by playbook default/hook-owner' })
    const twice = await request(app)
      .post('/api/db/playbooks')
      .set(bearer)
      .send([
        { name: 'hook-a', namespace: 'default', spec: hook('same') },
        { name: 'hook-b', namespace: 'default', spec: hook('same') },
      ])
    expect(twice.status).toBe(400)
    expect(twice.body.error).toBe('playbook validation failed: spec.on.webhook.path: "same" is already served by playbook [0] of this request')
    const other = await create('hook-other', hook('other-path'))
    const patched = await request(app).patch(`/api/db/playbooks?id=eq.${other}`).set(bearer).send({ spec: hook('deploy-done') })
    expect(patched.status).toBe(400)
    expect(patched.body.error).toMatch(/"deploy-done" is already served by playbook default\/hook-owner/)
    // Its own path is no conflict with itself.
    expect((await request(app).patch(`/api/db/playbooks?id=eq.${owner}`).set(bearer).send({ spec: hook('deploy-done') })).status).toBe(204)
    expect((await request(app).patch(`/api/db/playbooks?id=eq.${owner}`).set(bearer).send({ deleted_at: 'now()' })).status).toBe(204)
    expect((await request(app).patch(`/api/db/playbooks?id=eq.${other}`).set(bearer).send({ spec: hook('deploy-done') })).status).toBe(204)
  })

  it('leaves a caller without playbooks:create to the data API’s own refusal', async () => {
    const response = await request(app).post('/api/db/playbooks').set(viewer.headers).send({ name: 'viewer-made', namespace: 'default' })
    expect(response.status).toBe(403)
    expect(response.body).toMatchObject({ code: '42501' })
  })
})

describe('PATCH and DELETE /api/db/playbooks', () => {
  it('need exactly one id=eq.<uuid> filter', async () => {
    const id = await create('filtered', httpSpec())
    const cases: [string, string][] = [
      ['', 'playbook mutations require an exact id filter'],
      ['?name=eq.filtered', 'playbook mutations require an exact id filter'],
      [`?id=in.(${id})`, 'playbook mutations require an exact id filter'],
      [`?id=eq.${id}&name=eq.filtered`, 'playbook mutations require an exact id filter'],
      ['?id=eq.not-a-uuid', 'invalid playbook id'],
    ]
    for (const [query, error] of cases) {
      for (const method of ['patch', 'delete'] as const) {
        const response = await request(app)[method](`/api/db/playbooks${query}`).set(bearer).send(method === 'patch' ? { title: 'x' } : undefined)
        expect(response.status, `${method} ${query}`).toBe(400)
        expect(response.body).toEqual({ error })
      }
    }
    // A select beside the filter is no second filter.
    const ok = await request(app).patch(`/api/db/playbooks?id=eq.${id}&select=id,title`).set(bearer).set('Prefer', 'return=representation').send({ title: 'Renamed' })
    expect(ok.status, ok.text).toBe(200)
    expect(ok.body).toEqual([{ id, title: 'Renamed' }])
    // No such playbook: nothing changes, as for any filter that matches no row.
    expect((await request(app).patch(`/api/db/playbooks?id=eq.${RANDOM_ID}`).set(bearer).send({ title: 'x' })).status).toBe(204)
  })

  it('validates a changed spec and refuses a changed source', async () => {
    const id = await create('patched', httpSpec())
    const bad = await request(app).patch(`/api/db/playbooks?id=eq.${id}`).set(bearer).send({ spec: { actions: [{ name: ' padded', http: { url: 'http://x' } }] } })
    expect(bad.status).toBe(400)
    expect(bad.body).toEqual({ error: 'playbook validation failed: spec.actions[0].name: must not have leading or trailing spaces' })
    const source = await request(app).patch(`/api/db/playbooks?id=eq.${id}`).set(bearer).send({ source: 'KubernetesCRD' })
    expect(source.status).toBe(400)
    expect(source.body).toEqual({ error: 'playbook source cannot be changed' })
    expect((await request(app).patch(`/api/db/playbooks?id=eq.${id}`).set(bearer).send({ source: 'UI', description: 'same source' })).status).toBe(204)
    expect((await stored('patched'))[0]).toMatchObject({ source: 'UI', spec: httpSpec() })
  })

  it('keeps the listed title, category, icon and description in step with the spec', async () => {
    const id = await create('mirrored', httpSpec({ category: 'Ops', icon: 'http', description: 'pings' }))
    const columns = async () =>
      (await db.query('SELECT title, category, icon, description FROM playbooks WHERE id = $1', [id])).rows[0]
    expect(await columns()).toEqual({ title: 'Ping', category: 'Ops', icon: 'http', description: 'pings' })
    // Only the spec is sent: the columns follow it, and a title left out falls back to the name.
    const patched = await request(app).patch(`/api/db/playbooks?id=eq.${id}`).set(bearer).send({ spec: { category: 'Network', actions: httpSpec().actions } })
    expect(patched.status, patched.text).toBe(204)
    expect(await columns()).toEqual({ title: 'mirrored', category: 'Network', icon: null, description: null })
    // A column the writer sets itself is kept as sent.
    await request(app).patch(`/api/db/playbooks?id=eq.${id}`).set(bearer).send({ title: 'Chosen', spec: httpSpec() }).expect(204)
    expect(await columns()).toMatchObject({ title: 'Chosen', category: '' })
  })

  it('refuses to change or delete a playbook another source owns (409)', async () => {
    const id = await insertWithSource('from-cluster', 'KubernetesCRD')
    const error = 'playbook platform/from-cluster was not created through the API and cannot be modified'
    const patch = await request(app).patch(`/api/db/playbooks?id=eq.${id}`).set(bearer).send({ title: 'mine now' })
    expect(patch.status).toBe(409)
    expect(patch.body).toEqual({ error })
    const softDelete = await request(app).patch(`/api/db/playbooks?id=eq.${id}`).set(bearer).send({ deleted_at: 'now()' })
    expect(softDelete.status).toBe(409)
    expect(softDelete.body).toEqual({ error })
    const hardDelete = await request(app).delete(`/api/db/playbooks?id=eq.${id}`).set(bearer)
    expect(hardDelete.status).toBe(409)
    expect(hardDelete.body).toEqual({ error })
    expect((await stored('from-cluster'))[0]).toMatchObject({ deleted_at: null, title: '' })
  })

  it('soft-deletes with {"deleted_at": "now()"}, and deletes by id', async () => {
    const id = await create('short-lived', httpSpec())
    const response = await request(app).patch(`/api/db/playbooks?id=eq.${id}`).set(bearer).send({ deleted_at: 'now()' })
    expect(response.status, response.text).toBe(204)
    const [row] = await stored('short-lived')
    expect(row!.deleted_at).toBeInstanceOf(Date)
    expect(Math.abs(row!.deleted_at!.getTime() - Date.now())).toBeLessThan(60_000)
    const gone = await create('hard-deleted', httpSpec())
    expect((await request(app).delete(`/api/db/playbooks?id=eq.${gone}`).set(bearer)).status).toBe(204)
    expect(await stored('hard-deleted')).toEqual([])
  })
})

describe('the exec right', () => {
  it('refuses exec and pod actions to an editor without it, and lets an admin write them (trusted)', async () => {
    const refused = await request(app).post('/api/db/playbooks').set(editor.headers).send({ name: 'editor-exec', namespace: 'default', spec: execSpec })
    expect(refused.status).toBe(403)
    expect(refused.body.message).toBe('exec actions need the exec permission, which you do not hold (spec.actions[0].exec)')
    expect(await stored('editor-exec')).toEqual([])
    const pod = await request(app)
      .post('/api/db/playbooks')
      .set(editor.headers)
      .send({ name: 'editor-pod', namespace: 'default', spec: { actions: [{ name: 'p', pod: { name: 'debug', spec: { containers: [] } } }] } })
    expect(pod.status).toBe(403)
    expect(pod.body.message).toBe('pod actions need the exec permission, which you do not hold (spec.actions[0].pod)')

    // Trust is per spec content: a spec no exec holder wrote.
    const plain = await create('editor-http', httpSpec({ title: 'Editor ping' }), editor.headers)
    const sneak = await request(app).patch(`/api/db/playbooks?id=eq.${plain}`).set(editor.headers).send({ spec: execSpec })
    expect(sneak.status).toBe(403)

    await create('admin-exec', execSpec)
    const trusted = async (name: string) =>
      (await db.query(`SELECT 1 FROM playbooks p JOIN lookout.check_spec_trust t ON t.spec_hash = md5(p.spec::text) WHERE p.name = $1 AND p.deleted_at IS NULL`, [name])).rows.length > 0
    expect(await trusted('admin-exec')).toBe(true)
    expect(await trusted('editor-http')).toBe(false)
  })
})

function cli(...args: string[]): Promise<{ code: number; stdout: string; stderr: string }> {
  return new Promise((resolve) => {
    execFile(process.execPath, [path.join(ROOT, 'node_modules/tsx/dist/cli.mjs'), path.join(ROOT, 'bin/lookout.ts'), ...args], {
      env: { ...process.env, LOOKOUT_URL: baseUrl, LOOKOUT_TOKEN: TEST_TOKEN },
    }, (error, stdout, stderr) => resolve({ code: error ? Number(error.code ?? 1) : 0, stdout, stderr }))
  })
}

describe('lookout apply -f and delete -f with Playbook documents', () => {
  it('validates first, creates as ConfigFile, configures, keeps the console out, and deletes', async () => {
    const yaml = (schedule: string, extra = '') => `apiVersion: mission-control.flanksource.com/v1
kind: Playbook
metadata: {name: nightly-report, namespace: ops}
spec:
  title: Nightly report
  category: Reports
  icon: clock
  on:
    schedule:
      - schedule: "${schedule}"
  actions:
    - name: fetch
      http:
        url: http://127.0.0.1:9/report${extra}
`
    const folder = tempFolder({ 'bad.yaml': yaml('8 46 *') })
    try {
      const bad = await cli('apply', '-f', path.join(folder.dir, 'bad.yaml'))
      expect(bad.code).toBe(1)
      expect(bad.stderr).toContain('bad.yaml: spec.on.schedule[0].schedule: invalid cron "8 46 *"')
      expect(await stored('nightly-report')).toEqual([])

      folder.write('good.yaml', yaml('0 2 * * *'))
      folder.remove('bad.yaml')
      const applied = await cli('apply', '-f', folder.dir)
      expect(applied.stderr).toBe('')
      expect(applied.stdout).toContain('playbook ops/nightly-report created')
      folder.write('good.yaml', yaml('CRON_TZ=Europe/Berlin 0 3 * * *'))
      expect((await cli('apply', '-f', folder.dir)).stdout).toContain('playbook ops/nightly-report configured')
      const rows = await stored('nightly-report')
      expect(rows).toHaveLength(1)
      expect(rows[0]).toMatchObject({ source: 'ConfigFile', title: 'Nightly report', spec: { on: { schedule: [{ schedule: 'CRON_TZ=Europe/Berlin 0 3 * * *' }] } } })
      const columns = (await db.query('SELECT category, icon, namespace FROM playbooks WHERE id = $1', [rows[0]!.id])).rows[0]
      expect(columns).toEqual({ category: 'Reports', icon: 'clock', namespace: 'ops' })

      // The file owns it now: the console may not edit what the next apply would overwrite.
      const fromConsole = await request(app).patch(`/api/db/playbooks?id=eq.${rows[0]!.id}`).set(bearer).send({ title: 'edited' })
      expect(fromConsole.status).toBe(409)
      expect(fromConsole.body).toEqual({ error: 'playbook ops/nightly-report was not created through the API and cannot be modified' })
      // ...and the applier may not take over what the console owns.
      const uiOwned = await create('console-owned', httpSpec())
      const takeOver = await request(app).patch(`/api/db/playbooks?id=eq.${uiOwned}`).set(bearer).set('X-Lookout-Source', 'ConfigFile').send({ title: 'x' })
      expect(takeOver.status).toBe(409)

      const removed = await cli('delete', '-f', folder.dir)
      expect(removed.stdout).toContain('playbook ops/nightly-report deleted')
      expect((await stored('nightly-report'))[0]!.deleted_at).not.toBeNull()
      expect((await cli('delete', '-f', folder.dir)).stdout).toContain('playbook ops/nightly-report not found')
    } finally {
      folder.cleanup()
    }
  }, 60_000)
})
