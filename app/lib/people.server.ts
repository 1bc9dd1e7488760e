import { dbClient, requireData } from '#app/lib/data-client.server.ts'
import { apiJson, type ApiArgs } from '#app/lib/gateway.server.ts'

/**
 * People who can sign in and their roles (spec 000 §6, spec 002 §2 "Users"): every call of the
 * users screen (the data client for tables, typed functions for the /auth and /people
 * endpoints), so the route builds no query strings.
 */

export type PersonWithRoles = { id: string; name: string; email: string | null; roles?: string[] | null; created_at: string | null; last_login: string | null }

/** Live people with an e-mail (the ones who can sign in), by name, with their roles. */
export async function listUsersWithRoles(args: ApiArgs): Promise<PersonWithRoles[]> {
  type Details = { id: string; created_at?: string | null; last_login?: string | null }
  const db = dbClient(args)
  const [roles, people] = await Promise.all([
    db.from('people_roles').select('*').order('name').returns<Omit<PersonWithRoles, 'created_at' | 'last_login'>[]>().then(requireData),
    db.from('people').select('id,created_at,last_login').is('deleted_at', null).not('email', 'is', null).returns<Details[]>().then(requireData),
  ])
  const details = new Map((people ?? []).map((row) => [row.id, row]))
  return (roles ?? [])
    .filter((row) => details.has(row.id))
    .map((row) => ({ ...row, created_at: details.get(row.id)?.created_at ?? null, last_login: details.get(row.id)?.last_login ?? null }))
}

/**
 * Invites a person with a starting role. The one-time sign-in link comes back to admins only;
 * for anyone else it is '' and the link went to the invitee's inbox alone.
 */
export async function inviteUser(args: ApiArgs, invite: { firstName: string; lastName: string; email: string; role: string }): Promise<{ link: string }> {
  const { data } = await apiJson<{ link?: unknown } | null>(args, '/auth/invite_user', { method: 'POST', json: invite })
  return { link: typeof data?.link === 'string' ? data.link : '' }
}

export async function setUserRole(args: ApiArgs, id: string, role: string): Promise<void> {
  await apiJson(args, '/people/update', { method: 'POST', json: { id, role } })
}

export async function deleteUser(args: ApiArgs, id: string): Promise<void> {
  await apiJson(args, `/people/${id}`, { method: 'DELETE' })
}
