import { createHash, randomBytes, timingSafeEqual } from 'node:crypto'
import type { NextFunction, Request, Response } from 'express'
import type { Db } from '#server/db/client.ts'
import { cookieValue, httpOnlyCookie } from '#server/cookies.ts'
import type { CredentialCache } from './credential-cache.ts'
import type { CredentialResolver, Principal } from './principal.ts'

export const SESSION_COOKIE = 'lookout_session'
const BOOTSTRAP_SETTING = 'bootstrap_token_sha256'

// Tokens are 256-bit random strings, so a plain SHA-256 is enough to store them safely; slow
// password hashes (argon2) only matter for secrets people choose.
export function sha256(value: string): string {
  return createHash('sha256').update(value).digest('hex')
}

function sameHash(a: string, b: string): boolean {
  const left = Buffer.from(a, 'hex')
  const right = Buffer.from(b, 'hex')
  return left.length === right.length && timingSafeEqual(left, right)
}

/** Prefix of stored access tokens (the bootstrap token uses `lko`). */
export const ACCESS_TOKEN_PREFIX = 'lkt'

export function newSecret(prefix: string): string {
  return `${prefix}_${randomBytes(32).toString('base64url')}`
}

/** Reads `Authorization: Bearer <t>` or `Basic token:<t>` (user name "token", any case). */
export function accessTokenFromHeader(header: string | undefined): string | undefined {
  if (!header) return undefined
  const [scheme, value] = header.trim().split(/\s+/, 2)
  if (!scheme || !value) return undefined
  if (scheme.toLowerCase() === 'bearer') return value
  if (scheme.toLowerCase() === 'basic') {
    const decoded = Buffer.from(value, 'base64').toString('utf8')
    const colon = decoded.indexOf(':')
    if (colon > 0 && decoded.slice(0, colon).toLowerCase() === 'token') return decoded.slice(colon + 1)
  }
  return undefined
}

export type TokenCheck = { principal: Principal } | { problem: 'unknown' | 'expired' }

export type CredentialStore = {
  /** Generates and records a bootstrap token when none exists; returns it only to the caller that created it. */
  ensureBootstrapToken(): Promise<string | undefined>
  resolveAccessToken(token: string): Promise<Principal | undefined>
  /** Like resolveAccessToken, telling an expired token from an unknown one. */
  checkAccessToken(token: string): Promise<TokenCheck>
  createSession(principal: Principal, meta: { userAgent?: string; ip?: string }): Promise<{ id: string; expiresAt: Date }>
  resolveSession(id: string): Promise<Principal | undefined>
  deleteSession(id: string): Promise<void>
  /** Signs a person out everywhere (soft delete, deactivation). */
  deleteSessionsOf(personId: string): Promise<void>
  /** The instance's own admin (the System person), for single-user mode. */
  localAdmin(): Promise<Principal>
  /** Drops what this process remembers of a token whose row was just deleted here. */
  forgetToken(tokenId: string): void
}

// Auto-renewing tokens used within this window of their expiry are extended (http-api.md §1.5).
const RENEW_WINDOW_MS = 15 * 86_400_000
const RENEW_BY_MS = 30 * 86_400_000

export function createCredentialStore(options: {
  db: Db
  bootstrapToken?: string
  sessionTtlHours: number
  /** Resolved credentials kept in memory for a few seconds (credential-cache.ts). */
  cache?: CredentialCache
}): CredentialStore {
  const { db, cache } = options
  const envHash = options.bootstrapToken ? sha256(options.bootstrapToken) : undefined
  let storedHash: string | undefined | null = null
  let adminPrincipal: Principal | undefined

  async function bootstrapHashes(): Promise<string[]> {
    if (storedHash === null) {
      const { rows } = await db.query<{ value: string }>('SELECT value FROM lookout.settings WHERE key = $1', [
        BOOTSTRAP_SETTING,
      ])
      storedHash = rows[0]?.value
    }
    return [envHash, storedHash].filter((hash): hash is string => Boolean(hash))
  }

  // Until sign-in with identities lands, the bootstrap token acts as the platform's System person.
  async function bootstrapPrincipal(): Promise<Principal> {
    if (adminPrincipal) return adminPrincipal
    const { rows } = await db.query<{ id: string; name: string; email: string | null }>(
      `SELECT id, name, email FROM people WHERE name = 'System' AND deleted_at IS NULL ORDER BY created_at LIMIT 1`,
    )
    const person = rows[0]
    if (!person) throw new Error('the System person is missing: migrations did not run')
    adminPrincipal = {
      personId: person.id,
      name: person.name,
      email: person.email ?? undefined,
      roles: ['admin'],
      via: 'bootstrap-token',
    }
    return adminPrincipal
  }

  async function checkAccessToken(token: string): Promise<TokenCheck> {
    const hash = sha256(token)
    const hashes = await bootstrapHashes()
    if (hashes.some((candidate) => sameHash(candidate, hash))) return { principal: await bootstrapPrincipal() }
    const cached = await cache?.get('token', hash)
    if (cached) return { principal: cached }
    const ticket = cache?.ticket() ?? 0
    // The hash is the lookup key (unique index): a deleted row is rejected on the next request.
    const { rows } = await db.query<{
      id: string
      person_id: string
      expires_at: Date | string | null
      auto_renew: boolean
      name: string
      email: string | null
      type: string | null
    }>(
      `SELECT t.id, t.person_id, t.expires_at, t.auto_renew, p.name, p.email, p.type
         FROM access_tokens t
         JOIN people p ON p.id = t.person_id AND p.deleted_at IS NULL
        WHERE t.value = $1
          AND NOT EXISTS (SELECT 1 FROM lookout.inactive_people i WHERE i.person_id = t.person_id)`,
      [hash],
    )
    const row = rows[0]
    if (!row) return { problem: 'unknown' }
    let validUntil: number | undefined
    if (row.expires_at) {
      let expiresAt = new Date(row.expires_at).getTime()
      if (expiresAt <= Date.now()) return { problem: 'expired' }
      if (row.auto_renew && expiresAt - Date.now() < RENEW_WINDOW_MS) {
        expiresAt += RENEW_BY_MS
        await db.query('UPDATE access_tokens SET expires_at = $2 WHERE id = $1', [row.id, new Date(expiresAt)])
      }
      validUntil = expiresAt
    }
    const principal: Principal = {
      personId: row.person_id,
      name: row.name,
      email: row.email ?? undefined,
      roles: [],
      via: 'access-token',
      tokenId: row.id,
      ...(row.type ? { personType: row.type } : {}),
    }
    cache?.set('token', hash, principal, ticket, validUntil)
    return { principal }
  }

  return {
    localAdmin: async () => ({ ...(await bootstrapPrincipal()), via: 'session-disabled' }),
    async ensureBootstrapToken() {
      if (envHash) return undefined
      if ((await bootstrapHashes()).length > 0) return undefined
      const token = newSecret('lko')
      const { rowCount } = await db.query(
        'INSERT INTO lookout.settings (key, value) VALUES ($1, $2) ON CONFLICT (key) DO NOTHING',
        [BOOTSTRAP_SETTING, sha256(token)],
      )
      storedHash = null
      // Another process sharing the database may have won the race; only the winner prints.
      return rowCount === 1 ? token : undefined
    },

    async resolveAccessToken(token) {
      const check = await checkAccessToken(token)
      return 'principal' in check ? check.principal : undefined
    },

    checkAccessToken,

    forgetToken(tokenId) {
      cache?.forgetToken(tokenId)
    },

    async createSession(principal, meta) {
      const id = randomBytes(32).toString('base64url')
      const expiresAt = new Date(Date.now() + options.sessionTtlHours * 3_600_000)
      await db.query(
        `INSERT INTO lookout.sessions (id_hash, person_id, roles, expires_at, user_agent, ip)
         VALUES ($1, $2, $3, $4, $5, $6)`,
        [sha256(id), principal.personId, principal.roles, expiresAt, meta.userAgent?.slice(0, 512) ?? null, meta.ip ?? null],
      )
      return { id, expiresAt }
    },

    async resolveSession(id) {
      const hash = sha256(id)
      const cached = await cache?.get('session', hash)
      if (cached) return cached
      const ticket = cache?.ticket() ?? 0
      const { rows } = await db.query<{
        person_id: string
        roles: string[]
        name: string
        email: string | null
        type: string | null
        expires_at: Date | string
      }>(
        `SELECT s.person_id, s.roles, p.name, p.email, p.type, s.expires_at
           FROM lookout.sessions s JOIN people p ON p.id = s.person_id AND p.deleted_at IS NULL
          WHERE s.id_hash = $1 AND s.expires_at > now()
            AND NOT EXISTS (SELECT 1 FROM lookout.inactive_people i WHERE i.person_id = s.person_id)`,
        [hash],
      )
      const row = rows[0]
      if (!row) return undefined
      // Rolling expiry: a session in use with less than half its lifetime left runs again in full.
      const ttlSeconds = options.sessionTtlHours * 3600
      const { rowCount: renewed } = await db.query(
        `UPDATE lookout.sessions SET expires_at = now() + make_interval(secs => $2), last_seen_at = now()
          WHERE id_hash = $1 AND expires_at < now() + make_interval(secs => $2 / 2)`,
        [hash, ttlSeconds],
      )
      const principal: Principal = {
        personId: row.person_id,
        name: row.name,
        email: row.email ?? undefined,
        roles: row.roles,
        via: 'session',
        ...(row.type ? { personType: row.type } : {}),
      }
      // A renewed session runs a full lifetime from now; either way it outlives the cache TTL.
      cache?.set('session', hash, principal, ticket, renewed ? undefined : new Date(row.expires_at).getTime())
      return renewed ? { ...principal, renew: { cookie: SESSION_COOKIE, value: id, maxAgeSeconds: ttlSeconds } } : principal
    },

    async deleteSession(id) {
      const hash = sha256(id)
      cache?.forget('session', hash)
      await db.query('DELETE FROM lookout.sessions WHERE id_hash = $1', [hash])
    },

    async deleteSessionsOf(personId) {
      cache?.forgetPerson(personId)
      await db.query('DELETE FROM lookout.sessions WHERE person_id = $1', [personId])
    },
  }
}

/**
 * A resolver for a session cookie kept by another service (the Kratos-compatible identity
 * service: cookie `ory_kratos_session`, people rows share the identity's id). `lookup` returns
 * the person behind a cookie value, or undefined for unknown/expired/inactive sessions.
 */
export function sessionCookieResolver(
  db: Db,
  cookieName: string,
  lookup: (
    value: string,
  ) => Promise<{ personId: string; name: string; email?: string; renewedForSeconds?: number; expiresAt?: number } | undefined>,
  via: Principal['via'] = 'kratos-session',
  cache?: CredentialCache,
): CredentialResolver {
  return async (req) => {
    const value = cookieValue(req.headers.cookie, cookieName)
    if (!value) return undefined
    // The identity service stores the SHA-256 of the trimmed token (kratos/sessions.ts).
    const hash = cache ? sha256(value.trim()) : ''
    const cached = await cache?.get('kratos', hash)
    if (cached) return cached
    const ticket = cache?.ticket() ?? 0
    const person = await lookup(value)
    if (!person) return undefined
    // Soft-deleted or deactivated people (DELETE /people, /people/update active:false) are
    // refused here too, whatever the other service's session table says.
    const { rows } = await db.query<{ type: string | null }>(
      `SELECT p.type FROM people p
        WHERE p.id = $1 AND p.deleted_at IS NULL
          AND NOT EXISTS (SELECT 1 FROM lookout.inactive_people i WHERE i.person_id = p.id)`,
      [person.personId],
    )
    if (!rows[0]) return undefined
    const principal: Principal = {
      personId: person.personId,
      name: person.name,
      ...(person.email ? { email: person.email } : {}),
      roles: [],
      via,
      ...(rows[0].type ? { personType: rows[0].type } : {}),
    }
    // A cached session must not outlive its own expiry; logout and revocation notify.
    cache?.set('kratos', hash, principal, ticket, person.expiresAt)
    return person.renewedForSeconds
      ? { ...principal, renew: { cookie: cookieName, value, maxAgeSeconds: person.renewedForSeconds } }
      : principal
  }
}

/** Not a row in people: the identity a credential-less kiosk reads as (LOOKOUT_PUBLIC_HEALTH). */
export const ANONYMOUS_PERSON_ID = 'a0000000-0000-4000-8000-000000000000'

/** What the public wall boards read (/view/health, /view/topology/{id}): the check summary and the component tree, nothing else. */
const PUBLIC_HEALTH_READS = new Set(['/canary/api/summary', '/canary/api/topology'])

/**
 * The public wall board (LOOKOUT_PUBLIC_HEALTH=true): a request that carries no credential at
 * all may GET the check summary as an anonymous principal with the implied role `guest`. A
 * request with any credential, valid or not, is not anonymous and is judged on that credential;
 * every other path without one stays 401, so guest's broad read never reaches /db.
 */
export function publicHealthResolver(enabled: boolean): CredentialResolver {
  return async (req) => {
    if (!enabled || (req.method !== 'GET' && req.method !== 'HEAD')) return undefined
    if (!PUBLIC_HEALTH_READS.has(req.path)) return undefined
    if (req.headers.authorization) return undefined
    const cookies = req.headers.cookie
    if (cookieValue(cookies, SESSION_COOKIE) || cookieValue(cookies, 'ory_kratos_session')) return undefined
    return { personId: ANONYMOUS_PERSON_ID, name: 'Anonymous', roles: ['guest'], via: 'anonymous' }
  }
}

/**
 * SESSION_DISABLED=true, the spec's single-user local mode: a caller without credentials acts as
 * the instance's admin. Credentials that are sent are still checked, so a wrong token stays 401.
 */
export function sessionDisabledResolver(store: Pick<CredentialStore, 'localAdmin'>): CredentialResolver {
  return async (req) => {
    if (req.headers.authorization) return undefined
    return store.localAdmin()
  }
}

/** Paths the platform serves without credentials (http-api.md §1.5). */
const PUBLIC_PATHS = new Set(['/health', '/auth/login', '/auth/logout'])
const PUBLIC_PREFIXES = ['/kratos/', '/canary/webhook/', '/playbook/webhook/', '/.well-known/']

export function isPublicPath(path: string): boolean {
  return PUBLIC_PATHS.has(path) || PUBLIC_PREFIXES.some((prefix) => path.startsWith(prefix))
}

/**
 * Resolves the caller from a bearer/basic access token or the session cookie. Every other
 * path answers 401 JSON without credentials: the console turns that into a sign-in redirect.
 */
export function requireCredentials(store: CredentialStore, options: { resolvers?: CredentialResolver[] } = {}) {
  const resolvers = options.resolvers ?? []
  return async (req: Request, res: Response, next: NextFunction): Promise<void> => {
    try {
      const token = accessTokenFromHeader(req.headers.authorization)
      let principal: Principal | undefined
      if (token) {
        const check = await store.checkAccessToken(token)
        if (!('principal' in check)) {
          const message = check.problem === 'expired' ? 'access token has expired' : 'invalid access token'
          res.status(401).json({ error: 'unauthorized', message })
          return
        }
        principal = check.principal
      } else {
        for (const resolve of resolvers) {
          principal = await resolve(req)
          if (principal) break
        }
        const sessionId = principal ? undefined : cookieValue(req.headers.cookie, SESSION_COOKIE)
        if (sessionId) principal = await store.resolveSession(sessionId)
      }
      if (principal) res.locals.principal = principal
      if (principal?.renew) {
        const { cookie, value, maxAgeSeconds } = principal.renew
        res.append('Set-Cookie', httpOnlyCookie(cookie, value, { maxAgeSeconds, secure: req.secure }))
      }
      if (!principal && !isPublicPath(req.path)) {
        res.status(401).json({ error: 'unauthorized', message: 'Not logged in' })
        return
      }
      next()
    } catch (error) {
      next(error)
    }
  }
}
