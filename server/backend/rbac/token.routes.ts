import express, { type NextFunction, type Request, type Response } from 'express'
import { stringify } from 'yaml'
import { z } from 'zod'
import type { Db } from '#server/db/client.ts'
import { principalOf } from '#server/backend/identity/principal.ts'
import { TokenError, createScopedToken, deleteToken, listTokens, rotateKubeconfigToken } from './access-tokens.ts'
import type { Authorizer } from './authorizer.ts'
import { UUID_PATTERN } from '#contract/uuid.ts'

const CreateTokenSchema = z.object({
  name: z.string({ required_error: 'Name is required', invalid_type_error: 'Name is required' }),
  expiry: z.string().optional(),
  auto_renew: z.boolean().optional(),
  scope: z.unknown().optional(),
})

function sendTokenError(res: Response, error: unknown, next: NextFunction) {
  if (error instanceof TokenError) {
    if (error.status === 403) {
      res.status(403).type('text/plain').send(error.message)
      return
    }
    res.status(error.status).json({ error: error.message })
    return
  }
  next(error)
}

/** The kubeconfig's tenant: the public host without the hosting domain (http-api.md §2.1.10). */
function tenantOf(host: string): string {
  return host.replace(/:\d+$/, '').replace(/\.flanksource\.com$/, '') || 'lookout'
}

/**
 * The host the caller used. X-Forwarded-Host is still on the request only when it may be
 * believed — from a trusted proxy (LOOKOUT_TRUST_PROXY) or the console's own loopback call;
 * server/ops/client-address.ts removes it otherwise — so the kubeconfig names the public host.
 */
function requestHost(req: Request): string {
  const forwarded = req.get('x-forwarded-host')?.split(',')[0]?.trim()
  return forwarded || req.get('host') || 'localhost'
}

function parseUrl(text: string): URL | null {
  try {
    return new URL(text)
  } catch {
    return null
  }
}

/**
 * `/auth/create_token`, `/auth/tokens`, `/auth/token/{id}` and `/kubeconfig`. Secrets appear
 * once, in the create response body (and the kubeconfig file); nothing here logs them.
 */
export function createTokenRouter(options: {
  db: Db
  authorizer: Authorizer
  publicUrl?: string
  /** This process forgets a deleted token at once; other processes hear the database's NOTIFY. */
  onTokenDeleted?: (tokenId: string) => void
}): express.Router {
  const { db, authorizer } = options
  const router = express.Router()

  router.post('/auth/create_token', express.json({ limit: '64kb' }), async (req, res, next) => {
    try {
      const parsed = CreateTokenSchema.safeParse(req.body ?? {})
      if (!parsed.success) {
        res.status(400).json({ error: parsed.error.issues.map((issue) => issue.message).join('; ') })
        return
      }
      const principal = principalOf(res)
      const created = await createScopedToken(db, {
        creator: { personId: principal.personId, email: principal.email, roles: await authorizer.rolesOf(principal) },
        name: parsed.data.name,
        expiry: parsed.data.expiry,
        autoRenew: parsed.data.auto_renew,
        scope: parsed.data.scope,
      })
      authorizer.invalidate()
      req.log?.info({ tokenId: created.id, personId: created.personId }, 'access token created')
      res.json({ message: 'success', payload: { token: created.token } })
    } catch (error) {
      sendTokenError(res, error, next)
    }
  })

  router.get('/auth/tokens', async (_req, res, next) => {
    try {
      res.json({ message: 'success', payload: await listTokens(db) })
    } catch (error) {
      next(error)
    }
  })

  router.delete('/auth/token/:id?', async (req, res, next) => {
    try {
      const id = req.params.id ?? ''
      if (!id) {
        res.status(400).json({ error: 'token id is required' })
        return
      }
      if (!UUID_PATTERN.test(id)) {
        res.status(400).json({ error: `invalid token id ${JSON.stringify(id.slice(0, 64))}` })
        return
      }
      const principal = principalOf(res)
      const roles = await authorizer.rolesOf(principal)
      await deleteToken(db, id, { personId: principal.personId, isAdmin: roles.includes('admin') })
      options.onTokenDeleted?.(id)
      authorizer.invalidate()
      res.json({ message: 'success' })
    } catch (error) {
      sendTokenError(res, error, next)
    }
  })

  router.get('/kubeconfig', async (req: Request, res: Response, next: NextFunction) => {
    try {
      const principal = principalOf(res)
      const url = parseUrl(options.publicUrl ?? `${req.protocol}://${requestHost(req)}`)
      if (!url) {
        res.status(400).json({ error: 'the request names no valid host' })
        return
      }
      const tenant = tenantOf(url.host)
      const { id, token, revoked } = await rotateKubeconfigToken(db, principal.personId)
      req.log?.info({ tokenId: id, personId: principal.personId, revoked }, 'kubeconfig token rotated')
      const cluster = `lookout-${tenant}`
      const kubeconfig = {
        apiVersion: 'v1',
        kind: 'Config',
        clusters: [{ name: cluster, cluster: { server: `${url.origin}${url.pathname.replace(/\/$/, '')}/kubeproxy` } }],
        users: [{ name: 'token', user: { username: 'token', password: token } }],
        contexts: [{ name: 'default', context: { cluster, user: 'token' } }],
        'current-context': 'default',
      }
      res.setHeader('Content-Disposition', `attachment; filename=${tenant}-kubeconfig.yaml`)
      res.setHeader('Cache-Control', 'no-store')
      res.type('text/yaml').send(stringify(kubeconfig))
    } catch (error) {
      next(error)
    }
  })

  return router
}
