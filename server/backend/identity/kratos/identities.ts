import type { Db, Queryable } from '#server/db/client.ts'
import { hashPassword } from './passwords.ts'

export type Traits = { email: string; name: { first: string; last: string } }

export type IdentityRow = {
  id: string
  schema_id: string
  traits: Traits
  state: 'active' | 'inactive'
  state_changed_at: string | Date
  metadata_public: unknown
  created_at: string | Date
  updated_at: string | Date
}

export type CredentialType = 'password' | 'totp' | 'lookup_secret' | 'webauthn'

export type PasswordConfig = { hashed_password: string }
export type TotpConfig = { secret: string; last_time_step?: number }
export type LookupCode = { code: string; used_at?: string }
export type LookupConfig = { recovery_codes: LookupCode[] }
export type WebAuthnKey = { id: string; public_key: string; counter: number; display_name: string; added_at: string; transports?: string[] }
export type WebAuthnConfig = { credentials: WebAuthnKey[]; user_handle: string }

export type CredentialConfigs = {
  password: PasswordConfig
  totp: TotpConfig
  lookup_secret: LookupConfig
  webauthn: WebAuthnConfig
}

/** A role hook: the RBAC part assigns roles through it when an identity is created. */
export type OnIdentityCreated = (identity: IdentityRow, role: string) => Promise<void>

const iso = (value: string | Date | null | undefined): string | undefined =>
  value === null || value === undefined ? undefined : new Date(value).toISOString()

export function normaliseEmail(email: string): string {
  return email.trim().toLowerCase()
}

export async function findIdentity(db: Queryable, id: string): Promise<IdentityRow | undefined> {
  const { rows } = await db.query<IdentityRow>('SELECT * FROM identity.identities WHERE id = $1', [id])
  return rows[0]
}

export async function findIdentityByEmail(db: Queryable, email: string): Promise<IdentityRow | undefined> {
  const { rows } = await db.query<IdentityRow>("SELECT * FROM identity.identities WHERE lower(traits ->> 'email') = $1", [normaliseEmail(email)])
  return rows[0]
}

export async function getCredential<T extends CredentialType>(db: Queryable, identityId: string, type: T): Promise<CredentialConfigs[T] | undefined> {
  const { rows } = await db.query<{ config: CredentialConfigs[T] }>(
    'SELECT config FROM identity.identity_credentials WHERE identity_id = $1 AND type = $2',
    [identityId, type],
  )
  return rows[0]?.config
}

export async function setCredential<T extends CredentialType>(db: Queryable, identityId: string, type: T, config: CredentialConfigs[T], identifiers: string[] = []): Promise<void> {
  await db.query(
    `INSERT INTO identity.identity_credentials (identity_id, type, identifiers, config) VALUES ($1, $2, $3, $4)
     ON CONFLICT (identity_id, type) DO UPDATE SET config = EXCLUDED.config, identifiers = EXCLUDED.identifiers, updated_at = now()`,
    [identityId, type, identifiers, JSON.stringify(config)],
  )
}

export async function deleteCredential(db: Queryable, identityId: string, type: CredentialType): Promise<void> {
  await db.query('DELETE FROM identity.identity_credentials WHERE identity_id = $1 AND type = $2', [identityId, type])
}

/** The second factors an identity has set up (empty lookup/webauthn sets do not count). */
export async function secondFactorsOf(db: Queryable, identityId: string): Promise<Set<'totp' | 'lookup_secret' | 'webauthn'>> {
  const { rows } = await db.query<{ type: CredentialType; config: Record<string, unknown> }>(
    "SELECT type, config FROM identity.identity_credentials WHERE identity_id = $1 AND type IN ('totp', 'lookup_secret', 'webauthn')",
    [identityId],
  )
  const found = new Set<'totp' | 'lookup_secret' | 'webauthn'>()
  for (const row of rows) {
    if (row.type === 'totp') found.add('totp')
    if (row.type === 'lookup_secret' && Array.isArray(row.config.recovery_codes) && row.config.recovery_codes.length > 0) found.add('lookup_secret')
    if (row.type === 'webauthn' && Array.isArray(row.config.credentials) && row.config.credentials.length > 0) found.add('webauthn')
  }
  return found
}

/** Identity JSON as Kratos returns it (never with credentials). */
export async function identityJson(db: Queryable, identity: IdentityRow, schemaUrl: string): Promise<Record<string, unknown>> {
  const verifiable = await db.query<Record<string, string | boolean | Date | null>>(
    'SELECT id, value, verified, via, status, verified_at, created_at, updated_at FROM identity.identity_verifiable_addresses WHERE identity_id = $1 ORDER BY created_at',
    [identity.id],
  )
  const recovery = await db.query<Record<string, string | Date>>(
    'SELECT id, value, via, created_at, updated_at FROM identity.identity_recovery_addresses WHERE identity_id = $1 ORDER BY created_at',
    [identity.id],
  )
  return {
    id: identity.id,
    schema_id: identity.schema_id,
    schema_url: schemaUrl,
    state: identity.state,
    state_changed_at: iso(identity.state_changed_at),
    traits: identity.traits,
    verifiable_addresses: verifiable.rows.map((a) => ({
      id: a.id,
      value: a.value,
      verified: a.verified,
      via: a.via,
      status: a.status,
      ...(a.verified_at ? { verified_at: iso(a.verified_at as Date) } : {}),
      created_at: iso(a.created_at as Date),
      updated_at: iso(a.updated_at as Date),
    })),
    recovery_addresses: recovery.rows.map((a) => ({ id: a.id, value: a.value, via: a.via, created_at: iso(a.created_at), updated_at: iso(a.updated_at) })),
    metadata_public: identity.metadata_public ?? null,
    created_at: iso(identity.created_at),
    updated_at: iso(identity.updated_at),
  }
}

export class DuplicateIdentityError extends Error {
  constructor() {
    super('An account with the same identifier exists already.')
  }
}

const EMAIL = /^[^\s@]+@[^\s@]+$/

export type CreateIdentityInput = { email: string; firstName: string; lastName: string; password?: string; role?: string; verified?: boolean }

/**
 * Creates an identity with its addresses and (optionally) a password, inside one transaction.
 * A live person with the same e-mail (for example from seed data) keeps its id: the identity
 * adopts it, so existing ownership and role rows stay attached.
 */
export async function createIdentity(db: Db, input: CreateIdentityInput, hooks: { onIdentityCreated?: OnIdentityCreated } = {}): Promise<IdentityRow> {
  const email = normaliseEmail(input.email)
  if (!EMAIL.test(email)) throw new Error(`"${input.email}" is not a valid e-mail address`)
  const traits: Traits = { email, name: { first: input.firstName.trim(), last: input.lastName.trim() } }
  const hashed = input.password === undefined ? undefined : await hashPassword(input.password)
  const identity = await db.transaction(async (tx) => {
    if (await findIdentityByEmail(tx, email)) throw new DuplicateIdentityError()
    const person = await tx.query<{ id: string }>(
      'SELECT id FROM public.people WHERE lower(email) = $1 AND deleted_at IS NULL AND id NOT IN (SELECT id FROM identity.identities) LIMIT 1',
      [email],
    )
    const { rows } = await tx.query<IdentityRow>(
      'INSERT INTO identity.identities (id, traits) VALUES (coalesce($1::uuid, gen_random_uuid()), $2) RETURNING *',
      [person.rows[0]?.id ?? null, JSON.stringify(traits)],
    )
    const created = rows[0]
    if (!created) throw new Error('identity insert returned no row')
    await tx.query(
      `INSERT INTO identity.identity_verifiable_addresses (identity_id, value, verified, status, verified_at)
       VALUES ($1, $2, $3, CASE WHEN $3 THEN 'completed' ELSE 'pending' END, CASE WHEN $3 THEN now() END)`,
      [created.id, email, input.verified ?? false],
    )
    await tx.query('INSERT INTO identity.identity_recovery_addresses (identity_id, value) VALUES ($1, $2)', [created.id, email])
    if (hashed) await setCredential(tx, created.id, 'password', { hashed_password: hashed }, [email])
    return created
  })
  if (input.role) {
    if (hooks.onIdentityCreated) await hooks.onIdentityCreated(identity, input.role)
    else await assignRole(db, identity.id, input.role)
  }
  return identity
}

/** Role assignment as a casbin grouping row, for callers without an RBAC hook. */
export async function assignRole(db: Queryable, personId: string, role: string): Promise<void> {
  await db.query("INSERT INTO public.casbin_rule (ptype, v0, v1) VALUES ('g', $1, $2) ON CONFLICT DO NOTHING", [personId, role])
}

export async function updateTraits(db: Queryable, identityId: string, traits: Traits): Promise<void> {
  await db.query('UPDATE identity.identities SET traits = $2, updated_at = now() WHERE id = $1', [identityId, JSON.stringify(traits)])
  // A changed address must be verified again; recovery follows the new address at once.
  await db.query(
    `UPDATE identity.identity_verifiable_addresses
        SET verified = CASE WHEN lower(value) = $2 THEN verified ELSE false END,
            status = CASE WHEN lower(value) = $2 THEN status ELSE 'pending' END,
            verified_at = CASE WHEN lower(value) = $2 THEN verified_at END,
            value = $2, updated_at = now()
      WHERE identity_id = $1`,
    [identityId, traits.email],
  )
  await db.query('UPDATE identity.identity_recovery_addresses SET value = $2, updated_at = now() WHERE identity_id = $1', [identityId, traits.email])
}

export async function markAddressVerified(db: Queryable, identityId: string, address: string): Promise<void> {
  await db.query(
    `UPDATE identity.identity_verifiable_addresses SET verified = true, status = 'completed', verified_at = now(), updated_at = now()
      WHERE identity_id = $1 AND lower(value) = $2`,
    [identityId, normaliseEmail(address)],
  )
}
