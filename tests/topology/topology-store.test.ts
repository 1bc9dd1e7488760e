import net from 'node:net'
import type { AddressInfo } from 'node:net'
import { afterAll, beforeAll, describe, expect, it } from 'vitest'
import { storeTopology } from '#server/backend/topology/topology-store.ts'
import type { EvaluatedComponent, TopologyRow } from '#server/backend/topology/topology-model.ts'
import { createTestDb, type TestDb } from '../support/test-db.ts'
import { applyYaml, canaryYaml, silentLogger, testEngine } from '../health/health-fixtures.ts'
import { component, countingDb, insertTopology, statsDb } from './topology-store-fixtures.ts'

let testDb: TestDb

beforeAll(async () => {
  testDb = await createTestDb()
})
afterAll(async () => {
  await testDb?.drop()
})

type Row = {
  id: string
  name: string
  type: string
  parent_id: string | null
  path: string
  external_id: string
  agent_id: string
  topology_id: string
  deleted_at: string | null
  health: string | null
  status: string
  status_reason: string | null
  summary: Record<string, unknown> | null
  properties: unknown
  labels: Record<string, string> | null
  is_leaf: boolean
  hidden: boolean
  icon: string | null
  topology_type: string | null
  namespace: string | null
}

async function rowsOf(topologyId: string): Promise<Map<string, Row>> {
  const { rows } = await testDb.db.query<Row>('SELECT * FROM components WHERE topology_id = $1', [topologyId])
  return new Map(rows.map((row) => [row.name, row]))
}

/** root → two groups → three leaves each; leaves carry properties and an explicit health. */
function shopTree(options: { leafHealth?: (group: number, leaf: number) => EvaluatedComponent['health']; drop?: string; version?: string } = {}): EvaluatedComponent {
  const groups = [0, 1].map((group) =>
    component(`group-${group}`, 'Group', { icon: 'folder' }, [0, 1, 2]
      .map((leaf) =>
        component(`svc-${group}-${leaf}`, 'Service', {
          externalId: `shop/group-${group}/svc-${group}-${leaf}`,
          labels: { tier: `t${leaf}` },
          owner: 'team-a',
          health: options.leafHealth?.(group, leaf) ?? 'healthy',
          properties: [{ name: 'version', text: group === 0 && leaf === 0 ? options.version ?? '1.0' : '1.0', headline: true }, { name: 'cpu', value: 10 + leaf, unit: 'millicores' }],
        }),
      )
      .filter((child) => child.name !== options.drop)),
  )
  return component('shop', 'Application', { icon: 'shopping-cart', description: 'the shop' }, groups)
}

describe('storeTopology: components', () => {
  let topology: TopologyRow

  beforeAll(async () => {
    topology = await insertTopology(testDb.db, 'shop')
  })

  it('creates the tree with ids, paths, every column the tree carries and a roll-up', async () => {
    const summary = await storeTopology(testDb.db, topology, { root: shopTree({ leafHealth: (g, l) => (g === 1 && l === 2 ? 'unhealthy' : 'healthy') }), errors: [] }, {})
    expect(summary).toMatchObject({ components: 9, created: 9, updated: 0, unchanged: 0, deleted: 0 })
    expect(summary.rowWrites).toBe(18) // 9 components and their 9 hashes
    const rows = await rowsOf(topology.id)
    const root = rows.get('shop')!
    const group1 = rows.get('group-1')!
    const leaf = rows.get('svc-1-2')!
    expect(root).toMatchObject({ parent_id: null, path: '', agent_id: topology.agent_id, type: 'Application', icon: 'shopping-cart', is_leaf: false, topology_type: 'Application', namespace: 'default' })
    expect(group1).toMatchObject({ parent_id: root.id, path: root.id, is_leaf: false })
    expect(leaf).toMatchObject({ parent_id: group1.id, path: `${root.id}.${group1.id}`, external_id: 'shop/group-1/svc-1-2', is_leaf: true, health: 'unhealthy', labels: { tier: 't2' } })
    expect(leaf.properties).toEqual([{ name: 'version', text: '1.0', headline: true }, { name: 'cpu', value: 12, unit: 'millicores' }])
    expect(rows.get('group-0')).toMatchObject({ health: 'healthy', status: 'healthy', summary: { healthy: 3 } })
    expect(group1).toMatchObject({ health: 'unhealthy', status: 'unhealthy', summary: { healthy: 2, unhealthy: 1 }, status_reason: '1 unhealthy component' })
    expect(root).toMatchObject({ health: 'unhealthy', summary: { healthy: 1, unhealthy: 1 } })
  })

  it('a re-run of an unchanged tree writes no row in any table', async () => {
    const stats = await statsDb(testDb)
    try {
      const counting = countingDb(stats.db)
      const tree = shopTree({ leafHealth: (g, l) => (g === 1 && l === 2 ? 'unhealthy' : 'healthy') })
      const before = await stats.tupleWrites()
      const summary = await storeTopology(counting.db, topology, { root: tree, errors: [] }, {})
      const after = await stats.tupleWrites()
      expect(summary).toMatchObject({ components: 9, created: 0, updated: 0, unchanged: 9, deleted: 0, rowWrites: 0 })
      expect(counting.writes).toEqual({ statements: 0, rows: 0 })
      expect(after - before).toBe(0)
      // The same measure sees a real change: one component row and its hash.
      const changed = await storeTopology(counting.db, topology, { root: shopTree({ version: '9', leafHealth: (g, l) => (g === 1 && l === 2 ? 'unhealthy' : 'healthy') }), errors: [] }, {})
      expect(changed.rowWrites).toBe(2)
      expect((await stats.tupleWrites()) - after).toBe(2)
      await storeTopology(counting.db, topology, { root: tree, errors: [] }, {})
    } finally {
      await stats.close()
    }
  })

  it('updates only what changed, with the ancestors whose roll-up moved', async () => {
    const before = await rowsOf(topology.id)
    // A property of one leaf: that leaf alone.
    const first = await storeTopology(testDb.db, topology, { root: shopTree({ version: '1.1', leafHealth: (g, l) => (g === 1 && l === 2 ? 'unhealthy' : 'healthy') }), errors: [] }, {})
    expect(first).toMatchObject({ created: 0, updated: 1, unchanged: 8, deleted: 0, rowWrites: 2 })
    // The unhealthy leaf recovers: it, its group and the root change.
    const second = await storeTopology(testDb.db, topology, { root: shopTree({ version: '1.1' }), errors: [] }, {})
    expect(second).toMatchObject({ created: 0, updated: 3, unchanged: 6, deleted: 0, rowWrites: 6 })
    const after = await rowsOf(topology.id)
    expect(after.get('svc-0-0')!.id).toBe(before.get('svc-0-0')!.id)
    expect((after.get('svc-0-0')!.properties as { text?: string }[])[0]!.text).toBe('1.1')
    expect(after.get('shop')).toMatchObject({ health: 'healthy', summary: { healthy: 2 } })
    expect(after.get('group-0')!.summary).toEqual({ healthy: 3 })
  })

  it('soft-deletes components gone from the tree and revives them when they come back', async () => {
    const before = await rowsOf(topology.id)
    const removed = await storeTopology(testDb.db, topology, { root: shopTree({ version: '1.1', drop: 'svc-1-1' }), errors: [] }, {})
    expect(removed).toMatchObject({ components: 8, deleted: 1, updated: 1 }) // group-1's summary
    let rows = await rowsOf(topology.id)
    expect(rows.get('svc-1-1')!.deleted_at).not.toBeNull()
    expect(rows.get('group-1')!.summary).toEqual({ healthy: 2 })

    const revived = await storeTopology(testDb.db, topology, { root: shopTree({ version: '1.1' }), errors: [] }, {})
    expect(revived).toMatchObject({ components: 9, created: 0, deleted: 0, updated: 2 })
    rows = await rowsOf(topology.id)
    expect(rows.get('svc-1-1')).toMatchObject({ id: before.get('svc-1-1')!.id, deleted_at: null })
    const { rows: count } = await testDb.db.query<{ n: number }>("SELECT count(*)::int AS n FROM components WHERE topology_id = $1 AND name = 'svc-1-1'", [topology.id])
    expect(count[0]!.n).toBe(1)
  })

  it('keeps components missing from an incomplete tree (a lookup failed)', async () => {
    const summary = await storeTopology(testDb.db, topology, { root: shopTree({ version: '1.1', drop: 'svc-0-2' }), errors: ['lookup failed'], incomplete: true }, {})
    expect(summary.deleted).toBe(0)
    expect((await rowsOf(topology.id)).get('svc-0-2')!.deleted_at).toBeNull()
    await storeTopology(testDb.db, topology, { root: shopTree({ version: '1.1' }), errors: [] }, {})
  })

  it('does not duplicate a root or a component when an earlier store wrote them without a hash', async () => {
    // As if another process stored the tree and its hashes were lost: ON CONFLICT meets the same rows.
    await testDb.db.query('DELETE FROM lookout.component_hashes WHERE component_id IN (SELECT id FROM components WHERE topology_id = $1)', [topology.id])
    const summary = await storeTopology(testDb.db, topology, { root: shopTree({ version: '1.1' }), errors: [] }, {})
    expect(summary).toMatchObject({ components: 9, created: 0, updated: 9 })
    const { rows } = await testDb.db.query<{ n: number }>('SELECT count(*)::int AS n FROM components WHERE topology_id = $1', [topology.id])
    expect(rows[0]!.n).toBe(9)
  })
})

describe('storeTopology: links', () => {
  it('writes check, config, component and team links as diffs', async () => {
    const topology = await insertTopology(testDb.db, 'linked')
    const { canaryId, checks } = await applyYaml(testDb.db, canaryYaml('link-checks', `  http:
    - name: a
      url: http://127.0.0.1:9/a
    - name: b
      url: http://127.0.0.1:9/b
`))
    const [checkA, checkB] = [checks.get('a')!, checks.get('b')!]
    await testDb.db.query("UPDATE checks_unlogged SET status = CASE WHEN check_id = $1 THEN 'healthy' ELSE 'unhealthy' END WHERE check_id = ANY($2::uuid[])", [checkA, [checkA, checkB]])
    const { rows: configs } = await testDb.db.query<{ id: string }>(
      "INSERT INTO config_items (name, type, config_class) VALUES ('db-1', 'Test::DB', 'Database'), ('db-2', 'Test::DB', 'Database') RETURNING id",
    )
    const [config1, config2] = configs.map((row) => row.id)
    const other = await insertTopology(testDb.db, 'other')
    await storeTopology(testDb.db, other, { root: component('other', 'Group', {}, [component('peer-1', 'Service'), component('peer-2', 'Service')]), errors: [] }, {})
    const peers = await rowsOf(other.id)
    const { rows: people } = await testDb.db.query<{ id: string }>('SELECT id FROM people LIMIT 1')
    const { rows: teams } = await testDb.db.query<{ id: string }>(
      "INSERT INTO teams (name, created_by) VALUES ('team-red', $1), ('team-blue', $1) RETURNING id",
      [people[0]!.id],
    )
    const [red, blue] = teams.map((row) => row.id)

    const tree = (second: boolean) =>
      component('linked', 'Application', {}, [
        component('api', 'Service', {
          links: {
            checks: second
              ? [{ checkId: checkB!, canaryId, selectorId: 'by-name' }]
              : [{ checkId: checkA!, canaryId, selectorId: 'by-name' }, { checkId: checkB!, canaryId, selectorId: 'by-name' }],
            configs: second ? [{ configId: config1!, selectorId: 'cfg-renamed' }, { configId: config2!, selectorId: 'cfg' }] : [{ configId: config1!, selectorId: 'cfg' }],
            components: second
              ? [{ componentId: peers.get('peer-2')!.id, selectorId: 'peers' }]
              : [{ componentId: peers.get('peer-1')!.id, selectorId: 'peers', relationshipPath: 'a' }, { componentId: peers.get('peer-2')!.id, selectorId: 'peers' }],
            teams: second ? [{ teamId: blue!, selectorId: 'owner' }] : [{ teamId: red!, role: 'owner', selectorId: 'owner' }, { teamId: blue!, selectorId: 'owner' }],
          },
        }),
      ])

    const first = await storeTopology(testDb.db, topology, { root: tree(false), errors: [] }, {})
    expect(first.rowWrites).toBe(4 + 2 + 1 + 2 + 2) // components+hashes, check links, config link, component links, team links
    const api = (await rowsOf(topology.id)).get('api')!
    expect(api).toMatchObject({ summary: { checks: { healthy: 1, unhealthy: 1 } }, health: 'unhealthy' })
    const linkRows = async () => ({
      checks: (await testDb.db.query<{ check_id: string; selector_id: string; deleted: boolean; updated_at: string }>(
        'SELECT check_id, selector_id, deleted_at IS NOT NULL AS deleted, updated_at::text FROM check_component_relationships WHERE component_id = $1 ORDER BY check_id', [api.id])).rows,
      configs: (await testDb.db.query<{ config_id: string; selector_id: string; deleted: boolean }>(
        'SELECT config_id, selector_id, deleted_at IS NOT NULL AS deleted FROM config_component_relationships WHERE component_id = $1 ORDER BY config_id', [api.id])).rows,
      components: (await testDb.db.query<{ component_id: string; relationship_path: string | null; deleted: boolean; updated_at: string }>(
        'SELECT component_id, relationship_path, deleted_at IS NOT NULL AS deleted, updated_at::text FROM component_relationships WHERE relationship_id = $1 ORDER BY component_id', [api.id])).rows,
      teams: (await testDb.db.query<{ team_id: string; role: string | null }>('SELECT team_id, role FROM team_components WHERE component_id = $1 ORDER BY team_id', [api.id])).rows,
    })
    const before = await linkRows()
    expect(before.checks.map((row) => [row.check_id, row.deleted])).toEqual([[checkA, false], [checkB, false]].sort())
    expect(before.components).toHaveLength(2)
    expect(before.teams).toHaveLength(2)

    const unchanged = await storeTopology(testDb.db, topology, { root: tree(false), errors: [] }, {})
    expect(unchanged.rowWrites).toBe(0)

    const second = await storeTopology(testDb.db, topology, { root: tree(true), errors: [] }, {})
    // check A soft-deleted; config1's selector updated, config2 added; peer-1 soft-deleted; red removed; api's checks summary changed (row+hash).
    expect(second.rowWrites).toBe(1 + 2 + 1 + 1 + 2)
    const after = await linkRows()
    expect(after.checks.find((row) => row.check_id === checkA)!.deleted).toBe(true)
    const keptCheck = after.checks.find((row) => row.check_id === checkB)!
    expect(keptCheck).toMatchObject({ deleted: false, updated_at: before.checks.find((row) => row.check_id === checkB)!.updated_at })
    expect(after.configs).toEqual([{ config_id: config1, selector_id: 'cfg-renamed', deleted: false }, { config_id: config2, selector_id: 'cfg', deleted: false }].sort((a, b) => a.config_id!.localeCompare(b.config_id!)))
    expect(after.components.find((row) => row.component_id === peers.get('peer-1')!.id)!.deleted).toBe(true)
    expect(after.components.find((row) => row.component_id === peers.get('peer-2')!.id)).toMatchObject({ deleted: false, updated_at: before.components.find((row) => row.component_id === peers.get('peer-2')!.id)!.updated_at })
    expect(after.teams).toEqual([{ team_id: blue, role: null }])
    expect((await rowsOf(topology.id)).get('api')).toMatchObject({ summary: { checks: { unhealthy: 1 } }, health: 'unhealthy' })

    // A link that comes back is revived, not duplicated.
    await storeTopology(testDb.db, topology, { root: tree(false), errors: [] }, {})
    const again = await linkRows()
    expect(again.checks.map((row) => [row.check_id, row.deleted])).toEqual([[checkA, false], [checkB, false]].sort())
    expect(again.components.every((row) => !row.deleted)).toBe(true)
    expect(again.teams).toHaveLength(2)
  })
})

describe('storeTopology: roll-up and expressions', () => {
  it('uses explicit health, then healthExpr/statusExpr over summary, and reports a bad expression keeping the roll-up', async () => {
    const topology = await insertTopology(testDb.db, 'exprs')
    const leaf = (name: string, health: EvaluatedComponent['health']) => component(name, 'Node', { health })
    const root = component('exprs', 'Cluster', {}, [
      component('warned', 'Pool', { healthExpr: 'summary.unhealthy > 0 ? "warning" : "healthy"', statusExpr: 'summary.healthy >= 1' }, [leaf('n1', 'unhealthy'), leaf('n2', 'healthy')]),
      component('forced', 'Pool', { health: 'healthy', status: 'info' }, [leaf('n3', 'unhealthy')]),
      component('broken', 'Pool', { healthExpr: 'summary.nope > 0', statusExpr: '"purple"' }, [leaf('n4', 'unhealthy')]),
      component('empty', 'Pool'),
    ])
    const summary = await storeTopology(testDb.db, topology, { root, errors: [] }, {})
    expect(summary.errors).toHaveLength(2)
    expect(summary.errors![0]).toMatch(/broken: healthExpr "summary.nope > 0": No such key: nope/)
    expect(summary.errors![1]).toMatch(/broken: statusExpr ""purple"" gave neither/)
    const rows = await rowsOf(topology.id)
    expect(rows.get('warned')).toMatchObject({ health: 'warning', status: 'healthy', summary: { healthy: 1, unhealthy: 1 } })
    expect(rows.get('forced')).toMatchObject({ health: 'healthy', status: 'info' })
    expect(rows.get('broken')).toMatchObject({ health: 'unhealthy', status: 'unhealthy' })
    expect(rows.get('empty')).toMatchObject({ health: 'unknown', status: 'unknown', summary: null, is_leaf: true })
    // Root: warned=warning, forced=healthy, broken=unhealthy, empty=unknown.
    expect(rows.get('exprs')).toMatchObject({ health: 'unhealthy', summary: { healthy: 1, unhealthy: 1, warning: 1, unknown: 1 } })
  })
})

describe('storeTopology: inline canaries', () => {
  it('creates one canary per component, links its checks, and rolls up their results after the check engine runs them', async () => {
    const peer = net.createServer((socket) => socket.end())
    await new Promise<void>((resolve) => peer.listen(0, '127.0.0.1', resolve))
    const port = (peer.address() as AddressInfo).port
    const topology = await insertTopology(testDb.db, 'inline', { schedule: '@every 1h' })
    const tree = (entries: EvaluatedComponent['inlineCanaries']) =>
      component('inline', 'Application', {}, [component('db', 'Database', { inlineCanaries: entries })])
    const entries = [
      { selectorId: 'inline', spec: { tcp: [{ name: 'db-port', endpoint: `127.0.0.1:${port}` }] } },
      { selectorId: 'inline', spec: { tcp: [{ name: 'db-port-again', endpoint: `127.0.0.1:${port}` }] } },
    ]
    const engine = testEngine(testDb.db)
    try {
      const first = await storeTopology(testDb.db, topology, { root: tree(entries), errors: [] }, { trusted: true, logger: silentLogger })
      expect(first.created).toBe(2)
      const db = (await rowsOf(topology.id)).get('db')!
      const { rows: canaries } = await testDb.db.query<{ id: string; name: string; namespace: string; spec: Record<string, unknown> }>(
        'SELECT id, name, namespace, spec FROM canaries WHERE source = $1 AND deleted_at IS NULL', [`component=${db.id}`])
      expect(canaries).toHaveLength(1)
      expect(canaries[0]).toMatchObject({ name: 'db', namespace: 'default', spec: { schedule: '@every 1h', tcp: [{ name: 'db-port' }, { name: 'db-port-again' }] } })
      const { rows: trust } = await testDb.db.query('SELECT 1 FROM lookout.check_spec_trust t JOIN canaries c ON t.spec_hash = md5(c.spec::text) WHERE c.id = $1', [canaries[0]!.id])
      expect(trust).toHaveLength(1)
      const { rows: links } = await testDb.db.query<{ check_id: string; name: string }>(
        `SELECT r.check_id, k.name FROM check_component_relationships r JOIN checks k ON k.id = r.check_id
         WHERE r.component_id = $1 AND r.selector_id = 'inline' AND r.deleted_at IS NULL ORDER BY k.name`, [db.id])
      expect(links.map((link) => link.name)).toEqual(['db-port', 'db-port-again'])

      const unchanged = await storeTopology(testDb.db, topology, { root: tree(entries), errors: [] }, { trusted: true })
      expect(unchanged.rowWrites).toBe(0)

      for (const link of links) expect((await engine.runNow(link.check_id))!.pass).toBe(true)
      const rolled = await storeTopology(testDb.db, topology, { root: tree(entries), errors: [] }, { trusted: true })
      expect(rolled).toMatchObject({ updated: 2 })
      expect((await rowsOf(topology.id)).get('db')).toMatchObject({ health: 'healthy', summary: { checks: { healthy: 2 } } })
      expect((await rowsOf(topology.id)).get('inline')).toMatchObject({ health: 'healthy', summary: { healthy: 1 } })

      await new Promise<void>((resolve) => peer.close(() => resolve()))
      const failed = await engine.runNow(links[0]!.check_id)
      expect(failed!.pass).toBeUndefined()
      expect(failed!.error).toBeTruthy()
      await storeTopology(testDb.db, topology, { root: tree(entries), errors: [] }, { trusted: true })
      expect((await rowsOf(topology.id)).get('db')).toMatchObject({ health: 'unhealthy', summary: { checks: { healthy: 1, unhealthy: 1 } } })

      // One entry fewer: the canary's spec is replaced, the dropped check and its link go.
      const fewer = await storeTopology(testDb.db, topology, { root: tree(entries.slice(0, 1)), errors: [] }, { trusted: true })
      expect(fewer.rowWrites).toBeGreaterThan(0)
      const { rows: live } = await testDb.db.query<{ name: string }>(
        `SELECT k.name FROM check_component_relationships r JOIN checks k ON k.id = r.check_id
         WHERE r.component_id = $1 AND r.deleted_at IS NULL`, [db.id])
      expect(live.map((row) => row.name)).toEqual(['db-port'])
      const { rows: same } = await testDb.db.query<{ id: string }>('SELECT id FROM canaries WHERE source = $1 AND deleted_at IS NULL', [`component=${db.id}`])
      expect(same.map((row) => row.id)).toEqual([canaries[0]!.id])

      // No entries left: the canary is soft-deleted with its checks and links.
      await storeTopology(testDb.db, topology, { root: tree([]), errors: [] }, { trusted: true })
      const { rows: gone } = await testDb.db.query<{ deleted: boolean }>('SELECT deleted_at IS NOT NULL AS deleted FROM canaries WHERE id = $1', [canaries[0]!.id])
      expect(gone[0]!.deleted).toBe(true)
      const { rows: liveLinks } = await testDb.db.query('SELECT 1 FROM check_component_relationships WHERE component_id = $1 AND deleted_at IS NULL', [db.id])
      expect(liveLinks).toHaveLength(0)
    } finally {
      await engine.stop()
      peer.close()
    }
  })

  it('records no trust for an untrusted topology, and trusts its unchanged canary once the topology is trusted', async () => {
    const topology = await insertTopology(testDb.db, 'untrusted')
    const spec = { tcp: [{ name: 'x', endpoint: '127.0.0.1:1' }] }
    const tree = component('untrusted', 'Application', { inlineCanaries: [{ selectorId: 'inline', spec }] })
    await storeTopology(testDb.db, topology, { root: tree, errors: [] }, {})
    const trusted = async () => (await testDb.db.query(
      `SELECT 1 FROM canaries c JOIN lookout.check_spec_trust t ON t.spec_hash = md5(c.spec::text)
       WHERE c.deleted_at IS NULL AND c.source = (SELECT 'component=' || id::text FROM components WHERE topology_id = $1)`, [topology.id])).rows.length
    expect(await trusted()).toBe(0)
    const upgraded = await storeTopology(testDb.db, topology, { root: tree, errors: [] }, { trusted: true })
    expect(upgraded.rowWrites).toBe(1)
    expect(await trusted()).toBe(1)
    expect((await storeTopology(testDb.db, topology, { root: tree, errors: [] }, { trusted: true })).rowWrites).toBe(0)
  })

  it('two stores of a new topology at once end with one tree', async () => {
    const topology = await insertTopology(testDb.db, 'racing')
    const root = () => shopTree()
    const results = await Promise.all([
      storeTopology(testDb.db, topology, { root: root(), errors: [] }, {}),
      storeTopology(testDb.db, topology, { root: root(), errors: [] }, {}),
    ])
    expect(results.map((result) => result.components)).toEqual([9, 9])
    const { rows } = await testDb.db.query<{ n: number }>('SELECT count(*)::int AS n FROM components WHERE topology_id = $1', [topology.id])
    expect(rows[0]!.n).toBe(9)
    expect((await storeTopology(testDb.db, topology, { root: root(), errors: [] }, {})).rowWrites).toBe(0)
  })
})
