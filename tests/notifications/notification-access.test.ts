import request from 'supertest'
import { beforeAll, describe, expect, it } from 'vitest'
import type { Db } from '#server/db/client.ts'
import { useTestApp } from '#tests/support/use-test-app.ts'
import { personWith } from '#tests/rbac/rbac-fixture.ts'

type Person = Awaited<ReturnType<typeof personWith>>

/**
 * Row-level access to send history (notifications/notification-access.ts): a person whose catalog
 * or topology permission is scoped sees the sends about the configs and components in scope, and
 * those about checks, in the notification API and in every send-history relation of the data API.
 */
describe('send history row-level access', () => {
  const testApp = useTestApp()
  let db: Db
  let scoped: Person
  let viewer: Person
  const ids: Record<string, string> = {}

  const insertId = async (sql: string, params: unknown[] = []) => (await db.query<{ id: string }>(sql, params)).rows[0]!.id
  const send = (resourceId: string, event: string) =>
    insertId(`INSERT INTO notification_send_history (notification_id, source_event, resource_id, status, body) VALUES ($1, $2, $3, 'sent', 'x') RETURNING id`, [
      ids.rule,
      event,
      resourceId,
    ])

  beforeAll(async () => {
    db = testApp.db
    const config = (name: string, cluster: string) =>
      insertId(`INSERT INTO config_items (name, type, config_class, tags) VALUES ($1, 'Kubernetes::Pod', 'Pod', $2::jsonb) RETURNING id`, [name, JSON.stringify({ cluster })])
    ids.inScope = await config('access-pod-a', 'a')
    ids.outOfScope = await config('access-pod-b', 'b')
    const topology = await insertId(`INSERT INTO topologies (name, namespace, spec) VALUES ('access-shop', 'default', '{}') RETURNING id`)
    ids.component = await insertId(`INSERT INTO components (name, topology_id, type, external_id, status) VALUES ('access-api', $1, 'Service', 'access-api', 'healthy') RETURNING id`, [topology])
    const canary = await insertId(`INSERT INTO canaries (name, namespace, spec) VALUES ('access-checks', 'default', '{}') RETURNING id`)
    ids.check = await insertId(`INSERT INTO checks (canary_id, type, name, status) VALUES ($1, 'http', 'access-health', 'healthy') RETURNING id`, [canary])
    ids.rule = await insertId(`INSERT INTO notifications (name, events) VALUES ('access-rule', '{config.unhealthy}') RETURNING id`)
    ids.sendInScope = await send(ids.inScope, 'config.unhealthy')
    ids.sendOutOfScope = await send(ids.outOfScope, 'config.unhealthy')
    ids.sendComponent = await send(ids.component, 'component.unhealthy')
    ids.sendCheck = await send(ids.check, 'check.failed')

    viewer = await personWith(db, ['viewer'], 'history-viewer')
    scoped = await personWith(db, ['viewer'], 'history-scoped')
    await db.query(`INSERT INTO permissions (subject_type, subject, object, action, tags) VALUES ('person', $1, 'catalog', 'read', '{"cluster":"a"}')`, [scoped.id])
    await db.query(`INSERT INTO permissions (subject_type, subject, action, deny, component_id) VALUES ('person', $1, 'read', true, $2)`, [
      scoped.id,
      ids.component,
    ])
    testApp.backend.authorizer.invalidate()
  })

  const dbRows = async (person: Person, path: string) => {
    const response = await request(testApp.app).get(`/api/db/${path}`).set(person.headers)
    expect(response.status, response.text).toBe(200)
    return response.body as Record<string, unknown>[]
  }
  const ours = (rows: Record<string, unknown>[], column: string) => rows.map((row) => row[column]).filter((id) => Object.values(ids).includes(id as string))

  it('keeps the sends about configs and components out of scope from the data API relations', async () => {
    const resources = [ids.inScope, ids.outOfScope, ids.component, ids.check].join(',')
    const table = await dbRows(scoped, `notification_send_history?select=id,resource_id&resource_id=in.(${resources})`)
    expect(ours(table, 'id').sort()).toEqual([ids.sendInScope, ids.sendCheck].sort())
    const summary = await dbRows(scoped, `notification_send_history_summary?select=id&resource_id=in.(${resources})`)
    expect(ours(summary, 'id').sort()).toEqual([ids.sendInScope, ids.sendCheck].sort())
    const listed = await dbRows(scoped, `notification_send_history_resources?select=id&id=in.(${resources})`)
    expect(ours(listed, 'id').sort()).toEqual([ids.inScope, ids.check].sort())
    expect(await dbRows(scoped, `rpc/notification_send_history_of_resource?p_resource_id=${ids.outOfScope}`)).toEqual([])
    expect(ours(await dbRows(scoped, `rpc/notification_send_history_of_resource?p_resource_id=${ids.inScope}`), 'id')).toEqual([ids.sendInScope])
    // An unscoped viewer sees all four.
    expect(ours(await dbRows(viewer, `notification_send_history?select=id&resource_id=in.(${resources})`), 'id')).toHaveLength(4)
  })

  it('applies the same scopes in the notification API', async () => {
    const summary = await request(testApp.app).post('/api/notification/summary').set(scoped.headers).send({})
    expect(summary.status, summary.text).toBe(200)
    const resourceIds = JSON.stringify(summary.body)
    expect(resourceIds).toContain(ids.inScope)
    expect(resourceIds).not.toContain(ids.outOfScope)
    expect(resourceIds).not.toContain(ids.component)
    expect((await request(testApp.app).get(`/api/notification/send_history/${ids.sendOutOfScope}`).set(scoped.headers)).status).toBe(404)
    expect((await request(testApp.app).get(`/api/notification/send_history/${ids.sendInScope}`).set(scoped.headers)).status).toBe(200)
  })
})
