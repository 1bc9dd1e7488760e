import request from 'supertest'
import { beforeAll, describe, expect, it } from 'vitest'
import type { Db } from '#server/db/client.ts'
import { useTestApp } from '#tests/support/use-test-app.ts'
import { bearer } from '#tests/support/test-app.ts'
import { personWith, RANDOM_ID } from '#tests/rbac/rbac-fixture.ts'

/**
 * The notification API of http-api §2.3 and §2.7.5 through the real gateway: silence,
 * silence_preview, summary and send_history/{id}.
 */

type Ids = Record<string, string>

async function insertId(db: Db, sql: string, params: unknown[] = []): Promise<string> {
  return (await db.query<{ id: string }>(sql, params)).rows[0]!.id
}

describe('/api/notification', () => {
  const testApp = useTestApp()
  let db: Db
  const ids: Ids = {}
  let viewer: { headers: Record<string, string> }
  let editor: { id: string; headers: Record<string, string> }

  async function send(resourceId: string, event: string, status: string, options: { ago?: string; count?: number; body?: string; error?: string } = {}) {
    return insertId(
      db,
      `INSERT INTO notification_send_history (notification_id, source_event, resource_id, status, count, body, error, created_at, first_observed)
       VALUES ($1, $2, $3, $4, $5, $6, $7, now() - $8::interval, now() - $8::interval) RETURNING id`,
      [ids.rule, event, resourceId, status, options.count ?? 1, options.body ?? null, options.error ?? null, options.ago ?? '1 minute'],
    )
  }

  beforeAll(async () => {
    db = testApp.db
    viewer = await personWith(db, ['viewer'])
    editor = await personWith(db, ['editor'])
    const config = (name: string, type: string, tags: Record<string, string>, parent: string | null = null) =>
      insertId(db, `INSERT INTO config_items (name, type, config_class, tags, parent_id, health) VALUES ($1, $2, 'Pod', $3::jsonb, $4, 'unhealthy') RETURNING id`, [
        name,
        type,
        JSON.stringify(tags),
        parent,
      ])
    ids.namespace = await config('shop', 'Kubernetes::Namespace', { cluster: 'prod' })
    ids.web = await config('web', 'Kubernetes::Pod', { namespace: 'shop', cluster: 'prod' }, ids.namespace)
    ids.worker = await config('worker', 'Kubernetes::Pod', { namespace: 'batch', cluster: 'prod' })
    ids.volume = await config('web-volume', 'Kubernetes::PersistentVolume', { cluster: 'prod' })
    ids.gone = await config('gone', 'Kubernetes::Pod', { namespace: 'shop' })
    await db.query('UPDATE config_items SET deleted_at = now() WHERE id = $1', [ids.gone])
    // The volume is the web pod's child only through a relationship, not parent_id.
    await db.query(`INSERT INTO config_relationships (config_id, related_id, relation) VALUES ($1, $2, 'PodVolume')`, [ids.web, ids.volume])
    const topology = await insertId(db, `INSERT INTO topologies (name, namespace, spec) VALUES ('shop', 'default', '{}') RETURNING id`)
    ids.service = await insertId(db, `INSERT INTO components (name, topology_id, type, external_id, status, health) VALUES ('api', $1, 'Service', 'api', 'healthy', 'unhealthy') RETURNING id`, [topology])
    ids.endpoint = await insertId(
      db,
      `INSERT INTO components (name, topology_id, type, external_id, status, health, parent_id) VALUES ('api-endpoint', $1, 'Endpoint', 'api-ep', 'healthy', 'unhealthy', $2) RETURNING id`,
      [topology, ids.service],
    )
    ids.canary = await insertId(db, `INSERT INTO canaries (name, namespace, spec) VALUES ('shop-checks', 'default', '{}') RETURNING id`)
    ids.check = await insertId(db, `INSERT INTO checks (canary_id, type, name, status) VALUES ($1, 'http', 'api-health', 'unhealthy') RETURNING id`, [ids.canary])
    ids.rule = await insertId(db, `INSERT INTO notifications (name, events) VALUES ('pods', '{config.unhealthy,check.failed,component.unhealthy}') RETURNING id`)

    ids.webSent1 = await send(ids.web, 'config.unhealthy', 'sent', { ago: '3 hours', body: 'Pod web is unhealthy (first)' })
    ids.webSent2 = await send(ids.web, 'config.unhealthy', 'sent', { ago: '2 hours', body: 'Pod web is unhealthy' })
    ids.webError = await send(ids.web, 'config.unhealthy', 'error', { ago: '90 minutes', error: 'connection refused' })
    ids.webSilenced = await send(ids.web, 'config.unhealthy', 'silenced', { ago: '80 minutes', count: 2 })
    ids.webRepeat = await send(ids.web, 'config.unhealthy', 'repeat-interval', { ago: '70 minutes' })
    ids.webPending = await send(ids.web, 'config.unhealthy', 'pending', { ago: '60 minutes' })
    ids.workerSent = await send(ids.worker, 'config.unhealthy', 'sent', { ago: '30 minutes', body: 'Pod worker is unhealthy' })
    ids.volumeSent = await send(ids.volume, 'config.unhealthy', 'sent', { ago: '20 minutes' })
    ids.namespaceSent = await send(ids.namespace, 'config.unhealthy', 'sent', { ago: '15 minutes' })
    ids.goneSent = await send(ids.gone, 'config.unhealthy', 'sent', { ago: '10 minutes' })
    ids.checkFailed = await send(ids.check, 'check.failed', 'pending_playbook_run', { ago: '5 minutes' })
    ids.endpointSent = await send(ids.endpoint, 'component.unhealthy', 'inhibited', { ago: '4 minutes' })
    ids.oldSent = await send(ids.worker, 'config.unhealthy', 'sent', { ago: '20 days' })
  })

  const post = (path: string, body: unknown, headers: Record<string, string> = bearer) => request(testApp.app).post(`/api/notification${path}`).set(headers).send(body as object)

  describe('POST /silence', () => {
    it('stores a silence and answers 200 with an empty body; until null is indefinite', async () => {
      const response = await post('/silence', { name: 'web-maintenance', description: 'deploy', config_id: ids.web, recursive: true, until: null, id: RANDOM_ID, source: 'KubernetesCRD' })
      expect(response.status).toBe(200)
      expect(response.text).toBe('')
      const { rows } = await db.query<Record<string, unknown>>(`SELECT * FROM notification_silences WHERE name = 'web-maintenance'`)
      expect(rows).toHaveLength(1)
      expect(rows[0]).toMatchObject({ config_id: ids.web, recursive: true, until: null, source: 'UI', description: 'deploy', deleted_at: null })
      expect(rows[0]!.id).not.toBe(RANDOM_ID)
      expect(rows[0]!.from).toBeInstanceOf(Date)
    })

    it('takes date math and "indefinitely", selectors and a filter, and records who made it', async () => {
      const timed = await post('/silence', { name: 'timed', check_id: ids.check, from: 'now', until: 'now+2h' }, editor.headers)
      expect(timed.status).toBe(200)
      const stored = (await db.query<{ from: Date; until: Date; created_by: string }>(`SELECT "from", until, created_by FROM notification_silences WHERE name = 'timed'`)).rows[0]!
      expect(stored.until.getTime() - stored.from.getTime()).toBeGreaterThan(7_100_000)
      expect(stored.created_by).toBe(editor.id)
      expect((await post('/silence', { name: 'forever', selectors: [{ tagSelector: 'namespace=shop' }], filter: "config.type == 'Kubernetes::Pod'", until: 'indefinitely' })).status).toBe(200)
      const forever = (await db.query<{ until: Date | null; selectors: unknown; filter: string }>(`SELECT until, selectors, filter FROM notification_silences WHERE name = 'forever'`)).rows[0]!
      expect(forever).toEqual({ until: null, selectors: [{ tagSelector: 'namespace=shop' }], filter: "config.type == 'Kubernetes::Pod'" })
    })

    it('answers each validation error with the reference shape', async () => {
      const malformed = await request(testApp.app).post('/api/notification/silence').set({ ...bearer, 'Content-Type': 'application/json' }).send('{"name": ')
      expect(malformed.status).toBe(400)
      expect(malformed.body.error).toMatch(/^invalid post body: /)
      const cases: [Record<string, unknown>, string | RegExp][] = [
        [{ name: 'x', config_id: 42 }, /^invalid post body: config_id: must be a string/],
        [{ name: 'x', config_id: 'not-a-uuid' }, 'invalid post body: config_id: must be a uuid'],
        [{ name: 'x', config_id: ids.web, from: 'now+2h', until: 'now+1h' }, '`from` time must be before `until`'],
        [{ name: 'x' }, 'one of config_id, canary_id, check_id, component_id, selectors or filter is required'],
        [{ name: 'x', selectors: [] }, 'one of config_id, canary_id, check_id, component_id, selectors or filter is required'],
        [{ name: 'x', config_id: ids.web, check_id: ids.check }, 'only one of config_id, canary_id, check_id or component_id may be set (got config_id, check_id)'],
        [{ name: 'x', filter: "config.name == 'web' &&" }, /^invalid filter: /],
        [{ name: 'x', config_id: ids.web, until: 'next tuesday' }, /^invalid until "next tuesday"/],
        [{ name: 'x', selectors: ['web'] }, /^invalid post body: selectors\.0: must be an object/],
      ]
      for (const [body, message] of cases) {
        const response = await post('/silence', body)
        expect({ body, status: response.status }).toEqual({ body, status: 400 })
        expect(Object.keys(response.body)).toEqual(['error'])
        if (typeof message === 'string') expect(response.body.error).toBe(message)
        else expect(response.body.error).toMatch(message)
      }
      expect((await db.query(`SELECT 1 FROM notification_silences WHERE name = 'x'`)).rows).toEqual([])
    })

    it('answers 409 for a resource that does not exist (foreign key, http-api §0.3)', async () => {
      const response = await post('/silence', { name: 'ghost', config_id: RANDOM_ID })
      expect(response.status).toBe(409)
      expect(typeof response.body.error).toBe('string')
    })
  })

  describe('POST /silence_preview', () => {
    const previewIds = async (body: Record<string, unknown>) => {
      const response = await post('/silence_preview', body)
      expect(response.status).toBe(200)
      return (response.body as { id: string }[]).map((row) => row.id)
    }

    it('covers the resource alone, or with recursive its children by parent_id and config_relationships', async () => {
      expect(await previewIds({ config_id: ids.web })).toEqual([ids.webPending, ids.webRepeat, ids.webSilenced, ids.webError, ids.webSent2, ids.webSent1])
      const recursive = await previewIds({ config_id: ids.namespace, recursive: true, limit: 500 })
      expect(recursive).toEqual([ids.namespaceSent, ids.volumeSent, ids.webPending, ids.webRepeat, ids.webSilenced, ids.webError, ids.webSent2, ids.webSent1])
      expect(await previewIds({ component_id: ids.service, recursive: true })).toEqual([ids.endpointSent])
      expect(await previewIds({ component_id: ids.service })).toEqual([])
      expect(await previewIds({ canary_id: ids.canary })).toEqual([ids.checkFailed])
    })

    it('evaluates selectors and the CEL filter over the pipeline variables, within `since`', async () => {
      expect(await previewIds({ filter: "config.name == 'worker'" })).toEqual([ids.workerSent])
      expect(await previewIds({ filter: "config.name == 'worker'", since: 'now-30d' })).toEqual([ids.workerSent, ids.oldSent])
      expect(await previewIds({ filter: "check.type == 'http' && new_state == 'unhealthy'" })).toEqual([ids.checkFailed])
      const shop = await previewIds({ selectors: [{ tagSelector: 'namespace=shop' }], filter: "config.type == 'Kubernetes::Pod'", limit: 3 })
      expect(shop).toEqual([ids.webPending, ids.webRepeat, ids.webSilenced])
      const rows = (await post('/silence_preview', { check_id: ids.check })).body as Record<string, unknown>[]
      expect(rows[0]).toMatchObject({ id: ids.checkFailed, resource_kind: 'check', resource_type: 'http', status: 'pending_playbook_run', resource: { name: 'api-health' } })
    })

    it('refuses what the silence itself would refuse', async () => {
      const response = await post('/silence_preview', { since: 'now-1d' })
      expect(response.status).toBe(400)
      expect(response.body).toEqual({ error: 'one of config_id, canary_id, check_id, component_id, selectors or filter is required' })
      expect((await post('/silence_preview', { filter: 'true', since: 'yesterday' })).body.error).toMatch(/^invalid since "yesterday"/)
    })
  })

  describe('POST /summary', () => {
    type Summary = { total: number; results: Record<string, unknown>[] | null }
    const summary = async (body: Record<string, unknown>) => {
      const response = await post('/summary', body)
      expect(response.status).toBe(200)
      return response.body as Summary
    }

    it('groups by resource, newest first, with the sent/error/suppressed/in_progress counts', async () => {
      const all = await summary({})
      // The deleted pod is left out by default; the old worker send counts into the worker.
      expect(all.total).toBe(6)
      expect(all.results!.map((row) => (row.resource as { name: string }).name)).toEqual(['api-endpoint', 'api-health', 'shop', 'web-volume', 'worker', 'web'])
      const web = all.results!.find((row) => (row.resource as { id: string }).id === ids.web)!
      expect(web).toMatchObject({
        resource: { id: ids.web, name: 'web', type: 'Kubernetes::Pod' },
        resource_type: 'Kubernetes::Pod',
        resource_kind: 'config',
        resource_tags: { namespace: 'shop', cluster: 'prod' },
        resource_health: null,
        last_message: 'Pod web is unhealthy',
        total: 7,
        sent: 2,
        error: 1,
        suppressed: 3,
        in_progress: 1,
      })
      expect(new Date(web.last_seen as string).getTime()).toBeGreaterThan(new Date(web.first_observed as string).getTime())
      const check = all.results!.find((row) => row.resource_kind === 'check')!
      expect(check).toMatchObject({ resource_type: 'http', in_progress: 1, total: 1 })
      expect(all.results!.find((row) => row.resource_kind === 'component')).toMatchObject({ suppressed: 1, sent: 0 })
    })

    it('applies every filter', async () => {
      const names = async (body: Record<string, unknown>) => ((await summary(body)).results ?? []).map((row) => (row.resource as { name: string }).name)
      expect(await names({ search: 'we' })).toEqual(['web-volume', 'web'])
      expect(await names({ search: 'WEB-*' })).toEqual(['web-volume'])
      expect(await names({ includeDeletedResources: true, search: 'gone' })).toEqual(['gone'])
      expect(await names({ status: 'error' })).toEqual(['web'])
      expect(await names({ status: '!sent,!silenced' })).toEqual(['api-endpoint', 'api-health', 'web'])
      expect(await names({ resourceKind: 'check,component' })).toEqual(['api-endpoint', 'api-health'])
      expect(await names({ resourceType: 'Kubernetes::P*' })).toEqual(['web-volume', 'worker', 'web'])
      expect(await names({ tags: 'namespace=shop' })).toEqual(['web'])
      expect(await names({ tags: 'cluster=prod,namespace notin (shop)' })).toEqual(['shop', 'web-volume', 'worker'])
      expect(await names({ from: 'now-25m', to: 'now-12m' })).toEqual(['shop', 'web-volume'])
      expect(await names({ from: 'now-30d', to: 'now-10d' })).toEqual(['worker'])
    })

    it('groups by other columns and pages', async () => {
      const byStatus = await summary({ groupBy: ['status'], resourceKind: 'config' })
      expect(byStatus.results!.map((row) => [row.status, row.total])).toEqual([
        ['sent', 6],
        ['pending', 1],
        ['repeat-interval', 1],
        ['silenced', 2],
        ['error', 1],
      ])
      expect(byStatus.results![0]).not.toHaveProperty('resource')
      const byKind = await summary({ groupBy: ['resource_kind', 'source_event'] })
      expect(byKind.results!.map((row) => [row.resource_kind, row.source_event, row.total])).toEqual([
        ['component', 'component.unhealthy', 1],
        ['check', 'check.failed', 1],
        ['config', 'config.unhealthy', 11],
      ])
      const page = await summary({ pageSize: 2, pageIndex: 1 })
      expect(page.total).toBe(6)
      expect(page.results!.map((row) => (row.resource as { name: string }).name)).toEqual(['shop', 'web-volume'])
      const beyond = await summary({ pageSize: 2, pageIndex: 5 })
      expect(beyond).toEqual({ total: 6, results: [] })
      expect((await summary({ pageSize: 500 })).results).toHaveLength(6)
      expect(await summary({ search: 'nothing-here' })).toEqual({ total: 0, results: null })
    })

    it('answers 400 for a bad from, to, tags or body', async () => {
      expect((await post('/summary', { from: 'last week' })).body.error).toMatch(/^invalid from "last week"/)
      expect((await post('/summary', { to: 'soon' })).status).toBe(400)
      const tags = await post('/summary', { tags: 'namespace in (shop' })
      expect(tags.status).toBe(400)
      expect(tags.body.error).toMatch(/unbalanced parentheses/)
      const malformed = await request(testApp.app).post('/api/notification/summary').set({ ...bearer, 'Content-Type': 'application/json' }).send('{')
      expect(malformed.status).toBe(400)
      expect(Object.keys(malformed.body)).toEqual(['message'])
      const badGroup = await post('/summary', { groupBy: ['colour'] })
      expect(badGroup.status).toBe(400)
      expect(badGroup.body.message).toMatch(/^groupBy\.0: must be one of resource, /)
    })
  })

  describe('GET /send_history/{id}', () => {
    it('returns one send with its resource, 404 for an unknown id and 400 for a malformed one', async () => {
      const found = await request(testApp.app).get(`/api/notification/send_history/${ids.webError}`).set(bearer)
      expect(found.status).toBe(200)
      expect(found.body).toMatchObject({ id: ids.webError, notification_id: ids.rule, status: 'error', error: 'connection refused', resource_kind: 'config', resource_type: 'Kubernetes::Pod', resource: { name: 'web' } })
      const missing = await request(testApp.app).get(`/api/notification/send_history/${RANDOM_ID}`).set(bearer)
      expect(missing.status).toBe(404)
      expect(missing.body).toEqual({ error: `notification send history (${RANDOM_ID}) not found` })
      expect((await request(testApp.app).get('/api/notification/send_history/abc').set(bearer)).status).toBe(400)
    })
  })

  describe('authorization', () => {
    it('refuses a silence to a caller without notification:create (403); reads follow the role matrix', async () => {
      const refused = await post('/silence', { name: 'viewer-try', config_id: ids.web }, viewer.headers)
      expect(refused.status).toBe(403)
      expect(refused.text).toBe('unauthorized. Access Denied')
      expect(refused.headers).toMatchObject({ 'x-rbac-object': 'notification', 'x-rbac-action': 'create' })
      expect((await db.query(`SELECT 1 FROM notification_silences WHERE name = 'viewer-try'`)).rows).toEqual([])
      // Viewers read the notifications area (spec 002 §6, contract/role-matrix.ts).
      expect((await post('/summary', {}, viewer.headers)).status).toBe(200)
      expect((await post('/silence_preview', { config_id: ids.web }, viewer.headers)).status).toBe(200)
      expect((await request(testApp.app).get(`/api/notification/send_history/${ids.webSent1}`).set(viewer.headers)).status).toBe(200)
      expect((await post('/silence', { name: 'editor-made', config_id: ids.worker }, editor.headers)).status).toBe(200)
      expect((await post('/summary', {}, editor.headers)).status).toBe(200)
      expect((await request(testApp.app).post('/api/notification/summary').send({})).status).toBe(401)
    })
  })
})
