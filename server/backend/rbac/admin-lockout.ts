import type { Queryable } from '#server/db/client.ts'
import { grantMatch } from './authorizer.ts'
import { isUuid } from '#contract/uuid.ts'
import { teamMembers } from './dominance.ts'

/**
 * The rule against locking every admin out (issue 10 §4), kept deliberately simple:
 *
 * A deny row is refused when BOTH
 *  1. it takes away what is needed to undo it: it matches `rbac:update` (managing roles and
 *     permission rows) or a write on the `permissions` area, which includes any deny on `*`
 *     with a write action; and
 *  2. it reaches every admin: its subject is the group `admin` (or a role whose holders include
 *     every admin), or a person or team that covers every active admin person (there being at
 *     least one). Admin persons are people holding the `admin` role directly, not deleted, not
 *     switched off, and not access-token identities.
 *
 * Narrower denies (one admin among several, or an area that is not rbac/permissions) stay
 * possible: another admin, or the admin themselves, can still lift them. The bootstrap token
 * is never denied (authorizer.ts), so even a lock-out written straight into the database can
 * be undone with it.
 */
const UNDO_REQUESTS = [
  { area: 'rbac', object: 'rbac', action: 'update' },
  { area: 'permissions', object: 'database.system', action: 'create' },
  { area: 'permissions', object: 'database.system', action: 'update' },
  { area: 'permissions', object: 'database.system', action: 'delete' },
]

export function takesAwayUndo(object: string, action: string): boolean {
  const objects = object.split(',').map((value) => value.trim())
  return objects.some((obj) => UNDO_REQUESTS.some((request) => grantMatch(request.area, request.object, request.action, obj, action)))
}

async function adminPeople(db: Queryable): Promise<string[]> {
  const { rows } = await db.query<{ id: string }>(
    `SELECT p.id::text FROM people p
      WHERE p.deleted_at IS NULL AND p.type IS DISTINCT FROM 'access_token'
        AND EXISTS (SELECT 1 FROM casbin_rule r WHERE r.ptype = 'g' AND r.v0 = p.id::text AND r.v1 = 'admin')
        AND NOT EXISTS (SELECT 1 FROM lookout.inactive_people i WHERE i.person_id = p.id)`,
  )
  return rows.map((row) => row.id)
}

async function holdersOfRole(db: Queryable, role: string): Promise<Set<string>> {
  const { rows } = await db.query<{ v0: string }>(`SELECT v0 FROM casbin_rule WHERE ptype = 'g' AND v1 = $1`, [role])
  return new Set(rows.map((row) => row.v0))
}

/**
 * Whether taking admin away from this person (a role change, switching them off, deleting them)
 * would leave no admin identity. The bootstrap token would still work, but a console whose
 * every person lost admin is one nobody can manage from the screens.
 */
export async function isLastAdmin(db: Queryable, personId: string): Promise<boolean> {
  const admins = await adminPeople(db)
  return admins.length === 1 && admins[0] === personId
}

/** Whether a deny with this subject, object and action would leave no admin able to undo it. */
export async function locksAdminsOut(
  db: Queryable,
  row: { subject_type?: unknown; subject?: unknown; object: string; action: string },
): Promise<boolean> {
  if (!takesAwayUndo(row.object, row.action)) return false
  const subjectType = String(row.subject_type ?? 'group')
  const subject = String(row.subject ?? '')
  if (subjectType === 'group' && subject === 'admin') return true
  const admins = await adminPeople(db)
  if (admins.length === 0) return false
  let covered: Set<string>
  if (subjectType === 'person') covered = new Set(isUuid(subject) ? [subject] : [])
  else if (subjectType === 'team') covered = new Set(await teamMembers(db, subject))
  else if (subjectType === 'group') covered = await holdersOfRole(db, subject)
  else return false
  return admins.every((id) => covered.has(id))
}
