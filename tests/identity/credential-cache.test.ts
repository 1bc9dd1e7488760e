import request from 'supertest'
import { afterAll, beforeAll, describe, expect, it } from 'vitest'
import { createPostgresDb, type Db } from '#server/db/client.ts'
import { sessionCookieResolver, sha256 } from '#server/backend/identity/credentials.ts'
import { createTestApp } from '#tests/support/test-app.ts'
import { createTestDb, TEST_ENGINE, type TestDb } from '#tests/support/test-db.ts'
import { personWith } from '../rbac/rbac-fixture.ts'

type App = ReturnType<typeof createTestApp>

/** The same database, with every statement sent through `query` counted. */
function countingDb(db: Db): Db & { statements: string[] } {
  const statements: string[] = []
  return {
    ...db,
    statements,
    query(text, params) {
      statements.push(text)
      return db.query(text, params)
    },
  }
}

async function until(condition: () => boolean | Promise<boolean>, timeoutMs = 2000): Promise<number> {
  const started = Date.now()
  while (!(await condition())) {
    if (Date.now() - started > timeoutMs) throw new Error(`not within ${timeoutMs} ms`)
    await new Promise((resolve) => setTimeout(resolve, 5))
  }
  return Date.now() - started
}

async function listening(app: App): Promise<void> {
  // The listener starts on the first credential the process resolves.
  void app.backend.credentialCache.get('token', 'warm-up')
  await until(() => app.backend.credentialCache.serving)
}

const whoami = (app: App, headers: Record<string, string>) => request(app.app).get('/api/auth/whoami').set(headers)

describe(`credential cache (${TEST_ENGINE})`, () => {
  let testDb: TestDb
  let counted: ReturnType<typeof countingDb>
  let first: App
  // A second process: its own pool on the same PostgreSQL database (the same PGlite in that pass).
  let otherDb: Db
  let second: App

  beforeAll(async () => {
    testDb = await createTestDb()
    counted = countingDb(testDb.db)
    first = createTestApp(counted)
    otherDb = testDb.url ? await createPostgresDb(testDb.url, { max: 3 }) : testDb.db
    second = createTestApp(otherDb)
    await Promise.all([listening(first), listening(second)])
  })

  afterAll(async () => {
    await first.backend.credentialCache.close()
    await second.backend.credentialCache.close()
    if (otherDb !== testDb.db) await otherDb.close()
    await testDb.drop()
  })

  it('resolves a token with one query the first time and none the next', async () => {
    const person = await personWith(testDb.db, ['viewer'])
    const store = first.backend.credentials
    await store.checkAccessToken('lkt_not-a-token') // the bootstrap hash lookup happens once per process
    counted.statements.length = 0
    const resolved = await store.checkAccessToken(person.token)
    expect(resolved).toMatchObject({ principal: { personId: person.id, via: 'access-token', tokenId: person.tokenId } })
    expect(counted.statements).toHaveLength(1)
    counted.statements.length = 0
    expect(await store.checkAccessToken(person.token)).toEqual(resolved)
    expect(counted.statements).toHaveLength(0)
  })

  it('keys the cache by the hash, never the secret', async () => {
    const person = await personWith(testDb.db, ['viewer'])
    await first.backend.credentials.checkAccessToken(person.token)
    expect((await first.backend.credentialCache.get('token', sha256(person.token)))?.personId).toBe(person.id)
    expect(await first.backend.credentialCache.get('token', person.token)).toBeUndefined()
  })

  it('refuses a token deleted through the API on the very next call, in both processes', async () => {
    const admin = await personWith(testDb.db, ['admin'])
    const person = await personWith(testDb.db, ['viewer'])
    expect((await whoami(first, person.headers)).status).toBe(200)
    expect((await whoami(second, person.headers)).status).toBe(200)
    const deleted = await request(first.app).delete(`/api/auth/token/${person.tokenId}`).set(admin.headers)
    expect(deleted.status).toBeLessThan(300)
    expect((await whoami(first, person.headers)).status).toBe(401)
    const elapsed = await until(async () => (await whoami(second, person.headers)).status === 401, 1000)
    expect(elapsed).toBeLessThan(1000)
  })

  it('refuses a token deleted with plain SQL in this process on the very next call', async () => {
    const person = await personWith(testDb.db, ['viewer'])
    expect((await whoami(first, person.headers)).status).toBe(200)
    expect((await whoami(first, person.headers)).status).toBe(200)
    // Through the app's own pool: the cache waits for this write's notice before serving.
    await counted.query('DELETE FROM access_tokens WHERE id = $1', [person.tokenId])
    expect((await whoami(first, person.headers)).status).toBe(401)
  })

  it('refuses a token deleted with plain SQL by another process within one notification', async () => {
    const person = await personWith(testDb.db, ['viewer'])
    expect((await whoami(first, person.headers)).status).toBe(200)
    expect((await whoami(first, person.headers)).status).toBe(200)
    await otherDb.query('DELETE FROM access_tokens WHERE id = $1', [person.tokenId])
    // PGlite hands the notice over with the statement's result; PostgreSQL sends it to the
    // listening connection at commit, one round trip away.
    if (TEST_ENGINE === 'pglite') expect((await whoami(first, person.headers)).status).toBe(401)
    expect(await until(async () => (await whoami(first, person.headers)).status === 401, 1000)).toBeLessThan(1000)
  })

  it('serves a session or token again from memory after a write that revokes nothing', async () => {
    const person = await personWith(testDb.db, ['viewer'])
    const store = first.backend.credentials
    await store.checkAccessToken(person.token)
    await counted.query(`UPDATE people SET properties = '{}'::jsonb WHERE id = $1`, [person.id])
    counted.statements.length = 0
    expect(await store.checkAccessToken(person.token)).toMatchObject({ principal: { personId: person.id } })
    expect(counted.statements).toHaveLength(0)
  })

  it('drops a person’s credentials when the person is deactivated or deleted elsewhere', async () => {
    const person = await personWith(testDb.db, ['viewer'])
    expect((await whoami(first, person.headers)).status).toBe(200)
    await otherDb.query('UPDATE people SET deleted_at = now() WHERE id = $1', [person.id])
    await until(async () => (await whoami(first, person.headers)).status === 401, 1000)
  })

  it('signs a console session out of every process', async () => {
    const person = await personWith(testDb.db, ['viewer'])
    const login = await request(first.app).post('/api/auth/login').set(person.headers)
    expect(login.status).toBe(200)
    const cookie = String(login.headers['set-cookie']).split(';')[0]!
    expect((await whoami(first, { Cookie: cookie })).status).toBe(200)
    expect((await whoami(second, { Cookie: cookie })).status).toBe(200)
    counted.statements.length = 0
    const sessionId = cookie.slice(cookie.indexOf('=') + 1)
    expect(await first.backend.credentials.resolveSession(sessionId)).toMatchObject({ personId: person.id, via: 'session' })
    expect(counted.statements).toHaveLength(0)

    const logout = await request(second.app).post('/api/auth/logout').set('Cookie', cookie).set('Sec-Fetch-Site', 'same-origin')
    expect(logout.status).toBe(200)
    expect((await whoami(second, { Cookie: cookie })).status).toBe(401)
    const elapsed = await until(async () => (await whoami(first, { Cookie: cookie })).status === 401, 1000)
    expect(elapsed).toBeLessThan(1000)
  })

  it('never serves an identity-service session from memory past the session’s own expiry', async () => {
    const person = await personWith(testDb.db, ['viewer'])
    const lookups: string[] = []
    let expiresAt = Date.now() + 300
    const resolve = sessionCookieResolver(
      testDb.db,
      'ory_kratos_session',
      async (value) => {
        lookups.push(value)
        return { personId: person.id, name: 'Brief Visit', expiresAt }
      },
      'kratos-session',
      first.backend.credentialCache,
    )
    const req = { headers: { cookie: 'ory_kratos_session=short-lived' } } as Parameters<typeof resolve>[0]
    expect(await resolve(req)).toMatchObject({ personId: person.id })
    expect(await resolve(req)).toMatchObject({ personId: person.id })
    expect(lookups).toHaveLength(1)
    await new Promise((resolve) => setTimeout(resolve, Math.max(0, expiresAt - Date.now()) + 20))
    expiresAt = Date.now() + 60_000
    expect(await resolve(req)).toMatchObject({ personId: person.id })
    expect(lookups).toHaveLength(2)
  })

  it.runIf(TEST_ENGINE === 'postgres')('stops serving from memory while its listener is cut off, and resumes once it is back', async () => {
    const person = await personWith(testDb.db, ['viewer'])
    const store = first.backend.credentials
    await store.checkAccessToken(person.token)
    await otherDb.query(
      `SELECT pg_terminate_backend(pid) FROM pg_stat_activity
        WHERE application_name = 'lookout-listen' AND datname = current_database()`,
    )
    await until(() => !first.backend.credentialCache.serving)
    counted.statements.length = 0
    await store.checkAccessToken(person.token)
    await store.checkAccessToken(person.token)
    expect(counted.statements).toHaveLength(2)
    await until(() => first.backend.credentialCache.serving, 3000)
    await store.checkAccessToken(person.token)
    counted.statements.length = 0
    await store.checkAccessToken(person.token)
    expect(counted.statements).toHaveLength(0)
  })
})
