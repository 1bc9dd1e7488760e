import type { LogSearchAnswer, LogSearchBody, LogSearchLine } from '#contract/logs/log-search.ts'
import type { Queryable } from '#server/db/client.ts'
import { parseDateMath } from '#server/backend/catalog/catalog-input.ts'
import { visibleIdSql, type ConfigVisibility } from '#server/backend/catalog/config-access.ts'
import type { CheckTrust } from '#server/backend/health/check-trust.ts'
import { restrictedGuard, TargetRefusedError, UNRESTRICTED, type AllowedTarget } from '#server/backend/health/checks/target-guard.ts'
import { Params } from '#server/backend/postgrest/sql-builder.ts'
import { visibleComponentSql, type ComponentVisibility } from '#server/backend/topology/component-access.ts'
import { backendBlock, LogBackendSpecSchema, specIssues, type LogRoute } from './log-backend-spec.ts'
import { queryFiles } from './log-files-backend.ts'
import { lokiQuery, openSearchClause, queryLoki, queryOpenSearch } from './log-http-backends.ts'
import { LogInputError, newestFirst, type LogLine } from './log-line.ts'
import { structureLines } from './log-line-parsers.ts'
import { queryTable } from './log-postgres-backend.ts'
import { DEFAULT_LOG_LIMIT, MAX_LOG_LIMIT, type LogQueryContext, type LogWindow } from './log-query-context.ts'

/**
 * `POST /logs` (http-api §2.7.3, answered here instead of through apm-hub): which backends a
 * request reaches — a backend by name, a component's log selectors, or the backends whose
 * `routes` take a component's or config item's type — and one search across them, newest first.
 */

export type LogSearchRequest = LogSearchBody

/** A search the caller may not make at all (not found, not visible). */
export class LogNotFoundError extends Error {}

/** A backend that failed to answer (unreachable, an error status, a refused target). */
export class LogBackendError extends Error {}

type BackendRow = { id: string; name: string; spec: unknown }
type Target = { backend: BackendRow; labels: Record<string, string>; query: string }

export type LogSearchDeps = {
  db: Queryable
  /** Per-spec trust of logging_backends (check-trust.ts): exec holders' backends reach anything. */
  trust: CheckTrust
  allowedTargets: AllowedTarget[]
  components: ComponentVisibility
  configs: ConfigVisibility
  signal?: AbortSignal
}

export function windowOf(request: Pick<LogSearchRequest, 'start' | 'end' | 'limit'>, now = new Date()): LogWindow {
  const time = (value: string | undefined, fallback: Date, field: string) => {
    if (!value || value.trim() === '') return fallback
    try {
      return parseDateMath(value, now, field)
    } catch (error) {
      throw new LogInputError((error as Error).message)
    }
  }
  const end = time(request.end, now, 'end')
  const start = time(request.start, new Date(end.getTime() - 3_600_000), 'start')
  if (start > end) throw new LogInputError('start is after end')
  return { start, end, limit: Math.min(request.limit ?? DEFAULT_LOG_LIMIT, MAX_LOG_LIMIT) }
}

async function backendsNamed(db: Queryable, names: string[]): Promise<Map<string, BackendRow>> {
  const { rows } = await db.query<BackendRow>('SELECT id, name, spec FROM logging_backends WHERE deleted_at IS NULL AND name = ANY($1::text[]) ORDER BY created_at', [names])
  const byName = new Map<string, BackendRow>()
  for (const row of rows) if (!byName.has(row.name)) byName.set(row.name, row)
  return byName
}

function routeTakes(route: LogRoute, subject: { id: string; type: string | null; labels: Record<string, string> }): boolean {
  if (route.type && route.type !== '*' && route.type !== subject.type) return false
  if (route.idPrefix && !subject.id.startsWith(route.idPrefix)) return false
  return Object.entries(route.labels ?? {}).every(([name, value]) => subject.labels[name] === value)
}

async function routedBackends(db: Queryable, subject: { id: string; type: string | null; labels: Record<string, string> }): Promise<BackendRow[]> {
  const { rows } = await db.query<BackendRow>('SELECT id, name, spec FROM logging_backends WHERE deleted_at IS NULL ORDER BY name')
  return rows.filter((row) => {
    const parsed = LogBackendSpecSchema.safeParse(row.spec)
    const routes = parsed.success ? parsed.data.routes ?? [] : []
    return routes.some((route) => routeTakes(route, subject))
  })
}

type SelectorRow = { id: string; type: string | null; labels: Record<string, string> | null; log_selectors: unknown }

function selectorsOf(value: unknown): { name: string; backend?: string; labels?: Record<string, string>; query?: string }[] {
  if (!Array.isArray(value)) return []
  return value
    .filter((entry): entry is Record<string, unknown> => Boolean(entry) && typeof entry === 'object' && typeof (entry as { name?: unknown }).name === 'string')
    .map((entry) => ({
      name: entry.name as string,
      backend: typeof entry.backend === 'string' ? entry.backend : undefined,
      labels: entry.labels && typeof entry.labels === 'object' ? Object.fromEntries(Object.entries(entry.labels).map(([key, val]) => [key, String(val)])) : undefined,
      query: typeof entry.query === 'string' ? entry.query : undefined,
    }))
}

/** The backends (with labels and query) a request reaches; throws LogInputError / LogNotFoundError as the API answers them. */
export async function resolveTargets(request: LogSearchRequest, deps: Pick<LogSearchDeps, 'db' | 'components' | 'configs'>): Promise<Target[]> {
  const labels = request.labels ?? {}
  const query = request.query ?? ''
  if (request.backend) {
    const found = (await backendsNamed(deps.db, [request.backend])).get(request.backend)
    if (!found) throw new LogNotFoundError(`log backend '${request.backend}' was not found`)
    return [{ backend: found, labels, query }]
  }
  if (!request.id) throw new LogInputError('component ID is required')
  const componentParams = new Params()
  componentParams.text(request.id)
  const componentVisible = visibleComponentSql(deps.components, '$1::uuid', componentParams)
  const { rows: components } = await deps.db.query<SelectorRow>(
    `SELECT id::text, type, labels, log_selectors FROM components WHERE id = $1::uuid AND deleted_at IS NULL${componentVisible ? ` AND ${componentVisible}` : ''}`,
    componentParams.values,
  )
  const component = components[0]
  if (component) {
    const selectors = selectorsOf(component.log_selectors)
    if (selectors.length === 0) {
      const routed = await routedBackends(deps.db, { id: component.id, type: component.type, labels: component.labels ?? {} })
      if (routed.length === 0) throw new LogNotFoundError(`component ${request.id} has no log selectors and no log backend routes its type ${component.type ?? '(none)'}`)
      return routed.map((backend) => ({ backend, labels, query }))
    }
    const chosen = request.name ? selectors.filter((selector) => selector.name === request.name) : selectors
    if (chosen.length === 0) throw new LogNotFoundError(`log selector with the name '${request.name}' was not found. Available names: [${selectors.map((selector) => selector.name).join(', ')}]`)
    const byName = await backendsNamed(deps.db, chosen.map((selector) => selector.backend ?? selector.name))
    return chosen.map((selector) => {
      const backend = byName.get(selector.backend ?? selector.name)
      if (!backend) throw new LogNotFoundError(`log selector '${selector.name}' names the log backend '${selector.backend ?? selector.name}', which was not found`)
      return { backend, labels: { ...(selector.labels ?? {}), ...labels }, query: query || selector.query || '' }
    })
  }
  const configParams = new Params()
  configParams.text(request.id)
  const configVisible = visibleIdSql(deps.configs, '$1::uuid', configParams)
  const { rows: configs } = await deps.db.query<{ id: string; type: string | null; labels: Record<string, string> | null }>(
    `SELECT id::text, type, labels FROM config_items WHERE id = $1::uuid AND deleted_at IS NULL${configVisible ? ` AND ${configVisible}` : ''}`,
    configParams.values,
  )
  const config = configs[0]
  if (!config) throw new LogNotFoundError(`no component or config item with the id ${request.id}`)
  const routed = await routedBackends(deps.db, { id: config.id, type: config.type, labels: config.labels ?? {} })
  if (routed.length === 0) throw new LogNotFoundError(`no log backend routes config items of type ${config.type ?? '(none)'}`)
  return routed.map((backend) => ({ backend, labels, query }))
}

async function searchOne(target: Target, window: LogWindow, deps: LogSearchDeps): Promise<LogLine[]> {
  const parsed = LogBackendSpecSchema.safeParse(target.backend.spec)
  if (!parsed.success) throw new LogInputError(`log backend '${target.backend.name}' cannot be searched: ${specIssues(parsed.error)}`)
  const spec = parsed.data
  const trusted = await deps.trust.trusts(target.backend.id)
  const context: LogQueryContext = {
    db: deps.db,
    signal: deps.signal,
    targets: trusted ? UNRESTRICTED : restrictedGuard(deps.allowedTargets),
    namespace: 'default',
  }
  const { kind, block } = backendBlock(spec)
  const search = { labels: target.labels, text: target.query }
  try {
    switch (kind) {
      case 'files':
        return await queryFiles(block, search, window, context, { parse: spec.parse, mapping: spec.mapping })
      case 'loki': {
        const lines = await queryLoki(block, lokiQuery({ labels: search.labels, text: search.text, fallback: typeof block.query === 'string' ? block.query : '' }), window, context, `spec.${kind}`)
        return structureLines(lines, spec.parse, spec.mapping ?? {}, new Date(), 'spec')
      }
      case 'opensearch':
      case 'elasticsearch': {
        const clauses = [
          openSearchClause(block.query),
          ...Object.entries(search.labels).map(([name, value]) => ({ match_phrase: { [name]: value } })),
          search.text.trim() ? { query_string: { query: search.text } } : null,
        ].filter((clause) => clause !== null)
        const lines = await queryOpenSearch(block, clauses, window, context, `spec.${kind}`)
        return structureLines(lines, spec.parse, spec.mapping ?? {}, new Date(), 'spec')
      }
      case 'postgres':
        return structureLines(await queryTable(block, search, window, context), spec.parse, spec.mapping ?? {}, new Date(), 'spec')
    }
  } catch (error) {
    // A fenced target is the backend's author's problem to fix, not an outage.
    if (error instanceof LogInputError || error instanceof TargetRefusedError) throw new LogInputError(`log backend '${target.backend.name}': ${error.message}`)
    throw new LogBackendError(`log backend '${target.backend.name}' failed: ${(error as Error).message}`, { cause: error })
  }
}

/** Every target's lines, newest first, cut to the limit. */
export async function searchLogs(request: LogSearchRequest, deps: LogSearchDeps): Promise<LogSearchAnswer> {
  const window = windowOf(request)
  const targets = await resolveTargets(request, deps)
  const perBackend = await Promise.all(targets.map(async (target) => (await searchOne(target, window, deps)).map((line) => ({ ...line, backend: target.backend.name }))))
  const lines = newestFirst(perBackend.flat()).slice(0, window.limit)
  const results = lines.map((line): LogSearchLine => ({ ...line, severity: line.severity ?? '' }))
  return { total: results.length, results }
}
