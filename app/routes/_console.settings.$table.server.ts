import { apiFetch, apiJson, GatewayError, signInRedirect, type ApiArgs } from '#app/lib/gateway.server.ts'
import { parseContentRangeTotal } from '#app/lib/live-figures.server.ts'
import { formFieldOfPath, type CheckFormErrors, type CheckTypeForm } from '#app/lib/canary-check-forms.ts'
import { CanaryValidationError, parseCanaryObject } from '#contract/canary/canary-document.ts'
import {
  createPayload,
  jobHistoryQuery,
  listQuery,
  updatePayload,
  type JobHistoryRow,
  type ResourceKind,
  type ResourcePayload,
  type ResourceRow,
} from '#app/lib/resource-editor.ts'

/** Server half of /settings/{table}: every read and write goes through the gateway's /api. */

const UUID = /^[0-9a-f]{8}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{12}$/i

export function isResourceId(id: string | undefined): id is string {
  return Boolean(id && UUID.test(id))
}

export async function listResources(args: ApiArgs, kind: ResourceKind): Promise<ResourceRow[]> {
  const { data } = await apiJson<ResourceRow[]>(args, listQuery(kind))
  return Array.isArray(data) ? data : []
}

/** The full row (with spec), or null when there is no live resource with that id. */
export async function loadResource(args: ApiArgs, kind: ResourceKind, id: string | undefined): Promise<ResourceRow | null> {
  if (!isResourceId(id)) return null
  const { data } = await apiJson<ResourceRow[]>(args, `/db/${kind.table}?select=*&id=eq.${id}&deleted_at=is.null&limit=1`)
  return Array.isArray(data) ? (data[0] ?? null) : null
}

export async function loadJobHistory(args: ApiArgs, resourceId: string, page: number): Promise<{ rows: JobHistoryRow[]; total: number | null }> {
  const response = await apiFetch(args, jobHistoryQuery(resourceId, page), { headers: { prefer: 'count=exact' } })
  if (response.status === 401) throw signInRedirect(args.request)
  const text = await response.text()
  let body: unknown = null
  try {
    body = text ? JSON.parse(text) : null
  } catch {
    body = text
  }
  if (!response.ok) throw new GatewayError(response.status, apiMessage(body) ?? `Request failed with status ${response.status}`, 'http', body)
  return { rows: Array.isArray(body) ? (body as JobHistoryRow[]) : [], total: parseContentRangeTotal(response.headers.get('content-range')) }
}

function apiMessage(body: unknown): string | null {
  if (body && typeof body === 'object') {
    const record = body as Record<string, unknown>
    for (const key of ['message', 'error']) if (typeof record[key] === 'string' && record[key]) return record[key] as string
  }
  return typeof body === 'string' && body.trim() ? body : null
}

/**
 * The words a refused write is shown in. Spec validation answers 400 with the field path in
 * `message` (and every problem in `details`); a unique violation is said in the form's terms.
 */
export function writeFailure(error: unknown, kind: ResourceKind, payload: Pick<ResourcePayload, 'name' | 'namespace'> | null): { message: string; details: string | null } {
  if (!(error instanceof GatewayError)) throw error
  const body = error.body && typeof error.body === 'object' ? (error.body as Record<string, unknown>) : null
  if (error.status === 409 && payload) {
    const where = payload.namespace ? ` in namespace ${payload.namespace}` : ''
    return { message: `A ${kind.singular.toLowerCase()} named ${payload.name}${where} already exists.`, details: null }
  }
  const message = (body && apiMessage(body)) ?? error.message
  const details = body && typeof body.details === 'string' && body.details && body.details !== message ? body.details : null
  return { message, details }
}

export async function createResource(args: ApiArgs, kind: ResourceKind, payload: ResourcePayload, userId: string): Promise<string | null> {
  const { data } = await apiJson<ResourceRow[]>(args, `/db/${kind.table}`, {
    method: 'POST',
    json: createPayload(payload, userId),
    headers: { prefer: 'return=representation' },
  })
  const id = Array.isArray(data) ? data[0]?.id : undefined
  return typeof id === 'string' ? id : null
}

export async function updateResource(args: ApiArgs, kind: ResourceKind, id: string, payload: ResourcePayload): Promise<void> {
  const body = updatePayload(payload)
  // A pasted bare spec carries no labels: the stored ones stay as they are.
  await apiJson(args, `/db/${kind.table}?id=eq.${id}`, { method: 'PATCH', json: body, headers: { prefer: 'return=representation' } })
}

/** Soft delete (http-api §4.7): the row stays, marked deleted at the server's now(). */
export async function deleteResource(args: ApiArgs, kind: ResourceKind, id: string): Promise<void> {
  await apiJson(args, `/db/${kind.table}?id=eq.${id}`, { method: 'PATCH', json: { deleted_at: 'now()' }, headers: { prefer: 'return=representation' } })
}

/**
 * A health check type form's answers checked against the Canary schema the API applies, so a
 * problem shows on its field rather than as a path in a YAML the user never wrote.
 */
export function checkFormIssues(form: CheckTypeForm, document: Record<string, unknown>): { errors: CheckFormErrors; rest: string[] } {
  const errors: CheckFormErrors = {}
  const rest: string[] = []
  try {
    parseCanaryObject(document)
  } catch (error) {
    if (!(error instanceof CanaryValidationError)) throw error
    for (const issue of error.issues) {
      const field = formFieldOfPath(form, issue.path)
      if (field && !errors[field]) errors[field] = issue.message
      else if (!field) rest.push(issue.path ? `${issue.path}: ${issue.message}` : issue.message)
    }
  }
  return { errors, rest }
}
