import { apiJson, type ApiArgs } from '#app/lib/gateway.server.ts'

/**
 * People who can sign in and their roles (spec 000 §6, spec 002 §2 "Users"): every call of the
 * users screen, so the route builds no query strings.
 */

export type PersonWithRoles = { id: string; name: string; email: string | null; roles?: string[] | null; created_at: string | null; last_login: string | null }

function rowsOf<T>(value: unknown): T[] {
  return Array.isArray(value) ? (value as T[]) : []
}

/** Live people with an e-mail (the ones who can sign in), by name, with their roles. */
export async function listUsersWithRoles(args: ApiArgs): Promise<PersonWithRoles[]> {
  const [roles, people] = await Promise.all([
    apiJson<unknown>(args, '/db/people_roles?order=name.asc'),
    apiJson<unknown>(args, '/db/people?select=id,created_at,last_login&deleted_at=is.null&email=not.is.null'),
  ])
  type Details = { id: string; created_at?: string | null; last_login?: string | null }
  const details = new Map(rowsOf<Details>(people.data).map((row) => [row.id, row]))
  return rowsOf<Omit<PersonWithRoles, 'created_at' | 'last_login'>>(roles.data)
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
