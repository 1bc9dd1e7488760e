import request from 'supertest'
import { afterAll, beforeAll, describe, expect, it } from 'vitest'
import type { Express } from 'express'
import { createTestDb, type TestDb } from '#tests/support/test-db.ts'
import { bearer, createTestApp } from '#tests/support/test-app.ts'
import { personWith } from './rbac-fixture.ts'

let testDb: TestDb
let app: Express

beforeAll(async () => {
  testDb = await createTestDb()
  app = createTestApp(testDb.db).app
})

afterAll(async () => {
  await testDb?.drop()
})

describe('writing permissions cannot raise anyone above their author', () => {
  it('lets an editor grant what editors hold, and refuses what they do not', async () => {
    const editor = await personWith(testDb.db, ['editor'])
    const allowed = await request(app)
      .post('/api/db/permissions')
      .set(editor.headers)
      .send({ subject: editor.id, subject_type: 'person', object: 'catalog', action: 'read' })
    expect(allowed.status).toBe(201)

    // Editors may not write connections (spec 002 §6), so they may not grant it either.
    const escalation = await request(app)
      .post('/api/db/permissions')
      .set(editor.headers)
      .send({ subject: editor.id, subject_type: 'person', object: 'connection', action: 'update' })
    expect(escalation.status).toBe(403)
    expect(escalation.body).toMatchObject({ code: '42501', message: 'you cannot grant update on connection: you do not hold it yourself' })

    const everything = await request(app)
      .post('/api/db/permissions')
      .set(editor.headers)
      .send({ subject: editor.id, subject_type: 'person', object: '*', action: '*' })
    expect(everything.status).toBe(403)

    // A denial only takes power away.
    const denial = await request(app)
      .post('/api/db/permissions')
      .set(editor.headers)
      .send({ subject: 'viewer', subject_type: 'group', object: 'connection', action: 'update', deny: true })
    expect(denial.status).toBe(201)
  })

  it('checks an update against the row it produces', async () => {
    const editor = await personWith(testDb.db, ['editor'])
    const created = await request(app)
      .post('/api/db/permissions')
      .set({ ...editor.headers, Prefer: 'return=representation' })
      .send({ subject: editor.id, subject_type: 'person', object: 'catalog', action: 'read' })
    const id = created.body[0].id as string
    const widened = await request(app).patch(`/api/db/permissions?id=eq.${id}`).set(editor.headers).send({ object: 'connection', action: 'update' })
    expect(widened.status).toBe(403)
    const unfiltered = await request(app).patch('/api/db/permissions?subject=eq.x').set(editor.headers).send({ description: 'x' })
    expect(unfiltered.status).toBe(403)
    const harmless = await request(app).patch(`/api/db/permissions?id=eq.${id}`).set(editor.headers).send({ description: 'catalog readers' })
    expect(harmless.status).toBe(204)
  })

  it('lets an admin grant anything', async () => {
    const granted = await request(app)
      .post('/api/db/permissions')
      .set(bearer)
      .send({ subject: 'editor', subject_type: 'group', object: 'connection', action: 'update' })
    expect(granted.status).toBe(201)
  })
})
