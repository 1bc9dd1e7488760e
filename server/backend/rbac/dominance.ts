import type { Queryable } from '#server/db/client.ts'
import type { AccessSubject, Authorizer } from './authorizer.ts'
import { isUuid } from '#contract/uuid.ts'

/**
 * "Only give what you hold", shared by every path that hands out power: invitations, role
 * assignments, permission rows and team membership. A grant is an (object, action) pair as
 * casbin rows and permission rows name them; an author dominates a subject when every grant
 * the subject holds is authorized for the author.
 */
export type Grant = { object: string; action: string }

// No person has this id: a role's grants are read as those of a person holding only that role.
const ROLE_HOLDER = '00000000-0000-0000-0000-000000000000'

/** Admin = authorized for `*` on `*` (the admin role, or the bootstrap token). */
export async function isAdmin(authorizer: Authorizer, principal: AccessSubject): Promise<boolean> {
  return (await authorizer.authorize(principal, { object: '*', action: '*' })).allowed
}

function split(value: string): string[] {
  return value
    .split(',')
    .map((part) => part.trim())
    .filter(Boolean)
}

/** Unconditional or not, every allow the authorizer lists for a subject, as single grants. */
async function allowsOf(authorizer: Authorizer, subject: AccessSubject): Promise<Grant[]> {
  const grants: Grant[] = []
  for (const permission of await authorizer.effectivePermissions(subject)) {
    if (permission.deny) continue
    for (const object of split(permission.object)) for (const action of split(permission.action)) grants.push({ object, action })
  }
  return grants
}

/** The grants a role carries: its casbin rows, inherited roles and `group` permission rows. */
export function grantsOfRole(authorizer: Authorizer, role: string): Promise<Grant[]> {
  return allowsOf(authorizer, { personId: ROLE_HOLDER, roles: [role] })
}

export async function teamMembers(db: Queryable, teamId: string): Promise<string[]> {
  if (!isUuid(teamId)) return []
  const { rows } = await db.query<{ person_id: string }>('SELECT person_id::text FROM team_members WHERE team_id = $1', [teamId])
  return rows.map((row) => row.person_id)
}

/** Live permission rows that name a team (what membership of it gives or takes). */
export async function teamPermissions(db: Queryable, teamIds: string[]): Promise<{ team: string; object: string; action: string; deny: boolean }[]> {
  const ids = teamIds.filter(isUuid)
  if (ids.length === 0) return []
  const { rows } = await db.query<{ team: string; object: string; action: string; deny: boolean }>(
    `SELECT subject AS team, coalesce(object,
              CASE WHEN config_id IS NOT NULL THEN 'catalog' WHEN component_id IS NOT NULL THEN 'topology'
                   WHEN canary_id IS NOT NULL THEN 'canaries' WHEN playbook_id IS NOT NULL THEN 'playbooks'
                   WHEN connection_id IS NOT NULL THEN 'connection' ELSE '*' END) AS object,
            action, deny
       FROM permissions
      WHERE subject_type = 'team' AND subject = ANY($1::text[]) AND deleted_at IS NULL`,
    [ids],
  )
  return rows
}

/**
 * What a permission subject holds. A team's power is its members' (team grants included) plus
 * its own grants, which whoever joins later receives; `except` leaves one member out (the
 * author, who trivially holds what they hold).
 */
export async function grantsOfSubject(
  authorizer: Authorizer,
  db: Queryable,
  subjectType: string,
  subject: string,
  except?: string,
): Promise<Grant[]> {
  switch (subjectType) {
    case 'person':
      return isUuid(subject) && subject !== except ? allowsOf(authorizer, { personId: subject }) : []
    case 'group':
      return grantsOfRole(authorizer, subject)
    case 'team': {
      const grants: Grant[] = []
      for (const row of await teamPermissions(db, [subject])) {
        if (row.deny) continue
        for (const action of split(row.action)) grants.push({ object: row.object, action })
      }
      for (const member of await teamMembers(db, subject)) {
        if (member !== except) grants.push(...(await allowsOf(authorizer, { personId: member })))
      }
      return grants
    }
    case 'notification':
    case 'playbook':
      return isUuid(subject) ? allowsOf(authorizer, { subjectType, id: subject }) : []
    default:
      // Other subject types are never loaded by the authorizer: they hold nothing.
      return []
  }
}

/** The first of `grants` the principal does not hold, if any. */
export async function firstMissing(authorizer: Authorizer, principal: AccessSubject, grants: Grant[]): Promise<Grant | undefined> {
  const seen = new Set<string>()
  for (const grant of grants) {
    const key = `${grant.object}\u0000${grant.action}`
    if (seen.has(key)) continue
    seen.add(key)
    if (!(await authorizer.authorize(principal, { object: grant.object, action: grant.action })).allowed) return grant
  }
  return undefined
}

/**
 * The first grant the subject holds and the principal does not: targeting such a subject would
 * reach above the author. The author trivially dominates themselves, also as a team member.
 */
export async function missingOverSubject(
  authorizer: Authorizer,
  db: Queryable,
  principal: AccessSubject & { personId: string },
  subjectType: string,
  subject: string,
): Promise<Grant | undefined> {
  return firstMissing(authorizer, principal, await grantsOfSubject(authorizer, db, subjectType, subject, principal.personId))
}

/** The first grant of `role` the principal lacks: giving someone that role would raise them above the giver. */
export async function missingForRole(authorizer: Authorizer, principal: AccessSubject, role: string): Promise<Grant | undefined> {
  return firstMissing(authorizer, principal, await grantsOfRole(authorizer, role))
}
