import type { Db } from '#server/db/client.ts'

export type TopologyEstate = {
  ids: Record<string, string>
  teams: Record<string, string>
  edgeAgent: string
  checks: Record<string, string>
  config: string
}

/**
 * Two topologies written as the runner would leave them (components with parent links, checks,
 * configs, teams, an incident): `shop` (root) → web (→ web-1 → web-1-c, web-2), db (→ db-1),
 * api, cache (hidden), old (deleted); `billing` → ledger (on an edge agent).
 */
export async function seedTopologyEstate(db: Db): Promise<TopologyEstate> {
  const ids: Record<string, string> = {}
  const person = (await db.query<{ id: string }>(`INSERT INTO people (name, email) VALUES ('estate owner', 'estate.owner@example.test') RETURNING id`)).rows[0]!.id
  const edgeAgent = (await db.query<{ id: string }>(`INSERT INTO agents (name) VALUES ('topology-edge') RETURNING id`)).rows[0]!.id
  const topology = async (name: string) =>
    (await db.query<{ id: string }>(`INSERT INTO topologies (name, namespace, spec) VALUES ($1, 'default', '{}') RETURNING id`, [name])).rows[0]!.id
  const shop = await topology('shop')
  const billing = await topology('billing')
  const component = async (name: string, fields: {
    topology: string; parent?: string; type: string; status: string; owner?: string; labels?: Record<string, string>
    properties?: unknown[]; hidden?: boolean; deleted?: boolean; agent?: string; logs?: string[]; summary?: Record<string, unknown>
  }) => {
    const { rows } = await db.query<{ id: string }>(
      `INSERT INTO components (name, topology_id, parent_id, type, status, health, owner, labels, properties, hidden, deleted_at, agent_id, external_id, log_selectors, summary)
       VALUES ($1, $2, $3, $4, $5, CASE $5 WHEN 'unhealthy' THEN 'unhealthy' ELSE 'healthy' END, $6, $7::jsonb, $8::jsonb, $9, CASE WHEN $10 THEN now() END,
         coalesce($11::uuid, '00000000-0000-0000-0000-000000000000'), $1, $12::jsonb, $13::jsonb)
       RETURNING id`,
      [name, fields.topology, fields.parent ?? null, fields.type, fields.status, fields.owner ?? null, fields.labels ? JSON.stringify(fields.labels) : null,
        fields.properties ? JSON.stringify(fields.properties) : null, fields.hidden ?? false, fields.deleted ?? false, fields.agent ?? null,
        fields.logs ? JSON.stringify(fields.logs.map((log) => ({ name: log }))) : null, fields.summary ? JSON.stringify(fields.summary) : null],
    )
    ids[name] = rows[0]!.id
    return rows[0]!.id
  }
  await component('shop', { topology: shop, type: 'Topology', status: 'unhealthy', labels: { env: 'prod' }, summary: { healthy: 5, unhealthy: 2 } })
  await component('web', { topology: shop, parent: ids.shop, type: 'Service', status: 'healthy', owner: 'web-team', labels: { tier: 'web' }, properties: [{ name: 'cpu', value: 80, unit: 'percent' }], logs: ['web-logs'] })
  await component('db', { topology: shop, parent: ids.shop, type: 'Database', status: 'unhealthy', labels: { tier: 'data' }, properties: [{ name: 'cpu', value: 9 }] })
  // A property whose value came as text still sorts as a number.
  await component('api', { topology: shop, parent: ids.shop, type: 'Service', status: 'healthy', properties: [{ name: 'cpu', text: '120' }] })
  await component('cache', { topology: shop, parent: ids.shop, type: 'Service', status: 'warning', hidden: true })
  await component('old', { topology: shop, parent: ids.shop, type: 'Service', status: 'healthy', deleted: true })
  await component('web-1', { topology: shop, parent: ids.web, type: 'Pod', status: 'healthy', labels: { tier: 'web' } })
  await component('web-1-c', { topology: shop, parent: ids['web-1'], type: 'Container', status: 'healthy' })
  await component('web-2', { topology: shop, parent: ids.web, type: 'Pod', status: 'unhealthy', labels: { tier: 'web' } })
  await component('db-1', { topology: shop, parent: ids.db, type: 'Pod', status: 'healthy', labels: { tier: 'data' } })
  await component('billing', { topology: billing, type: 'Topology', status: 'healthy', labels: { env: 'prod' } })
  await component('ledger', { topology: billing, parent: ids.billing, type: 'Service', status: 'healthy', agent: edgeAgent })

  const teams: Record<string, string> = {}
  for (const [name, member] of [['frontend', 'web'], ['payments', 'db']] as const) {
    teams[name] = (await db.query<{ id: string }>(`INSERT INTO teams (name, created_by) VALUES ($1, $2) RETURNING id`, [name, person])).rows[0]!.id
    await db.query(`INSERT INTO team_components (team_id, component_id, role) VALUES ($1, $2, 'owner')`, [teams[name], ids[member]])
  }

  const canary = (await db.query<{ id: string }>(`INSERT INTO canaries (name, namespace, spec) VALUES ('shop-checks', 'default', '{}') RETURNING id`)).rows[0]!.id
  const checks: Record<string, string> = {}
  for (const [name, status, target] of [['web-http', 'healthy', 'web'], ['web-tls', 'unhealthy', 'web'], ['db-ping', 'healthy', 'db-1']] as const) {
    checks[name] = (await db.query<{ id: string }>(`INSERT INTO checks (canary_id, type, name, status, severity) VALUES ($1, 'http', $2, $3, 'high') RETURNING id`, [canary, name, status])).rows[0]!.id
    await db.query(`INSERT INTO check_component_relationships (component_id, check_id, canary_id) VALUES ($1, $2, $3)`, [ids[target], checks[name], canary])
  }

  const config = (await db.query<{ id: string }>(`INSERT INTO config_items (name, type, config_class, external_id) VALUES ('orders-db', 'AWS::RDS::Instance', 'Database', ARRAY['orders-db']) RETURNING id`)).rows[0]!.id
  await db.query(`INSERT INTO config_analysis (config_id, analyzer, analysis_type, severity, status) VALUES ($1, 'public-access', 'security', 'high', 'open')`, [config])
  await db.query(`INSERT INTO config_component_relationships (component_id, config_id) VALUES ($1, $2)`, [ids.db, config])

  const incident = (await db.query<{ id: string }>(
    `INSERT INTO incidents (title, created_by, severity, description, type, status) VALUES ('orders slow', $1, 'High', 'p99 up', 'availability', 'open') RETURNING id`,
    [person],
  )).rows[0]!.id
  const hypothesis = (await db.query<{ id: string }>(
    `INSERT INTO hypotheses (incident_id, type, title, status, created_by) VALUES ($1, 'root', 'db saturated', 'possible', $2) RETURNING id`,
    [incident, person],
  )).rows[0]!.id
  await db.query(`INSERT INTO evidences (hypothesis_id, created_by, type, description, component_id) VALUES ($1, $2, 'topology', 'db', $3)`, [hypothesis, person, ids.db])

  return { ids, teams, edgeAgent, checks, config }
}
