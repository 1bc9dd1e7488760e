import type { Db } from '#server/db/client.ts'
import { linkToken, storeCode } from './codes.ts'
import { insertFlow } from './flows.ts'
import { createIdentity, type OnIdentityCreated } from './identities.ts'

const trimSlash = (url: string) => url.replace(/\/+$/, '')

/**
 * A one-time link that signs the identity in and opens the settings page, where a password is
 * set (used for invites and a first admin without a password). Only the token's hash is stored.
 */
export async function createRecoveryLink(
  db: Db,
  identityId: string,
  options: { publicBaseUrl: string; uiBaseUrl: string; expiresInSeconds?: number },
): Promise<{ recoveryLink: string; expiresAt: Date }> {
  const lifespan = options.expiresInSeconds ?? 72 * 3600
  const flow = await insertFlow(db, {
    kind: 'recovery',
    requestUrl: `${trimSlash(options.publicBaseUrl)}/self-service/recovery/browser`,
    lifespanSeconds: lifespan,
    state: 'sent_email',
    returnTo: `${trimSlash(options.uiBaseUrl)}/`,
  })
  const token = linkToken()
  await storeCode(db, { kind: 'recovery_link', code: token, flowId: flow.id, identityId, lifespanSeconds: lifespan })
  const query = new URLSearchParams({ flow: flow.id, token })
  return {
    recoveryLink: `${trimSlash(options.publicBaseUrl)}/self-service/recovery?${query.toString()}`,
    expiresAt: new Date(flow.expires_at),
  }
}

export type FirstAdminResult =
  | { status: 'exists' }
  | { status: 'created'; identityId: string; email: string }
  | { status: 'recovery-link'; identityId: string; email: string; link: string }
  | { status: 'registration-link'; link: string }

/**
 * First start: when no identity exists yet, create the admin from LOOKOUT_ADMIN_EMAIL (+
 * LOOKOUT_ADMIN_PASSWORD), or hand back a one-time link for the caller to print: a recovery
 * link when only the e-mail is known, a registration link (role admin, works even when
 * registration is closed) when nothing is configured.
 */
export async function ensureFirstAdmin(
  db: Db,
  env: { LOOKOUT_ADMIN_EMAIL?: string; LOOKOUT_ADMIN_PASSWORD?: string },
  options: { publicBaseUrl: string; uiBaseUrl: string; onIdentityCreated?: OnIdentityCreated; role?: string },
): Promise<FirstAdminResult> {
  const role = options.role ?? 'admin'
  const { rows } = await db.query<{ n: number }>('SELECT count(*)::int AS n FROM identity.identities')
  if ((rows[0]?.n ?? 0) > 0) return { status: 'exists' }
  const email = env.LOOKOUT_ADMIN_EMAIL?.trim()
  if (email) {
    const password = env.LOOKOUT_ADMIN_PASSWORD || undefined
    const identity = await createIdentity(
      db,
      { email, firstName: 'Admin', lastName: '', password, role, verified: true },
      { onIdentityCreated: options.onIdentityCreated },
    )
    if (password) return { status: 'created', identityId: identity.id, email: identity.traits.email }
    const { recoveryLink } = await createRecoveryLink(db, identity.id, options)
    return { status: 'recovery-link', identityId: identity.id, email: identity.traits.email, link: recoveryLink }
  }
  // Earlier unused first-admin links stop working; only the newest printed one counts.
  await db.query("UPDATE identity.codes SET used_at = now() WHERE kind = 'registration_link' AND used_at IS NULL")
  const token = linkToken()
  await storeCode(db, { kind: 'registration_link', code: token, role, lifespanSeconds: 7 * 24 * 3600 })
  return { status: 'registration-link', link: `${trimSlash(options.publicBaseUrl)}/self-service/registration/browser?token=${encodeURIComponent(token)}` }
}
