import express from 'express'
import request from 'supertest'
import { beforeAll, describe, expect, it } from 'vitest'
import type { Db } from '#server/db/client.ts'
import {
  createCredentialStore,
  requireCredentials,
  sessionCookieResolver,
} from '#server/backend/identity/credentials.ts'
import { principalOf } from '#server/backend/identity/principal.ts'
import { routeAccess } from '#server/backend/rbac/route-access.ts'
import { permissionObjects } from '#server/backend/rbac/access-map.ts'
import { routeObjects } from '#server/backend/rbac/route-access.ts'
import { useTestApp } from '#tests/support/use-test-app.ts'
import { createTestApp } from '#tests/support/test-app.ts'
import { personWith } from './rbac-fixture.ts'

describe('credential resolvers and route rules', () => {
  const testApp = useTestApp()
  let db: Db

  beforeAll(async () => {
    db = testApp.db
  })
  it('tries extra resolvers (e.g. the Kratos cookie) before the console session', async () => {
    const store = createCredentialStore({ db, sessionTtlHours: 1 })
    const seen: string[] = []
    const person = await personWith(db, ['viewer'])
    const resolver = sessionCookieResolver(db, 'ory_kratos_session', async (value) => {
      seen.push(value)
      return value === 'good' ? { personId: person.id, name: 'Dana Ops', email: 'dana@example.test' } : undefined
    })
    const app = express()
    app.use(requireCredentials(store, { resolvers: [resolver] }))
    app.get('/who', (_req, res) => void res.json(principalOf(res)))
    const ok = await request(app).get('/who').set('Cookie', 'other=1; ory_kratos_session=good')
    expect(ok.status).toBe(200)
    expect(ok.body).toMatchObject({ personId: person.id, via: 'kratos-session', roles: [] })
    expect((await request(app).get('/who').set('Cookie', 'ory_kratos_session=bad')).status).toBe(401)
    expect(seen).toEqual(['good', 'bad'])
    // A soft-deleted person's identity session no longer signs in.
    await db.query('UPDATE people SET deleted_at = now() WHERE id = $1', [person.id])
    expect((await request(app).get('/who').set('Cookie', 'ory_kratos_session=good')).status).toBe(401)
  })

  it('lets any signed-in role log out and in again', async () => {
    const { app } = createTestApp(db)
    const guest = await personWith(db, ['guest'])
    expect((await request(app).post('/api/auth/logout').set(guest.headers)).status).toBe(200)
    expect((await request(app).post('/api/auth/login').set(guest.headers)).status).toBe(200)
  })

  it('derives actions from methods and refuses methods it cannot map', () => {
    expect(routeAccess('GET', '/canary/api/summary')).toEqual({ kind: 'check', area: 'canaries', object: 'canaries', action: 'read' })
    expect(routeAccess('PUT', '/connection/abc')).toEqual({ kind: 'check', area: 'connections', object: 'connection', action: 'update' })
    expect(routeAccess('OPTIONS', '/canary/x')).toEqual({ kind: 'unsupported-method' })
    expect(routeAccess('POST', '/view/default/pods')).toMatchObject({ action: 'read' })
    expect(routeAccess('GET', '/db/canaries')).toEqual({ kind: 'skip' })
    expect(routeAccess('GET', '/auth/whoami')).toEqual({ kind: 'authenticated' })
    // Every object a route can ask for is one a token scope can leave out.
    const objects = new Set(permissionObjects())
    expect(routeObjects().filter((object) => !objects.has(object))).toEqual([])
  })
})
