import express from 'express'
import request from 'supertest'
import { afterAll, beforeAll, describe, expect, it } from 'vitest'
import type { Express } from 'express'
import type { Db } from '#server/db/client.ts'
import { createPostgrestRouter, type AuthorizeRequest } from '#server/backend/postgrest/router.ts'
import { SchemaCache } from '#server/backend/postgrest/schema-cache.ts'
import { relationAccess } from '#server/backend/rbac/access-map.ts'
import { createTestDb, type TestDb } from '#tests/support/test-db.ts'
import { bearer, createTestApp } from '#tests/support/test-app.ts'
import { personWith } from '#tests/rbac/rbac-fixture.ts'

// Issue 10 item 3: only the top relation of a /api/db request was authorized, so a viewer could
// read connection credentials (and anyone, token hashes) by embedding them from a relation they
// may read. Every relation a request touches must get the answer a direct read of it gets.

const PASSWORD = 'hunter2-embed-secret'
const USERNAME = 'svc-embed-user'
const CERTIFICATE = '-----BEGIN PRIVATE KEY-----embed'
const PROPERTY = 'embed-property-secret'
const CONNECTION_RELATIONS = ['connections', 'connections_list', 'connection_details']

type Person = { id: string; headers: Record<string, string> }

function expectDenied(response: request.Response, person: Person, object: string | string[]) {
  expect(response.status, response.text).toBe(403)
  expect(response.body).toMatchObject({ code: '42501', message: 'unauthorized. Access Denied' })
  expect(response.headers['x-rbac-subject']).toBe(person.id)
  expect(typeof object === 'string' ? [object] : object).toContain(response.headers['x-rbac-object'])
  expect(response.headers['x-rbac-action']).toBe('read')
  expectNoSecret(response)
}

function expectNoSecret(response: request.Response) {
  for (const secret of [PASSWORD, USERNAME, CERTIFICATE, PROPERTY]) expect(response.text).not.toContain(secret)
}

describe('every relation of an /api/db request is authorized', () => {
  let testDb: TestDb
  let db: Db
  let app: Express
  let viewer: Person
  let editor: Person
  let admin: Person
  let owner: string
  let connectionId: string
  let permissionId: string

  beforeAll(async () => {
    testDb = await createTestDb()
    db = testDb.db
    app = createTestApp(db).app
    viewer = await personWith(db, ['viewer'])
    editor = await personWith(db, ['editor'])
    admin = await personWith(db, ['admin'])
    // The connection's creator, who also holds a token (for the access_tokens embeds).
    const creator = await personWith(db, ['editor'], 'owner')
    owner = creator.id
    const connection = await db.query<{ id: string }>(
      `INSERT INTO connections (name, namespace, type, url, username, password, certificate, properties, created_by)
       VALUES ('prod-db', 'default', 'postgres', 'postgres://$(username):$(password)@db:5432/app', $1, $2, $3, $4, $5) RETURNING id`,
      [USERNAME, PASSWORD, CERTIFICATE, JSON.stringify({ token: PROPERTY }), owner],
    )
    connectionId = connection.rows[0]!.id
    const permission = await db.query<{ id: string }>(
      `INSERT INTO permissions (name, subject_type, subject, action, connection_id, person_id, created_by)
       VALUES ('prod-db readers', 'person', $1::text, 'read', $2, $1::uuid, $1::uuid) RETURNING id`,
      [owner, connectionId],
    )
    permissionId = permission.rows[0]!.id
    await db.query(`INSERT INTO teams (name, created_by) VALUES ('embed-team', $1)`, [owner])
    await db.query(`INSERT INTO team_members (team_id, person_id) SELECT id, $1 FROM teams WHERE name = 'embed-team'`, [owner])
  })
  afterAll(async () => {
    await testDb?.drop()
  })

  const get = (path: string, headers: Record<string, string>) => request(app).get(`/api/db/${path}`).set(headers)

  it('refuses a viewer every embed of a connection relation, from every relation that links to one', async () => {
    // Found in the schema rather than listed, so a new foreign key to connections is covered too.
    const cache = new SchemaCache(db)
    await cache.load()
    const paths: { source: string; path: string }[] = []
    for (const source of cache.relationNames()) {
      const access = relationAccess(source, 'table')
      if (!access || CONNECTION_RELATIONS.includes(source) || ['identities', 'kratos'].includes(access.area)) continue
      for (const rel of cache.relationshipsFrom(source)) {
        if (!CONNECTION_RELATIONS.includes(rel.target.name)) continue
        const hint = rel.junction ? rel.junction.relation.name : rel.constraint
        paths.push({ source, path: `${source}?select=${rel.target.name}!${hint}(*)` })
      }
    }
    expect(paths.map((item) => item.source)).toEqual(expect.arrayContaining(['permissions', 'permissions_summary', 'people']))
    for (const { path } of paths) {
      const response = await get(path, viewer.headers)
      expect({ path, status: response.status }).toEqual({ path, status: 403 })
      expectDenied(response, viewer, ['connection', 'connection-detail'])
    }
  })

  it('refuses a viewer the credentials through the plain embed, nested embeds and spreads', async () => {
    for (const path of [
      `permissions?select=*,connections(*)`,
      `permissions?id=eq.${permissionId}&select=id,connections(username,password,certificate,properties)`,
      `permissions_summary?select=id,connection_details(*)`,
      `people?select=id,connections(password)`,
      `permissions?select=id,people!permissions_person_id_fkey(id,connections(password))`,
      `teams?select=id,people!team_members(id,connections!connections_created_by_fkey(*))`,
      `permissions?select=id,...connections(username,password)`,
      `permissions?select=id,connections!inner(id)`,
    ]) {
      expectDenied(await get(path, viewer.headers), viewer, ['connection', 'connection-detail'])
    }
  })

  it('refuses a viewer filters, logic trees and order on embedded connection columns (no password oracle)', async () => {
    const prefix = PASSWORD.slice(0, 6)
    for (const path of [
      `permissions?select=id,connections!inner(id)&connections.password=eq.${PASSWORD}`,
      `permissions?select=id,connections!inner(id)&connections.or=(password.like.${prefix}*,username.eq.x)`,
      `permissions?select=id,connections!inner(id)&connections.and=(password.like.${prefix}*,type.eq.postgres)`,
      `permissions?select=id,connections(id)&or=(connections.not.is.null,id.is.null)`,
      `permissions?select=id,connections(id)&connections=not.is.null`,
      `permissions?select=id,connections(id)&order=connections(password).desc`,
      `permissions?select=id,people!permissions_person_id_fkey!inner(id,connections!inner(id))&people.connections.password=eq.${PASSWORD}`,
    ]) {
      expectDenied(await get(path, viewer.headers), viewer, 'connection')
    }
  })

  it('keeps the token table out of every embed, for everyone including admins', async () => {
    const callers: [string, Record<string, string>, string | undefined][] = [
      ['viewer', viewer.headers, viewer.id],
      ['editor', editor.headers, editor.id],
      ['admin', admin.headers, admin.id],
      ['bootstrap token', bearer, undefined],
    ]
    for (const [who, headers, subject] of callers) {
      for (const path of [
        'people?select=id,access_tokens!access_tokens_person_id_fkey(*)',
        'people?select=id,access_tokens!access_tokens_created_by_fkey(value)',
        'people?select=id,access_tokens!access_tokens_person_id_fkey!inner(id)&access_tokens.value=like.*',
      ]) {
        const response = await get(path, headers)
        expect({ who, path, status: response.status }).toEqual({ who, path, status: 403 })
        expect(response.body).toMatchObject({ code: '42501', message: 'unauthorized. Access Denied' })
        expect(response.headers['x-rbac-object']).toBe('database.kratos')
        if (subject) expect(response.headers['x-rbac-subject']).toBe(subject)
      }
    }
    // A direct read gets the same answer.
    expect((await get('access_tokens', admin.headers)).status).toBe(403)
  })

  it('keeps role assignments (casbin_rule) out of a viewer’s reach through any relationship', async () => {
    // casbin_rule has no foreign keys; its rows surface only through people_roles (identities).
    for (const path of [
      'teams?select=id,people_roles!teams_created_by_fkey(roles)',
      'teams?select=id,people_roles!team_members(roles)',
      'permissions?select=id,people_roles!permissions_person_id_fkey(roles)',
    ]) {
      expectDenied(await get(path, viewer.headers), viewer, 'people')
    }
    expect((await get('people?select=id,casbin_rule(*)', viewer.headers)).status).toBe(400)
  })

  it('answers an embed of a relation the API does not serve as the guard does: 404, empty body', async () => {
    const response = await get('checks?select=id,checks_unlogged(*)', admin.headers)
    expect(response.status).toBe(404)
    expect(response.text).toBe('')
    const direct = await get('checks_unlogged', admin.headers)
    expect(direct.status).toBe(404)
    expect(direct.text).toBe('')
  })

  it('authorizes the embeds of an RPC result', async () => {
    const path = 'rpc/permissions_for_obj_selector?p_field=configs&p_name=x&p_namespace=default&select=id,connections(password)'
    expectDenied(await get(path, viewer.headers), viewer, 'connection')
    const allowed = await get('rpc/permissions_for_obj_selector?p_field=configs&p_name=x&p_namespace=default&select=id,people!permissions_person_id_fkey(id)', viewer.headers)
    expect(allowed.status).toBe(200)
  })

  it('needs read on every relation embedded in a write’s representation, and writes nothing otherwise', async () => {
    // A commander may write comments but not read connections; the incident's creator made one.
    const commander = await personWith(db, ['commander'])
    const incident = await db.query<{ id: string }>(
      `INSERT INTO incidents (title, created_by, severity, description, type, status)
       VALUES ('embed incident', $1, 'Low', 'x', 'availability', 'open') RETURNING id`,
      [owner],
    )
    const incidentId = incident.rows[0]!.id
    const comment = await request(app)
      .post('/api/db/comments?select=id,incidents(id,people!incidents_created_by_fkey(id,connections(password)))')
      .set({ ...commander.headers, 'Content-Type': 'application/json', Prefer: 'return=representation' })
      .send(JSON.stringify({ comment: 'embed-bypass comment', incident_id: incidentId, created_by: commander.id }))
    expectDenied(comment, commander, 'connection')
    expect((await db.query(`SELECT 1 FROM comments WHERE comment = 'embed-bypass comment'`)).rows).toHaveLength(0)

    // An editor may write teams and read connections, but no one reads the token table.
    const team = await request(app)
      .post('/api/db/teams?select=id,people!teams_created_by_fkey(id,access_tokens!access_tokens_person_id_fkey(value))')
      .set({ ...editor.headers, 'Content-Type': 'application/json', Prefer: 'return=representation' })
      .send(JSON.stringify({ name: 'embed-write-team', created_by: editor.id }))
    expectDenied(team, editor, 'database.kratos')
    expect((await db.query(`SELECT 1 FROM teams WHERE name = 'embed-write-team'`)).rows).toHaveLength(0)

    const allowed = await request(app)
      .post('/api/db/comments?select=comment,incidents(id,people!incidents_created_by_fkey(id))')
      .set({ ...commander.headers, 'Content-Type': 'application/json', Prefer: 'return=representation' })
      .send(JSON.stringify({ comment: 'embed-bypass allowed', incident_id: incidentId, created_by: commander.id }))
    expect(allowed.status, allowed.text).toBe(201)
    expect(allowed.body).toEqual([{ comment: 'embed-bypass allowed', incidents: { id: incidentId, people: { id: owner } } }])
  })

  it('serves only the public schema, and no public view passes on identity, console or token secrets', async () => {
    const cache = new SchemaCache(db)
    await cache.load()
    for (const hidden of ['identities', 'identity_credentials', 'sessions', 'codes', 'flows', 'mail_outbox', 'settings', 'inactive_people']) {
      expect({ hidden, relation: cache.relation(hidden) }).toEqual({ hidden, relation: undefined })
    }
    const reads = await db.query<{ view: string; source: string }>(
      `SELECT DISTINCT v.relname AS view, sn.nspname || '.' || src.relname AS source
       FROM pg_class v
       JOIN pg_namespace vn ON vn.oid = v.relnamespace AND vn.nspname = 'public'
       JOIN pg_rewrite r ON r.ev_class = v.oid
       JOIN pg_depend d ON d.objid = r.oid AND d.classid = 'pg_rewrite'::regclass AND d.refclassid = 'pg_class'::regclass
       JOIN pg_class src ON src.oid = d.refobjid AND src.oid <> v.oid
       JOIN pg_namespace sn ON sn.oid = src.relnamespace
       WHERE v.relkind IN ('v', 'm')
         AND (sn.nspname <> 'public' OR src.relname IN ('access_tokens', 'casbin_rule', 'connections'))
       ORDER BY 1, 2`,
    )
    // Views over secrets belong to the area guarding them, or (the two permissions views) pass on
    // only names: checked below.
    expect(reads.rows.map(({ view, source }) => `${view} <- ${source}: ${relationAccess(view, 'table')?.area}`)).toEqual([
      'connection_details <- public.connections: connections',
      'connections_list <- public.connections: connections',
      'people_roles <- public.casbin_rule: identities',
      'permission_subjects <- public.access_tokens: permissions',
      'permissions_summary <- public.connections: permissions',
    ])
    const summary = await get(`permissions_summary?id=eq.${permissionId}&select=connection_object`, viewer.headers)
    expect(summary.body).toEqual([{ connection_object: { id: connectionId, name: 'prod-db', type: 'postgres' } }])
    const token = await db.query<{ value: string }>('SELECT value FROM access_tokens WHERE person_id = $1', [owner])
    const subjects = await get('permission_subjects', viewer.headers)
    expect(subjects.status).toBe(200)
    expect(token.rows.length).toBeGreaterThan(0)
    for (const { value } of token.rows) expect(subjects.text).not.toContain(value)
  })

  it('still serves embeds the caller may read', async () => {
    const asAdmin = await get(`permissions?id=eq.${permissionId}&select=id,connections(id,username)`, admin.headers)
    expect(asAdmin.status).toBe(200)
    expect(asAdmin.body).toEqual([{ id: permissionId, connections: { id: connectionId, username: USERNAME } }])

    const details = await get(`permissions?id=eq.${permissionId}&select=id,connection_details(password)`, admin.headers)
    expect(details.body).toEqual([{ id: permissionId, connection_details: { password: '***' } }])

    const asViewer = await get(`permissions?id=eq.${permissionId}&select=id,people!permissions_person_id_fkey(id),teams(id)`, viewer.headers)
    expect(asViewer.status).toBe(200)
    expect(asViewer.body).toEqual([{ id: permissionId, people: { id: owner }, teams: null }])

    const members = await get(`teams?name=eq.embed-team&select=name,people!team_members(id)`, viewer.headers)
    expect(members.status).toBe(200)
    expect(members.body).toEqual([{ name: 'embed-team', people: [{ id: owner }] }])
  })
})

describe('the router hands every relation of the plan to the authorize hook', () => {
  let testDb: TestDb
  let app: Express
  let calls: AuthorizeRequest[]

  beforeAll(async () => {
    testDb = await createTestDb()
    const { db } = testDb
    // A function whose rows are connections: the result's relation is what gets read.
    await db.exec(`CREATE FUNCTION embed_bypass_connections() RETURNS SETOF connections LANGUAGE sql STABLE AS $$ SELECT * FROM connections $$`)
    // Rows of a table outside the exposed schema: session hashes of the identity service.
    await db.exec(`CREATE FUNCTION embed_bypass_sessions() RETURNS SETOF identity.sessions LANGUAGE sql STABLE AS $$ SELECT * FROM identity.sessions $$`)
    await db.exec(`INSERT INTO identity.identities (id, traits) VALUES ('0190f0f0-0000-7000-8000-0000000000a1', '{"email":"s@example.test"}')`)
    await db.exec(`INSERT INTO identity.sessions (token_hash, identity_id, expires_at)
      VALUES ('embed-bypass-token-hash', '0190f0f0-0000-7000-8000-0000000000a1', now() + interval '1 hour')`)
    calls = []
    app = express()
    app.use(
      createPostgrestRouter({
        db,
        // Functions are allowed here; relations get the access map's answer, connections refused.
        authorize: (input) => {
          calls.push(input)
          if (input.kind === 'rpc') return Promise.resolve({ allowed: true })
          if (!relationAccess(input.relation, input.kind)) return Promise.resolve({ allowed: false, status: 404, message: 'not served' })
          if (input.relation === 'connections') return Promise.resolve({ allowed: false, status: 403, message: 'no connections' })
          return Promise.resolve({ allowed: true })
        },
      }),
    )
  })
  afterAll(async () => {
    await testDb?.drop()
  })

  it('asks about an RPC’s result relation (also outside the exposed schema) and each embedded relation once', async () => {
    const response = await request(app).get('/rpc/embed_bypass_connections').set(bearer)
    expect(response.status).toBe(403)
    expect(response.body).toMatchObject({ code: '42501', message: 'no connections' })
    expect(calls.map(({ relation, kind, action, related }) => ({ relation, kind, action, related }))).toEqual([
      { relation: 'embed_bypass_connections', kind: 'rpc', action: 'read', related: false },
      { relation: 'connections', kind: 'table', action: 'read', related: true },
    ])

    calls.length = 0
    const sessions = await request(app).get('/rpc/embed_bypass_sessions').set(bearer)
    expect(sessions.status).toBe(404)
    expect(sessions.text).toBe('')
    expect(calls.map(({ relation }) => relation)).toEqual(['embed_bypass_sessions', 'identity.sessions'])

    calls.length = 0
    const read = await request(app).get('/teams?select=id,a:people!teams_created_by_fkey(id),b:people!team_members(id,teams!team_members(id))').set(bearer)
    expect(read.status).toBe(200)
    // The top relation again as an embed is asked about apart: its answer may depend on the
    // top level's id filter, which says nothing about the embedded rows.
    expect(calls.map(({ relation, action, related }) => `${relation}:${action}${related ? ' (related)' : ''}`)).toEqual([
      'teams:read',
      'people:read (related)',
      'team_members:read (related)',
      'teams:read (related)',
    ])
  })
})
