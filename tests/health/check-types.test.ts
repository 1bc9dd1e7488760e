import https from 'node:https'
import { execFileSync } from 'node:child_process'
import { mkdtempSync, writeFileSync, utimesSync, existsSync } from 'node:fs'
import { tmpdir } from 'node:os'
import path from 'node:path'
import dgram from 'node:dgram'
import type { AddressInfo } from 'node:net'
import net from 'node:net'
import { afterAll, beforeAll, describe, expect, it } from 'vitest'
import { useTestApp } from '#tests/support/use-test-app.ts'
import type { CheckEngine } from '#server/backend/health/check-engine.ts'
import { applyYaml, canaryYaml, startLocalServer, testEngine, type LocalServer } from './health-fixtures.ts'
import { startMongoWirePeer } from './mongo-wire-peer.ts'

const testApp = useTestApp()
let engine: CheckEngine
let server: LocalServer

beforeAll(async () => {
  engine = testEngine(testApp.db)
  server = await startLocalServer((req, res) => {
    const url = req.url ?? '/'
    if (url.startsWith('/status/')) {
      res.writeHead(Number(url.slice(8)), { 'content-type': 'text/plain' }).end(`status ${url.slice(8)}`)
    } else if (url.startsWith('/delay/')) {
      setTimeout(() => res.writeHead(200).end('late'), Number(url.slice(7)))
    } else if (url === '/json') {
      res.writeHead(200, { 'content-type': 'application/json' }).end(JSON.stringify({ status: 'ok', items: [1, 2, 3] }))
    } else if (url === '/redirect') {
      res.writeHead(301, { location: '/json' }).end()
    } else if (url === '/echo') {
      let body = ''
      req.on('data', (chunk) => (body += chunk))
      req.on('end', () => res.writeHead(200, { 'content-type': 'application/json' }).end(JSON.stringify({ method: req.method, body, header: req.headers['x-test'] ?? null, auth: req.headers.authorization ?? null })))
    } else res.writeHead(200, { 'content-type': 'text/html' }).end('<html>hello lookout</html>')
  })
})

afterAll(async () => {
  await server?.close()
})

async function run(name: string, body: string) {
  const { checks } = await applyYaml(testApp.db, canaryYaml(name, body))
  const results: Record<string, NonNullable<Awaited<ReturnType<CheckEngine['runNow']>>>> = {}
  for (const [checkName, id] of checks) {
    const result = await engine.runNow(id)
    expect(result, checkName).not.toBeNull()
    results[checkName] = result!
  }
  return results
}

describe('http checks against a loopback server', () => {
  it('evaluates responseCodes, responseContent, thresholdMillis, CEL test and display template', async () => {
    const results = await run('http-local', `  http:
    - name: ok-json
      url: ${server.url}/json
      responseCodes: [200]
      test: {expr: "json.status == 'ok' && code == 200 && size(json.items) == 3"}
      display: {template: "status={{.json.status}} code={{.code}}"}
    - name: wrong-code
      url: ${server.url}/status/500
      responseCodes: [200]
    - name: no-codes-non-2xx
      url: ${server.url}/status/503
    - name: content-missing
      url: ${server.url}/
      responseContent: goodbye
    - name: content-found
      url: ${server.url}/
      responseContent: hello lookout
    - name: too-slow
      url: ${server.url}/delay/300
      thresholdMillis: 100
    - name: test-false
      url: ${server.url}/json
      test: {expr: "json.status == 'down'"}
    - name: test-not-boolean
      url: ${server.url}/json
      test: {expr: "json.status"}
    - name: post-with-headers
      url: http://user:secret@127.0.0.1:${server.port}/echo
      method: POST
      body: '{"a":1}'
      headers: [{name: X-Test, value: yes}]
      display: {expr: "json.method + ' ' + json.body + ' ' + json.header"}
      test: {expr: "json.auth == 'Basic dXNlcjpzZWNyZXQ='"}
    - name: no-follow
      url: ${server.url}/redirect
      maxRedirects: 0
      responseCodes: [301]
      test: {expr: "headers['location'] == '/json'"}
    - name: follow
      url: ${server.url}/redirect
      test: {expr: "json.status == 'ok'"}
    - name: refused
      url: http://127.0.0.1:1/
    - name: bad-url
      url: not a url
`)
    expect(results['ok-json']).toMatchObject({ pass: true, message: 'status=ok code=200' })
    expect(results['wrong-code']!.pass).toBeUndefined()
    expect(results['wrong-code']!.error).toContain('500')
    expect(results['no-codes-non-2xx']!.error).toBe('expected 503 to be 200..299')
    expect(results['content-missing']!.error).toContain('expected goodbye')
    expect(results['content-found']!.pass).toBe(true)
    expect(results['too-slow']!.error).toMatch(/threshold exceeded/)
    expect(results['test-false']!.error).toBe('test failed')
    expect(results['test-not-boolean']!.error).toBe('test expression did not return a boolean value')
    expect(results['post-with-headers']).toMatchObject({ pass: true, message: 'POST {"a":1} yes' })
    expect(results['no-follow']!.pass).toBe(true)
    expect(results['follow']!.pass).toBe(true)
    expect(results['refused']!.error).toMatch(/ECONNREFUSED/)
    expect(results['bad-url']).toMatchObject({ invalid: true })
  })

  it('checks TLS expiry against a self-signed local HTTPS server', async () => {
    const dir = mkdtempSync(path.join(tmpdir(), 'lookout-tls-'))
    execFileSync('openssl', ['req', '-x509', '-newkey', 'rsa:2048', '-nodes', '-keyout', path.join(dir, 'key.pem'), '-out', path.join(dir, 'cert.pem'), '-days', '10', '-subj', '/CN=127.0.0.1'], { stdio: 'ignore' })
    const { readFileSync } = await import('node:fs')
    const tls = https.createServer({ key: readFileSync(path.join(dir, 'key.pem')), cert: readFileSync(path.join(dir, 'cert.pem')) }, (_req, res) => res.end('secure'))
    await new Promise<void>((resolve) => tls.listen(0, '127.0.0.1', resolve))
    const port = (tls.address() as AddressInfo).port
    try {
      const results = await run('https-local', `  http:
    - name: expires-soon
      url: https://127.0.0.1:${port}/
      maxSSLExpiry: 30
      tlsConfig: {insecureSkipVerify: true}
    - name: expires-later
      url: https://127.0.0.1:${port}/
      maxSSLExpiry: 5
      tlsConfig: {insecureSkipVerify: true}
      test: {expr: "sslAge > 0"}
    - name: untrusted
      url: https://127.0.0.1:${port}/
    - name: plain-http
      url: ${server.url}/
      maxSSLExpiry: 5
`)
      expect(results['expires-soon']!.error).toMatch(/SSL certificate expires soon (9|10) days < 30/)
      expect(results['expires-later']!.pass).toBe(true)
      expect(results['untrusted']!.error).toMatch(/self.signed|certificate/i)
      expect(results['plain-http']!.error).toMatch(/no certificate/)
    } finally {
      tls.closeAllConnections()
      await new Promise((resolve) => tls.close(resolve))
    }
  })
})

describe('tcp, dns, icmp', () => {
  it('tcp connects to an open port and reports a closed one', async () => {
    const results = await run('tcp-local', `  tcp:
    - name: open
      endpoint: 127.0.0.1:${server.port}
      thresholdMillis: 1000
      display: {template: "port open"}
    - name: closed
      endpoint: 127.0.0.1:1
    - name: scheme
      endpoint: tcp://127.0.0.1:80
`)
    expect(results.open).toMatchObject({ pass: true, message: 'port open' })
    expect(results.closed!.error).toMatch(/^Connection error: .*ECONNREFUSED/)
    expect(results.scheme).toMatchObject({ invalid: true })
    expect(results.scheme!.error).toMatch(/ADDRESS:PORT/)
  })

  it('dns resolves localhost with the system resolver and queries a loopback DNS server', async () => {
    // A minimal UDP DNS server answering every A query with 10.1.2.3.
    const dns = dgram.createSocket('udp4')
    dns.on('message', (query, remote) => {
      const questionEnd = 12 + query.subarray(12).indexOf(0) + 5
      const header = Buffer.from(query.subarray(0, 12))
      header.writeUInt16BE(0x8180, 2)
      header.writeUInt16BE(1, 6)
      const answer = Buffer.from([0xc0, 0x0c, 0, 1, 0, 1, 0, 0, 0, 60, 0, 4, 10, 1, 2, 3])
      dns.send(Buffer.concat([header, query.subarray(12, questionEnd), answer]), remote.port, remote.address)
    })
    await new Promise<void>((resolve) => dns.bind(0, '127.0.0.1', resolve))
    const port = (dns.address() as AddressInfo).port
    try {
      const results = await run('dns-local', `  dns:
    - {name: localhost-a, query: localhost, querytype: A, minrecords: 1, timeout: 5, thresholdMillis: 2000}
    - {name: local-server, query: anything.test, querytype: A, server: 127.0.0.1, port: ${port}, exactreply: [10.1.2.3]}
    - {name: local-server-mismatch, query: anything.test, server: 127.0.0.1, port: ${port}, exactreply: [10.9.9.9]}
    - {name: too-few, query: localhost, minrecords: 5}
    - {name: bad-type, query: localhost, querytype: AAAAX}
`)
      expect(results['localhost-a']!.pass).toBe(true)
      expect(results['local-server']!.pass).toBe(true)
      expect(results['local-server-mismatch']!.error).toMatch(/expected 10.9.9.9/)
      expect(results['too-few']!.error).toMatch(/at least 5/)
      expect(results['bad-type']!.error).toMatch(/unknown query type/)
    } finally {
      dns.close()
    }
  })

  it('icmp pings loopback when ping is installed, and is invalid with the reason otherwise', async () => {
    const results = await run('icmp-local', `  icmp:
    - {name: loopback, endpoint: 127.0.0.1, packetCount: 2, thresholdMillis: 500}
    - {name: by-name, endpoint: localhost, packetCount: 1, thresholdMillis: 500, packetLossThreshold: 0}
    - {name: no-threshold, endpoint: 127.0.0.1, packetCount: 1}
`)
    const hasPing = ['/bin/ping', '/usr/bin/ping', '/sbin/ping'].some((candidate) => existsSync(candidate))
    // CI installs iputils-ping (.ci/run), so there the real path must run.
    if (process.env.CI) expect(hasPing).toBe(true)
    if (hasPing) {
      expect(results.loopback).toMatchObject({ pass: true, message: expect.stringMatching(/^2\/2 packets, avg [\d.]+ms$/) })
      expect(results['by-name']).toMatchObject({ pass: true, message: expect.stringMatching(/^1\/1 packets/) })
      // Unset thresholdMillis fails any measurable latency, as the reference does.
      expect(results['no-threshold']!.pass).toBeFalsy()
      expect(results['no-threshold']!.error).toMatch(/^timeout: avg [\d.]+ms > 0ms$/)
    } else {
      expect(results.loopback).toMatchObject({ invalid: true, error: expect.stringMatching(/ping command/) })
    }
  })
})

describe('exec and folder', () => {
  it('exec captures output, applies the test and kills scripts past their timeout', async () => {
    const results = await run('exec-local', `  exec:
    - name: echo
      script: echo hello; echo warn >&2
      test: {expr: "results.stdout == 'hello'"}
      display: {expr: "results.stdout + '/' + results.stderr"}
    - name: exit-code
      script: exit 3
    - name: test-false
      script: echo 42
      test: {expr: "int(results.stdout) < 10"}
    - name: env
      script: echo $GREETING
      env: [{name: GREETING, value: hi}]
      test: {expr: "results.stdout == 'hi'"}
    - name: slow
      script: sleep 5; echo never
      timeout: 300ms
`)
    expect(results.echo).toMatchObject({ pass: true, message: 'hello/warn' })
    expect(results['exit-code']!.error).toBe('exit code 3')
    expect(results['test-false']!.error).toBe('42')
    expect(results.env!.pass).toBe(true)
    expect(results.slow!.error).toMatch(/timed out/)
    expect(results.slow!.duration ?? 0).toBeLessThan(2_000)
    const stored = await testApp.db.query<{ details: { stdout: string } }>(
      `SELECT s.details FROM check_statuses s JOIN checks k ON k.id = s.check_id WHERE k.name = 'echo'`,
    )
    expect(stored.rows[0]!.details.stdout).toBe('hello')
  })

  it('folder counts, ages and sizes files', async () => {
    const dir = mkdtempSync(path.join(tmpdir(), 'lookout-folder-'))
    writeFileSync(path.join(dir, 'a.log'), 'x'.repeat(100))
    writeFileSync(path.join(dir, 'b.log'), 'x'.repeat(5_000))
    writeFileSync(path.join(dir, 'c.txt'), 'x')
    const old = new Date(Date.now() - 3 * 86_400_000)
    utimesSync(path.join(dir, 'a.log'), old, old)
    const results = await run('folder-local', `  folder:
    - {name: count-ok, path: ${dir}, minCount: 3, maxCount: 3}
    - {name: too-few, path: ${dir}, minCount: 5}
    - {name: too-old, path: ${dir}, maxAge: 1d}
    - {name: too-big, path: ${dir}, maxSize: 1kb}
    - {name: glob, path: "${dir}/*.log", minCount: 2, maxCount: 2, test: {expr: "results.largest.size == 5000"}}
    - {name: filtered, path: ${dir}, filter: {regex: "\\\\.txt$"}, maxCount: 1, minCount: 1}
    - {name: missing, path: ${dir}/nope, maxCount: 0}
`)
    expect(results['count-ok']!.pass).toBe(true)
    expect(results['too-few']!.error).toMatch(/too few files 3 < 5/)
    expect(results['too-old']!.error).toMatch(/oldest file is too old: a.log/)
    expect(results['too-big']!.error).toMatch(/b.log/)
    expect(results.glob!.pass).toBe(true)
    expect(results.filtered!.pass).toBe(true)
    expect(results.missing!.pass).toBe(true)
  })
})

describe('datastores on loopback', () => {
  it('postgres runs a query, templates credentials and enforces the minimum row count', async () => {
    const results = await run('postgres-local', `  postgres:
    - name: select-one
      url: "postgres://$(username)@127.0.0.1:5432/postgres?sslmode=disable"
      username: {value: postgres}
      query: SELECT 1 AS one, count(*) AS n FROM pg_database
      results: 1
      test: {expr: "results.rows[0].one == 1 && results.rows[0].n > 0"}
    - name: empty
      url: postgres://postgres@127.0.0.1:5432/postgres
      query: SELECT 1 WHERE false
      results: 1
    - name: bad-query
      url: postgres://postgres@127.0.0.1:5432/postgres
      query: SELECT nope FROM nowhere
`)
    expect(results['select-one']).toMatchObject({ pass: true, message: '1 row(s) returned' })
    expect(results.empty!.error).toMatch(/Query return 0 rows, expected 1/)
    expect(results['bad-query']!.error).toMatch(/failed to execute query/)
  })

  it('mysql (MariaDB) runs a query through a Go-style DSN', async () => {
    const results = await run('mysql-local', `  mysql:
    - name: ping
      url: "root:@tcp(127.0.0.1:3306)/"
      query: SELECT 1 AS one
      results: 1
      test: {expr: "results.rows[0].one == 1"}
    - name: url-form
      url: mysql://root@127.0.0.1:3306/
      query: SELECT 2 AS two
`)
    expect(results.ping!.pass).toBe(true)
    expect(results['url-form']!.pass).toBe(true)
  })

  it('redis answers PING through url and the deprecated addr', async () => {
    const results = await run('redis-local', `  redis:
    - {name: url, url: "127.0.0.1:6379", db: 0}
    - {name: addr, addr: "127.0.0.1:6379"}
    - {name: closed, url: "127.0.0.1:1"}
`)
    expect(results.url).toMatchObject({ pass: true, message: 'PONG' })
    expect(results.addr!.pass).toBe(true)
    expect(results.closed!.error).toMatch(/failed to execute query/)
  })

  it('mongodb pings a peer speaking the wire protocol, and reports a refused command', async () => {
    const open = await startMongoWirePeer()
    const locked = await startMongoWirePeer({ requireAuth: true })
    try {
      const results = await run('mongo-wire', `  mongodb:
    - {name: open, url: "mongodb://127.0.0.1:${open.port}/?directConnection=true"}
    - {name: locked, url: "mongodb://127.0.0.1:${locked.port}/?directConnection=true"}
`)
      expect(results.open!.pass).toBe(true)
      expect(open.commands).toContain('ping')
      expect(results.locked!.pass).toBeFalsy()
      expect(results.locked!.error).toMatch(/^failed to ping mongodb: Command ping requires authentication/)
    } finally {
      await Promise.all([open.close(), locked.close()])
    }
  })

  it('mongodb fails cleanly when nothing listens (the driver is exercised end to end)', async () => {
    const blackhole = net.createServer((socket) => socket.destroy())
    await new Promise<void>((resolve) => blackhole.listen(0, '127.0.0.1', resolve))
    const port = (blackhole.address() as AddressInfo).port
    try {
      const results = await run('mongo-local', `  mongodb:
    - {name: dropped, url: "mongodb://127.0.0.1:${port}/?directConnection=true"}
    - {name: bad-url, url: "http://127.0.0.1"}
`)
      expect(results.dropped!.error).toMatch(/failed to ping mongodb/)
      expect(results['bad-url']).toMatchObject({ invalid: true })
    } finally {
      blackhole.close()
    }
  })
})

describe('HTTP API checks against local fakes of their protocol', () => {
  it('elasticsearch, alertmanager and prometheus', async () => {
    const seen: string[] = []
    const fake = await startLocalServer((req, res) => {
      seen.push(decodeURIComponent(req.url ?? ''))
      const json = (body: unknown, status = 200) => res.writeHead(status, { 'content-type': 'application/json' }).end(JSON.stringify(body))
      if (req.url?.startsWith('/products/_search')) return json({ hits: { total: { value: 2 }, hits: [] } })
      if (req.url?.startsWith('/missing/_search')) return json({ error: { type: 'index_not_found_exception', reason: 'no such index [missing]' }, status: 404 }, 404)
      if (req.url?.startsWith('/api/v2/alerts')) {
        return json([{ labels: { alertname: 'KubePodCrashLooping', namespace: 'shop', pod: 'api-1', container: 'api' }, annotations: { description: 'crash looping' }, fingerprint: 'f1' }])
      }
      if (req.url?.startsWith('/api/v1/query')) {
        return json({ status: 'success', data: { resultType: 'vector', result: [{ metric: { job: 'api' }, value: [1_700_000_000, '0.02'] }] } })
      }
      json({ error: 'not found' }, 404)
    })
    try {
      const results = await run('api-fakes', `  elasticsearch:
    - {name: es-count, url: "${fake.url}", index: products, query: '{"query": {"match_all": {}}}', results: 2}
    - {name: es-wrong-count, url: "${fake.url}", index: products, results: 5}
    - {name: es-missing, url: "${fake.url}", index: missing}
  alertmanager:
    - name: alerts
      url: ${fake.url}
      alerts: [KubePod.*]
      filters: {severity: critical}
      ignore: [Watchdog]
      exclude_filters: {namespace: kube-system}
      test: {expr: "size(results.alerts) == 1 && results.alerts[0].name == 'KubePodCrashLooping/shop/api-1/api'"}
      display: {expr: "results.alerts[0].message"}
  prometheus:
    - {name: error-rate, url: "${fake.url}", query: 'sum(rate(x[5m]))', test: {expr: "value < 0.05"}}
    - {name: error-rate-high, url: "${fake.url}", query: 'sum(rate(x[5m]))', test: {expr: "value < 0.01"}}
    - {name: no-url, query: up}
`)
      expect(results['es-count']!.pass).toBe(true)
      expect(results['es-wrong-count']!.error).toMatch(/returned 2 results, expected 5/)
      expect(results['es-missing']!.error).toMatch(/index_not_found_exception/)
      expect(results.alerts).toMatchObject({ pass: true, message: 'crash looping' })
      expect(seen.find((url) => url.startsWith('/api/v2/alerts'))).toContain('alertname=~"KubePod.*"')
      expect(seen.find((url) => url.startsWith('/api/v2/alerts'))).toContain('namespace!="kube-system"')
      expect(results['error-rate']!.pass).toBe(true)
      expect(results['error-rate-high']!.error).toBe('test failed')
      expect(results['no-url']).toMatchObject({ invalid: true, error: 'Must specify a URL' })
    } finally {
      await fake.close()
    }
  })
})
