import type { Db } from '#server/db/client.ts'
import type { Env } from '#server/env.ts'
import type { Backend } from '#server/backend/backend-app.ts'
import { ensureFirstAdmin } from './kratos/bootstrap.ts'
import { assignRole } from './kratos/identities.ts'

/**
 * First start of an embedded console: make sure someone can sign in with an identity. Returns
 * the lines to print (nothing once identities exist).
 */
export async function firstAdminLines(
  db: Db,
  env: Pick<Env, 'LOOKOUT_ADMIN_EMAIL' | 'LOOKOUT_ADMIN_PASSWORD'>,
  consoleUrl: string,
  backend: Pick<Backend, 'authorizer'>,
): Promise<string[]> {
  const result = await ensureFirstAdmin(db, env, {
    publicBaseUrl: `${consoleUrl}/api/.ory`,
    uiBaseUrl: consoleUrl,
    onIdentityCreated: async (identity, role) => {
      await assignRole(db, identity.id, role)
      backend.authorizer.invalidate()
    },
  })
  switch (result.status) {
    case 'exists':
      return []
    case 'created':
      return [`Admin ${result.email} was created from LOOKOUT_ADMIN_EMAIL/LOOKOUT_ADMIN_PASSWORD: sign in at ${consoleUrl}/login.`]
    case 'recovery-link':
      return [`Admin ${result.email} was created; choose a password with this one-time link:`, `  ${result.link}`]
    case 'registration-link':
      return [
        'No one can sign in with a password yet. Register the first admin with this one-time link',
        `(or restart with LOOKOUT_ADMIN_EMAIL and LOOKOUT_ADMIN_PASSWORD set):`,
        `  ${result.link}`,
      ]
  }
}
