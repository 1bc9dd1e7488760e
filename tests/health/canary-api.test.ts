import express from 'express'
import request from 'supertest'
import { afterAll, beforeAll, describe, expect, it, onTestFinished, vi } from 'vitest'
import { useTestApp } from '#tests/support/use-test-app.ts'
import { CanaryValidationError, parseCanaryText } from '#contract/canary/canary-document.ts'
import { createCanaryRouter } from '#server/backend/health/canary.routes.ts'
import { createAuthorizer } from '#server/backend/rbac/authorizer.ts'
import { graphWindowMs } from '#server/backend/health/canary-summary.ts'
import { canaryYaml, silentLogger, startLocalServer, testEngine, type LocalServer } from './health-fixtures.ts'

function issuesOf(text: string) {
  try {
    parseCanaryText(text)
  } catch (error) {
    if (error instanceof CanaryValidationError) return error.issues
    throw error
  }
  return []
}

describe('Canary YAML validation', () => {
  it('accepts an existing-style Canary and the row shape', () => {
    const [canary] = parseCanaryText(canaryYaml('ok', `  http:
    - {name: a, url: "http://127.0.0.1/", responseCodes: [200], test: {expr: "code == 200"}}
  exec:
    - {name: b, script: "echo hi"}
  kubernetes:
    - {name: kept, kind: Pod}
`, '@every 30s'))
    expect(canary).toMatchObject({ name: 'ok', namespace: 'default', labels: { team: 'test' } })
    expect(parseCanaryText('{"name": "row", "spec": {"interval": 30, "tcp": [{"name": "t", "endpoint": "h:1"}]}}')[0]!.name).toBe('row')
  })

  it('reports every problem with its field path', () => {
    expect(issuesOf(canaryYaml('bad', `  http:
    - {url: "http://x"}
    - {name: b, responseCodes: ["200"]}
  tcp:
    - {name: t}
  bogus: []
`, '8 46 *'))).toEqual(expect.arrayContaining([
      { path: 'spec.schedule', message: expect.stringMatching(/invalid cron "8 46 \*"/) },
      { path: 'spec.http[0].name', message: 'is required' },
      { path: 'spec.http[1].responseCodes[0]', message: expect.stringMatching(/number/) },
      { path: 'spec.tcp[0].endpoint', message: 'is required' },
      { path: 'spec.bogus', message: 'unknown field "bogus"' },
    ]))
    expect(issuesOf('apiVersion: v1\nkind: Pod\nmetadata: {name: x}\nspec: {}')).toEqual(expect.arrayContaining([
      { path: 'apiVersion', message: 'must be canaries.flanksource.com/v1' },
      { path: 'kind', message: 'must be Canary' },
    ]))
    expect(issuesOf('a: [1, 2')[0]!.message).toMatch(/invalid YAML at line/)
    expect(issuesOf(`${canaryYaml('one', '  exec: [{name: a, script: x}]')}\n---\n${canaryYaml('Two', '  exec: [{name: a, script: ""}]')}`)).toEqual(expect.arrayContaining([
      { path: '[1].metadata.name', message: expect.stringMatching(/lowercase/) },
      { path: '[1].spec.exec[0].script', message: 'must not be empty' },
    ]))
    expect(issuesOf(canaryYaml('dup', '  exec: [{name: a, script: x}, {name: a, script: y}]'))[0]).toEqual({ path: 'spec.exec[1].name', message: 'duplicate exec check name "a"' })
  })
})

describe('canary router', () => {
  const testApp = useTestApp()
  let server: LocalServer
  let app: express.Express
  const denied = new Set<string>()

  beforeAll(async () => {
    server = await startLocalServer((_req, res) => res.writeHead(200, { 'content-type': 'application/json' }).end('{"ok":true}'))
    app = express()
    // Writes come from the System person as the bootstrap token presents it (an admin): its
    // specs may run exec checks and reach loopback peers (issue 10).
    const { rows: [system] } = await testApp.db.query<{ id: string }>("SELECT id FROM people WHERE name = 'System' ORDER BY created_at LIMIT 1")
    app.use((_req, res, next) => { res.locals.principal = { personId: system!.id, name: 'System', roles: ['admin'], via: 'bootstrap-token' }; next() })
    app.use('/canary', createCanaryRouter({
      db: testApp.db,
      engine: testEngine(testApp.db),
      logger: silentLogger,
      authorizer: createAuthorizer(testApp.db),
      authorize: (req, permission) => !(denied.has(permission.action) && req.headers['x-role'] === 'viewer'),
    }))
  })
  afterAll(async () => {
    await server?.close()
  })

  it('creates from YAML, rejects bad specs with 400 and stores nothing, lists, updates and deletes', async () => {
    const yaml = canaryYaml('api-made', `  http:
    - {name: home, url: "${server.url}/"}
`, '@every 1m')
    const created = await request(app).post('/canary/api/canaries').set('content-type', 'application/yaml').send(yaml)
    expect(created.status).toBe(201)
    expect(created.body.canaries[0]).toMatchObject({ name: 'api-made', namespace: 'default', created: true, checks: [{ type: 'http', name: 'home' }] })
    const id = created.body.canaries[0].id as string

    const bad = await request(app).post('/canary/api/canaries').set('content-type', 'application/yaml').send(canaryYaml('never-stored', '  tcp: [{name: t}]'))
    expect(bad.status).toBe(400)
    expect(bad.body.issues).toEqual([{ path: 'spec.tcp[0].endpoint', message: 'is required' }])
    expect((await testApp.db.query("SELECT 1 FROM canaries WHERE name = 'never-stored'")).rows).toHaveLength(0)

    const again = await request(app).post('/canary/api/canaries').send({ name: 'api-made', spec: { schedule: '@every 1m', tcp: [{ name: 'port', endpoint: `127.0.0.1:${server.port}` }] } })
    expect(again.status).toBe(200)
    expect(again.body.canaries[0].checks).toEqual([expect.objectContaining({ type: 'tcp', name: 'port' })])

    const list = await request(app).get('/canary/api/canaries')
    expect(list.body.map((canary: { name: string }) => canary.name)).toContain('api-made')
    const asYaml = await request(app).get(`/canary/api/canaries/${id}?format=yaml`)
    expect(asYaml.text).toContain('kind: Canary')
    expect(parseCanaryText(asYaml.text)[0]!.name).toBe('api-made')

    const removed = await request(app).delete(`/canary/api/canaries/${id}`)
    expect(removed.body).toMatchObject({ id, deleted: true })
    expect((await request(app).get(`/canary/api/canaries/${id}`)).status).toBe(404)
  })

  it('Run Now runs one check, stores it, honours authorize and 404s unknown checks', async () => {
    const created = await request(app).post('/canary/api/canaries').send({ name: 'run-now', spec: { http: [{ name: 'home', url: `${server.url}/` }] } })
    const checkId = created.body.canaries[0].checks[0].id as string
    const result = await request(app).post(`/canary/run/check/${checkId}`)
    expect(result.status).toBe(200)
    expect(result.body).toMatchObject({ name: 'home', pass: true, CanaryResult: null, namespace: 'default' })
    expect((await testApp.db.query('SELECT 1 FROM check_statuses WHERE check_id = $1', [checkId])).rows).toHaveLength(1)
    denied.add('create')
    expect((await request(app).post(`/canary/run/check/${checkId}`).set('x-role', 'viewer')).status).toBe(403)
    denied.clear()
    const missing = await request(app).post('/canary/run/check/00000000-0000-0000-0000-0000000000aa')
    expect(missing.status).toBe(404)
    expect(missing.body).toEqual({ error: 'check (00000000-0000-0000-0000-0000000000aa) was not found' })
  })

  it('summary and graph answer the reference shapes over known statuses', async () => {
    const created = await request(app).post('/canary/api/canaries').send({ name: 'known', labels: { env: 'prod' }, spec: { http: [{ name: 'known-check', url: `${server.url}/`, labels: { tier: 'web' } }] } })
    const checkId = created.body.canaries[0].checks[0].id as string
    // Percentiles come from hourly rollups and are exact only for runs inside one clock hour
    // (docs/decisions/011): the clock is set to half past an hour so the ten runs never straddle one.
    const HOUR = 3_600_000
    vi.useFakeTimers({ toFake: ['Date'], now: Math.floor(Date.now() / HOUR) * HOUR - HOUR / 2 })
    onTestFinished(() => void vi.useRealTimers())
    // Ten statuses one minute apart ending now: 8 passes (100..800 ms), 2 failures.
    const now = Date.now()
    for (let index = 0; index < 10; index += 1) {
      await testApp.db.query('INSERT INTO check_statuses (check_id, time, status, duration) VALUES ($1, $2, $3, $4)', [
        checkId, new Date(now - (9 - index) * 60_000 - 1_000), index < 8, (index + 1) * 100,
      ])
    }
    const summary = await request(app).get('/canary/api/summary')
    expect(summary.status).toBe(200)
    expect(summary.body.runnerName).toBe('local')
    const row = summary.body.checks_summary.find((entry: { id: string }) => entry.id === checkId)
    expect(row).toMatchObject({
      canary_name: 'known', canary_namespace: 'default', agent_id: '00000000-0000-0000-0000-000000000000',
      name: 'known-check', type: 'http', labels: { env: 'prod', tier: 'web' },
      uptime: { passed: 8, failed: 2 },
      latency: { p99: 1000, p97: 1000, p95: 1000, rolling1h: 0 },
    })
    expect(row.uptime.last_pass).toBeDefined()
    const filtered = await request(app).post('/canary/api/summary').send({ labels: { env: 'staging' } })
    expect(filtered.body.checks_summary).toBeUndefined()
    const windowed = await request(app).get('/canary/api/summary?start=5m')
    expect(windowed.body.checks_summary.find((entry: { id: string }) => entry.id === checkId).uptime).toMatchObject({ passed: 3, failed: 2 })

    const graph = await request(app).get(`/canary/api/graph?check=${checkId}&start=1h&count=300`)
    expect(graph.status).toBe(200)
    expect(graph.body.status).toHaveLength(10)
    expect(graph.body.uptime).toEqual({ passed: 8, failed: 2 })
    expect(graph.body.status[0]).toMatchObject({ status: true, duration: 100, passed: 1 })
    expect(graph.body.status[9]).toEqual({ time: expect.any(String), duration: 1000, failed: 1 })
    expect(new Date(graph.body.status[0].time).getTime() % 60_000).toBe(0)
    expect(graph.body.latency).toEqual({ p99: 1000, p97: 1000, p95: 1000, rolling1h: 0 })
    const empty = await request(app).get(`/canary/api/graph?check=${checkId}&start=2026-01-01T00:00:00Z&end=2026-01-01T01:00:00Z`)
    expect(empty.body).toMatchObject({ status: null, latency: { rolling1h: 0 }, uptime: { passed: 0, failed: 0 } })
    expect((await request(app).get(`/canary/api/graph?check=${checkId}&start=yesterday`)).body).toEqual({ error: 'start is invalid: time must be a duration or RFC3339 timestamp' })
    expect((await request(app).get(`/canary/api/graph?check=${checkId}&start=1h&end=2h`)).body).toEqual({ error: 'end time must be after start time' })
    expect([graphWindowMs(3_600_000), graphWindowMs(86_400_000), graphWindowMs(7 * 86_400_000), graphWindowMs(30 * 86_400_000)]).toEqual([60_000, 900_000, 3_600_000, 14_400_000])

    const legacy = await request(app).get(`/canary/api?check=${checkId}&includeMessages=true`)
    expect(legacy.body.checks[0].checkStatuses).toHaveLength(10)
    const topology = await request(app).get('/canary/api/topology')
    expect(topology.body).toMatchObject({ components: expect.any(Array), healthStatuses: expect.any(Array), types: expect.any(Array) })
  })
})
