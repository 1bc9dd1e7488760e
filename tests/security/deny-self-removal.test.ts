import request from 'supertest'
import { beforeAll, describe, expect, it } from 'vitest'
import type { Express } from 'express'
import type { Db } from '#server/db/client.ts'
import { useTestApp } from '#tests/support/use-test-app.ts'
import { createTestApp } from '#tests/support/test-app.ts'
import { personWith } from '#tests/rbac/rbac-fixture.ts'

// Issue 10 §4: the subject of a deny rule could lift it — delete it, soft-delete it, point it at
// someone else or let it expire — as long as they could write the permissions table.
const testApp = useTestApp()
let db: Db
let app: Express

beforeAll(async () => {
  db = testApp.db
  app = createTestApp(db).app
})

/** An editor who also holds rbac:update through a stored permission (the only way a non-admin can). */
async function rbacEditor(extraRoles: string[] = []) {
  const person = await personWith(db, ['editor', ...extraRoles])
  await db.query(`INSERT INTO permissions (subject_type, subject, object, action) VALUES ('person', $1, 'rbac', 'update')`, [person.id])
  return person
}

async function deny(subjectType: string, subject: string, object: string, action: string): Promise<string> {
  const { rows } = await db.query<{ id: string }>(
    `INSERT INTO permissions (subject_type, subject, object, action, deny, description) VALUES ($1, $2, $3, $4, true, 'keep out') RETURNING id`,
    [subjectType, subject, object, action],
  )
  return rows[0]!.id
}

async function stored(id: string) {
  const { rows } = await db.query<{ subject: string; deny: boolean; until: Date | null; deleted_at: Date | null; description: string | null }>(
    'SELECT subject, deny, until, deleted_at, description FROM permissions WHERE id = $1',
    [id],
  )
  return rows[0]
}

describe('nobody lifts a deny that applies to themselves', () => {
  it('refuses delete, soft delete, re-target, expiry and un-deny of a deny on the person', async () => {
    const person = await rbacEditor()
    const other = await personWith(db, ['viewer'])
    const id = await deny('person', person.id, 'canaries', 'delete')
    const attempts = [
      request(app).delete(`/api/db/permissions?id=eq.${id}`).set(person.headers),
      request(app).patch(`/api/db/permissions?id=eq.${id}`).set(person.headers).send({ deleted_at: 'now()' }),
      request(app).patch(`/api/db/permissions?id=eq.${id}`).set(person.headers).send({ subject: other.id }),
      request(app).patch(`/api/db/permissions?id=eq.${id}`).set(person.headers).send({ until: new Date(Date.now() - 1000).toISOString() }),
      request(app).patch(`/api/db/permissions?id=eq.${id}`).set(person.headers).send({ deny: false }),
      request(app).patch(`/api/db/permissions?id=eq.${id}`).set(person.headers).send({ object: 'topology' }),
    ]
    for (const attempt of attempts) {
      const response = await attempt
      expect(response.status, JSON.stringify(response.body)).toBe(403)
      expect(response.body.message).toMatch(/deny rule that applies to you/)
    }
    expect(await stored(id)).toMatchObject({ subject: person.id, deny: true, until: null, deleted_at: null })
    // The rule still bites.
    expect((await request(app).delete('/api/db/canaries?id=eq.0190f0f0-0000-7000-8000-00000000beef').set(person.headers)).status).toBe(403)

    // Its description is not part of the rule; the console sends the whole row back unchanged.
    const row = (await request(app).get(`/api/db/permissions?id=eq.${id}`).set(person.headers)).body[0] as Record<string, unknown>
    const note = await request(app)
      .patch(`/api/db/permissions?id=eq.${id}`)
      .set(person.headers)
      .send({ subject_type: row.subject_type, subject: row.subject, object: row.object, action: row.action, deny: true, description: 'audited' })
    expect(note.status, JSON.stringify(note.body)).toBe(204)
    expect((await stored(id))?.description).toBe('audited')
  })

  it('covers denies reaching the person through a role or a team', async () => {
    const person = await rbacEditor(['responder'])
    const byRole = await deny('group', 'responder', 'incident', 'delete')
    const team = (await db.query<{ id: string }>(`INSERT INTO teams (name, created_by) VALUES ('on call', $1) RETURNING id`, [person.id])).rows[0]!.id
    await db.query('INSERT INTO team_members (team_id, person_id) VALUES ($1, $2)', [team, person.id])
    const byTeam = await deny('team', team, 'topology', 'delete')
    for (const id of [byRole, byTeam]) {
      expect((await request(app).delete(`/api/db/permissions?id=eq.${id}`).set(person.headers)).status).toBe(403)
      expect((await request(app).patch(`/api/db/permissions?id=eq.${id}`).set(person.headers).send({ deleted_at: 'now()' })).status).toBe(403)
      expect((await stored(id))?.deleted_at).toBeNull()
    }
    // Leaving the team would lift its deny just the same.
    const leave = await request(app).delete(`/api/db/team_members?team_id=eq.${team}&person_id=eq.${person.id}`).set(person.headers)
    expect(leave.status).toBe(403)
    expect((await db.query('SELECT 1 FROM team_members WHERE team_id = $1 AND person_id = $2', [team, person.id])).rows).toHaveLength(1)
  })

  it('lets a peer who holds rbac:update lift it, and the subject add further denies on themselves', async () => {
    const person = await rbacEditor()
    const peer = await rbacEditor()
    const id = await deny('person', person.id, 'playbooks', 'delete')
    expect((await request(app).delete(`/api/db/permissions?id=eq.${id}`).set(peer.headers)).status).toBe(204)
    const more = await request(app)
      .post('/api/db/permissions')
      .set(person.headers)
      .send({ subject_type: 'person', subject: person.id, object: 'playbooks', action: 'delete', deny: true })
    expect(more.status, JSON.stringify(more.body)).toBe(201)
  })
})
