import http from 'node:http'
import type { AddressInfo } from 'node:net'
import type { AppLoadContext } from '@remix-run/node'
import { afterAll, beforeAll, beforeEach, describe, expect, it } from 'vitest'
import { loader as consoleLayoutLoader } from '#app/routes/_console.tsx'
import { loader as usersLoader } from '#app/routes/_console.settings.users.tsx'
import { getProperties } from '#app/lib/session.server.ts'
import { listPeople } from '#app/lib/incidents.server.ts'
import type { Db } from '#server/db/client.ts'
import { createPostgresDb } from '#server/db/client.ts'
import { createSharedDataCache, invalidateOnNotice, type SharedDataCache } from '#server/gateway/shared-data-cache.ts'
import { createTestApp } from '#tests/support/test-app.ts'
import { createTestDb, TEST_ENGINE, type TestDb } from '#tests/support/test-db.ts'
import { personWith } from '../rbac/rbac-fixture.ts'

async function until(condition: () => boolean, timeoutMs = 2000): Promise<void> {
  const started = Date.now()
  while (!condition()) {
    if (Date.now() - started > timeoutMs) throw new Error(`not within ${timeoutMs} ms`)
    await new Promise((resolve) => setTimeout(resolve, 5))
  }
}

describe('shared-data cache', () => {
  it('shares one load between concurrent callers and keeps it for the TTL only', async () => {
    let clock = 0
    const cache = createSharedDataCache({ ttlMs: 1000, maxEntries: 10, now: () => clock, random: () => 0 })
    let loads = 0
    const load = async () => ++loads
    expect(await Promise.all([cache.remember('a', load), cache.remember('a', load)])).toEqual([1, 1])
    clock = 999
    expect(await cache.remember('a', load)).toBe(1)
    // Past the TTL by more than one more TTL: the page waits for a new load.
    clock = 2000
    expect(await cache.remember('a', load)).toBe(2)
    cache.invalidate()
    expect(await cache.remember('a', load)).toBe(3)
  })

  it('answers a just-expired entry at once while one reload runs, and keeps the reloaded value', async () => {
    let clock = 0
    const cache = createSharedDataCache({ ttlMs: 1000, maxEntries: 10, now: () => clock, random: () => 0 })
    let loads = 0
    let release: () => void = () => undefined
    const slowLoad = () => new Promise<number>((resolve) => (release = () => resolve(++loads)))
    const first = cache.remember('a', slowLoad)
    release()
    expect(await first).toBe(1)
    clock = 1500
    // Two pages in the stale window: both get the kept value, and only one reload starts.
    expect(await cache.remember('a', slowLoad)).toBe(1)
    expect(await cache.remember('a', slowLoad)).toBe(1)
    release()
    await until(() => loads === 2)
    await new Promise((resolve) => setTimeout(resolve, 0))
    expect(await cache.remember('a', async () => -1)).toBe(2)
    expect(loads).toBe(2)
  })

  it('drops a reload that a write overtook, and serves nothing stale after an invalidation', async () => {
    let clock = 0
    const cache = createSharedDataCache({ ttlMs: 1000, maxEntries: 10, now: () => clock, random: () => 0 })
    expect(await cache.remember('a', async () => 'before')).toBe('before')
    clock = 1200
    let release: () => void = () => undefined
    expect(await cache.remember('a', () => new Promise<string>((resolve) => (release = () => resolve('reloaded before the write'))))).toBe('before')
    cache.invalidate()
    release()
    await new Promise((resolve) => setTimeout(resolve, 0))
    expect(await cache.remember('a', async () => 'after the write')).toBe('after the write')
  })

  it('keeps serving the old value when a reload fails, until its stale time ends', async () => {
    let clock = 0
    const cache = createSharedDataCache({ ttlMs: 1000, maxEntries: 10, now: () => clock, random: () => 0 })
    expect(await cache.remember('a', async () => 'kept')).toBe('kept')
    clock = 1100
    expect(await cache.remember('a', () => Promise.reject(new Error('down')))).toBe('kept')
    await new Promise((resolve) => setTimeout(resolve, 0))
    clock = 1900
    expect(await cache.remember('a', async () => 'not yet')).toBe('kept')
    clock = 2100
    await expect(cache.remember('a', () => Promise.reject(new Error('still down')))).rejects.toThrow('still down')
  })

  it('spreads expiry: entries filled together expire within the last two fifths of the TTL', async () => {
    let clock = 0
    const draws = [0, 0.5, 0.999]
    const cache = createSharedDataCache({ ttlMs: 1000, maxEntries: 10, now: () => clock, random: () => draws.shift() ?? 0 })
    for (const key of ['a', 'b', 'c']) await cache.remember(key, async () => `${key}1`)
    clock = 700
    const reloaded: string[] = []
    for (const key of ['a', 'b', 'c']) {
      await cache.remember(key, async () => {
        reloaded.push(key)
        return `${key}2`
      })
    }
    // a is fresh for 1000 ms, b for 800 and c for 600.4: only c had expired at 700.
    expect(reloaded).toEqual(['c'])
  })

  it('keeps no failure, and at most maxEntries (oldest go first)', async () => {
    const cache = createSharedDataCache({ ttlMs: 60_000, maxEntries: 2 })
    await expect(cache.remember('x', () => Promise.reject(new Error('down')))).rejects.toThrow('down')
    expect(await cache.remember('x', async () => 'up')).toBe('up')
    await cache.remember('y', async () => 'y')
    await cache.remember('z', async () => 'z')
    expect(cache.size).toBe(2)
    expect(await cache.remember('x', async () => 'reloaded')).toBe('reloaded')
  })

  it('is off with a TTL of 0', async () => {
    const cache = createSharedDataCache({ ttlMs: 0, maxEntries: 10 })
    let loads = 0
    await cache.remember('a', async () => ++loads)
    await cache.remember('a', async () => ++loads)
    expect(loads).toBe(2)
    expect(cache.size).toBe(0)
  })
})

describe(`one pass of shared data per request, kept per session (${TEST_ENGINE})`, () => {
  let testDb: TestDb
  let sharedData: SharedDataCache
  let server: http.Server
  let base: string
  // Another process's pool on the same database (the same PGlite in that pass).
  let otherDb: Db
  const calls: string[] = []
  let admin: Awaited<ReturnType<typeof personWith>>
  let authorizer: ReturnType<typeof createTestApp>['backend']['authorizer']

  beforeAll(async () => {
    testDb = await createTestDb()
    // A long TTL: what empties the cache in these tests is a write, never the clock.
    sharedData = createSharedDataCache({ ttlMs: 60_000, maxEntries: 100 })
    const { app, backend } = createTestApp(testDb.db, {}, { sharedData })
    authorizer = backend.authorizer
    await invalidateOnNotice(testDb.db, sharedData, authorizer)
    server = http.createServer((req, res) => {
      calls.push(`${req.method} ${req.url}`)
      app.listener(req, res)
    })
    await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve))
    base = `http://127.0.0.1:${(server.address() as AddressInfo).port}`
    otherDb = testDb.url ? await createPostgresDb(testDb.url, { max: 2 }) : testDb.db
    admin = await personWith(testDb.db, ['admin'])
  })

  afterAll(async () => {
    await new Promise<void>((resolve) => server.close(() => resolve()))
    if (otherDb !== testDb.db) await otherDb.close()
    await testDb.drop()
  })

  beforeEach(() => {
    sharedData.invalidate()
    calls.length = 0
  })

  /** One browser request as Remix runs it: one context, a Request copy per loader. */
  function pageRequest(headers: Record<string, string>, withCache = true) {
    const context: AppLoadContext = {
      gateway: { gatewayBaseUrl: base, gatewayTimeoutMs: 5000 },
      cspNonce: 'n',
      publicEnv: { frontendVersion: 'test', mode: 'embedded' },
      ...(withCache ? { sharedData } : {}),
    }
    const request = () => new Request('http://console.test/settings/users', { headers })
    return Promise.all([
      consoleLayoutLoader({ request: request(), context, params: {} }),
      usersLoader({ request: request(), context, params: {} }),
    ])
  }

  const shellCalls = () =>
    calls.filter((call) => /^GET \/api\/(auth\/whoami|properties|about|db\/views_summary)/.test(call)).map((call) => call.split('?')[0])

  it('asks for whoami, properties, sidebar views and the version once per request, layout and page together', async () => {
    await pageRequest(admin.headers, false)
    expect(shellCalls().sort()).toEqual(['GET /api/about', 'GET /api/auth/whoami', 'GET /api/db/views_summary', 'GET /api/properties'])
  })

  it('asks for none of them on the next page of the same session, and for its own on another session', async () => {
    const viewer = await personWith(testDb.db, ['viewer'])
    // Creating the viewer empties the cache (migration 0230's notice): let that notice land first.
    await new Promise((resolve) => setTimeout(resolve, 200))
    await pageRequest(admin.headers)
    calls.length = 0
    const [layout] = await pageRequest(admin.headers)
    expect(shellCalls()).toEqual([])
    expect(layout.user.name).toBeTruthy()
    await pageRequest(viewer.headers).catch(() => undefined)
    expect(shellCalls()).toContain('GET /api/auth/whoami')
    // The version and the properties are the same for every signed-in caller: kept once for all.
    expect(shellCalls()).not.toContain('GET /api/properties')
    expect(shellCalls()).not.toContain('GET /api/about')
  })

  it('does not let a refused session sign everyone else out of what sessions share', async () => {
    const context = (): AppLoadContext => ({ gateway: { gatewayBaseUrl: base, gatewayTimeoutMs: 5000 }, cspNonce: 'n', publicEnv: { frontendVersion: 't', mode: 'embedded' }, sharedData })
    const argsOf = (headers: Record<string, string>) => ({ request: new Request('http://console.test/health', { headers }), context: context(), params: {} })
    await testDb.db.query("INSERT INTO properties (name, value) VALUES ('shared.test', 'on') ON CONFLICT (name) DO UPDATE SET value = EXCLUDED.value")
    await new Promise((resolve) => setTimeout(resolve, 200))
    sharedData.invalidate()
    // A session the API refuses starts the shared load, and a valid one asks at the same time.
    const refused = getProperties(argsOf({ authorization: 'Bearer not-a-token-at-all-0123456789' }))
    const valid = getProperties(argsOf(admin.headers))
    await expect(refused).rejects.toBeInstanceOf(Response)
    expect((await valid).map((property) => property.name)).toContain('shared.test')
  })

  it('sees a flag written through the API on the very next page', async () => {
    const args = () => ({
      request: new Request('http://console.test/health', { headers: admin.headers }),
      context: { gateway: { gatewayBaseUrl: base, gatewayTimeoutMs: 5000 }, cspNonce: 'n', publicEnv: { frontendVersion: 't', mode: 'embedded' as const }, sharedData },
      params: {},
    })
    expect((await getProperties(args())).find((p) => p.name === 'cache.test.api')).toBeUndefined()
    const write = await fetch(`${base}/api/db/properties`, {
      method: 'POST',
      headers: { ...admin.headers, 'content-type': 'application/json', prefer: 'return=minimal' },
      body: JSON.stringify({ name: 'cache.test.api', value: 'on' }),
    })
    expect(write.status).toBe(201)
    expect((await getProperties(args())).find((p) => p.name === 'cache.test.api')?.value).toBe('on')
  })

  it('forgets everything when another process writes a flag with plain SQL', async () => {
    await pageRequest(admin.headers)
    expect(sharedData.size).toBeGreaterThan(0)
    await otherDb.query(`INSERT INTO properties (name, value) VALUES ('cache.test.sql', 'on')`)
    await until(() => sharedData.size === 0)
  })

  it('lets the authorizer keep policy for its long TTL, and still see a role granted by another process at once', async () => {
    const person = await personWith(testDb.db, ['viewer'])
    const subject = { personId: person.id, name: 'p', roles: [], via: 'access-token' as const }
    expect(await authorizer.rolesOf(subject)).not.toContain('editor')
    await otherDb.query(`INSERT INTO casbin_rule (ptype, v0, v1) VALUES ('g', $1, 'editor')`, [person.id])
    const started = Date.now()
    while (!(await authorizer.rolesOf(subject)).includes('editor')) {
      // Far inside the 3-second TTL the authorizer would otherwise wait out.
      expect(Date.now() - started).toBeLessThan(2000)
      await new Promise((resolve) => setTimeout(resolve, 10))
    }
  })

  it('keeps the incident forms’ people for the session, and sees a person added through the API on the next page', async () => {
    const args = () => ({
      request: new Request('http://console.test/incidents', { headers: admin.headers }),
      context: { gateway: { gatewayBaseUrl: base, gatewayTimeoutMs: 5000 }, cspNonce: 'n', publicEnv: { frontendVersion: 't', mode: 'embedded' as const }, sharedData },
      params: {},
    })
    const peopleCalls = () => calls.filter((call) => call.startsWith('GET /api/db/people')).length
    const before = await listPeople(args())
    await listPeople(args())
    expect(peopleCalls()).toBe(1)
    const write = await fetch(`${base}/api/db/people`, {
      method: 'POST',
      headers: { ...admin.headers, 'content-type': 'application/json', prefer: 'return=minimal' },
      body: JSON.stringify({ name: 'Aardvark Newcomer', email: 'aardvark.newcomer@example.test' }),
    })
    expect(write.status).toBe(201)
    const after = await listPeople(args())
    expect(peopleCalls()).toBe(2)
    expect(after.map((person) => person.name)).toContain('Aardvark Newcomer')
    expect(after.length).toBe(before.length + 1)
  })

  it('keeps what it holds across writes that cannot change a page’s shell', async () => {
    await pageRequest(admin.headers)
    const held = sharedData.size
    const write = await fetch(`${base}/api/db/incidents`, {
      method: 'POST',
      headers: { ...admin.headers, 'content-type': 'application/json' },
      body: JSON.stringify({ title: 'unrelated write', type: 'availability', severity: 'Low', status: 'open' }),
    })
    expect(write.status).toBeLessThan(500)
    expect(sharedData.size).toBe(held)
  })
})
