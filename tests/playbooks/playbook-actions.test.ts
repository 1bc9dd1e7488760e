import { execFileSync } from 'node:child_process'
import { mkdtemp, rm, writeFile } from 'node:fs/promises'
import type { AddressInfo } from 'node:net'
import { tmpdir } from 'node:os'
import path from 'node:path'
import net from 'node:net'
import type { Server } from 'node:http'
import express from 'express'
import mysql from 'mysql2/promise'
import pino from 'pino'
import { afterAll, beforeAll, describe, expect, it } from 'vitest'
import { executeAction } from '#server/backend/playbooks/actions/index.ts'
import type { LogLine } from '#server/backend/logs/log-line.ts'
import { structureLines } from '#server/backend/logs/log-line-parsers.ts'
import { dedupeLines, matchLines } from '#server/backend/logs/log-post-processing.ts'
import type { ActionContext, PlaybookActionSpec, PlaybookRunActionRow, PlaybookRunRow, PlaybookSpec, PlaybookTemplateEnv } from '#server/backend/playbooks/playbook-model.ts'
import { sealSecret } from '#server/backend/secrets/sealed-secrets.ts'
import { createPlaybookRunner } from '#server/backend/playbooks/playbook-runner.ts'
import { loadTemplateEnv } from '#server/backend/playbooks/playbook-template.ts'
import type { Db } from '#server/db/client.ts'
import { createTestDb, TEST_PG_ADMIN_URL, type TestDb } from '#tests/support/test-db.ts'
import { actionsOf, playbookRun, waitForFinal } from './playbook-runner-fixtures.ts'

let testDb: TestDb
let db: Db
let server: Server
let base: string
const received: { path: string; method: string; headers: Record<string, unknown>; body: string; query: Record<string, unknown> }[] = []
const logger = pino({ level: 'silent' })

const run = { id: '00000000-0000-0000-0000-0000000000a1', playbook_id: '00000000-0000-0000-0000-0000000000b1' } as PlaybookRunRow
const row = { id: '00000000-0000-0000-0000-0000000000c1', name: 'step' } as PlaybookRunActionRow

function envOf(extra: Partial<PlaybookTemplateEnv> = {}): PlaybookTemplateEnv {
  return { params: { name: 'web' }, env: {}, playbook: { name: 'p', namespace: 'default' }, run: { id: run.id }, actions: [], secrets: [], ...extra }
}

function contextOf(extra: Partial<ActionContext> = {}): ActionContext {
  return { db, logger, signal: new AbortController().signal, run, action: row, env: envOf(), trusted: true, ...extra }
}

const action = (spec: Omit<PlaybookActionSpec, 'name'>): PlaybookActionSpec => ({ name: 'step', ...spec })

beforeAll(async () => {
  testDb = await createTestDb()
  db = testDb.db
  const app = express()
  app.use(express.text({ type: () => true }))
  app.all('/echo/:status', (request, response) => {
    received.push({ path: request.path, method: request.method, headers: request.headers, body: typeof request.body === 'string' ? request.body : '', query: request.query })
    response.status(Number(request.params.status)).set('X-Answer', 'yes').json({ ok: Number(request.params.status) < 400, method: request.method })
  })
  // A git smart-HTTP server that wants credentials: it records what git sends once challenged.
  app.get(/^\/git\//, (request, response) => {
    received.push({ path: request.path, method: request.method, headers: request.headers, body: '', query: request.query })
    if (!request.headers.authorization) response.status(401).set('WWW-Authenticate', 'Basic realm="git"').end()
    else response.status(404).end()
  })
  app.post('/hook', (request, response) => {
    received.push({ path: request.path, method: request.method, headers: request.headers, body: String(request.body), query: request.query })
    response.status(204).end()
  })
  // Loki's query_range answer for a log query (resultType streams).
  app.get('/loki/api/v1/query_range', (request, response) => {
    received.push({ path: request.path, method: request.method, headers: request.headers, body: '', query: request.query })
    const end = BigInt(String(request.query.end))
    if (String(request.query.query).includes('structured')) {
      const at = (seconds: bigint) => `${end - seconds * 1_000_000_000n}`
      response.json({
        status: 'success',
        data: {
          resultType: 'streams',
          result: [
            {
              stream: { app: 'api' },
              values: [
                [at(1n), 'ts=2026-01-01T10:00:00Z level=error msg="db down" host=api-1 trace=abc'],
                [at(2n), '{"time":"2026-01-01T10:00:01Z","level":"info","msg":"ok","http":{"status":200}}'],
                [at(3n), 'E0101 10:00:02.123456    7 main.go:42] "reconcile failed" object="web" err="timeout"'],
                [at(4n), '<11>1 2026-01-01T10:00:03Z api-2 apiserver 12 - - disk full'],
                [at(5n), 'no structure here'],
              ],
            },
          ],
          stats: {},
        },
      })
      return
    }
    response.json({
      status: 'success',
      data: {
        resultType: 'streams',
        result: [
          { stream: { app: 'web', level: 'error' }, values: [[`${end - 1_000_000_000n}`, 'timeout talking to db'], [`${end - 3_000_000_000n}`, 'timeout talking to db']] },
          { stream: { app: 'web', level: 'info' }, values: [[`${end - 2_000_000_000n}`, 'request served']] },
        ],
        stats: {},
      },
    })
  })
  // OpenSearch's _search answer.
  app.post('/logs-2026/_search', (request, response) => {
    received.push({ path: request.path, method: request.method, headers: request.headers, body: String(request.body), query: request.query })
    response.json({
      took: 3,
      timed_out: false,
      hits: {
        total: { value: 2, relation: 'eq' },
        max_score: null,
        hits: [
          { _index: 'logs-2026', _id: '1', _score: null, _source: { '@timestamp': '2026-01-01T00:02:00Z', message: 'disk full', host: { name: 'db-1' } } },
          { _index: 'logs-2026', _id: '2', _score: null, _source: { '@timestamp': '2026-01-01T00:01:00Z', message: 'disk almost full', host: { name: 'db-1' } } },
        ],
      },
    })
  })
  // Prometheus' instant and range answers.
  app.get('/api/v1/query', (request, response) => {
    received.push({ path: request.path, method: request.method, headers: request.headers, body: '', query: request.query })
    if (request.query.query === 'bad(') {
      response.status(400).json({ status: 'error', errorType: 'bad_data', error: 'parse error: unexpected end of input' })
      return
    }
    response.json({ status: 'success', data: { resultType: 'vector', result: [{ metric: { __name__: 'up', job: 'api' }, value: [1_700_000_000.5, '1'] }] } })
  })
  app.get('/api/v1/query_range', (request, response) => {
    received.push({ path: request.path, method: request.method, headers: request.headers, body: '', query: request.query })
    response.json({ status: 'success', data: { resultType: 'matrix', result: [{ metric: { job: 'api' }, values: [[1_700_000_000, '1'], [1_700_000_060, '0.5']] }] } })
  })
  server = await new Promise<Server>((resolve) => {
    const listening = app.listen(0, '127.0.0.1', () => resolve(listening))
  })
  base = `http://127.0.0.1:${(server.address() as AddressInfo).port}`
})

afterAll(async () => {
  await new Promise((resolve) => server?.close(resolve))
  await testDb?.drop()
})

describe('exec', () => {
  it('runs bash with env, returns stdout, stderr, exit code, path and args', async () => {
    const outcome = await executeAction(
      action({ exec: { script: 'echo "hi $WHO {{.params.name}}"; echo oops >&2', env: [{ name: 'WHO', value: 'there' }] } }),
      contextOf(),
    )
    expect(outcome.error).toBeUndefined()
    expect(outcome.result).toMatchObject({ stdout: 'hi there web', stderr: 'oops', exitCode: 0, path: 'bash' })
    expect(outcome.result.args).toEqual(['-c', 'echo "hi $WHO web"; echo oops >&2'])
  })

  it('fails on a non-zero exit with stderr, or the exit code without it', async () => {
    const withStderr = await executeAction(action({ exec: { script: 'echo broken >&2; exit 3' } }), contextOf())
    expect(withStderr.error).toBe('broken')
    expect(withStderr.result.exitCode).toBe(3)
    const bare = await executeAction(action({ exec: { script: 'exit 4' } }), contextOf())
    expect(bare.error).toBe('exit code 4')
  })

  it('collects artifacts from its own working directory, and stdout', async () => {
    const outcome = await executeAction(
      action({ exec: { script: 'mkdir out && echo report > out/report.txt && echo "{}" > out/data.json && pwd', artifacts: [{ path: 'out/*' }, { path: '/dev/stdout' }] } }),
      contextOf(),
    )
    expect(outcome.error).toBeUndefined()
    const artifacts = outcome.artifacts ?? []
    expect(artifacts.map((artifact) => [artifact.path, artifact.filename, artifact.contentType])).toEqual([
      ['out/data.json', 'data.json', 'application/json'],
      ['out/report.txt', 'report.txt', 'text/plain'],
      ['/dev/stdout', 'stdout.txt', 'text/plain'],
    ])
    expect(artifacts[1]!.content.toString()).toBe('report\n')
    expect(String(outcome.result.stdout)).toMatch(/lookout-playbook-/)
  })

  it('caps stdout at 1 MiB', async () => {
    const outcome = await executeAction(action({ exec: { script: 'head -c 3000000 /dev/zero | tr "\\0" x' } }), contextOf())
    expect(outcome.error).toBeUndefined()
    const length = String(outcome.result.stdout).length
    expect(length).toBeGreaterThan(0)
    expect(length).toBeLessThanOrEqual(1024 * 1024)
  })

  it('runs a shebang script with its interpreter in the working directory', async () => {
    const outcome = await executeAction(action({ exec: { script: '#!/bin/sh\necho "from $(basename "$PWD" | cut -c1-16)"' } }), contextOf())
    expect(outcome.error).toBeUndefined()
    expect(outcome.result.stdout).toBe('from lookout-playbook')
    expect(outcome.result.path).toBe('/bin/sh')
  })

  it('redacts secret parameters in its output, with the secret decrypted from the stored run', async () => {
    const spec: PlaybookSpec = { parameters: [{ name: 'password', type: 'secret' }], actions: [{ name: 'leak', exec: { script: 'echo "pw={{.params.password}}"' } }] }
    const playbookId = (await db.query<{ id: string }>(`INSERT INTO playbooks (name, spec, source) VALUES ('leaky', $1, 'UI') RETURNING id`, [JSON.stringify(spec)])).rows[0]!.id
    const stored = await sealSecret(db, 'correct-horse')
    const inserted = (await db.query<PlaybookRunRow>(`INSERT INTO playbook_runs (playbook_id, spec, status, parameters) VALUES ($1, $2, 'running', $3) RETURNING *`, [playbookId, JSON.stringify(spec), JSON.stringify({ password: stored })])).rows[0]!
    const env = await loadTemplateEnv(db, inserted)
    const outcome = await executeAction(spec.actions[0]!, contextOf({ run: inserted, env }))
    expect(outcome.result.stdout).toBe('pw=[REDACTED]')
    expect(JSON.stringify(outcome.result)).not.toContain('correct-horse')
  })

  it('refuses to run for a playbook no exec holder wrote', async () => {
    const outcome = await executeAction(action({ exec: { script: 'echo hi' } }), contextOf({ trusted: false }))
    expect(outcome.error).toMatch(/exec permission/)
  })

  it('injects aws connection credentials', async () => {
    await db.query(`INSERT INTO connections (name, namespace, type, username, password, properties) VALUES ('aws-main', 'default', 'aws', 'AKIAEXAMPLE', 'secret-key', '{"region":"eu-west-1"}')`)
    const outcome = await executeAction(action({ exec: { script: 'echo "$AWS_ACCESS_KEY_ID $AWS_REGION"', connections: { aws: { connection: 'connection://default/aws-main' } } } }), contextOf())
    expect(outcome.result.stdout).toBe('AKIAEXAMPLE eu-west-1')
  })

  it('writes a kubeconfig for a kubernetes connection outside the working directory, and refuses kinds it cannot honour', async () => {
    const outcome = await executeAction(
      action({ exec: { script: 'cat "$KUBECONFIG"; case "$KUBECONFIG" in "$PWD"/*) echo inside;; *) echo outside;; esac', connections: { kubernetes: { kubeconfig: { value: 'apiVersion: v1' } } } } }),
      contextOf(),
    )
    expect(outcome.result.stdout).toBe('apiVersion: v1outside')
    const refused = await executeAction(action({ exec: { script: 'true', connections: { eksPodIdentity: true } } }), contextOf())
    expect(refused.error).toMatch(/connections.eksPodIdentity is not supported here/)
  })
})

describe('exec checkout and setup', () => {
  it('clones the repository (branch, depth) as the working directory before the script runs', async () => {
    const origin = await mkdtemp(path.join(tmpdir(), 'lookout-origin-'))
    try {
      const git = (args: string[]) => execFileSync('git', ['-C', origin, '-c', 'user.name=t', '-c', 'user.email=t@example.com', ...args], { stdio: 'pipe' })
      git(['init', '--quiet', '--initial-branch', 'main'])
      await writeFile(path.join(origin, 'README'), 'first\n')
      git(['add', 'README'])
      git(['commit', '--quiet', '-m', 'one'])
      git(['checkout', '--quiet', '-b', 'release'])
      await writeFile(path.join(origin, 'README'), 'released\n')
      git(['commit', '--quiet', '-am', 'two'])
      const outcome = await executeAction(
        action({ exec: { script: 'cat README; git rev-list --count HEAD; git rev-parse --abbrev-ref HEAD', checkout: { url: `file://${origin}`, branch: 'release', depth: 1 } } }),
        contextOf(),
      )
      expect(outcome.error).toBeUndefined()
      expect(String(outcome.result.stdout).split('\n')).toEqual(['released', '1', 'release'])
      const into = await executeAction(action({ exec: { script: 'basename "$PWD"; cat README', checkout: { url: `file://${origin}`, destination: 'src/app' } } }), contextOf())
      expect(into.result.stdout).toBe('app\nreleased')
      const outside = await executeAction(action({ exec: { script: 'true', checkout: { url: `file://${origin}`, destination: '../elsewhere' } } }), contextOf())
      expect(outside.error).toBe("exec.checkout.destination must be a folder inside the action's working directory")
      const missing = await executeAction(action({ exec: { script: 'true', checkout: { url: `file://${origin}`, branch: 'no-such-branch' } } }), contextOf())
      expect(missing.error).toMatch(/^exec\.checkout: cloning file:\/\/.* \(branch no-such-branch\) failed: .*no-such-branch/)
    } finally {
      await rm(origin, { recursive: true, force: true })
    }
  })

  it('answers a credentials challenge from the connection without putting the password in argv or the error', async () => {
    await db.query(`INSERT INTO connections (name, namespace, type, url, username, password) VALUES ('repo', 'default', 'git', $1, 'deployer', 's3cr3t-token')`, [`${base}/git/app.git`])
    received.length = 0
    const outcome = await executeAction(action({ exec: { script: 'true', checkout: { connection: 'connection://default/repo' } } }), contextOf())
    const challenged = received.find((entry) => entry.headers.authorization)
    expect(challenged?.headers.authorization).toBe(`Basic ${Buffer.from('deployer:s3cr3t-token').toString('base64')}`)
    expect(outcome.error).toMatch(/^exec\.checkout: cloning http:\/\/127\.0\.0\.1:\d+\/git\/app\.git failed/)
    expect(outcome.error).not.toContain('s3cr3t-token')
  })

  it('uses a runtime the server has, and says so when it has not', async () => {
    const ok = await executeAction(action({ exec: { script: 'echo ok', setup: { python: { version: '3' } } } }), contextOf())
    expect(ok.error).toBeUndefined()
    const missing = await executeAction(action({ exec: { script: 'echo ok', setup: { bun: { version: 'latest' } } } }), contextOf())
    expect(missing.error).toBe('exec.setup.bun: bun is not installed on this server (Lookout does not download runtimes; install it where the playbook runner runs)')
  })
})

describe('http', () => {
  it('answers {code, headers, content}; a non-2xx status does not fail the action', async () => {
    const ok = await executeAction(action({ http: { url: `${base}/echo/200?who={{.params.name}}`, method: 'post', body: { hello: 'world' } } }), contextOf())
    expect(ok.error).toBeUndefined()
    expect(ok.result.code).toBe(200)
    expect((ok.result.headers as Record<string, string>)['x-answer']).toBe('yes')
    expect(JSON.parse(String(ok.result.content))).toEqual({ ok: true, method: 'POST' })
    expect(received.at(-1)).toMatchObject({ method: 'POST', body: '{"hello":"world"}', query: { who: 'web' } })

    const notFound = await executeAction(action({ http: { url: `${base}/echo/404` } }), contextOf())
    expect(notFound.error).toBeUndefined()
    expect(notFound.result.code).toBe(404)
  })

  it('templates the body only with templateBody, and sends connection credentials', async () => {
    await db.query(`INSERT INTO connections (name, namespace, type, url, username, password) VALUES ('echo', 'default', 'http', $1, 'svc', 'pw')`, [`${base}/echo/201`])
    await executeAction(action({ http: { connection: 'connection://echo', body: 'name={{.params.name}}', headers: [{ name: 'X-Name', value: '{{.params.name}}' }] } }), contextOf())
    expect(received.at(-1)).toMatchObject({ body: 'name={{.params.name}}', headers: { 'x-name': 'web', authorization: `Basic ${Buffer.from('svc:pw').toString('base64')}` } })
    await executeAction(action({ http: { connection: 'connection://echo', method: 'PUT', templateBody: true, body: 'name={{.params.name}}' } }), contextOf())
    expect(received.at(-1)).toMatchObject({ method: 'PUT', body: 'name=web' })
  })

  it('fences a playbook no exec holder wrote off this server\'s own addresses', async () => {
    const before = received.length
    const outcome = await executeAction(action({ http: { url: `${base}/echo/200` } }), contextOf({ trusted: false }))
    expect(outcome.error).toMatch(/is an address of this server/)
    expect(received.length).toBe(before)
  })
})

describe('sql', () => {
  it('queries PostgreSQL and answers {query, rows, count, columns} with values as text', async () => {
    const outcome = await executeAction(
      action({ sql: { url: TEST_PG_ADMIN_URL, query: `SELECT 1 AS one, 'x' AS two, true AS flag, NULL AS nothing, '{{.params.name}}' AS name UNION ALL SELECT 2, 'y', false, NULL, 'z'` } }),
      contextOf(),
    )
    expect(outcome.error).toBeUndefined()
    expect(outcome.result).toEqual({
      query: `SELECT 1 AS one, 'x' AS two, true AS flag, NULL AS nothing, 'web' AS name UNION ALL SELECT 2, 'y', false, NULL, 'z'`,
      rows: [
        { one: '1', two: 'x', flag: 't', nothing: null, name: 'web' },
        { one: '2', two: 'y', flag: 'f', nothing: null, name: 'z' },
      ],
      count: 2,
      columns: ['one', 'two', 'flag', 'nothing', 'name'],
    })
  })

  it('fails with the database\'s error', async () => {
    const outcome = await executeAction(action({ sql: { url: TEST_PG_ADMIN_URL, query: 'SELECT * FROM no_such_table' } }), contextOf())
    expect(outcome.error).toMatch(/failed to execute query: relation "no_such_table" does not exist/)
  })

  it('is fenced like http when untrusted', async () => {
    const outcome = await executeAction(action({ sql: { url: TEST_PG_ADMIN_URL, query: 'SELECT 1' } }), contextOf({ trusted: false }))
    expect(outcome.error).toMatch(/is an address of this server/)
  })

  it('queries MySQL/MariaDB when it runs on 127.0.0.1:3306', async (test) => {
    const reachable = await mysql
      .createConnection({ host: '127.0.0.1', port: 3306, user: 'root', connectTimeout: 2_000 })
      .then(async (connection) => {
        await connection.query('CREATE DATABASE IF NOT EXISTS test')
        await connection.end()
        return true
      })
      .catch(() => false)
    if (!reachable) test.skip('MariaDB is not reachable on 127.0.0.1:3306 (root, no password)')
    const outcome = await executeAction(action({ sql: { url: 'mysql://root@127.0.0.1:3306/test', query: "SELECT 1 AS one, 'x' AS two, NULL AS nothing" } }), contextOf())
    expect(outcome.error).toBeUndefined()
    expect(outcome.result).toMatchObject({ rows: [{ one: '1', two: 'x', nothing: null }], count: 1, columns: ['one', 'two', 'nothing'] })
  })
})

describe('notification', () => {
  it('posts to a generic webhook and answers {title, message}', async () => {
    const url = `generic+http://127.0.0.1:${(server.address() as AddressInfo).port}/hook`
    const outcome = await executeAction(action({ notification: { url, title: 'Restart of {{.params.name}}', message: 'done' } }), contextOf())
    expect(outcome.error).toBeUndefined()
    expect(outcome.result).toEqual({ title: 'Restart of web', message: 'done' })
    expect(JSON.parse(received.at(-1)!.body)).toEqual({ title: 'Restart of web', message: 'done' })
  })

  it('runs beside a primary action, after it, even when it failed', async () => {
    const url = `generic+http://127.0.0.1:${(server.address() as AddressInfo).port}/hook`
    const outcome = await executeAction(action({ exec: { script: 'echo nope >&2; exit 1' }, notification: { url, title: 'failed', message: '{{.params.name}}' } }), contextOf())
    expect(outcome.error).toBe('nope')
    expect(outcome.result).toMatchObject({ exitCode: 1, notification: { title: 'failed', message: 'web' } })
    expect(JSON.parse(received.at(-1)!.body)).toEqual({ title: 'failed', message: 'web' })
  })

  it('delivers through the notification senders: any of their schemes, properties as Shoutrrr params', async () => {
    const port = (server.address() as AddressInfo).port
    const ntfy = await executeAction(action({ notification: { url: `ntfy://127.0.0.1:${port}/hook?scheme=http`, title: 'Restart of {{.params.name}}', message: 'done', properties: { priority: 5 } } }), contextOf())
    expect(ntfy.error).toBeUndefined()
    expect(ntfy.result).toEqual({ title: 'Restart of web', message: 'done' })
    expect(received.at(-1)).toMatchObject({ path: '/hook', body: 'done', headers: { title: 'Restart of web', priority: '5' } })
    await executeAction(action({ notification: { url: `generic+http://127.0.0.1:${port}/hook`, title: 'T', message: 'M', properties: { team: 'ops' } } }), contextOf())
    expect(JSON.parse(received.at(-1)!.body)).toEqual({ team: 'ops', title: 'T', message: 'M' })
  })

  it('fails a refused delivery with the masked URL, and a scheme no sender speaks naming it', async () => {
    const port = (server.address() as AddressInfo).port
    const refused = await executeAction(action({ notification: { url: `ntfy://svc:pwSECRET@127.0.0.1:${port}/echo/503?scheme=http`, title: 't', message: 'm' } }), contextOf())
    expect(refused.error).toMatch(/^ntfy: POST http:\/\/127\.0\.0\.1:\d+\/echo\/503 answered 503/)
    expect(refused.error).not.toContain('pwSECRET')
    expect(refused.result).toEqual({ title: 't', message: 'm' })
    const outcome = await executeAction(action({ notification: { url: 'gotify://host/token', title: 't', message: 'm' } }), contextOf())
    expect(outcome.error).toMatch(/unsupported notification URL scheme "gotify"/)
  })

  it('fences a playbook no exec holder wrote off this server\'s own addresses, and sends attachments by smtp only', async () => {
    const before = received.length
    const url = `generic+http://127.0.0.1:${(server.address() as AddressInfo).port}/hook`
    const fenced = await executeAction(action({ notification: { url, title: 't', message: 'm' } }), contextOf({ trusted: false }))
    expect(fenced.error).toMatch(/is not an allowed target: .*is an address of this server/)
    const attached = await executeAction(action({ notification: { url, title: 't', message: 'm', attachments: [{ filename: 'a.txt', content: 'x' }] } }), contextOf())
    expect(attached.error).toMatch(/attachments are sent by smtp only/)
    expect(received.length).toBe(before)
  })

  it('sends smtp:// mail', async () => {
    const mails: string[] = []
    const smtp = net.createServer((socket) => {
      let data = false
      let buffer = ''
      socket.write('220 test ESMTP\r\n')
      socket.on('data', (chunk) => {
        buffer += chunk.toString()
        let end: number
        while ((end = buffer.indexOf('\r\n')) !== -1) {
          const line = buffer.slice(0, end)
          buffer = buffer.slice(end + 2)
          if (data) {
            if (line === '.') {
              data = false
              socket.write('250 queued\r\n')
            } else mails.push(line)
            continue
          }
          const verb = line.slice(0, 4).toUpperCase()
          if (verb === 'EHLO' || verb === 'HELO') socket.write('250 test\r\n')
          else if (verb === 'DATA') {
            data = true
            socket.write('354 go ahead\r\n')
          } else if (verb === 'QUIT') socket.end('221 bye\r\n')
          else socket.write('250 ok\r\n')
        }
      })
    })
    await new Promise<void>((resolve) => smtp.listen(0, '127.0.0.1', resolve))
    try {
      const port = (smtp.address() as AddressInfo).port
      const outcome = await executeAction(
        action({
          notification: {
            url: `smtp://127.0.0.1:${port}/?from=lookout@example.com&to=ops@example.com&encryption=None`,
            title: 'Disk full on {{.params.name}}',
            message: 'clean it',
            attachments: [{ filename: 'usage.txt', content: 'disk 97%', contentType: 'text/plain' }],
          },
        }),
        contextOf(),
      )
      expect(outcome.error).toBeUndefined()
      const mail = mails.join('\n')
      expect(mail).toContain('Subject: Disk full on web')
      expect(mail).toContain('To: ops@example.com')
      expect(mail).toContain('clean it')
      expect(mail).toMatch(/filename=usage\.txt/)
      expect(mail).toContain(Buffer.from('disk 97%').toString('base64'))
    } finally {
      await new Promise((resolve) => smtp.close(resolve))
    }
  })
})

describe('logs', () => {
  it('reads loki lines in a window, then matches and dedupes them', async () => {
    const outcome = await executeAction(
      action({ logs: { loki: { url: base, query: '{app="{{.params.name}}"}' }, start: 'now-15m', limit: 50, match: ['labels.level == "error"'], dedupe: { fields: ['message'] } } }),
      contextOf(),
    )
    expect(outcome.error).toBeUndefined()
    const logs = outcome.result.logs as LogLine[]
    expect(logs).toHaveLength(1)
    expect(logs[0]).toMatchObject({ message: 'timeout talking to db', labels: { app: 'web', level: 'error' }, count: 2 })
    const query = received.at(-1)!.query
    expect(query).toMatchObject({ query: '{app="web"}', limit: '50', direction: 'backward' })
    const windowNs = BigInt(String(query.end)) - BigInt(String(query.start))
    expect(Number(windowNs / 1_000_000_000n)).toBeGreaterThanOrEqual(899)
    expect(Number(windowNs / 1_000_000_000n)).toBeLessThanOrEqual(901)
  })

  it('parses lines (autodetect: logfmt, json, klog, syslog) and maps their fields before match', async () => {
    const outcome = await executeAction(
      action({ logs: { loki: { url: base, query: '{app="structured"}' }, parse: 'autodetect', mapping: { ignore: ['trace'] }, match: ['line.severity != "info"'] } }),
      contextOf(),
    )
    expect(outcome.error).toBeUndefined()
    const logs = outcome.result.logs as LogLine[]
    expect(logs.map(({ message, severity, host, timestamp }) => ({ message, severity, host, timestamp }))).toEqual([
      { message: 'db down', severity: 'error', host: 'api-1', timestamp: '2026-01-01T10:00:00.000Z' },
      { message: 'reconcile failed', severity: 'error', host: undefined, timestamp: expect.stringMatching(/^\d{4}-01-01T10:00:02\.123Z$/) },
      { message: 'disk full', severity: 'error', host: 'api-2', timestamp: '2026-01-01T10:00:03.000Z' },
      { message: 'no structure here', severity: undefined, host: undefined, timestamp: expect.any(String) },
    ])
    expect(logs[0]!.labels).toEqual({ app: 'api' })
    expect(logs[1]!.labels).toMatchObject({ app: 'api', object: 'web', err: 'timeout', source: 'main.go:42' })
    expect(logs[2]!.labels).toMatchObject({ app: 'apiserver', pid: '12', facility: 'user' })
  })

  it('parses with one parser, maps named fields, and refuses an unknown parser', () => {
    const line = (message: string): LogLine => ({ timestamp: '2026-01-01T00:00:00.000Z', message, labels: { stream: 'x' } })
    const [json] = structureLines([line('{"log":"hello","lvl":"warn","when":"2026-02-02T02:02:02Z","node":{"name":"n1"}}')], 'json', { timestamp: ['when'], host: 'node.name' })
    expect(json).toEqual({ timestamp: '2026-02-02T02:02:02.000Z', message: 'hello', severity: 'warn', host: 'n1', labels: { stream: 'x' } })
    // A line the parser cannot read is kept as it came.
    expect(structureLines([line('not json')], 'json', undefined)[0]).toEqual(line('not json'))
    // Mapping alone works over the labels a backend gave.
    expect(structureLines([{ ...line('m'), labels: { level: 'error', pod: 'p1' } }], undefined, { host: ['pod'] })[0]).toMatchObject({ severity: 'error', host: 'p1', labels: {} })
    expect(() => structureLines([line('x')], 'xml', undefined)).toThrow('logs.parse must be one of logfmt, klogfmt, json, syslog, autodetect, not "xml"')
  })

  it('reads opensearch hits with a time range around the query', async () => {
    const outcome = await executeAction(
      action({ logs: { opensearch: { url: base, index: 'logs-2026', query: 'host.name:db-1', start: '2026-01-01T00:00:00Z', end: '2026-01-01T01:00:00Z', limit: 10 } } }),
      contextOf(),
    )
    expect(outcome.error).toBeUndefined()
    expect(outcome.result).toEqual({
      logs: [
        { timestamp: '2026-01-01T00:02:00Z', message: 'disk full', labels: { 'host.name': 'db-1' } },
        { timestamp: '2026-01-01T00:01:00Z', message: 'disk almost full', labels: { 'host.name': 'db-1' } },
      ],
      total: 2,
    })
    expect(JSON.parse(received.at(-1)!.body)).toEqual({
      size: 10,
      sort: [{ '@timestamp': { order: 'desc' } }],
      query: { bool: { must: [{ query_string: { query: 'host.name:db-1' } }], filter: [{ range: { '@timestamp': { gte: '2026-01-01T00:00:00.000Z', lte: '2026-01-01T01:00:00.000Z' } } }] } },
    })
  })

  it('dedupes within a window only', () => {
    const lines: LogLine[] = [
      { timestamp: '2026-01-01T00:10:00Z', message: 'a', labels: {} },
      { timestamp: '2026-01-01T00:09:30Z', message: 'a', labels: {} },
      { timestamp: '2026-01-01T00:01:00Z', message: 'a', labels: {} },
    ]
    expect(dedupeLines(lines, { fields: ['message'], window: '1m' }).map((line) => line.count)).toEqual([2, 1])
    expect(matchLines(lines, ['message == "b"'])).toEqual([])
  })

  it('fails cloudwatch and kubernetes with what is missing', async () => {
    expect((await executeAction(action({ logs: { cloudwatch: { logGroup: 'x', query: 'y' } } }), contextOf())).error).toMatch(/logs.cloudwatch needs AWS CloudWatch Logs access/)
    expect((await executeAction(action({ logs: { kubernetes: { kind: 'Pod', name: 'x' } } }), contextOf())).error).toMatch(/logs.kubernetes reads pod logs from a Kubernetes cluster/)
  })
})

describe('prometheus', () => {
  it('runs an instant query and answers samples', async () => {
    const outcome = await executeAction(action({ prometheus: { url: base, query: 'up{job="api"}' } }), contextOf())
    expect(outcome.error).toBeUndefined()
    expect(outcome.result).toEqual({
      query: 'up{job="api"}',
      resultType: 'vector',
      samples: [{ labels: { __name__: 'up', job: 'api' }, value: 1, timestamp: new Date(1_700_000_000_500).toISOString() }],
    })
  })

  it('runs a range query with start, end and step', async () => {
    const outcome = await executeAction(action({ prometheus: { url: base, query: 'up', range: { start: '2026-01-01T00:00:00Z', end: '2026-01-01T01:00:00Z', step: '1m' } } }), contextOf())
    expect(outcome.error).toBeUndefined()
    expect(received.at(-1)).toMatchObject({ path: '/api/v1/query_range', query: { start: String(Date.parse('2026-01-01T00:00:00Z') / 1000), step: '1m' } })
    expect(outcome.result.samples).toEqual([{ labels: { job: 'api' }, values: [{ timestamp: new Date(1_700_000_000_000).toISOString(), value: 1 }, { timestamp: new Date(1_700_000_060_000).toISOString(), value: 0.5 }] }])
  })

  it('fails with Prometheus\' error', async () => {
    const outcome = await executeAction(action({ prometheus: { url: base, query: 'bad(' } }), contextOf())
    expect(outcome.error).toBe('prometheus query failed (400): bad_data: parse error: unexpected end of input')
  })
})

describe('types that need a platform this Lookout does not run', () => {
  it.each([
    ['gitops', { repo: { url: 'https://example.com/r.git' }, files: [] }, /gitops actions need a git platform connection/],
    ['github', { repo: 'r', username: 'o', token: 't', workflows: [] }, /github actions dispatch GitHub workflows/],
    ['azureDevopsPipeline', { org: 'o', project: 'p', token: 't', pipeline: { id: '1' } }, /Azure DevOps platform/],
    ['pod', { name: 'x', spec: {} }, /Kubernetes cluster/],
    ['ai', { prompt: 'hi' }, /LLM provider/],
    ['report', {}, /report actions/],
    ['catalog', {}, /catalog actions/],
  ])('%s fails saying what is missing', async (type, spec, message) => {
    const outcome = await executeAction(action({ [type]: spec }), contextOf())
    expect(outcome.error).toMatch(message)
  })

  it('an action without a type, or with two, fails', async () => {
    expect((await executeAction(action({}), contextOf())).error).toMatch(/has no action type/)
    expect((await executeAction(action({ exec: { script: 'true' }, http: { url: base } }), contextOf())).error).toMatch(/more than one action type \(exec, http\)/)
  })
})

describe('through the runner', () => {
  it('runs real actions with the real environment: results, getAction/last_result, if over getLastAction(), artifacts stored', async () => {
    const runner = createPlaybookRunner({ db, logger, processId: 'actions-test', pollIntervalMs: 50, stopGraceMs: 200, trusted: async () => true })
    await runner.start()
    try {
      const { runId } = await playbookRun(
        db,
        'runner-real-actions',
        [
          { name: 'first', exec: { script: 'echo "hello {{.params.who}}"; echo saved > out.txt', artifacts: [{ path: 'out.txt' }] } },
          { name: 'second', if: 'getLastAction().result.exitCode == 0 && success()', exec: { script: 'echo "{{(getAction "first").result.stdout}} / {{.last_result.stdout}}"' } },
          { name: 'third', if: 'getAction("second").status == "failed"', exec: { script: 'echo never' } },
        ],
        { parameters: { who: 'world' }, spec: { parameters: [{ name: 'who' }] } },
      )
      const final = await waitForFinal(db, runId, 20_000)
      expect(final).toMatchObject({ status: 'completed', error: null })
      const rows = await actionsOf(db, runId)
      expect(rows.map((row) => `${row.name}:${row.status}`)).toEqual(['first:completed', 'second:completed', 'third:skipped'])
      expect(rows[0]!.result).toMatchObject({ stdout: 'hello world', exitCode: 0 })
      expect(rows[1]!.result).toMatchObject({ stdout: 'hello world / hello world' })
      const { rows: artifacts } = await db.query<{ filename: string; content: Buffer | Uint8Array }>('SELECT filename, content FROM artifacts WHERE playbook_run_action_id = $1', [rows[0]!.id])
      expect(artifacts.map((artifact) => [artifact.filename, Buffer.from(artifact.content).toString()])).toEqual([['out.txt', 'saved\n']])
    } finally {
      await runner.stop()
    }
  })
})
