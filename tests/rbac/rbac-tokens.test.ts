import { pino } from 'pino'
import request from 'supertest'
import { parse } from 'yaml'
import { beforeAll, describe, expect, it } from 'vitest'
import type { Express } from 'express'
import type { Db } from '#server/db/client.ts'
import { sha256 } from '#server/backend/identity/credentials.ts'
import { parseExpiry, scopeDenials } from '#server/backend/rbac/access-tokens.ts'
import { useTestApp } from '#tests/support/use-test-app.ts'
import { bearer, createTestApp } from '#tests/support/test-app.ts'
import { RANDOM_ID, personWith } from './rbac-fixture.ts'

type Person = Awaited<ReturnType<typeof personWith>>

describe('access tokens, whoami, people and /rbac endpoints', () => {
  const testApp = useTestApp()
  let db: Db
  let app: Express
  const logLines: string[] = []
  let admin: Person
  let editor: Person

  async function createToken(owner: Person, body: Record<string, unknown>) {
    return request(app).post('/api/auth/create_token').set(owner.headers).send(body)
  }

  beforeAll(async () => {
    db = testApp.db
    // Everything at trace level and unredacted: a secret must not reach a line in the first place.
    const logger = pino({ level: 'trace' }, { write: (line: string) => void logLines.push(line) })
    app = createTestApp(db, {}, { logger }).app
    admin = await personWith(db, ['admin'])
    editor = await personWith(db, ['editor'])
  })
  it('parses expiries: never, the default, durations; rejects the rest', () => {
    expect(parseExpiry('never')).toEqual({ ms: null })
    expect(parseExpiry('')).toEqual({ ms: 90 * 86_400_000 })
    expect(parseExpiry('', '7d')).toEqual({ ms: 7 * 86_400_000 })
    expect(parseExpiry('1h30m')).toEqual({ ms: 5_400_000 })
    expect(() => parseExpiry('soon')).toThrow(/error parsing expiry/)
    expect(() => parseExpiry('0d')).toThrow(/error parsing expiry/)
  })

  it('creates a token once, stores only its hash and never returns or logs it again', async () => {
    expect((await createToken(editor, { name: '   ' })).body).toEqual({ error: 'Name is required' })
    expect((await createToken(editor, {})).status).toBe(400)
    expect((await createToken(editor, { name: 'x', expiry: 'tomorrow' })).status).toBe(400)
    expect((await createToken(editor, { name: 'x', scope: [{ object: 'nuclear', action: 'read' }] })).status).toBe(400)

    const created = await createToken(editor, { name: 'ci-bot', expiry: 'never', scope: [] })
    expect(created.status).toBe(200)
    const token = created.body.payload.token as string
    expect(token).toMatch(/^lkt_[A-Za-z0-9_-]{43}$/)
    expect((await createToken(editor, { name: 'ci-bot' })).status).toBe(409)

    const stored = await db.query<{ value: string; expires_at: Date | null }>(`SELECT value, expires_at FROM access_tokens WHERE name = 'ci-bot'`)
    expect(stored.rows).toEqual([{ value: sha256(token), expires_at: null }])

    // Bearer and basic (user "token") both authenticate as the synthetic person.
    const whoami = await request(app).get('/api/auth/whoami').set('Authorization', `Bearer ${token}`)
    expect(whoami.status).toBe(200)
    expect(whoami.body.payload.user).toMatchObject({ name: 'ci-bot (Token)', type: 'access_token' })
    expect(whoami.body.payload.roles).toEqual(['editor'])
    const basic = Buffer.from(`Token:${token}`).toString('base64')
    expect((await request(app).get('/api/auth/whoami').set('Authorization', `Basic ${basic}`)).status).toBe(200)

    const list = await request(app).get('/api/auth/tokens').set(admin.headers)
    expect(list.status).toBe(200)
    const item = (list.body.payload as { name: string }[]).find((entry) => entry.name === 'ci-bot')
    expect(item).toMatchObject({ name: 'ci-bot', created_by: editor.id, person: { name: 'ci-bot (Token)', type: 'access_token' } })
    expect(list.text).not.toContain(token)
    expect(list.text).not.toContain(sha256(token))
    expect(list.text).not.toContain(editor.token)

    const logs = logLines.join('\n')
    expect(logs).toContain('access token created')
    expect(logs).not.toContain(token)
    expect(logs).not.toContain(editor.token)
  })

  it('limits a scoped token to its scope, within the creator’s roles', async () => {
    const created = await createToken(editor, {
      name: 'reader',
      scope: [
        { subject: '', object: 'canaries', action: 'read' },
        { subject: '', object: 'playbooks', action: 'playbook:run' },
      ],
    })
    expect(created.status).toBe(200)
    const headers = { Authorization: `Bearer ${created.body.payload.token as string}` }
    expect((await request(app).get('/api/db/canaries').set(headers)).status).toBe(200)
    expect((await request(app).get('/api/db/checks').set(headers)).status).toBe(200)
    expect((await request(app).delete(`/api/db/canaries?id=eq.${RANDOM_ID}`).set(headers)).status).toBe(403)
    expect((await request(app).get('/api/db/incidents').set(headers)).status).toBe(403)
    expect((await request(app).get('/api/db/config_items').set(headers)).status).toBe(403)
    expect((await request(app).post(`/api/canary/run/check/${RANDOM_ID}`).set(headers)).status).toBe(403)
    // playbook:run is in the scope and the editor may run playbooks; reading them is not in the scope.
    expect((await request(app).post('/api/playbook/run').set(headers).send({ id: RANDOM_ID })).status).not.toBe(403)
    expect((await request(app).get('/api/db/playbooks').set(headers)).status).toBe(403)
    // The console's start-up reads stay open.
    expect((await request(app).get('/api/auth/whoami').set(headers)).status).toBe(200)
    expect((await request(app).get('/api/properties').set(headers)).status).toBe(200)

    // A scope never widens the creator's roles: a viewer's token with write scope still cannot write.
    const viewer = await personWith(db, ['viewer'])
    const viewerToken = await createToken(viewer, { name: 'wide', scope: [{ object: 'canaries', action: 'delete' }, { object: 'canaries', action: 'read' }] })
    const viewerHeaders = { Authorization: `Bearer ${viewerToken.body.payload.token as string}` }
    expect((await request(app).get('/api/db/canaries').set(viewerHeaders)).status).toBe(200)
    expect((await request(app).delete(`/api/db/canaries?id=eq.${RANDOM_ID}`).set(viewerHeaders)).status).toBe(403)

    // The deny rules are visible through /rbac/token/{id}/permissions.
    const tokenId = (await db.query<{ id: string }>(`SELECT id FROM access_tokens WHERE name = 'reader'`)).rows[0]!.id
    const permissions = await request(app).get(`/api/rbac/token/${tokenId}/permissions`).set(admin.headers)
    expect(permissions.status).toBe(200)
    const rules = permissions.body.payload as { object: string; action: string; deny?: boolean }[]
    expect(rules).toContainEqual(expect.objectContaining({ object: 'incident', deny: true }))
    expect(rules.find((rule) => rule.object === 'canaries' && rule.deny)?.action.split(',')).not.toContain('read')
    expect(scopeDenials([{ object: 'mcp', action: '*' }]).some((denial) => denial.object === 'mcp')).toBe(false)
  })

  it('rejects expired and deleted tokens at once; only the creator or an admin deletes', async () => {
    const created = await createToken(editor, { name: 'short', expiry: '1h' })
    const token = created.body.payload.token as string
    const headers = { Authorization: `Bearer ${token}` }
    const id = (await db.query<{ id: string }>(`SELECT id FROM access_tokens WHERE name = 'short'`)).rows[0]!.id
    expect((await request(app).get('/api/auth/whoami').set(headers)).status).toBe(200)
    await db.query(`UPDATE access_tokens SET expires_at = now() - interval '1 second' WHERE id = $1`, [id])
    const expired = await request(app).get('/api/auth/whoami').set(headers)
    expect(expired.status).toBe(401)
    expect(expired.body.message).toBe('access token has expired')
    await db.query(`UPDATE access_tokens SET expires_at = now() + interval '1 hour' WHERE id = $1`, [id])

    const stranger = await personWith(db, ['editor'])
    const refused = await request(app).delete(`/api/auth/token/${id}`).set(stranger.headers)
    expect(refused.status).toBe(403)
    expect(refused.text).toBe('only the creator or admins can delete access tokens')
    expect((await request(app).delete(`/api/auth/token/${RANDOM_ID}`).set(admin.headers)).status).toBe(404)
    expect((await request(app).delete('/api/auth/token/not-a-uuid').set(admin.headers)).status).toBe(400)

    expect((await request(app).delete(`/api/auth/token/${id}`).set(editor.headers)).body).toEqual({ message: 'success' })
    const gone = await request(app).get('/api/auth/whoami').set(headers)
    expect(gone.status).toBe(401)
    expect(gone.body.message).toBe('invalid access token')
    const person = await db.query<{ deleted_at: Date | null }>(`SELECT deleted_at FROM people WHERE name = 'short (Token)'`)
    expect(person.rows[0]?.deleted_at).not.toBeNull()
  })

  it('answers whoami with roles from casbin and the effective permissions', async () => {
    const whoami = await request(app).get('/api/auth/whoami').set(editor.headers)
    expect(whoami.status).toBe(200)
    expect(whoami.body.payload.user).toMatchObject({ id: editor.id, email: expect.stringContaining('@example.test') })
    expect(whoami.body.payload.roles).toEqual(['editor'])
    const permissions = whoami.body.payload.permissions as { id: string; subject: string; object: string; action: string }[]
    expect(permissions).toContainEqual({ id: 'na', subject: 'editor', object: '*', action: 'read' })
    expect(permissions).toContainEqual({ id: 'na', subject: 'editor', object: 'canaries', action: 'create' })
    expect(permissions.some((rule) => rule.object === 'rbac' && rule.action !== 'read')).toBe(false)

    const bootstrap = await request(app).get('/api/auth/whoami').set(bearer)
    expect(bootstrap.body.payload.roles).toEqual(['admin'])
    expect(bootstrap.body.payload.permissions).toContainEqual({ id: 'na', subject: 'admin', object: '*', action: '*' })
  })

  it('serves a kubeconfig whose user authenticates with a fresh token', async () => {
    const response = await request(app).get('/api/kubeconfig').set(editor.headers).set('Host', 'demo.flanksource.com')
    expect(response.status).toBe(200)
    expect(response.headers['content-type']).toMatch(/^text\/yaml/)
    expect(response.headers['content-disposition']).toBe('attachment; filename=demo-kubeconfig.yaml')
    const config = parse(response.text) as {
      clusters: { cluster: { server: string } }[]
      users: { user: { username: string; password: string } }[]
      'current-context': string
    }
    expect(config.clusters[0]!.cluster.server).toBe('http://demo.flanksource.com/kubeproxy')
    expect(config.users[0]!.user.username).toBe('token')
    const password = config.users[0]!.user.password
    const whoami = await request(app).get('/api/auth/whoami').set('Authorization', `Bearer ${password}`)
    expect(whoami.body.payload.user.id).toBe(editor.id)
    const stored = await db.query<{ expires_at: Date | null }>('SELECT expires_at FROM access_tokens WHERE value = $1', [sha256(password)])
    expect(stored.rows).toEqual([{ expires_at: null }])
    const viewer = await personWith(db, ['viewer'])
    expect((await request(app).get('/api/kubeconfig').set(viewer.headers)).status).toBe(403)
    expect(logLines.join('\n')).not.toContain(password)
  })

  it('manages roles through /rbac and people through /people', async () => {
    const person = await personWith(db, ['viewer'])
    expect((await request(app).post(`/api/rbac/${person.id}/update_role`).set(admin.headers).send({ roles: ['wizard'] })).status).toBe(400)
    expect((await request(app).post(`/api/rbac/${RANDOM_ID}/update_role`).set(admin.headers).send({ roles: ['editor'] })).status).toBe(404)
    const updated = await request(app).post(`/api/rbac/${person.id}/update_role`).set(admin.headers).send({ roles: ['responder'] })
    expect(updated.body).toEqual({ message: 'Role updated successfully' })
    const roles = await request(app).get(`/api/rbac/${person.id}/roles`).set(admin.headers)
    expect(roles.body).toEqual({ message: '', payload: expect.arrayContaining(['viewer', 'responder']) })
    const dump = await request(app).get('/api/rbac/dump').set(admin.headers)
    expect(dump.body).toContainEqual(expect.objectContaining({ subject: 'editor', object: 'canaries', action: 'create' }))

    // Role replaced through /people/update, then the person is signed out and removed.
    const login = await request(app).post('/api/auth/login').send({ username: 'token', password: person.token })
    const cookie = (login.headers['set-cookie'] as unknown as string[])[0]!.split(';')[0]!
    const renamed = await request(app)
      .post('/api/people/update')
      .set(admin.headers)
      .send({ ID: person.id, firstName: 'Dana', lastName: 'Ops', Role: 'guest' })
    expect(renamed.status).toBe(200)
    expect(renamed.body).toEqual({ email: expect.stringContaining('@example.test'), name: { first: 'Dana', last: 'Ops' } })
    expect((await request(app).get(`/api/rbac/${person.id}/roles`).set(admin.headers)).body.payload).toEqual(['guest'])
    expect((await request(app).post('/api/people/update').set(admin.headers).send({ id: RANDOM_ID })).status).toBe(404)
    expect((await request(app).post('/api/people/update').set(admin.headers).send({ id: person.id, role: 'wizard' })).status).toBe(400)

    expect((await request(app).get('/api/auth/whoami').set('Cookie', cookie)).status).toBe(200)
    const deactivated = await request(app).post('/api/people/update').set(admin.headers).send({ id: person.id, active: false })
    expect(deactivated.status).toBe(200)
    expect((await request(app).get('/api/auth/whoami').set('Cookie', cookie)).status).toBe(401)
    expect((await request(app).get('/api/auth/whoami').set(person.headers)).status).toBe(401)
    await request(app).post('/api/people/update').set(admin.headers).send({ id: person.id, active: true })
    expect((await request(app).get('/api/auth/whoami').set(person.headers)).status).toBe(200)

    expect((await request(app).delete(`/api/people/${person.id}`).set(admin.headers)).status).toBe(204)
    expect((await request(app).get('/api/auth/whoami').set(person.headers)).status).toBe(401)
    const row = await db.query<{ deleted_at: Date | null }>('SELECT deleted_at FROM people WHERE id = $1', [person.id])
    expect(row.rows[0]?.deleted_at).not.toBeNull()
    expect((await request(app).delete(`/api/people/${person.id}`).set(admin.headers)).status).toBe(404)
  })
})
