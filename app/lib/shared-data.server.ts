import { createHash } from 'node:crypto'
import type { AppLoadContext } from '@remix-run/node'
import type { ApiArgs } from './gateway.server.ts'

/**
 * What the layout and the page both need (whoami, properties, sidebar views, the backend's
 * version) is loaded once per browser request and, through the process's shared-data cache
 * (load context), for a few seconds: once per session, or once for every session where every
 * signed-in caller gets the same answer.
 *
 * The per-request memo is keyed by the load context: Remix hands every loader of one request
 * the same context object but its own copy of the Request, so a Request key would not be shared.
 */
const perRequest = new WeakMap<AppLoadContext, Map<string, Promise<unknown>>>()

/** The credentials a call carries (cookies, bearer token, organisation), hashed: never kept as sent. */
export function credentialKey(request: Request): string {
  const hash = createHash('sha256')
  for (const name of ['cookie', 'authorization', 'x-flanksource-scope']) {
    hash.update(request.headers.get(name) ?? '')
    hash.update('\0')
  }
  return hash.digest('base64url')
}

export function sharedPerSession<T>(args: ApiArgs, name: string, load: () => Promise<T>): Promise<T> {
  return sharedOnce(args, name, (cache) => cache.remember(`${name}:${credentialKey(args.request)}`, load), load)
}

/**
 * For what every signed-in caller gets alike (the backend's version, the properties): one entry
 * per organisation (the scope header) instead of one per session. Shared only when it succeeds:
 * a load started by a session the API refuses (an expired cookie) must not sign everyone else
 * out, so a caller that did not start a failed load makes its own.
 */
export function sharedAcrossSessions<T>(args: ApiArgs, name: string, load: () => Promise<T>): Promise<T> {
  return sharedOnce(
    args,
    name,
    (cache) => {
      let started = false
      const shared = cache.remember(`${name}:*:${args.request.headers.get('x-flanksource-scope') ?? ''}`, () => {
        started = true
        return load()
      })
      return started ? shared : shared.catch(() => load())
    },
    load,
  )
}

function sharedOnce<T>({ context }: ApiArgs, name: string, fromCache: (cache: NonNullable<AppLoadContext['sharedData']>) => Promise<T>, load: () => Promise<T>): Promise<T> {
  let memo = perRequest.get(context)
  if (!memo) {
    memo = new Map()
    perRequest.set(context, memo)
  }
  let pending = memo.get(name) as Promise<T> | undefined
  if (!pending) {
    const cache = context.sharedData
    pending = cache ? fromCache(cache) : load()
    memo.set(name, pending)
  }
  // A failure is thrown as a Response (sign-in redirect, 503), and the layout and the page both
  // throw it: each needs its own copy, since Remix reads a thrown Response's body once per loader.
  return pending.catch((error: unknown) => {
    throw error instanceof Response ? error.clone() : error
  })
}
