import express, { type NextFunction, type Request, type Response } from 'express'
import { parseCelExpression } from '#server/backend/health/cel-library.ts'
import type { Logger } from 'pino'
import type { z } from 'zod'
import {
  IN_PROGRESS_STATUSES,
  NotificationSummaryBodySchema,
  SILENCE_RESOURCE_KEYS,
  SilenceBodySchema,
  SilencePreviewBodySchema,
  SUPPRESSED_STATUSES,
  type NotificationSummaryBody,
  type NotificationSummaryGroup,
  type SilenceTarget,
} from '#contract/notifications/notification-api.ts'
import { isUuid } from '#contract/uuid.ts'
import type { Db } from '#server/db/client.ts'
import type { Principal } from '#server/backend/identity/principal.ts'
import type { Authorizer } from '#server/backend/rbac/authorizer.ts'
import { Params } from '#server/backend/postgrest/sql-builder.ts'
import { CatalogInputError, filterExpressionSql, parseDateMath, selectorSql } from '#server/backend/catalog/catalog-input.ts'
import { historyVisibility, visibleHistoryConditions } from './notification-access.ts'
import { SelectorError, toSearchSelector } from '#server/backend/topology/component-selectors.ts'
import { loadNotificationContext, type NotificationContext, type NotificationEvent } from './notification-context.ts'
import { coveredResourceIds, createSilenceMatcher, type SilenceScope } from './silence-coverage.ts'

/**
 * The notification API of http-api §2.3 and §2.7.5, mounted at /notification (so
 * `/api/notification/...` in the browser): silences, the silence preview, the per-resource
 * summary and one send-history row. The route table (rbac/route-access.ts) has already checked
 * `notification:create` / `notification:read`; the reads add row-level security (config and
 * component scopes). Silences and send history are what the delivery pipeline
 * (notification-matching.ts) writes and reads; the preview evaluates a silence over the same
 * variables (loadNotificationContext) the pipeline gives a silence's filter.
 */

export type NotificationRouterOptions = { db: Db; authorizer: Authorizer; logger: Logger }

/** A request the caller can fix. `shape` is the body the reference gives the endpoint's errors. */
class NotificationApiError extends Error {
  constructor(
    readonly status: number,
    message: string,
    readonly shape: 'error' | 'message' = 'error',
  ) {
    super(message)
  }
}

type Handler = (req: Request, res: Response) => Promise<void>
const handle = (fn: Handler) => (req: Request, res: Response, next: NextFunction) => void fn(req, res).catch(next)

const BODY_LIMIT = '256kb'
const DEFAULT_PREVIEW_SINCE = 'now-7d'
const DEFAULT_PREVIEW_LIMIT = 50
/** Most sends the preview evaluates: each may load its resource's variables. */
const PREVIEW_SCAN_LIMIT = 1_000

/** JSON bodies whose parse failure is answered in the endpoint's own shape (`invalid post body: …` or `{message}`). */
function jsonBody(onMalformed: (message: string) => NotificationApiError) {
  const parse = express.json({ limit: BODY_LIMIT })
  return (req: Request, res: Response, next: NextFunction) =>
    parse(req, res, (error?: unknown) => {
      if (!error) return next()
      const status = (error as { status?: number }).status
      next(status === 413 ? new NotificationApiError(413, (error as Error).message) : onMalformed((error as Error).message))
    })
}

function firstIssue(error: z.ZodError): string {
  const issue = error.issues[0]!
  return `${issue.path.join('.') || 'body'}: ${issue.message}`
}

function parseTime(text: string, now: Date, field: string, shape: 'error' | 'message' = 'error'): Date {
  try {
    return parseDateMath(text, now, field)
  } catch (error) {
    if (error instanceof CatalogInputError) throw new NotificationApiError(400, error.message, shape)
    throw error
  }
}

/** Spec 000 §5: the console sends null for "indefinitely"; the word itself and an empty value mean the same. */
function isIndefinite(until: string | null | undefined): boolean {
  return until === undefined || until === null || until === '' || until.toLowerCase() === 'indefinitely'
}

type CheckedTarget = SilenceScope & { selectors: Record<string, unknown>[] }

/**
 * What a silence covers (http-api §2.3.2, resource-specs §3.2): at most one resource, and at
 * least one of a resource, selectors or a filter. Together they narrow each other, as the
 * pipeline applies them. The filter must parse as CEL and each selector must be one.
 */
function checkTarget(target: SilenceTarget): CheckedTarget {
  const named = SILENCE_RESOURCE_KEYS.filter((key) => target[key])
  if (named.length > 1) throw new NotificationApiError(400, `only one of config_id, canary_id, check_id or component_id may be set (got ${named.join(', ')})`)
  const filter = target.filter?.trim() ?? ''
  const selectors = target.selectors ?? []
  if (named.length === 0 && filter === '' && selectors.length === 0) {
    throw new NotificationApiError(400, 'one of config_id, canary_id, check_id, component_id, selectors or filter is required')
  }
  if (filter !== '') {
    try {
      parseCelExpression(filter)
    } catch (error) {
      throw new NotificationApiError(400, `invalid filter: ${(error as Error).message.split('\n')[0]}`)
    }
  }
  selectors.forEach((selector, index) => {
    try {
      toSearchSelector(selector)
    } catch (error) {
      if (error instanceof SelectorError) throw new NotificationApiError(400, `invalid selectors.${index}: ${error.message}`)
      throw error
    }
  })
  const key = named[0]
  return { resources: key ? [{ key, id: target[key]! }] : [], recursive: target.recursive === true, filter, selectors }
}

// Database errors per http-api §0.3: unique/foreign key → 409, not-null/check → 400.
const DB_ERROR_STATUS: Record<string, number> = { '23505': 409, '23503': 409, '23502': 400, '23514': 400, '22P02': 400, '22007': 400, '22008': 400 }

/** Row-level security on send-history rows aliased `s` (notification-access.ts). */
async function visibleHistorySql(authorizer: Authorizer, principal: Principal | undefined, params: Params): Promise<string[]> {
  return visibleHistoryConditions(await historyVisibility(authorizer, principal), 's.resource_kind', 's.resource_id', params)
}

/**
 * The send-history columns the API answers with: the view's row, with `resource_type` the
 * concrete type (as /notification/summary and data-model §8.5 name it) rather than the kind the
 * view keeps for the 1.4.48 client's data-API filter.
 */
const HISTORY_COLUMNS = `s.id, s.notification_id, s.body, s.body_payload, s.status, s.not_before, s.retries, s.count, s.first_observed,
  s.source_event, s.resource_id, s.resource_health, s.resource_status, s.resource_health_description, s.person_id, s.team_id,
  s.connection_id, s.silenced_by, s.playbook_run_id, s.error, s.duration_millis, s.created_at, s.group_id, s.parent_id,
  s.resource_kind, s.resource ->> 'type' AS resource_type, s.resource, s.resource_tags, s.playbook_run`

const GROUP_COLUMN: Record<NotificationSummaryGroup, string> = {
  resource: 's.resource_id',
  resource_id: 's.resource_id',
  resource_type: "(s.resource ->> 'type')",
  resource_kind: 's.resource_kind',
  resource_tags: 's.resource_tags',
  status: 's.status',
  source_event: 's.source_event',
}

type SummaryRow = {
  group_key: string
  resource_id: string | null
  resource: Record<string, unknown> | null
  resource_type: string | null
  resource_kind: string | null
  resource_tags: Record<string, unknown> | null
  resource_health: string | null
  resource_status: string | null
  resource_health_description: string | null
  status: string | null
  source_event: string | null
  first_observed: Date
  last_seen: Date
  total: number
  last_message: string | null
  sent: number
  error: number
  suppressed: number
  in_progress: number
}

/**
 * `POST /notification/summary` (http-api §2.3.1): send history grouped (by resource unless
 * `groupBy` says otherwise), newest group first. Counts add up each row's `count` (repeats
 * folded into one silenced or repeat-interval row count once each).
 */
async function notificationSummary(db: Db, body: NotificationSummaryBody, visibility: string[], params: Params, now = new Date()) {
  const conditions = [...visibility]
  if (!body.includeDeletedResources) conditions.push(`s.resource IS NOT NULL AND s.resource ->> 'deleted_at' IS NULL`)
  const search = body.search?.trim()
  if (search) {
    const glob = search.endsWith('*') ? search : `${search}*`
    const pattern = glob.replace(/[\\%_]/g, (char) => `\\${char}`).replace(/\*/g, '%')
    conditions.push(`(s.resource ->> 'name') ILIKE ${params.text(pattern)}`)
  }
  const expressions: [string | null | undefined, string][] = [
    [body.status, 's.status'],
    [body.resourceType, "(s.resource ->> 'type')"],
    [body.resourceKind, 's.resource_kind'],
  ]
  for (const [expression, column] of expressions) {
    const sql = expression ? filterExpressionSql(expression, column, params) : null
    if (sql) conditions.push(sql)
  }
  if (body.tags?.trim()) {
    const sql = selectorSql(body.tags, "coalesce(s.resource_tags, '{}'::jsonb)", params)
    if (sql) conditions.push(sql)
  }
  if (body.from?.trim()) conditions.push(`s.created_at >= ${params.text(parseTime(body.from, now, 'from').toISOString())}::timestamptz`)
  if (body.to?.trim()) conditions.push(`s.created_at <= ${params.text(parseTime(body.to, now, 'to').toISOString())}::timestamptz`)

  const groups = body.groupBy
  const byResource = groups.includes('resource') || groups.includes('resource_id')
  const keys = [...new Set(groups.map((group) => GROUP_COLUMN[group]))]
  const latest = (column: string) => `(array_agg(${column} ORDER BY s.created_at DESC, s.id DESC))[1]`
  const grouped = (group: NotificationSummaryGroup, column: string) => (groups.includes(group) ? column : `NULL`)
  const counted = (statuses: readonly string[]) => `coalesce(sum(s.count) FILTER (WHERE s.status = ANY(${params.textArray([...statuses])})), 0)::int`
  const where = conditions.length ? `WHERE ${conditions.map((condition) => `(${condition})`).join(' AND ')}` : ''
  const offset = body.pageIndex * body.pageSize
  const filterParamCount = params.values.length
  const sql = `
    WITH grouped AS (
      SELECT
        concat_ws('|', ${keys.map((key) => `${key}::text`).join(', ')}) AS group_key,
        ${grouped('resource_id', 's.resource_id')}::uuid AS resource_id,
        ${byResource ? latest('s.resource') : 'NULL::jsonb'} AS resource,
        ${byResource || groups.includes('resource_type') ? latest("(s.resource ->> 'type')") : 'NULL::text'} AS resource_type,
        ${byResource || groups.includes('resource_kind') ? latest('s.resource_kind') : 'NULL::text'} AS resource_kind,
        ${byResource || groups.includes('resource_tags') ? latest('s.resource_tags') : 'NULL::jsonb'} AS resource_tags,
        ${byResource ? latest('s.resource_health') : 'NULL::text'} AS resource_health,
        ${byResource ? latest('s.resource_status') : 'NULL::text'} AS resource_status,
        ${byResource ? latest('s.resource_health_description') : 'NULL::text'} AS resource_health_description,
        ${grouped('status', 's.status')}::text AS status,
        ${grouped('source_event', 's.source_event')}::text AS source_event,
        min(s.first_observed) AS first_observed,
        max(s.created_at) AS last_seen,
        sum(s.count)::int AS total,
        (array_agg(s.body ORDER BY s.created_at DESC, s.id DESC) FILTER (WHERE s.body IS NOT NULL AND s.body <> ''))[1] AS last_message,
        ${counted(['sent'])} AS sent,
        ${counted(['error'])} AS error,
        ${counted(SUPPRESSED_STATUSES)} AS suppressed,
        ${counted(IN_PROGRESS_STATUSES)} AS in_progress
      FROM notification_send_history_summary s
      ${where}
      GROUP BY ${keys.join(', ')})
    SELECT g.*, count(*) OVER ()::int AS group_count FROM grouped g
    ORDER BY g.last_seen DESC, g.group_key
    LIMIT ${params.text(String(body.pageSize))}::int OFFSET ${params.text(String(offset))}::int`
  const { rows } = await db.query<SummaryRow & { group_count: number }>(sql, params.values)
  // A page past the end has no rows to carry the count: ask for it alone.
  let total = rows[0]?.group_count ?? 0
  if (rows.length === 0 && offset > 0) {
    const groupCount = await db.query<{ total: number }>(`SELECT count(*)::int AS total FROM (SELECT 1 FROM notification_send_history_summary s ${where} GROUP BY ${keys.join(', ')}) g`, params.values.slice(0, filterParamCount))
    total = groupCount.rows[0]?.total ?? 0
  }
  const results = rows.map((row) => {
    const result: Record<string, unknown> = {}
    if (byResource) {
      Object.assign(result, {
        resource: row.resource,
        resource_type: row.resource_type,
        resource_kind: row.resource_kind,
        resource_tags: row.resource_tags,
        resource_health: row.resource_health,
        resource_status: row.resource_status,
        resource_health_description: row.resource_health_description ?? '',
      })
    }
    for (const group of groups) {
      if (group === 'resource') continue
      result[group] = row[group]
    }
    return {
      ...result,
      first_observed: row.first_observed,
      last_seen: row.last_seen,
      total: row.total,
      last_message: row.last_message ?? '',
      sent: row.sent,
      error: row.error,
      suppressed: row.suppressed,
      in_progress: row.in_progress,
    }
  })
  return { total, results: total === 0 ? null : results }
}

type PreviewCandidate = { id: string; source_event: string; resource_id: string; payload: { event?: NotificationEvent } | null; created_at: Date }

/** The event a send came from: the one the pipeline stored with it, else rebuilt from its columns. */
function eventOf(row: PreviewCandidate): NotificationEvent {
  const stored = row.payload?.event
  if (stored && typeof stored.name === 'string') return stored
  const props = row.source_event === 'config.updated' || row.source_event === 'config.changed' ? { config_id: row.resource_id } : null
  return { id: row.id, name: row.source_event, eventId: row.resource_id, properties: props, createdAt: row.created_at.toISOString() }
}

export function createNotificationRouter(options: NotificationRouterOptions): express.Router {
  const { db, authorizer, logger } = options
  const log = logger.child({ component: 'notification-api' })
  const router = express.Router()
  const principalOf = (res: Response) => res.locals.principal as Principal | undefined

  router.post(
    '/silence',
    jsonBody((message) => new NotificationApiError(400, `invalid post body: ${message}`)),
    handle(async (req, res) => {
      const parsed = SilenceBodySchema.safeParse(req.body ?? {})
      if (!parsed.success) throw new NotificationApiError(400, `invalid post body: ${firstIssue(parsed.error)}`)
      const body = parsed.data
      const now = new Date()
      const from = body.from ? parseTime(body.from, now, 'from') : now
      const until = isIndefinite(body.until) ? null : parseTime(body.until!, now, 'until')
      if (until && from.getTime() > until.getTime()) throw new NotificationApiError(400, '`from` time must be before `until`')
      const target = checkTarget(body)
      const principal = principalOf(res)
      await db.query(
        `INSERT INTO notification_silences (name, description, "from", until, recursive, filter, selectors, config_id, canary_id, component_id, check_id, source, created_by)
         VALUES (coalesce($1, generate_ulid()::text), $2, $3::timestamptz, $4::timestamptz, $5, $6, $7::jsonb, $8, $9, $10, $11, 'UI',
                 (SELECT id FROM people WHERE id = $12::uuid))`,
        [
          body.name || null,
          body.description || null,
          from.toISOString(),
          until ? until.toISOString() : null,
          target.recursive,
          target.filter || null,
          target.selectors.length ? JSON.stringify(target.selectors) : null,
          body.config_id ?? null,
          body.canary_id ?? null,
          body.component_id ?? null,
          body.check_id ?? null,
          principal && isUuid(principal.personId) ? principal.personId : null,
        ],
      )
      // The reference answers 200 with an empty body (http-api §2.3.2).
      res.status(200).end()
    }),
  )

  router.post(
    '/silence_preview',
    jsonBody((message) => new NotificationApiError(400, `invalid post body: ${message}`)),
    handle(async (req, res) => {
      const parsed = SilencePreviewBodySchema.safeParse(req.body ?? {})
      if (!parsed.success) throw new NotificationApiError(400, `invalid post body: ${firstIssue(parsed.error)}`)
      const body = parsed.data
      const target = checkTarget(body)
      const since = parseTime(body.since?.trim() || DEFAULT_PREVIEW_SINCE, new Date(), 'since')
      const limit = body.limit ?? DEFAULT_PREVIEW_LIMIT
      // Only sends about resources the silence can cover are read (a canary's checks among them:
      // the sends name the check); the verdict on each is the pipeline's (silence-coverage.ts).
      const covered = await coveredResourceIds(db, target)
      const matcher = createSilenceMatcher(db, target)
      const { rows: candidates } = await db.query<PreviewCandidate>(
        `SELECT id, source_event, resource_id, payload, created_at FROM notification_send_history
         WHERE created_at >= $1::timestamptz AND ($2::uuid[] IS NULL OR resource_id = ANY($2::uuid[]))
         ORDER BY created_at DESC, id DESC LIMIT $3`,
        [since.toISOString(), covered, PREVIEW_SCAN_LIMIT],
      )
      const contexts = new Map<string, NotificationContext | null>()
      const matched: string[] = []
      for (const row of candidates) {
        if (matched.length >= limit) break
        const event = eventOf(row)
        const key = `${event.name}|${event.eventId ?? ''}|${JSON.stringify(event.properties ?? {})}`
        if (!contexts.has(key)) contexts.set(key, await loadNotificationContext(db, event))
        const context = contexts.get(key)
        if (!context) continue
        // The variables are the resource's today; the event's own time is the send's.
        const verdict = await matcher.matches({ resource: context.resource, env: { ...context.env, event_time: event.createdAt } })
        if (verdict.covered) matched.push(row.id)
      }
      if (matched.length === 0) {
        res.json([])
        return
      }
      const params = new Params()
      const ids = params.textArray(matched)
      const visibility = await visibleHistorySql(authorizer, principalOf(res), params)
      const { rows } = await db.query(
        `SELECT ${HISTORY_COLUMNS} FROM notification_send_history_summary s
         WHERE s.id = ANY(${ids}::uuid[])${visibility.map((condition) => ` AND ${condition}`).join('')}
         ORDER BY s.created_at DESC, s.id DESC`,
        params.values,
      )
      res.json(rows)
    }),
  )

  router.post(
    '/summary',
    jsonBody((message) => new NotificationApiError(400, message, 'message')),
    handle(async (req, res) => {
      const parsed = NotificationSummaryBodySchema.safeParse(req.body ?? {})
      if (!parsed.success) throw new NotificationApiError(400, firstIssue(parsed.error), 'message')
      const params = new Params()
      const visibility = await visibleHistorySql(authorizer, principalOf(res), params)
      try {
        res.json(await notificationSummary(db, parsed.data, visibility, params))
      } catch (error) {
        if (error instanceof CatalogInputError) throw new NotificationApiError(400, error.message)
        throw error
      }
    }),
  )

  router.get(
    '/send_history/:id',
    handle(async (req, res) => {
      const id = req.params.id!
      if (!isUuid(id)) throw new NotificationApiError(400, `invalid send history id '${id}': not a uuid`)
      const params = new Params()
      const idParam = params.text(id)
      const visibility = await visibleHistorySql(authorizer, principalOf(res), params)
      const { rows } = await db.query(
        `SELECT ${HISTORY_COLUMNS} FROM notification_send_history_summary s
         WHERE s.id = ${idParam}::uuid${visibility.map((condition) => ` AND ${condition}`).join('')}`,
        params.values,
      )
      if (!rows[0]) throw new NotificationApiError(404, `notification send history (${id}) not found`)
      res.json(rows[0])
    }),
  )

  router.use((error: unknown, req: Request, res: Response, next: NextFunction) => {
    if (error instanceof NotificationApiError) {
      res.status(error.status).json({ [error.shape]: error.message })
      return
    }
    const code = (error as { code?: unknown }).code
    const status = typeof code === 'string' ? DB_ERROR_STATUS[code] : undefined
    if (status) {
      res.status(status).json({ error: (error as Error).message })
      return
    }
    log.error({ err: error, path: req.path }, 'notification request failed')
    next(error)
  })

  return router
}
