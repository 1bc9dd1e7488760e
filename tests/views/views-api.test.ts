import http from 'node:http'
import type { AddressInfo } from 'node:net'
import request from 'supertest'
import { beforeAll, describe, expect, it } from 'vitest'
import { parseViewObject, viewSpecIssues, viewTableName, ViewValidationError } from '#contract/views/view-document.ts'
import { parseCacheControl } from '#server/backend/views/view.routes.ts'
import { requestFingerprint, substitute } from '#server/backend/views/view-evaluate.ts'
import { assertReadQuery } from '#server/backend/views/view-sql.ts'
import { useTestApp } from '#tests/support/use-test-app.ts'
import { bearer } from '#tests/support/test-app.ts'
import { TEST_PG_ADMIN_URL } from '#tests/support/test-db.ts'
import { personWith } from '#tests/rbac/rbac-fixture.ts'

const PG = new URL(TEST_PG_ADMIN_URL)

const podsView = {
  description: 'Pods by cluster',
  display: { title: 'Pods', icon: 'kubernetes', sidebar: true, plugins: [{ configTab: { types: ['Kubernetes::Pod'] } }] },
  queries: { pods: { configs: { types: ['Kubernetes::Pod'], tagSelector: 'cluster=$(var.cluster)' } } },
  columns: [
    { name: 'id', type: 'string', primaryKey: true, hidden: true },
    { name: 'name', type: 'string' },
    { name: 'health', type: 'health' },
    { name: 'updated', type: 'datetime' },
    { name: 'labels', type: 'labels' },
  ],
  mapping: { updated: 'row.updated_at', labels: 'row.tags' },
  panels: [
    { name: 'Pods', type: 'number', query: 'SELECT COUNT(*) AS value FROM pods' },
    { name: 'By health', type: 'piechart', query: 'SELECT health, COUNT(*) AS count FROM pods GROUP BY health ORDER BY health' },
  ],
  templating: [{ key: 'cluster', label: 'Cluster', values: ['prod', 'dev'], default: 'prod' }],
  cache: { maxAge: '15m', minAge: '0s' },
}

describe('views', () => {
  const testApp = useTestApp({ LOOKOUT_CHECK_ALLOWED_TARGETS: `${PG.hostname}:${PG.port || '5432'}` })
  const ids: Record<string, string> = {}

  const createView = async (name: string, spec: unknown, namespace = 'default') => {
    const response = await request(testApp.app).post('/api/db/views').set(bearer).set('Prefer', 'return=representation').send({ name, namespace, spec, source: 'UI' })
    expect(response.status, JSON.stringify(response.body)).toBe(201)
    return (response.body as { id: string }[])[0]!.id
  }

  beforeAll(async () => {
    const db = testApp.db
    const pod = async (name: string, cluster: string, health: string) =>
      (await db.query<{ id: string }>(
        `INSERT INTO config_items (name, type, config_class, tags, health, status) VALUES ($1, 'Kubernetes::Pod', 'Pod', $2::jsonb, $3, 'Running') RETURNING id`,
        [name, JSON.stringify({ cluster, namespace: 'web' }), health],
      )).rows[0]!.id
    ids.web1 = await pod('web-1', 'prod', 'healthy')
    ids.web2 = await pod('web-2', 'prod', 'unhealthy')
    ids.dev1 = await pod('dev-1', 'dev', 'healthy')
    ids.bucket = (await db.query<{ id: string }>(`INSERT INTO config_items (name, type, config_class) VALUES ('assets', 'AWS::S3::Bucket', 'Bucket') RETURNING id`)).rows[0]!.id
    await db.query(`INSERT INTO connections (name, namespace, type, url) VALUES ('local-pg', 'default', 'postgres', $1)`, [TEST_PG_ADMIN_URL])
    ids.pods = await createView('pods', podsView)
  })

  it('validates the spec with the reference rules (400 naming the field, nothing stored)', async () => {
    const cases: [unknown, string][] = [
      [{ queries: { a: {} }, columns: [{ name: 'id', type: 'string', primaryKey: true }] }, 'query a is empty'],
      [{ columns: [{ name: 'id', type: 'string', primaryKey: true }] }, 'view must have at least one query'],
      [{ queries: { a: { configs: {} } } }, 'view must have at least one column or panel'],
      [{ queries: { a: { configs: {} } }, columns: [{ name: 'id', type: 'string' }] }, 'view must have at least one primary key column'],
      [{ queries: { a: { configs: {} } }, columns: [{ name: 'id', type: 'colour', primaryKey: true }] }, 'must be one of string, number'],
      [{ queries: { a: { configs: {} } }, panels: [{ name: 'p', type: 'pie', query: 'SELECT 1' }] }, 'must be one of piechart'],
      [{ queries: { a: { configs: {} } }, columns: [{ name: 'id', type: 'string', primaryKey: true }], mapping: { id: 'row.' } }, 'spec.mapping.id: is not a valid CEL expression'],
      [{ queries: { a: { configs: {} } }, columns: [{ name: 'id', type: 'string', primaryKey: true }], cache: { maxAge: 'soon' } }, 'spec.cache.maxAge: must be a duration'],
      [{ queries: { a: { configs: {} }, b: { changes: {} } }, columns: [{ name: 'id', type: 'string', primaryKey: true }] }, 'merge is required'],
    ]
    for (const [spec, message] of cases) {
      const response = await request(testApp.app).post('/api/db/views').set(bearer).send({ name: 'bad', namespace: 'default', spec })
      expect(response.status, message).toBe(400)
      expect(JSON.stringify(response.body)).toContain(message)
    }
    const { rows } = await testApp.db.query(`SELECT 1 FROM views WHERE name = 'bad'`)
    expect(rows).toHaveLength(0)
    // A PATCH of the spec is judged too.
    const patch = await request(testApp.app).patch(`/api/db/views?id=eq.${ids.pods}`).set(bearer).send({ spec: { queries: {} } })
    expect(patch.status).toBe(400)
    expect(viewSpecIssues(podsView)).toEqual([])
  })

  it('parses the View document as lookout apply reads it', () => {
    const parsed = parseViewObject({ apiVersion: 'mission-control.flanksource.com/v1', kind: 'View', metadata: { name: 'pods', namespace: 'ops' }, spec: podsView })
    expect(parsed).toMatchObject({ name: 'pods', namespace: 'ops' })
    expect(() => parseViewObject({ apiVersion: 'mission-control.flanksource.com/v1', kind: 'View', metadata: { name: 'x' }, spec: { queries: {} } })).toThrow(ViewValidationError)
    expect(viewTableName('my-ns', 'pod-list')).toBe('view_my_ns_pod_list')
  })

  it('evaluates configs selectors with variables, mapping and panels, and serves the rows through /api/db', async () => {
    const response = await request(testApp.app).post(`/api/view/${ids.pods}`).set(bearer).send({ variables: { cluster: 'prod' } })
    expect(response.status, JSON.stringify(response.body)).toBe(200)
    const body = response.body as Record<string, unknown> & { panels: { name: string; rows: Record<string, unknown>[] }[]; requestFingerprint: string }
    expect(body).toMatchObject({ namespace: 'default', name: 'pods', title: 'Pods', icon: 'kubernetes', responseSource: 'fresh', refreshStatus: 'fresh' })
    expect(body.variables).toEqual([{ key: 'cluster', label: 'Cluster', options: ['prod', 'dev'], default: 'prod', value: 'prod' }])
    expect(body.panels[0]).toMatchObject({ name: 'Pods', type: 'number', rows: [{ value: 2 }] })
    expect(body.panels[1]!.rows).toEqual([{ health: 'healthy', count: 1 }, { health: 'unhealthy', count: 1 }])
    expect(body.columnOptions).toEqual({ health: { list: ['healthy', 'unhealthy'] } })
    expect(body.requestFingerprint).toMatch(/^[0-9a-f]{16}$/)

    const rows = await request(testApp.app)
      .get(`/api/db/view_default_pods?request_fingerprint=eq.${body.requestFingerprint}&select=id,name,health,labels,updated&order=name.desc.nullslast`)
      .set(bearer)
      .set('Prefer', 'count=exact')
    expect(rows.status, JSON.stringify(rows.body)).toBe(200)
    expect(rows.headers['content-range']).toBe('0-1/2')
    expect((rows.body as { name: string }[]).map((row) => row.name)).toEqual(['web-2', 'web-1'])
    expect(rows.body[0]).toMatchObject({ id: ids.web2, health: 'unhealthy', labels: { cluster: 'prod', namespace: 'web' } })
    expect(typeof rows.body[0].updated).toBe('string')

    // Another variable value is another fingerprint, kept beside the first.
    const dev = await request(testApp.app).post('/api/view/default/pods').set(bearer).send({ variables: { cluster: 'dev' } })
    expect(dev.status).toBe(200)
    expect(dev.body.requestFingerprint).not.toBe(body.requestFingerprint)
    const devRows = await request(testApp.app).get(`/api/db/view_default_pods?request_fingerprint=eq.${dev.body.requestFingerprint}&select=name`).set(bearer)
    expect(devRows.body).toEqual([{ name: 'dev-1' }])
    const again = await request(testApp.app).get(`/api/db/view_default_pods?request_fingerprint=eq.${body.requestFingerprint}&select=name`).set(bearer)
    expect(again.body).toHaveLength(2)

    // A value outside the variable's options is refused.
    const bad = await request(testApp.app).post(`/api/view/${ids.pods}`).set(bearer).send({ variables: { cluster: "prod' OR 1=1" } })
    expect(bad.status).toBe(400)
    expect(bad.body.error).toContain('is not one of its values')
  })

  it('answers from the cache while fresh; Cache-Control max-age=0 asks for a refresh; bad headers are 400', async () => {
    const first = await request(testApp.app).post(`/api/view/${ids.pods}`).set(bearer).send({ variables: { cluster: 'prod' } })
    expect(first.body.responseSource).toBe('cache')
    expect(first.body.refreshStatus).toBe('cache')
    await testApp.db.query(`UPDATE config_items SET health = 'healthy' WHERE id = $1`, [ids.web2])
    const cached = await request(testApp.app).post(`/api/view/${ids.pods}`).set(bearer).send({ variables: { cluster: 'prod' } })
    expect(cached.body.panels[1].rows).toEqual([{ health: 'healthy', count: 1 }, { health: 'unhealthy', count: 1 }])
    const fresh = await request(testApp.app).post(`/api/view/${ids.pods}`).set(bearer).set('Cache-Control', 'max-age=0').send({ variables: { cluster: 'prod' } })
    expect(fresh.body.responseSource).toBe('fresh')
    expect(fresh.body.panels[1].rows).toEqual([{ health: 'healthy', count: 2 }])
    expect(fresh.body.columnOptions).toEqual({ health: { list: ['healthy'] } })
    expect(fresh.body).not.toHaveProperty('source')
    const table = async () => (await request(testApp.app).get(`/api/db/view_default_pods?request_fingerprint=eq.${fresh.body.requestFingerprint}&select=name,health&order=name`).set(bearer)).body
    expect(await table()).toEqual([{ name: 'web-1', health: 'healthy' }, { name: 'web-2', health: 'healthy' }])
    // A refresh over unchanged items keeps the rows; a removed item is gone at the next one.
    const same = await request(testApp.app).post(`/api/view/${ids.pods}`).set(bearer).set('Cache-Control', 'max-age=0').send({ variables: { cluster: 'prod' } })
    expect(same.body.columnOptions).toEqual({ health: { list: ['healthy'] } })
    expect(await table()).toHaveLength(2)
    await testApp.db.query(`UPDATE config_items SET deleted_at = now() WHERE id = $1`, [ids.web2])
    await request(testApp.app).post(`/api/view/${ids.pods}`).set(bearer).set('Cache-Control', 'max-age=0').send({ variables: { cluster: 'prod' } })
    expect(await table()).toEqual([{ name: 'web-1', health: 'healthy' }])
    await testApp.db.query(`UPDATE config_items SET deleted_at = NULL WHERE id = $1`, [ids.web2])
    const bad = await request(testApp.app).post(`/api/view/${ids.pods}`).set(bearer).set('Cache-Control', 'max-age=soon').send({})
    expect(bad.status).toBe(400)
    expect(parseCacheControl('max-age=30, refresh-timeout=2')).toEqual({ maxAgeSeconds: 30, refreshTimeoutSeconds: 2 })
    // A changed spec is never answered from the cache of the old one.
    await request(testApp.app).patch(`/api/db/views?id=eq.${ids.pods}`).set(bearer).send({ spec: { ...podsView, cache: { maxAge: '1h', minAge: '1h' }, display: { ...podsView.display, title: 'Pods v2' } } })
    await testApp.db.query(`UPDATE views SET updated_at = now() + interval '1 second' WHERE id = $1`, [ids.pods])
    const changed = await request(testApp.app).post(`/api/view/${ids.pods}`).set(bearer).send({ variables: { cluster: 'prod' } })
    expect(changed.body).toMatchObject({ title: 'Pods v2', responseSource: 'fresh' })
  })

  it('runs sql through a PostgreSQL connection, merges the query tables and maps rows in CEL', async () => {
    const id = await createView('merged', {
      queries: {
        pods: { configs: { types: ['Kubernetes::Pod'] } },
        owners: { sql: { connection: 'connection://default/local-pg', query: "SELECT * FROM (VALUES ('web-1', 'alice', 1024), ('dev-1', 'bob', 2048)) AS t(pod, owner, mem)" } },
      },
      merge: 'SELECT p.id, p.name, o.owner, o.mem FROM pods p LEFT JOIN owners o ON o.pod = p.name',
      columns: [
        { name: 'id', type: 'string', primaryKey: true },
        { name: 'name', type: 'string' },
        { name: 'owner', type: 'string' },
        { name: 'memory', type: 'bytes' },
      ],
      mapping: { owner: "has(row.owner) && row.owner != null ? row.owner.upperAscii() : 'nobody'", memory: 'row.mem' },
      panels: [{ name: 'Owners', type: 'table', query: 'SELECT owner, mem FROM owners ORDER BY owner' }],
    })
    const response = await request(testApp.app).post(`/api/view/${id}`).set(bearer).send({})
    expect(response.status, JSON.stringify(response.body)).toBe(200)
    expect(response.body.requestFingerprint).toBe('')
    expect(response.body.panels[0].rows).toEqual([{ owner: 'alice', mem: 1024 }, { owner: 'bob', mem: 2048 }])
    const rows = await request(testApp.app).get('/api/db/view_default_merged?request_fingerprint=eq.&select=name,owner,memory&order=name.asc').set(bearer)
    expect(rows.status, JSON.stringify(rows.body)).toBe(200)
    expect(rows.body).toEqual([
      { name: 'dev-1', owner: 'BOB', memory: 2048 },
      { name: 'web-1', owner: 'ALICE', memory: 1024 },
      { name: 'web-2', owner: 'nobody', memory: null },
    ])
  })

  it('keeps the authors\' SQL to reading the query tables', async () => {
    expect(() => assertReadQuery('DELETE FROM config_items', 'merge')).toThrow('must be a SELECT query')
    expect(() => assertReadQuery("SELECT set_config('role', 'postgres', false)", 'merge')).toThrow('set_config')
    const id = await createView('sneaky', {
      queries: { pods: { configs: { types: ['Kubernetes::Pod'] } } },
      panels: [{ name: 'Secrets', type: 'table', query: 'SELECT * FROM lookout.settings' }],
    })
    const response = await request(testApp.app).post(`/api/view/${id}`).set(bearer).send({})
    expect(response.status).toBe(400)
    expect(response.body.error).toMatch(/panels\[0\]\.query: permission denied/)
    const write = await createView('writer', {
      queries: { pods: { configs: { types: ['Kubernetes::Pod'] } } },
      panels: [{ name: 'Write', type: 'table', query: 'WITH gone AS (DELETE FROM pods RETURNING 1) SELECT count(*) FROM gone' }],
    })
    const refused = await request(testApp.app).post(`/api/view/${write}`).set(bearer).send({})
    expect(refused.status).toBe(400)
    const { rows } = await testApp.db.query(`SELECT count(*)::int AS n FROM config_items WHERE type = 'Kubernetes::Pod'`)
    expect(rows[0]).toEqual({ n: 3 })
  })

  it('lists the views shown as tabs of a config; 404s and 400s of the reference', async () => {
    const tabs = await request(testApp.app).get(`/api/view/list?config_id=${ids.web1}`).set(bearer)
    expect(tabs.status).toBe(200)
    expect(tabs.body).toEqual([{ id: ids.pods, name: 'pods', namespace: 'default', title: 'Pods v2', icon: 'kubernetes' }])
    const none = await request(testApp.app).get(`/api/view/list?config_id=${ids.bucket}`).set(bearer)
    expect(none.body).toEqual([])
    expect((await request(testApp.app).get('/api/view/list').set(bearer)).body).toEqual({ error: 'config_id is required' })
    const missingConfig = await request(testApp.app).get('/api/view/list?config_id=00000000-0000-0000-0000-0000000000aa').set(bearer)
    expect(missingConfig.status).toBe(404)
    const missing = await request(testApp.app).post('/api/view/00000000-0000-0000-0000-0000000000aa').set(bearer).send({})
    expect(missing.status).toBe(404)
    expect(missing.body).toEqual({ error: 'view(id=00000000-0000-0000-0000-0000000000aa) not found' })
    expect((await request(testApp.app).post(`/api/view/${ids.pods}`).set(bearer).send({ variables: { cluster: 1 } })).status).toBe(400)
    expect((await request(testApp.app).post(`/api/view/${ids.pods}`).send({})).status).toBe(401)
  })

  it('applies row-level access: a narrowed caller gets rows of its own scope, and /api/db shows it only those', async () => {
    const db = testApp.db
    const id = await createView('all-pods', {
      queries: { pods: { configs: { types: ['Kubernetes::Pod'] } } },
      columns: [{ name: 'id', type: 'string', primaryKey: true }, { name: 'name', type: 'string' }],
      panels: [{ name: 'Pods', type: 'number', query: 'SELECT COUNT(*) AS value FROM pods' }],
    })
    const devOnly = await personWith(db, ['viewer'], 'dev-only')
    await db.query(`INSERT INTO permissions (subject_type, subject, object, action, tags) VALUES ('person', $1, 'catalog', 'read', '{"cluster":"dev"}')`, [devOnly.id])
    testApp.backend.authorizer.invalidate()
    const everyone = await request(testApp.app).post(`/api/view/${id}`).set(bearer).send({})
    expect(everyone.body.panels[0].rows).toEqual([{ value: 3 }])
    const narrowed = await request(testApp.app).post(`/api/view/${id}`).set(devOnly.headers).send({})
    expect(narrowed.status, JSON.stringify(narrowed.body)).toBe(200)
    expect(narrowed.body.panels[0].rows).toEqual([{ value: 1 }])
    expect(narrowed.body.requestFingerprint).not.toBe(everyone.body.requestFingerprint)
    // Even asking for the unnarrowed fingerprint, /api/db gives the narrowed caller only its rows.
    const sneak = await request(testApp.app).get(`/api/db/view_default_all_pods?select=name&request_fingerprint=eq.`).set(devOnly.headers)
    expect(sneak.status).toBe(200)
    expect(sneak.body).toEqual([])
    const own = await request(testApp.app).get(`/api/db/view_default_all_pods?select=name`).set(devOnly.headers)
    expect(own.body).toEqual([{ name: 'dev-1' }])
  })

  it('loads prometheus vectors and http JSON through loopback receivers, typed by the query columns', async () => {
    const server = http.createServer((req, res) => {
      const url = new URL(req.url ?? '/', 'http://x')
      res.setHeader('content-type', 'application/json')
      if (url.pathname === '/api/v1/query') {
        expect(url.searchParams.get('query')).toBe('up{job="web"}')
        res.end(JSON.stringify({ status: 'success', data: { resultType: 'vector', result: [
          { metric: { instance: 'a:9100', job: 'web' }, value: [1_700_000_000, '1'] },
          { metric: { instance: 'b:9100', job: 'web' }, value: [1_700_000_000, '0'] },
        ] } }))
      } else if (url.pathname === '/owners') {
        res.end(JSON.stringify({ items: [{ instance: 'a:9100', team: 'payments' }, { instance: 'b:9100', team: 'search' }] }))
      } else {
        res.statusCode = 404
        res.end('{}')
      }
    })
    await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve))
    const base = `http://127.0.0.1:${(server.address() as AddressInfo).port}`
    try {
      // The receivers listen on loopback, which only an admin's allow-list admits.
      const app = (await import('#tests/support/test-app.ts')).createTestApp(testApp.db, { LOOKOUT_CHECK_ALLOWED_TARGETS: `127.0.0.1:${(server.address() as AddressInfo).port}` }).app
      const id = await createView('targets', {
        queries: {
          up: { prometheus: { url: base, query: 'up{job="$(var.job)"}' }, columns: { value: 'number' } },
          owners: { http: { url: `${base}/owners`, jsonPath: 'items' } },
        },
        merge: 'SELECT u.instance, u.value, o.team FROM up u JOIN owners o USING (instance)',
        columns: [{ name: 'instance', type: 'string', primaryKey: true }, { name: 'up', type: 'boolean' }, { name: 'team', type: 'string' }],
        mapping: { up: 'row.value == 1' },
        templating: [{ key: 'job', values: ['web'] }],
        panels: [{ name: 'Down', type: 'number', query: 'SELECT count(*) AS value FROM up WHERE value = 0' }],
      })
      const response = await request(app).post(`/api/view/${id}`).set(bearer).send({})
      expect(response.status, JSON.stringify(response.body)).toBe(200)
      expect(response.body.panels[0].rows).toEqual([{ value: 1 }])
      const rows = await request(app).get(`/api/db/view_default_targets?request_fingerprint=eq.${response.body.requestFingerprint}&select=instance,up,team&order=instance`).set(bearer)
      expect(rows.body).toEqual([{ instance: 'a:9100', up: true, team: 'payments' }, { instance: 'b:9100', up: false, team: 'search' }])
      // Without the allow-list entry the same loopback receiver is refused, with the reason.
      const refused = await request(testApp.app).post(`/api/view/${id}`).set(bearer).set('Cache-Control', 'max-age=0').send({})
      expect(refused.status).toBe(200)
      expect(refused.body.refreshStatus).toBe('cache')
    } finally {
      server.close()
    }
  })

  it('runs a view as a config tab with the plugin variables read from the item', async () => {
    const id = await createView('pod-tab', {
      display: { title: 'Same cluster', plugins: [{ configTab: { types: ['Kubernetes::Pod'] }, variables: { cluster: '$(.config.tags.cluster)' } }] },
      queries: { pods: { configs: { types: ['Kubernetes::Pod'], tagSelector: 'cluster=$(var.cluster)' } } },
      panels: [{ name: 'Neighbours', type: 'table', query: "SELECT name FROM pods WHERE id::text <> '$(var.config_id)' ORDER BY name" }],
    })
    const tab = await request(testApp.app).post(`/api/view/${id}`).set(bearer).send({ variables: { config_id: ids.web1 } })
    expect(tab.status, JSON.stringify(tab.body)).toBe(200)
    expect(tab.body.panels[0].rows).toEqual([{ name: 'web-2' }])
    const other = await request(testApp.app).post(`/api/view/${id}`).set(bearer).send({ variables: { config_id: ids.dev1 } })
    expect(other.body.panels[0].rows).toEqual([])
    expect(other.body.requestFingerprint).not.toBe(tab.body.requestFingerprint)
  })

  it('answers the previous result when a refresh outlasts refreshTimeout, and keeps it refreshing behind', async () => {
    let calls = 0
    const server = http.createServer((_req, res) => {
      calls += 1
      const answer = JSON.stringify([{ name: 'slow', n: calls }])
      setTimeout(() => {
        res.setHeader('content-type', 'application/json')
        res.end(answer)
      }, calls === 1 ? 0 : 1500)
    })
    await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve))
    const port = (server.address() as AddressInfo).port
    try {
      const app = (await import('#tests/support/test-app.ts')).createTestApp(testApp.db, { LOOKOUT_CHECK_ALLOWED_TARGETS: `127.0.0.1:${port}` }).app
      const id = await createView('slow', {
        queries: { items: { http: { url: `http://127.0.0.1:${port}/` } } },
        panels: [{ name: 'Calls', type: 'number', query: 'SELECT max(n) AS value FROM items' }],
        cache: { minAge: '0s', refreshTimeout: '200ms' },
      })
      const first = await request(app).post(`/api/view/${id}`).set(bearer).send({})
      expect(first.body).toMatchObject({ responseSource: 'fresh', panels: [{ rows: [{ value: 1 }] }] })
      const started = Date.now()
      const slow = await request(app).post(`/api/view/${id}`).set(bearer).set('Cache-Control', 'max-age=0').send({})
      expect(Date.now() - started).toBeLessThan(1200)
      expect(slow.body).toMatchObject({ responseSource: 'cache', refreshStatus: 'timeout', panels: [{ rows: [{ value: 1 }] }] })
      await new Promise((resolve) => setTimeout(resolve, 1800))
      const after = await request(app).post(`/api/view/${id}`).set(bearer).send({})
      expect(after.body).toMatchObject({ responseSource: 'cache', refreshStatus: 'cache', panels: [{ rows: [{ value: 2 }] }] })
    } finally {
      server.close()
    }
  })

  it('serves a view made only of sections', async () => {
    const id = await createView('overview', { display: { title: 'Overview' }, sections: [{ title: 'Pods', viewRef: { namespace: 'default', name: 'pods' } }, { title: 'Changes', uiRef: { changes: {} } }] })
    const response = await request(testApp.app).post(`/api/view/${id}`).set(bearer).send({})
    expect(response.status, JSON.stringify(response.body)).toBe(200)
    expect(response.body).toMatchObject({ title: 'Overview', columns: [], panels: [], sections: [{ title: 'Pods', viewRef: { namespace: 'default', name: 'pods' } }, { title: 'Changes', uiRef: { changes: {} } }] })
  })

  it('fingerprints and substitutes as documented', () => {
    expect(requestFingerprint({}, '')).toBe('')
    expect(requestFingerprint({ a: '1', b: '2' }, '')).toBe(requestFingerprint({ b: '2', a: '1' }, ''))
    expect(requestFingerprint({}, 'scope')).not.toBe('')
    expect(substitute("name = '$(var.x)'", { x: "o'brien" }, true)).toBe("name = 'o''brien'")
    expect(substitute({ tagSelector: 'cluster=$(var.x)' }, { x: 'prod' })).toEqual({ tagSelector: 'cluster=prod' })
  })
})
