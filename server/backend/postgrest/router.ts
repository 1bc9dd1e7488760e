import express from 'express'
import type { Db, Queryable } from '#server/db/client.ts'
import { PostgrestError, bodyError, toPostgrestError } from './errors.ts'
import {
  contentRange,
  contentTypeFor,
  negotiateFormat,
  parsePrefer,
  requestedRange,
  type Preferences,
} from './negotiation.ts'
import { AliasCounter, buildPlan, classifyParams, relatedRelations, type PlanNode, type QueryParams } from './request-plan.ts'
import { SchemaCache, type Relation, type Routine } from './schema-cache.ts'
import {
  Params,
  bodySelect,
  orderClause,
  outputNames,
  projection,
  quoteIdent,
  readSql,
  relationSql,
  whereConditions,
  type BodyFormat,
} from './sql-builder.ts'
import { deleteCte, insertCte, parseJsonBody, requireFilters, updateCte, type ParsedBody } from './write-sql.ts'
import { parseColumns } from './query-parser.ts'

/**
 * One relation a request touches. The hook is asked first about the top relation or function
 * (`related: false`, the method's action), then once per distinct relation reached from it
 * (`related: true`, action `read`): embeds at any depth, including those only filtered or
 * ordered on, many-to-many junctions, and the relation whose rows an RPC returns. Any refusal
 * ends the request before it reaches the database.
 */
export type AuthorizeRequest = {
  relation: string
  kind: 'table' | 'rpc'
  action: 'read' | 'create' | 'update' | 'delete'
  /** Absent or false: the top relation or function. */
  related?: boolean
  req: express.Request
}
/** 404 is answered with an empty body, as for a path outside the API. */
export type AuthorizeResult = { allowed: true } | { allowed: false; status: 401 | 403 | 404; message: string }

/** What a write validator sees: the parsed body rows (none for DELETE) of one write request. */
export type ValidateWriteInput = {
  relation: string
  method: 'POST' | 'PATCH' | 'DELETE'
  rows: Record<string, unknown>[]
  req: express.Request
  /** For validators that must look at existing rows (e.g. a parent's type). */
  db: Queryable
  /** The written relation's columns, for validators that set server-owned ones (created_by). */
  columns: ReadonlySet<string>
}
export type ValidateWriteResult =
  /** `rows`: replacement body rows (same count and order); the write is built from them. */
  | { ok: true; rows?: Record<string, unknown>[] }
  | { ok: false; status: 400 | 403; code: string; message: string; details?: string }

/**
 * Row-level access: the condition rows of `relation` (a table or view, or an RPC's result when
 * it is no relation) must meet when read as `alias`; null for none.
 */
export type RowGuard = (relation: string, kind: 'table' | 'rpc', alias: string, params: Params) => string | null

export type PostgrestRouterOptions = {
  db: Db
  schema?: string
  maxRows?: number
  statementTimeoutMs?: number
  authorize?: (request: AuthorizeRequest) => Promise<AuthorizeResult>
  /** Share a cache (e.g. to call `refresh()` after migrations); one is created otherwise. */
  schemaCache?: SchemaCache
  /** Whether the caller is signed in: decides 401 vs 403 for SQLSTATE 42501. */
  isAuthenticated?: (req: express.Request) => boolean
  /** Largest accepted request body in bytes (default 10 MiB). */
  maxBodyBytes?: number
  /**
   * Domain rules the schema cannot express (vocabularies, nesting), checked before the SQL of
   * every table write; a failure is answered as a PostgREST-shaped error with its status.
   */
  validateWrite?: (input: ValidateWriteInput) => Promise<ValidateWriteResult>
  /** Row-level access for this request's caller (asked once per request, after authorization); null when no row is hidden. */
  rowGuard?: (req: express.Request) => Promise<RowGuard | null>
}

/** Puts the caller's row conditions on every level of a plan: the top relation and each embed. */
async function guardPlan(options: PostgrestRouterOptions, req: express.Request, root: PlanNode, rootName: string, rootKind: 'table' | 'rpc'): Promise<void> {
  const guard = options.rowGuard ? await options.rowGuard(req) : null
  if (!guard) return
  const apply = (node: PlanNode, name: string, kind: 'table' | 'rpc') => {
    node.guard = (params) => guard(name, kind, node.alias, params) ?? 'true'
  }
  apply(root, rootName, rootKind)
  const visit = (node: PlanNode) => {
    const embeds = new Set<PlanNode>(node.embeds.values())
    for (const item of node.items) if (item.kind === 'embed') embeds.add(item.node)
    for (const embed of embeds) {
      apply(embed, embed.relation.name, 'table')
      visit(embed)
    }
  }
  visit(root)
}

const ACTIONS: Record<string, AuthorizeRequest['action']> = {
  GET: 'read',
  HEAD: 'read',
  POST: 'create',
  PATCH: 'update',
  DELETE: 'delete',
}

type Reply = { status: number; headers: Record<string, string>; body: string | null }

type Engine = {
  cache: SchemaCache
  schema: string
  maxRows: number | null
  /** `actor` (a write's caller) is set as `lookout.actor` for the history triggers (migration 0192). */
  run<T>(write: boolean, fn: (q: Queryable) => Promise<T>, readOnly?: boolean, actor?: string | null): Promise<T>
}

/** The person a write is made by, for the history triggers; null for a caller with no person. */
function actorOf(req: express.Request): string | null {
  const personId = (req.res?.locals.principal as { personId?: unknown } | undefined)?.personId
  return typeof personId === 'string' ? personId : null
}

type Row = { page: number | string | bigint; body: string | null; total?: number | string | bigint | null; location?: string | null }

function toNumber(value: number | string | bigint | null | undefined): number {
  return value === null || value === undefined ? 0 : Number(value)
}

async function readBody(req: express.Request, limit: number): Promise<string> {
  const existing = (req as { body?: unknown }).body
  if (existing !== undefined && (req.readableEnded || req.complete)) {
    if (typeof existing === 'string') return existing
    if (Buffer.isBuffer(existing)) return existing.toString('utf8')
    if (existing && typeof existing === 'object' && Object.keys(existing).length === 0 && !Array.isArray(existing)) {
      // An upstream parser that did not recognise the type leaves `{}`; the stream is gone.
      return ''
    }
    return JSON.stringify(existing)
  }
  const chunks: Buffer[] = []
  let size = 0
  for await (const chunk of req) {
    const buffer = Buffer.isBuffer(chunk) ? chunk : Buffer.from(chunk as string)
    size += buffer.length
    if (size > limit) throw new PostgrestError(413, 'PGRST102', 'Request body too large')
    chunks.push(buffer)
  }
  return Buffer.concat(chunks).toString('utf8')
}

function checkContentType(req: express.Request) {
  const type = (req.headers['content-type'] ?? '').split(';')[0]!.trim().toLowerCase()
  if (type === 'application/json' || type === 'application/vnd.pgrst.object+json' || type === 'application/vnd.pgrst.object') return
  // An untyped body is JSON to API clients, but a page of another site can send one with the
  // visitor's session cookie (no preflight): a session must name the type it sends.
  const via = (req.res?.locals.principal as { via?: string } | undefined)?.via
  const hasBody = Number(req.headers['content-length'] ?? 0) > 0 || req.headers['transfer-encoding'] !== undefined
  if (type === '' && !(hasBody && (via === 'session' || via === 'kratos-session'))) return
  throw new PostgrestError(415, 'PGRST107', type === '' ? 'Content-Type is required with a session cookie: send application/json' : `Content-Type not acceptable: ${type}`)
}

function checkProfile(req: express.Request, schema: string) {
  const header = req.method === 'GET' || req.method === 'HEAD' ? req.headers['accept-profile'] : req.headers['content-profile']
  if (typeof header === 'string' && header !== '' && header !== schema) {
    throw new PostgrestError(406, 'PGRST106', `The schema must be one of the following: ${schema}`)
  }
}

function relationNotFound(schema: string, name: string): PostgrestError {
  return new PostgrestError(404, '42P01', `relation "${schema}.${name}" does not exist`)
}

function jsonReply(status: number, rowsBody: string | null, format: BodyFormat, headers: Record<string, string>): Reply {
  return { status, headers: { 'Content-Type': contentTypeFor(format), ...headers }, body: rowsBody }
}

/** GET/HEAD on a relation or on the rows of a set-returning function. */
async function readRows(
  engine: Engine,
  req: express.Request,
  node: PlanNode,
  source: (params: Params) => string,
  format: BodyFormat,
  prefs: Preferences,
  options: { readOnly?: boolean; singleComposite?: boolean } = {},
): Promise<Reply> {
  const rangeUnit = req.headers['range-unit']
  const rangeHeader = typeof rangeUnit === 'string' && rangeUnit !== 'items' ? undefined : req.headers.range
  const range = requestedRange(rangeHeader, node.limit, node.offset)
  node.limit = range.limit
  node.offset = range.offset

  const params = new Params()
  const { rows, countFrom } = readSql(node, source(params), params, engine.maxRows)
  let total: string | null = null
  const count = prefs.count
  let planned: number | null = null
  if (count === 'planned' || count === 'estimated') {
    planned = await plannedCount(engine, node, source, options.readOnly)
  }
  const exact = count === 'exact' || (count === 'estimated' && (engine.maxRows === null || (planned ?? 0) <= engine.maxRows))
  if (exact) total = `(SELECT count(*) ${countFrom})::int8`
  const sql = bodySelect(rows, format, format === 'csv' ? outputNames(node) : null, params, total)
  const result = await engine.run(false, (q) => q.query<Row>(sql, params.values), options.readOnly)
  const row = result.rows[0]!
  const page = toNumber(row.page)
  const totalCount = exact ? toNumber(row.total) : planned
  const headers: Record<string, string> = { 'Content-Range': contentRange(range.offset, page, totalCount) }
  if (count) headers['Preference-Applied'] = `count=${count}`
  if (totalCount !== null && range.offset > totalCount && !(range.offset === 0)) {
    throw Object.assign(
      new PostgrestError(416, 'PGRST103', 'Requested range not satisfiable', `An offset of ${range.offset} was requested, but there are only ${totalCount} rows.`),
      { headers: { 'Content-Range': `*/${totalCount}` } },
    )
  }
  if (format === 'object' && !options.singleComposite && page !== 1) {
    throw new PostgrestError(406, 'PGRST116', 'JSON object requested, multiple (or no) rows returned', `The result contains ${page} rows`)
  }
  let body = row.body
  if (options.singleComposite) body = body ?? 'null'
  const status = totalCount !== null && page < totalCount && format === 'array' ? 206 : 200
  return jsonReply(status, body, format, headers)
}

async function plannedCount(engine: Engine, node: PlanNode, source: (params: Params) => string, readOnly?: boolean): Promise<number> {
  const params = new Params()
  const from = source(params)
  const where = whereConditions(node, params)
  const sql = `EXPLAIN (FORMAT JSON) SELECT 1 FROM ${from} ${node.alias}${where.length ? ` WHERE ${where.join(' AND ')}` : ''}`
  const result = await engine.run(false, (q) => q.query<Record<string, unknown>>(sql, params.values), readOnly)
  const plan = Object.values(result.rows[0] ?? {})[0]
  const parsed = typeof plan === 'string' ? (JSON.parse(plan) as unknown) : plan
  const rows = (parsed as { Plan?: { 'Plan Rows'?: number } }[] | undefined)?.[0]?.Plan?.['Plan Rows']
  return typeof rows === 'number' ? rows : 0
}

async function writeRows(
  engine: Engine,
  relation: Relation,
  node: PlanNode,
  method: 'POST' | 'PATCH' | 'DELETE',
  cte: (params: Params) => string | null,
  format: BodyFormat,
  prefs: Preferences,
  actor: string | null,
): Promise<Reply> {
  const returning = prefs.return ?? 'minimal'
  const headers: Record<string, string> = {}
  const applied: string[] = []
  if (prefs.return) applied.push(`return=${prefs.return}`)
  if (prefs.resolution && method === 'POST') applied.push(`resolution=${prefs.resolution}`)
  if (prefs.missingDefault && method === 'POST') applied.push('missing=default')
  if (applied.length) headers['Preference-Applied'] = applied.join(', ')

  const params = new Params()
  const ctes = cte(params)
  if (ctes === null) {
    // PATCH with an empty object changes nothing.
    if (returning === 'representation') return jsonReply(200, format === 'object' ? 'null' : '[]', format, { ...headers, 'Content-Range': '*/*' })
    return { status: 204, headers: { ...headers, 'Content-Range': '*/*' }, body: null }
  }
  let sql: string
  if (returning === 'representation') {
    const rows = `SELECT ${projection(node, params)} FROM _w ${node.alias}`
    sql = `WITH ${ctes} ${bodySelect(rows, format, format === 'csv' ? outputNames(node) : null, params, null)}`
  } else if (returning === 'headers-only' && method === 'POST' && relation.primaryKey.length > 0) {
    const keys = relation.primaryKey.map((key) => `${node.alias}.${quoteIdent(key)}`).join(', ')
    sql = `WITH ${ctes} SELECT count(*)::int8 AS page, NULL AS body, min(json_build_array(${keys})::text) AS location FROM _w ${node.alias}`
  } else {
    sql = `WITH ${ctes} SELECT count(*)::int8 AS page, NULL AS body FROM _w`
  }
  const row = await engine.run(true, async (q) => {
    const result = await q.query<Row>(sql, params.values)
    const first = result.rows[0]!
    const page = toNumber(first.page)
    if (format === 'object' && returning === 'representation' && page !== 1) {
      throw new PostgrestError(406, 'PGRST116', 'JSON object requested, multiple (or no) rows returned', `The result contains ${page} rows`)
    }
    return first
  }, false, actor)
  const page = toNumber(row.page)
  const total = prefs.count === 'exact' ? page : null
  headers['Content-Range'] = method === 'POST' ? `*/${total ?? '*'}` : contentRange(0, page, total)
  if (returning === 'representation') {
    return jsonReply(method === 'POST' ? 201 : 200, row.body, format, headers)
  }
  if (method === 'POST') {
    if (returning === 'headers-only' && row.location && page === 1) {
      const values = JSON.parse(row.location) as unknown[]
      const query = relation.primaryKey
        .map((key, index) => `${encodeURIComponent(key)}=eq.${encodeURIComponent(String(values[index]))}`)
        .join('&')
      headers.Location = `/${relation.name}?${query}`
    }
    return { status: 201, headers, body: null }
  }
  return { status: 204, headers, body: null }
}

function routineReturnsRelation(routine: Routine): Relation | null {
  const returns = routine.returns
  if (returns.kind !== 'composite') return null
  if (returns.relation) return returns.relation
  return {
    oid: routine.oid,
    schema: '',
    name: routine.name,
    kind: 'view',
    columns: returns.columns,
    columnsByName: new Map(returns.columns.map((col) => [col.name, col])),
    primaryKey: [],
    insertable: false,
  }
}

function routineNotFound(schema: string, name: string, keys: string[]): PostgrestError {
  const list = [...keys].sort().join(', ')
  return new PostgrestError(
    404,
    'PGRST202',
    `Could not find the function ${schema}.${name}${keys.length ? `(${list})` : ' without parameters'} in the schema cache`,
    `Searched for the function ${schema}.${name}${keys.length ? ` with parameters ${list}` : ' without parameters'} or with a single unnamed json/jsonb parameter, but no matches were found in the schema cache.`,
    null,
  )
}

function pickRoutine(schema: string, name: string, routines: Routine[], keys: string[], hasBody: boolean): { routine: Routine; wholeBody: boolean } {
  const matches = routines.filter((routine) => {
    const names = new Set(routine.args.map((arg) => arg.name))
    return keys.every((key) => names.has(key)) && routine.args.every((arg) => arg.hasDefault || keys.includes(arg.name))
  })
  if (matches.length === 1) return { routine: matches[0]!, wholeBody: false }
  if (matches.length > 1) {
    const exact = matches.filter((routine) => routine.args.length === keys.length)
    if (exact.length === 1) return { routine: exact[0]!, wholeBody: false }
    throw new PostgrestError(
      300,
      'PGRST203',
      `Could not choose the best candidate function between: ${matches.map((r) => `${schema}.${name}(${r.args.map((a) => `${a.name} => ${a.type}`).join(', ')})`).join(', ')}`,
      null,
      'Try renaming the parameters or the function itself in the database so function overloading can be resolved',
    )
  }
  if (hasBody) {
    const single = routines.find((routine) => routine.args.length === 1 && routine.args[0]!.name === '' && /^jsonb?$/.test(routine.args[0]!.type))
    if (single) return { routine: single, wholeBody: true }
  }
  throw routineNotFound(schema, name, keys)
}

/** A refusal answered with its status alone, like the guard's 404 for what the API does not serve. */
class BareRefusal extends Error {
  constructor(readonly status: number) {
    super('refused')
  }
}

type Authorize = (request: Omit<AuthorizeRequest, 'req'>) => Promise<void>

function authorizer(options: PostgrestRouterOptions, req: express.Request): Authorize {
  return async (request) => {
    if (!options.authorize) return
    const verdict = await options.authorize({ ...request, req })
    if (verdict.allowed) return
    if (verdict.status === 404) throw new BareRefusal(404)
    throw new PostgrestError(verdict.status, '42501', verdict.message)
  }
}

async function authorizeRelated(authorize: Authorize, names: string[]): Promise<void> {
  for (const relation of new Set(names)) await authorize({ relation, kind: 'table', action: 'read', related: true })
}

async function callRoutine(
  engine: Engine,
  options: PostgrestRouterOptions,
  authorize: Authorize,
  req: express.Request,
  name: string,
  search: string,
  rawBody: string | null,
  format: BodyFormat,
  prefs: Preferences,
): Promise<Reply> {
  const routines = engine.cache.routine(name)
  if (routines.length === 0) throw routineNotFound(engine.schema, name, [])
  let params: QueryParams
  let keys: string[]
  let body: Record<string, unknown> | null = null
  if (rawBody === null) {
    const argumentNames = new Set(routines.flatMap((routine) => routine.args.map((arg) => arg.name)).filter(Boolean))
    params = classifyParams(search, argumentNames)
    keys = [...new Set(params.pairs.map(([key]) => key))]
  } else {
    params = classifyParams(search)
    let parsed: unknown
    try {
      parsed = rawBody.trim() === '' ? {} : JSON.parse(rawBody)
    } catch {
      throw bodyError('Empty or invalid json')
    }
    body = typeof parsed === 'object' && parsed !== null && !Array.isArray(parsed) ? (parsed as Record<string, unknown>) : null
    keys = body ? Object.keys(body) : []
    if (!body) {
      const { routine } = pickRoutine(engine.schema, name, routines, [], true)
      if (!(routine.args.length === 1 && routine.args[0]!.name === '')) throw bodyError('Empty or invalid json')
    }
  }
  const { routine, wholeBody } = pickRoutine(engine.schema, name, routines, keys, rawBody !== null)
  const call = (sqlParams: Params): string => {
    const fn = `${quoteIdent(engine.schema)}.${quoteIdent(routine.name)}`
    if (wholeBody) return `${fn}(${sqlParams.text(rawBody ?? '{}')}::${routine.args[0]!.type})`
    const args: string[] = []
    let bodyParam: string | null = null
    for (const arg of routine.args) {
      if (!keys.includes(arg.name)) continue
      let value: string
      if (body) {
        bodyParam ??= sqlParams.text(rawBody!)
        value = `(SELECT _a.${quoteIdent(arg.name)} FROM jsonb_to_record(${bodyParam}::jsonb) AS _a(${quoteIdent(arg.name)} ${arg.type}))`
      } else {
        const values = params.pairs.filter(([key]) => key === arg.name).map(([, value]) => value)
        value = arg.variadic && values.length > 1 ? `${sqlParams.textArray(values)}::${arg.type}` : `${sqlParams.text(values[values.length - 1]!)}::${arg.type}`
      }
      args.push(`${arg.variadic ? 'VARIADIC ' : ''}${quoteIdent(arg.name)} := ${value}`)
    }
    return `${fn}(${args.join(', ')})`
  }
  // PostgREST runs GET calls read-only; only volatile functions can notice, so only they pay for it.
  const readOnly = rawBody === null && routine.volatile
  const returns = routine.returns
  if (returns.kind === 'composite') {
    const relation = routineReturnsRelation(routine)!
    const node = buildPlan(engine.cache, relation, params, new AliasCounter(), { allowEmbeds: returns.relation !== null })
    // The rows are the returned relation's, whatever function produced them.
    const source = returns.relation?.name ?? returns.hiddenRelation
    await authorizeRelated(authorize, [...(source ? [source] : []), ...relatedRelations(node).map((rel) => rel.name)])
    await guardPlan(options, req, node, returns.relation ? returns.relation.name : name, returns.relation ? 'table' : 'rpc')
    const single = !returns.set
    const effectiveFormat = single && format === 'array' ? 'object' : format
    return readRows(engine, req, node, call, effectiveFormat, prefs, { readOnly, singleComposite: single && format === 'array' })
  }
  const sqlParams = new Params()
  const callSql = call(sqlParams)
  if (returns.kind === 'void') {
    await engine.run(!readOnly, (q) => q.query(`SELECT ${callSql}`, sqlParams.values), readOnly, actorOf(req))
    return { status: 204, headers: {}, body: null }
  }
  if (returns.set) {
    const root = params.levels.get('')
    let tail = ''
    const limit = engine.maxRows !== null ? Math.min(root?.limit ?? engine.maxRows, engine.maxRows) : (root?.limit ?? null)
    if (limit !== null) tail += ` LIMIT ${sqlParams.text(String(limit))}::int8`
    if (root?.offset) tail += ` OFFSET ${sqlParams.text(String(root.offset))}::int8`
    const sql = `SELECT count(*)::int8 AS page, coalesce(json_agg(_s._v), '[]')::text AS body FROM (SELECT _f._v FROM ${callSql} AS _f(_v)${tail}) _s`
    const result = await engine.run(!readOnly, (q) => q.query<Row>(sql, sqlParams.values), readOnly, actorOf(req))
    const row = result.rows[0]!
    return jsonReply(200, row.body, 'array', { 'Content-Range': contentRange(root?.offset ?? 0, toNumber(row.page), null) })
  }
  const sql = `SELECT to_json(${callSql})::text AS body`
  const result = await engine.run(!readOnly, (q) => q.query<Row>(sql, sqlParams.values), readOnly, actorOf(req))
  return jsonReply(200, result.rows[0]?.body ?? 'null', 'array', {})
}

async function handle(engine: Engine, options: PostgrestRouterOptions, req: express.Request): Promise<Reply> {
  const method = req.method.toUpperCase()
  const url = req.url
  const question = url.indexOf('?')
  const pathname = question === -1 ? url : url.slice(0, question)
  const search = question === -1 ? '' : url.slice(question + 1)
  let segments: string[]
  try {
    segments = pathname.split('/').filter(Boolean).map((segment) => decodeURIComponent(segment))
  } catch {
    throw new PostgrestError(400, 'PGRST100', '"failed to parse path"', 'invalid percent-encoding')
  }
  if (method === 'OPTIONS') {
    return { status: 200, headers: { Allow: 'OPTIONS,GET,HEAD,POST,PATCH,DELETE' }, body: null }
  }
  const action = ACTIONS[method]
  if (!action) throw new PostgrestError(405, 'PGRST117', `Unsupported HTTP method: ${method}`)
  const isRpc = segments.length === 2 && segments[0] === 'rpc'
  if (!isRpc && segments.length !== 1) {
    throw new PostgrestError(404, 'PGRST125', `Invalid path specified in request URL`)
  }
  const name = isRpc ? segments[1]! : segments[0]!
  const authorize = authorizer(options, req)
  await authorize({ relation: name, kind: isRpc ? 'rpc' : 'table', action, related: false })
  checkProfile(req, engine.schema)
  await engine.cache.load()
  const prefs = parsePrefer(req.headers.prefer)
  const format = negotiateFormat(req.headers.accept)
  const limitBody = options.maxBodyBytes ?? 10 * 1024 * 1024

  if (isRpc) {
    if (method !== 'GET' && method !== 'HEAD' && method !== 'POST') {
      throw new PostgrestError(405, 'PGRST101', 'Only GET or POST is allowed')
    }
    let rawBody: string | null = null
    if (method === 'POST') {
      checkContentType(req)
      rawBody = await readBody(req, limitBody)
    }
    return callRoutine(engine, options, authorize, req, name, search, rawBody, format, prefs)
  }

  let relation = engine.cache.relation(name)
  // Custom views create their tables at run time, possibly in another process: one re-read.
  if (!relation && /^view_[a-z0-9_]+$/.test(name)) {
    await engine.cache.refresh()
    relation = engine.cache.relation(name)
  }
  if (!relation) throw relationNotFound(engine.schema, name)
  const params = classifyParams(search)
  const node = buildPlan(engine.cache, relation, params, new AliasCounter())
  await authorizeRelated(authorize, relatedRelations(node).map((rel) => rel.name))
  // Writes too: what a caller may not see, it may not change either (inserts have no rows to guard).
  await guardPlan(options, req, node, name, 'table')
  if (method === 'GET' || method === 'HEAD') {
    return readRows(engine, req, node, () => relationSql(relation), format, prefs)
  }
  checkContentType(req)
  const validate = async (writeMethod: ValidateWriteInput['method'], body: ParsedBody): Promise<ParsedBody> => {
    if (!options.validateWrite) return body
    const columns = new Set(relation.columnsByName.keys())
    const verdict = await options.validateWrite({ relation: name, method: writeMethod, rows: body.rows, req, db: options.db, columns })
    if (!verdict.ok) throw new PostgrestError(verdict.status, verdict.code, verdict.message, verdict.details ?? null)
    if (!verdict.rows) return body
    // The SQL reads the body's text, so replaced rows are serialised again; a `columns=` list
    // must also name what the validator added, or the server-set values would be dropped.
    if (params.columns !== null) {
      const named = new Set(parseColumns(params.columns))
      const added = [...new Set(verdict.rows.flatMap((row) => Object.keys(row)))].filter((key) => !named.has(key))
      if (added.length > 0) params.columns = [...named, ...added].join(',')
    }
    return { text: JSON.stringify(verdict.rows), rows: verdict.rows, isArray: body.isArray }
  }
  if (method === 'POST') {
    const body = await validate('POST', parseJsonBody(await readBody(req, limitBody)))
    return writeRows(engine, relation, node, 'POST', (p) => insertCte(relation, body, params.columns, params.onConflict, prefs, p), format, prefs, actorOf(req))
  }
  const limit = node.limit
  if (method === 'PATCH') {
    requireFilters(node, limit, 'UPDATE')
    const parsed = parseJsonBody(await readBody(req, limitBody))
    if (parsed.isArray) throw bodyError('A PATCH body must be a single JSON object')
    const body = await validate('PATCH', parsed)
    return writeRows(engine, relation, node, 'PATCH', (p) => updateCte(node, body, p, limit, orderClause(node, p)), format, prefs, actorOf(req))
  }
  requireFilters(node, limit, 'DELETE')
  await validate('DELETE', { text: '[]', rows: [], isArray: true })
  return writeRows(engine, relation, node, 'DELETE', (p) => deleteCte(node, p, limit, orderClause(node, p)), format, prefs, actorOf(req))
}

/**
 * The PostgREST-compatible data API: `/<relation>` and `/rpc/<function>` over the exposed
 * schema. Mount it where clients expect PostgREST (the lead mounts it at `/db`).
 */
export function createPostgrestRouter(options: PostgrestRouterOptions): express.Router {
  const schema = options.schema ?? 'public'
  const cache = options.schemaCache ?? new SchemaCache(options.db, schema)
  const timeout = options.statementTimeoutMs !== undefined ? Math.max(0, Math.floor(options.statementTimeoutMs)) : null
  const engine: Engine = {
    cache,
    schema,
    maxRows: options.maxRows !== undefined ? Math.max(0, Math.floor(options.maxRows)) : null,
    run(write, fn, readOnly, actor) {
      if (!write && timeout === null && !readOnly) return fn(options.db)
      return options.db.transaction(async (tx) => {
        if (timeout !== null) await tx.exec(`SET LOCAL statement_timeout = ${timeout}`)
        if (write && actor) await tx.query(`SELECT set_config('lookout.actor', $1, true)`, [actor])
        if (readOnly) await tx.exec('SET TRANSACTION READ ONLY')
        return fn(tx)
      })
    },
  }
  const isAuthenticated = options.isAuthenticated ?? ((req: express.Request) => typeof req.headers.authorization === 'string')
  const router = express.Router()
  router.use((req, res) => {
    handle(engine, options, req).then(
      (reply) => send(res, req.method === 'HEAD' ? { ...reply, body: null } : reply),
      (error: unknown) => {
        if (error instanceof BareRefusal) return send(res, { status: error.status, headers: {}, body: null })
        const failure = toPostgrestError(error, isAuthenticated(req))
        const extra = (error as { headers?: Record<string, string> }).headers ?? {}
        send(res, {
          status: failure.status,
          headers: { 'Content-Type': 'application/json; charset=utf-8', ...extra },
          body: req.method === 'HEAD' ? null : JSON.stringify(failure.toBody()),
        })
      },
    )
  })
  return router
}

function send(res: express.Response, reply: Reply) {
  if (res.headersSent) return
  res.status(reply.status)
  for (const [key, value] of Object.entries(reply.headers)) res.setHeader(key, value)
  if (reply.body === null) {
    res.end()
    return
  }
  res.setHeader('Content-Length', Buffer.byteLength(reply.body))
  res.end(reply.body)
}
