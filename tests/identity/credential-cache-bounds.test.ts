import { describe, expect, it } from 'vitest'
import type { Db, NotificationHandlers } from '#server/db/client.ts'
import { createCredentialCache } from '#server/backend/identity/credential-cache.ts'
import type { Principal } from '#server/backend/identity/principal.ts'

/** A database whose only ability is a listener the test drives by hand. */
function fakeDb() {
  let handlers: NotificationHandlers | undefined
  const db = {
    engine: 'pglite',
    async listen(_channel: string, given: NotificationHandlers) {
      handlers = given
      given.onState(true)
      return { settle: async () => undefined, close: async () => undefined }
    },
  } as unknown as Db
  return { db, notify: (payload: string) => handlers!.onNotify(payload), state: (up: boolean) => handlers!.onState(up) }
}

const principal = (personId: string, tokenId?: string): Principal => ({
  personId,
  name: personId,
  roles: [],
  via: tokenId ? 'access-token' : 'session',
  ...(tokenId ? { tokenId } : {}),
})

async function started(cache: ReturnType<typeof createCredentialCache>) {
  await cache.get('token', 'warm-up')
  await new Promise((resolve) => setImmediate(resolve))
  expect(cache.serving).toBe(true)
}

describe('credential cache bounds', () => {
  it('keeps an entry for the TTL at most, and never past the credential’s own expiry', async () => {
    let clock = 1_000_000
    const cache = createCredentialCache({ db: fakeDb().db, ttlMs: 5000, maxEntries: 10, now: () => clock })
    await started(cache)
    cache.set('token', 'a', principal('p1', 't1'), cache.ticket())
    cache.set('token', 'b', principal('p2', 't2'), cache.ticket(), clock + 1000)
    clock += 1500
    expect((await cache.get('token', 'a'))?.personId).toBe('p1')
    expect(await cache.get('token', 'b')).toBeUndefined()
    clock += 4000
    expect(await cache.get('token', 'a')).toBeUndefined()
  })

  it('holds at most maxEntries, dropping the least recently used', async () => {
    const cache = createCredentialCache({ db: fakeDb().db, ttlMs: 5000, maxEntries: 2 })
    await started(cache)
    cache.set('session', 'a', principal('p1'), cache.ticket())
    cache.set('session', 'b', principal('p2'), cache.ticket())
    await cache.get('session', 'a')
    cache.set('session', 'c', principal('p3'), cache.ticket())
    expect(await cache.get('session', 'b')).toBeUndefined()
    expect((await cache.get('session', 'a'))?.personId).toBe('p1')
    expect((await cache.get('session', 'c'))?.personId).toBe('p3')
  })

  it('keeps nothing a revocation overtook, and nothing while its listener is down', async () => {
    const fake = fakeDb()
    const cache = createCredentialCache({ db: fake.db, ttlMs: 5000, maxEntries: 10 })
    await started(cache)
    const ticket = cache.ticket()
    fake.notify('token:a')
    cache.set('token', 'a', principal('p1', 't1'), ticket)
    expect(await cache.get('token', 'a')).toBeUndefined()

    cache.set('token', 'a', principal('p1', 't1'), cache.ticket())
    cache.set('kratos', 'k', principal('p1'), cache.ticket())
    cache.set('session', 's', principal('p2'), cache.ticket())
    fake.notify('person:p1')
    expect(await cache.get('token', 'a')).toBeUndefined()
    expect(await cache.get('kratos', 'k')).toBeUndefined()
    expect((await cache.get('session', 's'))?.personId).toBe('p2')

    fake.state(false)
    expect(cache.serving).toBe(false)
    expect(await cache.get('session', 's')).toBeUndefined()
    cache.set('session', 's', principal('p2'), cache.ticket())
    fake.state(true)
    expect(await cache.get('session', 's')).toBeUndefined()
  })

  it('is off with a TTL of 0', async () => {
    const cache = createCredentialCache({ db: fakeDb().db, ttlMs: 0, maxEntries: 10 })
    cache.set('token', 'a', principal('p1', 't1'), cache.ticket())
    expect(await cache.get('token', 'a')).toBeUndefined()
    expect(cache.serving).toBe(false)
  })
})
