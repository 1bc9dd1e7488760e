import express, { type NextFunction, type Request, type Response } from 'express'
import { z } from 'zod'
import type { Db } from '#server/db/client.ts'
import type { Principal } from '#server/backend/identity/principal.ts'
import type { Authorizer } from '#server/backend/rbac/authorizer.ts'
import type { Logger } from 'pino'
import { createChangeWindows } from './change-windows.ts'
import { isUuid } from '#contract/uuid.ts'
import { CatalogInputError } from './catalog-input.ts'
import { catalogSummary, SummaryRequestSchema } from './catalog-summary.ts'
import { catalogChanges, ChangesRequestSchema } from './catalog-changes.ts'
import { configRelationships, RelationshipsQuerySchema } from './config-relationships.ts'
import { configVisibility } from './config-access.ts'
import { resourceSearch, SearchRequestSchema } from './resource-search.ts'

/**
 * The catalog API (http-api.md §2.2): `/catalog/summary`, `/catalog/changes`,
 * `/catalog/{id}/relationships` and `/resources/search`. Route access (catalog:read) is
 * decided before these routers by requireRouteAccess; row-level access (config-access.ts)
 * inside every statement. Errors use the application shape `{"error": "..."}`.
 */

type Handler = (req: Request, res: Response) => Promise<void>
const handle = (fn: Handler) => (req: Request, res: Response, next: NextFunction) => void fn(req, res).catch(next)

export type CatalogRouterOptions = { db: Db; authorizer: Authorizer; logger?: Logger }

function sendJsonText(res: Response, body: string): void {
  res.type('application/json').send(body)
}

function zodMessage(error: z.ZodError): string {
  const issue = error.issues[0]!
  return `bad request: ${issue.path.length ? `${issue.path.join('.')}: ` : ''}${issue.message}`
}

/** Body parsing and the 400s every route shares. */
function jsonBody(): (express.RequestHandler | express.ErrorRequestHandler)[] {
  return [
    express.json({ limit: '256kb' }),
    (error: unknown, _req: Request, res: Response, next: NextFunction) => {
      const status = (error as { status?: number }).status
      if (status && status >= 400 && status < 500) {
        res.status(status).json({ error: `bad request: invalid JSON: ${(error as Error).message}` })
        return
      }
      next(error)
    },
  ]
}

function inputErrors(error: unknown, _req: Request, res: Response, next: NextFunction): void {
  if (error instanceof z.ZodError) {
    res.status(400).json({ error: zodMessage(error) })
    return
  }
  if (error instanceof CatalogInputError) {
    res.status(400).json({ error: error.message })
    return
  }
  next(error)
}

function bodyOf(req: Request): unknown {
  // An empty POST asks with every default.
  return req.body === undefined || (typeof req.body === 'object' && req.body !== null && Object.keys(req.body).length === 0) ? {} : req.body
}

export function createCatalogRouter(options: CatalogRouterOptions): express.Router {
  const { db, authorizer } = options
  const windows = createChangeWindows(db, (error) => options.logger?.warn({ err: error }, 'change window counts not refreshed'))
  const router = express.Router()
  router.use(jsonBody())
  const visibilityOf = (res: Response) => configVisibility(authorizer, res.locals.principal as Principal | undefined)

  router.post('/summary', handle(async (req, res) => {
    const request = SummaryRequestSchema.parse(bodyOf(req))
    sendJsonText(res, await catalogSummary(db, request, await visibilityOf(res), windows))
  }))

  const changes: Handler = async (req, res) => {
    const source = req.method === 'GET' ? req.query : bodyOf(req)
    const request = ChangesRequestSchema.parse(source)
    sendJsonText(res, await catalogChanges(db, request, await visibilityOf(res)))
  }
  router.post('/changes', handle(changes))
  // Deprecated, still served: the same names as query parameters (http-api.md §2.2.2).
  router.get('/changes', handle(changes))

  router.get('/:id/relationships', handle(async (req, res) => {
    const id = req.params.id!
    if (!isUuid(id)) {
      res.status(400).json({ error: `bad request: invalid config id "${id}"` })
      return
    }
    const query = RelationshipsQuerySchema.parse(req.query)
    const body = await configRelationships(db, id, query, await visibilityOf(res))
    if (body === null) {
      res.status(404).json({ error: `config item ${id} was not found` })
      return
    }
    sendJsonText(res, body)
  }))

  router.use(inputErrors)
  return router
}

export function createResourceSearchRouter(options: CatalogRouterOptions): express.Router {
  const { db, authorizer } = options
  const router = express.Router()
  router.use(jsonBody())
  router.post('/search', handle(async (req, res) => {
    const request = SearchRequestSchema.parse(bodyOf(req))
    const principal = res.locals.principal as Principal | undefined
    const mayRead = async (object: string) => !principal || (await authorizer.authorize(principal, { object, action: 'read' })).allowed
    sendJsonText(res, await resourceSearch(db, request, await configVisibility(authorizer, principal), mayRead))
  }))
  router.use(inputErrors)
  return router
}
