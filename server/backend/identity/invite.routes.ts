import express from 'express'
import { z } from 'zod'
import type { Db } from '#server/db/client.ts'
import { createRecoveryLink } from './kratos/bootstrap.ts'
import type { Authorizer } from '#server/backend/rbac/authorizer.ts'
import { isAdmin, missingForRole } from '#server/backend/rbac/dominance.ts'
import type { Principal } from '#server/backend/identity/principal.ts'
import { DuplicateIdentityError, assignRole, createIdentity } from './kratos/identities.ts'
import type { Mailer } from './mail/mailer.ts'

const ROLES = ['admin', 'editor', 'viewer', 'guest', 'commander', 'responder'] as const

const InviteSchema = z.object({
  firstName: z.string().trim().max(100).default(''),
  lastName: z.string().trim().max(100).default(''),
  email: z.string({ required_error: 'email is required' }).trim().min(1, 'email is required').email('email is invalid'),
  role: z.enum(ROLES, { errorMap: () => ({ message: `role must be one of ${ROLES.join(', ')}` }) }),
})

/**
 * `POST /auth/invite_user`: creates the identity with its role and mails a one-time link that
 * signs the person in and opens the page where they choose a password.
 *
 * Route access asks for auth:update, which editors hold; so (issue 10 §1) the inviter must also
 * hold every grant of the role they give, and the link — a sign-in as the new person — is
 * returned only to admins (`*` on `*`), who may act as anyone anyway. Everyone else gets it by
 * mail only (the outbox without SMTP, readable by admins).
 */
export function createInviteRouter(options: {
  db: Db
  mailer: Mailer
  publicBaseUrl: () => string
  uiBaseUrl: () => string
  authorizer: Authorizer
}): express.Router {
  const router = express.Router()
  router.post('/auth/invite_user', express.json({ limit: '16kb' }), async (req, res, next) => {
    try {
      const body = (req.body ?? {}) as Record<string, unknown>
      if (body.role === undefined || body.role === '') {
        res.status(400).json({ error: 'role is required' })
        return
      }
      const parsed = InviteSchema.safeParse(body)
      if (!parsed.success) {
        res.status(400).json({ error: parsed.error.issues[0]?.message ?? 'invalid invitation' })
        return
      }
      const { email, firstName, lastName, role } = parsed.data
      const principal = res.locals.principal as Principal | undefined
      if (!principal) {
        res.status(401).json({ error: 'Not logged in' })
        return
      }
      const missing = await missingForRole(options.authorizer, principal, role)
      if (missing) {
        res.status(403).json({ error: `you cannot invite someone as ${role}: that role holds ${missing.action} on ${missing.object}, which you do not` })
        return
      }
      let identityId: string
      try {
        identityId = (
          await createIdentity(
            options.db,
            { email, firstName, lastName, role, verified: true },
            {
              onIdentityCreated: async (identity, assigned) => {
                await assignRole(options.db, identity.id, assigned)
                options.authorizer.invalidate()
              },
            },
          )
        ).id
      } catch (error) {
        if (error instanceof DuplicateIdentityError) {
          res.status(409).json({ error: 'user already exists' })
          return
        }
        throw error
      }
      const { recoveryLink, expiresAt } = await createRecoveryLink(options.db, identityId, {
        publicBaseUrl: `${options.publicBaseUrl()}/api/.ory`,
        uiBaseUrl: options.uiBaseUrl(),
      })
      await options.mailer.send({
        to: email,
        subject: 'You have been invited to Lookout',
        text:
          `Hello ${firstName || email},\n\nYou have been invited to Lookout with the role "${role}".\n` +
          `Open this link to sign in and choose a password (valid until ${expiresAt.toISOString()}):\n\n${recoveryLink}\n`,
      })
      if (await isAdmin(options.authorizer, principal)) {
        res.json({ link: recoveryLink, message: 'invitation sent', mailed: true })
        return
      }
      res.json({ message: 'invitation sent', mailed: true })
    } catch (error) {
      next(error)
    }
  })
  return router
}
