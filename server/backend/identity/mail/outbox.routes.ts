import express from 'express'
import type { Db } from '#server/db/client.ts'
import { principalOf } from '#server/backend/identity/principal.ts'
import type { Authorizer } from '#server/backend/rbac/authorizer.ts'

/**
 * `GET /auth/outbox?to=`: the mails Lookout wrote, newest first — on a machine without SMTP the
 * only way an admin can hand someone their invitation or recovery code. Admins only, since the
 * bodies hold one-time codes.
 */
export function createOutboxRouter(options: { db: Db; authorizer: Pick<Authorizer, 'authorize'> }): express.Router {
  const router = express.Router()
  router.get('/auth/outbox', async (req, res, next) => {
    try {
      const principal = principalOf(res)
      const decision = await options.authorizer.authorize(principal, { object: '*', action: '*' })
      if (!decision.allowed) {
        res.status(403).type('text').send('unauthorized. Access Denied')
        return
      }
      const to = typeof req.query.to === 'string' && req.query.to ? req.query.to.trim().toLowerCase() : null
      const { rows } = await options.db.query(
        `SELECT id, "to", subject, body, created_at, sent_at, error FROM identity.mail_outbox
          WHERE $1::text IS NULL OR lower("to") = $1 ORDER BY created_at DESC LIMIT 50`,
        [to],
      )
      res.json({ message: 'success', payload: rows })
    } catch (error) {
      next(error)
    }
  })
  return router
}
