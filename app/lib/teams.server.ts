import { apiJson, type ApiArgs } from '#app/lib/gateway.server.ts'

/**
 * Teams and their members (spec 002 §2): every PostgREST call of the teams screens, so the
 * routes call named functions and build no query strings.
 */

export type Team = { id: string; name: string; icon?: string | null; spec?: unknown; source?: string | null; created_at?: string | null; updated_at?: string | null }
export type TeamPerson = { id: string; name: string; email?: string | null }
export type TeamJob = { id: string; name?: string; status?: string; time_start?: string | null; duration_millis?: number | null; success_count?: number; error_count?: number }
export type TeamListRow = Omit<Team, 'spec'> & { members: number }

function rowsOf<T>(value: unknown): T[] {
  return Array.isArray(value) ? (value as T[]) : []
}

/** Live teams by name, each with its member count. */
export async function listTeamsWithMemberCounts(args: ApiArgs): Promise<TeamListRow[]> {
  const [list, members] = await Promise.all([
    apiJson<unknown>(args, '/db/teams?select=id,name,icon,source,created_at,updated_at&deleted_at=is.null&order=name.asc'),
    apiJson<unknown>(args, '/db/team_members?select=team_id'),
  ])
  const counts = new Map<string, number>()
  for (const row of rowsOf<{ team_id: string }>(members.data)) counts.set(row.team_id, (counts.get(row.team_id) ?? 0) + 1)
  return rowsOf<Omit<Team, 'spec'>>(list.data).map((team) => ({ ...team, members: counts.get(team.id) ?? 0 }))
}

/** Creates a UI team and returns its id; a live-name clash surfaces as the API's 409 GatewayError. */
export async function createTeam(args: ApiArgs, team: { name: string; icon: string; spec: Record<string, unknown>; createdBy: string }): Promise<string | undefined> {
  const { data } = await apiJson<unknown>(args, '/db/teams', {
    method: 'POST',
    json: { name: team.name, icon: team.icon, spec: team.spec, source: 'UI', created_by: team.createdBy },
    headers: { prefer: 'return=representation' },
  })
  return rowsOf<{ id: string }>(data)[0]?.id
}

/** A live team by id (the caller checks the id is a UUID), or undefined. */
export async function findTeam(args: ApiArgs, id: string): Promise<Team | undefined> {
  const { data } = await apiJson<unknown>(args, `/db/teams?id=eq.${id}&deleted_at=is.null`)
  return rowsOf<Team>(data)[0]
}

export async function updateTeamSpec(args: ApiArgs, id: string, row: { icon: string; spec: Record<string, unknown> }): Promise<void> {
  await apiJson(args, `/db/teams?id=eq.${id}`, { method: 'PATCH', json: { ...row, updated_at: new Date().toISOString() } })
}

export async function softDeleteTeam(args: ApiArgs, id: string): Promise<void> {
  await apiJson(args, `/db/teams?id=eq.${id}`, { method: 'PATCH', json: { deleted_at: 'now()' } })
}

/** People with an e-mail split into the team's members and everyone who could be added. */
export async function listTeamMembership(args: ApiArgs, teamId: string): Promise<{ members: TeamPerson[]; candidates: TeamPerson[] }> {
  const [memberRows, people] = await Promise.all([
    apiJson<unknown>(args, `/db/team_members?select=person_id&team_id=eq.${teamId}`),
    apiJson<unknown>(args, '/db/people?select=id,name,email&deleted_at=is.null&email=not.is.null&order=name.asc'),
  ])
  const ids = new Set(rowsOf<{ person_id: string }>(memberRows.data).map((row) => row.person_id))
  const everyone = rowsOf<TeamPerson>(people.data)
  return { members: everyone.filter((person) => ids.has(person.id)), candidates: everyone.filter((person) => !ids.has(person.id)) }
}

export async function listTeamJobs(args: ApiArgs, teamId: string): Promise<TeamJob[]> {
  const { data } = await apiJson<unknown>(args, `/db/job_histories?resource_id=eq.${teamId}&order=time_start.desc&limit=150`)
  return rowsOf<TeamJob>(data)
}

/** The live people among the given ids (the caller checks they are UUIDs). */
export async function findPeopleByIds(args: ApiArgs, ids: readonly string[]): Promise<TeamPerson[]> {
  if (ids.length === 0) return []
  const { data } = await apiJson<unknown>(args, `/db/people?select=id,name&id=in.(${ids.join(',')})&deleted_at=is.null`)
  return rowsOf<TeamPerson>(data)
}

export async function addTeamMembers(args: ApiArgs, teamId: string, personIds: readonly string[]): Promise<void> {
  await apiJson(args, '/db/team_members', { method: 'POST', json: personIds.map((personId) => ({ team_id: teamId, person_id: personId })) })
}

export async function removeTeamMember(args: ApiArgs, teamId: string, personId: string): Promise<void> {
  await apiJson(args, `/db/team_members?team_id=eq.${teamId}&person_id=eq.${personId}`, { method: 'DELETE' })
}
