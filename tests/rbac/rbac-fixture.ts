import type { Db } from '#server/db/client.ts'
import { issuePersonToken } from '#server/backend/rbac/access-tokens.ts'

let counter = 0

/** A person with the given casbin roles and a bearer token acting as that person. */
export async function personWith(db: Db, roles: string[], label = roles.join('-') || 'nobody') {
  counter += 1
  const { rows } = await db.query<{ id: string }>('INSERT INTO people (name, email) VALUES ($1, $2) RETURNING id', [
    `${label} person ${counter}`,
    `${label}.${counter}@example.test`,
  ])
  const id = rows[0]!.id
  for (const role of roles) {
    await db.query(`INSERT INTO casbin_rule (ptype, v0, v1, v2, v3, v4, v5) VALUES ('g', $1, $2, '', '', '', '')`, [id, role])
  }
  const { token, id: tokenId } = await issuePersonToken(db, { personId: id, name: `test-${counter}` })
  return { id, token, tokenId, headers: { Authorization: `Bearer ${token}` } }
}

export const RANDOM_ID = '0190f0f0-0000-7000-8000-00000000beef'
