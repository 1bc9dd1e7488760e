import type { Request } from 'express'
import type { ValidateWriteInput, ValidateWriteResult } from '#server/backend/postgrest/router.ts'
import type { Principal } from '#server/backend/identity/principal.ts'
import type { Authorizer } from './authorizer.ts'
import { isUuid } from '#contract/uuid.ts'
import { firstMissing, isAdmin, missingOverSubject, teamPermissions, type Grant } from './dominance.ts'

function eqFilter(req: Request, column: string): string | undefined {
  const value = req.query[column]
  if (typeof value !== 'string' || !value.startsWith('eq.')) return undefined
  const id = value.slice(3)
  return isUuid(id) ? id : undefined
}

function refuse(message: string): ValidateWriteResult {
  return { ok: false, status: 403, code: '42501', message, details: 'this team is the subject of permissions; its membership is rbac work' }
}

/** Teams a membership write or delete can reach, as narrowly as its filters tell. */
async function reachedTeams(input: ValidateWriteInput): Promise<string[] | 'all'> {
  const team = eqFilter(input.req, 'team_id')
  if (team) return [team]
  const person = eqFilter(input.req, 'person_id')
  if (person) {
    const { rows } = await input.db.query<{ team_id: string }>('SELECT team_id::text FROM team_members WHERE person_id = $1', [person])
    return rows.map((row) => row.team_id)
  }
  return 'all'
}

/**
 * A team that is the subject of a permission hands that permission to whoever joins it, and a
 * deny on it binds whoever stays in it. So (issue 10 §4) writes to `team_members` of such a
 * team — and deleting or soft-deleting the team itself — need `rbac:update`, and follow the
 * rules of permission rows: the author must hold what the team grants, may only bind people
 * they dominate to its denies, and may not lift a team deny that applies to them. Teams
 * without live permissions keep the matrix's rule (database area writes).
 */
export function createTeamMembershipValidator(authorizer: Authorizer) {
  return async (input: ValidateWriteInput): Promise<ValidateWriteResult> => {
    if (input.relation !== 'team_members' && input.relation !== 'teams') return { ok: true }
    const principal = input.req.res?.locals.principal as Principal | undefined
    if (!principal) return { ok: true }

    let teams: string[] | 'all' = []
    const joining: { team: string; person: string }[] = []
    if (input.relation === 'teams') {
      // Creating or renaming a team changes nobody's access; removing one lifts its rules.
      const removing = (row: Record<string, unknown> | undefined) => row?.deleted_at !== undefined && row?.deleted_at !== null
      if (input.method === 'POST') {
        // An upsert can soft-delete an existing team.
        if (!/resolution=/.test(String(input.req.headers.prefer ?? ''))) return { ok: true }
        teams = input.rows.filter((row) => removing(row) && isUuid(row.id)).map((row) => row.id as string)
      } else {
        if (input.method === 'PATCH' && !removing(input.rows[0])) return { ok: true }
        const id = eqFilter(input.req, 'id')
        teams = id ? [id] : 'all'
      }
    } else if (input.method === 'POST') {
      for (const row of input.rows) {
        if (isUuid(row.team_id) && isUuid(row.person_id)) joining.push({ team: row.team_id, person: row.person_id })
      }
      teams = joining.map((join) => join.team)
    } else {
      teams = await reachedTeams(input)
      const patch = input.rows[0] ?? {}
      if (isUuid(patch.team_id)) {
        if (teams !== 'all') teams.push(patch.team_id)
        const person = eqFilter(input.req, 'person_id') ?? (isUuid(patch.person_id) ? patch.person_id : undefined)
        if (person) joining.push({ team: patch.team_id, person })
      }
    }

    const { rows: privileged } =
      teams === 'all'
        ? await input.db.query<{ team: string }>(`SELECT DISTINCT subject AS team FROM permissions WHERE subject_type = 'team' AND deleted_at IS NULL`)
        : { rows: (await teamPermissions(input.db, teams)).map((row) => ({ team: row.team })) }
    const privilegedTeams = [...new Set(privileged.map((row) => row.team))]
    if (privilegedTeams.length === 0) return { ok: true }
    if (await isAdmin(authorizer, principal)) return { ok: true }

    const rbac = await authorizer.authorize(principal, { object: 'rbac', action: 'update' })
    if (!rbac.allowed) {
      return refuse(`changing the members of a team that holds permissions needs rbac:update (team ${privilegedTeams[0]})`)
    }
    const rules = await teamPermissions(input.db, privilegedTeams)
    for (const { team, person } of joining) {
      const teamRules = rules.filter((rule) => rule.team === team)
      const grants: Grant[] = teamRules.filter((rule) => !rule.deny).flatMap((rule) => rule.action.split(',').map((action) => ({ object: rule.object, action: action.trim() })))
      const missing = await firstMissing(authorizer, principal, grants)
      if (missing) return refuse(`you cannot add members to team ${team}: it grants ${missing.action} on ${missing.object}, which you do not hold`)
      if (teamRules.some((rule) => rule.deny)) {
        const above = await missingOverSubject(authorizer, input.db, principal, 'person', person)
        if (above) return refuse(`you cannot bind person ${person} to the denies of team ${team}: they hold ${above.action} on ${above.object}, which you do not`)
      }
    }
    if (input.method !== 'POST' || input.relation === 'teams') {
      // Leaving a team (or removing it) lifts its denies: not for those they bind.
      const person = input.relation === 'team_members' ? eqFilter(input.req, 'person_id') : undefined
      if (person === undefined || person === principal.personId) {
        const denyTeams = new Set(rules.filter((rule) => rule.deny).map((rule) => rule.team))
        if (denyTeams.size > 0) {
          const { rows } = await input.db.query<{ team_id: string }>(
            'SELECT team_id::text FROM team_members WHERE person_id = $1 AND team_id = ANY($2::uuid[])',
            [principal.personId, [...denyTeams]],
          )
          if (rows.length > 0) return refuse(`you cannot lift a deny rule that applies to you: team ${rows[0]!.team_id} denies you, and leaving or removing it would lift that`)
        }
      }
    }
    return { ok: true }
  }
}
