import { createHash } from 'node:crypto'
import type { Logger } from 'pino'
import type { Db, Queryable } from '#server/db/client.ts'
import { quoteIdent } from '#server/backend/postgrest/sql-builder.ts'
import { Params } from '#server/backend/postgrest/sql-builder.ts'
import { selectorSource, SelectorSchema } from '#server/backend/catalog/resource-search.ts'
import type { ConfigVisibility } from '#server/backend/catalog/config-access.ts'
import { evaluateCel, ExpressionError } from '#server/backend/health/expressions.ts'
import type { TargetGuard } from '#server/backend/health/checks/target-guard.ts'
import { parseDurationMs } from '#contract/canary/duration.ts'
import { isUuid } from '#contract/uuid.ts'
import { parseViewSpec, viewTableName, type ViewColumn, type ViewPanel, type ViewSpec, type ViewVariable } from '#contract/views/view-document.ts'
import { loadQueries } from './view-queries.ts'
import { enterReadOnly, queryTable, readAuthorSql, sandboxAvailable, ViewQueryError } from './view-sql.ts'
import { castSql, ensureViewTable, visibilityScope, writeViewRows } from './view-table.ts'

/**
 * A view's evaluation (resource-specs §3.8): variables resolved, queries loaded, rows merged,
 * mapped in CEL and materialised into `view_<ns>_<name>` for the fingerprint of the variables,
 * panels computed; the result kept in `view_panels` and answered from there while fresh.
 */

export type ViewRow = { id: string; name: string; namespace: string | null; spec: unknown; updated_at: Date | string | null; created_at: Date | string }

export type PanelResult = Omit<ViewPanel, 'query'> & { rows: Record<string, unknown>[] }
export type VariableResult = { key: string; label: string; options: string[]; default?: string; value: string; dependsOn?: string[] }

export type ViewResult = {
  id: string
  namespace: string
  name: string
  title: string
  icon?: string
  description?: string
  table: string
  refreshStatus: 'cache' | 'fresh' | 'error' | 'timeout'
  responseSource: 'cache' | 'fresh'
  lastRefreshedAt: string | null
  requestFingerprint: string
  columns: ViewColumn[]
  panels: PanelResult[]
  variables: VariableResult[]
  columnOptions: Record<string, { list: string[] }>
  sections?: ViewSpec['sections']
  error?: string
}

export type EvaluateOptions = {
  db: Db
  logger?: Logger
  visibility: ConfigVisibility
  targets: TargetGuard
  /** The caller's `Cache-Control: max-age` (seconds), which may ask for fresher rows than the view's maxAge. */
  maxAgeSeconds?: number
  /** The caller's `refresh-timeout` (seconds). */
  refreshTimeoutSeconds?: number
  /** Called after the materialised table was created or re-created (the data API re-reads its schema). */
  onSchemaChange?: () => Promise<void>
  now?: () => number
}

const DEFAULTS = { maxAge: 15 * 60_000, minAge: 10_000, refreshTimeout: 5_000 }
const QUERY_TIMEOUT_MS = 30_000

export const durationOf = (text: string | undefined, fallback: number) => (text ? parseDurationMs(text) ?? fallback : fallback)

/** `$(var.key)` in every string of a value; in SQL text single quotes of values are doubled. */
export function substitute<T>(value: T, variables: Record<string, string>, sql = false): T {
  const replace = (text: string) =>
    text.replace(/\$\(\s*var\.([A-Za-z_][A-Za-z0-9_]*)\s*\)/g, (_match, key: string) => {
      const replacement = variables[key] ?? ''
      return sql ? replacement.replace(/'/g, "''") : replacement
    })
  const walk = (item: unknown): unknown => {
    if (typeof item === 'string') return replace(item)
    if (Array.isArray(item)) return item.map(walk)
    if (item && typeof item === 'object') return Object.fromEntries(Object.entries(item).map(([key, inner]) => [key, walk(inner)]))
    return item
  }
  return walk(value) as T
}

function orderedVariables(templating: ViewVariable[]): ViewVariable[] {
  const done = new Set<string>()
  const ordered: ViewVariable[] = []
  const visit = (variable: ViewVariable, path: string[]) => {
    if (done.has(variable.key)) return
    if (path.includes(variable.key)) throw new ViewQueryError(`templating: ${[...path, variable.key].join(' → ')} depend on each other`)
    for (const dependency of variable.dependsOn ?? []) {
      const other = templating.find((candidate) => candidate.key === dependency)
      if (other) visit(other, [...path, variable.key])
    }
    done.add(variable.key)
    ordered.push(variable)
  }
  for (const variable of templating) visit(variable, [])
  return ordered
}

/** Options of each variable (values, or configs matching `valueFrom.config`), in dependency order, and the value chosen. */
export async function resolveVariables(db: Queryable, templating: ViewVariable[], requested: Record<string, string>, visibility: ConfigVisibility): Promise<VariableResult[]> {
  const chosen: Record<string, string> = {}
  const results: VariableResult[] = []
  for (const variable of orderedVariables(templating)) {
    let options = variable.values ?? []
    if (variable.valueFrom) {
      const selector = SelectorSchema.safeParse(substitute(variable.valueFrom.config, chosen))
      if (!selector.success) throw new ViewQueryError(`templating ${variable.key}: invalid selector`)
      const params = new Params()
      const { from, conditions } = selectorSource('configs', selector.data, visibility, params)
      const { rows } = await db.query<{ item: Record<string, unknown> }>(
        `SELECT jsonb_build_object('id', r.id, 'name', r.name, 'type', r.type, 'tags', r.tags, 'labels', r.labels, 'health', r.health, 'status', r.status) AS item
         FROM ${from}${conditions.length ? ` WHERE ${conditions.join(' AND ')}` : ''} ORDER BY r.name LIMIT 1000`,
        params.values,
      )
      const values = new Set<string>()
      for (const { item } of rows) {
        const value = variable.valueFrom.value ? evaluateCel(variable.valueFrom.value, { config: item, row: item }) : item.name
        if (value !== null && value !== undefined && value !== '') values.add(String(value))
      }
      options = [...values].sort()
    }
    const asked = requested[variable.key]
    if (asked !== undefined && options.length > 0 && !options.includes(asked)) {
      throw new ViewQueryError(`variable ${variable.key}: "${asked}" is not one of its values`)
    }
    const value = asked ?? variable.default ?? options[0] ?? ''
    chosen[variable.key] = value
    results.push({ key: variable.key, label: variable.label ?? variable.key, options, ...(variable.default !== undefined ? { default: variable.default } : {}), value, ...(variable.dependsOn ? { dependsOn: variable.dependsOn } : {}) })
  }
  return results
}

/**
 * A view opened as a config's tab (`display.plugins`, http-api §2.4.2): `config_id`, and the
 * variables of the first plugin whose `configTab` matches the item, each `$(.config.<path>)` read
 * from the item. Nothing when the caller may not see the item.
 */
export async function pluginVariables(db: Queryable, spec: ViewSpec, configId: string, visibility: ConfigVisibility): Promise<Record<string, string>> {
  for (const plugin of spec.display?.plugins ?? []) {
    const selector = SelectorSchema.safeParse({ ...plugin.configTab, id: configId })
    if (!selector.success) continue
    const params = new Params()
    const { from, conditions } = selectorSource('configs', selector.data, visibility, params)
    const { rows } = await db.query<{ item: Record<string, unknown> }>(
      `SELECT jsonb_build_object('id', r.id, 'name', r.name, 'type', r.type, 'config_class', r.config_class, 'tags', r.tags, 'labels', r.labels,
         'health', r.health, 'status', r.status, 'agent_id', r.agent_id, 'parent_id', r.parent_id, 'config', r.config) AS item
       FROM ${from} WHERE ${conditions.join(' AND ')} LIMIT 1`,
      params.values,
    )
    const item = rows[0]?.item
    if (!item) continue
    const variables: Record<string, string> = { config_id: configId }
    for (const [key, template] of Object.entries(plugin.variables ?? {})) {
      variables[key] = template.replace(/\$\(\s*\.config\.([A-Za-z0-9_.-]+)\s*\)/g, (_match, path: string) => {
        let value: unknown = item
        for (const step of path.split('.')) value = value && typeof value === 'object' ? (value as Record<string, unknown>)[step] : undefined
        return value === undefined || value === null ? '' : typeof value === 'object' ? JSON.stringify(value) : String(value)
      })
    }
    return variables
  }
  return {}
}

/** One hash of the variables' values and the caller's narrowing; '' for none of either (the default set). */
export function requestFingerprint(variables: Record<string, string>, scope: string): string {
  const keys = Object.keys(variables).sort()
  if (keys.length === 0 && scope === '') return ''
  return createHash('sha256').update(JSON.stringify([keys.map((key) => [key, variables[key]]), scope])).digest('hex').slice(0, 16)
}

const TRIVIAL = /^\s*row\.([A-Za-z_][A-Za-z0-9_]*)\s*$/

/** The source column each view column copies as is, or null when a mapping needs CEL. */
function trivialSources(spec: ViewSpec, columns: ViewColumn[]): Map<string, string> | null {
  const sources = new Map<string, string>()
  for (const column of columns) {
    const expression = spec.mapping?.[column.name]
    if (expression === undefined) {
      sources.set(column.name, column.name)
      continue
    }
    const match = TRIVIAL.exec(expression)
    if (!match) return null
    sources.set(column.name, match[1]!)
  }
  return sources
}

function toCelValue(value: unknown): unknown {
  if (value instanceof Date) return value.toISOString()
  return value
}

/** The mapping's CEL over each row (`row`), columns without a mapping copied by name. */
export function mapRows(spec: ViewSpec, columns: ViewColumn[], rows: Record<string, unknown>[]): Record<string, unknown>[] {
  return rows.map((source) => {
    const row = Object.fromEntries(Object.entries(source).map(([key, value]) => [key, toCelValue(value)]))
    const out: Record<string, unknown> = {}
    for (const column of columns) {
      const expression = spec.mapping?.[column.name]
      if (expression === undefined) {
        out[column.name] = row[column.name] ?? null
        continue
      }
      const match = TRIVIAL.exec(expression)
      try {
        out[column.name] = match ? (row[match[1]!] ?? null) : evaluateCel(expression, { row })
      } catch (error) {
        if (error instanceof ExpressionError) throw new ViewQueryError(`mapping.${column.name}: ${error.message}`)
        throw error
      }
    }
    return out
  })
}

async function tableColumnTypes(tx: Queryable, table: string): Promise<Map<string, string>> {
  const { rows } = await tx.query<{ name: string; type: string }>(
    `SELECT attname AS name, format_type(atttypid, atttypmod) AS type FROM pg_attribute WHERE attrelid = $1::regclass AND attnum > 0 AND NOT attisdropped`,
    [`pg_temp.${queryTable(table)}`],
  )
  return new Map(rows.map((row) => [row.name, row.type]))
}

/** Copies one query table into the view's table in SQL: the path for views whose mapping only renames. */
async function copyInSql(tx: Queryable, query: string, table: string, columns: ViewColumn[], sources: Map<string, string>, fingerprint: string, scope: string): Promise<void> {
  const types = await tableColumnTypes(tx, query)
  const stored = columns.filter((column) => !['request_fingerprint', 'agent_id', 'is_pushed'].includes(column.name))
  const keys = stored.filter((column) => column.primaryKey).map((column) => quoteIdent(column.name))
  const values = stored.map((column) => {
    const source = sources.get(column.name)!
    const type = types.get(source)
    return `${type ? castSql(`src.${quoteIdent(source)}`, type, column) : 'NULL'} AS ${quoteIdent(column.name)}`
  })
  const names = stored.map((column) => quoteIdent(column.name))
  const target = `public.${quoteIdent(table)}`
  // Rows written only where they changed, removed where their item left: a refresh after a few
  // changes writes a few rows, not the whole set again.
  await tx.query(
    `CREATE TEMP TABLE __view_rows ON COMMIT DROP AS SELECT DISTINCT ON (${keys.join(', ')}) * FROM (SELECT ${values.join(', ')} FROM ${queryTable(query)} src) s WHERE ${keys.map((key) => `${key} IS NOT NULL`).join(' AND ')}`,
  )
  await tx.query(
    `DELETE FROM ${target} t WHERE t.request_fingerprint = $1 AND NOT EXISTS (SELECT 1 FROM __view_rows n WHERE ${keys.map((key) => `n.${key} = t.${key}`).join(' AND ')})`,
    [fingerprint],
  )
  await tx.query(
    `INSERT INTO ${target} AS t (${names.join(', ')}, request_fingerprint, "__scope")
     SELECT ${names.map((name) => `n.${name}`).join(', ')}, $1, $2 FROM __view_rows n
     ON CONFLICT (${[...keys, 'request_fingerprint'].join(', ')}) DO UPDATE SET ${[...names, '"__scope"'].map((name) => `${name} = EXCLUDED.${name}`).join(', ')}
     WHERE (${[...names, '"__scope"'].map((name) => `t.${name}`).join(', ')}) IS DISTINCT FROM (${[...names, '"__scope"'].map((name) => `EXCLUDED.${name}`).join(', ')})`,
    [fingerprint, scope],
  )
  await tx.query('DROP TABLE __view_rows')
}

/**
 * Every name the view's SQL, CEL and columns mention, for narrowing catalog query tables; `*`
 * among them when some SQL selects `*` (every column then, the large documents only if named),
 * null when a mapping reads `row` whole.
 */
function mentionedNames(spec: ViewSpec): Set<string> | null {
  if (Object.values(spec.mapping ?? {}).some((expression) => /\brow\b(?!\s*\.)/.test(expression))) return null
  const sql = [spec.merge ?? '', ...(spec.panels ?? []).map((panel) => panel.query)]
  const text = JSON.stringify([sql, spec.mapping, spec.templating])
  const names = new Set((text.match(/[A-Za-z_][A-Za-z0-9_]*/g) ?? []).map((word) => word.toLowerCase()))
  if (sql.some((entry) => /select\s+(distinct\s+)?\*|\.\*/i.test(entry))) names.add('*')
  for (const column of spec.columns ?? []) if (spec.mapping?.[column.name] === undefined) names.add(column.name.toLowerCase())
  return names
}

type CachedResults = { panels: PanelResult[]; columnOptions: Record<string, { list: string[] }>; source?: string }

/**
 * What the rows of a catalog query were made from: the spec, and an order-free hash of every
 * selected row whole (item timestamps do not move on every change: a health update keeps
 * updated_at). Equal to the last refresh's, the materialised rows are still right.
 */
async function catalogSourceSignature(tx: Queryable, spec: ViewSpec, query: string): Promise<string> {
  const { rows } = await tx.query<{ signature: string }>(
    `SELECT count(*)::text || '/' || coalesce(sum(hashtextextended(q::text, 0)::numeric), 0)::text AS signature FROM ${queryTable(query)} q`,
  )
  return createHash('sha256').update(JSON.stringify(spec)).update(rows[0]?.signature ?? '').digest('hex').slice(0, 24)
}

async function refresh(view: ViewRow, spec: ViewSpec, variables: Record<string, string>, fingerprint: string, scope: string, options: EvaluateOptions, signal: AbortSignal, previous: CachedResults | null): Promise<CachedResults> {
  const { db } = options
  const table = viewTableName(view.namespace, view.name)
  const columns = spec.columns ?? []
  const recreated = columns.length > 0 && (await ensureViewTable(db, table, columns))
  if (recreated) await options.onSchemaChange?.()
  let source: string | undefined
  let unchanged = false
  const queries = Object.fromEntries(
    Object.entries(spec.queries ?? {}).map(([name, query]) => {
      const resolved = substitute(query, variables)
      if (query.sql && resolved.sql) resolved.sql = { ...resolved.sql, query: substitute(query.sql.query, variables, true) }
      return [name, resolved]
    }),
  )
  const names = Object.keys(queries)
  const merge = spec.merge ? substitute(spec.merge, variables, true) : undefined
  let merged: Record<string, unknown>[] | null = null
  const panels: PanelResult[] = []
  await db.transaction(async (tx) => {
    const sandbox = await sandboxAvailable(tx)
    await loadQueries(queries, { db, tx, namespace: view.namespace ?? 'default', visibility: options.visibility, targets: options.targets, timeoutMs: QUERY_TIMEOUT_MS, signal, mentioned: mentionedNames(spec) })
    if (columns.length > 0 && !merge && names.length === 1) {
      const sources = trivialSources(spec, columns)
      const only = queries[names[0]!]!
      if (only.configs || only.changes) {
        source = await catalogSourceSignature(tx, spec, names[0]!)
        unchanged = !recreated && previous?.source === source
      }
      if (unchanged) {
        // The rows on disk were made from these very items: nothing to rewrite.
      } else if (sources) await copyInSql(tx, names[0]!, table, columns, sources, fingerprint, scope)
      else {
        const { rows } = await tx.query<{ row: Record<string, unknown> }>(`SELECT row_to_json(q) AS row FROM ${queryTable(names[0]!)} q LIMIT 1000000`)
        await writeViewRows(tx, table, columns, fingerprint, scope, mapRows(spec, columns, rows.map((entry) => entry.row)))
      }
    }
    // Everything after this point reads only: the authors' SQL runs in a read-only sandbox.
    if (spec.panels?.length || (columns.length > 0 && merge)) await enterReadOnly(tx, sandbox, names)
    for (const [index, panel] of (spec.panels ?? []).entries()) {
      const { query, ...rest } = panel
      const rows = await readAuthorSql(tx, substitute(query, variables, true), `panels[${index}].query`)
      panels.push({ ...rest, rows })
    }
    if (columns.length > 0 && merge) merged = await readAuthorSql(tx, merge, 'merge')
  })
  if (merged) {
    const rows = mapRows(spec, columns, merged)
    await db.transaction((tx) => writeViewRows(tx, table, columns, fingerprint, scope, rows))
  }
  const columnOptions: Record<string, { list: string[] }> = unchanged && previous ? previous.columnOptions : {}
  for (const column of unchanged ? [] : columns.filter((entry) => entry.type === 'health' || entry.type === 'status')) {
    const { rows } = await db.query<{ value: string }>(
      `SELECT DISTINCT ${quoteIdent(column.name)} AS value FROM public.${quoteIdent(table)} WHERE request_fingerprint = $1 AND ${quoteIdent(column.name)} IS NOT NULL ORDER BY 1 LIMIT 100`,
      [fingerprint],
    )
    columnOptions[column.name] = { list: rows.map((row) => row.value) }
  }
  const results: CachedResults = { panels, columnOptions, ...(source ? { source } : {}) }
  await db.query(
    `INSERT INTO view_panels (view_id, request_fingerprint, results, refreshed_at) VALUES ($1, $2, $3::jsonb, now())
     ON CONFLICT (view_id, request_fingerprint) DO UPDATE SET results = EXCLUDED.results, refreshed_at = EXCLUDED.refreshed_at`,
    [view.id, fingerprint, JSON.stringify(results)],
  )
  await db.query(`UPDATE views SET error = NULL, last_ran = now() WHERE id = $1 AND error IS NOT NULL`, [view.id])
  return results
}

// One refresh per view and fingerprint at a time in this process; concurrent callers share it.
const running = new Map<string, Promise<CachedResults>>()

/** The cached results as the API shows them (the source signature stays inside). */
const shown = (results: CachedResults) => ({ panels: results.panels, columnOptions: results.columnOptions })

const isoOf = (value: Date | string | null | undefined) => (value ? new Date(value).toISOString() : null)

/** The view's answer for these variables: from the cache while fresh, else refreshed (a slow refresh answers the cache it replaces). */
export async function evaluateView(view: ViewRow, requested: Record<string, string>, options: EvaluateOptions): Promise<ViewResult> {
  const { db } = options
  const spec = parseViewSpec(view.spec)
  const now = options.now?.() ?? Date.now()
  const scope = visibilityScope(options.visibility)
  const configId = requested.config_id
  const fromPlugin = configId && isUuid(configId) && spec.display?.plugins?.length ? await pluginVariables(db, spec, configId, options.visibility) : {}
  // A tab's variables stand in for the ones the caller did not choose.
  const variables = await resolveVariables(db, spec.templating ?? [], { ...fromPlugin, ...requested }, options.visibility)
  const values = { ...fromPlugin, ...Object.fromEntries(variables.map((variable) => [variable.key, variable.value])) }
  const fingerprint = requestFingerprint(values, scope)
  const base: Omit<ViewResult, 'refreshStatus' | 'responseSource' | 'lastRefreshedAt' | 'panels' | 'columnOptions'> = {
    id: view.id,
    namespace: view.namespace ?? 'default',
    name: view.name,
    title: spec.display?.title ?? view.name,
    ...(spec.display?.icon ? { icon: spec.display.icon } : {}),
    ...(spec.description ? { description: spec.description } : {}),
    table: viewTableName(view.namespace, view.name),
    requestFingerprint: fingerprint,
    columns: spec.columns ?? [],
    variables,
    ...(spec.sections ? { sections: spec.sections } : {}),
  }
  const { rows } = await db.query<{ results: CachedResults; refreshed_at: Date | string }>(
    `SELECT results, refreshed_at FROM view_panels WHERE view_id = $1 AND request_fingerprint = $2`,
    [view.id, fingerprint],
  )
  const cached = rows[0]
  const maxAge = durationOf(spec.cache?.maxAge, DEFAULTS.maxAge)
  const minAge = durationOf(spec.cache?.minAge, DEFAULTS.minAge)
  const allowedAge = Math.max(minAge, options.maxAgeSeconds !== undefined ? Math.min(maxAge, options.maxAgeSeconds * 1000) : maxAge)
  const changedAt = Math.max(new Date(view.updated_at ?? view.created_at).getTime(), new Date(view.created_at).getTime())
  if (cached) {
    const refreshedAt = new Date(cached.refreshed_at).getTime()
    if (refreshedAt >= changedAt && now - refreshedAt < allowedAge) {
      return { ...base, ...shown(cached.results), refreshStatus: 'cache', responseSource: 'cache', lastRefreshedAt: isoOf(cached.refreshed_at) }
    }
  }
  const key = `${view.id}\0${fingerprint}`
  let pending = running.get(key)
  if (!pending) {
    const controller = new AbortController()
    pending = refresh(view, spec, values, fingerprint, scope, options, controller.signal, cached?.results ?? null).finally(() => running.delete(key))
    running.set(key, pending)
    pending.catch(async (error: unknown) => {
      options.logger?.warn({ err: error, view: `${view.namespace}/${view.name}` }, 'view refresh failed')
      await db.query(`UPDATE views SET error = $2 WHERE id = $1`, [view.id, (error as Error).message.slice(0, 4000)]).catch(() => undefined)
    })
  }
  const timeoutMs = options.refreshTimeoutSeconds !== undefined ? options.refreshTimeoutSeconds * 1000 : durationOf(spec.cache?.refreshTimeout, DEFAULTS.refreshTimeout)
  if (cached) {
    // With rows to show, a refresh slower than refreshTimeout answers them and finishes behind.
    let timer: NodeJS.Timeout | undefined
    const timedOut = new Promise<'timeout'>((resolve) => {
      timer = setTimeout(() => resolve('timeout'), timeoutMs)
    })
    try {
      const outcome = await Promise.race([pending, timedOut])
      if (outcome === 'timeout') return { ...base, ...shown(cached.results), refreshStatus: 'timeout', responseSource: 'cache', lastRefreshedAt: isoOf(cached.refreshed_at) }
      return { ...base, ...shown(outcome), refreshStatus: 'fresh', responseSource: 'fresh', lastRefreshedAt: new Date().toISOString() }
    } catch (error) {
      if (error instanceof ViewQueryError) return { ...base, ...shown(cached.results), refreshStatus: 'error', responseSource: 'cache', lastRefreshedAt: isoOf(cached.refreshed_at), error: error.message }
      throw error
    } finally {
      clearTimeout(timer)
    }
  }
  const outcome = await pending
  return { ...base, ...shown(outcome), refreshStatus: 'fresh', responseSource: 'fresh', lastRefreshedAt: new Date().toISOString() }
}
