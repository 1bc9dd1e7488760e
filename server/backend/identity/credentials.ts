import { createHash, randomBytes, timingSafeEqual } from 'node:crypto'
import type { NextFunction, Request, Response } from 'express'
import type { Db } from '#server/db/client.ts'

/** Who is calling: resolved once per request and kept on `res.locals.principal`. */
export type Principal = {
  personId: string
  name: string
  email?: string
  roles: string[]
  via: 'bootstrap-token' | 'session'
}

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

export function cookieValue(header: string | undefined, name: string): string | undefined {
  if (!header) return undefined
  for (const part of header.split(';')) {
    const eq = part.indexOf('=')
    if (eq > 0 && part.slice(0, eq).trim() === name) return decodeURIComponent(part.slice(eq + 1).trim())
  }
  return undefined
}

export type CredentialStore = {
  /** Generates and records a bootstrap token when none exists; returns it only to the caller that created it. */
  ensureBootstrapToken(): Promise<string | undefined>
  resolveAccessToken(token: string): Promise<Principal | undefined>
  createSession(principal: Principal, meta: { userAgent?: string; ip?: string }): Promise<{ id: string; expiresAt: Date }>
  resolveSession(id: string): Promise<Principal | undefined>
  deleteSession(id: string): Promise<void>
}

export function createCredentialStore(options: {
  db: Db
  bootstrapToken?: string
  sessionTtlHours: number
}): CredentialStore {
  const { db } = options
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

  return {
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
      const hash = sha256(token)
      const hashes = await bootstrapHashes()
      if (hashes.some((candidate) => sameHash(candidate, hash))) return bootstrapPrincipal()
      return undefined
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
      const { rows } = await db.query<{ person_id: string; roles: string[]; name: string; email: string | null }>(
        `SELECT s.person_id, s.roles, p.name, p.email
           FROM lookout.sessions s JOIN people p ON p.id = s.person_id AND p.deleted_at IS NULL
          WHERE s.id_hash = $1 AND s.expires_at > now()`,
        [sha256(id)],
      )
      const row = rows[0]
      if (!row) return undefined
      return { personId: row.person_id, name: row.name, email: row.email ?? undefined, roles: row.roles, via: 'session' }
    },

    async deleteSession(id) {
      await db.query('DELETE FROM lookout.sessions WHERE id_hash = $1', [sha256(id)])
    },
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
export function requireCredentials(store: CredentialStore) {
  return async (req: Request, res: Response, next: NextFunction): Promise<void> => {
    try {
      const token = accessTokenFromHeader(req.headers.authorization)
      let principal: Principal | undefined
      if (token) {
        principal = await store.resolveAccessToken(token)
        if (!principal) {
          res.status(401).json({ error: 'unauthorized', message: 'invalid access token' })
          return
        }
      } else {
        const sessionId = cookieValue(req.headers.cookie, SESSION_COOKIE)
        if (sessionId) principal = await store.resolveSession(sessionId)
      }
      if (principal) res.locals.principal = principal
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

export function principalOf(res: Response): Principal {
  const principal = res.locals.principal as Principal | undefined
  if (!principal) throw new Error('principalOf called on a route without requireCredentials')
  return principal
}
