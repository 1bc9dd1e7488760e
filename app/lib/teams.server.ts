import { dbClient, requireData } from '#app/lib/data-client.server.ts'
import type { ApiArgs } from '#app/lib/gateway.server.ts'

/**
 * Teams and their members (spec 002 §2): every data-API call of the teams screens, through
 * the typed data client, so the routes call named functions and build no query strings.
 */

export type Team = { id: string; name: string; icon?: string | null; spec?: unknown; source?: string | null; created_at?: string | null; updated_at?: string | null }
export type TeamPerson = { id: string; name: string; email?: string | null }
export type TeamJob = { id: string; name?: string; status?: string; time_start?: string | null; duration_millis?: number | null; success_count?: number; error_count?: number }
export type TeamListRow = Omit<Team, 'spec'> & { members: number }

/** Live teams by name, each with its member count. */
export async function listTeamsWithMemberCounts(args: ApiArgs): Promise<TeamListRow[]> {
  const db = dbClient(args)
  const [teams, members] = await Promise.all([
    db.from('teams').select('id,name,icon,source,created_at,updated_at').is('deleted_at', null).order('name').returns<Omit<Team, 'spec'>[]>().then(requireData),
    db.from('team_members').select('team_id').returns<{ team_id: string }[]>().then(requireData),
  ])
  const counts = new Map<string, number>()
  for (const row of members ?? []) counts.set(row.team_id, (counts.get(row.team_id) ?? 0) + 1)
  return (teams ?? []).map((team) => ({ ...team, members: counts.get(team.id) ?? 0 }))
}

/** Creates a UI team and returns its id; a live-name clash surfaces as the API's 409 GatewayError. */
export async function createTeam(args: ApiArgs, team: { name: string; icon: string; spec: Record<string, unknown>; createdBy: string }): Promise<string | undefined> {
  const query = dbClient(args).from('teams').insert({ name: team.name, icon: team.icon, spec: team.spec, source: 'UI', created_by: team.createdBy })
  const rows = requireData(await query.select('id').returns<{ id: string }[]>())
  return rows?.[0]?.id
}

/** A live team by id (the caller checks the id is a UUID), or undefined. */
export async function findTeam(args: ApiArgs, id: string): Promise<Team | undefined> {
  const rows = requireData(await dbClient(args).from('teams').select('*').eq('id', id).is('deleted_at', null).returns<Team[]>())
  return rows?.[0]
}

export async function updateTeamSpec(args: ApiArgs, id: string, row: { icon: string; spec: Record<string, unknown> }): Promise<void> {
  requireData(await dbClient(args).from('teams').update({ ...row, updated_at: new Date().toISOString() }).eq('id', id))
}

export async function softDeleteTeam(args: ApiArgs, id: string): Promise<void> {
  requireData(await dbClient(args).from('teams').update({ deleted_at: 'now()' }).eq('id', id))
}

/** People with an e-mail split into the team's members and everyone who could be added. */
export async function listTeamMembership(args: ApiArgs, teamId: string): Promise<{ members: TeamPerson[]; candidates: TeamPerson[] }> {
  const db = dbClient(args)
  const [memberRows, people] = await Promise.all([
    db.from('team_members').select('person_id').eq('team_id', teamId).returns<{ person_id: string }[]>().then(requireData),
    db.from('people').select('id,name,email').is('deleted_at', null).not('email', 'is', null).order('name').returns<TeamPerson[]>().then(requireData),
  ])
  const ids = new Set((memberRows ?? []).map((row) => row.person_id))
  const everyone = people ?? []
  return { members: everyone.filter((person) => ids.has(person.id)), candidates: everyone.filter((person) => !ids.has(person.id)) }
}

export async function listTeamJobs(args: ApiArgs, teamId: string): Promise<TeamJob[]> {
  const query = dbClient(args).from('job_histories').select('*').eq('resource_id', teamId)
  return requireData(await query.order('time_start', { ascending: false }).limit(150).returns<TeamJob[]>()) ?? []
}

/** The live people among the given ids (the caller checks they are UUIDs). */
export async function findPeopleByIds(args: ApiArgs, ids: readonly string[]): Promise<TeamPerson[]> {
  if (ids.length === 0) return []
  return requireData(await dbClient(args).from('people').select('id,name').in('id', [...ids]).is('deleted_at', null).returns<TeamPerson[]>()) ?? []
}

export async function addTeamMembers(args: ApiArgs, teamId: string, personIds: readonly string[]): Promise<void> {
  requireData(await dbClient(args).from('team_members').insert(personIds.map((personId) => ({ team_id: teamId, person_id: personId }))))
}

export async function removeTeamMember(args: ApiArgs, teamId: string, personId: string): Promise<void> {
  requireData(await dbClient(args).from('team_members').delete().eq('team_id', teamId).eq('person_id', personId))
}
