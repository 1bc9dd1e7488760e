import request from 'supertest'
import { strFromU8, unzipSync } from 'fflate'
import { beforeAll, describe, expect, it } from 'vitest'
import type { TopologyResponse } from '#contract/topology/topology-tree.ts'
import { useTestApp } from '#tests/support/use-test-app.ts'
import { bearer } from '#tests/support/test-app.ts'
import { personWith } from '#tests/rbac/rbac-fixture.ts'
import { seedTopologyEstate, type TopologyEstate } from './topology-api-fixture.ts'

type Headers = Record<string, string>

/** GET /api/snapshot/topology/{id} (http-api §2.7.4): the zip's files, the window, related configs, the error pair, row-level access. */
describe('GET /api/snapshot/topology/{id}', () => {
  const testApp = useTestApp()
  let estate: TopologyEstate
  let webOnly: Headers

  beforeAll(async () => {
    const db = testApp.db
    estate = await seedTopologyEstate(db)
    const status = (check: string, minutesAgo: number, passed: boolean, message: string) =>
      db.query(`INSERT INTO check_statuses (check_id, time, status, duration, message) VALUES ($1, now() - make_interval(mins => $2), $3, 120, $4)`, [estate.checks[check], minutesAgo, passed, message])
    await status('web-http', 2, true, 'HTTP 200')
    await status('web-tls', 5, false, 'certificate expires\nin 3 days')
    await status('web-http', 120, false, 'too old for 15m')
    await db.query(`INSERT INTO config_changes (config_id, change_type, severity, summary, created_at) VALUES ($1, 'diff', 'info', 'max_connections 100 → 200', now() - interval '3 minutes'), ($1, 'diff', 'info', 'last week', now() - interval '7 days')`, [estate.config])
    const person = await personWith(db, ['viewer'], 'snapshot-web')
    await db.query(`INSERT INTO permissions (subject_type, subject, action, component_id) VALUES ('person', $1, 'read', $2)`, [person.id, estate.ids.web])
    testApp.backend.authorizer.invalidate()
    webOnly = person.headers
  })

  const snapshot = async (query: string, headers: Headers = bearer) => {
    const response = await request(testApp.app)
      .get(`/api/snapshot/topology/${query}`)
      .set(headers)
      .buffer(true)
      .parse((res, done) => {
        const chunks: Buffer[] = []
        res.on('data', (chunk: Buffer) => chunks.push(chunk))
        res.on('end', () => done(null, Buffer.concat(chunks)))
      })
    return response
  }
  const unzip = (body: Buffer) => {
    const files = unzipSync(new Uint8Array(body))
    return Object.fromEntries(Object.entries(files).map(([name, bytes]) => [name, strFromU8(bytes)]))
  }

  it('answers a zip attachment with the tree, the checks and their runs since start', async () => {
    const response = await snapshot(`${estate.ids.shop}?start=15m`)
    expect(response.status).toBe(200)
    expect(response.headers['content-type']).toBe('application/zip')
    expect(response.headers['content-disposition']).toMatch(/^attachment; filename="snapshot-\d{4}-\d{2}-\d{2}T\d{2}-\d{2}-\d{2}Z\.zip"$/)
    const files = unzip(response.body as Buffer)
    expect(Object.keys(files).sort()).toEqual(['check-statuses.log', 'checks.json', 'snapshot.json', 'topology.json'])
    expect(JSON.parse(files['snapshot.json']!)).toMatchObject({ component: { id: estate.ids.shop, name: 'shop', type: 'Topology' }, components: 9, related: false, logFormat: 'log' })
    const tree = JSON.parse(files['topology.json']!) as TopologyResponse
    expect(tree.components.map((node) => node.name)).toEqual(['shop'])
    // Everything under the component, hidden ones included.
    expect(tree.components[0]!.components!.map((node) => node.name)).toEqual(['api', 'cache', 'db', 'web'])
    const checks = JSON.parse(files['checks.json']!) as { name: string; status: string; component_ids: string[] }[]
    expect(checks.map((check) => check.name)).toEqual(['db-ping', 'web-http', 'web-tls'])
    expect(checks[2]).toMatchObject({ status: 'unhealthy', component_ids: [estate.ids.web] })
    const lines = files['check-statuses.log']!.split('\n')
    expect(lines).toHaveLength(2)
    expect(lines[0]).toMatch(/^\S+Z web-http PASS 120ms HTTP 200$/)
    expect(lines[1]).toMatch(/^\S+Z web-tls FAIL 120ms certificate expires in 3 days$/)
  })

  it('adds the related configs and their changes with related=true, as JSON with logFormat=json', async () => {
    const files = unzip((await snapshot(`${estate.ids.shop}?start=1h&related=true&logFormat=json`)).body as Buffer)
    expect(Object.keys(files).sort()).toEqual(['check-statuses.json', 'checks.json', 'config-changes.json', 'configs.json', 'snapshot.json', 'topology.json'])
    expect(JSON.parse(files['configs.json']!)).toEqual([expect.objectContaining({ id: estate.config, name: 'orders-db', component_ids: [estate.ids.db] })])
    expect(JSON.parse(files['config-changes.json']!).map((change: { summary: string }) => change.summary)).toEqual(['max_connections 100 → 200'])
    expect(JSON.parse(files['check-statuses.json']!).map((row: { check: string; status: boolean }) => [row.check, row.status])).toEqual([['web-http', true], ['web-tls', false]])
    // A wider window reaches the older run.
    const day = unzip((await snapshot(`${estate.ids.web}?start=1d&logFormat=json`)).body as Buffer)
    expect(JSON.parse(day['check-statuses.json']!)).toHaveLength(3)
  })

  it('answers errors as the reference pair: bad input 400, unknown or unreadable component 404', async () => {
    const error = async (query: string, headers: Headers = bearer) => {
      const response = await request(testApp.app).get(`/api/snapshot/topology/${query}`).set(headers)
      return [response.status, response.body] as const
    }
    expect(await error(`${estate.ids.shop}?start=yesterday`)).toEqual([400, { error: 'start is invalid: time must be a duration or RFC3339 timestamp', message: 'Error snapshotting topology' }])
    expect(await error(`${estate.ids.shop}?start=1h&end=2h`)).toEqual([400, { error: 'end must not be before start', message: 'Error snapshotting topology' }])
    expect(await error(`${estate.ids.shop}?logFormat=xml`)).toEqual([400, { error: 'logFormat must be log or json', message: 'Error snapshotting topology' }])
    expect(await error(`${estate.ids.shop}?related=perhaps`)).toEqual([400, { error: 'related must be true or false', message: 'Error snapshotting topology' }])
    expect(await error('shop')).toEqual([400, { error: 'id must be a component id', message: 'Error snapshotting topology' }])
    const unknown = '0190f0f0-0000-7000-8000-00000000beef'
    expect(await error(unknown)).toEqual([404, { error: `component ${unknown} not found`, message: 'Error snapshotting topology' }])
    // Outside the caller's subtree is as unknown as a missing id; inside it is served.
    expect((await error(estate.ids.shop!, webOnly))[0]).toBe(404)
    const files = unzip((await snapshot(`${estate.ids.web}?related=true`, webOnly)).body as Buffer)
    expect(JSON.parse(files['checks.json']!).map((check: { name: string }) => check.name)).toEqual(['web-http', 'web-tls'])
    expect(JSON.parse(files['configs.json']!)).toEqual([])
  })
})
