import type { Request, Response } from 'express'

/**
 * Who is calling: resolved once per request and kept on `res.locals.principal`. `roles` holds
 * only roles the credential itself implies (the bootstrap token is admin); role assignments
 * live in casbin_rule and are read by the authorizer, so revoking a role takes effect on
 * sessions and tokens that already exist.
 */
export type Principal = {
  personId: string
  name: string
  email?: string
  roles: string[]
  via: 'bootstrap-token' | 'session' | 'access-token' | 'kratos-session' | 'anonymous' | 'session-disabled'
  /** Set when the caller authenticated with a stored access token. */
  tokenId?: string
  /** people.type: 'access_token' for token identities, 'agent' for agents, absent for humans. */
  personType?: string
  /** A session cookie whose session was just extended: sent again with its new lifetime. */
  renew?: { cookie: string; value: string; maxAgeSeconds: number }
}

/**
 * A further way to recognise a caller (e.g. the Kratos session cookie). Resolvers run after
 * access tokens and before the console's own session cookie; the first principal wins.
 */
export type CredentialResolver = (req: Request) => Promise<Principal | undefined>

export function principalOf(res: Response): Principal {
  const principal = res.locals.principal as Principal | undefined
  if (!principal) throw new Error('principalOf called on a route without requireCredentials')
  return principal
}
