import http from 'node:http'
import type { AddressInfo } from 'node:net'
import type { AppLoadContext } from '@remix-run/node'
import { afterAll, beforeAll, describe, expect, it } from 'vitest'
import { action, loader } from '#app/routes/_console.settings.agents.tsx'
import { loader as catalogLoader } from '#app/routes/_console.catalog._index.tsx'
import { loader as healthLoader } from '#app/routes/_console.health.tsx'
import { personWith } from '#tests/rbac/rbac-fixture.ts'
import { bearer } from '#tests/support/test-app.ts'
import { useTestApp } from '#tests/support/use-test-app.ts'

/**
 * /settings/agents as Remix calls it, against the real gateway and backend on a loopback port:
 * the list with counts from agents_summary, generate (token shown once, with the install lines),
 * edit and delete as form posts — the page's only way of working without JavaScript.
 */
describe('agents screen', () => {
  const testApp = useTestApp()
  let server: http.Server
  let base: string

  beforeAll(async () => {
    server = http.createServer((req, res) => testApp.app(req, res))
    await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve))
    base = `http://127.0.0.1:${(server.address() as AddressInfo).port}`
  })
  afterAll(async () => {
    await new Promise<void>((resolve) => server.close(() => resolve()))
  })

  const context = () => ({ gateway: { gatewayBaseUrl: base, gatewayTimeoutMs: 10_000 }, cspNonce: 'n', publicEnv: { frontendVersion: 't', mode: 'embedded' } }) as AppLoadContext
  const list = async () => {
    const answer = (await loader({ request: new Request('http://console.test/settings/agents', { headers: bearer }), context: context(), params: {} })) as unknown as {
      data: Awaited<ReturnType<typeof loader>>['data']
    }
    return answer.data
  }
  const post = async (fields: Record<string, string>, headers: Record<string, string> = bearer) => {
    const args = {
      request: new Request('http://console.test/settings/agents', { method: 'POST', headers: { ...headers, 'content-type': 'application/x-www-form-urlencoded' }, body: new URLSearchParams(fields) }),
      context: context(),
      params: {},
    }
    try {
      const answer = (await action(args)) as unknown as { data: { created: { token: string; username: string } | null; result: { error?: Record<string, string[]> } }; init?: { status?: number } | null }
      return { status: answer.init?.status ?? 200, location: null as string | null, data: answer.data }
    } catch (thrown) {
      if (thrown instanceof Response) return { status: thrown.status, location: thrown.headers.get('location'), data: null }
      throw thrown
    }
  }

  it('generates an agent from the form, shows its token once, and lists it with its counts', async () => {
    const generated = await post({ intent: 'generate', name: 'eu-edge', properties: 'region=eu' })
    expect(generated.status).toBe(200)
    const token = generated.data!.created!.token
    expect(token.length).toBeGreaterThan(24)
    const listed = await list()
    expect(listed.upstreamUrl).toBe('http://console.test/api')
    const agent = listed.agents.find((row) => row.name === 'eu-edge')!
    expect(agent).toMatchObject({ properties: { region: 'eu' }, status: 'unknown', checks_count: null, config_count: null, components_count: null })
    // The list never carries the secret.
    expect(JSON.stringify(listed)).not.toContain(token)

    // The agent's own results count on the list once it pushed them.
    await testApp.db.query(`INSERT INTO components (name, external_id, status, agent_id) VALUES ('edge-svc', 'edge-svc', 'healthy', $1)`, [agent.id])
    expect((await list()).agents.find((row) => row.id === agent.id)).toMatchObject({ components_count: 1 })
  })

  it('refuses a bad properties line and a generate by a non-admin, naming why', async () => {
    const bad = await post({ intent: 'generate', name: 'typo', properties: 'region' })
    expect(bad.status).toBe(400)
    expect(bad.data!.result.error?.properties).toEqual(['line 1: write key=value'])
    const editor = await personWith(testApp.db, ['editor'])
    const refused = await post({ intent: 'generate', name: 'by-editor' }, editor.headers)
    expect(refused.status).toBe(400)
    expect(refused.data!.result.error?.['']?.join(' ')).toMatch(/only admins/)
    expect((await list()).agents.map((row) => row.name)).not.toContain('by-editor')
  })

  it('edits description and properties, then deletes (soft) with a toast redirect', async () => {
    const agent = (await list()).agents.find((row) => row.name === 'eu-edge')!
    const edited = await post({ intent: 'edit', id: agent.id, description: 'EU edge cluster', properties: 'region=eu\ntier=edge' })
    expect(edited).toMatchObject({ status: 303, location: '/settings/agents' })
    expect((await list()).agents.find((row) => row.id === agent.id)).toMatchObject({ description: 'EU edge cluster', properties: { region: 'eu', tier: 'edge' } })
    const deleted = await post({ intent: 'delete', id: agent.id, name: agent.name })
    expect(deleted).toMatchObject({ status: 303, location: '/settings/agents' })
    expect((await list()).agents.map((row) => row.id)).not.toContain(agent.id)
    const { rows } = await testApp.db.query<{ deleted: boolean }>('SELECT deleted_at IS NOT NULL AS deleted FROM agents WHERE id = $1', [agent.id])
    expect(rows).toEqual([{ deleted: true }])
  })

  it("/catalog?agent_id= lists only that agent's items; /health's Agent tab only its checks", async () => {
    const generated = await post({ intent: 'generate', name: 'filter-agent' })
    expect(generated.status).toBe(200)
    const agent = (await list()).agents.find((row) => row.name === 'filter-agent')!
    const db = testApp.db
    await db.query(`INSERT INTO config_items (name, type, config_class, agent_id) VALUES ('remote-pod', 'Kubernetes::Pod', 'Pod', $1), ('local-pod', 'Kubernetes::Pod', 'Pod', DEFAULT)`, [agent.id])
    const canary = await db.query<{ id: string }>(`INSERT INTO canaries (name, namespace, spec, agent_id) VALUES ('remote', 'default', '{}', $1) RETURNING id::text`, [agent.id])
    await db.query(`INSERT INTO checks (canary_id, type, name, agent_id, status) VALUES ($1, 'http', 'remote-check', $2, 'healthy')`, [canary.rows[0]!.id, agent.id])
    const localCanary = await db.query<{ id: string }>(`INSERT INTO canaries (name, namespace, spec) VALUES ('local', 'default', '{}') RETURNING id::text`)
    await db.query(`INSERT INTO checks (canary_id, type, name, status) VALUES ($1, 'http', 'local-check', 'healthy')`, [localCanary.rows[0]!.id])

    const catalog = (await catalogLoader({ request: new Request(`http://console.test/catalog?agent_id=${agent.id}`, { headers: bearer }), context: context(), params: {} })) as unknown as {
      data: { view: string; rows: { name: string }[] }
    }
    expect(catalog.data.view).toBe('list')
    expect(catalog.data.rows.map((row) => row.name)).toEqual(['remote-pod'])
    // A bad value falls back to no filter rather than failing the page.
    const unfiltered = (await catalogLoader({ request: new Request('http://console.test/catalog?agent_id=nope&type=Kubernetes::Pod', { headers: bearer }), context: context(), params: {} })) as unknown as {
      data: { rows: { name: string }[] }
    }
    expect(unfiltered.data.rows.map((row) => row.name).sort()).toEqual(['local-pod', 'remote-pod'])

    const health = (await healthLoader({
      request: new Request(`http://console.test/health?tabBy=agent_id&tab=filter-agent&hidePassing=false&groupBy=no_grouping`, { headers: bearer }),
      context: context(),
      params: {},
    })) as unknown as { view: { activeTab: string; rows: { name?: string; check?: { name: string } }[]; tabs: { value: string }[] } }
    expect(health.view.activeTab).toBe('filter-agent')
    expect(health.view.tabs.map((tab) => tab.value)).toEqual(expect.arrayContaining(['filter-agent', 'local']))
    expect(JSON.stringify(health.view.rows)).toContain('remote-check')
    expect(JSON.stringify(health.view.rows)).not.toContain('local-check')
  })
})
