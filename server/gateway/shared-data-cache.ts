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
 * Freshness: an entry lives `ttlMs` at most, and a write through this process's /api that can
 * change a page's shell (watchShellWrites: roles, flags, views, sign-out) or a notice on
 * `lookout_shared_data` (any write to those tables, by any process: migration 0230) empties
 * the whole cache. Emptying everything is deliberate: writes are rare next to page loads, one write may
 * change what every session sees (a role, a flag), and a rule per path would be one more place
 * to forget. A failed load is never kept.
 *
 * Hand-written rather than lru-cache: the Map's insertion order gives the eviction, and the
 * cache needs "store the promise, drop it on failure or invalidation", which is the whole code.
 */
export type SharedDataCache = {
  /** `load()`'s promise, shared with every caller asking for the same key within the TTL. */
  remember<T>(key: string, load: () => Promise<T>): Promise<T>
  /** Forgets everything (a write happened somewhere). */
  invalidate(): void
  readonly size: number
}

type Entry = { value: Promise<unknown>; freshUntil: number }

export function createSharedDataCache(options: { ttlMs: number; maxEntries: number; now?: () => number }): SharedDataCache {
  const { ttlMs, maxEntries } = options
  const now = options.now ?? Date.now
  const entries = new Map<string, Entry>()
  const enabled = ttlMs > 0 && maxEntries > 0

  return {
    get size() {
      return entries.size
    },
    remember<T>(key: string, load: () => Promise<T>): Promise<T> {
      if (!enabled) return load()
      const found = entries.get(key)
      if (found && found.freshUntil > now()) return found.value as Promise<T>
      if (found) entries.delete(key)
      const value = load()
      const entry: Entry = { value, freshUntil: now() + ttlMs }
      entries.set(key, entry)
      value.catch(() => {
        if (entries.get(key) === entry) entries.delete(key)
      })
      while (entries.size > maxEntries) {
        const oldest = entries.keys().next().value as string
        entries.delete(oldest)
      }
      return value
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
