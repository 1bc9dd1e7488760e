import express, { type NextFunction, type Request, type Response } from 'express'
import type { Logger } from 'pino'
import { z } from 'zod'
import { isUuid } from '#contract/uuid.ts'
import type { Db } from '#server/db/client.ts'
import type { Principal } from '#server/backend/identity/principal.ts'
import type { Authorizer } from '#server/backend/rbac/authorizer.ts'
import type { ResourceRef } from '#server/backend/rbac/conditions.ts'
import { PlaybookError, type PlaybookSpec } from './playbook-model.ts'
import {
  assertTargetExists,
  createPlaybookRun,
  loadPlaybook,
  playbookMatchesTarget,
  targetOf,
  templatedParameterSpecs,
  type PlaybookRecord,
  type RunTarget,
} from './run-create.ts'
import { createRunAuthorization, requestPlaybookRun } from './run-request.ts'
import { cancelRun, recordApproval, type Approver } from './run-state.ts'
import { authenticateWebhook, webhookRequest, type WebhookAuthentication } from './playbook-webhook.ts'

/**
 * The playbook API of http-api §2.5 (mounted at /playbook, so `/api/playbook/...` in the
 * browser). The route table (rbac/route-access.ts) has already checked the object-level
 * permission; the handlers add the attribute checks on the concrete playbook and resource.
 * Errors use the detailed form `{error, code}` with the reference's texts.
 */

export type PlaybookRouterOptions = { db: Db; authorizer: Authorizer; logger: Logger }

type Handler = (req: Request, res: Response) => Promise<void>
const handle = (fn: Handler) => (req: Request, res: Response, next: NextFunction) => void fn(req, res).catch(next)

const CODE: Record<number, string> = { 400: 'invalid', 401: 'unauthorized', 403: 'forbidden', 404: 'not_found', 409: 'conflict', 500: 'internal' }

function sendError(res: Response, status: number, message: string, extra: Record<string, unknown> = {}): void {
  res.status(status).json({ error: message, code: CODE[status] ?? 'internal', ...extra })
}

const idText = z.string().trim().optional()
const paramValue = z.union([z.string(), z.number(), z.boolean()]).transform(String)
const RunBodySchema = z.object({
  id: idText,
  config_id: idText,
  component_id: idText,
  check_id: idText,
  params: z.record(paramValue).optional(),
  agent_id: idText,
  parent_id: idText,
  notification_send_id: idText,
  request: z.record(z.unknown()).optional(),
})
type RunBody = z.infer<typeof RunBodySchema>

function parseBody(req: Request): RunBody {
  const parsed = RunBodySchema.safeParse(req.body ?? {})
  if (!parsed.success) {
    const issue = parsed.error.issues[0]!
    throw new PlaybookError(400, `${issue.path.join('.') || 'body'}: ${issue.message}`)
  }
  // Empty strings are how forms and clients say "not given".
  const body = parsed.data
  for (const key of ['id', 'config_id', 'component_id', 'check_id', 'agent_id', 'parent_id', 'notification_send_id'] as const) {
    if (body[key] === '') delete body[key]
  }
  return body
}

export function createPlaybookRouter(options: PlaybookRouterOptions): express.Router {
  const { db, authorizer } = options
  const router = express.Router()
  const json = express.json({ limit: '1mb' })

  const principalOf = (res: Response) => res.locals.principal as Principal | undefined
  const authorization = createRunAuthorization(db, authorizer)
  const { may, playbookRef, assertMayReadTarget, assertMayRun } = authorization

  router.post(
    '/run',
    json,
    handle(async (req, res) => {
      const body = parseBody(req)
      const created = await requestPlaybookRun(db, authorization, principalOf(res), {
        id: body.id,
        configId: body.config_id,
        componentId: body.component_id,
        checkId: body.check_id,
        params: body.params,
        agentId: body.agent_id,
        parentId: body.parent_id,
        notificationSendId: body.notification_send_id,
        request: body.request,
      })
      res.status(201).json({ run_id: created.run_id, starts_at: created.starts_at })
    }),
  )

  router.get(
    '/list',
    handle(async (req, res) => {
      const filters = (['config_id', 'check_id', 'component_id'] as const)
        .map((key) => [key, typeof req.query[key] === 'string' ? (req.query[key] as string) : ''] as const)
        .filter(([, value]) => value !== '')
      if (filters.length > 1) throw new PlaybookError(400, 'provide at most one of: config_id, check_id or component_id')
      const { rows } = await db.query<PlaybookRecord & Record<string, unknown>>(
        `SELECT id, namespace, name, title, icon, description, source, category, created_at, spec
         FROM playbooks WHERE deleted_at IS NULL ORDER BY coalesce(nullif(title, ''), name), id`,
      )
      let list = rows
      const [filter] = filters
      if (filter) {
        const [key, id] = filter
        const target: RunTarget = { kind: key === 'config_id' ? 'config' : key === 'check_id' ? 'check' : 'component', id }
        if (!isUuid(id)) throw new PlaybookError(400, `${key} '${id}' is not a uuid`)
        const kept: typeof rows = []
        for (const row of rows) if (await playbookMatchesTarget(db, row.spec, target)) kept.push(row)
        list = kept
      }
      res.json(list.map((row) => ({ ...row, parameters: (row.spec as PlaybookSpec).parameters ?? [] })))
    }),
  )

  router.post(
    '/run/approve/:runId',
    json,
    handle(async (req, res) => {
      const runId = req.params.runId!
      const principal = principalOf(res)
      if (!isUuid(runId)) {
        res.status(400).json({ error: `'${runId}' is not a uuid`, message: 'invalid run id' })
        return
      }
      const { rows } = await db.query<{ id: string; playbook_id: string; spec: PlaybookSpec }>('SELECT id, playbook_id, spec FROM playbook_runs WHERE id = $1', [runId])
      const run = rows[0]
      if (!run) throw new PlaybookError(404, `playbook run (id=${runId}) not found`)
      const approvers = run.spec?.approval?.approvers
      const people = (approvers?.people ?? []).map((email) => email.toLowerCase())
      const teams = approvers?.teams ?? []
      if (people.length === 0 && teams.length === 0) throw new PlaybookError(400, 'this playbook does not require approval')
      const playbook = await loadPlaybook(db, run.playbook_id).catch(() => null)
      const ref: ResourceRef = playbook ? playbookRef(playbook) : { kind: 'playbook', id: run.playbook_id }
      if (!(await may(principal, 'playbooks', 'playbook:approve', ref))) throw new PlaybookError(403, 'access denied: approval permission required')
      if (!principal) throw new PlaybookError(403, 'you are not allowed to approve this playbook run')
      const approver = await approverOf(principal.personId, people, teams)
      if (!approver) throw new PlaybookError(403, 'you are not allowed to approve this playbook run')
      await recordApproval(db, runId, approver)
      res.json({ message: 'playbook run approved' })
    }),
  )

  /** The caller as a listed person (by email), else as a member of the first listed team they belong to. */
  async function approverOf(personId: string, emails: string[], teams: string[]): Promise<Approver | null> {
    const { rows } = await db.query<{ person: boolean; team_id: string | null }>(
      `SELECT (lower(p.email) = ANY($2::text[])) AS person,
              (SELECT t.id FROM teams t JOIN team_members m ON m.team_id = t.id
               WHERE m.person_id = p.id AND t.name = ANY($3::text[]) AND t.deleted_at IS NULL
               ORDER BY array_position($3::text[], t.name) LIMIT 1) AS team_id
       FROM people p WHERE p.id = $1 AND p.deleted_at IS NULL`,
      [personId, emails, teams],
    )
    const row = rows[0]
    if (!row) return null
    if (row.person) return { personId }
    return row.team_id ? { teamId: row.team_id } : null
  }

  router.post(
    '/run/cancel/:runId',
    json,
    handle(async (req, res) => {
      const runId = req.params.runId!
      const principal = principalOf(res)
      if (!isUuid(runId)) throw new PlaybookError(400, `invalid run id '${runId}'`)
      const { rows } = await db.query<{ playbook_id: string }>('SELECT playbook_id FROM playbook_runs WHERE id = $1', [runId])
      if (!rows[0]) throw new PlaybookError(404, `playbook run (id=${runId}) not found`)
      const playbook = await loadPlaybook(db, rows[0].playbook_id).catch(() => null)
      const ref: ResourceRef = playbook ? playbookRef(playbook) : { kind: 'playbook', id: rows[0].playbook_id }
      if (!(await may(principal, 'playbooks', 'update', ref)) || !(await may(principal, 'playbooks', 'playbook:cancel', ref))) {
        throw new PlaybookError(403, 'access denied: cancel permission required')
      }
      await cancelRun(db, runId)
      res.json({ message: 'playbook run cancelled' })
    }),
  )

  type RunRow = Record<string, unknown> & { playbook_id: string; config_id: string | null; component_id: string | null; check_id: string | null }
  /** A run the caller may read: one against a resource they cannot read is refused as that resource is. */
  async function loadRun(runId: string, principal: Principal | undefined): Promise<RunRow> {
    if (!isUuid(runId)) throw new PlaybookError(400, `invalid run id '${runId}'`)
    const { rows } = await db.query<RunRow>('SELECT * FROM playbook_runs WHERE id = $1', [runId])
    const run = rows[0]
    if (!run) throw new PlaybookError(404, `playbook run (id=${runId}) not found`)
    const target = targetOf({ configId: run.config_id ?? undefined, componentId: run.component_id ?? undefined, checkId: run.check_id ?? undefined })
    if (target) await assertMayReadTarget(principal, target)
    return run
  }

  router.get(
    '/run/:runId',
    handle(async (req, res) => {
      res.json(await loadRun(req.params.runId!, principalOf(res)))
    }),
  )

  router.get(
    '/run/:runId/status',
    handle(async (req, res) => {
      const run = await loadRun(req.params.runId!, principalOf(res))
      const [playbook, actions] = await Promise.all([
        db.query('SELECT * FROM playbooks WHERE id = $1', [run.playbook_id]),
        db.query(
          `SELECT * FROM playbook_run_actions WHERE playbook_run_id = $1
           ORDER BY coalesce(start_time, scheduled_time), coalesce(retry_count, 0), id`,
          [run.id],
        ),
      ])
      res.json({ playbook: playbook.rows[0] ?? null, run, actions: actions.rows })
    }),
  )

  router.post(
    '/:id/params',
    json,
    handle(async (req, res) => {
      const body = parseBody(req)
      const principal = principalOf(res)
      const id = body.id ?? req.params.id!
      const playbook = await loadPlaybook(db, id, (value) => `playbook(id=${value}) not found`)
      const target = targetOf({ configId: body.config_id, componentId: body.component_id, checkId: body.check_id })
      await assertMayRun(principal, playbook)
      if (target) {
        await assertTargetExists(db, target)
        await assertMayReadTarget(principal, target)
        // The reference answers a resource outside the playbook's selectors with a 500.
        if (!(await playbookMatchesTarget(db, playbook.spec, target))) {
          throw new PlaybookError(500, `playbook '${playbook.name}' cannot run on ${target.kind} '${target.id}': it does not match the playbook's selectors`)
        }
      }
      const creator = principal ? ({ kind: 'person', personId: principal.personId } as const) : ({ kind: 'system', reason: 'notification' } as const)
      const specs = await templatedParameterSpecs(db, playbook, target, creator, body.params ?? {})
      res.json({ params: specs.map((spec) => ({ ...spec, type: spec.type ?? 'text' })) })
    }),
  )

  router.use(playbookErrors)
  return router
}

function playbookErrors(error: unknown, _req: Request, res: Response, next: NextFunction): void {
  if (error instanceof PlaybookError) {
    sendError(res, error.status, error.message)
    return
  }
  next(error)
}

/**
 * `GET|POST /playbook/webhook/{path}` (resource-specs §2.3). Mounted ahead of the backend's
 * credential check: a webhook's Authorization header carries the webhook's own credential (basic,
 * a JWT), which is no access token of this server and must not be refused as one.
 */
export function createPlaybookWebhookRouter(options: { db: Db }): express.Router {
  const { db } = options
  const router = express.Router()
  // Webhooks read the raw body: signatures are over the bytes as sent.
  const webhook = handle(async (req, res) => {
    const path = req.params.path!
    const { rows } = await db.query<{ id: string; spec: PlaybookSpec }>(
      `SELECT id, spec FROM playbooks WHERE deleted_at IS NULL AND spec -> 'on' -> 'webhook' ->> 'path' = $1`,
      [path],
    )
    const playbook = rows[0]
    if (!playbook) throw new PlaybookError(404, `no playbook listens on webhook path '${path}'`)
    const raw = Buffer.isBuffer(req.body) ? req.body : Buffer.alloc(0)
    const trigger = (playbook.spec.on?.webhook ?? {}) as { authentication?: WebhookAuthentication }
    const verdict = await authenticateWebhook(trigger.authentication, req, raw)
    if (!verdict.ok) {
      res.status(401).json({ error: verdict.error, code: 'unauthorized' })
      return
    }
    const created = await createPlaybookRun(db, { playbookId: playbook.id, request: webhookRequest(req, raw) }, { kind: 'system', reason: 'webhook' })
    res.status(201).json({ run_id: created.run_id, starts_at: created.starts_at })
  })
  const rawBody = express.raw({ type: () => true, limit: '1mb' })
  router.get('/:path', webhook)
  router.post('/:path', rawBody, webhook)

  router.use(playbookErrors)
  return router
}
