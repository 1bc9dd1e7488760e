import type { Db, Queryable } from '#server/db/client.ts'
import { Params, quoteIdent } from '#server/backend/postgrest/sql-builder.ts'
import { selectorSource, SelectorSchema } from '#server/backend/catalog/resource-search.ts'
import { CatalogInputError } from '#server/backend/catalog/catalog-input.ts'
import type { ConfigVisibility } from '#server/backend/catalog/config-access.ts'
import { findConnection, resolveAccess } from '#server/backend/health/checks/check-inputs.ts'
import { queryMysql, queryPostgres } from '#server/backend/health/checks/sql-check.ts'
import { httpRequest, parseJsonBody } from '#server/backend/health/checks/http-client.ts'
import type { TargetGuard } from '#server/backend/health/checks/target-guard.ts'
import { viewTableName, type ViewQuery, type ViewSelector } from '#contract/views/view-document.ts'
import { loadRows, queryTable, ViewQueryError } from './view-sql.ts'

/**
 * Each query of a view loaded into a temporary table of its name: `configs` and `changes`
 * selectors straight from the catalog in SQL (the catalog's selector code and row-level access),
 * `sql`, `prometheus` and `http` fetched here and bound as one JSON parameter.
 */

export type QueryContext = {
  db: Db
  tx: Queryable
  namespace: string
  visibility: ConfigVisibility
  targets: TargetGuard
  timeoutMs: number
  signal: AbortSignal
  /**
   * The names the view's SQL, CEL and columns mention; a catalog query table keeps only those of
   * its columns (and `id`); with `*`, every column but the large documents. Null: every column.
   */
  mentioned: Set<string> | null
}

const CHANGES_DEFAULT_LIMIT = 10_000

/** The view's selector as the catalog reads it (fields the catalog does not know are ignored). */
function catalogSelector(selector: ViewSelector) {
  const parsed = SelectorSchema.safeParse(selector)
  if (!parsed.success) throw new ViewQueryError(`invalid selector: ${parsed.error.issues[0]?.message ?? 'bad value'}`)
  return parsed.data
}

const CONFIG_COLUMNS: [string, string][] = [
  ['id', 'r.id'], ['name', 'r.name'], ['type', 'r.type'], ['config_class', 'r.config_class'], ['health', 'r.health'], ['status', 'r.status'],
  ['ready', 'r.ready'], ['description', 'r.description'], ['tags', 'r.tags'], ['labels', 'r.labels'], ['agent_id', 'r.agent_id'],
  ['parent_id', 'r.parent_id'], ['path', 'r.path'], ['created_at', 'r.created_at'], ['updated_at', 'r.updated_at'], ['deleted_at', 'r.deleted_at'],
  ['cost_total_30d', 'r.cost_total_30d'], ['config', 'r.config'], ['properties', 'r.properties'],
]
const CHANGE_COLUMNS: [string, string][] = [
  ['id', 'r.id'], ['config_id', 'r.config_id'], ['name', 'ci.name'], ['config_type', 'ci.type'], ['change_type', 'r.change_type'], ['severity', 'r.severity'],
  ['source', 'r.source'], ['summary', 'r.summary'], ['created_by', 'r.created_by'], ['external_created_by', 'r.external_created_by'],
  ['created_at', 'r.created_at'], ['first_observed', 'r.first_observed'], ['count', 'r.count'], ['details', 'r.details'], ['tags', 'ci.tags'],
]

/** The catalog columns worth copying: those the view mentions (a whole config document is costly to copy for nothing). */
function selectList(columns: [string, string][], mentioned: Set<string> | null): string {
  const large = (name: string) => name === 'config' || name === 'properties' || name === 'details'
  const kept = columns.filter(([name]) => name === 'id' || !mentioned || mentioned.has(name) || (mentioned.has('*') && !large(name)))
  return kept.map(([name, sql]) => `${sql} AS ${quoteIdent(name)}`).join(', ')
}

async function loadConfigs(name: string, selector: ViewSelector, context: QueryContext): Promise<void> {
  const params = new Params()
  const { from, conditions } = selectorSource('configs', catalogSelector(selector), context.visibility, params)
  const limit = selector.limit ? ` LIMIT ${Math.floor(selector.limit)}` : ''
  await context.tx.query(
    `CREATE TEMP TABLE ${queryTable(name)} ON COMMIT DROP AS
     SELECT ${selectList(CONFIG_COLUMNS, context.mentioned)}
     FROM ${from}${conditions.length ? ` WHERE ${conditions.join(' AND ')}` : ''}${limit}`,
    params.values,
  )
}

async function loadChanges(name: string, selector: ViewSelector, context: QueryContext): Promise<void> {
  const params = new Params()
  const { from, conditions } = selectorSource('config_changes', catalogSelector(selector), context.visibility, params)
  const limit = Math.floor(selector.limit ?? CHANGES_DEFAULT_LIMIT)
  await context.tx.query(
    `CREATE TEMP TABLE ${queryTable(name)} ON COMMIT DROP AS
     SELECT ${selectList(CHANGE_COLUMNS, context.mentioned)}
     FROM ${from}${conditions.length ? ` WHERE ${conditions.join(' AND ')}` : ''}
     ORDER BY r.created_at DESC LIMIT ${limit}`,
    params.values,
  )
}

/** Another view's materialised rows (`viewTableSelector`), the current set of each. */
async function loadViewTable(name: string, ref: { name?: string; namespace?: string }, context: QueryContext): Promise<void> {
  if (!ref.name) throw new ViewQueryError(`query ${name}: viewTableSelector needs a name`)
  const table = viewTableName(ref.namespace ?? context.namespace, ref.name)
  const { rows } = await context.tx.query<{ exists: boolean }>(`SELECT to_regclass($1) IS NOT NULL AS exists`, [`public.${table}`])
  if (!rows[0]?.exists) throw new ViewQueryError(`query ${name}: view ${ref.namespace ?? context.namespace}/${ref.name} has no rows yet`)
  await context.tx.query(
    `CREATE TEMP TABLE ${queryTable(name)} ON COMMIT DROP AS SELECT * FROM public.${quoteIdent(table)} WHERE request_fingerprint = ''`,
  )
}

async function access(spec: Record<string, unknown>, context: QueryContext) {
  return resolveAccess(
    spec,
    {
      resolveConnection: (ref, namespace) => findConnection(context.tx, ref, namespace),
      templatesEnabled: true,
      targets: context.targets,
      canary: { namespace: context.namespace },
    },
    { connectionIsUrl: true },
  )
}

/** Credentials of the connection into the URL, where the URL has none of its own. */
function withCredentials(url: string, username?: string, password?: string): string {
  if (!username || !/^[a-z]+:\/\//i.test(url)) return url
  try {
    const parsed = new URL(url)
    if (parsed.username) return url
    parsed.username = encodeURIComponent(username)
    if (password) parsed.password = encodeURIComponent(password)
    return parsed.toString()
  } catch {
    return url
  }
}

async function fetchSql(name: string, sql: NonNullable<ViewQuery['sql']>, context: QueryContext): Promise<Record<string, unknown>[]> {
  const resolved = await access(sql as Record<string, unknown>, context)
  if (!resolved.url) throw new ViewQueryError(`query ${name}: the connection has no URL`)
  const kind = sql.type ?? (resolved.connection?.type === 'mysql' || /^mysql:/.test(resolved.url) ? 'mysql' : 'postgres')
  if (kind === 'sqlserver') throw new ViewQueryError(`query ${name}: sqlserver is not supported here; use postgres or mysql`)
  const url = withCredentials(resolved.url, resolved.username, resolved.password)
  try {
    return kind === 'mysql'
      ? await queryMysql(url, sql.query, context.timeoutMs, context.signal, context.targets)
      : await queryPostgres(url, sql.query, context.timeoutMs, context.signal, context.targets)
  } catch (error) {
    throw new ViewQueryError(`query ${name}: ${(error as Error).message}`)
  }
}

function authHeaders(username?: string, password?: string): Record<string, string> {
  return username ? { authorization: `Basic ${Buffer.from(`${username}:${password ?? ''}`).toString('base64')}` } : {}
}

/** Prometheus vectors and matrices as rows: the series' labels, `value` and `timestamp`. */
async function fetchPrometheus(name: string, prom: NonNullable<ViewQuery['prometheus']>, context: QueryContext): Promise<Record<string, unknown>[]> {
  const resolved = await access(prom as Record<string, unknown>, context)
  const base = resolved.url.replace(/\/+$/, '')
  const search = new URLSearchParams({ query: prom.query })
  let path = '/api/v1/query'
  if (prom.range) {
    const now = Date.now() / 1000
    path = '/api/v1/query_range'
    search.set('start', String(prom.range.start ? promTime(prom.range.start, now) : now - 3600))
    search.set('end', String(prom.range.end ? promTime(prom.range.end, now) : now))
    search.set('step', prom.range.step ?? '60s')
  }
  const response = await httpRequest(`${base}${path}?${search}`, { headers: authHeaders(resolved.username, resolved.password), signal: context.signal, targets: context.targets })
  const body = safeJson(response) as { status?: string; error?: string; data?: { resultType?: string; result?: unknown } } | null
  if (response.status >= 400 || body?.status !== 'success') throw new ViewQueryError(`query ${name}: prometheus answered ${response.status}${body?.error ? `: ${body.error}` : ''}`)
  const result = body.data?.result
  const rows: Record<string, unknown>[] = []
  if (Array.isArray(result)) {
    for (const series of result as { metric?: Record<string, string>; value?: [number, string]; values?: [number, string][] }[]) {
      const samples = series.values ?? (series.value ? [series.value] : [])
      for (const [time, value] of samples) rows.push({ ...series.metric, value: Number(value), timestamp: new Date(time * 1000).toISOString() })
    }
  }
  return rows
}

/** `now-1h`, `now`, RFC 3339 or seconds, as Unix seconds. */
function promTime(text: string, now: number): number {
  const relative = /^now(?:-(\d+)([smhd]))?$/.exec(text.trim())
  if (relative) return now - (relative[1] ? Number(relative[1]) * { s: 1, m: 60, h: 3600, d: 86400 }[relative[2] as 's'] : 0)
  const date = Date.parse(text)
  return Number.isNaN(date) ? Number(text) : date / 1000
}

function safeJson(response: { body: Buffer }): unknown {
  try {
    return parseJsonBody(response as Parameters<typeof parseJsonBody>[0])
  } catch {
    return null
  }
}

async function fetchHttp(name: string, http: NonNullable<ViewQuery['http']>, context: QueryContext): Promise<Record<string, unknown>[]> {
  const resolved = await access(http as Record<string, unknown>, context)
  const headers: Record<string, string> = { accept: 'application/json', ...authHeaders(resolved.username, resolved.password) }
  if (http.headers && typeof http.headers === 'object') {
    for (const [key, value] of Object.entries(http.headers as Record<string, unknown>)) if (typeof value === 'string') headers[key.toLowerCase()] = value
  }
  if (http.body) headers['content-type'] ??= 'application/json'
  const response = await httpRequest(resolved.url, { method: http.method ?? 'GET', headers, body: http.body, signal: context.signal, targets: context.targets })
  if (response.status >= 400) throw new ViewQueryError(`query ${name}: ${resolved.url} answered ${response.status}`)
  let value = safeJson(response)
  if (value === null) throw new ViewQueryError(`query ${name}: the answer is not JSON`)
  for (const step of (http.jsonPath ?? '').split('.').filter(Boolean)) value = (value as Record<string, unknown> | null)?.[step]
  const list = Array.isArray(value) ? value : value === undefined || value === null ? [] : [value]
  return list.map((item) => (item && typeof item === 'object' && !Array.isArray(item) ? (item as Record<string, unknown>) : { value: item }))
}

/** Rows of a source outside this database; any failure there is the view's problem, told to the caller. */
async function fetchExternal(name: string, query: ViewQuery, context: QueryContext): Promise<Record<string, unknown>[]> {
  try {
    if (query.sql) return await fetchSql(name, query.sql, context)
    if (query.prometheus) return await fetchPrometheus(name, query.prometheus, context)
    if (query.http) return await fetchHttp(name, query.http, context)
  } catch (error) {
    if (error instanceof ViewQueryError) throw error
    throw new ViewQueryError(`query ${name}: ${(error as Error).message}`)
  }
  throw new ViewQueryError(`query ${name} is empty`)
}

/** Loads every query of the view into its temporary table. */
export async function loadQueries(queries: Record<string, ViewQuery>, context: QueryContext): Promise<string[]> {
  const names: string[] = []
  for (const [name, query] of Object.entries(queries)) {
    try {
      if (query.configs) await loadConfigs(name, query.configs, context)
      else if (query.changes) await loadChanges(name, query.changes, context)
      else if (query.viewTableSelector) await loadViewTable(name, query.viewTableSelector, context)
      else {
        const fetched = await fetchExternal(name, query, context)
        await loadRows(context.tx, name, fetched, query.columns)
      }
    } catch (error) {
      if (error instanceof CatalogInputError) throw new ViewQueryError(`query ${name}: ${error.message}`)
      throw error
    }
    names.push(name)
  }
  return names
}
