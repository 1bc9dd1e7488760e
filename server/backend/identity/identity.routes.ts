import express, { type Request, type Response } from 'express'
import { z } from 'zod'
import type { Db } from '#server/db/client.ts'
import type { Authorizer } from '#server/backend/rbac/authorizer.ts'
import {
  SESSION_COOKIE,
  accessTokenFromHeader,
  type CredentialStore,
} from './credentials.ts'
import { principalOf } from './principal.ts'
import { cookieValue, httpOnlyCookie } from '#server/cookies.ts'

const LoginSchema = z.object({
  username: z.string().trim().toLowerCase().pipe(z.literal('token', { errorMap: () => ({ message: 'username must be "token"' }) })),
  password: z.string().min(1, 'password is required'),
})

function isSecure(req: Request): boolean {
  return req.secure
}

function sessionCookie(req: Request, value: string, maxAgeSeconds: number): string {
  return httpOnlyCookie(SESSION_COOKIE, value, { maxAgeSeconds, secure: isSecure(req) })
}

/**
 * Sign-in placeholder in the shape of the platform's basic-auth mode (`POST /auth/login`):
 * an access token exchanged for a server-side session held in PostgreSQL.
 */
export function createIdentityRouter(options: { store: CredentialStore; db: Db; authorizer: Authorizer }): express.Router {
  const { store, db, authorizer } = options
  const router = express.Router()

  router.post('/auth/login', express.json({ limit: '16kb' }), async (req: Request, res: Response) => {
    const fromHeader = accessTokenFromHeader(req.headers.authorization)
    const parsed = fromHeader
      ? { success: true as const, data: { username: 'token', password: fromHeader } }
      : LoginSchema.safeParse(req.body ?? {})
    if (!parsed.success) {
      res.status(400).json({ error: 'credentials required', message: parsed.error.issues.map((i) => i.message).join('; ') })
      return
    }
    const principal = await store.resolveAccessToken(parsed.data.password)
    if (!principal) {
      res.status(401).json({ error: 'invalid credentials' })
      return
    }
    const { id, expiresAt } = await store.createSession(principal, {
      userAgent: req.headers['user-agent'],
      ip: req.ip,
    })
    const maxAge = Math.max(0, Math.floor((expiresAt.getTime() - Date.now()) / 1000))
    res.setHeader('Set-Cookie', sessionCookie(req, id, maxAge))
    res.json({ message: 'logged in' })
  })

  const logout = async (req: Request, res: Response) => {
    const sessionId = cookieValue(req.headers.cookie, SESSION_COOKIE)
    if (sessionId) await store.deleteSession(sessionId)
    res.setHeader('Set-Cookie', sessionCookie(req, '', 0))
    res.json({ message: 'logged out' })
  }
  router.post('/auth/logout', logout)
  // Signing out changes state, so a link or an image from another site must not do it.
  router.get('/auth/logout', (_req, res) => {
    res.setHeader('Allow', 'POST')
    res.status(405).json({ error: 'method_not_allowed', message: 'sign out with POST /auth/logout' })
  })

  // Roles come from casbin (plus any the credential implies), permissions are the effective
  // rules the console turns into its client-side authoriser (http-api.md §2.1.1).
  router.get('/auth/whoami', async (_req, res, next) => {
    try {
      const principal = principalOf(res)
      const { rows } = await db.query<{ avatar: string | null; type: string | null; external_id: string | null; properties: unknown }>(
        'SELECT avatar, type, external_id, properties FROM people WHERE id = $1',
        [principal.personId],
      )
      const person = rows[0]
      const [roles, permissions] = await Promise.all([authorizer.rolesOf(principal), authorizer.effectivePermissions(principal)])
      res.json({
        message: 'success',
        payload: {
          user: {
            id: principal.personId,
            name: principal.name,
            ...(principal.email ? { email: principal.email } : {}),
            ...(person?.avatar ? { avatar: person.avatar } : {}),
            ...(person?.type ? { type: person.type } : {}),
            ...(person?.external_id ? { external_id: person.external_id } : {}),
            ...(person?.properties && typeof person.properties === 'object' ? { properties: person.properties } : {}),
          },
          roles,
          permissions,
        },
      })
    } catch (error) {
      next(error)
    }
  })

  return router
}
