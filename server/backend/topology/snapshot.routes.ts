import express, { type NextFunction, type Request, type Response } from 'express'
import type { Logger } from 'pino'
import type { Db } from '#server/db/client.ts'
import type { Principal } from '#server/backend/identity/principal.ts'
import type { Authorizer } from '#server/backend/rbac/authorizer.ts'
import { configVisibility, EVERY_CONFIG } from '#server/backend/catalog/config-access.ts'
import { parseTimeParam, SummaryInputError } from '#server/backend/health/canary-summary.ts'
import { connectionError } from '#server/backend/postgrest/errors.ts'
import { isUuid } from '#contract/uuid.ts'
import { componentVisibility, EVERY_COMPONENT } from './component-access.ts'
import { snapshotFileName, snapshotTopology } from './topology-snapshot.ts'

const FAILED = 'Error snapshotting topology'

function firstString(value: unknown): string | undefined {
  if (Array.isArray(value)) return firstString(value[0])
  return typeof value === 'string' ? value : undefined
}

class SnapshotInputError extends Error {}

/**
 * Mission Control's `/snapshot` sub-base (http-api §2.7.4), mounted by the backend at
 * `/snapshot`. The route table (rbac/route-access.ts) asks topology:read before any of this runs.
 * Errors keep the reference's pair `{"error": <detail>, "message": "Error snapshotting topology"}`.
 */
export function createSnapshotRouter(options: { db: Db; authorizer?: Authorizer; logger: Logger }): express.Router {
  const { db, authorizer, logger } = options
  const router = express.Router()

  router.get('/topology/:id', (req: Request, res: Response, next: NextFunction) => {
    void (async () => {
      const id = req.params.id!
      const now = new Date()
      let input: { start: Date; end: Date; related: boolean; logFormat: 'log' | 'json' }
      try {
        if (!isUuid(id)) throw new SnapshotInputError('id must be a component id')
        const start = parseTimeParam(firstString(req.query.start) ?? '15m', now, 'start')!
        const end = parseTimeParam(firstString(req.query.end), now, 'end') ?? now
        if (end.getTime() < start.getTime()) throw new SnapshotInputError('end must not be before start')
        const relatedText = (firstString(req.query.related) ?? 'false').trim().toLowerCase()
        if (!['true', 'false', '1', '0', ''].includes(relatedText)) throw new SnapshotInputError('related must be true or false')
        const format = (firstString(req.query.logFormat) ?? 'log').trim().toLowerCase()
        if (format !== 'log' && format !== 'json') throw new SnapshotInputError('logFormat must be log or json')
        input = { start, end, related: relatedText === 'true' || relatedText === '1', logFormat: format }
      } catch (error) {
        if (!(error instanceof SnapshotInputError) && !(error instanceof SummaryInputError)) throw error
        res.status(400).json({ error: error.message, message: FAILED })
        return
      }
      try {
        const principal = res.locals.principal as Principal | undefined
        const visibility = {
          components: authorizer ? await componentVisibility(authorizer, principal) : EVERY_COMPONENT,
          configs: authorizer ? await configVisibility(authorizer, principal) : EVERY_CONFIG,
        }
        const zip = await snapshotTopology(db, { id, ...input, now }, visibility)
        if (!zip) {
          res.status(404).json({ error: `component ${id} not found`, message: FAILED })
          return
        }
        res
          .status(200)
          .type('application/zip')
          .set('Content-Disposition', `attachment; filename="${snapshotFileName(now)}"`)
          .set('Cache-Control', 'no-store')
          .send(Buffer.from(zip.buffer, zip.byteOffset, zip.byteLength))
      } catch (error) {
        // A database outage is answered 503 by the backend's error handler, like every route.
        if (connectionError(error)) throw error
        logger.error({ err: error, component: id }, 'topology snapshot failed')
        res.status(500).json({ error: 'the snapshot could not be built (see the server log)', message: FAILED })
      }
    })().catch(next)
  })

  return router
}
