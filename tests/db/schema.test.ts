import { afterAll, beforeAll, describe, expect, it } from 'vitest'
import { createPGliteDb, type Db } from '#server/db/client.ts'
import { migrate } from '#server/db/migrate.ts'
import { TEST_ENGINE } from '#tests/support/test-db.ts'
import { useTestApp } from '#tests/support/use-test-app.ts'

const NIL = '00000000-0000-0000-0000-000000000000'

// Every PostgREST read of the spec's data-reads list (minus `jobs`, which is a client route,
// and the per-view tables, which are generated at runtime) plus the extra reads of 1.4.48.
const READ_RESOURCES = [
  'incidents', 'incident_summary', 'incident_histories', 'hypotheses', 'evidences', 'comments', 'configs',
  'config_detail', 'config_changes', 'config_analysis', 'config_analysis_items', 'config_tags', 'config_labels',
  'config_types', 'config_statuses', 'change_types', 'config_relationships', 'config_component_relationships',
  'components', 'component_names', 'component_labels', 'team_components', 'checks', 'check_statuses', 'canaries',
  'canary_names', 'job_histories', 'job_history_names', 'notifications', 'notifications_summary',
  'notification_silences', 'notification_send_history_summary', 'permissions_summary', 'playbook_runs', 'playbooks',
  'playbook_names', 'agents', 'agents_summary', 'teams', 'team_members', 'properties', 'connections',
  'integrations_with_status', 'event_queue_summary', 'views', 'views_summary',
  'check_names', 'checks_by_component', 'check_summary_for_config', 'checks_labels_keys', 'components_with_logs',
  'component_labels_keys', 'config_names', 'config_tags_labels_keys', 'config_analysis_analyzers', 'analysis_types',
  'analysis_by_component', 'changes_by_component', 'incidents_by_config', 'incidents_by_component', 'config_items',
  'logging_backends', 'topologies', 'responders', 'people', 'people_roles', 'playbook_run_actions', 'catalog_changes',
  'check_summary', 'check_labels', 'check_summary_by_component', 'checks_by_config', 'check_summary_by_config',
  'check_statuses_5m', 'canaries_with_status', 'config_classes', 'analyzer_types', 'config_summary',
  'config_class_summary', 'analysis_by_config', 'component_names_all', 'component_types', 'topology',
  'incident_summary_by_component', 'permission_subjects', 'job_history_summary', 'job_history_latest_status',
  'topologies_with_status', 'config_scrapers_with_status', 'teams_with_status', 'connections_list',
  'connection_details', 'severities', 'artifacts', 'playbook_approvals', 'view_panels',
]

type Row = Record<string, unknown>

const testApp = useTestApp()
let db: Db

beforeAll(async () => {
  db = testApp.db
})

async function one<T = Row>(text: string, params: unknown[] = []): Promise<T> {
  const { rows } = await db.query<T>(text, params)
  if (rows.length !== 1) throw new Error(`expected one row, got ${rows.length}: ${text}`)
  return rows[0]!
}

async function systemPersonId(): Promise<string> {
  return (await one<{ id: string }>(`SELECT id FROM people WHERE name = 'System'`)).id
}

async function insertConfig(fields: { name?: string | null; type?: string; parentId?: string; externalId?: string[]; path?: string } = {}) {
  return one<{ id: string; name: string }>(
    `INSERT INTO config_items (config_class, type, name, parent_id, external_id, path)
     VALUES ('Pod', $1, $2, $3, $4, $5) RETURNING id, name`,
    [fields.type ?? 'Kubernetes::Pod', fields.name ?? null, fields.parentId ?? null, fields.externalId ?? null, fields.path ?? null],
  )
}

async function insertCanaryWithCheck(name: string) {
  const canary = await one<{ id: string }>(
    `INSERT INTO canaries (name, namespace, spec) VALUES ($1, 'default', '{"interval": 30}') RETURNING id`,
    [name],
  )
  const check = await one<{ id: string }>(
    `INSERT INTO checks (canary_id, type, name, status, created_at) VALUES ($1, 'http', $2, 'healthy', now()) RETURNING id`,
    [canary.id, `${name}-check`],
  )
  return { canaryId: canary.id, checkId: check.id }
}

describe('schema', () => {
  it('serves every read resource of the data contract', async () => {
    for (const resource of READ_RESOURCES) {
      await expect(db.query(`SELECT * FROM ${resource} LIMIT 1`), resource).resolves.toBeDefined()
    }
  })

  it('seeds the local agent, the System person and scraper, and the severities', async () => {
    expect(await one(`SELECT name FROM agents WHERE id = $1`, [NIL])).toEqual({ name: 'local' })
    expect((await db.query(`SELECT id FROM people WHERE name = 'System'`)).rows).toHaveLength(1)
    const scraper = await one<{ name: string; source: string; spec: Row }>(
      `SELECT name, source::text AS source, spec FROM config_scrapers WHERE id = $1`, [NIL])
    expect(scraper).toMatchObject({ name: 'System', source: 'System', spec: { schedule: '@every 5m' } })
    const severities = await db.query(`SELECT id, name, icon, aliases FROM severities ORDER BY id`)
    expect(severities.rows).toEqual([
      { id: 1, name: 'Critical', icon: 'error', aliases: ['P1'] },
      { id: 2, name: 'Blocker', icon: 'error', aliases: ['P2'] },
      { id: 3, name: 'High', icon: 'warning', aliases: ['P3'] },
      { id: 4, name: 'Medium', icon: 'info', aliases: ['P4'] },
      { id: 5, name: 'Low', icon: 'info', aliases: ['P4'] },
    ])
  })

  it('generates time-ordered ids', async () => {
    const { rows } = await db.query<{ id: string }>(`SELECT generate_ulid()::text AS id FROM generate_series(1, 3)`)
    expect(new Set(rows.map((row) => row.id)).size).toBe(3)
    const before = Date.now()
    const id = (await one<{ id: string }>(`SELECT generate_ulid()::text AS id`)).id
    const millis = parseInt(id.replace(/-/g, '').slice(0, 12), 16)
    expect(Math.abs(millis - before)).toBeLessThan(5_000)
  })

  it('bumps updated_at on real changes only and keeps the first deletion time', async () => {
    const team = await one<{ id: string }>(
      `INSERT INTO teams (name, created_by, updated_at) VALUES ('sre', $1, '2020-01-01T00:00:00Z') RETURNING id`,
      [await systemPersonId()],
    )
    const read = () => one<{ updated_at: Date; deleted_at: Date | null }>(`SELECT updated_at, deleted_at FROM teams WHERE id = $1`, [team.id])

    await db.query(`UPDATE teams SET name = name WHERE id = $1`, [team.id])
    expect((await read()).updated_at.toISOString()).toBe('2020-01-01T00:00:00.000Z')

    await db.query(`UPDATE teams SET icon = 'shield' WHERE id = $1`, [team.id])
    const bumped = (await read()).updated_at
    expect(bumped.getTime()).toBeGreaterThan(Date.now() - 60_000)

    await db.query(`UPDATE teams SET deleted_at = '2021-01-01T00:00:00Z' WHERE id = $1`, [team.id])
    await db.query(`UPDATE teams SET deleted_at = '2022-06-01T00:00:00Z', icon = 'x' WHERE id = $1`, [team.id])
    const deleted = await read()
    expect(deleted.deleted_at?.toISOString()).toBe('2021-01-01T00:00:00.000Z')
    expect(deleted.updated_at.getTime()).toBe(bumped.getTime())

    await db.query(`UPDATE teams SET deleted_at = NULL WHERE id = $1`, [team.id])
    expect((await read()).deleted_at).toBeNull()
  })

  it('resets is_pushed when a replicated row changes', async () => {
    const config = await insertConfig({ name: 'pushed-item' })
    await db.query(`UPDATE config_items SET is_pushed = true WHERE id = $1`, [config.id])
    expect(await one(`SELECT is_pushed FROM config_items WHERE id = $1`, [config.id])).toEqual({ is_pushed: true })
    await db.query(`UPDATE config_items SET status = 'Running' WHERE id = $1`, [config.id])
    expect(await one(`SELECT is_pushed FROM config_items WHERE id = $1`, [config.id])).toEqual({ is_pushed: false })
  })

  it('numbers incidents INC-<n> and writes their timeline', async () => {
    const person = await systemPersonId()
    const insert = () =>
      one<{ id: string; incident_id: string }>(
        `INSERT INTO incidents (title, created_by, severity, description, type, status)
         VALUES ('db down', $1, 'high', '', 'availability', 'open') RETURNING id, incident_id`,
        [person],
      )
    const first = await insert()
    const second = await insert()
    expect(first.incident_id).toMatch(/^INC-\d+$/)
    expect(Number(second.incident_id.slice(4))).toBe(Number(first.incident_id.slice(4)) + 1)

    const commander = await one<{ id: string }>(`INSERT INTO people (name, email) VALUES ('Ada', 'ada@example.com') RETURNING id`)
    await db.query(`UPDATE incidents SET status = 'mitigated', commander_id = $2 WHERE id = $1`, [first.id, commander.id])

    const hypothesis = await one<{ id: string }>(
      `INSERT INTO hypotheses (created_by, incident_id, type, title, status) VALUES ($1, $2, 'root', 'disk full', 'possible') RETURNING id`,
      [person, first.id],
    )
    await db.query(`UPDATE hypotheses SET status = 'proven' WHERE id = $1`, [hypothesis.id])
    const evidence = await one<{ id: string }>(
      `INSERT INTO evidences (description, hypothesis_id, created_by, type) VALUES ('df output', $1, $2, 'log') RETURNING id`,
      [hypothesis.id, person],
    )
    await db.query(`UPDATE evidences SET definition_of_done = true WHERE id = $1`, [evidence.id])
    const responder = await one<{ id: string }>(
      `INSERT INTO responders (incident_id, type, person_id, created_by) VALUES ($1, 'person', $2, $3) RETURNING id`,
      [first.id, commander.id, person],
    )
    await db.query(
      `INSERT INTO comments (created_by, comment, incident_id, responder_id) VALUES ($1, 'on it', $2, $3)`,
      [commander.id, first.id, responder.id],
    )

    const history = await db.query<{ type: string; description: string | null; created_by: string }>(
      `SELECT type, description, created_by FROM incident_histories WHERE incident_id = $1 ORDER BY created_at, id`,
      [first.id],
    )
    expect(history.rows.map((row) => row.type)).toEqual([
      'incident.created',
      'incident.status_updated',
      'hypothesis.created',
      'hypothesis.status_updated',
      'evidence.created',
      'evidence.done_definition_added',
      'responder.created',
      'responder.commented',
    ])
    expect(history.rows[0]).toMatchObject({ description: first.incident_id, created_by: person })
    expect(history.rows[1]).toMatchObject({ description: 'mitigated', created_by: person })

    const events = await db.query<{ name: string }>(
      `SELECT name FROM event_queue WHERE name LIKE 'incident.%' ORDER BY name`,
    )
    expect(events.rows.map((row) => row.name)).toEqual(
      expect.arrayContaining(['incident.created', 'incident.status.mitigated', 'incident.dod.added',
        'incident.responder.added', 'incident.comment.added']),
    )

    const summary = await one<{ commander: Row; responders: Row[]; commenters: Row[] }>(
      `SELECT commander, responders, commenters FROM incident_summary WHERE id = $1`, [first.id])
    expect(summary.commander).toEqual({ id: commander.id, name: 'Ada', avatar: null })
    expect(summary.responders).toEqual([{ id: commander.id, name: 'Ada', avatar: null }])
    expect(summary.commenters).toEqual([{ id: commander.id, name: 'Ada', avatar: null }])
    const noCommander = await one<{ commander: Row }>(`SELECT commander FROM incident_summary WHERE id = $1`, [second.id])
    expect(noCommander.commander).toEqual({ id: null, name: null, avatar: null })

    // Hard deletes of incident children succeed even with history rows pointing at them.
    await db.query(`DELETE FROM hypotheses WHERE id = $1`, [hypothesis.id])
    expect((await db.query(`SELECT 1 FROM evidences WHERE id = $1`, [evidence.id])).rows).toHaveLength(0)
  })

  it('sets last_transition_time when a check changes status', async () => {
    const { checkId } = await insertCanaryWithCheck('transition')
    await db.query(`UPDATE checks SET last_transition_time = '2020-01-01T00:00:00Z' WHERE id = $1`, [checkId])
    await db.query(`UPDATE checks SET description = 'same status' WHERE id = $1`, [checkId])
    const unchanged = await one<{ last_transition_time: Date }>(`SELECT last_transition_time FROM checks WHERE id = $1`, [checkId])
    expect(unchanged.last_transition_time.toISOString()).toBe('2020-01-01T00:00:00.000Z')
    await db.query(`UPDATE checks SET status = 'unhealthy' WHERE id = $1`, [checkId])
    const changed = await one<{ last_transition_time: Date }>(`SELECT last_transition_time FROM checks WHERE id = $1`, [checkId])
    expect(changed.last_transition_time.getTime()).toBeGreaterThan(Date.now() - 60_000)
  })

  it('cascades a canary soft delete to its checks and check links', async () => {
    const { canaryId, checkId } = await insertCanaryWithCheck('cascade')
    const component = await one<{ id: string }>(
      `INSERT INTO components (external_id, name, status, type) VALUES ('c-1', 'api', 'healthy', 'Service') RETURNING id`)
    await db.query(
      `INSERT INTO check_component_relationships (component_id, check_id, canary_id) VALUES ($1, $2, $3)`,
      [component.id, checkId, canaryId],
    )
    await db.query(`UPDATE canaries SET deleted_at = '2024-05-01T10:00:00Z' WHERE id = $1`, [canaryId])
    const check = await one<{ deleted_at: Date }>(`SELECT deleted_at FROM checks WHERE id = $1`, [checkId])
    expect(check.deleted_at.toISOString()).toBe('2024-05-01T10:00:00.000Z')
    const link = await one<{ deleted_at: Date }>(`SELECT deleted_at FROM check_component_relationships WHERE check_id = $1`, [checkId])
    expect(link.deleted_at.toISOString()).toBe('2024-05-01T10:00:00.000Z')
    expect((await db.query(`SELECT 1 FROM canary_names WHERE id = $1`, [canaryId])).rows).toHaveLength(0)
  })

  it('names unnamed config items after their id and mirrors parent_id as a hard relationship', async () => {
    const unnamed = await insertConfig({ name: '' })
    expect(unnamed.name).toBe(unnamed.id.slice(-12))

    const parentA = await insertConfig({ name: 'node-a', type: 'Kubernetes::Node' })
    const parentB = await insertConfig({ name: 'node-b', type: 'Kubernetes::Node' })
    const child = await insertConfig({ name: 'pod', parentId: parentA.id })
    const hardEdges = () =>
      db.query<{ config_id: string }>(`SELECT config_id FROM config_relationships WHERE related_id = $1 AND relation = 'hard'`, [child.id])
    expect((await hardEdges()).rows).toEqual([{ config_id: parentA.id }])
    await db.query(`UPDATE config_items SET parent_id = $2 WHERE id = $1`, [child.id, parentB.id])
    expect((await hardEdges()).rows).toEqual([{ config_id: parentB.id }])

    const scraped = await one<{ n: number }>(`SELECT count(*)::int AS n FROM config_items_last_scraped_time WHERE config_id = $1`, [child.id])
    expect(scraped.n).toBe(1)
  })

  it('links items of different types sharing an external id as Alias', async () => {
    const pod = await insertConfig({ name: 'alias-pod', externalId: ['arn:shared:1'] })
    const instance = await insertConfig({ name: 'alias-ec2', type: 'AWS::EC2::Instance', externalId: ['arn:shared:1', 'i-123'] })
    const edges = await db.query(
      `SELECT config_id, related_id FROM config_relationships WHERE relation = 'Alias' AND (config_id = $1 OR related_id = $1)`,
      [pod.id],
    )
    expect(edges.rows).toEqual([{ config_id: instance.id, related_id: pod.id }])
  })

  it('records health changes as config changes and events', async () => {
    const config = await insertConfig({ name: 'healthy-pod' })
    await db.query(`UPDATE config_items SET health = 'unhealthy', status = 'CrashLoopBackOff' WHERE id = $1`, [config.id])
    const change = await one<{ change_type: string; severity: string; source: string }>(
      `SELECT change_type, severity, source FROM config_changes WHERE config_id = $1`, [config.id])
    expect(change).toEqual({ change_type: 'Unhealthy', severity: 'medium', source: 'config-db-health-trigger' })
    const events = await db.query<{ name: string }>(`SELECT name FROM event_queue WHERE event_id = $1 ORDER BY name`, [config.id])
    expect(events.rows.map((row) => row.name)).toEqual(['config.created', 'config.unhealthy'])
    const detail = await one<{ summary: { changes: number } }>(`SELECT summary FROM config_detail WHERE id = $1`, [config.id])
    expect(detail.summary.changes).toBe(1)
  })

  it('merges repeated writes of one external change', async () => {
    const config = await insertConfig({ name: 'merge-target' })
    const write = (details: Row) =>
      db.query(
        `INSERT INTO config_changes (config_id, external_change_id, change_type, summary, details)
         VALUES ($1, 'evt-1', 'UPDATE', 'scaled', $2)`,
        [config.id, JSON.stringify(details)],
      )
    await write({ replicas: 2 })
    await write({ replicas: 3 })
    const rows = await db.query<{ count: number; details: Row }>(
      `SELECT count, details FROM config_changes WHERE config_id = $1 AND external_change_id = 'evt-1'`, [config.id])
    expect(rows.rows).toEqual([{ count: 2, details: { replicas: 3 } }])
    const configs = await one<{ changes: number }>(`SELECT changes::int AS changes FROM configs WHERE id = $1`, [config.id])
    expect(configs.changes).toBe(1)
  })

  it("keeps stored connection secrets when '***' is written back", async () => {
    const connection = await one<{ id: string }>(
      `INSERT INTO connections (name, type, url, username, password) VALUES ('pg', 'postgres', 'postgres://db', 'app', 's3cret') RETURNING id`)
    await db.query(`UPDATE connections SET username = 'app2', password = '***' WHERE id = $1`, [connection.id])
    expect(await one(`SELECT username, password FROM connections WHERE id = $1`, [connection.id])).toEqual({
      username: 'app2', password: 's3cret',
    })
    expect(await one(`SELECT username, password FROM connection_details WHERE id = $1`, [connection.id])).toEqual({
      username: '***', password: '***',
    })
  })

  it('walks related configs through a cycle and stops at max_depth', async () => {
    const a = await insertConfig({ name: 'rel-a', type: 'Rel::A' })
    const b = await insertConfig({ name: 'rel-b', type: 'Rel::B' })
    const c = await insertConfig({ name: 'rel-c', type: 'Rel::C' })
    const d = await insertConfig({ name: 'rel-d', type: 'Rel::D' })
    for (const [from, to] of [[a, b], [b, c], [c, a], [c, d]] as const) {
      await db.query(`INSERT INTO config_relationships (config_id, related_id, relation) VALUES ($1, $2, 'depends')`, [from.id, to.id])
    }
    const outgoing = await db.query<{ id: string; name: string; related_ids: string[] | null }>(
      `SELECT id, name, related_ids FROM related_configs_recursive($1, 'outgoing', false, 10)`, [a.id])
    expect(outgoing.rows.map((row) => row.name)).toEqual(['rel-a', 'rel-b', 'rel-c', 'rel-d'])
    expect(outgoing.rows.find((row) => row.name === 'rel-c')?.related_ids?.sort()).toEqual([a.id, d.id].sort())

    const shallow = await db.query(`SELECT name FROM related_configs_recursive($1, 'outgoing', false, 1)`, [a.id])
    expect(shallow.rows).toEqual([{ name: 'rel-a' }, { name: 'rel-b' }])

    const incoming = await db.query(`SELECT name FROM related_configs_recursive($1, 'incoming', false, 10)`, [d.id])
    expect(incoming.rows).toEqual([{ name: 'rel-d' }, { name: 'rel-c' }, { name: 'rel-b' }, { name: 'rel-a' }])

    await db.query(`UPDATE config_items SET deleted_at = now() WHERE id = $1`, [d.id])
    const live = await db.query(`SELECT name FROM related_configs_recursive($1, 'all', false, 10)`, [a.id])
    expect(live.rows.map((row) => (row as { name: string }).name)).not.toContain('rel-d')

    await expect(db.query(`SELECT * FROM related_configs_recursive($1, 'sideways')`, [a.id])).rejects.toThrow(/type_filter/)
  })

  it('summarises check uptime and latency over the last hour, falling back to the latest run', async () => {
    const recent = await insertCanaryWithCheck('summary-recent')
    const stale = await insertCanaryWithCheck('summary-stale')
    const statuses: [string, string, boolean, number][] = [
      [recent.checkId, '5 minutes', true, 10],
      [recent.checkId, '10 minutes', true, 20],
      [recent.checkId, '20 minutes', true, 30],
      [recent.checkId, '30 minutes', false, 40],
      [recent.checkId, '3 hours', false, 1000],
      [stale.checkId, '2 hours', false, 50],
      [stale.checkId, '5 hours', true, 70],
    ]
    for (const [checkId, ago, status, duration] of statuses) {
      await db.query(
        `INSERT INTO check_statuses (check_id, time, status, duration) VALUES ($1, now() - $2::interval, $3, $4)`,
        [checkId, ago, status, duration],
      )
    }
    const row = (id: string) =>
      one<{ uptime: Row; latency: Row }>(`SELECT uptime, latency FROM check_summary WHERE id = $1`, [id])

    const live = await row(recent.checkId)
    expect(live.uptime).toMatchObject({ passed: 3, failed: 1 })
    expect(live.uptime.last_pass).not.toBeNull()
    expect(live.latency).toEqual({ p50: 20, p95: 40, p99: 40, avg: 25 })

    const fallback = await row(stale.checkId)
    expect(fallback.uptime).toMatchObject({ passed: 0, failed: 1, last_pass: null })
    expect(fallback.uptime.last_fail).not.toBeNull()
    expect(fallback.latency).toEqual({ p50: 50, p95: 50, p99: 50, avg: 50 })

    const never = await insertCanaryWithCheck('summary-never')
    expect((await row(never.checkId)).uptime).toMatchObject({ passed: 0, failed: 0 })
  })

  it('derives the settings read models', async () => {
    const person = await systemPersonId()
    await db.query(`INSERT INTO agents (name, last_seen) VALUES ('edge-online', now()), ('edge-stale', now() - interval '5 minutes')`)
    const agents = await db.query(`SELECT name, health, status FROM agents_summary WHERE name LIKE 'edge-%' ORDER BY name`)
    expect(agents.rows).toEqual([
      { name: 'edge-online', health: 'healthy', status: 'online' },
      { name: 'edge-stale', health: 'unhealthy', status: 'offline' },
    ])

    const { canaryId } = await insertCanaryWithCheck('jobs')
    await db.query(
      `INSERT INTO job_history (name, resource_type, resource_id, status, time_start, created_at) VALUES
         ('SyncCanary', 'canary', $1, 'FAILED', now() - interval '2 minutes', now() - interval '2 minutes'),
         ('SyncCanary', 'canary', $1, 'SUCCESS', now() - interval '1 minute', now() - interval '1 minute')`,
      [canaryId],
    )
    const canary = await one<{ job_status: string; job_last_failed: Date | null; interval: string }>(
      `SELECT job_status, job_last_failed, interval FROM canaries_with_status WHERE id = $1`, [canaryId])
    expect(canary.job_status).toBe('SUCCESS')
    expect(canary.job_last_failed).toBeInstanceOf(Date)
    expect(canary.interval).toBe('30')
    const jobs = await db.query(`SELECT DISTINCT resource_name FROM job_histories WHERE resource_id = $1`, [canaryId])
    expect(jobs.rows).toEqual([{ resource_name: 'jobs' }])

    const config = await insertConfig({ name: 'notified-pod' })
    const notification = await one<{ id: string }>(
      `INSERT INTO notifications (events, created_by) VALUES ('{config.unhealthy}', $1) RETURNING id`, [person])
    await db.query(
      `INSERT INTO notification_send_history (notification_id, source_event, resource_id, status) VALUES ($1, 'config.unhealthy', $2, 'sent')`,
      [notification.id, config.id],
    )
    const sent = await one<{ resource_kind: string; resource_type: string; resource: Row }>(
      `SELECT resource_kind, resource_type, resource FROM notification_send_history_summary WHERE notification_id = $1`,
      [notification.id],
    )
    expect(sent).toMatchObject({ resource_kind: 'config', resource_type: 'config', resource: { name: 'notified-pod', type: 'Kubernetes::Pod' } })
    expect(await one(`SELECT sent::int AS sent FROM notifications_summary WHERE id = $1`, [notification.id])).toEqual({ sent: 1 })
    expect(await one(`SELECT change_type FROM config_changes WHERE config_id = $1`, [config.id])).toEqual({ change_type: 'NotificationSent' })

    const permission = await one<{ id: string }>(
      `INSERT INTO permissions (action, config_id, subject, subject_type) VALUES ('read', $1, $2, 'person') RETURNING id`,
      [config.id, person],
    )
    const summary = await one<{ config_id: string; config_object: Row; person: Row }>(
      `SELECT config_id, config_object, person FROM permissions_summary WHERE id = $1`, [permission.id])
    expect(summary).toMatchObject({ config_id: config.id, config_object: { name: 'notified-pod' }, person: { name: 'System' } })
    await expect(db.query(`INSERT INTO permissions (action) VALUES ('read')`)).rejects.toThrow(/permissions_target_check/)

    await db.query(
      `INSERT INTO views (name, namespace, spec) VALUES ('pods', 'mc', '{"display": {"title": "Pods", "ordinal": 2, "sidebar": true}}')`)
    expect(await one(`SELECT title, ordinal, sidebar FROM views_summary WHERE name = 'pods'`)).toEqual({ title: 'Pods', ordinal: 2, sidebar: true })

    await db.query(`INSERT INTO connections (name, type, url) VALUES ('alerts', 'slack', 'slack://token@channel')`)
    expect(await one(`SELECT category FROM connections_list WHERE name = 'alerts'`)).toEqual({ category: 'notification' })
  })

  it('answers the console RPCs', async () => {
    const cluster = await insertConfig({ name: 'prod', type: 'Kubernetes::Cluster', externalId: ['cluster/prod'] })
    const namespace = await insertConfig({ name: 'web', type: 'Kubernetes::Namespace', externalId: ['cluster/prod/ns/web'] })
    const pod = await insertConfig({ name: 'web-1', externalId: ['pod-uid-1'] })
    await db.query(`INSERT INTO config_locations (id, location) VALUES ($1, 'cluster/prod'), ($1, 'cluster/prod/ns/web')`, [pod.id])
    const parents = await db.query(`SELECT id, name, type FROM get_parents_by_location($1)`, [pod.id])
    expect(parents.rows).toEqual([
      { id: cluster.id, name: 'prod', type: 'Kubernetes::Cluster' },
      { id: namespace.id, name: 'web', type: 'Kubernetes::Namespace' },
    ])
    const children = await db.query(`SELECT id FROM get_children_by_location($1)`, [cluster.id])
    expect(children.rows).toEqual([{ id: pod.id }])

    const component = await one<{ id: string }>(
      `INSERT INTO components (external_id, name, status, type) VALUES ('svc-1', 'web', 'healthy', 'Service') RETURNING id`)
    await db.query(`INSERT INTO config_component_relationships (component_id, config_id) VALUES ($1, $2)`, [component.id, pod.id])
    await db.query(
      `INSERT INTO config_analysis (config_id, analyzer, analysis_type, severity) VALUES ($1, 'privileged', 'security', 'high')`,
      [pod.id],
    )
    const analysis = await db.query(`SELECT analyzer FROM lookup_analysis_by_component($1)`, [component.id])
    expect(analysis.rows).toEqual([{ analyzer: 'privileged' }])
    expect(await one(`SELECT analysis FROM configs WHERE id = $1`, [pod.id])).toEqual({ analysis: { security: 1 } })

    const playbook = await one<{ id: string }>(
      `INSERT INTO playbooks (name, spec, source) VALUES ('restart', '{"actions": []}', 'UI') RETURNING id`)
    const run = await one<{ id: string }>(`INSERT INTO playbook_runs (playbook_id) VALUES ($1) RETURNING id`, [playbook.id])
    const childRun = await one<{ id: string }>(
      `INSERT INTO playbook_runs (playbook_id, parent_id) VALUES ($1, $2) RETURNING id`, [playbook.id, run.id])
    await db.query(
      `INSERT INTO playbook_run_actions (name, playbook_run_id, start_time) VALUES ('first', $1, now() - interval '1 minute'), ('second', $2, now())`,
      [run.id, childRun.id],
    )
    const actions = await db.query<{ name: string; agent: Row }>(`SELECT name, agent FROM get_playbook_run_actions($1)`, [run.id])
    expect(actions.rows).toEqual([
      { name: 'first', agent: { id: NIL, name: 'local' } },
      { name: 'second', agent: { id: NIL, name: 'local' } },
    ])
  })
})

// The same migrations must yield the same catalog on both engines. It needs the PostgreSQL
// server, so it runs in the postgres pass of the suite.
describe.runIf(TEST_ENGINE === 'postgres')('catalog parity between PGlite and PostgreSQL', () => {
  const CATALOG_QUERIES = {
    columns: `
      SELECT c.table_name, c.column_name, c.ordinal_position, c.data_type, c.udt_name, c.character_maximum_length,
             c.numeric_precision, c.numeric_scale, c.is_nullable, c.column_default, c.is_generated
      FROM information_schema.columns c
      WHERE c.table_schema = 'public'
      ORDER BY c.table_name, c.ordinal_position`,
    relations: `
      SELECT c.relname, c.relkind, c.relpersistence
      FROM pg_class c JOIN pg_namespace n ON n.oid = c.relnamespace
      WHERE n.nspname = 'public' AND c.relkind IN ('r', 'v', 'm', 'S')
      ORDER BY c.relname`,
    functions: `
      SELECT p.proname, pg_get_function_identity_arguments(p.oid) AS args, pg_get_function_result(p.oid) AS result, p.provolatile
      FROM pg_proc p JOIN pg_namespace n ON n.oid = p.pronamespace
      WHERE n.nspname = 'public'
      ORDER BY p.proname, args`,
    constraints: `
      SELECT rel.relname, con.conname, con.contype
      FROM pg_constraint con JOIN pg_class rel ON rel.oid = con.conrelid JOIN pg_namespace n ON n.oid = rel.relnamespace
      -- Newer engines also list NOT NULL as constraints (contype n); columns.is_nullable covers those.
      WHERE n.nspname = 'public' AND con.contype <> 'n'
      ORDER BY rel.relname, con.conname`,
    indexes: `
      SELECT tablename, indexname FROM pg_indexes WHERE schemaname = 'public' ORDER BY tablename, indexname`,
    triggers: `
      SELECT c.relname, t.tgname, t.tgtype
      FROM pg_trigger t JOIN pg_class c ON c.oid = t.tgrelid JOIN pg_namespace n ON n.oid = c.relnamespace
      WHERE n.nspname = 'public' AND NOT t.tgisinternal
      ORDER BY c.relname, t.tgname`,
  }

  let pglite: Db

  beforeAll(async () => {
    pglite = await createPGliteDb(undefined)
    await migrate(pglite)
  })

  afterAll(async () => {
    await pglite?.close()
  })

  for (const [name, query] of Object.entries(CATALOG_QUERIES)) {
    it(`has identical ${name}`, async () => {
      const [onPostgres, onPGlite] = await Promise.all([db.query(query), pglite.query(query)])
      expect(onPostgres.rows.length).toBeGreaterThan(0)
      expect(onPGlite.rows).toEqual(onPostgres.rows)
    })
  }

  it('has the FK names the client embeds', async () => {
    const { rows } = await db.query<{ conname: string }>(
      `SELECT conname FROM pg_constraint WHERE contype = 'f' AND conname = ANY($1) ORDER BY conname`,
      [[
        'checks_agent_id_fkey', 'checks_canary_id_fkey', 'config_component_relationships_component_id_fkey',
        'config_component_relationships_config_id_fkey', 'config_relationships_config_id_fkey',
        'config_relationships_related_id_fkey',
      ]],
    )
    expect(rows).toHaveLength(6)
  })
})
