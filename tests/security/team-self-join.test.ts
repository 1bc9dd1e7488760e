import request from 'supertest'
import { beforeAll, describe, expect, it } from 'vitest'
import type { Express } from 'express'
import type { Db } from '#server/db/client.ts'
import { useTestApp } from '#tests/support/use-test-app.ts'
import { bearer, createTestApp } from '#tests/support/test-app.ts'
import { personWith } from '#tests/rbac/rbac-fixture.ts'

// Issue 10 §4: editors write team_members (database area), and a team can be the subject of a
// permission: an editor joining a team that holds `*:*` became admin.
const testApp = useTestApp()
let db: Db
let app: Express
let owner: string

beforeAll(async () => {
  db = testApp.db
  app = createTestApp(db).app
  owner = (await personWith(db, ['admin'])).id
})

async function team(name: string, grant?: { object: string; action: string; deny?: boolean }): Promise<string> {
  const id = (await db.query<{ id: string }>('INSERT INTO teams (name, created_by) VALUES ($1, $2) RETURNING id', [name, owner])).rows[0]!.id
  if (grant) {
    await db.query(`INSERT INTO permissions (subject_type, subject, object, action, deny) VALUES ('team', $1, $2, $3, $4)`, [
      id,
      grant.object,
      grant.action,
      grant.deny ?? false,
    ])
  }
  return id
}

async function members(teamId: string): Promise<string[]> {
  const { rows } = await db.query<{ person_id: string }>('SELECT person_id FROM team_members WHERE team_id = $1', [teamId])
  return rows.map((row) => row.person_id)
}

describe('team membership that grants permissions is written only by those who may grant them', () => {
  it('refuses an editor joining a privileged team, and the editor stays an editor', async () => {
    const editor = await personWith(db, ['editor'])
    const admins = await team('platform admins', { object: '*', action: '*' })
    const join = await request(app).post('/api/db/team_members').set(editor.headers).send({ team_id: admins, person_id: editor.id })
    expect(join.status, JSON.stringify(join.body)).toBe(403)
    expect(join.body.message).toMatch(/rbac:update/)
    expect(await members(admins)).toEqual([])
    expect((await request(app).delete('/api/db/connections?id=eq.0190f0f0-0000-7000-8000-00000000beef').set(editor.headers)).status).toBe(403)
    // Bulk insert with the privileged team hidden among plain ones.
    const plain = await team('book club')
    const bulk = await request(app)
      .post('/api/db/team_members')
      .set(editor.headers)
      .send([
        { team_id: plain, person_id: editor.id },
        { team_id: admins, person_id: editor.id },
      ])
    expect(bulk.status).toBe(403)
    expect(await members(plain)).toEqual([])
  })

  it('keeps plain teams as they were: editors manage their members', async () => {
    const editor = await personWith(db, ['editor'])
    const plain = await team('readers')
    expect((await request(app).post('/api/db/team_members').set(editor.headers).send({ team_id: plain, person_id: editor.id })).status).toBe(201)
    expect(
      (await request(app).delete(`/api/db/team_members?team_id=eq.${plain}&person_id=eq.${editor.id}`).set(editor.headers)).status,
    ).toBe(204)
  })

  it('needs more than rbac:update: the author must hold what the team grants', async () => {
    const editor = await personWith(db, ['editor'])
    await db.query(`INSERT INTO permissions (subject_type, subject, object, action) VALUES ('person', $1, 'rbac', 'update')`, [editor.id])
    const admins = await team('root', { object: '*', action: '*' })
    expect((await request(app).post('/api/db/team_members').set(editor.headers).send({ team_id: admins, person_id: editor.id })).status).toBe(403)
    const readers = await team('catalog readers', { object: 'catalog', action: 'read' })
    expect((await request(app).post('/api/db/team_members').set(editor.headers).send({ team_id: readers, person_id: editor.id })).status).toBe(201)
  })

  it('refuses an editor removing members of, or deleting, a team that holds permissions; admins may', async () => {
    const editor = await personWith(db, ['editor'])
    const member = await personWith(db, ['viewer'])
    const privileged = await team('secrets', { object: 'connection', action: 'read' })
    expect((await request(app).post('/api/db/team_members').set(bearer).send({ team_id: privileged, person_id: member.id })).status).toBe(201)
    expect(
      (await request(app).delete(`/api/db/team_members?team_id=eq.${privileged}&person_id=eq.${member.id}`).set(editor.headers)).status,
    ).toBe(403)
    expect((await request(app).delete(`/api/db/team_members?person_id=eq.${member.id}`).set(editor.headers)).status).toBe(403)
    expect((await request(app).patch(`/api/db/teams?id=eq.${privileged}`).set(editor.headers).send({ deleted_at: 'now()' })).status).toBe(403)
    const upsert = await request(app)
      .post('/api/db/teams')
      .set(editor.headers)
      .set('Prefer', 'resolution=merge-duplicates')
      .send({ id: privileged, name: 'secrets', deleted_at: new Date().toISOString() })
    expect(upsert.status).toBe(403)
    expect((await db.query('SELECT deleted_at FROM teams WHERE id = $1', [privileged])).rows[0]).toEqual({ deleted_at: null })
    expect(await members(privileged)).toEqual([member.id])
    // Renaming is harmless.
    expect((await request(app).patch(`/api/db/teams?id=eq.${privileged}`).set(editor.headers).send({ name: 'vault' })).status).toBe(204)
    expect(
      (await request(app).delete(`/api/db/team_members?team_id=eq.${privileged}&person_id=eq.${member.id}`).set(bearer)).status,
    ).toBe(204)
  })
})
