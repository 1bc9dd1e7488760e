import { z } from 'zod'
import type { ConnectionRowFields } from '#contract/connections/connection-form.ts'
import { getConnectionType } from '#contract/connections/connection-types.ts'
import { isUuid } from '#contract/uuid.ts'
import { dbClient, requireData, requirePage } from '#app/lib/data-client.server.ts'
import { apiFetch, GatewayError, messageOf, signInRedirect, type ApiArgs } from '#app/lib/gateway.server.ts'

/**
 * Connections (spec 001 §3, data-model §10.5): the data API's `connections` table and
 * `POST /connection/test/{id}` (http-api §2.7.1), as named functions for the connection screens.
 * Secrets come back in clear only to a caller who may edit the connection (`***` otherwise);
 * a `***` posted back keeps the stored value (the table's trigger).
 */

/** What the list shows of a connection: never its secrets, the URL is masked by the page. */
export type ConnectionListRow = { id: string; name: string; namespace: string; type: string; url: string | null; source: string | null; created_at: string | null }

/** One live connection with every column a form reads back. */
export type ConnectionRow = ConnectionListRow & {
  username: string | null
  password: string | null
  certificate: string | null
  properties: Record<string, string> | null
  insecure_tls: boolean | null
  updated_at: string | null
}

/** Spec 000 §9: settings lists load at most 100 rows. */
export const CONNECTION_LIST_LIMIT = 100

const ConnectionListParamsSchema = z.object({
  search: z.string().trim().max(200).catch(''),
  type: z
    .string()
    .nullable()
    .transform((type) => (type && getConnectionType(type) ? type : null))
    .catch(null),
})

export type ConnectionListParams = z.infer<typeof ConnectionListParamsSchema>

/** The list's URL state (`?search=&type=`); an unknown type or a bad value falls back to no filter. */
export function parseConnectionListParams(params: URLSearchParams): ConnectionListParams {
  return ConnectionListParamsSchema.parse({ search: params.get('search') ?? '', type: params.get('type') })
}

const LIST_COLUMNS = 'id,name,namespace,type,url,source,created_at'

/** Live connections by name, filtered by a name search and a type, with the total. */
export async function listConnections(args: ApiArgs, params: ConnectionListParams): Promise<{ rows: ConnectionListRow[]; total: number }> {
  let query = dbClient(args).from('connections').select(LIST_COLUMNS, { count: 'exact' }).is('deleted_at', null)
  if (params.search) query = query.ilike('name', `*${params.search}*`)
  if (params.type) query = query.eq('type', params.type)
  return requirePage(await query.order('name').order('namespace').limit(CONNECTION_LIST_LIMIT).returns<ConnectionListRow[]>())
}

/** A live connection by id, or null (also for an id that is not a UUID). */
export async function getConnection(args: ApiArgs, id: string): Promise<ConnectionRow | null> {
  if (!isUuid(id)) return null
  const rows = requireData(await dbClient(args).from('connections').select('*').eq('id', id).is('deleted_at', null).returns<ConnectionRow[]>())
  return rows?.[0] ?? null
}

/** Creates a UI connection and returns its id; a live name clash in the namespace is the API's 409 GatewayError. */
export async function createConnection(args: ApiArgs, row: ConnectionRowFields, createdBy: string): Promise<string> {
  const query = dbClient(args).from('connections').insert({ ...row, source: 'UI', created_by: createdBy })
  const rows = requireData(await query.select('id').returns<{ id: string }[]>())
  const id = rows?.[0]?.id
  if (!id) throw new GatewayError(502, 'The data API did not return the new connection.', 'http')
  return id
}

/** Replaces a connection's answers (its type stays); `***` values keep the stored secret. */
export async function updateConnection(args: ApiArgs, id: string, row: ConnectionRowFields): Promise<void> {
  requireData(await dbClient(args).from('connections').update({ ...row, updated_at: new Date().toISOString() }).eq('id', id).is('deleted_at', null))
}

/** Soft-deletes a connection (spec 000 §7: PATCH setting `deleted_at`). */
export async function deleteConnection(args: ApiArgs, id: string): Promise<void> {
  requireData(await dbClient(args).from('connections').update({ deleted_at: new Date().toISOString() }).eq('id', id).is('deleted_at', null))
}

/** The outcome of a connection test: the probe's message on success, its failure otherwise. */
export type ConnectionTestResult = { ok: true; message: string } | { ok: false; message: string }

/**
 * `POST /connection/test/{id}`: 200 `{"message":"ok",…}` is a success, 400 `{"error"}` the probe's
 * failure, 404 an unknown connection; those are results to show, not page errors. A 401 is the
 * sign-in redirect; other statuses (403, 5xx) are thrown as a GatewayError.
 */
export async function testConnection(args: ApiArgs, id: string): Promise<ConnectionTestResult> {
  const response = await apiFetch(args, `/connection/test/${encodeURIComponent(id)}`, { method: 'POST', json: {} })
  if (response.status === 401) throw signInRedirect(args.request)
  const text = await response.text()
  let body: unknown = text
  try {
    body = text ? JSON.parse(text) : null
  } catch {
    // A plain-text answer is shown as it is.
  }
  if (response.ok) return { ok: true, message: messageOf(body, 'ok') }
  if (response.status === 400 || response.status === 404) return { ok: false, message: messageOf(body, `Test failed with status ${response.status}`) }
  throw new GatewayError(response.status, messageOf(body, `Request failed with status ${response.status}`), 'http', body)
}
