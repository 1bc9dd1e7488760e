import request from 'supertest'
import { beforeAll, describe, expect, it } from 'vitest'
import type { Express } from 'express'
import type { Db } from '#server/db/client.ts'
import { useTestApp } from '#tests/support/use-test-app.ts'
import { bearer, createTestApp } from '#tests/support/test-app.ts'
import { personWith } from '#tests/rbac/rbac-fixture.ts'

// Issue 10 §9: created_by / updated_by were taken from the body, so anyone could write rows in
// someone else's name; and an editor could rewrite any person's row (an admin's email included,
// which hands over their password recovery).
const testApp = useTestApp()
let db: Db
let app: Express
type Person = Awaited<ReturnType<typeof personWith>>
let editor: Person
let victim: Person

beforeAll(async () => {
  db = testApp.db
  app = createTestApp(db).app
  editor = await personWith(db, ['editor'])
  victim = await personWith(db, ['admin'])
})

async function createdByOf(table: 'teams' | 'incidents', id: string): Promise<string> {
  const { rows } = await db.query<{ created_by: string }>(`SELECT created_by FROM ${table} WHERE id = $1`, [id])
  return rows[0]!.created_by
}

describe('created_by and updated_by come from the caller', () => {
  it('replaces a forged created_by on insert, and fills it when missing', async () => {
    const forged = await request(app)
      .post('/api/db/teams')
      .set(editor.headers)
      .set('Prefer', 'return=representation')
      .send({ name: 'forged team', created_by: victim.id })
    expect(forged.status, JSON.stringify(forged.body)).toBe(201)
    expect(forged.body[0].created_by).toBe(editor.id)

    const missing = await request(app).post('/api/db/teams').set(editor.headers).set('Prefer', 'return=representation').send({ name: 'plain team' })
    expect(missing.status, JSON.stringify(missing.body)).toBe(201)
    expect(await createdByOf('teams', missing.body[0].id)).toBe(editor.id)

    // `columns=` chooses the columns written: the server's created_by is written all the same.
    const columns = await request(app)
      .post('/api/db/teams?columns=name,created_by')
      .set(editor.headers)
      .set('Prefer', 'return=representation')
      .send([{ name: 'columns team', created_by: victim.id }])
    expect(columns.status, JSON.stringify(columns.body)).toBe(201)
    expect(columns.body[0].created_by).toBe(editor.id)

    const incident = await request(app)
      .post('/api/db/incidents')
      .set(editor.headers)
      .set('Prefer', 'return=representation')
      .send({ title: 'Checkout down', description: '', severity: 'high', type: 'availability', created_by: victim.id })
    expect(incident.status, JSON.stringify(incident.body)).toBe(201)
    expect(await createdByOf('incidents', incident.body[0].id)).toBe(editor.id)
  })

  it('ignores created_by on update and records the caller as updated_by', async () => {
    const created = await request(app).post('/api/db/teams').set(editor.headers).set('Prefer', 'return=representation').send({ name: 'renamed team' })
    const id = created.body[0].id as string
    const patched = await request(app).patch(`/api/db/teams?id=eq.${id}`).set(editor.headers).send({ created_by: victim.id, icon: 'bell' })
    expect(patched.status).toBe(204)
    expect(await createdByOf('teams', id)).toBe(editor.id)

    const writer = await personWith(db, ['editor'])
    await db.query(`INSERT INTO permissions (subject_type, subject, object, action) VALUES ('person', $1, 'rbac', 'update')`, [writer.id])
    const permission = (
      await db.query<{ id: string }>(`INSERT INTO permissions (subject_type, subject, object, action) VALUES ('group', 'viewer', 'catalog', 'read') RETURNING id`)
    ).rows[0]!.id
    const noted = await request(app)
      .patch(`/api/db/permissions?id=eq.${permission}`)
      .set(writer.headers)
      .send({ description: 'catalog readers', updated_by: victim.id, created_by: victim.id })
    expect(noted.status, JSON.stringify(noted.body)).toBe(204)
    const { rows } = await db.query<{ updated_by: string; created_by: string | null }>('SELECT updated_by, created_by FROM permissions WHERE id = $1', [permission])
    expect(rows[0]).toEqual({ updated_by: writer.id, created_by: null })
  })

  it('keeps the authors an admin import carries', async () => {
    const imported = await request(app)
      .post('/api/db/teams')
      .set(bearer)
      .set('Prefer', 'return=representation')
      .send({ name: 'imported team', created_by: victim.id })
    expect(imported.status).toBe(201)
    expect(imported.body[0].created_by).toBe(victim.id)
    const { rows } = await db.query<{ id: string }>(`SELECT id FROM people WHERE name = 'System'`)
    const own = await request(app).post('/api/db/teams').set(bearer).set('Prefer', 'return=representation').send({ name: 'system team' })
    expect(own.status).toBe(201)
    expect(own.body[0].created_by).toBe(rows[0]!.id)
  })
})

describe("another person's row needs people:update", () => {
  it("refuses an editor editing someone else's people row", async () => {
    const takeover = await request(app).patch(`/api/db/people?id=eq.${victim.id}`).set(editor.headers).send({ email: 'attacker@example.test' })
    expect(takeover.status).toBe(403)
    const byName = await request(app).patch(`/api/db/people?name=eq.${encodeURIComponent('x')}`).set(editor.headers).send({ title: 'x' })
    expect(byName.status).toBe(403)
    expect((await request(app).delete(`/api/db/people?id=eq.${victim.id}`).set(editor.headers)).status).toBe(403)
    expect(
      (await request(app).post('/api/db/people').set(editor.headers).send({ name: 'Shadow', email: 'shadow@example.test' })).status,
    ).toBe(403)
    expect((await request(app).post('/api/people/update').set(editor.headers).send({ id: victim.id, email: 'attacker@example.test' })).status).toBe(403)
    const { rows } = await db.query<{ email: string }>('SELECT email FROM people WHERE id = $1', [victim.id])
    expect(rows[0]!.email).not.toBe('attacker@example.test')
  })

  it('lets a person edit the harmless fields of their own row, not their email', async () => {
    const own = await request(app).patch(`/api/db/people?id=eq.${editor.id}`).set(editor.headers).send({ title: 'SRE', phone: '+1 555 0100' })
    expect(own.status).toBe(204)
    const email = await request(app).patch(`/api/db/people?id=eq.${editor.id}`).set(editor.headers).send({ email: 'new@example.test' })
    expect(email.status).toBe(403)
  })

  it('lets an admin edit anyone, and refuses a non-admin people:update holder editing an admin', async () => {
    expect((await request(app).patch(`/api/db/people?id=eq.${editor.id}`).set(bearer).send({ title: 'Lead' })).status).toBe(204)
    const manager = await personWith(db, ['editor'])
    await db.query(`INSERT INTO permissions (subject_type, subject, object, action) VALUES ('person', $1, 'identities', 'update')`, [manager.id])
    const plain = await personWith(db, ['viewer'])
    expect((await request(app).patch(`/api/db/people?id=eq.${plain.id}`).set(manager.headers).send({ title: 'Analyst' })).status).toBe(204)
    expect((await request(app).patch(`/api/db/people?id=eq.${victim.id}`).set(manager.headers).send({ email: 'mine@example.test' })).status).toBe(403)
    expect((await request(app).post('/api/people/update').set(manager.headers).send({ id: victim.id, email: 'mine@example.test' })).status).toBe(403)
    expect((await request(app).post('/api/people/update').set(manager.headers).send({ id: plain.id, role: 'admin' })).status).toBe(403)
    expect((await request(app).post('/api/people/update').set(manager.headers).send({ id: plain.id, firstName: 'Pat' })).status).toBe(200)
  })
})
