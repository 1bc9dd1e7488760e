import { execFile } from 'node:child_process'
import { mkdtempSync, writeFileSync } from 'node:fs'
import http from 'node:http'
import type { AddressInfo } from 'node:net'
import { tmpdir } from 'node:os'
import path from 'node:path'
import type { Express } from 'express'
import request from 'supertest'
import { afterAll, beforeAll, describe, expect, it } from 'vitest'
import type { Db } from '#server/db/client.ts'
import { useTestApp } from '#tests/support/use-test-app.ts'
import { bearer, createTestApp } from '#tests/support/test-app.ts'
import { ROOT } from '#tests/support/processes.ts'
import { personWith } from '#tests/rbac/rbac-fixture.ts'
import { syncCanaries } from '#server/backend/health/canary-sync.ts'

// Issue 10, finding 2: an editor could store an exec check (through any canary write path) and
// have the engine run it as the server's user. Exec is now its own permission.

type Person = { id: string; token: string; headers: Record<string, string> }

const testApp = useTestApp()
let db: Db
let app: Express
let server: http.Server
let baseUrl: string
let editor: Person
let granted: Person
let admin: Person

const EXEC_REFUSAL = /exec checks need the exec permission, which you do not hold/

function canaryYaml(name: string, body: string): string {
  return `apiVersion: canaries.flanksource.com/v1
kind: Canary
metadata: {name: ${name}, namespace: default}
spec:
  schedule: "@never"
${body}`
}
const EXEC_BODY = '  exec: [{name: whoami, script: "id"}]'
const HTTP_BODY = '  http: [{name: web, url: "http://example.invalid/"}]'
const execCanary = (name: string) => ({ name, namespace: 'default', spec: { schedule: '@never', exec: [{ name: 'whoami', script: 'id' }] } })

async function stored(name: string): Promise<Record<string, unknown>[]> {
  const { rows } = await db.query<Record<string, unknown>>(
    `SELECT c.name, c.spec FROM canaries c WHERE c.name = $1 AND c.deleted_at IS NULL
     UNION ALL SELECT p.name, p.spec FROM playbooks p WHERE p.name = $1
     UNION ALL SELECT s.name, s.spec FROM config_scrapers s WHERE s.name = $1
     UNION ALL SELECT t.name, t.spec FROM topologies t WHERE t.name = $1`,
    [name],
  )
  return rows
}

function cli(token: string, ...args: string[]): Promise<{ code: number; stdout: string; stderr: string }> {
  return new Promise((resolve) => {
    execFile(process.execPath, [path.join(ROOT, 'node_modules/tsx/dist/cli.mjs'), path.join(ROOT, 'bin/lookout.ts'), ...args], {
      env: { ...process.env, LOOKOUT_URL: baseUrl, LOOKOUT_TOKEN: token },
    }, (error, stdout, stderr) => resolve({ code: error ? Number(error.code ?? 1) : 0, stdout, stderr }))
  })
}

beforeAll(async () => {
  db = testApp.db
  app = createTestApp(db).app
  server = http.createServer(app)
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve))
  baseUrl = `http://127.0.0.1:${(server.address() as AddressInfo).port}`
  editor = await personWith(db, ['editor'])
  granted = await personWith(db, ['editor'], 'exec-granted')
  admin = await personWith(db, ['admin'])
  const grant = await request(app)
    .post('/api/db/permissions')
    .set(bearer)
    .send({ subject: granted.id, subject_type: 'person', object: 'exec', action: 'exec:run', description: 'runs the nightly exec checks' })
  expect(grant.status, grant.text).toBe(201)
})

afterAll(async () => {
  await new Promise((resolve) => server?.close(resolve))
})

describe('an editor cannot store anything that runs a process', () => {
  it('is refused on the canary API (YAML and JSON, create and update), nothing stored', async () => {
    const yaml = await request(app).post('/api/canary/api/canaries').set(editor.headers).set('Content-Type', 'application/yaml').send(canaryYaml('ed-yaml', EXEC_BODY))
    expect(yaml.status).toBe(403)
    expect(yaml.body.error).toMatch(EXEC_REFUSAL)
    expect(yaml.body.error).toContain('spec.exec')
    const json = await request(app).post('/api/canary/api/canaries').set(editor.headers).send(execCanary('ed-json'))
    expect(json.status).toBe(403)
    // A batch with one exec canary stores none of them.
    const batch = await request(app).post('/api/canary/api/canaries').set(editor.headers).send([
      { name: 'ed-batch-ok', namespace: 'default', spec: { schedule: '@never', http: [{ name: 'w', url: 'http://example.invalid/' }] } },
      execCanary('ed-batch-exec'),
    ])
    expect(batch.status).toBe(403)
    for (const name of ['ed-yaml', 'ed-json', 'ed-batch-ok', 'ed-batch-exec']) expect(await stored(name)).toEqual([])

    // An http canary the editor may write; turning it into exec with PUT is refused.
    const plain = await request(app).post('/api/canary/api/canaries').set(editor.headers).set('Content-Type', 'application/yaml').send(canaryYaml('ed-plain', HTTP_BODY))
    expect(plain.status).toBe(201)
    const put = await request(app).put(`/api/canary/api/canaries/${plain.body.canaries[0].id}`).set(editor.headers).set('Content-Type', 'application/yaml').send(canaryYaml('ed-plain', EXEC_BODY))
    expect(put.status).toBe(403)
    expect(put.body.error).toMatch(EXEC_REFUSAL)
    const [row] = await stored('ed-plain')
    expect(row!.spec).not.toHaveProperty('exec')
    expect((await db.query("SELECT 1 FROM checks k JOIN canaries c ON c.id = k.canary_id WHERE c.name = 'ed-plain' AND k.type = 'exec'")).rows).toEqual([])
  })

  it('is refused on /api/db: POST, and a PATCH that adds exec to an existing spec', async () => {
    const post = await request(app).post('/api/db/canaries').set(editor.headers).send(execCanary('ed-db'))
    expect(post.status).toBe(403)
    expect(post.body).toMatchObject({ code: '42501' })
    expect(post.body.message).toMatch(EXEC_REFUSAL)
    expect(await stored('ed-db')).toEqual([])

    const plain = await request(app).post('/api/db/canaries').set(editor.headers).send({ name: 'ed-db-plain', namespace: 'default', spec: { schedule: '@never', http: [{ name: 'w', url: 'http://example.invalid/' }] } })
    expect(plain.status, plain.text).toBe(201)
    const patch = await request(app).patch('/api/db/canaries?name=eq.ed-db-plain').set(editor.headers).send({ spec: { schedule: '@never', exec: [{ name: 'x', script: 'id' }] } })
    expect(patch.status).toBe(403)
    expect(patch.body.message).toMatch(EXEC_REFUSAL)
    expect((await stored('ed-db-plain'))[0]!.spec).not.toHaveProperty('exec')

    // Nested: an exec check inside a topology component's inline canary, and a checkout block.
    const topology = await request(app).post('/api/db/topologies').set(editor.headers).send({
      name: 'ed-topology', namespace: 'default',
      spec: { components: [{ name: 'api', checks: [{ inline: { exec: [{ name: 'x', script: 'id' }] } }] }] },
    })
    expect(topology.status).toBe(403)
    expect(topology.body.message).toContain('spec.components[0].checks[0].inline.exec')
    expect(await stored('ed-topology')).toEqual([])
  })

  it('is refused for scrapers and playbooks that run processes', async () => {
    const scraper = await request(app).post('/api/db/config_scrapers').set(editor.headers).send({
      name: 'ed-scraper', source: 'UI', spec: { exec: [{ type: 'Host', id: '$.id', name: '$.name', script: 'cat /etc/passwd' }] },
    })
    expect(scraper.status).toBe(403)
    expect(scraper.body.message).toMatch(/exec scrapers need the exec permission, which you do not hold/)
    const playbook = await request(app).post('/api/db/playbooks').set(editor.headers).send({
      name: 'ed-playbook', source: 'UI', spec: { actions: [{ name: 'restart', exec: { script: 'systemctl restart x' } }] },
    })
    expect(playbook.status).toBe(403)
    expect(playbook.body.message).toMatch(/exec actions need the exec permission, which you do not hold \(spec\.actions\[0\]\.exec\)/)
    const pod = await request(app).post('/api/db/playbooks').set(editor.headers).send({
      name: 'ed-pod', source: 'UI', spec: { actions: [{ name: 'debug', pod: { name: 'p', spec: { containers: [{ name: 'c', image: 'busybox', command: ['sh'] }] } } }] },
    })
    expect(pod.status).toBe(403)
    // A spec sent as YAML text is not a playbook spec: the write guard refuses it before anything
    // could store or run it.
    const text = await request(app).post('/api/db/playbooks').set(editor.headers).send({
      name: 'ed-text', source: 'UI', spec: 'actions:\n  - name: a\n    exec:\n      script: id\n',
    })
    expect(text.status).toBe(400)
    expect(text.body.error).toMatch(/^playbook validation failed: /)
    for (const name of ['ed-scraper', 'ed-playbook', 'ed-pod', 'ed-text']) expect(await stored(name)).toEqual([])

    // A playbook without exec is fine, but a PATCH adding an exec action is not.
    const ok = await request(app).post('/api/db/playbooks').set(editor.headers).send({
      name: 'ed-http-playbook', source: 'UI', spec: { actions: [{ name: 'call', http: { url: 'http://example.invalid/' } }] },
    })
    expect(ok.status, ok.text).toBe(201)
    // Playbook writes target one id (http-api §4.6).
    const { rows: [made] } = await db.query<{ id: string }>(`SELECT id FROM playbooks WHERE name = 'ed-http-playbook'`)
    const patch = await request(app).patch(`/api/db/playbooks?id=eq.${made!.id}`).set(editor.headers).send({
      spec: { actions: [{ name: 'call', exec: { script: 'id', checkout: { url: 'https://example.invalid/repo.git' } } }] },
    })
    expect(patch.status).toBe(403)
    expect((await stored('ed-http-playbook'))[0]!.spec).toEqual({ actions: [{ name: 'call', http: { url: 'http://example.invalid/' } }] })
  })

  it("cannot rewrite a check's spec or type directly (Run Now would run it)", async () => {
    const plain = await request(app).post('/api/canary/api/canaries').set(editor.headers).send({ name: 'ed-check', namespace: 'default', spec: { schedule: '@never', http: [{ name: 'w', url: 'http://example.invalid/' }] } })
    expect(plain.status).toBe(201)
    const checkId = plain.body.canaries[0].checks[0].id as string
    const patch = await request(app).patch(`/api/db/checks?id=eq.${checkId}`).set(editor.headers).send({ type: 'exec', spec: { name: 'w', script: 'id' } })
    expect(patch.status).toBe(403)
    expect(patch.body.message).toMatch(/needs the exec permission, which you do not hold/)
    const { rows } = await db.query<{ type: string }>('SELECT type FROM checks WHERE id = $1', [checkId])
    expect(rows[0]!.type).toBe('http')
  })

  it('is refused through the CLI, which shows the reason', async () => {
    const dir = mkdtempSync(path.join(tmpdir(), 'lookout-exec-'))
    const file = path.join(dir, 'exec.yaml')
    writeFileSync(file, canaryYaml('ed-cli', EXEC_BODY))
    const applied = await cli(editor.token, 'apply', '-f', file)
    expect(applied.code).toBe(1)
    expect(applied.stderr).toMatch(EXEC_REFUSAL)
    expect(await stored('ed-cli')).toEqual([])
    const byAdmin = await cli(admin.token, 'apply', '-f', file)
    expect(byAdmin.stderr).toBe('')
    expect(byAdmin.stdout).toContain('canary default/ed-cli created (1 checks)')
  }, 60_000)
})

describe('the engine', () => {
  it('does not run an exec check nobody with exec vouched for, however it reached the table', async () => {
    const { rows: [canary] } = await db.query<{ id: string }>(
      `INSERT INTO canaries (name, namespace, spec, source) VALUES ('raw-exec', 'default', $1, 'UI') RETURNING id`,
      [JSON.stringify({ schedule: '@never', exec: [{ name: 'x', script: 'echo ran' }] })],
    )
    await syncCanaries(db, { wait: true })
    const { rows: [check] } = await db.query<{ id: string }>('SELECT id FROM checks WHERE canary_id = $1', [canary!.id])
    const run = await request(app).post(`/api/canary/run/check/${check!.id}`).set(editor.headers)
    expect(run.status).toBe(200)
    expect(run.body).toMatchObject({ invalid: true })
    expect(run.body.error).toMatch(/exec checks run only for canaries written by someone holding the exec permission/)
    expect(run.body.detail).toBeUndefined()
  })
})

describe('admins and explicitly granted people may', () => {
  it.each([
    ['admin', () => admin],
    ['an editor granted exec', () => granted],
  ])('%s writes exec canaries on every path, and scrapers and playbooks with exec', async (label, who) => {
    const person = who()
    const tag = label === 'admin' ? 'adm' : 'grt'
    const api = await request(app).post('/api/canary/api/canaries').set(person.headers).set('Content-Type', 'application/yaml').send(canaryYaml(`${tag}-api`, EXEC_BODY))
    expect(api.status, api.text).toBe(201)
    expect(api.body.canaries[0].checks.map((check: { type: string }) => check.type)).toEqual(['exec'])
    const db1 = await request(app).post('/api/db/canaries').set(person.headers).send(execCanary(`${tag}-db`))
    expect(db1.status, db1.text).toBe(201)
    const plain = await request(app).post('/api/db/canaries').set(person.headers).send({ name: `${tag}-patch`, namespace: 'default', spec: { schedule: '@never' } })
    expect(plain.status).toBe(201)
    const patch = await request(app).patch(`/api/db/canaries?name=eq.${tag}-patch`).set(person.headers).send({ spec: { schedule: '@never', exec: [{ name: 'x', script: 'true' }] } })
    expect(patch.status, patch.text).toBe(204)
    const scraper = await request(app).post('/api/db/config_scrapers').set(person.headers).send({ name: `${tag}-scraper`, source: 'UI', spec: { exec: [{ type: 'Host', script: 'hostname' }] } })
    expect(scraper.status, scraper.text).toBe(201)
    const playbook = await request(app).post('/api/db/playbooks').set(person.headers).send({ name: `${tag}-playbook`, source: 'UI', spec: { actions: [{ name: 'a', exec: { script: 'id' } }] } })
    expect(playbook.status, playbook.text).toBe(201)
    for (const name of ['api', 'db', 'patch', 'scraper', 'playbook']) expect(await stored(`${tag}-${name}`)).toHaveLength(1)
  })

  it('lets the bootstrap token write exec canaries', async () => {
    const response = await request(app).post('/api/canary/api/canaries').set(bearer).send(execCanary('boot-exec'))
    expect(response.status).toBe(201)
  })

  it("drops the grant's effect once the permission is deleted", async () => {
    const person = await personWith(db, ['editor'], 'revoked')
    const grant = await request(app).post('/api/db/permissions').set(bearer).set('Prefer', 'return=representation')
      .send({ subject: person.id, subject_type: 'person', object: 'exec', action: 'exec:run' })
    expect(grant.status).toBe(201)
    expect((await request(app).post('/api/db/canaries').set(person.headers).send(execCanary('rev-1'))).status).toBe(201)
    expect((await request(app).delete(`/api/db/permissions?id=eq.${grant.body[0].id}`).set(bearer)).status).toBe(204)
    const after = await request(app).post('/api/db/canaries').set(person.headers).send(execCanary('rev-2'))
    expect(after.status).toBe(403)
  })
})
