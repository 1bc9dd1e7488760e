import { createHash, randomBytes } from 'node:crypto'
import type { Db, Queryable } from '#server/db/client.ts'
import { findIdentity, identityJson, secondFactorsOf, type IdentityRow } from './identities.ts'

export const SESSION_COOKIE = 'ory_kratos_session'

export type AuthMethod = { method: string; aal: 'aal1' | 'aal2'; completed_at: string }

export type SessionRow = {
  id: string
  identity_id: string
  aal: 'aal1' | 'aal2'
  authentication_methods: AuthMethod[]
  authenticated_at: string | Date
  issued_at: string | Date
  expires_at: string | Date
  active: boolean
  ip_address: string | null
  user_agent: string | null
  logout_token_hash: string | null
}

export function tokenHash(token: string): string {
  return createHash('sha256').update(token).digest('hex')
}

function newToken(prefix: string): string {
  return `${prefix}_${randomBytes(32).toString('base64url')}`
}

/** AAL from the completed factors: a first and a second factor make aal2. */
export function aalOf(methods: AuthMethod[]): 'aal1' | 'aal2' {
  const first = methods.some((m) => m.aal === 'aal1')
  const second = methods.some((m) => m.aal === 'aal2')
  return first && second ? 'aal2' : 'aal1'
}

/** A new session (new id and token): sign-in never reuses an earlier session, against fixation. */
export async function createSession(
  db: Queryable,
  input: { identityId: string; method: string; lifespanSeconds: number; ip?: string; userAgent?: string },
): Promise<{ session: SessionRow; token: string }> {
  const token = newToken('ory_st')
  const methods: AuthMethod[] = [{ method: input.method, aal: 'aal1', completed_at: new Date().toISOString() }]
  const { rows } = await db.query<SessionRow>(
    `INSERT INTO identity.sessions (token_hash, identity_id, aal, authentication_methods, expires_at, ip_address, user_agent)
     VALUES ($1, $2, 'aal1', $3, now() + make_interval(secs => $4), $5, $6) RETURNING *`,
    [tokenHash(token), input.identityId, JSON.stringify(methods), input.lifespanSeconds, input.ip ?? null, input.userAgent ?? null],
  )
  await db.query('UPDATE public.people SET last_login = now() WHERE id = $1', [input.identityId])
  const session = rows[0]
  if (!session) throw new Error('session insert returned no row')
  return { session, token }
}

/**
 * Adds a completed factor to an existing session (aal2 step-up, refresh, enrolment) and rotates
 * its token, so a token captured before the step-up is worthless afterwards.
 */
export async function addAuthenticationMethod(
  db: Queryable,
  sessionId: string,
  method: { method: string; aal: 'aal1' | 'aal2' },
  options: { rotate: boolean; reauthenticated: boolean },
): Promise<{ session: SessionRow; token?: string }> {
  const { rows: current } = await db.query<SessionRow>('SELECT * FROM identity.sessions WHERE id = $1', [sessionId])
  const existing = current[0]
  if (!existing) throw new Error('session not found')
  const methods = [...existing.authentication_methods, { ...method, completed_at: new Date().toISOString() }]
  const token = options.rotate ? newToken('ory_st') : undefined
  const { rows } = await db.query<SessionRow>(
    `UPDATE identity.sessions
        SET authentication_methods = $2, aal = $3,
            authenticated_at = CASE WHEN $4 THEN now() ELSE authenticated_at END,
            token_hash = coalesce($5, token_hash)
      WHERE id = $1 RETURNING *`,
    [sessionId, JSON.stringify(methods), aalOf(methods), options.reauthenticated, token ? tokenHash(token) : null],
  )
  const session = rows[0]
  if (!session) throw new Error('session vanished')
  return { session, token }
}

export async function findSessionByToken(db: Queryable, token: string): Promise<SessionRow | undefined> {
  if (!token) return undefined
  const { rows } = await db.query<SessionRow>(
    'SELECT * FROM identity.sessions WHERE token_hash = $1 AND active AND expires_at > now()',
    [tokenHash(token)],
  )
  return rows[0]
}

export async function revokeSession(db: Queryable, sessionId: string): Promise<void> {
  await db.query('UPDATE identity.sessions SET active = false, logout_token_hash = NULL WHERE id = $1', [sessionId])
}

export async function issueLogoutToken(db: Queryable, sessionId: string): Promise<string> {
  const token = newToken('ory_lo')
  await db.query('UPDATE identity.sessions SET logout_token_hash = $2 WHERE id = $1', [sessionId, tokenHash(token)])
  return token
}

/** Whether the session has the AAL the identity can reach (Kratos' `highest_available`). */
export async function meetsHighestAvailable(db: Queryable, session: SessionRow): Promise<boolean> {
  if (session.aal === 'aal2') return true
  return (await secondFactorsOf(db, session.identity_id)).size === 0
}

const iso = (value: string | Date) => new Date(value).toISOString()

export async function sessionJson(db: Queryable, session: SessionRow, identity: IdentityRow, schemaUrl: string): Promise<Record<string, unknown>> {
  return {
    id: session.id,
    active: session.active,
    expires_at: iso(session.expires_at),
    authenticated_at: iso(session.authenticated_at),
    authenticator_assurance_level: session.aal,
    authentication_methods: session.authentication_methods,
    issued_at: iso(session.issued_at),
    identity: await identityJson(db, identity, schemaUrl),
    devices: [{ id: session.id, ip_address: session.ip_address ?? '', user_agent: session.user_agent ?? '', location: '' }],
  }
}

/**
 * Resolves a session cookie value or session token for the backend's credentials middleware.
 * Returns undefined for unknown, revoked or expired sessions and for inactive identities.
 */
/**
 * `rollingLifespanSeconds`: sessions in active use are extended — once less than half of that
 * lifespan is left, the session runs again for the whole lifespan (`renewedForSeconds` tells the
 * caller to send the cookie again with the new lifetime).
 */
export async function resolveKratosSession(
  db: Db,
  cookieOrToken: string,
  options: { rollingLifespanSeconds?: number } = {},
): Promise<
  | {
      sessionId: string
      identityId: string
      aal: 'aal1' | 'aal2'
      email?: string
      name: string
      renewedForSeconds?: number
      /** When the session ends (ms since epoch), after any renewal made by this call. */
      expiresAt: number
    }
  | undefined
> {
  const session = await findSessionByToken(db, cookieOrToken.trim())
  if (!session) return undefined
  const identity = await findIdentity(db, session.identity_id)
  if (!identity || identity.state !== 'active') return undefined
  const name = [identity.traits.name?.first, identity.traits.name?.last].filter(Boolean).join(' ') || identity.traits.email
  let renewedForSeconds: number | undefined
  let expiresAt = new Date(session.expires_at).getTime()
  const lifespan = options.rollingLifespanSeconds
  if (lifespan && expiresAt - Date.now() < (lifespan * 1000) / 2) {
    await db.query(`UPDATE identity.sessions SET expires_at = now() + make_interval(secs => $2) WHERE id = $1`, [session.id, lifespan])
    renewedForSeconds = lifespan
    expiresAt = Date.now() + lifespan * 1000
  }
  return { sessionId: session.id, identityId: identity.id, aal: session.aal, email: identity.traits.email, name, renewedForSeconds, expiresAt }
}
