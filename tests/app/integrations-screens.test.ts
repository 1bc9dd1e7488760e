import http from 'node:http'
import type { AddressInfo } from 'node:net'
import type { AppLoadContext } from '@remix-run/node'
import { afterAll, beforeAll, describe, expect, it } from 'vitest'
import type { GitopsResult } from '#app/components/integrations/add-integration-dialog.tsx'
import { loader as editLoader } from '#app/routes/_console.settings.integrations.$type.$id.tsx'
import { action as integrationsAction, loader as integrationsLoader } from '#app/routes/_console.settings.integrations._index.tsx'
import { personWith } from '#tests/rbac/rbac-fixture.ts'
import { bearer } from '#tests/support/test-app.ts'
import { useTestApp } from '#tests/support/use-test-app.ts'

/**
 * /settings/integrations against the real gateway and backend on a loopback port, as Remix calls
 * its loader and action: rows from `integrations_with_status` with their last run and errors,
 * filters and sorting from the URL, the Add Integration modal and its Generate action only for
 * those with write access, and the edit route sending scrapers and log backends to their editors.
 */
describe('integrations screen', () => {
  const testApp = useTestApp()
  let server: http.Server
  let base: string
  let scraperId: string
  let topologyId: string

  beforeAll(async () => {
    server = http.createServer((req, res) => testApp.app(req, res))
    await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve))
    base = `http://127.0.0.1:${(server.address() as AddressInfo).port}`
    const db = testApp.db
    scraperId = (await db.query<{ id: string }>(`INSERT INTO config_scrapers (name, spec, source) VALUES ('it-kube-scraper', '{}'::jsonb, 'UI') RETURNING id`)).rows[0]!.id
    topologyId = (await db.query<{ id: string }>(`INSERT INTO topologies (name, namespace, spec, source) VALUES ('it-topology', 'default', '{}'::jsonb, 'UI') RETURNING id`)).rows[0]!.id
    await db.query(`INSERT INTO logging_backends (name, spec, source) VALUES ('it-loki', '{}'::jsonb, 'UI'), ('it-gone', '{}'::jsonb, 'UI')`)
    await db.query(`UPDATE logging_backends SET deleted_at = now() WHERE name = 'it-gone'`)
    await db.query(
      `INSERT INTO job_history (name, status, resource_type, resource_id, details, time_start, created_at, success_count, error_count) VALUES
         ('Scraper', 'FAILED', 'config_scraper', $1, '{"errors": ["dial tcp: connection refused", {"code": 7}]}'::jsonb, now(), now(), 0, 2),
         ('Topology', 'SUCCESS', 'topology', $2, '{}'::jsonb, now(), now(), 1, 0)`,
      [scraperId, topologyId],
    )
  })

  afterAll(async () => {
    await new Promise<void>((resolve) => server.close(() => resolve()))
  })

  const context = () => ({ gateway: { gatewayBaseUrl: base, gatewayTimeoutMs: 10_000 }, cspNonce: 'n', publicEnv: { frontendVersion: 't', mode: 'embedded' } }) as AppLoadContext
  const get = (path: string, headers: Record<string, string> = bearer) => ({ request: new Request(`http://console.test${path}`, { headers }), context: context(), params: {} })
  const post = (fields: Record<string, string>, headers: Record<string, string> = bearer) => ({
    request: new Request('http://console.test/settings/integrations?index&add=kubernetes', { method: 'POST', headers: { ...headers, 'content-type': 'application/x-www-form-urlencoded' }, body: new URLSearchParams(fields) }),
    context: context(),
    params: {},
  })
  type Loaded = Awaited<ReturnType<typeof integrationsLoader>>['data']
  const load = async (search = '', headers: Record<string, string> = bearer) => ((await integrationsLoader(get(`/settings/integrations${search}`, headers))) as unknown as { data: Loaded }).data
  const ours = (rows: Loaded['rows']) => rows.filter((row) => row.name.startsWith('it-'))

  /** A thrown Response or a returned `data()`, as Remix would send it. */
  async function settle(run: () => Promise<unknown>): Promise<{ status: number; location: string | null; body: GitopsResult | null }> {
    let answer: unknown
    try {
      answer = await run()
    } catch (thrown) {
      answer = thrown
    }
    if (answer instanceof Response) return { status: answer.status, location: answer.headers.get('location'), body: null }
    const single = answer as { data: GitopsResult | null; init?: { status?: number } | null }
    return { status: single.init?.status ?? 200, location: null, body: single.data }
  }

  it('lists live scrapers, topologies and log backends with their last run and errors', async () => {
    const loaded = await load('?search=it-')
    expect(loaded.canWrite).toBe(true)
    expect(ours(loaded.rows).map((row) => [row.name, row.integration_type, row.job_status, row.errors])).toEqual([
      ['it-kube-scraper', 'scrapers', 'FAILED', ['dial tcp: connection refused', '{"code":7}']],
      ['it-loki', 'logging_backends', null, []],
      ['it-topology', 'topologies', 'SUCCESS', []],
    ])
  })

  it('filters by type and status and sorts from the URL', async () => {
    expect(ours((await load('?search=it-&type=topologies')).rows).map((row) => row.name)).toEqual(['it-topology'])
    expect(ours((await load('?search=it-&status=FAILED')).rows).map((row) => row.name)).toEqual(['it-kube-scraper'])
    expect(ours((await load('?search=it-&sortBy=name&sortDesc=true')).rows).map((row) => row.name)).toEqual(['it-topology', 'it-loki', 'it-kube-scraper'])
    // A page past the end (the list shrank under a bookmarked URL) shows the first page.
    const paged = await load('?search=it-&pageSize=50&page=2')
    expect(paged.search.page).toBe(1)
    expect(ours(paged.rows)).toHaveLength(3)
  })

  it('opens the modal steps from the URL for a writer, and neither for a viewer', async () => {
    const choosing = await load('?add=1')
    expect(choosing.add).toBe('choose')
    expect(choosing.form).toBeNull()
    expect(choosing.direct.map((choice) => choice.label)).toEqual(['Custom Topology', 'Catalog Scraper', 'Log Backends'])
    const kubernetes = await load('?add=kubernetes')
    expect(kubernetes.form).toMatchObject({ id: 'kubernetes', label: 'Kubernetes', chart: 'mission-control-kubernetes', namespace: 'mission-control' })
    expect(kubernetes.form?.fields.map((field) => field.path)).toEqual(['clusterName', 'prometheusURL', 'scraper', 'topology', 'playbooks'])

    const viewer = await personWith(testApp.db, ['viewer'])
    const seen = await load('?search=it-&add=kubernetes', viewer.headers)
    expect(seen.canWrite).toBe(false)
    expect(seen.add).toBeNull()
    expect(seen.form).toBeNull()
    expect(ours(seen.rows)).toHaveLength(3)
  })

  it('generates the manifests and commands, refuses bad values with 400, and refuses a viewer', async () => {
    const done = await settle(() => integrationsAction(post({ intent: 'generate', chart: 'kubernetes', namespace: 'ops', 'values.clusterName': 'prod', 'values.playbooks.enabled': 'false' })))
    expect(done.status).toBe(200)
    expect(done.body?.output?.manifests).toContain('chart: mission-control-kubernetes')
    expect(done.body?.output?.commands).toContain('--set playbooks.enabled=false')
    expect(done.body?.submitted).toEqual({ namespace: 'ops', 'values.clusterName': 'prod', 'values.playbooks.enabled': 'false' })

    const refused = await settle(() => integrationsAction(post({ intent: 'generate', chart: 'kubernetes', namespace: 'ops', 'values.clusterName': '' })))
    expect(refused.status).toBe(400)
    expect(refused.body).toMatchObject({ chart: 'kubernetes', output: null, errors: { clusterName: ['Required'] } })

    expect((await settle(() => integrationsAction(post({ intent: 'generate', chart: 'helm' })))).status).toBe(400)
    const viewer = await personWith(testApp.db, ['viewer'])
    expect((await settle(() => integrationsAction(post({ intent: 'generate', chart: 'kubernetes', namespace: 'ops' }, viewer.headers)))).status).toBe(403)
  })

  it('sends scrapers and log backends to their own editors, and refuses a viewer', async () => {
    const scraper = await settle(() => editLoader({ ...get(`/settings/integrations/scrapers/${scraperId}`), params: { type: 'scrapers', id: scraperId } }))
    expect(scraper).toMatchObject({ status: 302, location: `/catalog/scrapers/${scraperId}` })
    const backend = await settle(() => editLoader({ ...get('/settings/integrations/logging_backends/x'), params: { type: 'logging_backends', id: 'x' } }))
    expect(backend).toMatchObject({ status: 302, location: '/settings/logging_backends/x' })
    const odd = await settle(() => editLoader({ ...get('/settings/integrations/constructor/x'), params: { type: 'constructor', id: 'x' } }))
    expect(odd.status).toBe(200)
    const viewer = await personWith(testApp.db, ['viewer'])
    expect((await settle(() => editLoader({ ...get(`/settings/integrations/scrapers/${scraperId}`, viewer.headers), params: { type: 'scrapers', id: scraperId } }))).status).toBe(403)
  })
})
