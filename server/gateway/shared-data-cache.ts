import type { IncomingMessage, ServerResponse } from 'node:http'
import type { Db, NotificationListener } from '#server/db/client.ts'

/** Channel migration 0230's triggers notify when what every page's shell shows may have changed. */
export const SHARED_DATA_CHANNEL = 'lookout_shared_data'

/**
 * What every console page needs besides its own data — the session info (whoami), the
 * properties (feature flags), the sidebar's views and the backend's version — kept for a few
 * seconds per credential, so a page costs its own API calls and not four more.
 *
 * The console reaches it through its load context (`AppLoadContext.sharedData`): the console's
 * server bundle is a separate module graph, so module state there could not be cleared by the
 * gateway. Entries are promises, stored as the load starts, so the layout, the page and
 * concurrent requests of one session share one call.
 *
 * Freshness: an entry is fresh for `ttlMs` (less up to two fifths, at random, so sessions that
 * filled together do not all reload at once); in the `ttlMs` after that, a page gets the kept
 * value while one reload runs behind it. A write through this process's /api that can
 * change a page's shell (watchShellWrites: roles, flags, views, sign-out) or a notice on
 * `lookout_shared_data` (any write to those tables, by any process: migration 0230) empties
 * the whole cache. Emptying everything is deliberate: writes are rare next to page loads, one write may
 * change what every session sees (a role, a flag), and a rule per path would be one more place
 * to forget. A failed load is never kept.
 *
 * Hand-written rather than lru-cache (not a dependency; its fetch() would give the stale window
 * too): the Map's insertion order gives the eviction, and the cache needs "share the promise from
 * the moment the load starts, drop it on failure or invalidation", which lru-cache keeps only
 * once a value has arrived, so a write overlapping a load could leave that load's answer kept.
 */
export type SharedDataCache = {
  /** `load()`'s promise, shared with every caller asking for the same key within the TTL. */
  remember<T>(key: string, load: () => Promise<T>): Promise<T>
  /** Forgets everything (a write happened somewhere). */
  invalidate(): void
  readonly size: number
}

type Entry = { value: Promise<unknown>; freshUntil: number; staleUntil: number; settled: boolean; refreshing: boolean }

/** Share of the TTL taken off at random per entry, so sessions that filled together expire apart. */
const TTL_JITTER = 0.4

export function createSharedDataCache(options: { ttlMs: number; maxEntries: number; now?: () => number; random?: () => number }): SharedDataCache {
  const { ttlMs, maxEntries } = options
  const now = options.now ?? Date.now
  const random = options.random ?? Math.random
  const entries = new Map<string, Entry>()
  const enabled = ttlMs > 0 && maxEntries > 0

  function store(key: string, value: Promise<unknown>): Entry {
    const freshUntil = now() + ttlMs * (1 - TTL_JITTER * random())
    const entry: Entry = { value, freshUntil, staleUntil: freshUntil + ttlMs, settled: false, refreshing: false }
    entries.delete(key)
    entries.set(key, entry)
    value.then(
      () => {
        entry.settled = true
      },
      () => {
        if (entries.get(key) === entry) entries.delete(key)
      },
    )
    while (entries.size > maxEntries) {
      const oldest = entries.keys().next().value as string
      entries.delete(oldest)
    }
    return entry
  }

  return {
    get size() {
      return entries.size
    },
    remember<T>(key: string, load: () => Promise<T>): Promise<T> {
      if (!enabled) return load()
      const found = entries.get(key)
      const at = now()
      // A load still under way is shared even past its TTL: a second one would only race it.
      if (found && (found.freshUntil > at || !found.settled)) return found.value as Promise<T>
      if (found && found.staleUntil > at) {
        // Just expired: this page gets what the entry holds and the next one the reloaded value,
        // so pages never wait for the shell's four calls because a timer ran out (invalidation,
        // which empties the cache, still makes the next page load afresh). The refresh replaces
        // the entry only if nothing emptied the cache meanwhile; a failed refresh leaves the old
        // value until its stale time ends, when a page loads (and reports the failure) itself.
        if (!found.refreshing) {
          found.refreshing = true
          const value = load()
          value.then(
            () => {
              if (entries.get(key) === found) store(key, value)
            },
            () => undefined,
          )
        }
        return found.value as Promise<T>
      }
      return store(key, load()).value as Promise<T>
    },
    invalidate() {
      entries.clear()
    },
  }
}

const SAFE_METHODS = new Set(['GET', 'HEAD', 'OPTIONS'])

/**
 * The API paths whose writes can change a page's shell: sign-in and sign-out, identity flows
 * (a changed name), people, roles and permissions, teams, properties and views. Other writes
 * (Run Now, incidents, agents pushing results) leave the cache alone, so a busy API does not
 * empty it for nothing. Writes on any other path that do touch these tables (an RPC, plain SQL,
 * another process) reach the cache as notices of migration 0230's triggers.
 */
const SHELL_WRITES =
  /^\/api\/(?:auth|\.ory|people|rbac|properties|db\/(?:properties|views|permissions|permission_groups|teams|team_members|people|casbin_rule))(?:[/?]|$)/

const WATCHED = Symbol('lookout.shellWriteWatched')

/**
 * Calls `onWrite` when the answer to an unsafe request on one of those paths starts (the write
 * has committed by then, and the caller cannot have seen the answer yet) and when the request
 * ends however it ends (a caller that went away does not undo a committed write). Entries are
 * stored when their load starts, so a load that overlapped the write is dropped with the rest.
 */
export function watchShellWrites(req: IncomingMessage, res: ServerResponse, onWrite: () => void): void {
  if (SAFE_METHODS.has(req.method ?? 'GET') || !SHELL_WRITES.test(req.url ?? '')) return
  const marked = res as ServerResponse & { [WATCHED]?: true }
  if (marked[WATCHED]) return
  marked[WATCHED] = true
  const writeHead = res.writeHead
  // Node's implicit headers (write/end without writeHead) go through writeHead as well.
  res.writeHead = function (this: ServerResponse, ...args: Parameters<ServerResponse['writeHead']>) {
    onWrite()
    return writeHead.apply(this, args)
  } as ServerResponse['writeHead']
  res.once('close', onWrite)
}

/** Something kept in memory that a write to the tables behind a page's shell makes stale. */
export type ChangeFollower = { invalidate(): void; followChanges?(listening: boolean): void }

/**
 * Empties every follower on each notice of migration 0230's triggers, and whenever the listener
 * (re)connects or drops, since notices sent while it was away are lost; followers that can keep
 * entries longer while every write reaches them (the authorizer) are told whether it is up.
 * Without a listener the followers' own TTLs bound staleness.
 */
export async function invalidateOnNotice(db: Db, ...followers: ChangeFollower[]): Promise<NotificationListener | undefined> {
  if (!db.listen) return undefined
  return db.listen(SHARED_DATA_CHANNEL, {
    onNotify: () => {
      for (const follower of followers) follower.invalidate()
    },
    onState: (up) => {
      for (const follower of followers) {
        if (follower.followChanges) follower.followChanges(up)
        else follower.invalidate()
      }
    },
  })
}
