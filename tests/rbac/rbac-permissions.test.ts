import request from 'supertest'
import { beforeAll, describe, expect, it } from 'vitest'
import type { Express } from 'express'
import type { Db } from '#server/db/client.ts'
import { mappedRelations } from '#server/backend/rbac/access-map.ts'
import { createAuthorizer } from '#server/backend/rbac/authorizer.ts'
import { useTestApp } from '#tests/support/use-test-app.ts'
import { createTestApp } from '#tests/support/test-app.ts'
import { RANDOM_ID, personWith } from './rbac-fixture.ts'

type Person = Awaited<ReturnType<typeof personWith>>

describe('stored permissions: deny, tags, agents, until, resource ids, subjects', () => {
  const testApp = useTestApp()
  let db: Db
  let app: Express
  let admin: Person
  let prodCanary: string
  let devCanary: string
  let edgeAgent: string
  let edgeCanary: string

  async function grant(body: Record<string, unknown>) {
    const response = await request(app)
      .post('/api/db/permissions')
      .set(admin.headers)
      .set('Prefer', 'return=representation')
      .send({ created_by: admin.id, ...body })
    expect(response.status, JSON.stringify(response.body)).toBe(201)
    return (response.body as { id: string }[])[0]!.id
  }

  beforeAll(async () => {
    db = testApp.db
    app = createTestApp(db).app
    admin = await personWith(db, ['admin'])
    const canary = async (name: string, labels: Record<string, string>, agentId?: string) =>
      (
        await db.query<{ id: string }>(
          `INSERT INTO canaries (name, namespace, spec, labels, agent_id)
           VALUES ($1, 'default', '{}'::jsonb, $2::jsonb, coalesce($3::uuid, '00000000-0000-0000-0000-000000000000'))
           RETURNING id`,
          [name, JSON.stringify(labels), agentId ?? null],
        )
      ).rows[0]!.id
    prodCanary = await canary('prod-http', { env: 'prod' })
    devCanary = await canary('dev-http', { env: 'dev' })
    edgeAgent = (await db.query<{ id: string }>(`INSERT INTO agents (name) VALUES ('edge') RETURNING id`)).rows[0]!.id
    edgeCanary = await canary('edge-http', { env: 'dev' }, edgeAgent)
  })
  it('lets a deny beat every allow, for the person or through a role group', async () => {
    const viewer = await personWith(db, ['viewer'])
    expect((await request(app).get('/api/db/canaries').set(viewer.headers)).status).toBe(200)
    await grant({ subject_type: 'person', subject: viewer.id, object: 'canaries', action: 'read', deny: true })
    const denied = await request(app).get('/api/db/canaries').set(viewer.headers)
    expect(denied.status).toBe(403)
    expect(denied.headers['x-rbac-object']).toBe('canaries')
    expect(denied.headers['x-rbac-action']).toBe('read')
    // Other areas are untouched.
    expect((await request(app).get('/api/db/incidents').set(viewer.headers)).status).toBe(200)

    // A deny on a role group reaches everyone holding that role, admins included.
    const commander = await personWith(db, ['commander'])
    const adminToo = await personWith(db, ['admin'])
    await grant({ subject_type: 'group', subject: 'commander', object: 'incident', action: 'create,update,delete', deny: true })
    expect((await request(app).delete(`/api/db/incidents?id=eq.${RANDOM_ID}`).set(commander.headers)).status).toBe(403)
    expect((await request(app).get('/api/db/incidents').set(commander.headers)).status).toBe(200)
    await grant({ subject_type: 'person', subject: adminToo.id, object: '*', action: 'delete', deny: true })
    expect((await request(app).delete(`/api/db/incidents?id=eq.${RANDOM_ID}`).set(adminToo.headers)).status).toBe(403)
    expect((await request(app).delete(`/api/db/teams?id=eq.${RANDOM_ID}`).set(adminToo.headers)).status).toBe(403)
    expect((await request(app).get('/api/db/teams').set(adminToo.headers)).status).toBe(200)
  })

  it('grants beyond the roles: person, team and group subjects', async () => {
    const viewer = await personWith(db, ['viewer'])
    expect((await request(app).get('/api/db/connections').set(viewer.headers)).status).toBe(403)
    await grant({ subject_type: 'group', subject: 'viewer', object: 'connection', action: 'read' })
    expect((await request(app).get('/api/db/connections').set(viewer.headers)).status).toBe(200)

    const member = await personWith(db, [])
    const team = (
      await db.query<{ id: string }>(`INSERT INTO teams (name, created_by) VALUES ('sre', $1) RETURNING id`, [admin.id])
    ).rows[0]!.id
    await grant({ subject_type: 'team', subject: team, object: 'playbooks', action: 'read' })
    expect((await request(app).get('/api/db/playbooks').set(member.headers)).status).toBe(403)
    // Adding the member through the API invalidates the cached policy at once.
    const added = await request(app).post('/api/db/team_members').set(admin.headers).send({ team_id: team, person_id: member.id })
    expect(added.status).toBe(201)
    expect((await request(app).get('/api/db/playbooks').set(member.headers)).status).toBe(200)
    expect((await request(app).delete(`/api/db/playbooks?id=eq.${RANDOM_ID}`).set(member.headers)).status).toBe(403)
  })

  it('narrows by tags and agents: only matching resources are reachable', async () => {
    const scoped = await personWith(db, [])
    await grant({ subject_type: 'person', subject: scoped.id, object: 'canaries', action: 'read', tags: { env: 'prod' } })
    expect((await request(app).get(`/api/db/canaries?id=eq.${prodCanary}`).set(scoped.headers)).status).toBe(200)
    expect((await request(app).get(`/api/db/canaries?id=eq.${devCanary}`).set(scoped.headers)).status).toBe(403)
    // Without a resource the narrowed grant does not open the whole table.
    expect((await request(app).get('/api/db/canaries').set(scoped.headers)).status).toBe(403)

    const byAgent = await personWith(db, [])
    await grant({ subject_type: 'person', subject: byAgent.id, object: 'canaries', action: 'update', agents: [edgeAgent] })
    expect((await request(app).patch(`/api/db/canaries?id=eq.${edgeCanary}`).set(byAgent.headers).send({ spec: { interval: 60 } })).status).toBe(204)
    expect((await request(app).patch(`/api/db/canaries?id=eq.${devCanary}`).set(byAgent.headers).send({ spec: { interval: 60 } })).status).toBe(403)

    // A narrowed deny removes only the matching resources from a role's reach.
    const viewer = await personWith(db, ['viewer'])
    await grant({ subject_type: 'person', subject: viewer.id, object: 'canaries', action: 'read', deny: true, tags: { env: 'prod' } })
    expect((await request(app).get(`/api/db/canaries?id=eq.${prodCanary}`).set(viewer.headers)).status).toBe(403)
    expect((await request(app).get(`/api/db/canaries?id=eq.${devCanary}`).set(viewer.headers)).status).toBe(200)
  })

  it('grants one specific resource by id', async () => {
    const person = await personWith(db, [])
    await grant({ subject_type: 'person', subject: person.id, canary_id: devCanary, action: 'delete' })
    expect((await request(app).delete(`/api/db/canaries?id=eq.${prodCanary}`).set(person.headers)).status).toBe(403)
    const allowed = await request(app).delete(`/api/db/canaries?id=eq.${devCanary}`).set(person.headers).set('Prefer', 'return=representation')
    expect(allowed.status).toBe(200)
    expect((allowed.body as { id: string }[]).map((row) => row.id)).toEqual([devCanary])
  })

  it('lets `until` expire a permission, even while the policy is cached', async () => {
    const person = await personWith(db, [])
    await grant({ subject_type: 'person', subject: person.id, object: 'incident', action: 'read', until: new Date(Date.now() - 60_000).toISOString() })
    expect((await request(app).get('/api/db/incidents').set(person.headers)).status).toBe(403)
    await grant({ subject_type: 'person', subject: person.id, object: 'topology', action: 'read', until: new Date(Date.now() + 1200).toISOString() })
    expect((await request(app).get('/api/db/components').set(person.headers)).status).toBe(200)
    await new Promise((resolve) => setTimeout(resolve, 1300))
    expect((await request(app).get('/api/db/components').set(person.headers)).status).toBe(403)
  })

  it('evaluates notification and playbook subjects', async () => {
    const authorizer = createAuthorizer(db)
    const notification = (
      await db.query<{ id: string }>(`INSERT INTO notifications (events, created_by) VALUES ('{check.failed}', $1) RETURNING id`, [admin.id])
    ).rows[0]!.id
    await grant({ subject_type: 'notification', subject: notification, object: 'playbooks', action: 'playbook:run' })
    const subject = { subjectType: 'notification' as const, id: notification }
    expect((await authorizer.authorize(subject, { object: 'playbooks', area: 'playbook_runs', action: 'playbook:run' })).allowed).toBe(true)
    expect((await authorizer.authorize(subject, { object: 'playbooks', action: 'delete' })).allowed).toBe(false)
  })

  it('answers 404 with an empty body for relations outside the map, 401 without credentials', async () => {
    for (const path of ['/api/db/jobs', '/api/db/config_item', '/api/db/checks_unlogged', '/api/db/rpc/enqueue_event']) {
      const response = await request(app).get(path).set(admin.headers)
      expect({ path, status: response.status, body: response.text }).toEqual({ path, status: 404, body: '' })
    }
    const anonymous = await request(app).get('/api/db/canaries')
    expect(anonymous.status).toBe(401)
    expect(anonymous.body).toEqual({ error: 'unauthorized', message: 'Not logged in' })
    const anonymousRoute = await request(app).get('/api/rbac/dump')
    expect(anonymousRoute.status).toBe(401)
  })

  it('maps every relation and function of the schema or leaves it out on purpose', async () => {
    const { tables, routines } = mappedRelations()
    const relations = await db.query<{ relname: string }>(
      `SELECT c.relname FROM pg_class c JOIN pg_namespace n ON n.oid = c.relnamespace
        WHERE n.nspname = 'public' AND c.relkind IN ('r', 'v', 'm', 'p') AND NOT c.relispartition`,
    )
    const internal = new Set(['checks_unlogged', 'config_items_last_scraped_time'])
    const unmapped = relations.rows.map((row) => row.relname).filter((name) => !tables.includes(name) && !internal.has(name) && !name.startsWith('view_'))
    expect(unmapped).toEqual([])
    const functions = await db.query<{ proname: string }>(
      `SELECT p.proname FROM pg_proc p JOIN pg_namespace n ON n.oid = p.pronamespace
        WHERE n.nspname = 'public' AND p.prokind = 'f' AND p.prorettype <> 'trigger'::regtype`,
    )
    const names = new Set(functions.rows.map((row) => row.proname))
    for (const routine of routines) expect(names.has(routine), routine).toBe(true)
  })
})
