import { apiJson, GatewayError, type ApiArgs } from './gateway.server.ts'
import { consoleLog } from './log.server.ts'
import { hasAccess } from './access.ts'
import { getSwitchedOffNames, isFeatureDisabled } from './features.ts'
import { getProperties, requireSessionInfo } from './session.server.ts'
import {
  buildIncidentListQuery,
  getTotalFromContentRange,
  isUuid,
  toIlikeTerm,
  type EvidenceTarget,
  type FieldErrors,
  type IncidentListParams,
  type LinkPlan,
  type NewIncidentInput,
  EVIDENCE_TARGET_COLUMN,
} from './incidents.ts'

/**
 * The incident screens' calls, all through the gateway's `/api/db` (PostgREST) with the
 * browser's credentials, shaped as http-api.md §5 shows the reference client sending them.
 */

export type PersonRef = { id: string | null; name: string | null; avatar?: string | null }

export type IncidentSummaryRow = {
  id: string
  incident_id: string
  title: string
  severity: string
  type: string
  status: string
  created_at: string
  updated_at: string
  commander: PersonRef | null
  responders: PersonRef[] | null
}

export type EvidenceRow = {
  id: string
  hypothesis_id: string
  type: string
  description: string
  definition_of_done: boolean | null
  done: boolean | null
  check_id: string | null
  config_id: string | null
  config_change_id: string | null
  config_analysis_id: string | null
  component_id: string | null
  created_at: string
  check: { id: string; name: string; status: string | null; type: string | null } | null
  config: { id: string; name: string | null; type: string | null; health: string | null } | null
  component: { id: string; name: string | null; status: string | null } | null
  config_change: { id: string; change_type: string | null; summary: string | null; config_id: string | null } | null
  config_analysis: { id: string; analyzer: string | null; message: string | null; config_id: string | null } | null
}

export type HypothesisRow = {
  id: string
  incident_id: string
  parent_id: string | null
  type: string
  title: string
  status: string
  created_at: string
  created_by: PersonRef | null
  evidences: EvidenceRow[]
}

export type ResponderRow = {
  id: string
  type: string
  created_at: string
  person: PersonRef | null
  team: { id: string; name: string; icon?: string | null } | null
}

export type CommentRow = { id: string; comment: string; created_at: string; created_by: PersonRef | null }

export type HistoryRow = {
  id: string
  type: string | null
  description: string | null
  created_at: string
  created_by: PersonRef | null
}

export type IncidentRow = {
  id: string
  incident_id: string
  title: string
  description: string
  severity: string
  type: string
  status: string
  created_at: string
  updated_at: string
  commander_id: string | null
  communicator_id: string | null
  commander: PersonRef | null
  communicator: PersonRef | null
  created_by: PersonRef | null
}

export type IncidentDetail = {
  incident: IncidentRow
  hypotheses: HypothesisRow[]
  responders: ResponderRow[]
  comments: CommentRow[]
  history: HistoryRow[]
}

export type Option = { id: string; name: string }

const path = (table: string, query: URLSearchParams | string) => `/db/${table}?${query.toString()}`

export async function listIncidents(args: ApiArgs, params: IncidentListParams): Promise<{ rows: IncidentSummaryRow[]; total: number | null }> {
  const { data, headers } = await apiJson<IncidentSummaryRow[]>(args, path('incident_summary', buildIncidentListQuery(params)), {
    headers: { prefer: 'count=exact' },
  })
  return { rows: Array.isArray(data) ? data : [], total: getTotalFromContentRange(headers.get('content-range')) }
}

export async function listPeople(args: ApiArgs): Promise<Option[]> {
  const { data } = await apiJson<Array<{ id: string; name: string | null; email: string | null }>>(
    args,
    '/db/people?select=id,name,email&deleted_at=is.null&order=name.asc&limit=500',
  )
  return (Array.isArray(data) ? data : []).map((row) => ({ id: row.id, name: row.name || row.email || row.id }))
}

export async function listTeams(args: ApiArgs): Promise<Option[]> {
  const { data } = await apiJson<Array<{ id: string; name: string }>>(args, '/db/teams?select=id,name&deleted_at=is.null&order=name.asc&limit=500')
  return Array.isArray(data) ? data : []
}

const EVIDENCE_SELECT =
  'evidences(*,check:check_id(id,name,status,type),config:config_id(id,name,type,health),component:component_id(id,name,status),config_change:config_change_id(id,change_type,summary,config_id),config_analysis:config_analysis_id(id,analyzer,message,config_id))'

/** One incident with everything its page shows; null when it does not exist (or is not visible). */
export async function getIncidentDetail(args: ApiArgs, id: string): Promise<IncidentDetail | null> {
  if (!isUuid(id)) return null
  const eq = `eq.${id}`
  const incidentQuery = new URLSearchParams({
    id: eq,
    select: '*,commander:commander_id(id,name,avatar),communicator:communicator_id(id,name,avatar),created_by(id,name,avatar)',
  })
  const [incidents, hypotheses, responders, comments, history] = await Promise.all([
    apiJson<IncidentRow[]>(args, path('incidents', incidentQuery)),
    apiJson<HypothesisRow[]>(
      args,
      path('hypotheses', new URLSearchParams({ incident_id: eq, select: `*,created_by(id,name,avatar),${EVIDENCE_SELECT}`, order: 'created_at.asc' })),
    ),
    apiJson<ResponderRow[]>(
      args,
      path(
        'responders',
        new URLSearchParams({ incident_id: eq, deleted_at: 'is.null', select: 'id,type,created_at,person:person_id(id,name,avatar),team:team_id(id,name,icon)', order: 'created_at.asc' }),
      ),
    ),
    apiJson<CommentRow[]>(args, path('comments', new URLSearchParams({ incident_id: eq, select: 'id,comment,created_at,created_by(id,name,avatar)', order: 'created_at.asc' }))),
    apiJson<HistoryRow[]>(
      args,
      path('incident_histories', new URLSearchParams({ incident_id: eq, select: 'id,type,description,created_at,created_by(id,name,avatar)', order: 'created_at.asc' })),
    ),
  ])
  const incident = incidents.data?.[0]
  if (!incident) return null
  return {
    incident,
    hypotheses: (hypotheses.data ?? []).map((row) => ({ ...row, evidences: row.evidences ?? [] })),
    responders: responders.data ?? [],
    comments: comments.data ?? [],
    history: history.data ?? [],
  }
}

/** A PostgREST-shaped 400 from the write validator, as a message for the form. */
export function getWriteErrorMessage(error: unknown): string | null {
  if (!(error instanceof GatewayError)) return null
  if (error.status === 403) return 'You do not have permission to change incidents'
  return error.message || `Request failed with status ${error.status}`
}

export async function createIncident(args: ApiArgs, userId: string, input: NewIncidentInput): Promise<{ id: string }> {
  const { data } = await apiJson<Array<{ id: string }>>(args, '/db/incidents?select=id', {
    method: 'POST',
    json: {
      title: input.title,
      severity: input.severity,
      type: input.type,
      description: input.description,
      status: input.status,
      created_by: userId,
      commander_id: userId,
      communicator_id: userId,
    },
    headers: { prefer: 'return=representation' },
  })
  const id = data?.[0]?.id
  if (!id) throw new GatewayError(502, 'The incident was not returned after creation', 'http', data)
  return { id }
}

export async function createHypothesis(
  args: ApiArgs,
  userId: string,
  input: { incidentId: string; title: string; type: string; parentId?: string | null; status?: string },
): Promise<{ id: string }> {
  const { data } = await apiJson<Array<{ id: string }>>(args, '/db/hypotheses?select=id', {
    method: 'POST',
    json: {
      incident_id: input.incidentId,
      title: input.title,
      status: input.status ?? 'possible',
      type: input.type,
      created_by: userId,
      ...(input.parentId ? { parent_id: input.parentId } : {}),
    },
    headers: { prefer: 'return=representation' },
  })
  const id = data?.[0]?.id
  if (!id) throw new GatewayError(502, 'The hypothesis was not returned after creation', 'http', data)
  return { id }
}

export async function createEvidence(
  args: ApiArgs,
  userId: string,
  input: { hypothesisId: string; target: EvidenceTarget; description: string },
): Promise<void> {
  const column = EVIDENCE_TARGET_COLUMN[input.target.type]
  await apiJson(args, '/db/evidences', {
    method: 'POST',
    json: {
      hypothesis_id: input.hypothesisId,
      created_by: userId,
      type: input.target.type,
      description: input.description,
      evidence: null,
      [column]: input.target[column],
    },
    headers: { prefer: 'return=minimal' },
  })
}

/** Writes one row by id (PATCH with `id=eq.`), answering the API's message on failure. */
export async function patchRow(args: ApiArgs, table: string, id: string, body: Record<string, unknown>): Promise<void> {
  await apiJson(args, `/db/${table}?id=eq.${encodeURIComponent(id)}`, { method: 'PATCH', json: body, headers: { prefer: 'return=minimal' } })
}

export async function postRow(args: ApiArgs, table: string, body: Record<string, unknown>): Promise<void> {
  await apiJson(args, `/db/${table}`, { method: 'POST', json: body, headers: { prefer: 'return=minimal' } })
}

export type IncidentOption = { id: string; incident_id: string; title: string; status: string; severity: string }
export type HypothesisOption = { id: string; title: string; type: string; status: string }

/** The dialog's incident search (001 §2); failures are logged and answer an empty list (001 §8). */
export async function searchIncidentOptions(args: ApiArgs, text: string): Promise<IncidentOption[]> {
  const query = new URLSearchParams({ select: 'id,incident_id,title,status,severity', order: 'created_at.desc', limit: '20' })
  const term = toIlikeTerm(text)
  if (term) query.set('or', `(title.ilike.*${term}*,incident_id.ilike.*${term}*)`)
  try {
    const { data } = await apiJson<unknown>(args, path('incidents', query))
    if (!Array.isArray(data)) {
      consoleLog.warn({ data }, 'incident search answered something other than a list')
      return []
    }
    return data as IncidentOption[]
  } catch (error) {
    if (error instanceof Response) throw error
    consoleLog.warn({ err: error }, 'incident search failed')
    return []
  }
}

export async function getIncidentOption(args: ApiArgs, id: string): Promise<IncidentOption | null> {
  if (!isUuid(id)) return null
  try {
    const { data } = await apiJson<IncidentOption[]>(args, path('incidents', new URLSearchParams({ id: `eq.${id}`, select: 'id,incident_id,title,status,severity' })))
    return data?.[0] ?? null
  } catch (error) {
    if (error instanceof Response) throw error
    consoleLog.warn({ err: error }, 'incident lookup failed')
    return null
  }
}

export async function listHypothesisOptions(args: ApiArgs, incidentId: string): Promise<HypothesisOption[]> {
  if (!isUuid(incidentId)) return []
  try {
    const { data } = await apiJson<unknown>(
      args,
      path('hypotheses', new URLSearchParams({ incident_id: `eq.${incidentId}`, select: 'id,title,type,status', order: 'created_at.asc' })),
    )
    if (!Array.isArray(data)) return []
    return data as HypothesisOption[]
  } catch (error) {
    if (error instanceof Response) throw error
    consoleLog.warn({ err: error }, 'hypothesis search failed')
    return []
  }
}

export type LinkOutcome = { ok: true; incidentId: string } | { ok: false; errors: FieldErrors }

/**
 * Runs the link: incident (created when new), hypothesis (created when new, `possible`/`root`),
 * then the evidence. A failed step stops the rest (001 §8); its message comes back as a form
 * error, since with no JavaScript there is no console the user could read instead.
 */
export async function runLinkPlan(args: ApiArgs, userId: string, plan: LinkPlan): Promise<LinkOutcome> {
  let incidentId: string
  try {
    incidentId =
      plan.incident.kind === 'existing'
        ? plan.incident.id
        : (await createIncident(args, userId, { title: plan.incident.title, type: plan.incident.type, severity: plan.incident.severity, status: 'open', description: '' })).id
  } catch (error) {
    if (error instanceof Response) throw error
    consoleLog.warn({ err: error }, 'link to incident: creating the incident failed')
    return { ok: false, errors: { form: getWriteErrorMessage(error) ?? 'The incident could not be created' } }
  }
  let hypothesisId: string
  try {
    hypothesisId =
      plan.hypothesis.kind === 'existing'
        ? plan.hypothesis.id
        : (await createHypothesis(args, userId, { incidentId, title: plan.hypothesis.title, type: 'root', status: 'possible' })).id
  } catch (error) {
    if (error instanceof Response) throw error
    consoleLog.warn({ err: error }, 'link to incident: creating the hypothesis failed')
    return { ok: false, errors: { form: getWriteErrorMessage(error) ?? 'The hypothesis could not be created' } }
  }
  try {
    await createEvidence(args, userId, { hypothesisId, target: plan.target, description: plan.description })
  } catch (error) {
    if (error instanceof Response) throw error
    consoleLog.warn({ err: error }, 'link to incident: creating the evidence failed')
    return { ok: false, errors: { form: getWriteErrorMessage(error) ?? 'The evidence could not be added' } }
  }
  return { ok: true, incidentId }
}

/**
 * Whether this browser request may see 'Attach as Evidence' (001 §6): the incidents feature on
 * and write access to incidents. Host pages call it in their loader and pass the answer to
 * `LinkToIncident`; the dialog's own endpoints check the same again.
 */
export async function canLinkToIncident(args: ApiArgs): Promise<boolean> {
  const [session, properties] = await Promise.all([requireSessionInfo(args), getProperties(args)])
  return !isFeatureDisabled('incidents', getSwitchedOffNames(properties)) && hasAccess(session, 'incident', 'write')
}

/** The signed-in person's responder row on an incident, if they are one. */
export async function findResponderId(args: ApiArgs, incidentId: string, personId: string): Promise<string | null> {
  if (!isUuid(incidentId) || !isUuid(personId)) return null
  const query = new URLSearchParams({ incident_id: `eq.${incidentId}`, person_id: `eq.${personId}`, deleted_at: 'is.null', select: 'id', limit: '1' })
  const { data } = await apiJson<Array<{ id: string }>>(args, path('responders', query))
  return data?.[0]?.id ?? null
}
