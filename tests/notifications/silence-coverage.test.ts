import pino from 'pino'
import { afterAll, beforeAll, describe, expect, it } from 'vitest'
import type { Db } from '#server/db/client.ts'
import { loadNotificationContext, type NotificationContext } from '#server/backend/notifications/notification-context.ts'
import { findSilence } from '#server/backend/notifications/notification-matching.ts'
import { coveredResourceIds, createLineage, createSilenceMatcher, scopeOfSilence, type SilenceRowScope } from '#server/backend/notifications/silence-coverage.ts'
import { createTestDb, type TestDb } from '#tests/support/test-db.ts'

/**
 * One decision of "does this silence cover this resource" (silence-coverage.ts) for the delivery
 * pipeline (findSilence) and the silence preview (coveredResourceIds narrows, the matcher decides).
 * The estate: namespace shop → pod web (parent_id) → volume (config_relationships only), a
 * component api → endpoint (parent_id), and a canary with one check.
 */

const logger = pino({ level: 'silent' })
let testDb: TestDb
let db: Db
const ids: Record<string, string> = {}
const contexts: Record<string, NotificationContext> = {}

async function insertId(sql: string, params: unknown[] = []): Promise<string> {
  return (await db.query<{ id: string }>(sql, params)).rows[0]!.id
}

const scope = (fields: Partial<SilenceRowScope>) =>
  scopeOfSilence({ config_id: null, check_id: null, canary_id: null, component_id: null, recursive: null, filter: null, selectors: null, ...fields })

async function contextOf(name: string, id: string): Promise<NotificationContext> {
  const context = await loadNotificationContext(db, { id: `event-${id}`, name, eventId: id, properties: {}, createdAt: new Date().toISOString() })
  expect(context).not.toBeNull()
  return context!
}

async function addSilence(fields: Record<string, unknown>): Promise<string> {
  const columns = Object.keys(fields)
  const values = Object.values(fields).map((value) => (Array.isArray(value) ? JSON.stringify(value) : value))
  return insertId(
    `INSERT INTO notification_silences (name, "from", ${columns.map((column) => `"${column}"`).join(', ')})
     VALUES (gen_random_uuid()::text, now() - interval '1 minute', ${columns.map((column, index) => `$${index + 1}${column === 'selectors' ? '::jsonb' : ''}`).join(', ')}) RETURNING id`,
    values,
  )
}

beforeAll(async () => {
  testDb = await createTestDb()
  db = testDb.db
  const config = (name: string, type: string, tags: Record<string, string>, parent: string | null = null) =>
    insertId(`INSERT INTO config_items (name, type, config_class, tags, parent_id, health) VALUES ($1, $2, 'Pod', $3::jsonb, $4, 'unhealthy') RETURNING id`, [name, type, JSON.stringify(tags), parent])
  ids.namespace = await config('shop', 'Kubernetes::Namespace', { cluster: 'prod' })
  ids.web = await config('web', 'Kubernetes::Pod', { namespace: 'shop', cluster: 'prod' }, ids.namespace)
  ids.volume = await config('web-volume', 'Kubernetes::PersistentVolume', { cluster: 'prod' })
  ids.worker = await config('worker', 'Kubernetes::Pod', { namespace: 'batch', cluster: 'prod' })
  await db.query(`INSERT INTO config_relationships (config_id, related_id, relation) VALUES ($1, $2, 'PodVolume')`, [ids.web, ids.volume])
  const topology = await insertId(`INSERT INTO topologies (name, namespace, spec) VALUES ('shop', 'default', '{}') RETURNING id`)
  ids.service = await insertId(`INSERT INTO components (name, topology_id, type, external_id, status, health) VALUES ('api', $1, 'Service', 'api', 'healthy', 'unhealthy') RETURNING id`, [topology])
  ids.endpoint = await insertId(
    `INSERT INTO components (name, topology_id, type, external_id, status, health, parent_id) VALUES ('api-endpoint', $1, 'Endpoint', 'api-ep', 'healthy', 'unhealthy', $2) RETURNING id`,
    [topology, ids.service],
  )
  ids.canary = await insertId(`INSERT INTO canaries (name, namespace, spec) VALUES ('shop-checks', 'default', '{}') RETURNING id`)
  ids.check = await insertId(`INSERT INTO checks (canary_id, type, name, status) VALUES ($1, 'http', 'api-health', 'unhealthy') RETURNING id`, [ids.canary])
  for (const name of ['namespace', 'web', 'volume', 'worker']) contexts[name] = await contextOf('config.unhealthy', ids[name]!)
  for (const name of ['service', 'endpoint']) contexts[name] = await contextOf('component.unhealthy', ids[name]!)
  contexts.check = await contextOf('check.failed', ids.check)
})

afterAll(async () => {
  await testDb?.drop()
})

/** The names of the resources a silence covers, by the matcher's verdict. */
async function coveredNames(fields: Partial<SilenceRowScope>): Promise<string[]> {
  const matcher = createSilenceMatcher(db, scope(fields))
  const names: string[] = []
  for (const [name, context] of Object.entries(contexts)) if ((await matcher.matches(context)).covered) names.push(name)
  return names.sort()
}

describe('silence coverage', () => {
  it('covers the resource alone, or with recursive its descendants by parent_id and config_relationships', async () => {
    expect(await coveredNames({ config_id: ids.namespace })).toEqual(['namespace'])
    expect(await coveredNames({ config_id: ids.namespace, recursive: true })).toEqual(['namespace', 'volume', 'web'])
    // Never upwards: the volume's silence does not reach the pod it belongs to.
    expect(await coveredNames({ config_id: ids.volume, recursive: true })).toEqual(['volume'])
    expect(await coveredNames({ component_id: ids.service, recursive: true })).toEqual(['endpoint', 'service'])
    expect(await coveredNames({ component_id: ids.service })).toEqual(['service'])
    expect(await coveredNames({ canary_id: ids.canary })).toEqual(['check'])
    expect(await coveredNames({ check_id: ids.check, recursive: true })).toEqual(['check'])
  })

  it('narrows the preview\'s candidates to exactly what the verdict can cover', async () => {
    const byId = Object.fromEntries(Object.entries(ids).map(([name, id]) => [id, name]))
    for (const fields of [
      { config_id: ids.namespace, recursive: true },
      { config_id: ids.web, recursive: true },
      { config_id: ids.web },
      { component_id: ids.service, recursive: true },
      { canary_id: ids.canary },
    ] satisfies Partial<SilenceRowScope>[]) {
      const candidates = (await coveredResourceIds(db, scope(fields)))!.map((id) => byId[id]).filter((name) => name !== 'canary').sort()
      expect(candidates).toEqual(await coveredNames(fields))
    }
    expect(await coveredResourceIds(db, scope({ filter: 'true' }))).toBeNull()
  })

  it('requires its selectors and its CEL filter too, and reports a filter that fails', async () => {
    expect(await coveredNames({ config_id: ids.namespace, recursive: true, selectors: [{ types: ['Kubernetes::Pod'] }] })).toEqual(['web'])
    expect(await coveredNames({ selectors: [{ tagSelector: 'cluster=prod' }], filter: "config.type != 'Kubernetes::Namespace'" })).toEqual(['volume', 'web', 'worker'])
    expect(await coveredNames({ filter: "check.name == 'api-health'" })).toEqual(['check'])
    const failing = await createSilenceMatcher(db, scope({ filter: 'config.nothing.deeper == 1' })).matches(contexts.web!)
    expect(failing.covered).toBe(false)
    expect(failing.error).toBeTruthy()
  })

  it('walks up once per resource, however many silences ask', async () => {
    let walks = 0
    const counting = { query: (...args: Parameters<Db['query']>) => ((walks += String(args[0]).includes('WITH RECURSIVE') ? 1 : 0), db.query(...args)) } as unknown as Db
    const lineage = createLineage(counting)
    for (const target of [ids.namespace, ids.web, ids.worker]) await createSilenceMatcher(counting, scope({ config_id: target, recursive: true }), lineage).matches(contexts.volume!)
    expect(walks).toBe(1)
  })
})

describe('the delivery pipeline (findSilence)', () => {
  it('silences a relationship child of a recursive silence, the first active one covering it', async () => {
    await db.query('UPDATE notification_silences SET deleted_at = now()')
    const other = await addSilence({ config_id: ids.worker, recursive: true })
    const recursive = await addSilence({ config_id: ids.namespace, recursive: true })
    expect(await findSilence(db, contexts.volume!, logger)).toBe(recursive)
    expect(await findSilence(db, contexts.worker!, logger)).toBe(other)
    expect(await findSilence(db, contexts.endpoint!, logger)).toBeNull()
    await db.query('UPDATE notification_silences SET deleted_at = now()')
  })

  it('writes a failing filter to its silence and goes on to the next', async () => {
    const broken = await addSilence({ filter: 'config.nothing.deeper == 1' })
    const selected = await addSilence({ selectors: [{ types: ['Kubernetes::PersistentVolume'] }] })
    expect(await findSilence(db, contexts.volume!, logger)).toBe(selected)
    expect(await findSilence(db, contexts.web!, logger)).toBeNull()
    const { rows } = await db.query<{ error: string | null }>('SELECT error FROM notification_silences WHERE id = $1', [broken])
    expect(rows[0]!.error).toBeTruthy()
    await db.query('UPDATE notification_silences SET deleted_at = now()')
  })
})
