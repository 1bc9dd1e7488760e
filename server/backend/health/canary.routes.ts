import express, { type NextFunction, type Request, type Response } from 'express'
import type { Logger } from 'pino'
import { stringify } from 'yaml'
import type { Db } from '#server/db/client.ts'
import type { Principal } from '#server/backend/identity/principal.ts'
import type { Authorizer } from '#server/backend/rbac/authorizer.ts'
import { execRefusal, holdsExec, processParts, subjectOf, type ProcessResourceKind } from '#server/backend/rbac/exec-permission.ts'
import { createTopologyEngine, type TopologyEngine } from '#server/backend/topology/topology-engine.ts'
import { CanaryValidationError, parseCanaryObject, parseCanaryText, toCanaryDocument, type CanaryInput } from '#contract/canary/canary-document.ts'
import { applyCanary, deleteCanary, findCanary, listCanaries, type CanaryRecord } from './canary-store.ts'
import { getCheckGraph, getChecksSummaryJson, getSharedChecksSummaryJson, parseTimeParam, sharedSummaryComputation, SummaryInputError } from './canary-summary.ts'
import { SUMMARY_VIEW_PARAM } from '#contract/canary/summary-view.ts'
import { getSummaryViewJson, parseSummaryView } from './summary-view.ts'
import { getTopologyJson, parseTopologyQuery, TopologyInputError, type TopologyQuery } from '#server/backend/topology/topology-api.ts'
import { componentVisibility, EVERY_COMPONENT } from '#server/backend/topology/component-access.ts'
import { createCheckEngine, type CheckEngine } from './check-engine.ts'
import { isUuid } from '#contract/uuid.ts'

export type CanaryPermission = { object: 'canaries'; action: 'read' | 'create' | 'update' | 'delete' }

export type CanaryRouterOptions = {
  db: Db
  engine?: CheckEngine
  /** The topology engine of this process, for `POST /run/topology/{id}`. */
  topologyEngine?: TopologyEngine
  logger: Logger
  /** RBAC hook; Run Now asks for canaries:create (http-api §2.6.1). Permissive when absent. */
  authorize?: (req: Request, permission: CanaryPermission) => boolean | Promise<boolean>
  /** Decides the exec permission (exec checks) and whose specs may reach this server's addresses; without it nobody holds exec. */
  authorizer?: Authorizer
}
const YAML_TYPES = ['application/yaml', 'application/x-yaml', 'text/yaml', 'text/x-yaml', 'text/plain']

type Handler = (req: Request, res: Response) => Promise<void>
const handle = (fn: Handler) => (req: Request, res: Response, next: NextFunction) => void fn(req, res).catch(next)

function firstString(value: unknown): string | undefined {
  if (Array.isArray(value)) return firstString(value[0])
  return typeof value === 'string' ? value : undefined
}

/** `k=v,k2=v2` or a JSON/body map into a label map. */
function labelsOf(value: unknown): Record<string, string> | undefined {
  if (value && typeof value === 'object' && !Array.isArray(value)) {
    return Object.fromEntries(Object.entries(value).map(([k, v]) => [k, String(v)]))
  }
  const text = firstString(value)
  if (!text) return undefined
  return Object.fromEntries(text.split(',').filter(Boolean).map((pair) => {
    const at = pair.indexOf('=')
    return at === -1 ? [pair.trim(), ''] : [pair.slice(0, at).trim(), pair.slice(at + 1).trim()]
  }))
}

/**
 * Answers a JSON object whose values are already JSON text (rows the database serialised), so
 * thousands of checks are not parsed and written again on the way out. Null values are left out.
 */
function sendJsonText(res: Response, fields: [string, string | null][]): void {
  const members = fields.filter((field): field is [string, string] => field[1] !== null).map(([key, value]) => `${JSON.stringify(key)}:${value}`)
  res.type('application/json').send(`{${members.join(',')}}`)
}

/** POST /api/summary keys match case-insensitively (http-api §3.1). */
function bodyKey(body: unknown, name: string): unknown {
  if (!body || typeof body !== 'object') return undefined
  const entry = Object.entries(body).find(([key]) => key.toLowerCase() === name.toLowerCase())
  return entry?.[1]
}

function inputsFromBody(req: Request): CanaryInput[] {
  if (typeof req.body === 'string') return parseCanaryText(req.body)
  if (Buffer.isBuffer(req.body)) return parseCanaryText(req.body.toString('utf8'))
  if (Array.isArray(req.body)) return req.body.map((item, index) => parseCanaryObject(item, [index]))
  if (req.body && typeof req.body === 'object' && Object.keys(req.body).length > 0) return [parseCanaryObject(req.body)]
  throw new CanaryValidationError([{ path: '', message: 'request body must be a Canary YAML or JSON document' }])
}

async function checksOf(db: Db, canaryId: string) {
  const { rows } = await db.query<{ id: string; type: string; name: string; status: string | null; next_runtime: Date | null }>(
    `SELECT k.id, k.type, k.name, k.status, s.next_run_at AS next_runtime FROM checks k
     LEFT JOIN lookout.check_schedule s ON s.check_id = k.id
     WHERE k.canary_id = $1 AND k.deleted_at IS NULL ORDER BY k.type, k.name`,
    [canaryId],
  )
  return rows
}

async function syncErrorOf(db: Db, canaryId: string): Promise<string | null> {
  const { rows } = await db.query<{ error: string | null }>('SELECT error FROM lookout.canary_sync WHERE canary_id = $1', [canaryId])
  return rows[0]?.error ?? null
}

function wantsYaml(req: Request): boolean {
  return firstString(req.query.format) === 'yaml' || (req.accepts(['application/json', 'application/yaml']) === 'application/yaml' && !req.accepts('json'))
}

/**
 * canary-checker's HTTP surface (mounted by the lead at /canary, so `/api/canary/...` in the
 * browser) plus canary CRUD from YAML or JSON.
 */
export function createCanaryRouter(options: CanaryRouterOptions): express.Router {
  const { db, logger } = options
  const engine = options.engine ?? createCheckEngine({ db, logger })
  const topologyEngine = options.topologyEngine ?? createTopologyEngine({ db, logger, authorizer: options.authorizer })
  const router = express.Router()
  // text/plain is YAML for CLIs, but a page of another site can post it with the visitor's
  // session cookie (no preflight): a session must send application/yaml or JSON.
  router.use((req, res, next) => {
    const via = (res.locals.principal as { via?: string } | undefined)?.via
    if ((via === 'session' || via === 'kratos-session') && req.is('text/plain')) {
      res.status(415).json({ error: 'text/plain is not accepted with a session cookie: send application/yaml or application/json' })
      return
    }
    next()
  })
  router.use(express.text({ type: YAML_TYPES, limit: '2mb' }))
  router.use(express.json({ limit: '2mb' }))

  const allowed = async (req: Request, action: CanaryPermission['action']) =>
    options.authorize ? options.authorize(req, { object: 'canaries', action }) : true
  const deny = (res: Response, action: string) =>
    res.status(403).json({ error: `forbidden: canaries:${action} is required` })

  /**
   * Refuses (403, nothing stored) specs that start a process when the caller lacks exec;
   * otherwise says who vouches for the specs' network targets (an exec holder, or nobody).
   */
  const execGate = async (res: Response, inputs: { spec: unknown }[], kind: ProcessResourceKind = 'canary'): Promise<{ trusted: boolean } | undefined> => {
    const principal = res.locals.principal as Principal | undefined
    const authorizer = options.authorizer
    const subject = principal ? subjectOf(principal) : undefined
    for (const [index, input] of inputs.entries()) {
      const refusal = authorizer && subject
        ? await execRefusal(authorizer, subject, kind, input.spec, inputs.length > 1 ? `[${index}].spec` : 'spec')
        : undefined
      const unauthorizable = (!authorizer || !subject) && processParts(kind, input.spec).length > 0
      if (refusal || unauthorizable) {
        res.status(403).json({ error: refusal ?? 'exec checks need the exec permission, which you do not hold' })
        return undefined
      }
    }
    return { trusted: Boolean(authorizer && subject && (await holdsExec(authorizer, subject))) }
  }

  const summary: Handler = async (req, res) => {
    const started = Date.now()
    const source = req.method === 'POST' ? req.body : req.query
    const now = new Date()
    const deleteFrom = bodyKey(source, 'DeleteFrom')
    let deleteFromDate: Date | undefined
    if (deleteFrom) {
      deleteFromDate = new Date(String(deleteFrom))
      if (Number.isNaN(deleteFromDate.getTime())) throw new SummaryInputError('invalid request: DeleteFrom must be an RFC3339 time')
    }
    const startText = bodyKey(source, 'start') ?? bodyKey(source, 'since')
    const endText = bodyKey(source, 'end') ?? bodyKey(source, 'until')
    const key = JSON.stringify([bodyKey(source, 'Labels'), deleteFrom, bodyKey(source, 'SortBy'), startText, endText, bodyKey(source, 'includeStatuses') ?? bodyKey(source, 'checkStatuses')])
    const query = {
      labels: labelsOf(bodyKey(source, 'Labels')),
      deleteFrom: deleteFromDate,
      sortBy: firstString(bodyKey(source, 'SortBy')),
      start: parseTimeParam(startText, now, 'start'),
      end: parseTimeParam(endText, now, 'end'),
      includeStatuses: String(bodyKey(source, 'includeStatuses') ?? bodyKey(source, 'checkStatuses') ?? '') === 'true',
    }
    // Lookout's extension (contract/canary/summary-view.ts): the /health list's page and counts
    // instead of every entry. Only a GET carries it; the reference answers are unchanged without it.
    const viewText = req.method === 'GET' ? firstString(req.query[SUMMARY_VIEW_PARAM]) : undefined
    if (viewText !== undefined) {
      const view = parseSummaryView(viewText)
      const body = await sharedSummaryComputation(db, `${key}|view|${viewText}`, () => getSummaryViewJson(db, query, view))
      const duration = Date.now() - started
      sendJsonText(res, [['runnerName', '"local"'], ['duration', duration > 0 ? String(duration) : null], [SUMMARY_VIEW_PARAM, body]])
      return
    }
    const rows = await getSharedChecksSummaryJson(db, key, query)
    const duration = Date.now() - started
    sendJsonText(res, [['runnerName', '"local"'], ['duration', duration > 0 ? String(duration) : null], ['checks_summary', rows === '[]' ? null : rows]])
  }
  router.get('/api/summary', handle(summary))
  router.post('/api/summary', handle(summary))

  router.get('/api/graph', handle(async (req, res) => {
    const started = Date.now()
    const checkId = firstString(req.query.check)
    if (!checkId || !isUuid(checkId)) {
      res.status(400).json({ error: 'check is required and must be a check id' })
      return
    }
    const now = new Date()
    const start = parseTimeParam(firstString(req.query.since) ?? firstString(req.query.start) ?? '1h', now, 'start')!
    const end = parseTimeParam(firstString(req.query.until) ?? firstString(req.query.end), now, 'end') ?? now
    const graph = await getCheckGraph(db, { checkId, start, end })
    res.json({ duration: Date.now() - started, runnerName: 'local', ...graph })
  }))

  // Legacy checks listing used by incident evidence (http-api §2.6.5): checks with their recent statuses.
  router.get('/api', handle(async (req, res) => {
    const started = Date.now()
    const now = new Date()
    const checkId = firstString(req.query.check)
    if (checkId && !isUuid(checkId)) {
      res.status(400).json({ error: 'check must be a check id' })
      return
    }
    const checks = await getChecksSummaryJson(db, {
      checkId,
      start: parseTimeParam(firstString(req.query.start) ?? firstString(req.query.since), now, 'start'),
      end: parseTimeParam(firstString(req.query.end) ?? firstString(req.query.until), now, 'end'),
      includeStatuses: true,
      includeMessages: firstString(req.query.includeMessages) === 'true',
    })
    sendJsonText(res, [['checks', checks], ['duration', String(Date.now() - started)], ['runnerName', '"local"']])
  }))

  router.post('/run/check/:id', handle(async (req, res) => {
    if (!(await allowed(req, 'create'))) return void deny(res, 'create')
    const result = await engine.runNow(req.params.id!)
    if (result === null) {
      res.status(404).json({ error: `check (${req.params.id}) was not found` })
      return
    }
    res.json(result)
  }))

  // canary-checker's sibling of /run/check (http-api §2.6.1): runs a Topology now and answers its
  // live components after the run. Route access needs topology:run (rbac/route-access.ts); a spec
  // that starts a process also needs exec, as storing it does.
  router.post('/run/topology/:id', handle(async (req, res) => {
    const id = req.params.id!
    if (!isUuid(id)) return void res.status(400).json({ error: `id: "${id}" is not a UUID` })
    const topology = await topologyEngine.find(id)
    if (!topology) return void res.status(404).json({ error: `topology (${id}) was not found` })
    if (topology.demo) return void res.status(409).json({ error: `topology (${id}) is demo data, which the topology engine does not run` })
    if (!(await execGate(res, [topology], 'topology'))) return
    const outcome = await topologyEngine.runNow(id)
    if (!outcome) return void res.status(404).json({ error: `topology (${id}) was not found` })
    if (outcome.status === 'FAILED') return void res.status(500).json({ error: outcome.errors?.join('; ') ?? 'the topology run failed' })
    res.json({ status: 'ok', count: String(outcome.summary?.components ?? 0) })
  }))

  router.get('/api/topology', handle(async (req, res) => {
    let query: TopologyQuery
    try {
      query = parseTopologyQuery(req.query)
    } catch (error) {
      if (!(error instanceof TopologyInputError)) throw error
      res.status(400).json({ error: error.message })
      return
    }
    const principal = res.locals.principal as Principal | undefined
    const visibility = options.authorizer ? await componentVisibility(options.authorizer, principal) : EVERY_COMPONENT
    try {
      res.type('application/json').send(await getTopologyJson(db, query, visibility))
    } catch (error) {
      // A sortBy path is only known bad once the statement is built.
      if (!(error instanceof TopologyInputError)) throw error
      res.status(400).json({ error: error.message })
    }
  }))

  // ---- canary resources --------------------------------------------------------------------

  const present = async (canary: CanaryRecord, extra: Record<string, unknown> = {}) => ({
    id: canary.id,
    name: canary.name,
    namespace: canary.namespace,
    labels: canary.labels ?? {},
    source: canary.source,
    created_at: canary.created_at,
    updated_at: canary.updated_at,
    ...extra,
    checks: await checksOf(db, canary.id),
    ...(await syncErrorOf(db, canary.id).then((error) => (error ? { error } : {}))),
  })

  router.get('/api/canaries', handle(async (req, res) => {
    if (!(await allowed(req, 'read'))) return void deny(res, 'read')
    const canaries = await listCanaries(db, { namespace: firstString(req.query.namespace), name: firstString(req.query.name) })
    if (wantsYaml(req)) {
      res.type('application/yaml').send(canaries.map((canary) => stringify(toCanaryDocument(canary))).join('---\n'))
      return
    }
    res.json(await Promise.all(canaries.map((canary) => present(canary))))
  }))

  router.get('/api/canaries/:id', handle(async (req, res) => {
    if (!(await allowed(req, 'read'))) return void deny(res, 'read')
    const canary = await findCanary(db, req.params.id!, firstString(req.query.namespace))
    if (!canary) {
      res.status(404).json({ error: `canary (${req.params.id}) was not found` })
      return
    }
    if (wantsYaml(req)) res.type('application/yaml').send(stringify(toCanaryDocument(canary)))
    else res.json(await present(canary, { spec: canary.spec, annotations: canary.annotations ?? {} }))
  }))

  router.post('/api/canaries', handle(async (req, res) => {
    if (!(await allowed(req, 'create'))) return void deny(res, 'create')
    const inputs = inputsFromBody(req)
    const gate = await execGate(res, inputs)
    if (!gate) return
    const source = firstString(req.query.source) === 'KubernetesCRD' ? 'KubernetesCRD' : 'UI'
    const principal = res.locals.principal as Principal | undefined
    const createdBy = principal?.personId
    const trustedWriter = gate.trusted && principal ? subjectOf(principal) : null
    const applied: Record<string, unknown>[] = []
    let anyCreated = false
    for (const input of inputs) {
      const { canary, created } = await applyCanary(db, input, { source, createdBy: createdBy && isUuid(createdBy) ? createdBy : null, trustedWriter })
      anyCreated ||= created
      applied.push(await present(canary, { created }))
    }
    res.status(anyCreated ? 201 : 200).json({ canaries: applied })
  }))

  router.put('/api/canaries/:id', handle(async (req, res) => {
    if (!(await allowed(req, 'update'))) return void deny(res, 'update')
    const existing = await findCanary(db, req.params.id!, firstString(req.query.namespace))
    if (!existing) {
      res.status(404).json({ error: `canary (${req.params.id}) was not found` })
      return
    }
    const inputs = inputsFromBody(req)
    if (inputs.length !== 1) throw new CanaryValidationError([{ path: '', message: 'PUT takes exactly one Canary' }])
    const input = inputs[0]!
    if (input.name !== existing.name || input.namespace !== existing.namespace) {
      throw new CanaryValidationError([{ path: 'metadata.name', message: `must stay ${existing.namespace}/${existing.name}; create a new canary to rename` }])
    }
    const gate = await execGate(res, inputs)
    if (!gate) return
    const principal = res.locals.principal as Principal | undefined
    const { canary } = await applyCanary(db, input, { trustedWriter: gate.trusted && principal ? subjectOf(principal) : null })
    res.json(await present(canary, { created: false }))
  }))

  router.delete('/api/canaries/:id', handle(async (req, res) => {
    if (!(await allowed(req, 'delete'))) return void deny(res, 'delete')
    const canary = await findCanary(db, req.params.id!, firstString(req.query.namespace))
    if (!canary || !(await deleteCanary(db, canary.id))) {
      res.status(404).json({ error: `canary (${req.params.id}) was not found` })
      return
    }
    res.json({ id: canary.id, name: canary.name, namespace: canary.namespace, deleted: true })
  }))

  router.use((error: unknown, req: Request, res: Response, next: NextFunction) => {
    if (error instanceof CanaryValidationError) {
      res.status(400).json({ error: 'invalid', message: error.message, issues: error.issues })
      return
    }
    if (error instanceof SummaryInputError) {
      res.status(400).json({ error: error.message })
      return
    }
    const status = (error as { status?: number }).status
    if (status === 400 || status === 413 || (error as { type?: string }).type === 'entity.parse.failed') {
      res.status(status ?? 400).json({ error: 'invalid', message: (error as Error).message })
      return
    }
    logger.error({ err: error, path: req.path }, 'canary request failed')
    next(error)
  })
  return router
}
