import express, { type NextFunction, type Request, type Response } from 'express'
import type { Logger } from 'pino'
import { z } from 'zod'
import type { Db } from '#server/db/client.ts'
import type { Principal } from '#server/backend/identity/principal.ts'
import type { Authorizer } from '#server/backend/rbac/authorizer.ts'
import { configVisibility } from '#server/backend/catalog/config-access.ts'
import { createCheckTrust } from '#server/backend/health/check-trust.ts'
import type { AllowedTarget } from '#server/backend/health/checks/target-guard.ts'
import { connectionError } from '#server/backend/postgrest/errors.ts'
import { componentVisibility } from '#server/backend/topology/component-access.ts'
import { LOG_SEARCH_MAX_LIMIT } from '#contract/logs/log-search.ts'
import { LogInputError } from './log-line.ts'
import { LogBackendError, LogNotFoundError, searchLogs } from './log-search.ts'

const labelValue = z.union([z.string(), z.number(), z.boolean()]).transform(String)

/** http-api §2.7.3 plus what a search needs beyond apm-hub's body: a backend by name, a time range, a query and a limit. */
const LogSearchBodySchema = z
  .object({
    id: z.string().uuid('id must be a component or config item id').optional(),
    name: z.string().trim().min(1, 'name must not be empty').max(200).optional(),
    backend: z.string().trim().min(1, 'backend must not be empty').max(200).optional(),
    start: z.string().max(100).optional(),
    end: z.string().max(100).optional(),
    labels: z.record(z.string().min(1).max(200), labelValue, { invalid_type_error: 'labels must be an object of names to values' }).optional(),
    query: z.string().max(4000, 'query must be at most 4000 characters').optional(),
    limit: z.coerce.number().int('limit must be a whole number').min(1, 'limit must be at least 1').max(LOG_SEARCH_MAX_LIMIT, `limit must be at most ${LOG_SEARCH_MAX_LIMIT}`).optional(),
  })
  .strip()

/**
 * Mission Control's `/logs` sub-base (http-api §2.7.3): `POST /logs` searches the log backends
 * this Lookout runs (server/backend/logs) instead of forwarding to apm-hub, and answers the
 * `{total, results}` the console expects. The route table asks `logs:read` before this runs.
 */
export function createLogsRouter(options: { db: Db; authorizer: Authorizer; logger: Logger; allowedTargets: AllowedTarget[] }): express.Router {
  const { db, authorizer, logger, allowedTargets } = options
  const trust = createCheckTrust({ db, authorizer, relation: 'logging_backends' })
  const router = express.Router()
  router.use(express.json({ limit: '64kb' }))

  router.post('/', (req: Request, res: Response, next: NextFunction) => {
    void (async () => {
      const body = LogSearchBodySchema.safeParse(req.body ?? {})
      if (!body.success) {
        res.status(400).json({ error: 'invalid', message: body.error.issues.map((issue) => (issue.path.length ? `${issue.path.join('.')}: ${issue.message}` : issue.message)).join('; ') })
        return
      }
      const principal = res.locals.principal as Principal | undefined
      const abort = new AbortController()
      res.on('close', () => abort.abort())
      try {
        const answer = await searchLogs(body.data, {
          db,
          trust,
          allowedTargets,
          components: await componentVisibility(authorizer, principal),
          configs: await configVisibility(authorizer, principal),
          signal: abort.signal,
        })
        res.set('Cache-Control', 'no-store').json(answer)
      } catch (error) {
        if (error instanceof LogInputError) {
          res.status(400).json({ error: 'invalid', message: error.message })
        } else if (error instanceof LogNotFoundError) {
          res.status(404).json({ error: 'not_found', message: error.message })
        } else if (error instanceof LogBackendError) {
          logger.warn({ err: error.cause }, error.message)
          res.status(502).json({ error: 'backend_failed', message: error.message })
        } else {
          if (!connectionError(error)) logger.error({ err: error }, 'log search failed')
          throw error
        }
      }
    })().catch(next)
  })

  return router
}
