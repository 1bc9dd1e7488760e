import { PROD_CLUSTER, type CatalogRefs } from './catalog.ts'
import { DAY, HOUR, MINUTE, type Row, type SeedContext } from './context.ts'
import type { HealthRefs } from './health.ts'
import { LOCAL_AGENT_ID, type PeopleRefs, type TeamKey } from './people.ts'

type ComponentDef = {
  key: string
  name: string
  type: string
  icon: string
  parent?: string
  health?: 'healthy' | 'unhealthy' | 'warning'
  config?: string
  checks?: string[]
  team?: TeamKey
  logs?: boolean
  properties?: Row[]
  description?: string
}

type TopologyDef = { key: string; name: string; namespace: string; type: string; icon: string; components: ComponentDef[] }

const deploy = (name: string) => `deploy:${PROD_CLUSTER}:${name}`

const TOPOLOGIES: TopologyDef[] = [
  {
    key: 'online-store', name: 'online-store', namespace: 'default', type: 'Application', icon: 'shopping-cart',
    components: [
      { key: 'store', name: 'Online Store', type: 'Application', icon: 'shopping-cart', description: 'Customer-facing shop: storefront, checkout, payments, search and sign-in' },
      { key: 'storefront', name: 'Storefront', type: 'Service', icon: 'web', parent: 'store', team: 'storefront' },
      { key: 'checkout-web', name: 'checkout-web', type: 'Deployment', icon: 'nextjs', parent: 'storefront', config: deploy('checkout-web'), checks: ['storefront-home', 'checkout-session'], logs: true },
      { key: 'cart-api', name: 'cart-api', type: 'Deployment', icon: 'go', parent: 'storefront', config: deploy('cart-api'), checks: ['cart-api-health', 'add-to-cart'], logs: true },
      { key: 'payments', name: 'Payments', type: 'Service', icon: 'dollar', parent: 'store', team: 'payments' },
      { key: 'payments-api', name: 'payments-api', type: 'Deployment', icon: 'go', parent: 'payments', config: deploy('payments-api'), checks: ['payments-api-health', 'stripe-webhook-endpoint'], logs: true },
      { key: 'refunds-api', name: 'refunds-api', type: 'Deployment', icon: 'go', parent: 'payments', config: deploy('refunds-api'), checks: ['refunds-api-health'], logs: true },
      { key: 'ledger-api', name: 'ledger-api', type: 'Deployment', icon: 'java', parent: 'payments', config: deploy('ledger-api'), checks: ['ledger-api-health', 'ledger-db-replication-lag'] },
      { key: 'search', name: 'Search', type: 'Service', icon: 'search', parent: 'store', team: 'storefront' },
      { key: 'search-api', name: 'search-api', type: 'Deployment', icon: 'go', parent: 'search', config: deploy('search-api'), checks: ['search-api-health', 'search-from-eu-west'], logs: true },
      { key: 'search-indexer', name: 'search-indexer', type: 'Deployment', icon: 'python', parent: 'search', config: deploy('search-indexer') },
      { key: 'auth', name: 'Auth', type: 'Service', icon: 'lock', parent: 'store', team: 'platform' },
      { key: 'auth-service', name: 'auth-service', type: 'Deployment', icon: 'ory', parent: 'auth', config: deploy('auth-service'), checks: ['auth-db-ping'], logs: true },
    ],
  },
  {
    key: 'platform', name: 'platform', namespace: 'platform', type: 'Platform', icon: 'kubernetes',
    components: [
      { key: 'platform', name: 'Platform', type: 'Platform', icon: 'kubernetes', team: 'platform' },
      { key: 'cluster', name: PROD_CLUSTER, type: 'KubernetesCluster', icon: 'eks', parent: 'platform', config: `cluster:${PROD_CLUSTER}`, checks: ['kubectl-nodes-ready', 'node-memory-pressure', 'apiserver-error-rate'] },
      { key: 'ingress', name: 'ingress-nginx', type: 'Ingress', icon: 'nginx', parent: 'cluster', config: deploy('ingress-nginx-controller'), checks: ['ingress-nginx-healthz'], logs: true },
      { key: 'databases', name: 'Databases', type: 'Group', icon: 'database', parent: 'platform' },
      { key: 'payments-db', name: 'payments-db', type: 'Database', icon: 'postgres', parent: 'databases', config: 'rds:payments-db', checks: ['payments-db-port', 'payments-db-connections'], team: 'payments' },
      { key: 'orders-db', name: 'orders-db', type: 'Database', icon: 'postgres', parent: 'databases', config: 'rds:orders-db', checks: ['orders-db-replica-lag', 'orders-db-port'] },
      { key: 'observability', name: 'Observability', type: 'Group', icon: 'grafana', parent: 'platform' },
      { key: 'prometheus', name: 'Prometheus', type: 'Monitoring', icon: 'prometheus', parent: 'observability', checks: ['prometheus-ready', 'scrape-targets-up'] },
      { key: 'grafana', name: 'Grafana', type: 'Monitoring', icon: 'grafana', parent: 'observability', config: deploy('grafana'), checks: ['grafana-health'] },
    ],
  },
]

/** Cross-links between the two trees: a service and the database or edge it depends on. */
const LINKS: [string, string][] = [
  ['payments-api', 'payments-db'],
  ['refunds-api', 'payments-db'],
  ['cart-api', 'orders-db'],
  ['checkout-web', 'ingress'],
  ['search-api', 'ingress'],
]

export function buildTopology(
  ctx: SeedContext,
  people: PeopleRefs,
  catalog: CatalogRefs,
  health: HealthRefs,
  checkRows: Row[],
): { rows: Record<string, Row[]>; refs: { component(key: string): string } } {
  const random = ctx.random('topology')
  const admin = people.person('platform-lead').id
  const ids = new Map<string, string>()
  const component = (key: string) => {
    const id = ids.get(key)
    if (!id) throw new Error(`unknown demo component ${key}`)
    return id
  }
  const checkStatus = new Map(checkRows.map((row) => [row.id as string, row.status as string]))

  const topologies: Row[] = []
  const components: Row[] = []
  const checkLinks: Row[] = []
  const configLinks: Row[] = []
  const teamLinks: Row[] = []

  for (const topology of TOPOLOGIES) {
    const topologyId = ctx.id('topology', `${topology.namespace}/${topology.name}`)
    const createdAt = ctx.ago(random.int(60, 300) * DAY)
    topologies.push({
      id: topologyId,
      agent_id: LOCAL_AGENT_ID,
      name: topology.name,
      namespace: topology.namespace,
      labels: { team: topology.key === 'platform' ? 'platform' : 'storefront' },
      // 'Demo' keeps the topology engine off these rows: their specs list only the top level of
      // the components written below (migration 0270, as DEMO_SOURCE does for the demo canaries).
      source: 'Demo',
      spec: {
        type: topology.type,
        icon: topology.icon,
        schedule: '@every 5m',
        components: topology.components.filter((def) => !def.parent).map((def) => ({ name: def.name, type: def.type, icon: def.icon })),
      },
      schedule: '@every 5m',
      created_at: createdAt,
      updated_at: ctx.ago(random.int(1, 10) * DAY),
      created_by: admin,
      deleted_at: null,
    })

    // Health rolls up: a leaf takes the worst of its checks and config; a parent the worst child.
    const worst = (states: string[]) =>
      states.includes('unhealthy') ? 'unhealthy' : states.includes('warning') ? 'warning' : 'healthy'
    const leafHealth = new Map<string, string>()
    for (const def of topology.components) {
      const states = (def.checks ?? []).map((name) => checkStatus.get(health.check(name)) ?? 'healthy')
      if (def.key === 'orders-db' || def.key === 'search-indexer') states.push('warning')
      leafHealth.set(def.key, worst(states))
    }
    const childrenOf = (key: string) => topology.components.filter((def) => def.parent === key)
    const rolled = (key: string): string => {
      const children = childrenOf(key)
      return worst([leafHealth.get(key) ?? 'healthy', ...children.map((child) => rolled(child.key))])
    }

    for (const def of topology.components) {
      const id = ctx.id('component', `${topology.key}/${def.key}`)
      ids.set(def.key, id)
      const ancestors: string[] = []
      for (let parent = def.parent; parent; parent = topology.components.find((candidate) => candidate.key === parent)?.parent) {
        ancestors.unshift(component(parent))
      }
      const healthValue = rolled(def.key)
      const children = childrenOf(def.key)
      const summary = children.length
        ? children.reduce<Record<string, number>>((acc, child) => {
            const state = rolled(child.key)
            acc[state] = (acc[state] ?? 0) + 1
            return acc
          }, {})
        : null
      components.push({
        id,
        agent_id: LOCAL_AGENT_ID,
        topology_id: topologyId,
        external_id: `${topology.namespace}/${topology.key}/${def.key}`,
        parent_id: def.parent ? component(def.parent) : null,
        config_id: def.config ? catalog.config(def.config) : null,
        name: def.name,
        text: null,
        topology_type: topology.type,
        namespace: topology.namespace,
        labels: { team: def.team ?? (topology.key === 'platform' ? 'platform' : 'storefront'), env: 'production' },
        hidden: false,
        silenced: false,
        status: healthValue === 'healthy' ? 'healthy' : healthValue === 'warning' ? 'warning' : 'unhealthy',
        status_expr: null,
        health_expr: null,
        health: healthValue,
        description: def.description ?? null,
        lifecycle: 'production',
        tooltip: null,
        status_reason: healthValue === 'healthy' ? null : 'one or more checks are failing',
        schedule: null,
        icon: def.icon,
        type: def.type,
        owner: def.team ?? null,
        selectors: null,
        log_selectors: def.logs ? [{ name: 'loki', labels: { app: def.name } }] : null,
        component_checks: def.checks ? [{ selector: { labelSelector: `component=${def.key}` } }] : null,
        configs: def.config ? [{ name: def.name }] : null,
        properties: def.config
          ? [{ name: 'Replicas', value: random.int(1, 3) }, { name: 'CPU', value: random.int(50, 900), unit: 'millicores' }]
          : null,
        path: ancestors.join('.'),
        summary,
        is_leaf: children.length === 0,
        cost_per_minute: null,
        cost_total_1d: null,
        cost_total_7d: null,
        cost_total_30d: null,
        created_by: admin,
        created_at: createdAt,
        updated_at: ctx.ago(random.int(1, 60) * MINUTE),
        deleted_at: null,
      })
      for (const name of def.checks ?? []) {
        const checkId = health.check(name)
        const check = checkRows.find((row) => row.id === checkId)
        checkLinks.push({
          component_id: id,
          check_id: checkId,
          canary_id: check?.canary_id,
          created_at: createdAt,
          updated_at: createdAt,
          deleted_at: null,
          selector_id: `component=${def.key}`,
        })
      }
      if (def.config) {
        configLinks.push({ component_id: id, config_id: catalog.config(def.config), created_at: createdAt, updated_at: createdAt, deleted_at: null, selector_id: `name=${def.name}` })
      }
      if (def.team) {
        teamLinks.push({ team_id: people.team(def.team).id, component_id: id, role: 'owner', selector_id: `team=${def.team}` })
      }
    }
  }

  const relationships: Row[] = LINKS.map(([child, parent]) => ({
    component_id: component(child),
    relationship_id: component(parent),
    created_at: ctx.ago(random.int(10, 50) * DAY),
    updated_at: ctx.ago(random.int(1, 24) * HOUR),
    deleted_at: null,
    selector_id: `depends-on/${parent}`,
    relationship_path: null,
  }))

  return {
    rows: {
      topologies,
      components,
      component_relationships: relationships,
      check_component_relationships: checkLinks,
      config_component_relationships: configLinks,
      team_components: teamLinks,
    },
    refs: { component },
  }
}
