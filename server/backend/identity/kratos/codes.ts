import { createHash, randomBytes, randomInt } from 'node:crypto'
import type { Queryable } from '#server/db/client.ts'

export type CodeKind = 'recovery_code' | 'verification_code' | 'recovery_link' | 'registration_link' | 'unlock_link'

export const MAX_CODE_ATTEMPTS = 5

export const codeHash = (code: string) => createHash('sha256').update(code).digest('hex')

export function sixDigitCode(): string {
  return String(randomInt(0, 1_000_000)).padStart(6, '0')
}

export function linkToken(): string {
  return randomBytes(32).toString('base64url')
}

/** Stores a new code; earlier unused codes of the same flow and kind stop working. */
export async function storeCode(
  db: Queryable,
  input: { kind: CodeKind; code: string; lifespanSeconds: number; flowId?: string; identityId?: string; address?: string; role?: string },
): Promise<string> {
  if (input.flowId) {
    await db.query('UPDATE identity.codes SET used_at = now() WHERE flow_id = $1 AND kind = $2 AND used_at IS NULL', [input.flowId, input.kind])
  }
  const { rows } = await db.query<{ id: string }>(
    `INSERT INTO identity.codes (kind, code_hash, flow_id, identity_id, address, role, expires_at)
     VALUES ($1, $2, $3, $4, $5, $6, now() + make_interval(secs => $7)) RETURNING id`,
    [input.kind, codeHash(input.code), input.flowId ?? null, input.identityId ?? null, input.address ?? null, input.role ?? null, input.lifespanSeconds],
  )
  return rows[0]?.id ?? ''
}

export type CodeRow = { id: string; identity_id: string | null; address: string | null; role: string | null }

/**
 * Spends a flow's code when it matches. Every try counts against the flow's live code, so a
 * six-digit code cannot be brute-forced within its lifetime.
 */
export async function consumeFlowCode(db: Queryable, flowId: string, kind: CodeKind, code: string): Promise<CodeRow | undefined> {
  const { rows } = await db.query<CodeRow & { code_hash: string; attempts: number }>(
    `UPDATE identity.codes SET attempts = attempts + 1
      WHERE flow_id = $1 AND kind = $2 AND used_at IS NULL AND expires_at > now()
      RETURNING id, identity_id, address, role, code_hash, attempts`,
    [flowId, kind],
  )
  const match = rows.find((row) => row.attempts <= MAX_CODE_ATTEMPTS && row.code_hash === codeHash(code.trim()))
  if (!match) return undefined
  const spent = await db.query('UPDATE identity.codes SET used_at = now() WHERE id = $1 AND used_at IS NULL', [match.id])
  return spent.rowCount === 1 ? match : undefined
}

/** Looks up a link token (recovery or registration link) without spending it. */
export async function findLinkCode(db: Queryable, kind: CodeKind, token: string): Promise<CodeRow & { flow_id: string | null } | undefined> {
  const { rows } = await db.query<CodeRow & { flow_id: string | null }>(
    'SELECT id, identity_id, address, role, flow_id FROM identity.codes WHERE kind = $1 AND code_hash = $2 AND used_at IS NULL AND expires_at > now()',
    [kind, codeHash(token)],
  )
  return rows[0]
}

export async function spendCode(db: Queryable, id: string): Promise<boolean> {
  const { rowCount } = await db.query('UPDATE identity.codes SET used_at = now() WHERE id = $1 AND used_at IS NULL', [id])
  return rowCount === 1
}
