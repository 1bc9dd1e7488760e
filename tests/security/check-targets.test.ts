import http from 'node:http'
import net, { type AddressInfo } from 'node:net'
import type { Express } from 'express'
import request from 'supertest'
import { afterAll, beforeAll, describe, expect, it } from 'vitest'
import type { Db } from '#server/db/client.ts'
import { parseEnv } from '#server/env.ts'
import { parseAllowedTargets, refusalReason, restrictedGuard } from '#server/backend/health/checks/target-guard.ts'
import { TEST_PG_ADMIN_URL } from '#tests/support/test-db.ts'
import { useTestApp } from '#tests/support/use-test-app.ts'
import { bearer, createTestApp } from '#tests/support/test-app.ts'
import { personWith } from '#tests/rbac/rbac-fixture.ts'
import { startLocalServer, testEngine, type LocalServer } from '#tests/health/health-fixtures.ts'

// Issue 10, finding 2: an editor's HTTP, SQL or TCP check ran from the server's own network
// position, so it could read the server's loopback-only admin endpoints, its database (trust
// auth on 127.0.0.1) or the cloud metadata service. Checks of canaries nobody with the exec
// permission vouched for now refuse those addresses where the connection is made.

type Person = { id: string; headers: Record<string, string> }

const testApp = useTestApp()
let db: Db
let app: Express
let lookout: http.Server
let lookoutUrl: string
let peer: LocalServer
let editor: Person
let admin: Person

const REFUSED_SELF = /target (127\.0\.0\.1|\[::1\]):\d+ (\(localhost\) )?is an address of this server; ask an admin to allow it \(LOOKOUT_CHECK_ALLOWED_TARGETS\)/
const REFUSED_METADATA = /target 169\.254\.169\.254:80 is a link-local or cloud metadata address; ask an admin to allow it \(LOOKOUT_CHECK_ALLOWED_TARGETS\)/

beforeAll(async () => {
  db = testApp.db
  app = createTestApp(db).app
  lookout = http.createServer(app)
  await new Promise<void>((resolve) => lookout.listen(0, '127.0.0.1', resolve))
  lookoutUrl = `http://127.0.0.1:${(lookout.address() as AddressInfo).port}`
  peer = await startLocalServer((_req, res) => res.writeHead(200, { 'content-type': 'application/json' }).end('{"secret":"loopback-only"}'))
  editor = await personWith(db, ['editor'])
  admin = await personWith(db, ['admin'])
})

afterAll(async () => {
  await peer?.close()
  await new Promise((resolve) => lookout?.close(resolve))
})

async function writeCanary(who: Person, name: string, spec: Record<string, unknown>): Promise<Map<string, string>> {
  const response = await request(app).post('/api/canary/api/canaries').set(who.headers).send({ name, namespace: 'default', spec: { schedule: '@never', ...spec } })
  expect(response.status, response.text).toBe(201)
  return new Map((response.body.canaries[0].checks as { name: string; id: string }[]).map((check) => [check.name, check.id]))
}

async function runNow(who: Person, checkId: string) {
  const response = await request(app).post(`/api/canary/run/check/${checkId}`).set(who.headers)
  expect(response.status, response.text).toBe(200)
  return response.body as { pass?: boolean; error?: string; detail?: unknown }
}

describe("an editor's checks cannot reach this server", () => {
  it("refuses the server's own loopback listener, a name resolving to loopback, and the metadata address", async () => {
    const checks = await writeCanary(editor, 'editor-probe', {
      http: [
        { name: 'own-api', url: `${lookoutUrl}/api/db/people` },
        { name: 'peer', url: `${peer.url}/admin` },
        { name: 'by-name', url: `http://localhost:${peer.port}/admin` },
        { name: 'metadata', url: 'http://169.254.169.254/latest/meta-data/iam/security-credentials/' },
      ],
      tcp: [{ name: 'port', endpoint: `127.0.0.1:${peer.port}` }],
    })
    const hitsBefore = peer.hits.get('/admin') ?? 0
    for (const name of ['own-api', 'peer', 'by-name', 'port']) {
      const result = await runNow(editor, checks.get(name)!)
      expect(result.pass, name).toBeUndefined()
      expect(result.error, name).toMatch(REFUSED_SELF)
    }
    const metadata = await runNow(editor, checks.get('metadata')!)
    expect(metadata.error).toMatch(REFUSED_METADATA)
    // Nothing was dialled.
    expect(peer.hits.get('/admin') ?? 0).toBe(hitsBefore)
    // The refusal is what the health page shows.
    const { rows } = await db.query<{ error: string }>('SELECT error FROM check_statuses WHERE check_id = $1', [checks.get('peer')])
    expect(rows[0]!.error).toMatch(REFUSED_SELF)
  })

  it("refuses the server's database", async () => {
    const checks = await writeCanary(editor, 'editor-sql', {
      postgres: [{ name: 'db', url: TEST_PG_ADMIN_URL.replace('localhost', '127.0.0.1'), query: 'SELECT 1' }],
    })
    const result = await runNow(editor, checks.get('db')!)
    expect(result.error).toMatch(REFUSED_SELF)
  })

  it("refuses to list this server's files, while an admin's folder check reads them", async () => {
    const editorChecks = await writeCanary(editor, 'editor-folder', { folder: [{ name: 'secrets', path: '/etc' }] })
    const refused = await runNow(editor, editorChecks.get('secrets')!)
    expect(refused.error).toBe("folder checks read this server's files; they run only for canaries written by someone holding the exec permission (ask an admin to save this canary)")
    expect(JSON.stringify(refused)).not.toContain('passwd')

    const adminChecks = await writeCanary(admin, 'admin-folder', { folder: [{ name: 'etc', path: '/etc', minCount: 1 }] })
    expect((await runNow(admin, adminChecks.get('etc')!)).pass).toBe(true)
  })

  it("refuses once an editor changes an admin's canary, and once its author loses exec", async () => {
    const checks = await writeCanary(admin, 'admin-probe', { http: [{ name: 'peer', url: `${peer.url}/ok` }] })
    expect((await runNow(admin, checks.get('peer')!)).pass).toBe(true)

    // The editor keeps the check but points it elsewhere on this host: the new spec is untrusted.
    const patch = await request(app).patch('/api/db/canaries?name=eq.admin-probe').set(editor.headers)
      .send({ spec: { schedule: '@never', http: [{ name: 'peer', url: `${peer.url}/changed` }] } })
    expect(patch.status, patch.text).toBe(204)
    const engine = testEngine(db)
    await engine.syncNow()
    expect((await engine.runNow(checks.get('peer')!))!.error).toMatch(REFUSED_SELF)

    // An admin's own canary, then the admin is demoted: trust is re-checked at run time.
    const former = await personWith(db, ['admin'], 'former-admin')
    const owned = await writeCanary(former, 'former-probe', { http: [{ name: 'peer', url: `${peer.url}/former` }] })
    expect((await testEngine(db).runNow(owned.get('peer')!))!.pass).toBe(true)
    await db.query(`DELETE FROM casbin_rule WHERE ptype = 'g' AND v0 = $1 AND v1 = 'admin'`, [former.id])
    expect((await testEngine(db).runNow(owned.get('peer')!))!.error).toMatch(REFUSED_SELF)
  })
})

describe('admins and the allow-list', () => {
  it("lets an admin's and the bootstrap token's checks reach loopback", async () => {
    const checks = await writeCanary(admin, 'admin-loopback', { http: [{ name: 'peer', url: `${peer.url}/admin-ok` }], tcp: [{ name: 'port', endpoint: `127.0.0.1:${peer.port}` }] })
    expect((await runNow(admin, checks.get('peer')!)).pass).toBe(true)
    expect((await runNow(admin, checks.get('port')!)).pass).toBe(true)
    const byToken = await writeCanary({ id: 'system', headers: bearer }, 'token-loopback', { http: [{ name: 'peer', url: `${peer.url}/token-ok` }] })
    expect((await runNow({ id: 'system', headers: bearer }, byToken.get('peer')!)).pass).toBe(true)
  })

  it("lets an editor's check through to a target an admin allowed, and nothing else", async () => {
    const checks = await writeCanary(editor, 'editor-allowed', {
      http: [{ name: 'peer', url: `${peer.url}/allowed` }, { name: 'own-api', url: `${lookoutUrl}/api/health` }],
    })
    const env = parseEnv({ NODE_ENV: 'test', LOOKOUT_CHECK_ALLOWED_TARGETS: `127.0.0.1:${peer.port}, 10.0.0.0/8` })
    const engine = testEngine(db, { allowedTargets: parseAllowedTargets(env.LOOKOUT_CHECK_ALLOWED_TARGETS) })
    expect((await engine.runNow(checks.get('peer')!))!.pass).toBe(true)
    expect((await engine.runNow(checks.get('own-api')!))!.error).toMatch(REFUSED_SELF)
  })

  it('lets an allowed host name through, dialling only the addresses it checked', async () => {
    const checks = await writeCanary(editor, 'editor-named', { http: [{ name: 'named', url: `http://localhost:${peer.port}/named` }] })
    const engine = testEngine(db, { allowedTargets: parseAllowedTargets(`localhost:${peer.port}`) })
    const result = (await engine.runNow(checks.get('named')!))!
    expect(result.error).toBeUndefined()
    expect(result.pass).toBe(true)
    expect(peer.hits.get('/named')).toBe(1)
  })

  it("does not send a stored connection's credentials to a URL an editor chose", async () => {
    // The connection an admin stored for a real service; editors cannot read connections.
    await db.query(`INSERT INTO connections (name, namespace, type, url, username, password) VALUES ('grafana', 'default', 'http', 'https://grafana.example.invalid', 'svc', 'connection-secret-123')`)
    const checks = await writeCanary(editor, 'editor-exfil', { http: [{ name: 'steal', url: `${peer.url}/collect`, connection: 'connection://default/grafana' }] })
    const engine = testEngine(db, { allowedTargets: parseAllowedTargets(`127.0.0.1:${peer.port}`) })
    const hitsBefore = peer.hits.get('/collect') ?? 0
    const result = (await engine.runNow(checks.get('steal')!))!
    expect(result.invalid).toBe(true)
    expect(result.error).toMatch(/connection connection:\/\/default\/grafana: its credentials go only to its own URL/)
    expect(peer.hits.get('/collect') ?? 0).toBe(hitsBefore)
  })

  it("never lends the server's PGPASSWORD to a fenced postgres check", async () => {
    // A peer that asks for a cleartext password and records what it gets.
    const received: string[] = []
    const fake = net.createServer((socket) => {
      socket.once('data', () => socket.write(Buffer.from([0x52, 0, 0, 0, 8, 0, 0, 0, 3])))
      socket.on('data', (chunk) => {
        if (chunk[0] === 0x70) {
          received.push(chunk.subarray(5, chunk.length - 1).toString('utf8'))
          socket.destroy()
        }
      })
    })
    await new Promise<void>((resolve) => fake.listen(0, '127.0.0.1', resolve))
    const port = (fake.address() as AddressInfo).port
    const saved = process.env.PGPASSWORD
    process.env.PGPASSWORD = 'server-pg-password-xyz'
    try {
      const checks = await writeCanary(editor, 'editor-pgpass', { postgres: [{ name: 'db', url: `postgres://someone@127.0.0.1:${port}/x`, query: 'SELECT 1' }] })
      const engine = testEngine(db, { allowedTargets: parseAllowedTargets(`127.0.0.1:${port}`) })
      await engine.runNow(checks.get('db')!)
      expect(received).toEqual([''])
    } finally {
      if (saved === undefined) delete process.env.PGPASSWORD
      else process.env.PGPASSWORD = saved
      await new Promise((resolve) => fake.close(resolve))
    }
  })

  it('validates the setting', () => {
    expect(() => parseEnv({ NODE_ENV: 'test', LOOKOUT_CHECK_ALLOWED_TARGETS: '127.0.0.1:99999' })).toThrow(/LOOKOUT_CHECK_ALLOWED_TARGETS.*port must be 1-65535/s)
    expect(() => parseEnv({ NODE_ENV: 'test', LOOKOUT_CHECK_ALLOWED_TARGETS: 'not a host' })).toThrow(/not a CIDR, address or host/)
    expect(parseAllowedTargets('[::1]:8080, fe80::/10, grafana.local:3000, 169.254.169.254')).toEqual([
      { kind: 'cidr', family: 'ipv6', network: '::1', prefix: 128, port: 8080, text: '[::1]:8080' },
      { kind: 'cidr', family: 'ipv6', network: 'fe80::', prefix: 10, text: 'fe80::/10' },
      { kind: 'host', host: 'grafana.local', port: 3000, text: 'grafana.local:3000' },
      { kind: 'cidr', family: 'ipv4', network: '169.254.169.254', prefix: 32, text: '169.254.169.254' },
    ])
  })
})

describe('the guard', () => {
  it('knows loopback, unspecified, mapped, link-local and metadata addresses', () => {
    for (const address of ['127.0.0.1', '127.9.9.9', '0.0.0.0', '::1', '::', '::ffff:127.0.0.1']) expect(refusalReason(address), address).toBe('is an address of this server')
    for (const address of ['169.254.169.254', 'fe80::1', 'fd00:ec2::254']) expect(refusalReason(address), address).toBe('is a link-local or cloud metadata address')
    for (const address of ['93.184.216.34', '10.1.2.3', '2606:4700::1111']) expect(refusalReason(address), address).toBeUndefined()
  })

  it('refuses when any resolved address is off limits (a name with a public and a loopback record)', async () => {
    const guard = restrictedGuard([], async () => [{ address: '93.184.216.34', family: 4 }, { address: '127.0.0.1', family: 4 }])
    await expect(guard.admit('mixed.example', 443)).rejects.toThrow(/target 127\.0\.0\.1:443 \(mixed\.example\) is an address of this server/)
    const single = restrictedGuard([], async () => [{ address: '93.184.216.34', family: 4 }])
    await expect(single.admit('public.example', 443)).resolves.toEqual({ address: '93.184.216.34', family: 4, addresses: [{ address: '93.184.216.34', family: 4 }] })
    await expect(single.admit('/var/run/postgresql', 5432)).rejects.toThrow(/local socket of this server/)
  })
})
