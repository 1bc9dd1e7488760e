import { execFileSync } from 'node:child_process'
import http from 'node:http'
import net from 'node:net'
import { mkdtemp, rm, writeFile } from 'node:fs/promises'
import { tmpdir } from 'node:os'
import path from 'node:path'
import { SMTPServer } from 'smtp-server'
import request from 'supertest'
import { afterAll, beforeAll, describe, expect, it } from 'vitest'
import { buildNotificationUrl } from '#contract/connections/notification-url.ts'
import { probeConnection, ProbeError } from '#server/backend/connections/connection-probes.ts'
import { useTestApp } from '#tests/support/use-test-app.ts'
import { bearer } from '#tests/support/test-app.ts'
import { personWith, RANDOM_ID } from '#tests/rbac/rbac-fixture.ts'

/** `POST /api/connection/test/{id}` (http-api §2.7.1): real probes against loopback services. */

const PG_URL = process.env.LOOKOUT_TEST_PG_URL ?? 'postgres://postgres@127.0.0.1:5432/postgres'
// Port 1 (tcpmux) has no listener on these machines: a refused connection, at once.
const NOTHING = '127.0.0.1:1'

type Listening = { port: number; close: () => Promise<void> }

function listen(server: net.Server): Promise<Listening> {
  const sockets = new Set<net.Socket>()
  server.on('connection', (socket: net.Socket) => {
    sockets.add(socket)
    socket.on('close', () => sockets.delete(socket))
  })
  return new Promise((resolve) => {
    server.listen(0, '127.0.0.1', () => {
      const { port } = server.address() as net.AddressInfo
      const close = () =>
        new Promise<void>((done) => {
          server.close(() => done())
          for (const socket of sockets) socket.destroy()
        })
      resolve({ port, close })
    })
  })
}

describe('POST /api/connection/test/{id}', () => {
  const testApp = useTestApp()
  let web: Listening
  let smtp: Listening
  let scratch: string
  let seenAuthorization: string | undefined

  beforeAll(async () => {
    web = await listen(
      http.createServer((req, res) => {
        seenAuthorization = req.headers.authorization
        if (req.url === '/broken') {
          res.writeHead(503, { 'content-type': 'text/plain' }).end('down for maintenance')
        } else if (req.url === '/es/') {
          res.writeHead(200, { 'content-type': 'application/json' }).end(JSON.stringify({ cluster_name: 'loopback', version: { number: '8.15.0' } }))
        } else if (req.url === '/prom/api/v1/status/buildinfo') {
          res.writeHead(200, { 'content-type': 'application/json' }).end(JSON.stringify({ status: 'success', data: { version: '2.53.0' } }))
        } else {
          res.writeHead(200, { 'content-type': 'text/plain' }).end('hello')
        }
      }),
    )
    const server = new SMTPServer({
      authOptional: false,
      allowInsecureAuth: true,
      disabledCommands: ['STARTTLS'],
      onAuth(auth, _session, callback) {
        if (auth.username === 'probe' && auth.password === 'mail-s3cret') callback(null, { user: 'probe' })
        else callback(new Error('Invalid username or password'))
      },
    })
    smtp = await listen(server.server as unknown as net.Server)
    // smtp-server keeps its own close; the net server above is the one listening.
    smtp.close = () => new Promise((done) => server.close(() => done()))
    scratch = await mkdtemp(path.join(tmpdir(), 'lookout-connection-test-'))
    const work = path.join(scratch, 'work')
    const git = (...args: string[]) => execFileSync('git', ['-c', 'user.name=probe', '-c', 'user.email=probe@example.test', '-c', 'init.defaultBranch=main', ...args], { cwd: scratch, stdio: 'pipe' })
    git('init', '-q', work)
    await writeFile(path.join(work, 'README'), 'hello\n')
    git('-C', work, 'add', 'README')
    git('-C', work, 'commit', '-q', '-m', 'first')
    git('clone', '-q', '--bare', work, path.join(scratch, 'repo.git'))
  })

  afterAll(async () => {
    await web?.close()
    await smtp?.close()
    if (scratch) await rm(scratch, { recursive: true, force: true })
  })

  async function create(row: Record<string, unknown>): Promise<string> {
    const response = await request(testApp.app)
      .post('/api/db/connections')
      .set(bearer)
      .set('Prefer', 'return=representation')
      .send({ namespace: 'default', insecure_tls: false, ...row })
    expect(response.status, JSON.stringify(response.body)).toBe(201)
    return (response.body as { id: string }[])[0]!.id
  }

  async function test(id: string, headers: Record<string, string> = bearer) {
    return request(testApp.app).post(`/api/connection/test/${id}`).set(headers)
  }

  async function expectOk(row: Record<string, unknown>) {
    const response = await test(await create(row))
    expect(response.status, JSON.stringify(response.body)).toBe(200)
    expect(response.body.message).toBe('ok')
    return response.body as { message: string; payload: { payload?: Record<string, unknown>; entries?: { request: { url: string; headers: { name: string; value: string }[] }; response: { status: number; content: { text?: string } } }[] } }
  }

  async function expectFailure(row: Record<string, unknown>, pattern: RegExp) {
    const response = await test(await create(row))
    expect(response.status, JSON.stringify(response.body)).toBe(400)
    expect(response.body.error).toMatch(pattern)
    return response.body as { error: string }
  }

  describe('HTTP-speaking types', () => {
    it('http: 200 with the HAR entry of the request, credentials sent but redacted', async () => {
      const body = await expectOk({ name: 'web-ok', type: 'http', url: `http://127.0.0.1:${web.port}/hello`, username: 'alice', password: 'web-s3cret' })
      expect(seenAuthorization).toBe(`Basic ${Buffer.from('alice:web-s3cret').toString('base64')}`)
      const [entry] = body.payload.entries!
      expect(entry!.request.url).toBe(`http://127.0.0.1:${web.port}/hello`)
      expect(entry!.request.headers).toContainEqual({ name: 'authorization', value: '[REDACTED]' })
      expect(entry!.response.status).toBe(200)
      expect(entry!.response.content.text).toBe('hello')
      expect(JSON.stringify(body)).not.toContain('web-s3cret')
    })

    it('http: a 503 answer is a 400 naming the status', async () => {
      await expectFailure({ name: 'web-broken', type: 'http', url: `http://127.0.0.1:${web.port}/broken` }, /503 Service Unavailable/)
    })

    it('http: nothing listening is a 400 with the socket error', async () => {
      await expectFailure({ name: 'web-gone', type: 'http', url: `http://${NOTHING}/` }, /ECONNREFUSED/)
    })

    it('elasticsearch: the cluster answers its name and version', async () => {
      const body = await expectOk({ name: 'es-ok', type: 'elasticsearch', url: `http://127.0.0.1:${web.port}/es` })
      expect(body.payload.payload).toEqual({ cluster_name: 'loopback', version: '8.15.0' })
      expect(body.payload.entries).toHaveLength(1)
    })

    it('elasticsearch and opensearch: nothing listening', async () => {
      await expectFailure({ name: 'es-gone', type: 'elasticsearch', url: `http://${NOTHING}` }, /ECONNREFUSED/)
      await expectFailure({ name: 'os-gone', type: 'opensearch', url: `http://${NOTHING}` }, /ECONNREFUSED/)
    })

    it('prometheus: buildinfo answers, or a server that is no prometheus fails', async () => {
      const body = await expectOk({ name: 'prom-ok', type: 'prometheus', url: `http://127.0.0.1:${web.port}/prom` })
      expect(body.payload.payload).toEqual({ version: '2.53.0' })
      await expectFailure({ name: 'prom-not', type: 'prometheus', url: `http://127.0.0.1:${web.port}/` }, /did not answer as Prometheus/)
    })
  })

  describe('databases through the health checks', () => {
    it('postgres: the URL plus the row credentials log in; a wrong port fails', async () => {
      const url = new URL(PG_URL)
      await expectOk({ name: 'pg-ok', type: 'postgres', url: `postgres://${url.host}${url.pathname}`, username: decodeURIComponent(url.username) || 'postgres', password: '' })
      await expectOk({ name: 'pg-templated', type: 'postgres', url: `postgres://$(username)@${url.host}${url.pathname}`, username: decodeURIComponent(url.username) || 'postgres' })
      await expectFailure({ name: 'pg-gone', type: 'postgres', url: `postgres://postgres@${NOTHING}/postgres` }, /failed to execute query: .*ECONNREFUSED/)
    })

    it('mysql: root without a password logs in; an unknown user is refused', async () => {
      await expectOk({ name: 'my-ok', type: 'mysql', url: 'mysql://root@127.0.0.1:3306/' })
      await expectFailure({ name: 'my-denied', type: 'mysql', url: 'mysql://nobody-here:wrong@127.0.0.1:3306/' }, /Access denied/)
    })

    it('redis: PING answers PONG; nothing listening fails', async () => {
      const body = await expectOk({ name: 'redis-ok', type: 'redis', url: 'redis://127.0.0.1:6379', properties: { db: '0' } })
      expect(body.payload.payload).toEqual({ reply: 'PONG' })
      // ioredis reports a refused connection as the closed connection the PING found.
      await expectFailure({ name: 'redis-gone', type: 'redis', url: NOTHING }, /failed to execute query: Connection is closed/)
    })

    it('mongo: nothing listening fails with the driver error', async () => {
      await expectFailure({ name: 'mongo-gone', type: 'mongo', url: `mongodb://${NOTHING}/admin` }, /failed to ping mongodb: .*ECONNREFUSED/)
    }, 15_000)

    it('sql server: nothing listening fails naming the server', async () => {
      await expectFailure({ name: 'mssql-gone', type: 'sql_server', url: `sqlserver://sa:pw@${NOTHING}?database=master` }, /failed to connect to SQL Server 127\.0\.0\.1:1: Failed to connect to 127\.0\.0\.1:1/)
    })
  })

  describe('other protocols', () => {
    it('smtp: the e-mail connection logs in to the server; a wrong password is refused', async () => {
      const url = (password: string) =>
        buildNotificationUrl('email', {
          host: '127.0.0.1',
          port: smtp.port,
          username: { value: 'probe' },
          password: { value: password },
          fromAddress: 'lookout@example.test',
          fromName: 'Lookout',
          encryption: 'None',
          auth: 'Plain',
        })
      await expectOk({ name: 'mail-ok', type: 'email', url: url('mail-s3cret') })
      const failure = await expectFailure({ name: 'mail-denied', type: 'email', url: url('wrong-pass') }, /Invalid username or password/)
      expect(failure.error).not.toContain('wrong-pass')
    })

    it('ldap: nothing listening fails', async () => {
      await expectFailure({ name: 'ldap-gone', type: 'ldap', url: `ldap://${NOTHING}`, username: 'cn=admin,dc=example,dc=org', password: 'x' }, /LDAP 127\.0\.0\.1:1: .*ECONNREFUSED/)
    })

    it('sftp: nothing listening fails', async () => {
      await expectFailure({ name: 'sftp-gone', type: 'sftp', url: '127.0.0.1', username: 'u', password: 'p', properties: { port: '1' } }, /SFTP 127\.0\.0\.1:1: .*ECONNREFUSED/)
    })

    it('git: ls-remote of a bare repository over file:// finds the ref, or says it is missing', async () => {
      const body = await expectOk({ name: 'git-ok', type: 'git', url: `file://${scratch}/repo.git`, properties: { ref: 'main' } })
      expect(body.payload.payload).toEqual({ refs: 2 })
      await expectFailure({ name: 'git-noref', type: 'git', url: `file://${scratch}/repo.git`, properties: { ref: 'release' } }, /has no ref release/)
      await expectFailure({ name: 'git-gone', type: 'git', url: `file://${scratch}/missing.git`, properties: { ref: 'main' } }, /does not appear to be a git repository/)
    })

    it('folder: an existing folder passes; a missing one fails', async () => {
      await expectOk({ name: 'folder-ok', type: 'folder', properties: { path: scratch } })
      await expectFailure({ name: 'folder-gone', type: 'folder', properties: { path: path.join(scratch, 'nope') } }, /no such folder/)
    })

    it('a type without a probe says so', async () => {
      await expectFailure({ name: 'slack-x', type: 'slack', url: 'slack://xoxb:token@C0123' }, /testing slack connections is not supported/)
    })
  })

  describe('answers', () => {
    it('404 for an unknown or malformed id', async () => {
      const unknown = await test(RANDOM_ID)
      expect(unknown.status).toBe(404)
      expect(unknown.body).toEqual({ error: 'connection was not found' })
      expect((await test('not-a-uuid')).status).toBe(404)
    })

    it('403 for a caller without connection:update', async () => {
      const id = await create({ name: 'guarded', type: 'http', url: `http://127.0.0.1:${web.port}/` })
      const viewer = await personWith(testApp.db, ['viewer'], 'conn-viewer')
      const response = await test(id, viewer.headers)
      expect(response.status).toBe(403)
      expect(response.headers['x-rbac-object']).toBe('connection')
      expect(response.headers['x-rbac-action']).toBe('update')
    })

    it("a connection editor without exec is fenced like an untrusted canary: not this server's addresses, files or local repositories", async () => {
      // The role matrix lets editors read connections only; writing them is granted on its own.
      const editor = await personWith(testApp.db, ['editor'], 'conn-editor')
      await testApp.db.query(`INSERT INTO permissions (subject_type, subject, object, action) VALUES ('person', $1, 'connection', 'update')`, [editor.id])
      testApp.backend.authorizer.invalidate()
      const local = await test(await create({ name: 'fenced-web', type: 'http', url: `http://127.0.0.1:${web.port}/` }), editor.headers)
      expect(local.status).toBe(400)
      expect(local.body.error).toMatch(/LOOKOUT_CHECK_ALLOWED_TARGETS/)
      const pg = await test(await create({ name: 'fenced-pg', type: 'postgres', url: PG_URL }), editor.headers)
      expect(pg.status).toBe(400)
      expect(pg.body.error).toMatch(/LOOKOUT_CHECK_ALLOWED_TARGETS/)
      const folder = await test(await create({ name: 'fenced-folder', type: 'folder', properties: { path: scratch } }), editor.headers)
      expect(folder.body.error).toMatch(/needs the exec permission/)
      const git = await test(await create({ name: 'fenced-git', type: 'git', url: `file://${scratch}/repo.git` }), editor.headers)
      expect(git.body.error).toMatch(/needs the exec permission/)
    })

    it('a Secret reference is stored as written and testing says it needs Kubernetes', async () => {
      await expectFailure({ name: 'k8s-secret', type: 'postgres', url: PG_URL, password: 'secret://pg-creds/password' }, /secret:\/\/pg-creds\/password; resolving Secret and Config Map references needs Kubernetes/)
    })
  })

  it('a probe that gets no answer ends at its timeout', async () => {
    const silent = await listen(net.createServer(() => undefined))
    try {
      const started = performance.now()
      const outcome = probeConnection(
        { id: RANDOM_ID, name: 'silent', namespace: 'default', type: 'http', url: `http://127.0.0.1:${silent.port}/`, username: null, password: null, certificate: null, properties: {}, insecureTls: false },
        { timeoutMs: 300 },
      )
      await expect(outcome).rejects.toThrow(ProbeError)
      await expect(outcome).rejects.toThrow(/timed out after 300 ms/)
      expect(performance.now() - started).toBeLessThan(5_000)
    } finally {
      await silent.close()
    }
  })
})
