import { createServer, type Server } from 'node:http'
import type { AddressInfo } from 'node:net'
import { Client } from '@modelcontextprotocol/sdk/client/index.js'
import { StreamableHTTPClientTransport } from '@modelcontextprotocol/sdk/client/streamableHttp.js'
import type { CallToolResult } from '@modelcontextprotocol/sdk/types.js'
import express from 'express'
import { afterAll, beforeAll, describe, expect, it } from 'vitest'
import { MCP_TOOL_NAMES } from '#contract/mcp/mcp-api.ts'
import { useTestApp } from '#tests/support/use-test-app.ts'
import { TEST_TOKEN, createTestApp } from '#tests/support/test-app.ts'
import { personWith } from '#tests/rbac/rbac-fixture.ts'

/**
 * `/api/mcp` (http-api §2.1.11) driven by the MCP SDK's own client over a real listening server:
 * the handshake, the tools answering from seeded data as the caller, and the refusals.
 */

describe('/api/mcp', () => {
  const testApp = useTestApp()
  let server: Server
  const extraServers: Server[] = []
  let base: string
  const ids: Record<string, string> = {}
  const people: Record<string, Awaited<ReturnType<typeof personWith>>> = {}
  const clients: Client[] = []

  async function listen(listener: Parameters<typeof createServer>[1]): Promise<string> {
    const started = createServer(listener)
    await new Promise<void>((resolve) => started.listen(0, '127.0.0.1', resolve))
    extraServers.push(started)
    return `http://127.0.0.1:${(started.address() as AddressInfo).port}`
  }

  async function connect(authorization: string, path = '/api/mcp', origin = base): Promise<Client> {
    const client = new Client({ name: 'lookout-test', version: '1.0.0' })
    await client.connect(new StreamableHTTPClientTransport(new URL(`${origin}${path}`), { requestInit: { headers: { Authorization: authorization } } }))
    clients.push(client)
    return client
  }

  function payload(result: Awaited<ReturnType<Client['callTool']>>): Record<string, unknown> {
    const content = (result as CallToolResult).content
    expect(result.isError ?? false).toBe(false)
    expect(content[0]?.type).toBe('text')
    return JSON.parse((content[0] as { text: string }).text) as Record<string, unknown>
  }

  function errorText(result: Awaited<ReturnType<Client['callTool']>>): string {
    expect(result.isError).toBe(true)
    return ((result as CallToolResult).content[0] as { text: string }).text
  }

  const post = (path: string, headers: Record<string, string>, body: unknown) =>
    fetch(`${base}${path}`, { method: 'POST', headers: { 'Content-Type': 'application/json', ...headers }, body: JSON.stringify(body) })

  // The contract's first call, as the console's "Direct HTTP" setup shows it (no clientInfo, no Accept).
  const initialize = { jsonrpc: '2.0', id: 1, method: 'initialize', params: { protocolVersion: '2024-11-05', capabilities: {} } }

  beforeAll(async () => {
    const { db } = testApp
    const config = async (name: string, type: string, cluster: string) =>
      (await db.query<{ id: string }>(
        `INSERT INTO config_items (name, type, config_class, tags, config) VALUES ($1, $2, 'Pod', $3::jsonb, '{"spec":{"replicas":2}}') RETURNING id`,
        [name, type, JSON.stringify({ cluster, namespace: 'shop' })],
      )).rows[0]!.id
    ids.checkoutPod = await config('checkout-pod', 'Kubernetes::Pod', 'a')
    ids.cartPod = await config('cart-pod', 'Kubernetes::Pod', 'b')
    ids.ordersDb = await config('orders-db', 'AWS::RDS::Instance', 'a')
    await db.query(
      `INSERT INTO config_changes (config_id, change_type, severity, source, summary, created_at) VALUES
       ($1, 'diff', 'info', 'kubernetes', 'replicas 1 -> 2', now() - interval '1 hour'),
       ($1, 'Pulled', 'info', 'kubernetes', 'image pulled', now())`,
      [ids.checkoutPod],
    )
    const canary = (await db.query<{ id: string }>(`INSERT INTO canaries (name, namespace, spec) VALUES ('shop-checks', 'shop', '{}') RETURNING id`)).rows[0]!.id
    const check = async (name: string, status: string) =>
      (await db.query<{ id: string }>(
        `INSERT INTO checks (canary_id, type, name, namespace, status, last_transition_time) VALUES ($1, 'http', $2, 'shop', $3, now()) RETURNING id`,
        [canary, name, status],
      )).rows[0]!.id
    ids.failing = await check('checkout-api', 'unhealthy')
    ids.passing = await check('cart-api', 'healthy')
    await db.query(
      `INSERT INTO check_statuses (check_id, status, message, error, duration, time) VALUES
       ($1, true, 'ok', NULL, 12, now() - interval '2 minutes'),
       ($1, false, 'HTTP 503', 'expected 200, got 503', 30, now() - interval '1 minute')`,
      [ids.failing],
    )
    const admin = (await db.query<{ id: string }>(`INSERT INTO people (name, email) VALUES ('Mia Admin', 'mia@example.test') RETURNING id`)).rows[0]!.id
    ids.incident = (await db.query<{ id: string }>(
      `INSERT INTO incidents (title, created_by, severity, description, type, status) VALUES ('Checkout down', $1, 'high', 'checkout answers 503', 'availability', 'open') RETURNING id`,
      [admin],
    )).rows[0]!.id
    await db.query(
      `INSERT INTO incidents (title, created_by, severity, description, type, status) VALUES ('Old outage', $1, 'low', 'long gone', 'availability', 'closed')`,
      [admin],
    )
    const hypothesis = (await db.query<{ id: string }>(
      `INSERT INTO hypotheses (created_by, incident_id, type, title, status) VALUES ($1, $2, 'root', 'Bad deploy', 'possible') RETURNING id`,
      [admin, ids.incident],
    )).rows[0]!.id
    await db.query(
      `INSERT INTO evidences (description, hypothesis_id, config_id, created_by, type) VALUES ('pod restarted', $1, $2, $3, 'config'), ('cart pod', $1, $4, $3, 'config')`,
      [hypothesis, ids.checkoutPod, admin, ids.cartPod],
    )
    ids.playbook = (await db.query<{ id: string }>(
      `INSERT INTO playbooks (name, namespace, title, spec, source, category) VALUES ('restart-pod', 'ops', 'Restart pod', $1::jsonb, 'UI', 'ops') RETURNING id`,
      [JSON.stringify({ configs: [{ types: ['Kubernetes::Pod'] }], parameters: [{ name: 'reason', default: 'mcp' }], actions: [{ name: 'go', exec: { script: 'echo hi' } }] })],
    )).rows[0]!.id
    await db.query(
      `INSERT INTO views (name, namespace, spec, source) VALUES ('payments', 'finance', $1::jsonb, 'UI')`,
      [JSON.stringify({ display: { title: 'Payments overview' }, queries: { pods: { configs: { types: ['Kubernetes::Pod'] } } } })],
    )

    // A reader with mcp:use; the same, narrowed to cluster a in the catalog; a viewer without mcp:use.
    people.reader = await personWith(db, ['viewer'], 'mcp-reader')
    people.scoped = await personWith(db, ['viewer'], 'mcp-scoped')
    people.outsider = await personWith(db, ['viewer'], 'mcp-outsider')
    for (const person of [people.reader, people.scoped]) {
      await db.query(`INSERT INTO permissions (subject_type, subject, object, action) VALUES ('person', $1, 'mcp', 'mcp:use')`, [person.id])
    }
    await db.query(`INSERT INTO permissions (subject_type, subject, object, action, tags) VALUES ('person', $1, 'catalog', 'read', '{"cluster":"a"}')`, [people.scoped.id])
    testApp.backend.authorizer.invalidate()

    server = createServer(testApp.app.listener)
    await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve))
    base = `http://127.0.0.1:${(server.address() as AddressInfo).port}`
  })

  afterAll(async () => {
    await Promise.all(clients.map((client) => client.close()))
    for (const started of [server, ...extraServers]) await new Promise<void>((resolve) => started.close(() => resolve()))
  })

  it('initializes with the SDK client and lists every tool with its input schema', async () => {
    const client = await connect(`Bearer ${TEST_TOKEN}`)
    expect(client.getServerVersion()?.name).toBe('lookout')
    expect(client.getServerCapabilities()?.tools).toBeDefined()
    const { tools } = await client.listTools()
    expect(tools.map((tool) => tool.name).sort()).toEqual([...MCP_TOOL_NAMES].sort())
    const search = tools.find((tool) => tool.name === 'search_catalog')!
    expect(Object.keys(search.inputSchema.properties ?? {}).sort()).toEqual(['limit', 'query', 'tags', 'type'])
    expect(tools.find((tool) => tool.name === 'run_playbook')!.inputSchema.required).toEqual(['id'])
  })

  it('search_catalog answers the seeded configs, by words, type and tags', async () => {
    const client = await connect(`Bearer ${TEST_TOKEN}`)
    const names = async (args: Record<string, unknown>) =>
      ((payload(await client.callTool({ name: 'search_catalog', arguments: args })).configs as { name: string }[]).map((item) => item.name))
    expect(await names({ query: 'pod' })).toEqual(['cart-pod', 'checkout-pod'])
    expect(await names({ type: 'AWS::RDS::Instance' })).toEqual(['orders-db'])
    expect(await names({ tags: { cluster: 'a' } })).toEqual(['checkout-pod', 'orders-db'])
    expect(await names({ query: 'type=Kubernetes::Pod', limit: 1 })).toHaveLength(1)
    const [hit] = payload(await client.callTool({ name: 'search_catalog', arguments: { query: 'checkout' } })).configs as Record<string, unknown>[]
    expect(hit).toMatchObject({ id: ids.checkoutPod, name: 'checkout-pod', type: 'Kubernetes::Pod', tags: { cluster: 'a', namespace: 'shop' } })
  })

  it('validates tool inputs with the zod shapes before any query runs', async () => {
    const client = await connect(`Bearer ${TEST_TOKEN}`)
    expect(errorText(await client.callTool({ name: 'search_catalog', arguments: { limit: 0 } }))).toMatch(/limit/)
    expect(errorText(await client.callTool({ name: 'get_config', arguments: { id: 'not-a-uuid' } }))).toMatch(/id must be a uuid/)
    expect(errorText(await client.callTool({ name: 'search_catalog', arguments: { tags: { cluster: 'a,b' } } }))).toMatch(/tag values/)
  })

  it('get_config answers the item with its recent changes, newest first', async () => {
    const client = await connect(`Bearer ${TEST_TOKEN}`)
    const item = payload(await client.callTool({ name: 'get_config', arguments: { id: ids.checkoutPod, changes: 5 } }))
    expect(item).toMatchObject({ id: ids.checkoutPod, name: 'checkout-pod', config: { spec: { replicas: 2 } }, total_changes: 2 })
    expect((item.recent_changes as { summary: string }[]).map((change) => change.summary)).toEqual(['image pulled', 'replicas 1 -> 2'])
    expect(errorText(await client.callTool({ name: 'get_config', arguments: { id: '0190f0f0-0000-7000-8000-00000000beef' } }))).toBe(
      "config '0190f0f0-0000-7000-8000-00000000beef' not found",
    )
  })

  it('lists failing checks and a check history, incidents and one incident', async () => {
    const client = await connect(`Bearer ${people.reader!.token}`)
    const failing = payload(await client.callTool({ name: 'list_failing_checks', arguments: {} })).checks as Record<string, unknown>[]
    expect(failing.map((check) => check.name)).toEqual(['checkout-api'])
    expect(failing[0]).toMatchObject({ canary_name: 'shop-checks', last_message: 'HTTP 503', last_error: 'expected 200, got 503' })

    const history = payload(await client.callTool({ name: 'get_check_history', arguments: { id: ids.failing, limit: 10 } }))
    expect(history.check).toMatchObject({ id: ids.failing, name: 'checkout-api', status: 'unhealthy' })
    expect((history.history as { status: boolean; message: string }[]).map((row) => [row.status, row.message])).toEqual([[false, 'HTTP 503'], [true, 'ok']])

    const open = payload(await client.callTool({ name: 'list_incidents', arguments: {} })).incidents as Record<string, unknown>[]
    expect(open.map((incident) => incident.title)).toEqual(['Checkout down'])
    const closed = payload(await client.callTool({ name: 'list_incidents', arguments: { status: 'closed' } })).incidents as Record<string, unknown>[]
    expect(closed.map((incident) => incident.title)).toEqual(['Old outage'])

    const incident = payload(await client.callTool({ name: 'get_incident', arguments: { id: String(open[0]!.incident_id) } }))
    expect(incident).toMatchObject({ id: ids.incident, title: 'Checkout down', description: 'checkout answers 503' })
    expect((incident.hypotheses as { title: string }[]).map((hypothesis) => hypothesis.title)).toEqual(['Bad deploy'])
    expect((incident.evidences as unknown[]).length).toBe(2)
  })

  it('keeps to the caller’s row-level scopes: a reader narrowed to cluster a sees only its items and evidence', async () => {
    const client = await connect(`Bearer ${people.scoped!.token}`)
    const found = payload(await client.callTool({ name: 'search_catalog', arguments: { query: 'pod' } })).configs as { name: string }[]
    expect(found.map((item) => item.name)).toEqual(['checkout-pod'])
    expect(errorText(await client.callTool({ name: 'get_config', arguments: { id: ids.cartPod } }))).toBe(`access denied: read permission required on config '${ids.cartPod}'`)
    const incident = payload(await client.callTool({ name: 'get_incident', arguments: { id: ids.incident } }))
    expect((incident.evidences as { description: string }[]).map((evidence) => evidence.description)).toEqual(['pod restarted'])
  })

  it('lists playbooks with whether the caller may run them, and refuses run_playbook to a reader without playbook:run', async () => {
    const reader = await connect(`Bearer ${people.reader!.token}`)
    const listed = payload(await reader.callTool({ name: 'list_playbooks', arguments: { config_id: ids.checkoutPod } })).playbooks as Record<string, unknown>[]
    expect(listed).toEqual([expect.objectContaining({ id: ids.playbook, name: 'restart-pod', can_run: false })])
    expect(payload(await reader.callTool({ name: 'list_playbooks', arguments: { config_id: ids.ordersDb } })).playbooks).toEqual([])
    const refused = await reader.callTool({ name: 'run_playbook', arguments: { id: ids.playbook, config_id: ids.checkoutPod } })
    expect(errorText(refused)).toBe("access denied: playbook:run permission required on playbook 'restart-pod'")
    const { rows } = await testApp.db.query('SELECT 1 FROM playbook_runs WHERE playbook_id = $1', [ids.playbook])
    expect(rows).toHaveLength(0)
  })

  it('run_playbook creates a run through the playbook API’s path for a caller who may run it', async () => {
    const admin = await connect(`Bearer ${TEST_TOKEN}`)
    const created = payload(await admin.callTool({ name: 'run_playbook', arguments: { id: ids.playbook, config_id: ids.checkoutPod, params: { reason: 'from mcp' } } }))
    expect(created).toMatchObject({ status: 'scheduled' })
    const { rows } = await testApp.db.query<{ config_id: string; parameters: Record<string, string> }>('SELECT config_id, parameters FROM playbook_runs WHERE id = $1', [created.run_id])
    expect(rows[0]).toMatchObject({ config_id: ids.checkoutPod, parameters: { reason: 'from mcp' } })
    // Outside the playbook's selectors: refused as POST /playbook/run refuses it.
    expect(errorText(await admin.callTool({ name: 'run_playbook', arguments: { id: ids.playbook, config_id: ids.ordersDb } }))).toBe(
      `playbook 'restart-pod' cannot run on config '${ids.ordersDb}': it does not match the playbook's configs selectors`,
    )
  })

  it('offers views as resources and reads a stored definition', async () => {
    const client = await connect(`Bearer ${people.reader!.token}`)
    const templates = await client.listResourceTemplates()
    expect(templates.resourceTemplates.map((template) => template.uriTemplate)).toEqual(['view://{namespace}/{name}'])
    const { resources } = await client.listResources()
    expect(resources).toEqual([expect.objectContaining({ uri: 'view://finance/payments', name: 'finance/payments', title: 'Payments overview' })])
    const read = await client.readResource({ uri: 'view://finance/payments' })
    const definition = JSON.parse((read.contents[0] as { text: string }).text) as Record<string, unknown>
    expect(definition).toMatchObject({ namespace: 'finance', name: 'payments', spec: { display: { title: 'Payments overview' } } })
    await expect(client.readResource({ uri: 'view://finance/missing' })).rejects.toThrow(/view 'finance\/missing' not found/)
  })

  it('accepts basic `token:` credentials and the platform path /mcp', async () => {
    const basic = `Basic ${Buffer.from(`token:${people.reader!.token}`).toString('base64')}`
    const client = await connect(basic, '/mcp')
    expect((await client.listTools()).tools.length).toBe(MCP_TOOL_NAMES.length)
  })

  it('in upstream mode, /api/mcp is proxied to the platform’s /mcp', async () => {
    // The platform: the backend alone at its root, as `npm run backend` (or Mission Control) serves it.
    const platform = express()
    platform.use(testApp.backend.router)
    const platformUrl = await listen(platform)
    const gateway = createTestApp(testApp.db, { LOOKOUT_MODE: 'upstream', BACKEND_URL: platformUrl })
    const gatewayUrl = await listen(gateway.app.listener)
    const client = await connect(`Bearer ${people.reader!.token}`, '/api/mcp', gatewayUrl)
    const found = payload(await client.callTool({ name: 'search_catalog', arguments: { type: 'AWS::RDS::Instance' } })).configs as { name: string }[]
    expect(found.map((item) => item.name)).toEqual(['orders-db'])
    const outsider = await fetch(`${gatewayUrl}/api/mcp`, {
      method: 'POST',
      headers: { Authorization: `Bearer ${people.outsider!.token}`, 'Content-Type': 'application/json' },
      body: JSON.stringify(initialize),
    })
    expect(outsider.status).toBe(403)
    expect(await outsider.json()).toEqual({ error: `forbidden: user ${people.outsider!.id} does not have mcp:use permission` })
  })

  it('answers the contract’s first call (protocol 2024-11-05, no Accept header, no clientInfo) with JSON and CORS headers', async () => {
    const response = await post('/api/mcp', { Authorization: `Bearer ${TEST_TOKEN}` }, initialize)
    expect(response.status).toBe(200)
    expect(response.headers.get('content-type')).toMatch(/application\/json/)
    expect(response.headers.get('access-control-allow-origin')).toBe('*')
    expect(response.headers.get('access-control-expose-headers')).toBe('WWW-Authenticate, MCP-Session-Id')
    expect(response.headers.get('access-control-allow-credentials')).toBeNull()
    expect(response.headers.get('mcp-session-id')).toBeNull()
    const body = (await response.json()) as { id: number; result: { protocolVersion: string; serverInfo: { name: string } } }
    expect(body).toMatchObject({ jsonrpc: '2.0', id: 1, result: { protocolVersion: '2024-11-05', serverInfo: { name: 'lookout' } } })

    const preflight = await fetch(`${base}/api/mcp`, { method: 'OPTIONS', headers: { Origin: 'https://claude.example', 'Access-Control-Request-Method': 'POST' } })
    expect(preflight.status).toBe(204)
    expect(preflight.headers.get('access-control-allow-methods')).toBe('GET, POST, OPTIONS')
    expect(preflight.headers.get('access-control-allow-headers')).toBe('Authorization, Content-Type, Accept, MCP-Protocol-Version, MCP-Session-Id, Last-Event-ID')

    const stream = await fetch(`${base}/api/mcp`, { headers: { Authorization: `Bearer ${TEST_TOKEN}`, Accept: 'text/event-stream' } })
    expect(stream.status).toBe(405)
    const parseError = await fetch(`${base}/api/mcp`, { method: 'POST', headers: { Authorization: `Bearer ${TEST_TOKEN}`, 'Content-Type': 'application/json' }, body: '{"jsonrpc":' })
    expect(parseError.status).toBe(400)
    expect(await parseError.json()).toMatchObject({ jsonrpc: '2.0', error: { code: -32700 } })
  })

  it('refuses a caller without credentials with 401 and one without mcp:use with the contract’s 403', async () => {
    const anonymous = await post('/api/mcp', {}, initialize)
    expect(anonymous.status).toBe(401)
    expect(await anonymous.json()).toEqual({ error: 'unauthorized', message: 'Not logged in' })
    expect(anonymous.headers.get('access-control-allow-origin')).toBe('*')

    const badToken = await post('/api/mcp', { Authorization: 'Bearer not-a-token-of-ours-0123456789' }, initialize)
    expect(badToken.status).toBe(401)

    const outsider = await post('/api/mcp', { Authorization: `Bearer ${people.outsider!.token}` }, initialize)
    expect(outsider.status).toBe(403)
    expect(await outsider.json()).toEqual({ error: `forbidden: user ${people.outsider!.id} does not have mcp:use permission` })

    // The SDK client sees the same refusal.
    const client = new Client({ name: 'lookout-test', version: '1.0.0' })
    await expect(
      client.connect(new StreamableHTTPClientTransport(new URL(`${base}/api/mcp`), { requestInit: { headers: { Authorization: `Bearer ${people.outsider!.token}` } } })),
    ).rejects.toThrow(/403|forbidden/)
  })
})
