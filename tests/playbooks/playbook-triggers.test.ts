import pino from 'pino'
import { beforeAll, describe, expect, it } from 'vitest'
import type { Db } from '#server/db/client.ts'
import { createEventConsumer } from '#server/backend/events/event-consumer.ts'
import { createPlaybookScheduler, createPlaybookTriggerHandlers, mergeEventHandlers } from '#server/backend/playbooks/playbook-triggers.ts'
import { useTestApp } from '#tests/support/use-test-app.ts'

/** Playbook triggers (resource-specs §2.3): events from the queue (canary, config, component) and on.schedule across two processes. */

const logger = pino({ level: 'silent' })
const exec = [{ name: 'go', exec: { script: 'echo hi' } }]

async function insertPlaybook(db: Db, name: string, spec: Record<string, unknown>): Promise<string> {
  const { rows } = await db.query<{ id: string }>(`INSERT INTO playbooks (name, spec, source) VALUES ($1, $2::jsonb, 'UI') RETURNING id`, [name, JSON.stringify({ actions: exec, ...spec })])
  return rows[0]!.id
}

async function runsOf(db: Db, playbookId: string) {
  const { rows } = await db.query<{ id: string; status: string; config_id: string | null; check_id: string | null; component_id: string | null; created_by: string | null; parameters: Record<string, string> }>(
    'SELECT id, status, config_id, check_id, component_id, created_by, parameters FROM playbook_runs WHERE playbook_id = $1 ORDER BY created_at',
    [playbookId],
  )
  return rows
}

describe('event triggers', () => {
  const testApp = useTestApp()
  let db: Db
  const drain = () => createEventConsumer({ db, logger, backoffBaseMs: 0, handlers: createPlaybookTriggerHandlers(db, logger) }).drain()

  beforeAll(async () => {
    db = testApp.db
  })

  it('on.canary failed: a failing check with matching labels creates one run targeting it; a filter that is false and other labels do not', async () => {
    const canary = (await db.query<{ id: string }>(`INSERT INTO canaries (name, namespace, spec) VALUES ('web-checks', 'default', '{}') RETURNING id`)).rows[0]!.id
    const check = (await db.query<{ id: string }>(`INSERT INTO checks (canary_id, type, name, status, labels) VALUES ($1, 'http', 'web-health', 'healthy', '{"team":"web"}') RETURNING id`, [canary])).rows[0]!.id
    await db.query(`INSERT INTO checks_unlogged (check_id, canary_id, status) VALUES ($1, $2, 'healthy')`, [check, canary])
    const matching = await insertPlaybook(db, 'on-failed', { on: { canary: [{ event: 'failed', labels: { team: 'web' } }] } })
    const filtered = await insertPlaybook(db, 'on-failed-filtered', { on: { canary: [{ event: 'failed', filter: "check.name == 'other'" }] } })
    const otherLabels = await insertPlaybook(db, 'on-failed-db', { on: { canary: [{ event: 'failed', labels: { team: 'db' } }] } })
    const onPassed = await insertPlaybook(db, 'on-passed', { on: { canary: [{ event: 'passed', filter: "check.name == 'web-health'" }] } })
    await drain()

    await db.query(`UPDATE checks_unlogged SET status = 'unhealthy' WHERE check_id = $1`, [check])
    await drain()
    const runs = await runsOf(db, matching)
    expect(runs).toHaveLength(1)
    expect(runs[0]).toMatchObject({ check_id: check, status: 'scheduled', created_by: null })
    expect(await runsOf(db, filtered)).toHaveLength(0)
    expect(await runsOf(db, otherLabels)).toHaveLength(0)
    expect(await runsOf(db, onPassed)).toHaveLength(0)

    await db.query(`UPDATE checks_unlogged SET status = 'healthy' WHERE check_id = $1`, [check])
    await drain()
    expect(await runsOf(db, onPassed)).toHaveLength(1)
    expect(await runsOf(db, matching)).toHaveLength(1)
  })

  it('merged with another handler of check.failed that asks for a retry: both run, and the retry creates no second run', async () => {
    const canary = (await db.query<{ id: string }>(`INSERT INTO canaries (name, namespace, spec) VALUES ('retry-checks', 'default', '{}') RETURNING id`)).rows[0]!.id
    const check = (await db.query<{ id: string }>(`INSERT INTO checks (canary_id, type, name, status) VALUES ($1, 'http', 'retry-health', 'healthy') RETURNING id`, [canary])).rows[0]!.id
    await db.query(`INSERT INTO checks_unlogged (check_id, canary_id, status) VALUES ($1, $2, 'healthy')`, [check, canary])
    const playbook = await insertPlaybook(db, 'on-failed-retry', { on: { canary: [{ event: 'failed', filter: "check.name == 'retry-health'" }] } })
    let calls = 0
    const flaky = { 'check.failed': async () => (++calls === 1 ? { retry: true as const, error: 'try again' } : undefined) }
    const consumer = createEventConsumer({ db, logger, backoffBaseMs: 0, handlers: mergeEventHandlers(flaky, createPlaybookTriggerHandlers(db, logger)) })
    await consumer.drain()
    await db.query(`UPDATE checks_unlogged SET status = 'unhealthy' WHERE check_id = $1`, [check])
    await consumer.drain()
    await consumer.drain()
    expect(calls).toBe(2)
    expect(await runsOf(db, playbook)).toHaveLength(1)
  })

  it("on.config unhealthy: a config item's health turning unhealthy creates a run when the CEL filter holds", async () => {
    const pod = (await db.query<{ id: string }>(`INSERT INTO config_items (name, type, config_class, health) VALUES ('web-pod', 'Kubernetes::Pod', 'Pod', 'healthy') RETURNING id`)).rows[0]!.id
    const node = (await db.query<{ id: string }>(`INSERT INTO config_items (name, type, config_class, health) VALUES ('node-1', 'Kubernetes::Node', 'Node', 'healthy') RETURNING id`)).rows[0]!.id
    const playbook = await insertPlaybook(db, 'on-unhealthy-pod', {
      parameters: [{ name: 'who', default: '{{.config.name}}' }],
      on: { config: [{ event: 'unhealthy', filter: "config.type == 'Kubernetes::Pod'" }] },
    })
    await drain()
    await db.query(`UPDATE config_items SET health = 'unhealthy' WHERE id = ANY($1::uuid[])`, [[pod, node]])
    await drain()
    const runs = await runsOf(db, playbook)
    expect(runs).toHaveLength(1)
    expect(runs[0]).toMatchObject({ config_id: pod, parameters: { who: 'web-pod' } })
  })

  it('on.config changed: one run per change, and the run’s own PlaybookScheduled change does not trigger it again', async () => {
    const item = (await db.query<{ id: string }>(`INSERT INTO config_items (name, type, config_class) VALUES ('orders', 'AWS::RDS::Instance', 'Database') RETURNING id`)).rows[0]!.id
    const playbook = await insertPlaybook(db, 'on-changed', { on: { config: [{ event: 'changed' }] } })
    await drain()
    await db.query(`INSERT INTO config_changes (config_id, change_type, source, summary) VALUES ($1, 'Restarted', 'test', 'restarted')`, [item])
    await drain()
    await drain()
    expect(await runsOf(db, playbook)).toHaveLength(1)
    // Both rows can carry one created_at (one transaction): the scheduled change is the later of a tie.
    const changes = await db.query<{ change_type: string }>("SELECT change_type FROM config_changes WHERE config_id = $1 ORDER BY created_at, change_type = 'PlaybookScheduled'", [item])
    expect(changes.rows.map((row) => row.change_type)).toEqual(['Restarted', 'PlaybookScheduled'])
  })

  it('on.component unhealthy: a component turning unhealthy creates a run targeting it', async () => {
    const topology = (await db.query<{ id: string }>(`INSERT INTO topologies (name, namespace, spec) VALUES ('shop', 'default', '{}') RETURNING id`)).rows[0]!.id
    const component = (await db.query<{ id: string }>(
      `INSERT INTO components (name, topology_id, type, external_id, status, health, labels) VALUES ('api', $1, 'Service', 'api', 'healthy', 'healthy', '{"tier":"web"}') RETURNING id`,
      [topology],
    )).rows[0]!.id
    const playbook = await insertPlaybook(db, 'on-component', { on: { component: [{ event: 'unhealthy', labels: { tier: 'web' } }] } })
    await drain()
    await db.query(`UPDATE components SET health = 'unhealthy' WHERE id = $1`, [component])
    await drain()
    const runs = await runsOf(db, playbook)
    expect(runs).toHaveLength(1)
    expect(runs[0]!.component_id).toBe(component)
  })
})

describe('schedule trigger', () => {
  const testApp = useTestApp()

  it('two schedulers create one run per slot, with templated schedule parameters', async () => {
    const db = testApp.db
    const playbook = await insertPlaybook(db, 'every-minute', {
      parameters: [{ name: 'note' }],
      on: { schedule: [{ schedule: '* * * * *', parameters: { note: 'run by {{.playbook.name}}' } }] },
    })
    let now = new Date('2026-03-01T10:00:30Z')
    const clock = () => now
    const first = createPlaybookScheduler({ db, logger, processId: 'scheduler-a', now: clock })
    const second = createPlaybookScheduler({ db, logger, processId: 'scheduler-b', now: clock })
    expect(await first.tick()).toBe(0)
    expect(await second.tick()).toBe(0)
    now = new Date('2026-03-01T10:01:05Z')
    const made = (await Promise.all([first.tick(), second.tick()])).reduce((sum, count) => sum + count, 0)
    expect(made).toBe(1)
    now = new Date('2026-03-01T10:02:02Z')
    expect((await second.tick()) + (await first.tick())).toBe(1)
    // A pass within the same slot creates nothing more.
    expect((await first.tick()) + (await second.tick())).toBe(0)

    const runs = await runsOf(db, playbook)
    expect(runs).toHaveLength(2)
    expect(runs[0]!.parameters).toEqual({ note: 'run by every-minute' })
    const slots = await db.query<{ slot: Date; run_id: string | null }>('SELECT slot, run_id FROM lookout.playbook_schedule_slots WHERE playbook_id = $1 ORDER BY slot', [playbook])
    expect(slots.rows.map((row) => new Date(row.slot).toISOString())).toEqual(['2026-03-01T10:01:00.000Z', '2026-03-01T10:02:00.000Z'])
    expect(slots.rows.every((row) => row.run_id !== null)).toBe(true)
  })

  it('runs on its own once started and stops creating runs once stopped', async () => {
    const db = testApp.db
    const playbook = await insertPlaybook(db, 'every-second', { on: { schedule: [{ schedule: '@every 1s' }] } })
    const scheduler = createPlaybookScheduler({ db, logger, processId: 'scheduler-live', pollIntervalMs: 100, minGapMs: 0 })
    await scheduler.start()
    const deadline = Date.now() + 5_000
    while ((await runsOf(db, playbook)).length === 0 && Date.now() < deadline) await new Promise((resolve) => setTimeout(resolve, 100))
    await scheduler.stop()
    const made = (await runsOf(db, playbook)).length
    expect(made).toBeGreaterThan(0)
    await new Promise((resolve) => setTimeout(resolve, 1_300))
    expect(await runsOf(db, playbook)).toHaveLength(made)
  })

  it('honours CRON_TZ', async () => {
    const db = testApp.db
    const playbook = await insertPlaybook(db, 'tokyo-morning', { on: { schedule: [{ schedule: 'CRON_TZ=Asia/Tokyo 0 9 * * *' }] } })
    let now = new Date('2026-03-01T23:59:00Z')
    const scheduler = createPlaybookScheduler({ db, logger, processId: 'scheduler-tz', now: () => now })
    await scheduler.tick()
    now = new Date('2026-03-02T00:00:10Z')
    await scheduler.tick()
    const slots = await db.query<{ slot: Date }>('SELECT slot FROM lookout.playbook_schedule_slots WHERE playbook_id = $1', [playbook])
    expect(slots.rows.map((row) => new Date(row.slot).toISOString())).toEqual(['2026-03-02T00:00:00.000Z'])
  })
})
