import type { Db, Queryable } from '#server/db/client.ts'
import { ACCESS_TOKEN_PREFIX, newSecret, sha256 } from '#server/backend/identity/credentials.ts'
import { SCOPABLE_ACTIONS, permissionObjects } from './access-map.ts'

/**
 * Access tokens: 256-bit random secrets shown once. Only their SHA-256 is stored — a slow
 * password hash (argon2id) protects secrets people choose; for uniformly random 256-bit
 * values a single SHA-256 is already infeasible to invert, and it keeps the per-request
 * lookup a plain indexed equality.
 */

export type ScopeEntry = { subject?: string; object: string; action: string }

export class TokenError extends Error {
  constructor(
    readonly status: 400 | 403 | 404 | 409,
    message: string,
  ) {
    super(message)
  }
}

const DEFAULT_EXPIRY_MS = 90 * 86_400_000
const UNIT_MS: Record<string, number> = {
  ns: 1e-6,
  us: 1e-3,
  µs: 1e-3,
  ms: 1,
  s: 1000,
  m: 60_000,
  h: 3_600_000,
  d: 86_400_000,
  w: 7 * 86_400_000,
  y: 365 * 86_400_000,
}

/**
 * `never` → no expiry; empty → the instance default (property `access_token.default_expiry`,
 * else 90 days); otherwise a duration such as `30d`, `12h`, `1h30m`.
 */
export function parseExpiry(expiry: string | undefined, defaultDuration?: string): { ms: number | null } {
  const value = (expiry ?? '').trim()
  if (value.toLowerCase() === 'never') return { ms: null }
  if (value === '') {
    if (defaultDuration) {
      try {
        return parseExpiry(defaultDuration)
      } catch {
        return { ms: DEFAULT_EXPIRY_MS }
      }
    }
    return { ms: DEFAULT_EXPIRY_MS }
  }
  const pattern = /(\d+(?:\.\d+)?)(ns|us|µs|ms|s|m|h|d|w|y)/gy
  let total = 0
  let consumed = 0
  for (let match = pattern.exec(value); match; match = pattern.exec(value)) {
    total += Number(match[1]) * UNIT_MS[match[2]!]!
    consumed = pattern.lastIndex
  }
  if (consumed !== value.length || total <= 0) {
    throw new TokenError(400, `error parsing expiry[${value}]: use a duration such as 30d, 12h or "never"`)
  }
  return { ms: total }
}

const SCOPE_ACTIONS = new Set<string>([...SCOPABLE_ACTIONS, '*', 'playbook:*', 'mcp:*'])

export function validateScope(scope: unknown): ScopeEntry[] {
  if (scope === undefined || scope === null) return []
  if (!Array.isArray(scope)) throw new TokenError(400, 'scope must be a list of {object, action}')
  const objects = new Set(permissionObjects())
  return scope.map((entry, index) => {
    if (!entry || typeof entry !== 'object') throw new TokenError(400, `scope[${index}] must be an object`)
    const { object, action, subject } = entry as Record<string, unknown>
    if (typeof object !== 'string' || !objects.has(object)) throw new TokenError(400, `scope[${index}].object ${JSON.stringify(object)} is not a known object`)
    if (typeof action !== 'string' || !SCOPE_ACTIONS.has(action)) throw new TokenError(400, `scope[${index}].action ${JSON.stringify(action)} is not a known action`)
    return { object, action, ...(typeof subject === 'string' ? { subject } : {}) }
  })
}

/** For a scoped token: per object, the actions the scope leaves out (all of them for objects it does not name). */
export function scopeDenials(scope: ScopeEntry[]): { object: string; actions: string[] }[] {
  const denials: { object: string; actions: string[] }[] = []
  for (const object of permissionObjects()) {
    const granted = scope.filter((entry) => entry.object === object).map((entry) => entry.action)
    const actions = SCOPABLE_ACTIONS.filter(
      (action) =>
        !granted.some((grant) => grant === '*' || grant === action || (grant.endsWith(':*') && action.startsWith(grant.slice(0, -1)))),
    )
    if (actions.length > 0) denials.push({ object, actions })
  }
  return denials
}

async function insertToken(
  q: Queryable,
  input: { personId: string; name: string; createdBy: string | null; expiresAt: Date | null; autoRenew: boolean },
): Promise<{ id: string; token: string }> {
  const token = newSecret(ACCESS_TOKEN_PREFIX)
  const { rows } = await q.query<{ id: string }>(
    `INSERT INTO access_tokens (name, person_id, value, auto_renew, created_at, created_by, expires_at)
     VALUES ($1, $2, $3, $4, now(), $5, $6) RETURNING id`,
    [input.name, input.personId, sha256(token), input.autoRenew, input.createdBy, input.expiresAt],
  )
  return { id: rows[0]!.id, token }
}

/** A token that acts as an existing person (kubeconfig downloads, agents, tests). */
export async function issuePersonToken(
  db: Queryable,
  input: { personId: string; name: string; createdBy?: string; expiresAt?: Date | null; autoRenew?: boolean },
): Promise<{ id: string; token: string }> {
  return insertToken(db, {
    personId: input.personId,
    name: input.name,
    createdBy: input.createdBy ?? input.personId,
    expiresAt: input.expiresAt ?? null,
    autoRenew: input.autoRenew ?? false,
  })
}

/** The one name a person's kubeconfig token carries: how the next download finds it to revoke it. */
export const KUBECONFIG_TOKEN_NAME = 'kubeconfig'
// Downloads before one-token-per-person named each token `kubeconfig-<UTC stamp>-<random>`.
const LEGACY_KUBECONFIG_TOKEN_NAME = '^kubeconfig-[0-9]{8}T[0-9]{6}-[a-z0-9]+$'

/**
 * The token inside a downloaded kubeconfig. Only a token's hash is stored, so an earlier file's
 * secret cannot be handed out again: each download rotates instead, revoking the person's
 * previous kubeconfig token (and any left by older downloads) as it creates the new one. The
 * person's row is locked for the swap, so two downloads at once still leave exactly one token.
 */
export async function rotateKubeconfigToken(db: Db, personId: string): Promise<{ id: string; token: string; revoked: number }> {
  return db.transaction(async (tx) => {
    await tx.query('SELECT id FROM people WHERE id = $1 FOR UPDATE', [personId])
    // Acting as the person and made by them: a scoped token of the same name has a person of its own.
    const revoked = await tx.query(
      `DELETE FROM access_tokens
        WHERE person_id = $1 AND created_by = $1 AND (name = $2 OR name ~ $3)`,
      [personId, KUBECONFIG_TOKEN_NAME, LEGACY_KUBECONFIG_TOKEN_NAME],
    )
    const created = await insertToken(tx, { personId, name: KUBECONFIG_TOKEN_NAME, createdBy: personId, expiresAt: null, autoRenew: false })
    return { ...created, revoked: revoked.rowCount }
  })
}

function tokenEmail(creatorEmail: string | undefined, name: string): string | null {
  if (!creatorEmail) return null
  const at = creatorEmail.lastIndexOf('@')
  if (at <= 0) throw new TokenError(400, `creator email ${creatorEmail} has no domain`)
  return `${creatorEmail.slice(0, at)}+token:${name}@${creatorEmail.slice(at + 1)}`
}

/**
 * `POST /auth/create_token`: a synthetic person `<name> (Token)` holding the creator's roles,
 * plus deny rules for everything the scope leaves out.
 */
export async function createScopedToken(
  db: Db,
  input: {
    creator: { personId: string; email?: string; roles: string[] }
    name: string
    expiry?: string
    autoRenew?: boolean
    scope?: unknown
  },
): Promise<{ id: string; token: string; personId: string; expiresAt: Date | null }> {
  const name = input.name.trim()
  if (!name) throw new TokenError(400, 'Name is required')
  if (name.length > 200) throw new TokenError(400, 'Name is too long (200 characters at most)')
  const scope = validateScope(input.scope)
  const defaults = await db.query<{ value: string }>(`SELECT value FROM properties WHERE name = 'access_token.default_expiry'`)
  const { ms } = parseExpiry(input.expiry, defaults.rows[0]?.value)
  const expiresAt = ms === null ? null : new Date(Date.now() + ms)
  const email = tokenEmail(input.creator.email, name)

  return db.transaction(async (tx) => {
    const existing = await tx.query(
      `SELECT 1 FROM access_tokens t JOIN people p ON p.id = t.person_id AND p.deleted_at IS NULL
        WHERE t.created_by = $1 AND t.name = $2 AND p.type = 'access_token'`,
      [input.creator.personId, name],
    )
    if (existing.rows.length > 0) throw new TokenError(409, `a token named ${name} already exists`)
    const person = await tx.query<{ id: string }>(
      `INSERT INTO people (name, email, type) VALUES ($1, $2, 'access_token') RETURNING id`,
      [`${name} (Token)`, email],
    )
    const personId = person.rows[0]!.id
    for (const role of new Set(input.creator.roles)) {
      await tx.query(
        `INSERT INTO casbin_rule (ptype, v0, v1, v2, v3, v4, v5) VALUES ('g', $1, $2, '', '', '', '') ON CONFLICT DO NOTHING`,
        [personId, role],
      )
    }
    if (scope.length > 0) {
      for (const { object, actions } of scopeDenials(scope)) {
        await tx.query(
          `INSERT INTO permissions (subject_type, subject, object, action, deny, source, description, created_by)
           VALUES ('person', $1, $2, $3, true, 'AccessToken', $4, $5)`,
          [personId, object, actions.join(','), `outside the scope of token ${name}`, input.creator.personId],
        )
      }
    }
    const { id, token } = await insertToken(tx, {
      personId,
      name,
      createdBy: input.creator.personId,
      expiresAt,
      autoRenew: input.autoRenew ?? false,
    })
    return { id, token, personId, expiresAt }
  })
}

export type TokenListItem = {
  id: string
  name: string
  auto_renew: boolean
  person_id: string
  created_at: string
  created_by: string | null
  expires_at: string | null
  person: { id: string; name: string; email?: string; type?: string }
}

export async function listTokens(db: Queryable): Promise<TokenListItem[]> {
  const { rows } = await db.query<{
    id: string
    name: string
    auto_renew: boolean
    person_id: string
    created_at: Date | string
    created_by: string | null
    expires_at: Date | string | null
    person_name: string
    person_email: string | null
    person_type: string | null
  }>(
    `SELECT t.id, t.name, t.auto_renew, t.person_id, t.created_at, t.created_by, t.expires_at,
            p.name AS person_name, p.email AS person_email, p.type AS person_type
       FROM access_tokens t JOIN people p ON p.id = t.person_id AND p.deleted_at IS NULL
      ORDER BY t.created_at DESC, t.id`,
  )
  return rows.map((row) => ({
    id: row.id,
    name: row.name,
    auto_renew: row.auto_renew,
    person_id: row.person_id,
    created_at: new Date(row.created_at).toISOString(),
    created_by: row.created_by,
    expires_at: row.expires_at ? new Date(row.expires_at).toISOString() : null,
    person: {
      id: row.person_id,
      name: row.person_name,
      ...(row.person_email ? { email: row.person_email } : {}),
      ...(row.person_type ? { type: row.person_type } : {}),
    },
  }))
}

/**
 * Hard-deletes the token; a token person created for it is soft-deleted and loses its roles
 * and rules, so the secret stops working on the next request in every process.
 */
export async function deleteToken(db: Db, id: string, actor: { personId: string; isAdmin: boolean }): Promise<void> {
  await db.transaction(async (tx) => {
    const { rows } = await tx.query<{ person_id: string; created_by: string | null; type: string | null }>(
      `SELECT t.person_id, t.created_by, p.type FROM access_tokens t JOIN people p ON p.id = t.person_id WHERE t.id = $1`,
      [id],
    )
    const row = rows[0]
    if (!row) throw new TokenError(404, `token ${id} not found`)
    if (!actor.isAdmin && row.created_by !== actor.personId) {
      throw new TokenError(403, 'only the creator or admins can delete access tokens')
    }
    await tx.query('DELETE FROM access_tokens WHERE id = $1', [id])
    if (row.type === 'access_token') {
      await tx.query('UPDATE people SET deleted_at = now() WHERE id = $1 AND deleted_at IS NULL', [row.person_id])
      await tx.query(`DELETE FROM casbin_rule WHERE ptype = 'g' AND v0 = $1`, [row.person_id])
      await tx.query(
        `UPDATE permissions SET deleted_at = now() WHERE subject_type = 'person' AND subject = $1 AND deleted_at IS NULL`,
        [row.person_id],
      )
    }
  })
}
