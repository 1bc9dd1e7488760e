import { dbClient, requirePage } from './data-client.server.ts'
import { apiJson, GatewayError, type ApiArgs } from './gateway.server.ts'
import { errorResponse } from './session.server.ts'
import { VIEW_PAGE_SIZE } from './views.shared.ts'

/**
 * A custom view for its page: `POST /api/view/...` with the URL's variables (`var.<key>`) for the
 * definition and panels, then the page of rows from `view_<ns>_<name>` for that fingerprint
 * through the data API (http-api §2.4.1), sorted and paged by the URL.
 */

export type ViewColumnInfo = { name: string; type: string; primaryKey?: boolean; hidden?: boolean; description?: string; unit?: string; gauge?: { min?: number | string; max?: number | string }; configItem?: { idField?: string } }
export type ViewPanelInfo = { name: string; type: string; description?: string; rows: Record<string, unknown>[]; gauge?: { min?: number | string; max?: number | string; unit?: string }; number?: { unit?: string }; bargauge?: { min?: number; max?: number; unit?: string } }
export type ViewVariableInfo = { key: string; label: string; options: string[]; value: string; dependsOn?: string[] }
export type ViewAnswer = {
  id: string
  namespace: string
  name: string
  title: string
  icon?: string
  description?: string
  table: string
  refreshStatus: string
  responseSource: string
  lastRefreshedAt: string | null
  requestFingerprint: string
  columns: ViewColumnInfo[]
  panels: ViewPanelInfo[]
  variables: ViewVariableInfo[]
  sections?: { title: string; icon?: string; viewRef?: { namespace?: string; name: string }; uiRef?: Record<string, unknown> }[]
  error?: string
}

export type ViewRef = { id: string } | { namespace: string; name: string } | { name: string }

/** `var.<key>` search parameters, the form the page's variable selectors submit. */
export function variablesOf(url: URL): Record<string, string> {
  const variables: Record<string, string> = {}
  for (const [key, value] of url.searchParams) if (key.startsWith('var.') && value !== '') variables[key.slice(4)] = value
  return variables
}

async function resolvePath(args: ApiArgs, ref: ViewRef): Promise<string> {
  if ('id' in ref) return `/view/${encodeURIComponent(ref.id)}`
  if ('namespace' in ref) return `/view/${encodeURIComponent(ref.namespace)}/${encodeURIComponent(ref.name)}`
  // By name alone (data-model §11.2): the one live view of that name, whatever its namespace.
  const { rows } = requirePage(await dbClient(args).from('views_summary').select('id').eq('name', ref.name).limit(1).returns<{ id: string }[]>())
  if (!rows[0]) throw errorResponse(404, { message: `No view is named ${ref.name}` })
  return `/view/${encodeURIComponent(rows[0].id)}`
}

export async function loadViewPage(args: ApiArgs, ref: ViewRef, extraVariables: Record<string, string> = {}) {
  const url = new URL(args.request.url)
  const variables = { ...variablesOf(url), ...extraVariables }
  let view: ViewAnswer
  try {
    view = (await apiJson<ViewAnswer>(args, await resolvePath(args, ref), { method: 'POST', json: { variables } })).data
  } catch (error) {
    if (error instanceof GatewayError && (error.status === 404 || error.status === 403)) throw errorResponse(error.status, { message: error.message })
    if (error instanceof GatewayError && error.status === 400) return { view: null, error: error.message, rows: [], total: 0, page: 1, sort: null }
    throw error
  }
  const visible = view.columns.filter((column) => !column.hidden || column.primaryKey)
  const sortParam = url.searchParams.get('sort')
  const sortColumn = view.columns.find((column) => column.name === sortParam?.replace(/^-/, ''))
  const page = Math.max(1, Number(url.searchParams.get('page')) || 1)
  let rows: Record<string, unknown>[] = []
  let total = 0
  if (view.columns.length > 0) {
    let query = dbClient(args)
      .from(view.table)
      .select(visible.map((column) => column.name).join(','), { count: 'exact' })
      .eq('request_fingerprint', view.requestFingerprint)
    const order = sortColumn ?? visible.find((column) => !column.hidden) ?? visible[0]
    if (order) query = query.order(order.name, { ascending: !sortParam?.startsWith('-'), nullsFirst: false })
    const result = requirePage(await query.range((page - 1) * VIEW_PAGE_SIZE, page * VIEW_PAGE_SIZE - 1).returns<Record<string, unknown>[]>())
    rows = result.rows
    total = result.total
  }
  return { view, error: view.error ?? null, rows, total, page, sort: sortParam }
}

export type ViewPageData = Awaited<ReturnType<typeof loadViewPage>>
