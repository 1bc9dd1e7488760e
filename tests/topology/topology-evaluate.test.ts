import { randomUUID } from 'node:crypto'
import { afterAll, beforeAll, describe, expect, it } from 'vitest'
import type { Db } from '#server/db/client.ts'
import { createTestDb, type TestDb } from '#tests/support/test-db.ts'
import { applyYaml, canaryYaml, startLocalServer, type LocalServer } from '#tests/health/health-fixtures.ts'
import { evaluateTopology } from '#server/backend/topology/topology-evaluate.ts'
import { parseTopologySpec } from '#contract/topology/topology-document.ts'
import type { EvaluatedComponent, TopologyRow } from '#server/backend/topology/topology-model.ts'

let testDb: TestDb
let db: Db
let peer: LocalServer
let apiChecks: Map<string, string>
let apiCanaryId: string
let configs: Record<string, string>
let otherComponents: Record<string, string>

// What the loopback peer serves: an inventory a lookup turns into components, and a single metric.
const PODS = [
  { name: 'web-1', zone: 'a', cpu: 120 },
  { name: 'web-2', zone: 'b', cpu: 80 },
]

beforeAll(async () => {
  testDb = await createTestDb()
  db = testDb.db
  peer = await startLocalServer((req, res) => {
    if (req.url === '/pods') {
      res.setHeader('content-type', 'application/json')
      res.end(JSON.stringify({ items: PODS }))
    } else if (req.url === '/version') {
      res.setHeader('content-type', 'application/json')
      res.end(JSON.stringify({ version: '1.29.3', nodes: 7 }))
    } else {
      res.statusCode = 404
      res.end('not found')
    }
  })
  const api = await applyYaml(db, canaryYaml('api-checks', `  http:
    - {name: api-health, url: "http://127.0.0.1:1/health", labels: {app: api}}
    - {name: api-ready, url: "http://127.0.0.1:1/ready", labels: {app: api}}
  tcp:
    - {name: other-port, endpoint: "127.0.0.1:1", labels: {app: other}}`))
  apiChecks = api.checks
  apiCanaryId = api.canaryId

  configs = {}
  for (const [name, zone, replicas] of [['node-a', 'a', 3], ['node-b', 'b', 5], ['node-c', 'b', 1]] as const) {
    const { rows } = await db.query<{ id: string }>(
      `INSERT INTO config_items (name, type, config_class, tags, labels, config, health)
       VALUES ($1, 'Test::Node', 'Node', $2::jsonb, '{"team":"infra"}', $3::jsonb, 'healthy') RETURNING id`,
      [name, JSON.stringify({ zone }), JSON.stringify({ spec: { replicas }, status: { phase: 'Running' } })],
    )
    configs[name] = rows[0]!.id
  }
  otherComponents = {}
  for (const [name, labels] of [['payments', { tier: 'backend' }], ['frontend', { tier: 'edge' }]] as const) {
    const { rows } = await db.query<{ id: string }>(
      `INSERT INTO components (name, type, status, health, labels, external_id) VALUES ($1, 'Service', 'healthy', 'healthy', $2::jsonb, $1) RETURNING id`,
      [name, JSON.stringify(labels)],
    )
    otherComponents[name] = rows[0]!.id
  }
})

afterAll(async () => {
  await peer?.close()
  await testDb?.drop()
})

function topology(spec: Record<string, unknown>, overrides: Partial<TopologyRow> = {}): TopologyRow {
  // Specs reach the runner validated on write; the test writes them through the same schema.
  return { id: randomUUID(), name: 'shop', namespace: 'prod', labels: { owner: 'team-a' }, spec: parseTopologySpec(spec) as Record<string, unknown>, agent_id: '00000000-0000-0000-0000-000000000000', created_by: null, ...overrides }
}

function child(parent: EvaluatedComponent, ...names: string[]): EvaluatedComponent {
  let node = parent
  for (const name of names) {
    const next = node.children.find((candidate) => candidate.name === name)
    if (!next) throw new Error(`no child ${name} under ${node.name} (children: ${node.children.map((c) => c.name).join(', ')})`)
    node = next
  }
  return node
}

const db$ = () => db

describe('evaluateTopology: static trees', () => {
  it('maps the topology to the root and nested component specs to children, at any depth', async () => {
    const { root, errors } = await evaluateTopology(db$(), topology({
      type: 'System',
      icon: 'shop',
      text: 'The shop',
      tooltip: 'everything we sell with',
      owner: 'team-a',
      healthExpr: 'summary.unhealthy > 0 ? "unhealthy" : "healthy"',
      statusExpr: '"healthy"',
      properties: [{ name: 'region', text: 'eu-west-1', headline: true }],
      components: [
        {
          name: 'backend',
          type: 'Group',
          order: 2,
          labels: { tier: 'backend' },
          components: [
            {
              name: 'api',
              type: 'Service',
              icon: 'server',
              lifecycle: 'production',
              hidden: false,
              description: 'public API',
              health: 'healthy',
              status: 'healthy',
              statusReason: 'all good',
              configID: configs['node-a'],
              logs: [{ name: 'loki', type: 'loki' }],
              properties: [
                { name: 'cpu', value: '12', unit: 'millicores', min: 0, max: '1000', headline: true, color: 'green', order: 1 },
                { name: 'docs', text: 'API docs', links: [{ type: 'documentation', url: 'https://docs.example.org/api', text: 'docs' }] },
              ],
              components: [{ name: 'db', type: 'Database', namespace: 'data', components: [{ name: 'replica', type: 'Database' }] }],
            },
          ],
        },
        { name: 'hidden-job', type: 'Job', hidden: true, externalID: 'jobs/hidden', id: { expr: '"ignored-because-externalID-wins"' } },
        { name: 'worker', type: 'Service', id: { template: '{{.self.type}}:{{.self.name}}:{{.properties.queue}}' }, properties: [{ name: 'queue', text: 'orders' }] },
      ],
    }))
    expect(errors).toEqual([])
    expect(root).toMatchObject({
      name: 'shop', namespace: 'prod', type: 'System', icon: 'shop', text: 'The shop', tooltip: 'everything we sell with', owner: 'team-a',
      labels: { owner: 'team-a' }, externalId: 'prod/shop',
      healthExpr: 'summary.unhealthy > 0 ? "unhealthy" : "healthy"', statusExpr: '"healthy"',
      properties: [{ name: 'region', text: 'eu-west-1', headline: true }],
    })
    expect(root.children.map((c) => c.name)).toEqual(['backend', 'hidden-job', 'worker'])
    const backend = child(root, 'backend')
    // Topology labels reach the top-level components without overriding theirs.
    expect(backend).toMatchObject({ type: 'Group', order: 2, externalId: 'prod/shop/backend', namespace: 'prod', labels: { owner: 'team-a', tier: 'backend' } })
    const api = child(root, 'backend', 'api')
    expect(api).toMatchObject({
      type: 'Service', icon: 'server', lifecycle: 'production', hidden: false, description: 'public API', health: 'healthy', status: 'healthy', statusReason: 'all good',
      externalId: 'prod/shop/backend/api', configId: configs['node-a'], logSelectors: [{ name: 'loki', type: 'loki' }],
    })
    expect(api.properties).toEqual([
      { name: 'cpu', value: 12, unit: 'millicores', min: 0, max: 1000, headline: true, color: 'green', order: 1 },
      { name: 'docs', text: 'API docs', links: [{ type: 'documentation', url: 'https://docs.example.org/api', text: 'docs' }] },
    ])
    const replica = child(root, 'backend', 'api', 'db', 'replica')
    expect(child(root, 'backend', 'api', 'db')).toMatchObject({ namespace: 'data', externalId: 'prod/shop/backend/api/db' })
    // Namespace is inherited from the nearest component that sets one.
    expect(replica).toMatchObject({ namespace: 'data', externalId: 'prod/shop/backend/api/db/replica', children: [] })
    expect(child(root, 'hidden-job')).toMatchObject({ hidden: true, externalId: 'jobs/hidden' })
    expect(child(root, 'worker').externalId).toBe('Service:worker:orders')
    for (const component of [root, backend, api, replica]) {
      expect(component.inlineCanaries).toEqual([])
      expect(component.links).toEqual({ checks: [], configs: [], components: [], teams: [] })
    }
  })

  it('takes the root externalId from the spec id template', async () => {
    const { root, errors } = await evaluateTopology(db$(), topology({ type: 'System', id: { expr: '"topology-" + self.name' } }))
    expect(errors).toEqual([])
    expect(root.externalId).toBe('topology-shop')
  })
})

describe('evaluateTopology: links', () => {
  it('links live checks by selector and keeps inline canary specs for the store', async () => {
    const inline = { schedule: '@every 1m', tcp: [{ name: 'pg-port', endpoint: '127.0.0.1:5432' }] }
    const { root, errors } = await evaluateTopology(db$(), topology({
      components: [
        { name: 'api', type: 'Service', checks: [{ selector: { labelSelector: 'app=api' } }, { selector: { name: 'api-ready', types: ['http'] } }, { inline }] },
        { name: 'nothing', type: 'Service', checks: [{ selector: { labelSelector: 'app=none' } }] },
      ],
    }))
    expect(errors).toEqual([])
    const api = child(root, 'api')
    const byCheck = api.links.checks.map((link) => [link.checkId, link.canaryId, link.selectorId] as const)
    const [bySelector, byName] = [byCheck.filter((l) => l[2] === byCheck[0]![2]), byCheck.filter((l) => l[2] !== byCheck[0]![2])]
    expect(bySelector.map((l) => l[0]).sort()).toEqual([apiChecks.get('api-health'), apiChecks.get('api-ready')].sort())
    expect(byName.map((l) => l[0])).toEqual([apiChecks.get('api-ready')])
    expect(new Set(byCheck.map((l) => l[1]))).toEqual(new Set([apiCanaryId]))
    expect(api.inlineCanaries).toEqual([{ selectorId: 'inline', spec: inline }])
    expect(api.componentChecks).toHaveLength(3)
    expect(child(root, 'nothing').links.checks).toEqual([])

    // The same spec evaluates to the same selector ids, so the store sees unchanged links.
    const again = await evaluateTopology(db$(), topology({ components: [{ name: 'api', type: 'Service', checks: [{ selector: { labelSelector: 'app=api' } }] }] }))
    expect(child(again.root, 'api').links.checks.map((l) => l.selectorId)).toContain(bySelector[0]![2])
  })

  it('links configs by selector (configID from a selector naming one item) and other components by selector', async () => {
    const { root, errors } = await evaluateTopology(db$(), topology({
      configs: [{ name: 'node-c', types: ['Test::Node'] }],
      components: [
        {
          name: 'cluster',
          type: 'Cluster',
          configs: [{ types: ['Test::Node'], tagSelector: 'zone=b' }, { id: configs['node-a'] }],
          selectors: [{ labelSelector: 'tier=backend' }, { name: 'front*' }],
        },
      ],
    }))
    expect(errors).toEqual([])
    expect(root.links.configs.map((l) => l.configId)).toEqual([configs['node-c']])
    const cluster = child(root, 'cluster')
    expect(cluster.links.configs.map((l) => l.configId).sort()).toEqual([configs['node-a'], configs['node-b'], configs['node-c']].sort())
    expect(cluster.configId).toBe(configs['node-a'])
    expect(cluster.links.components.map((l) => l.componentId).sort()).toEqual([otherComponents.payments, otherComponents.frontend].sort())
    expect(cluster.configs).toEqual([{ types: ['Test::Node'], tagSelector: 'zone=b' }, { id: configs['node-a'] }])
    expect(cluster.selectors).toEqual([{ labelSelector: 'tier=backend' }, { name: 'front*' }])
  })
})

describe('evaluateTopology: properties from lookups and configs', () => {
  it('fills a property from a lookup display and from config lookups', async () => {
    const { root, errors } = await evaluateTopology(db$(), topology({
      components: [
        {
          name: 'cluster',
          type: 'Cluster',
          properties: [
            { name: 'version', lookup: { http: [{ name: 'version', url: `${peer.url}/version`, display: { expr: 'json.version' } }] } },
            { name: 'node', text: 'node-b' },
            { name: 'replicas', configLookup: { id: configs['node-a'], field: '$.spec.replicas' } },
            { name: 'phase', configLookup: { id: 'node', config: { types: ['Test::Node'] }, display: { template: '{{.name}} is {{.config.status.phase}} ({{.config_type}})' } } },
            { name: 'extra', lookup: { http: [{ name: 'list', url: `${peer.url}/version`, display: { expr: '[{"name": "nodes", "value": json.nodes, "unit": "nodes"}].toJSON()' } }] } },
          ],
        },
      ],
    }), { trusted: true })
    expect(errors).toEqual([])
    expect(child(root, 'cluster').properties).toEqual([
      { name: 'version', text: '1.29.3' },
      { name: 'node', text: 'node-b' },
      { name: 'replicas', value: 3 },
      { name: 'phase', text: 'node-b is Running (Test::Node)' },
      { name: 'nodes', value: 7, unit: 'nodes' },
    ])
  })
})

const LOOKUP = (path = '/pods', expr = 'json.items.map(p, {"name": p.name, "type": "Pod", "labels": {"zone": p.zone}, "properties": [{"name": "cpu", "value": p.cpu}]})') => ({
  http: [{ name: 'inventory', url: `${peer.url}${path}`, display: { expr } }],
})

describe('evaluateTopology: lookups', () => {
  it('turns the components a loopback lookup returns into children (trusted spec)', async () => {
    const { root, errors, incomplete } = await evaluateTopology(db$(), topology({
      components: [{ name: 'pods', icon: 'pod', lifecycle: 'production', lookup: LOOKUP(), properties: [{ name: 'source', text: 'inventory' }] }],
    }), { trusted: true })
    expect(errors).toEqual([])
    expect(incomplete).toBeUndefined()
    expect(peer.hits.get('/pods')).toBeGreaterThan(0)
    // The lookup's component is replaced by what it yields; spec properties, icon and lifecycle are given to each.
    expect(root.children.map((c) => c.name)).toEqual(['web-1', 'web-2'])
    expect(child(root, 'web-1')).toMatchObject({
      type: 'Pod', icon: 'pod', lifecycle: 'production', externalId: 'prod/shop/web-1', labels: { owner: 'team-a', zone: 'a' },
      properties: [{ name: 'cpu', value: 120 }, { name: 'source', text: 'inventory' }],
    })
  })

  it('refuses the loopback peer when the spec is not trusted, and says so', async () => {
    const before = peer.hits.get('/pods') ?? 0
    const { root, errors, incomplete } = await evaluateTopology(db$(), topology({
      components: [{ name: 'static', type: 'Service' }, { name: 'pods', lookup: LOOKUP() }],
    }), { trusted: false })
    expect(root.children.map((c) => c.name)).toEqual(['static'])
    expect(errors).toHaveLength(1)
    expect(errors[0]).toMatch(/^component pods: lookup: http check inventory: .*127\.0\.0\.1.* is an address of this server/)
    expect(incomplete).toBe(true)
    expect(peer.hits.get('/pods') ?? 0).toBe(before)
  })

  it('lets an admin allow the target for untrusted specs (LOOKOUT_CHECK_ALLOWED_TARGETS)', async () => {
    const { root, errors } = await evaluateTopology(db$(), topology({ components: [{ name: 'pods', lookup: LOOKUP() }] }), {
      trusted: false,
      allowedTargets: [{ kind: 'cidr', family: 'ipv4', network: '127.0.0.1', prefix: 32, port: peer.port, text: `127.0.0.1:${peer.port}` }],
    })
    expect(errors).toEqual([])
    expect(root.children.map((c) => c.name)).toEqual(['web-1', 'web-2'])
  })

  it('refuses exec lookups of untrusted specs', async () => {
    const { root, errors } = await evaluateTopology(db$(), topology({
      components: [{ name: 'scripted', lookup: { exec: [{ name: 'list', script: 'echo \'[{"name":"x","type":"T"}]\'' }] } }],
    }), { trusted: false })
    expect(root.children).toEqual([])
    expect(errors[0]).toMatch(/component scripted: lookup: exec check list: exec checks run only for canaries written by someone holding the exec permission/)
    const trusted = await evaluateTopology(db$(), topology({
      components: [{ name: 'scripted', lookup: { exec: [{ name: 'list', script: 'echo \'[{"name":"x","type":"T"}]\'' }] } }],
    }), { trusted: true })
    expect(trusted.errors).toEqual([])
    expect(trusted.root.children.map((c) => [c.name, c.type])).toEqual([['x', 'T']])
  })

  it('applies forEach to every looked-up component with $(.component.name) and $(.properties.x)', async () => {
    const { root, errors } = await evaluateTopology(db$(), topology({
      components: [
        {
          name: 'pods',
          lookup: LOOKUP(),
          forEach: {
            properties: [{ name: 'dashboard', text: 'https://grafana.example.org/d/pods?var-pod=$(.component.name)&zone=$(.component.labels.zone)' }],
            components: [{ name: '$(.component.name)-sidecar', type: 'Container', properties: [{ name: 'cpu-of-pod', text: '$(.properties.cpu)m' }] }],
            checks: [{ inline: { http: [{ name: '$(.component.name)-ping', url: 'http://$(.component.name).svc/health', display: { template: '{{.code}}' } }] } }],
            configs: [{ name: 'node-$(.component.labels.zone)' }],
            selectors: [{ labelSelector: 'tier=$(index .component.labels "zone" | printf "%s-tier")' }],
          },
        },
      ],
    }), { trusted: true })
    expect(errors).toEqual([])
    const web1 = child(root, 'web-1')
    expect(web1.properties).toEqual([{ name: 'cpu', value: 120 }, { name: 'dashboard', text: 'https://grafana.example.org/d/pods?var-pod=web-1&zone=a' }])
    expect(child(root, 'web-2', 'web-2-sidecar')).toMatchObject({ type: 'Container', externalId: 'prod/shop/web-2/web-2-sidecar', properties: [{ name: 'cpu-of-pod', text: '80m' }] })
    // `{{ }}` is left for the inline check's own run.
    expect(web1.inlineCanaries).toEqual([{ selectorId: 'inline', spec: { http: [{ name: 'web-1-ping', url: 'http://web-1.svc/health', display: { template: '{{.code}}' } }] } }])
    expect(web1.links.configs.map((l) => l.configId)).toEqual([configs['node-a']])
    expect(child(root, 'web-2').links.configs.map((l) => l.configId)).toEqual([configs['node-b']])
    expect(web1.selectors).toEqual([{ labelSelector: 'tier=a-tier' }])
  })

  it('reports a lookup that renders nothing instead of taking its components for gone, and accepts an empty list', async () => {
    const silent = await evaluateTopology(db$(), topology({ components: [{ name: 'pods', lookup: { http: [{ name: 'no-display', url: `${peer.url}/version` }] } }] }), { trusted: true })
    expect(silent.errors).toEqual(['component pods: lookup: the lookup rendered nothing; its display must give a JSON list of components'])
    expect(silent.incomplete).toBe(true)
    const empty = await evaluateTopology(db$(), topology({ components: [{ name: 'pods', lookup: LOOKUP('/pods', '[].toJSON()') }] }), { trusted: true })
    expect(empty).toMatchObject({ errors: [], root: { children: [] } })
    expect(empty.incomplete).toBeUndefined()
  })

  it('moves looked-up components under the parent their parentLookup names', async () => {
    // web-1 names its parent by name and type, web-2 by externalID.
    const expr = 'json.items.map(p, {"name": p.name, "type": "Pod", "parentLookup": p.zone == "a" ? {"name": "zone-a", "type": "Zone"} : {"externalID": "zones/" + p.zone}}).toJSON()'
    const { root, errors } = await evaluateTopology(db$(), topology({
      components: [
        { name: 'zone-a', type: 'Zone' },
        { name: 'zone-b', type: 'Zone', externalID: 'zones/b' },
        { name: 'pods', lookup: LOOKUP('/pods', expr) },
      ],
    }), { trusted: true })
    expect(errors).toEqual([])
    expect(root.children.map((c) => c.name)).toEqual(['zone-a', 'zone-b'])
    expect(child(root, 'zone-a').children.map((c) => c.name)).toEqual(['web-1'])
    expect(child(root, 'zone-b').children.map((c) => c.name)).toEqual(['web-2'])
    // The externalId stays the one it was given where the lookup stood.
    expect(child(root, 'zone-b', 'web-2').externalId).toBe('prod/shop/web-2')
  })

  it('ignores the inline checks, lookups and config lookups a lookup output declares, at any depth', async () => {
    const expr = `[{"name": "sneaky", "type": "Pod", "checks": [{"inline": {"exec": [{"name": "x", "script": "id"}]}}], "lookup": {"exec": [{"name": "y", "script": "id"}]},
      "properties": [{"name": "p", "lookup": {"exec": [{"name": "z", "script": "id"}]}}, {"name": "c", "configLookup": {"id": "${configs['node-a']}", "field": "$.spec"}}, {"name": "plain", "text": "kept"}],
      "components": [{"name": "nested", "checks": [{"inline": {"exec": [{"name": "w", "script": "id"}]}}]}]}].toJSON()`
    const { root, errors } = await evaluateTopology(db$(), topology({ components: [{ name: 'pods', lookup: LOOKUP('/pods', expr) }] }), { trusted: true })
    const sneaky = child(root, 'sneaky')
    expect(sneaky.inlineCanaries).toEqual([])
    expect(child(sneaky, 'nested').inlineCanaries).toEqual([])
    expect(sneaky.properties).toEqual([{ name: 'p' }, { name: 'c' }, { name: 'plain', text: 'kept' }])
    expect(errors).toEqual([
      'component pods: lookup: item 0.checks: inline checks from a lookup are ignored; write them in the spec (forEach.checks)',
      'component pods: lookup: item 0.properties[0]: lookup and configLookup from a lookup are ignored; write them in the spec (forEach.properties)',
      'component pods: lookup: item 0.properties[1]: lookup and configLookup from a lookup are ignored; write them in the spec (forEach.properties)',
      'component pods: lookup: item 0.components[0].checks: inline checks from a lookup are ignored; write them in the spec (forEach.checks)',
    ])
  })
})

describe('evaluateTopology: groupBy', () => {
  it('groups by the values a config tag takes, narrowing every selector to its value', async () => {
    const { root, errors } = await evaluateTopology(db$(), topology({
      groupBy: { tag: 'zone', selector: { types: ['Test::Node'] } },
      configs: [{ types: ['Test::Node'] }],
      components: [{ name: 'nodes', type: 'NodeGroup', configs: [{ types: ['Test::Node'] }], components: [{ name: 'inner', type: 'X', configs: [{ name: 'node-*' }] }] }],
    }))
    expect(errors).toEqual([])
    expect(root.children.map((c) => [c.name, c.type, c.externalId])).toEqual([['a', 'zone', 'prod/shop/a'], ['b', 'zone', 'prod/shop/b']])
    const [a, b] = [child(root, 'a'), child(root, 'b')]
    expect(a.labels).toEqual({ owner: 'team-a', zone: 'a' })
    expect(a.links.configs.map((l) => l.configId)).toEqual([configs['node-a']])
    expect(child(a, 'nodes').links.configs.map((l) => l.configId)).toEqual([configs['node-a']])
    expect(child(b, 'nodes').links.configs.map((l) => l.configId).sort()).toEqual([configs['node-b'], configs['node-c']].sort())
    expect(child(b, 'nodes', 'inner').links.configs).toHaveLength(2)
    expect(child(b, 'nodes').externalId).toBe('prod/shop/b/nodes')
  })

  it('groups children by their own label when no config carries the tag', async () => {
    const { root, errors } = await evaluateTopology(db$(), topology({
      groupBy: { tag: 'tier' },
      components: [
        { name: 'api', type: 'Service', labels: { tier: 'backend' } },
        { name: 'cdn', type: 'Service', labels: { tier: 'edge' } },
        { name: 'db', type: 'Database', labels: { tier: 'backend' } },
        { name: 'misc', type: 'Service' },
      ],
    }))
    expect(errors).toEqual([])
    expect(root.children.map((c) => `${c.type}:${c.name}`)).toEqual(['tier:backend', 'tier:edge', 'Service:misc'])
    expect(child(root, 'backend').children.map((c) => c.name)).toEqual(['api', 'db'])
    expect(child(root, 'edge').children.map((c) => c.name)).toEqual(['cdn'])
  })
})

describe('evaluateTopology: errors', () => {
  it('reports each failing part with its component and field and still builds the rest', async () => {
    const { root, errors, incomplete } = await evaluateTopology(db$(), topology({
      components: [
        { name: 'ok', type: 'Service', checks: [{ selector: { labelSelector: 'app=api' } }] },
        {
          name: 'broken',
          type: 'Service',
          id: { javascript: 'properties.id' },
          checks: [{ selector: { labelSelector: 'app in (api' } }, { selector: { id: 'not-a-uuid' } }],
          properties: [
            { name: 'version', lookup: { http: [{ name: 'missing', url: `${peer.url}/missing`, display: { expr: 'json.version' } }] } },
            { name: 'bad-config', configLookup: { id: configs['node-a'], field: '$.spec.replicas', display: { expr: 'config.nope.deeper +' } } },
          ],
          relationships: [{ type: 'dependsOn', ref: 'payments' }],
          components: [{ name: 'child', type: 'Thing' }],
        },
        { name: 'pods', lookup: LOOKUP('/pods', 'json.items.map(p, {"type": "Pod"}).toJSON()') },
      ],
    }), { trusted: true })
    expect(errors).toEqual([
      'component broken: properties[0].lookup: http check missing: expected 404 to be 200..299, error rendering display: No such key: version',
      'component broken: properties[1].configLookup: configLookup.display: Unexpected token: EOF',
      'component broken: id: javascript expressions are not supported; use expr (CEL) or template',
      'component broken: checks[0].selector: invalid selector "app in (api": unbalanced parentheses',
      'component broken: checks[1].selector: invalid id "not-a-uuid"',
      'component broken: relationships[0].ref: "payments" is not a component id',
      'component pods: lookup: item 0.name: is required',
      'component pods: lookup: item 1.name: is required',
    ])
    expect(incomplete).toBeUndefined()
    expect(root.children.map((c) => c.name)).toEqual(['ok', 'broken'])
    const broken = child(root, 'broken')
    expect(broken.externalId).toBe('prod/shop/broken')
    expect(broken.properties).toEqual([{ name: 'version' }, { name: 'bad-config' }])
    expect(child(broken, 'child').externalId).toBe('prod/shop/broken/child')
    expect(child(root, 'ok').links.checks).toHaveLength(2)
  })

  it('gives the root alone and the validation issues for a stored spec that no longer validates', async () => {
    const row = topology({})
    row.spec = { components: [{ type: 'NoName' }], schedule: 'never ever' }
    const { root, errors, incomplete } = await evaluateTopology(db$(), row, {})
    expect(root).toMatchObject({ name: 'shop', externalId: 'prod/shop', children: [] })
    expect(incomplete).toBe(true)
    expect(errors.some((error) => error.includes('spec.components[0].name: is required'))).toBe(true)
  })
})
