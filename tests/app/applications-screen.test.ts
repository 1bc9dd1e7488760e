import http from 'node:http'
import type { AddressInfo } from 'node:net'
import type { AppLoadContext } from '@remix-run/node'
import { afterAll, beforeAll, describe, expect, it } from 'vitest'
import { parseApplicationListParams, parseReportParams } from '#app/lib/application-search.ts'
import { applicationSelectors } from '#app/lib/applications.server.ts'
import { loader as reportLoader } from '#app/routes/_console.applications.$namespace.$name.tsx'
import { loader as listLoader } from '#app/routes/_console.applications._index.tsx'
import { loader as printLoader } from '#app/routes/applications.$namespace.$name.print.tsx'
import { insertHypothesis, insertIncident, insertPerson } from '#tests/incidents/incident-fixtures.ts'
import { personWith } from '#tests/rbac/rbac-fixture.ts'
import { bearer } from '#tests/support/test-app.ts'
import { useTestApp } from '#tests/support/use-test-app.ts'

/**
 * /applications and the audit report as Remix calls them, against the real gateway and backend
 * on a loopback port: an application whose selector picks its configs through the catalog's
 * resource search, with changes, a backup, an insight and an incident on those configs, and a
 * scoped viewer who sees only the configs their scope allows.
 */
describe('applications screens', () => {
  const testApp = useTestApp()
  let server: http.Server
  let base: string
  const ids: Record<string, string> = {}

  beforeAll(async () => {
    server = http.createServer((req, res) => testApp.app(req, res))
    await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve))
    base = `http://127.0.0.1:${(server.address() as AddressInfo).port}`
    const db = testApp.db
    for (const [name, cluster] of [['shop-db', 'a'], ['shop-web', 'b'], ['other-db', 'a']] as const) {
      const { rows } = await db.query<{ id: string }>(
        `INSERT INTO config_items (name, type, config_class, tags, health, status) VALUES ($1, 'Postgres::Database', 'Database', $2::jsonb, 'healthy', 'Running') RETURNING id`,
        [name, JSON.stringify({ cluster, app: name.startsWith('shop') ? 'shop' : 'other' })],
      )
      ids[name] = rows[0]!.id
    }
    const change = (config: string, type: string, summary: string, ageDays: number) =>
      db.query(`INSERT INTO config_changes (config_id, change_type, severity, summary, source, created_at) VALUES ($1, $2, 'info', $3, 'test', now() - make_interval(days => $4))`, [ids[config], type, summary, ageDays])
    await change('shop-db', 'BackupCompleted', 'nightly backup', 1)
    await change('shop-db', 'diff', 'max_connections 100 → 200', 2)
    await change('shop-web', 'diff', 'replicas 2 → 3', 3)
    await change('shop-db', 'diff', 'an old change', 60)
    await change('other-db', 'diff', 'not this application', 1)
    await db.query(`INSERT INTO config_analysis (config_id, analyzer, analysis_type, severity, summary, status) VALUES ($1, 'pg-tuning', 'performance', 'medium', 'shared_buffers too small', 'open')`, [ids['shop-db']])
    const person = await insertPerson(db, 'auditor')
    const incident = await insertIncident(db, person, 'Checkout slow')
    const hypothesis = await insertHypothesis(db, incident, person)
    await db.query(`INSERT INTO evidences (description, hypothesis_id, config_id, created_by, type) VALUES ('db saturated', $1, $2, $3, 'config')`, [hypothesis, ids['shop-db'], person])
    await db.query(
      `INSERT INTO applications (name, namespace, description, spec, labels, source) VALUES ('shop', 'payments', 'The shop', $1::jsonb, '{"team":"payments"}', 'UI'),
        ('no-selectors', 'payments', NULL, '{}', NULL, 'UI')`,
      [JSON.stringify({ selectors: [{ tagSelector: 'app=shop' }] })],
    )
    await db.query(`INSERT INTO applications (name, namespace, spec, source, deleted_at) VALUES ('gone', 'payments', '{}', 'UI', now())`)
  })
  afterAll(async () => {
    await new Promise<void>((resolve) => server.close(() => resolve()))
  })

  const context = () => ({ gateway: { gatewayBaseUrl: base, gatewayTimeoutMs: 10_000 }, cspNonce: 'n', publicEnv: { frontendVersion: 't', mode: 'embedded' } }) as AppLoadContext
  const call = async <T,>(load: (args: never) => Promise<unknown>, url: string, params: Record<string, string>, headers: Record<string, string> = bearer) => {
    try {
      const answer = (await load({ request: new Request(url, { headers }), context: context(), params } as never)) as { data: T }
      return { status: 200, data: answer.data, location: null as string | null }
    } catch (thrown) {
      if (thrown instanceof Response) return { status: thrown.status, data: null, location: thrown.headers.get('location') }
      if (thrown && typeof thrown === 'object' && 'init' in thrown) return { status: (thrown as { init: { status: number } }).init.status, data: null, location: null }
      throw thrown
    }
  }
  type Report = Awaited<ReturnType<typeof reportLoader>>['data']

  it('lists live applications with the URL state, leaving deleted ones out', async () => {
    const listed = await call<Awaited<ReturnType<typeof listLoader>>['data']>(listLoader, 'http://console.test/applications?sortBy=name&search=sho', {})
    expect(listed.data!.rows.map((row) => `${row.namespace}/${row.name}`)).toEqual(['payments/shop'])
    expect(listed.data!.total).toBe(1)
    const all = await call<Awaited<ReturnType<typeof listLoader>>['data']>(listLoader, 'http://console.test/applications', {})
    expect(all.data!.rows.map((row) => row.name)).toEqual(['no-selectors', 'shop'])
  })

  it('renders the audit report of the configs its selectors pick, within the range', async () => {
    const { data } = await call<Report>(reportLoader, 'http://console.test/applications/payments/shop?range=30d', { namespace: 'payments', name: 'shop' })
    const report = data!.report
    expect(report.configs.map((config) => config.name)).toEqual(['shop-db', 'shop-web'])
    expect(report.changes.map((change) => change.summary)).toEqual(['nightly backup', 'max_connections 100 → 200', 'replicas 2 → 3'])
    expect(report.backups.map((change) => change.change_type)).toEqual(['BackupCompleted'])
    expect(report.insights).toMatchObject([{ name: 'shop-db', analyzer: 'pg-tuning', summary: 'shared_buffers too small' }])
    expect(report.incidents).toMatchObject([{ title: 'Checkout slow', configs: ['shop-db'] }])
    // A wider range reaches the older change.
    const wide = await call<Report>(reportLoader, 'http://console.test/applications/payments/shop?range=90d', { namespace: 'payments', name: 'shop' })
    expect(wide.data!.report.changes.map((change) => change.summary)).toContain('an old change')
    const none = await call<Report>(reportLoader, 'http://console.test/applications/payments/no-selectors', { namespace: 'payments', name: 'no-selectors' })
    expect(none.data!.report).toMatchObject({ configs: [], changes: [], selectors: [] })
  })

  it('narrows the report to the configs a scoped viewer may see', async () => {
    const scoped = await personWith(testApp.db, ['viewer'], 'app-scoped')
    await testApp.db.query(`INSERT INTO permissions (subject_type, subject, object, action, tags) VALUES ('person', $1, 'catalog', 'read', '{"cluster":"a"}')`, [scoped.id])
    testApp.backend.authorizer.invalidate()
    const { data, status } = await call<Report>(reportLoader, 'http://console.test/applications/payments/shop', { namespace: 'payments', name: 'shop' }, scoped.headers)
    expect(status).toBe(200)
    expect(data!.report.configs.map((config) => config.name)).toEqual(['shop-db'])
    expect(data!.report.changes.map((change) => change.summary)).not.toContain('replicas 2 → 3')
  })

  it('sends ?print=1 to the chrome-free print route, and answers 404 for unknown or deleted applications', async () => {
    const print = await call(reportLoader, 'http://console.test/applications/payments/shop?print=1&range=7d', { namespace: 'payments', name: 'shop' })
    expect(print).toMatchObject({ status: 302, location: '/applications/payments/shop/print?range=7d' })
    const printed = await call<Awaited<ReturnType<typeof printLoader>>['data']>(printLoader, 'http://console.test/applications/payments/shop/print?range=7d', { namespace: 'payments', name: 'shop' })
    expect(printed.data!.report.backups).toHaveLength(1)
    expect((await call(reportLoader, 'http://console.test/applications/payments/gone', { namespace: 'payments', name: 'gone' })).status).toBe(404)
    expect((await call(printLoader, 'http://console.test/applications/x/y/print', { namespace: 'x', name: 'y' })).status).toBe(404)
  })

  it('reads URL state and specs without failing on junk', () => {
    expect(parseApplicationListParams(new URLSearchParams('sortBy=drop;table&page=-1&pageSize=7'))).toEqual({ search: '', sortBy: 'name', sortDesc: false, page: 1, pageSize: 50 })
    expect(parseApplicationListParams(new URLSearchParams('sortBy=updated_at'))).toMatchObject({ sortDesc: true })
    expect(parseReportParams(new URLSearchParams('range=5y&print=yes'))).toEqual({ range: '30d', print: false })
    expect(applicationSelectors({ selectors: [{ types: ['A'], junk: 1 }, {}] })).toEqual([{ types: ['A'] }])
    expect(applicationSelectors({ selectors: 'nope' })).toEqual([])
    expect(applicationSelectors(null)).toEqual([])
  })
})
