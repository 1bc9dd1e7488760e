import express, { type NextFunction, type Request, type Response } from 'express'
import type { Logger } from 'pino'
import type { Db } from '#server/db/client.ts'
import { isUuid } from '#contract/uuid.ts'
import type { Principal } from '#server/backend/identity/principal.ts'
import type { Authorizer } from '#server/backend/rbac/authorizer.ts'
import { holdsExec, subjectOf } from '#server/backend/rbac/exec-permission.ts'
import { restrictedGuard, UNRESTRICTED, type AllowedTarget, type TargetGuard } from '#server/backend/health/checks/target-guard.ts'
import { assertResolvable, ConnectionSecretError, openConnectionRow, type OpenedConnection } from './connection-secrets.ts'
import { probeConnection, ProbeError } from './connection-probes.ts'
import { SecretSealError } from '#server/backend/secrets/sealed-secrets.ts'

export type ConnectionRouterOptions = {
  db: Db
  authorizer: Authorizer
  logger?: Logger
  /** LOOKOUT_CHECK_ALLOWED_TARGETS: what a fenced test may still reach. */
  allowedTargets?: AllowedTarget[]
  /** How long a probe may take (http-api §2.7.1 leaves it to the server; 10 s). */
  probeTimeoutMs?: number
}

type ConnectionRow = {
  id: string
  name: string
  namespace: string
  type: string
  url: string | null
  username: string | null
  password: string | null
  certificate: string | null
  properties: Record<string, unknown> | null
  insecure_tls: boolean | null
}

/**
 * `/connection` (http-api §2.7.1). The route table already demands `connection:update`
 * (route-access.ts); the concrete connection is judged again here so a permission narrowed to
 * some connections does not reach the others.
 *
 * Where a test may connect: what an editor configured, from this server's network position. A
 * caller without the exec permission gets the fence of untrusted canaries (target-guard.ts): not
 * this server's own or link-local addresses (LOOKOUT_CHECK_ALLOWED_TARGETS excepted), and no
 * folders or local git repositories, which are this server's files. Otherwise a connection test
 * would be a way round the fence the checks keep: point a connection at 127.0.0.1:5432 and read
 * from the answer whether the server's own database lets you in.
 */
export function createConnectionRouter(options: ConnectionRouterOptions): express.Router {
  const { db, authorizer } = options
  const router = express.Router()
  const fenced = restrictedGuard(options.allowedTargets ?? [])

  async function targetsFor(principal: Principal | undefined): Promise<TargetGuard> {
    if (!principal) return fenced
    return (await holdsExec(authorizer, subjectOf(principal))) ? UNRESTRICTED : fenced
  }

  router.post('/test/:id', (req: Request, res: Response, next: NextFunction) => {
    void (async () => {
      const id = req.params.id ?? ''
      const row = isUuid(id)
        ? (
            await db.query<ConnectionRow>(
              'SELECT id, name, namespace, type, url, username, password, certificate, properties, insecure_tls FROM connections WHERE id = $1 AND deleted_at IS NULL',
              [id],
            )
          ).rows[0]
        : undefined
      if (!row) {
        res.status(404).json({ error: 'connection was not found' })
        return
      }
      const principal = res.locals.principal as Principal | undefined
      if (principal) {
        const resource = { kind: 'connection' as const, id: row.id, name: row.name, namespace: row.namespace, type: row.type }
        const decision = await authorizer.authorize(subjectOf(principal), { object: 'connection', action: 'update', resource })
        if (!decision.allowed) {
          res.status(403).json({ error: `you may not test connection ${row.namespace}/${row.name} (connection:update)` })
          return
        }
      }
      let connection: OpenedConnection
      try {
        const opened = await openConnectionRow(db, row)
        connection = {
          id: opened.id,
          name: opened.name,
          namespace: opened.namespace,
          type: opened.type,
          url: opened.url,
          username: opened.username,
          password: opened.password,
          certificate: opened.certificate,
          properties: opened.properties ?? {},
          insecureTls: opened.insecure_tls ?? false,
        }
        assertResolvable(connection)
      } catch (error) {
        if (error instanceof ConnectionSecretError || error instanceof SecretSealError) {
          res.status(400).json({ error: error.message })
          return
        }
        throw error
      }
      try {
        const outcome = await probeConnection(connection, { targets: await targetsFor(principal), timeoutMs: options.probeTimeoutMs })
        res.json({ message: 'ok', payload: outcome })
      } catch (error) {
        if (!(error instanceof ProbeError)) throw error
        res.status(400).json({ error: error.message })
      }
    })().catch(next)
  })

  return router
}
