import express, { type NextFunction, type Request, type Response } from 'express'
import type { Logger } from 'pino'
import { z } from 'zod'
import type { Db } from '#server/db/client.ts'
import type { Principal } from '#server/backend/identity/principal.ts'
import type { Authorizer } from '#server/backend/rbac/authorizer.ts'
import { execDeniedMessage, holdsExec, processParts, subjectOf } from '#server/backend/rbac/exec-permission.ts'
import { isUuid } from '#contract/uuid.ts'
import { createScrapeEngine, type ScrapeEngine } from './scrape-engine.ts'

/**
 * config-db's HTTP surface (mounted at /config, so `/api/config/...` in the browser): run a
 * scraper now (http-api §2.9). Route access (`config_scrapers` create) is checked before this
 * router; running a scraper that starts a process also needs the exec permission.
 */
export type ConfigRouterOptions = { db: Db; logger: Logger; engine?: ScrapeEngine; authorizer?: Authorizer }

const flag = z.boolean().optional()
const RunNowBody = z
  .object({
    async: flag,
    captureHAR: flag,
    capture_har: flag,
    captureLogs: flag,
    capture_logs: flag,
    captureSnapshots: flag,
    capture_snapshots: flag,
    // The UI sends a log level; the version of config-db read ignores it, and so does this one.
    logLevel: z.unknown().optional(),
  })
  .passthrough()

const RUN_NOW_BODY_LIMIT = '8kb'

export function createConfigRouter(options: ConfigRouterOptions): express.Router {
  const { db, logger } = options
  const engine = options.engine ?? createScrapeEngine({ db, logger })
  const router = express.Router()
  const parseBody = express.json({ limit: RUN_NOW_BODY_LIMIT, strict: false })

  router.post(
    '/run/:id',
    (req: Request, res: Response, next: NextFunction) => {
      parseBody(req, res, (error?: unknown) => {
        if (!error) return next()
        const tooLarge = (error as { type?: string }).type === 'entity.too.large'
        res.status(400).json({ message: tooLarge ? `request body is larger than ${RUN_NOW_BODY_LIMIT}` : `invalid request body: ${(error as Error).message}` })
      })
    },
    (req: Request, res: Response, next: NextFunction) => {
      void (async () => {
        const body = req.body === undefined || req.body === null || (typeof req.body === 'object' && Object.keys(req.body as object).length === 0) ? {} : req.body
        const parsed = RunNowBody.safeParse(body)
        if (!parsed.success) {
          const issue = parsed.error.issues[0]!
          res.status(400).json({ message: `invalid request body: ${issue.path.length > 0 ? `${issue.path.join('.')}: ` : ''}${issue.message}` })
          return
        }
        const id = req.params.id!
        const notFound = () => res.status(404).json({ message: `scraper with id=${id} was not found` })
        if (!isUuid(id)) return void notFound()
        const { rows } = await db.query<{ spec: unknown }>('SELECT spec FROM config_scrapers WHERE id = $1 AND deleted_at IS NULL', [id])
        if (rows.length === 0) return void notFound()
        const parts = processParts('scraper', rows[0]!.spec)
        if (parts.length > 0) {
          const principal = res.locals.principal as Principal | undefined
          const allowed = principal && options.authorizer ? await holdsExec(options.authorizer, subjectOf(principal)) : false
          if (!allowed) {
            res.status(403).json({ message: execDeniedMessage('scraper', parts[0]!) })
            return
          }
        }
        const outcome = await engine.runNow(id, { async: parsed.data.async === true })
        if (!outcome) return void notFound()
        res.json({
          message: 'success',
          payload: {
            job_history_id: outcome.jobHistoryId,
            status: outcome.status,
            ...(outcome.summary ? { scrape_summary: outcome.summary } : {}),
            ...(outcome.errors && outcome.errors.length > 0 ? { errors: outcome.errors } : {}),
          },
        })
      })().catch(next)
    },
  )
  return router
}
