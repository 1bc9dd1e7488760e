import request from 'supertest'
import { describe, expect, it } from 'vitest'
import { useTestApp } from '#tests/support/use-test-app.ts'
import { bearer } from '#tests/support/test-app.ts'
import { personWith } from './rbac-fixture.ts'

const testApp = useTestApp()

/** An editor who also holds rbac:update through a stored permission: the only non-admin who writes permissions. */
async function rbacEditor() {
  const person = await personWith(testApp.db, ['editor'])
  await testApp.db.query(`INSERT INTO permissions (subject_type, subject, object, action) VALUES ('person', $1, 'rbac', 'update')`, [person.id])
  return person
}

describe('writing permissions cannot raise anyone above their author', () => {
  it('keeps editors (no rbac in the matrix) from writing permission rows at all', async () => {
    const editor = await personWith(testApp.db, ['editor'])
    for (const body of [
      { subject: editor.id, subject_type: 'person', object: 'catalog', action: 'read' },
      { subject: 'viewer', subject_type: 'group', object: 'connection', action: 'update', deny: true },
    ]) {
      const response = await request(testApp.app).post('/api/db/permissions').set(editor.headers).send(body)
      expect(response.status).toBe(403)
      expect(response.body).toMatchObject({ code: '42501', message: 'unauthorized. Access Denied', details: 'writing permissions needs rbac:update' })
      expect(response.headers['x-rbac-object']).toBe('rbac')
      expect(response.headers['x-rbac-action']).toBe('update')
    }
  })

  it('lets an rbac author grant what they hold, and refuses what they do not', async () => {
    const editor = await rbacEditor()
    const allowed = await request(testApp.app)
      .post('/api/db/permissions')
      .set(editor.headers)
      .send({ subject: editor.id, subject_type: 'person', object: 'catalog', action: 'read' })
    expect(allowed.status).toBe(201)

    // Editors may not write connections (spec 002 §6), so they may not grant it either.
    const escalation = await request(testApp.app)
      .post('/api/db/permissions')
      .set(editor.headers)
      .send({ subject: editor.id, subject_type: 'person', object: 'connection', action: 'update' })
    expect(escalation.status).toBe(403)
    expect(escalation.body).toMatchObject({ code: '42501', message: 'you cannot grant update on connection: you do not hold it yourself' })

    const everything = await request(testApp.app)
      .post('/api/db/permissions')
      .set(editor.headers)
      .send({ subject: editor.id, subject_type: 'person', object: '*', action: '*' })
    expect(everything.status).toBe(403)

    // A deny on a subject below the author, over what the author holds.
    const denial = await request(testApp.app)
      .post('/api/db/permissions')
      .set(editor.headers)
      .send({ subject: 'viewer', subject_type: 'group', object: 'canaries', action: 'read', deny: true })
    expect(denial.status).toBe(201)
    // Nor a deny against those above them.
    const upward = await request(testApp.app)
      .post('/api/db/permissions')
      .set(editor.headers)
      .send({ subject: 'admin', subject_type: 'group', object: 'canaries', action: 'read', deny: true })
    expect(upward.status).toBe(403)
    expect(upward.body.message).toMatch(/^you cannot write permissions for group admin/)
  })

  it('checks an update against the row it produces', async () => {
    const editor = await rbacEditor()
    const created = await request(testApp.app)
      .post('/api/db/permissions')
      .set({ ...editor.headers, Prefer: 'return=representation' })
      .send({ subject: editor.id, subject_type: 'person', object: 'catalog', action: 'read' })
    const id = created.body[0].id as string
    const widened = await request(testApp.app).patch(`/api/db/permissions?id=eq.${id}`).set(editor.headers).send({ object: 'connection', action: 'update' })
    expect(widened.status).toBe(403)
    const unfiltered = await request(testApp.app).patch('/api/db/permissions?subject=eq.x').set(editor.headers).send({ description: 'x' })
    expect(unfiltered.status).toBe(403)
    const upsert = await request(testApp.app)
      .post('/api/db/permissions')
      .set({ ...editor.headers, Prefer: 'resolution=merge-duplicates' })
      .send({ id, subject: editor.id, subject_type: 'person', object: 'catalog', action: 'read' })
    expect(upsert.status).toBe(403)
    const harmless = await request(testApp.app).patch(`/api/db/permissions?id=eq.${id}`).set(editor.headers).send({ description: 'catalog readers' })
    expect(harmless.status).toBe(204)
  })

  it('keeps role rows and role assignments within what the author holds', async () => {
    const editor = await rbacEditor()
    const target = await personWith(testApp.db, [])
    const casbin = await request(testApp.app)
      .post('/api/db/casbin_rule')
      .set(editor.headers)
      .send({ ptype: 'g', v0: editor.id, v1: 'admin', v2: '', v3: '', v4: '', v5: '' })
    expect(casbin.status).toBe(403)
    const toAdmin = await request(testApp.app).post(`/api/rbac/${editor.id}/update_role`).set(editor.headers).send({ roles: ['admin'] })
    expect(toAdmin.status).toBe(403)
    expect(toAdmin.body.error).toMatch(/cannot give the role admin/)
    const toViewer = await request(testApp.app).post(`/api/rbac/${target.id}/update_role`).set(editor.headers).send({ roles: ['viewer'] })
    expect(toViewer.status).toBe(200)
  })

  it('lets an admin grant anything', async () => {
    const granted = await request(testApp.app)
      .post('/api/db/permissions')
      .set(bearer)
      .send({ subject: 'editor', subject_type: 'group', object: 'connection', action: 'update' })
    expect(granted.status).toBe(201)
  })
})
