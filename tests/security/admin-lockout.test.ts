import request from 'supertest'
import { afterAll, beforeAll, describe, expect, it } from 'vitest'
import type { Express } from 'express'
import { createTestDb, type TestDb } from '#tests/support/test-db.ts'
import { useTestApp } from '#tests/support/use-test-app.ts'
import { bearer, createTestApp } from '#tests/support/test-app.ts'
import { personWith } from '#tests/rbac/rbac-fixture.ts'

// Issue 10 §4: a deny rule could lock every admin out of rbac, with nothing left to undo it.
const testApp = useTestApp()

type Person = Awaited<ReturnType<typeof personWith>>

function postPermission(headers: Record<string, string>, body: Record<string, unknown>) {
  return request(testApp.app).post('/api/db/permissions').set(headers).set('Prefer', 'return=representation').send(body)
}

async function insertDeny(subjectType: string, subject: string, object: string, action: string): Promise<string> {
  const { rows } = await testApp.db.query<{ id: string }>(
    `INSERT INTO permissions (subject_type, subject, object, action, deny) VALUES ($1, $2, $3, $4, true) RETURNING id`,
    [subjectType, subject, object, action],
  )
  return rows[0]!.id
}

describe('no deny can lock every admin out', () => {
  let first: Person

  beforeAll(async () => {
    first = await personWith(testApp.db, ['admin'])
  })

  it('refuses a deny on the admin group over rbac, permissions or everything', async () => {
    for (const [object, action] of [
      ['rbac', 'update'],
      ['rbac', '*'],
      ['*', '*'],
      ['*', 'update'],
      ['database.system', 'create,update,delete'],
      ['permissions', 'update'],
    ] as const) {
      const response = await postPermission(first.headers, { subject_type: 'group', subject: 'admin', object, action, deny: true })
      expect(response.status, `${object}:${action} ${JSON.stringify(response.body)}`).toBe(403)
      expect(response.body.message).toMatch(/lock every admin out/)
    }
    const { rows } = await testApp.db.query(`SELECT 1 FROM permissions WHERE subject = 'admin' AND deny`)
    expect(rows).toHaveLength(0)
    // Nor as a casbin role rule, which only admins write.
    const casbin = await request(testApp.app)
      .post('/api/db/casbin_rule')
      .set(bearer)
      .send({ ptype: 'p', v0: 'admin', v1: 'rbac', v2: 'update', v3: 'deny', v4: 'true', v5: '' })
    expect(casbin.status).toBe(403)
  })

  it('refuses a person or team deny that covers every admin, and allows one that leaves an admin', async () => {
    // `first` is the only admin: denying them rbac would leave nobody to undo it.
    const alone = await postPermission(first.headers, { subject_type: 'person', subject: first.id, object: 'rbac', action: 'update', deny: true })
    expect(alone.status).toBe(403)

    const second = await personWith(testApp.db, ['admin'])
    const team = (
      await testApp.db.query<{ id: string }>(`INSERT INTO teams (name, created_by) VALUES ('all admins', $1) RETURNING id`, [first.id])
    ).rows[0]!.id
    await testApp.db.query(`INSERT INTO team_members (team_id, person_id) VALUES ($1, $2), ($1, $3)`, [team, first.id, second.id])
    const byTeam = await postPermission(first.headers, { subject_type: 'team', subject: team, object: '*', action: '*', deny: true })
    expect(byTeam.status).toBe(403)

    // With a second admin the first may be denied: someone can still lift it.
    const one = await postPermission(first.headers, { subject_type: 'person', subject: second.id, object: 'rbac', action: 'update', deny: true })
    expect(one.status, JSON.stringify(one.body)).toBe(201)

    // A deny that does not touch rbac or permissions cannot lock anyone out of fixing it.
    const narrow = await postPermission(first.headers, { subject_type: 'group', subject: 'admin', object: 'playbooks', action: 'delete', deny: true })
    expect(narrow.status).toBe(201)
  })

  it('refuses turning an existing row into an admin lock-out with PATCH', async () => {
    const created = await postPermission(first.headers, { subject_type: 'group', subject: 'viewer', object: 'rbac', action: 'update', deny: true })
    expect(created.status).toBe(201)
    const id = (created.body as { id: string }[])[0]!.id
    const retarget = await request(testApp.app).patch(`/api/db/permissions?id=eq.${id}`).set(first.headers).send({ subject: 'admin' })
    expect(retarget.status).toBe(403)
    const bulk = await request(testApp.app).patch(`/api/db/permissions?subject=eq.viewer`).set(bearer).send({ subject: 'admin', subject_type: 'group' })
    expect(bulk.status).toBe(403)
  })

  it('never denies the bootstrap token, so a lock-out that slipped in can be undone', async () => {
    const admin = await personWith(testApp.db, ['admin'])
    const { rows } = await testApp.db.query<{ id: string }>(`SELECT id FROM people WHERE name = 'System'`)
    const system = rows[0]!.id
    const onGroup = await insertDeny('group', 'admin', '*', '*')
    const onSystem = await insertDeny('person', system, '*', '*')
    expect((await request(testApp.app).get('/api/db/permissions').set(admin.headers)).status).toBe(403)

    expect((await request(testApp.app).get('/api/db/permissions').set(bearer)).status).toBe(200)
    expect((await request(testApp.app).delete(`/api/db/permissions?id=eq.${onGroup}`).set(bearer)).status).toBe(204)
    expect((await request(testApp.app).delete(`/api/db/permissions?id=eq.${onSystem}`).set(bearer)).status).toBe(204)
    expect((await request(testApp.app).get('/api/db/permissions').set(admin.headers)).status).toBe(200)
  })

  it('lets an admin remove any rule, including a deny that applies to them', async () => {
    const admin = await personWith(testApp.db, ['admin'])
    const own = await insertDeny('person', admin.id, 'canaries', 'delete')
    const group = await insertDeny('group', 'admin', 'topology', 'delete')
    const expire = await request(testApp.app)
      .patch(`/api/db/permissions?id=eq.${own}`)
      .set(admin.headers)
      .send({ until: new Date(Date.now() - 1000).toISOString() })
    expect(expire.status).toBe(204)
    expect((await request(testApp.app).delete(`/api/db/permissions?id=eq.${own}`).set(admin.headers)).status).toBe(204)
    expect((await request(testApp.app).patch(`/api/db/permissions?id=eq.${group}`).set(admin.headers).send({ deleted_at: 'now()' })).status).toBe(204)
  })
})

describe('the last admin identity cannot be demoted, switched off or deleted', () => {
  let ownDb: TestDb
  let ownApp: Express

  beforeAll(async () => {
    ownDb = await createTestDb()
    ownApp = createTestApp(ownDb.db).app
  })

  afterAll(async () => {
    await ownDb?.drop()
  })

  it('refuses taking admin from the only admin person, and allows it once another admin exists', async () => {
    const only = await personWith(ownDb.db, ['admin'])
    const { rows } = await ownDb.db.query<{ count: number }>(
      `SELECT count(*)::int AS count FROM casbin_rule WHERE ptype = 'g' AND v1 = 'admin' AND v0 <> $1`,
      [only.id],
    )
    expect(rows[0]!.count).toBe(0)

    for (const body of [{ id: only.id, role: 'viewer' }, { id: only.id, active: false }]) {
      const refused = await request(ownApp).post('/api/people/update').set(bearer).send(body)
      expect(refused.status).toBe(409)
      expect(refused.body.error).toBe('this is the last admin: make someone else admin first')
    }
    expect((await request(ownApp).delete(`/api/people/${only.id}`).set(bearer)).status).toBe(409)
    // Nothing changed: the person is still an admin who can act.
    expect((await request(ownApp).get('/api/db/casbin_rule?select=v0').set(only.headers)).status).toBe(200)

    await personWith(ownDb.db, ['admin'])
    expect((await request(ownApp).post('/api/people/update').set(bearer).send({ id: only.id, role: 'viewer' })).status).toBe(200)
  })
})
