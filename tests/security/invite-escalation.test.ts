import request from 'supertest'
import { describe, expect, it } from 'vitest'
import { useTestApp } from '#tests/support/use-test-app.ts'
import { bearer } from '#tests/support/test-app.ts'
import { personWith } from '#tests/rbac/rbac-fixture.ts'

// Issue 10 §1: an editor (who holds auth:update by the matrix) could invite an admin and read
// the admin's one-time sign-in link from the response: admin in one request.
const testApp = useTestApp()

async function outboxFor(email: string) {
  const { rows } = await testApp.db.query<{ body: string }>(`SELECT body FROM identity.mail_outbox WHERE "to" = $1`, [email])
  return rows
}

async function rolesOf(email: string) {
  const { rows } = await testApp.db.query<{ roles: string[] }>(`SELECT roles FROM people_roles WHERE email = $1`, [email])
  return rows[0]?.roles
}

describe('invitations cannot grant more than the inviter holds', () => {
  it('refuses an editor inviting an admin, and creates nobody', async () => {
    const editor = await personWith(testApp.db, ['editor'])
    const response = await request(testApp.app)
      .post('/api/auth/invite_user')
      .set(editor.headers)
      .send({ firstName: 'Eve', lastName: 'Admin', email: 'eve.admin@example.test', role: 'admin' })
    expect(response.status).toBe(403)
    expect(response.body.error).toMatch(/cannot invite .*admin/)
    expect(response.body.link).toBeUndefined()
    expect(await rolesOf('eve.admin@example.test')).toBeUndefined()
    expect(await outboxFor('eve.admin@example.test')).toHaveLength(0)
  })

  it('lets an editor invite a role it dominates, mailing the link without returning it', async () => {
    const editor = await personWith(testApp.db, ['editor'])
    const response = await request(testApp.app)
      .post('/api/auth/invite_user')
      .set(editor.headers)
      .send({ firstName: 'Vic', lastName: 'Viewer', email: 'vic.viewer@example.test', role: 'viewer' })
    expect(response.status).toBe(200)
    expect(response.body).toEqual({ message: 'invitation sent', mailed: true })
    expect(JSON.stringify(response.body)).not.toMatch(/token=|flow=/)
    const mails = await outboxFor('vic.viewer@example.test')
    expect(mails).toHaveLength(1)
    expect(mails[0]!.body).toMatch(/\/api\/\.ory\/self-service\/recovery\?flow=.+&token=.+/)
    expect(await rolesOf('vic.viewer@example.test')).toContain('viewer')
  })

  it('refuses an editor inviting an editor once a deny has taken something editors hold', async () => {
    const editor = await personWith(testApp.db, ['editor'])
    await testApp.db.query(
      `INSERT INTO permissions (subject_type, subject, object, action, deny) VALUES ('person', $1, 'playbooks', 'delete', true)`,
      [editor.id],
    )
    const response = await request(testApp.app)
      .post('/api/auth/invite_user')
      .set(editor.headers)
      .send({ email: 'ed.peer@example.test', role: 'editor' })
    expect(response.status).toBe(403)
    expect(response.body.error).toMatch(/delete on playbooks/)
  })

  it('returns the link to an admin (and mails it too)', async () => {
    const response = await request(testApp.app)
      .post('/api/auth/invite_user')
      .set(bearer)
      .send({ firstName: 'Ada', lastName: 'Admin', email: 'ada.admin@example.test', role: 'admin' })
    expect(response.status).toBe(200)
    expect(response.body.link).toMatch(/\/api\/\.ory\/self-service\/recovery\?flow=.+&token=.+/)
    expect((await outboxFor('ada.admin@example.test'))[0]!.body).toContain(response.body.link)

    const admin = await personWith(testApp.db, ['admin'])
    const byPerson = await request(testApp.app).post('/api/auth/invite_user').set(admin.headers).send({ email: 'cmd@example.test', role: 'commander' })
    expect(byPerson.status).toBe(200)
    expect(byPerson.body.link).toMatch(/token=/)
  })

  it('keeps a viewer out entirely (no auth:update)', async () => {
    const viewer = await personWith(testApp.db, ['viewer'])
    const response = await request(testApp.app).post('/api/auth/invite_user').set(viewer.headers).send({ email: 'x@example.test', role: 'guest' })
    expect(response.status).toBe(403)
  })
})
