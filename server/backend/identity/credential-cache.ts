import type { Db, NotificationListener } from '#server/db/client.ts'
import type { Principal } from './principal.ts'

/** Channel the revocation triggers of migration 0200 notify on. */
export const CREDENTIAL_CHANNEL = 'lookout_credentials'

// Statements that may revoke a credential (migration 0200's triggers sit on these tables).
const REVOKING_WRITES = /\b(access_tokens|sessions|people|inactive_people|identities)\b/i

/** What a credential is: the prefix of its cache key and of the triggers' payloads. */
export type CredentialKind = 'token' | 'session' | 'kratos'

export type CredentialCache = {
  /** A principal resolved for this credential hash less than the TTL ago and not revoked since. */
  get(kind: CredentialKind, hash: string): Promise<Principal | undefined>
  /**
   * Taken before the database lookup and handed to `set`: a revocation heard between the two
   * (the lookup may have read the row just before it went) makes `set` keep nothing.
   */
  ticket(): number
  /** `validUntil`: the credential's own expiry (ms since epoch), when sooner than the TTL. */
  set(kind: CredentialKind, hash: string, principal: Principal, ticket: number, validUntil?: number): void
  forget(kind: CredentialKind, hash: string): void
  forgetPerson(personId: string): void
  forgetToken(tokenId: string): void
  /** True while entries may be served: the TTL is positive and the revocation listener is up. */
  readonly serving: boolean
  close(): Promise<void>
}

type Entry = { principal: Principal; freshUntil: number }

/**
 * The in-process cache of resolved credentials, keyed by the credential's SHA-256 (never the
 * secret). Entries live `ttlMs` at most. Revocation reaches it two ways: the write paths of this
 * process call `forget*` directly, and the database triggers' NOTIFY reaches every process's
 * listener (after a revoking write of this process's own, a hit first waits for that write's
 * notice: one round trip on the listening connection). While that listener is not connected nothing is served or kept, so a revoked
 * credential is never honoured for longer than the TTL, whatever happens to the connection.
 *
 * Hand-written rather than the lru-cache package: a Map already iterates in insertion order, so
 * re-inserting on hit gives LRU eviction in a few lines, and the person/token sweeps need only
 * that iteration; the lockfile is shared with concurrent work and a new dependency was not worth it.
 */
export function createCredentialCache(options: {
  db: Db
  ttlMs: number
  maxEntries: number
  now?: () => number
}): CredentialCache {
  const { db, ttlMs, maxEntries } = options
  const now = options.now ?? Date.now
  const entries = new Map<string, Entry>()
  let generation = 0
  let listening = false
  let listener: NotificationListener | undefined
  let starting: Promise<void> | undefined
  let closed = false
  const enabled = ttlMs > 0 && maxEntries > 0 && typeof db.listen === 'function'

  const keyOf = (kind: CredentialKind, hash: string) => `${kind}:${hash}`

  function clear() {
    generation++
    entries.clear()
  }

  function forgetWhere(matches: (principal: Principal) => boolean) {
    generation++
    for (const [key, entry] of entries) if (matches(entry.principal)) entries.delete(key)
  }

  function onNotify(payload: string) {
    const colon = payload.indexOf(':')
    const kind = payload.slice(0, colon)
    const value = payload.slice(colon + 1)
    if (kind === 'person') forgetWhere((principal) => principal.personId === value)
    else if (kind === 'token' || kind === 'session' || kind === 'kratos') {
      generation++
      entries.delete(payload)
    } else clear()
  }

  function onState(up: boolean) {
    // Whatever was announced while the listener was down is unknown: start from nothing.
    clear()
    listening = up && !closed
  }

  // Started on first use, so an app that never resolves a credential holds no connection.
  function ensureListening() {
    if (!enabled || starting || closed) return
    starting = db.listen!(CREDENTIAL_CHANNEL, { onNotify, onState }, { writes: REVOKING_WRITES }).then(
      (started) => {
        listener = started
        if (closed) void started.close()
      },
      () => {
        // No listener, no cache: every call goes to the database as before.
        listening = false
      },
    )
  }

  return {
    get serving() {
      return enabled && listening
    },
    async get(kind, hash) {
      ensureListening()
      if (!listening || !listener) return undefined
      const key = keyOf(kind, hash)
      if (!entries.has(key)) return undefined
      // A revoking write this process just made is heard before anything is served.
      try {
        await listener.settle()
      } catch {
        return undefined
      }
      if (!listening) return undefined
      const entry = entries.get(key)
      if (!entry) return undefined
      if (entry.freshUntil <= now()) {
        entries.delete(key)
        return undefined
      }
      entries.delete(key)
      entries.set(key, entry)
      return entry.principal
    },
    ticket: () => generation,
    set(kind, hash, principal, ticket, validUntil) {
      if (!listening || ticket !== generation) return
      const freshUntil = Math.min(now() + ttlMs, validUntil ?? Number.POSITIVE_INFINITY)
      if (freshUntil <= now()) return
      const key = keyOf(kind, hash)
      entries.delete(key)
      entries.set(key, { principal, freshUntil })
      while (entries.size > maxEntries) {
        const oldest = entries.keys().next().value
        if (oldest === undefined) break
        entries.delete(oldest)
      }
    },
    forget(kind, hash) {
      generation++
      entries.delete(keyOf(kind, hash))
    },
    forgetPerson: (personId) => forgetWhere((principal) => principal.personId === personId),
    forgetToken: (tokenId) => forgetWhere((principal) => principal.tokenId === tokenId),
    async close() {
      closed = true
      listening = false
      clear()
      await starting
      await listener?.close()
    },
  }
}
