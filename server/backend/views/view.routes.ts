import express, { type NextFunction, type Request, type Response } from 'express'
import type { Logger } from 'pino'
import { z } from 'zod'
import type { Db } from '#server/db/client.ts'
import type { Principal } from '#server/backend/identity/principal.ts'
import type { Authorizer } from '#server/backend/rbac/authorizer.ts'
import { subjectOf } from '#server/backend/rbac/exec-permission.ts'
import { configVisibility, type ConfigVisibility } from '#server/backend/catalog/config-access.ts'
import { selectorSource, SelectorSchema } from '#server/backend/catalog/resource-search.ts'
import { Params } from '#server/backend/postgrest/sql-builder.ts'
import type { TargetGuard } from '#server/backend/health/checks/target-guard.ts'
import { isUuid } from '#contract/uuid.ts'
import { ResourceValidationError } from '#contract/resource-document.ts'
import { evaluateView, type ViewRow } from './view-evaluate.ts'
import { ViewQueryError } from './view-sql.ts'

/**
 * The views API (http-api §2.4): `POST /view/{id}` and `/view/{namespace}/{name}` answer the
 * definition, panels and refresh metadata (rows are read from `view_<ns>_<name>` through
 * /api/db), `GET /view/list?config_id=` the views shown as tabs of a config item.
 */

const BodySchema = z.object({ variables: z.record(z.string(), z.string({ invalid_type_error: 'variables must be strings' })).optional() }).passthrough()

/** `Cache-Control: max-age=<s>, refresh-timeout=<s>` (no-cache: max-age=0); anything else is a 400. */
export function parseCacheControl(header: string | undefined): { maxAgeSeconds?: number; refreshTimeoutSeconds?: number } {
  if (!header?.trim()) return {}
  const out: { maxAgeSeconds?: number; refreshTimeoutSeconds?: number } = {}
  for (const part of header.split(',').map((entry) => entry.trim()).filter(Boolean)) {
    const [name, value] = part.split('=', 2).map((entry) => entry.trim().toLowerCase())
    if ((name === 'no-cache' || name === 'no-store') && value === undefined) out.maxAgeSeconds = 0
    else if ((name === 'max-age' || name === 'refresh-timeout') && value !== undefined && /^\d+$/.test(value)) {
      if (name === 'max-age') out.maxAgeSeconds = Number(value)
      else out.refreshTimeoutSeconds = Number(value)
    } else throw new ViewQueryError(`invalid Cache-Control header "${header}": expected max-age=<seconds>, refresh-timeout=<seconds>`)
  }
  return out
}

type StoredView = ViewRow & { labels: Record<string, unknown> | null }

const VIEW_COLUMNS = 'id, name, namespace, spec, labels, created_at, updated_at'

export function createViewRouter(options: { db: Db; authorizer: Authorizer; logger: Logger; targets: TargetGuard; onSchemaChange?: () => Promise<void> }): express.Router {
  const { db, authorizer } = options
  const router = express.Router()
  router.use(express.json({ limit: '1mb' }))

  const principalOf = (res: Response) => res.locals.principal as Principal | undefined

  async function mayRead(principal: Principal | undefined, view: StoredView): Promise<boolean> {
    if (!principal) return false
    const tags = Object.fromEntries(Object.entries(view.labels ?? {}).map(([key, value]) => [key, String(value)]))
    const decision = await authorizer.authorize(subjectOf(principal), { object: 'views', action: 'read', resource: { kind: 'view', id: view.id, name: view.name, namespace: view.namespace ?? 'default', tags } })
    return decision.allowed
  }

  async function answer(req: Request, res: Response, view: StoredView | undefined, label: string): Promise<void> {
    if (!view) {
      res.status(404).json({ error: `view(${label}) not found` })
      return
    }
    const principal = principalOf(res)
    if (!(await mayRead(principal, view))) {
      res.status(403).json({ error: `access denied to view ${view.namespace ?? 'default'}/${view.name}`, code: 'forbidden' })
      return
    }
    const body = BodySchema.safeParse(req.method === 'POST' ? (req.body ?? {}) : {})
    if (!body.success) {
      res.status(400).json({ error: `invalid post body: ${body.error.issues[0]?.message ?? 'bad value'}` })
      return
    }
    const cache = parseCacheControl(req.get('cache-control'))
    const visibility: ConfigVisibility = await configVisibility(authorizer, principal)
    const result = await evaluateView(view, body.data.variables ?? {}, { db, logger: options.logger, visibility, targets: options.targets, onSchemaChange: options.onSchemaChange, ...cache })
    res.set('Cache-Control', 'private, no-store').json(result)
  }

  const handle = (fn: (req: Request, res: Response) => Promise<void>) => (req: Request, res: Response, next: NextFunction) => {
    fn(req, res).catch((error: unknown) => {
      if (error instanceof ViewQueryError || error instanceof ResourceValidationError) {
        res.status(400).json({ error: error.message })
        return
      }
      next(error)
    })
  }

  router.get(
    '/list',
    handle(async (req, res) => {
      const configId = typeof req.query.config_id === 'string' ? req.query.config_id : ''
      if (!configId) {
        res.status(400).json({ error: 'config_id is required' })
        return
      }
      const principal = principalOf(res)
      const visibility = await configVisibility(authorizer, principal)
      const exists = isUuid(configId) ? await configMatches(db, configId, {}, visibility) : false
      if (!exists) {
        res.status(404).json({ error: `config(id=${configId}) not found` })
        return
      }
      const { rows } = await db.query<StoredView>(
        `SELECT ${VIEW_COLUMNS} FROM views WHERE deleted_at IS NULL AND jsonb_typeof(spec -> 'display' -> 'plugins') = 'array' ORDER BY name`,
      )
      const tabs: { id: string; name: string; namespace: string; title: string; icon?: string }[] = []
      for (const view of rows) {
        const plugins = ((view.spec as { display?: { plugins?: { configTab?: unknown }[] } }).display?.plugins ?? [])
        let matched = false
        for (const plugin of plugins) {
          const selector = SelectorSchema.safeParse(plugin.configTab ?? {})
          if (selector.success && (await configMatches(db, configId, selector.data, visibility))) {
            matched = true
            break
          }
        }
        if (!matched || !(await mayRead(principal, view))) continue
        const display = (view.spec as { display?: { title?: string; icon?: string } }).display
        tabs.push({ id: view.id, name: view.name, namespace: view.namespace ?? 'default', title: display?.title ?? view.name, ...(display?.icon ? { icon: display.icon } : {}) })
      }
      res.json(tabs)
    }),
  )

  const byId = handle(async (req, res) => {
    const id = req.params.id!
    const { rows } = isUuid(id) ? await db.query<StoredView>(`SELECT ${VIEW_COLUMNS} FROM views WHERE id = $1 AND deleted_at IS NULL`, [id]) : { rows: [] }
    await answer(req, res, rows[0], `id=${id}`)
  })
  const byName = handle(async (req, res) => {
    const { namespace, name } = req.params as { namespace: string; name: string }
    const { rows } = await db.query<StoredView>(
      `SELECT ${VIEW_COLUMNS} FROM views WHERE deleted_at IS NULL AND coalesce(namespace, 'default') = $1 AND name = $2 ORDER BY created_at DESC LIMIT 1`,
      [namespace, name],
    )
    await answer(req, res, rows[0], `namespace=${namespace}, name=${name}`)
  })
  router.post('/:id', byId)
  router.get('/:id', byId)
  router.post('/:namespace/:name', byName)
  router.get('/:namespace/:name', byName)
  return router
}

/** Whether the config item is visible to the caller and matches the selector. */
async function configMatches(db: Db, configId: string, selector: z.infer<typeof SelectorSchema>, visibility: ConfigVisibility): Promise<boolean> {
  const params = new Params()
  const { from, conditions } = selectorSource('configs', { ...selector, id: configId }, visibility, params)
  const { rows } = await db.query(`SELECT 1 FROM ${from} WHERE ${conditions.join(' AND ')} LIMIT 1`, params.values)
  return rows.length > 0
}
