import { GatewayError, type ApiArgs } from './gateway.server.ts'
import { dbClient, requireData, requirePage } from './data-client.server.ts'
import { formFieldOfPath, type CheckFormErrors, type CheckTypeForm } from './canary-check-forms.ts'
import { CanaryValidationError, parseCanaryObject } from '#contract/canary/canary-document.ts'
import {
  createPayload,
  JOB_HISTORY_PAGE_SIZE,
  updatePayload,
  type JobHistoryRow,
  type ResourceListColumn,
  type ResourceListSearch,
  type ResourceKind,
  type ResourcePayload,
  type ResourceRow,
} from './resource-editor.ts'
import { isUuid } from '#contract/uuid.ts'

/**
 * The generic resources of /settings/{table} (canaries, topologies, incident rules, logging
 * backends): every read and write of their rows and job history, through the data client.
 */

export function isResourceId(id: string | undefined): id is string {
  return Boolean(id && isUuid(id))
}

/** The column each sortable list column orders by. */
const LIST_ORDER: Record<ResourceListColumn, string> = {
  name: 'name',
  namespace: 'namespace',
  source: 'source',
  status: 'job_status',
  updated_at: 'updated_at',
  created_at: 'created_at',
}

/**
 * One page of the list of spec 000 §5 / http-api §4.7: live rows, newest first unless the URL
 * sorts by a column, with the total from the API's count. A page past the end shows the first.
 */
export async function listResources(args: ApiArgs, kind: ResourceKind, search: ResourceListSearch): Promise<{ rows: ResourceRow[]; total: number; page: number }> {
  const read = (page: number) => {
    const from = (page - 1) * search.pageSize
    let query = dbClient(args).from(kind.listRelation).select('*', { count: 'exact' }).is('deleted_at', null)
    if (search.sortBy) query = query.order(LIST_ORDER[search.sortBy], { ascending: !search.sortDesc, nullsFirst: false })
    return query
      .order('created_at', { ascending: false })
      .order('id')
      .range(from, from + search.pageSize - 1)
      .returns<ResourceRow[]>()
  }
  try {
    return { ...requirePage(await read(search.page)), page: search.page }
  } catch (error) {
    if (!(error instanceof GatewayError) || error.status !== 416 || search.page === 1) throw error
    return { ...requirePage(await read(1)), page: 1 }
  }
}

/** The full row (with spec), or null when there is no live resource with that id. */
export async function loadResource(args: ApiArgs, kind: ResourceKind, id: string | undefined): Promise<ResourceRow | null> {
  if (!isResourceId(id)) return null
  const rows = requireData(await dbClient(args).from(kind.table).select('*').eq('id', id).is('deleted_at', null).limit(1).returns<ResourceRow[]>())
  return rows?.[0] ?? null
}

/** One page of a resource's job history, newest first, with the total from the API's count. */
export async function loadJobHistory(args: ApiArgs, resourceId: string, page: number): Promise<{ rows: JobHistoryRow[]; total: number }> {
  const from = Math.max(0, page - 1) * JOB_HISTORY_PAGE_SIZE
  return requirePage(
    await dbClient(args)
      .from('job_histories')
      .select('*', { count: 'exact' })
      .eq('resource_id', resourceId)
      .order('created_at', { ascending: false })
      .range(from, from + JOB_HISTORY_PAGE_SIZE - 1)
      .returns<JobHistoryRow[]>(),
  )
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
  const rows = requireData(await dbClient(args).from(kind.table).insert(createPayload(payload, userId)).select().returns<ResourceRow[]>())
  const id = rows?.[0]?.id
  return typeof id === 'string' ? id : null
}

export async function updateResource(args: ApiArgs, kind: ResourceKind, id: string, payload: ResourcePayload): Promise<void> {
  // A pasted bare spec carries no labels: the stored ones stay as they are.
  requireData(await dbClient(args).from(kind.table).update(updatePayload(payload)).eq('id', id).select())
}

/** Soft delete (http-api §4.7): the row stays, marked deleted at the server's now(). */
export async function deleteResource(args: ApiArgs, kind: ResourceKind, id: string): Promise<void> {
  requireData(await dbClient(args).from(kind.table).update({ deleted_at: 'now()' }).eq('id', id).select())
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
