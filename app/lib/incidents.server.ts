import { z } from 'zod'
import { dbClient, requireData, requirePage, type DbClient } from './data-client.server.ts'
import { GatewayError, type ApiArgs } from './gateway.server.ts'
import { getLinkPlan, LinkSchema } from './incident-forms.ts'
import { consoleLog } from './log.server.ts'
import { sharedPerSession } from './shared-data.server.ts'
import { hasAccess } from './access.ts'
import { getSwitchedOffNames, isFeatureDisabled } from './features.ts'
import { getProperties, requireSessionInfo } from './session.server.ts'
import {
  isUuid,
  toIlikeTerm,
  type EvidenceTarget,
  type HypothesisStatus,
  type IncidentStatus,
  type IncidentListParams,
  type LinkPlan,
  EVIDENCE_TARGET_COLUMN,
  INCIDENT_ORDER_COLUMN,
} from './incidents.ts'
import type { HistorySource } from './incident-detail.ts'

/**
 * The incident screens' calls, all through the data client (`/api/db`, PostgREST) with the
 * browser's credentials; routes call these named functions and build no queries.
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

/** A history row with what it points at, so the timeline can say who did what (incident-detail.ts buildTimeline). */
export type HistoryRow = HistorySource & { created_by: PersonRef | null }

const HISTORY_SELECT = [
  'id,type,description,created_at,comment_id,created_by(id,name,avatar)',
  'responder:responder_id(type,person:person_id(name),team:team_id(name))',
  'hypothesis:hypothesis_id(title,type)',
  'evidence:evidence_id(type,description,check:check_id(name),config:config_id(name),component:component_id(name))',
  'comment:comment_id(comment)',
].join(',')

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

const INCIDENT_LIST_SELECT = 'id,incident_id,title,severity,type,status,created_at,updated_at,commander,responders'

/**
 * The list's read of `incident_summary`: its filters, search, order and page, exactly as the
 * data API receives them (tests/app/incident-list-query.test.ts reads the request back).
 * `orderColumn` is the column ordered by, INCIDENT_ORDER_COLUMN's by default.
 */
export function incidentListQuery(db: DbClient, params: IncidentListParams, orderColumn: string = INCIDENT_ORDER_COLUMN[params.sortBy]) {
  let query = db.from('incident_summary').select(INCIDENT_LIST_SELECT, { count: 'exact' })
  if (params.status.length) query = query.in('status', params.status)
  // Medium matches both spellings, since incidents created elsewhere use the lower-case one.
  if (params.severity.length) query = query.in('severity', [...new Set(params.severity.flatMap((value) => (value.toLowerCase() === 'medium' ? ['medium', 'Medium'] : [value])))])
  if (params.type.length) query = query.in('type', params.type)
  if (params.commander) query = query.eq('commander->>id', params.commander)
  const term = toIlikeTerm(params.search)
  if (term) query = query.or(`title.ilike.*${term}*,incident_id.ilike.*${term}*`)
  const offset = (params.page - 1) * params.pageSize
  // The id breaks ties, so rows of equal rank keep one order from page to page.
  return query
    .order(orderColumn, { ascending: !params.sortDesc })
    .order('id', { ascending: true })
    .range(offset, offset + params.pageSize - 1)
    .returns<IncidentSummaryRow[]>()
}

export async function listIncidents(args: ApiArgs, params: IncidentListParams): Promise<{ rows: IncidentSummaryRow[]; total: number | null }> {
  const db = dbClient(args)
  const orderColumn = INCIDENT_ORDER_COLUMN[params.sortBy]
  const result = await incidentListQuery(db, params, orderColumn)
  // The rank columns are Lookout's own (migration 0191): a PostgREST without them (Mission
  // Control's, in upstream mode) refuses the order, and the list falls back to the value's text order.
  if (result.error && orderColumn !== params.sortBy && (result.error as { code?: string }).code === '42703') {
    return requirePage(await incidentListQuery(db, params, params.sortBy))
  }
  return requirePage(result)
}

/**
 * The people and teams the incident forms offer (commander, responders, the list's filters).
 * They change as rarely as the shell's data and through the same tables, so they are kept per
 * session the same way (shared-data.server.ts): dropped on any write to people or teams.
 */
export function listPeople(args: ApiArgs): Promise<Option[]> {
  return sharedPerSession(args, 'people-options', async () => {
    const rows = requireData(
      await dbClient(args).from('people').select('id,name,email').is('deleted_at', null).order('name').limit(500).returns<Array<{ id: string; name: string | null; email: string | null }>>(),
    )
    return (rows ?? []).map((row) => ({ id: row.id, name: row.name || row.email || row.id }))
  })
}

export function listTeams(args: ApiArgs): Promise<Option[]> {
  return sharedPerSession(args, 'team-options', async () =>
    requireData(await dbClient(args).from('teams').select('id,name').is('deleted_at', null).order('name').limit(500).returns<Option[]>()) ?? [],
  )
}

const EVIDENCE_SELECT =
  'evidences(*,check:check_id(id,name,status,type),config:config_id(id,name,type,health),component:component_id(id,name,status),config_change:config_change_id(id,change_type,summary,config_id),config_analysis:config_analysis_id(id,analyzer,message,config_id))'

/**
 * One incident with everything its page shows; null when it does not exist (or is not visible).
 * One call: hypotheses, responders, comments and history come as embeds of the incident (with
 * their own filters and order), so the page pays one trip through the gateway and one statement
 * instead of five.
 */
export async function getIncidentDetail(args: ApiArgs, id: string): Promise<IncidentDetail | null> {
  if (!isUuid(id)) return null
  const select = [
    '*,commander:commander_id(id,name,avatar),communicator:communicator_id(id,name,avatar),created_by(id,name,avatar)',
    `hypotheses(*,created_by(id,name,avatar),${EVIDENCE_SELECT})`,
    'responders(id,type,created_at,person:person_id(id,name,avatar),team:team_id(id,name,icon))',
    'comments(id,comment,created_at,created_by(id,name,avatar))',
    `incident_histories(${HISTORY_SELECT})`,
  ].join(',')
  type Embedded = IncidentRow & {
    hypotheses: HypothesisRow[] | null
    responders: ResponderRow[] | null
    comments: CommentRow[] | null
    incident_histories: HistoryRow[] | null
  }
  const rows = requireData(
    await dbClient(args)
      .from('incidents')
      .select(select)
      .eq('id', id)
      .is('responders.deleted_at', null)
      .order('created_at', { referencedTable: 'hypotheses' })
      .order('created_at', { referencedTable: 'responders' })
      .order('created_at', { referencedTable: 'comments' })
      .order('created_at', { referencedTable: 'incident_histories' })
      .returns<Embedded[]>(),
  )
  const row = rows?.[0]
  if (!row) return null
  const { hypotheses, responders, comments, incident_histories: history, ...incident } = row
  return {
    incident,
    hypotheses: (hypotheses ?? []).map((hypothesis) => ({ ...hypothesis, evidences: hypothesis.evidences ?? [] })),
    responders: responders ?? [],
    comments: comments ?? [],
    history: history ?? [],
  }
}

/** A PostgREST-shaped 400 from the write validator, as a message for the form. */
export function getWriteErrorMessage(error: unknown): string | null {
  if (!(error instanceof GatewayError)) return null
  if (error.status === 403) return 'You do not have permission to change incidents'
  return error.message || `Request failed with status ${error.status}`
}

export type NewIncident = { title: string; type: string; severity: string; status: IncidentStatus; description: string }

export async function createIncident(args: ApiArgs, userId: string, input: NewIncident): Promise<{ id: string }> {
  const rows = requireData(
    await dbClient(args)
      .from('incidents')
      .insert({
        title: input.title,
        severity: input.severity,
        type: input.type,
        description: input.description,
        status: input.status,
        created_by: userId,
        commander_id: userId,
        communicator_id: userId,
      })
      .select('id')
      .returns<Array<{ id: string }>>(),
  )
  const id = rows?.[0]?.id
  if (!id) throw new GatewayError(502, 'The incident was not returned after creation', 'http', rows)
  return { id }
}

export async function createHypothesis(
  args: ApiArgs,
  userId: string,
  input: { incidentId: string; title: string; type: string; parentId?: string | null; status?: string },
): Promise<{ id: string }> {
  const rows = requireData(
    await dbClient(args)
      .from('hypotheses')
      .insert({
        incident_id: input.incidentId,
        title: input.title,
        status: input.status ?? 'possible',
        type: input.type,
        created_by: userId,
        ...(input.parentId ? { parent_id: input.parentId } : {}),
      })
      .select('id')
      .returns<Array<{ id: string }>>(),
  )
  const id = rows?.[0]?.id
  if (!id) throw new GatewayError(502, 'The hypothesis was not returned after creation', 'http', rows)
  return { id }
}

export async function createEvidence(
  args: ApiArgs,
  userId: string,
  input: { hypothesisId: string; target: EvidenceTarget; description: string },
): Promise<void> {
  const column = EVIDENCE_TARGET_COLUMN[input.target.type]
  requireData(
    await dbClient(args)
      .from('evidences')
      .insert({
        hypothesis_id: input.hypothesisId,
        created_by: userId,
        type: input.target.type,
        description: input.description,
        evidence: null,
        [column]: input.target[column],
      }),
  )
}

/** Writes one row by id, answering the API's message on failure. */
async function patchRow(args: ApiArgs, table: string, id: string, body: Record<string, unknown>): Promise<void> {
  requireData(await dbClient(args).from(table).update(body).eq('id', id))
}

async function postRow(args: ApiArgs, table: string, body: Record<string, unknown>): Promise<void> {
  requireData(await dbClient(args).from(table).insert(body))
}

/** A resolved or closed incident records when that happened. */
export async function updateIncidentStatus(args: ApiArgs, incidentId: string, status: IncidentStatus): Promise<void> {
  const now = new Date().toISOString()
  await patchRow(args, 'incidents', incidentId, { status, ...(status === 'resolved' ? { resolved: now } : status === 'closed' ? { closed: now } : {}) })
}

export async function updateIncidentDetails(
  args: ApiArgs,
  incidentId: string,
  input: { severity: string; type: string; commanderId: string | null; communicatorId: string | null },
): Promise<void> {
  await patchRow(args, 'incidents', incidentId, { severity: input.severity, type: input.type, commander_id: input.commanderId, communicator_id: input.communicatorId })
}

export async function addResponder(args: ApiArgs, userId: string, incidentId: string, responder: { kind: 'person' | 'team'; id: string }): Promise<void> {
  // A team is reached through its own channel; the reference stores those as email responders.
  await postRow(
    args,
    'responders',
    responder.kind === 'person'
      ? { incident_id: incidentId, type: 'person', person_id: responder.id, created_by: userId }
      : { incident_id: incidentId, type: 'email', team_id: responder.id, created_by: userId },
  )
}

export async function removeResponder(args: ApiArgs, responderId: string): Promise<void> {
  await patchRow(args, 'responders', responderId, { deleted_at: 'now()' })
}

export async function updateHypothesisStatus(args: ApiArgs, hypothesisId: string, status: HypothesisStatus): Promise<void> {
  await patchRow(args, 'hypotheses', hypothesisId, { status })
}

/** Leaving the definition of done also clears done, which only means something inside it. */
export async function setEvidenceDefinitionOfDone(args: ApiArgs, evidenceId: string, value: boolean): Promise<void> {
  await patchRow(args, 'evidences', evidenceId, { definition_of_done: value, ...(value ? {} : { done: false }) })
}

export async function setEvidenceDone(args: ApiArgs, evidenceId: string, value: boolean): Promise<void> {
  await patchRow(args, 'evidences', evidenceId, { done: value })
}

export async function addComment(args: ApiArgs, userId: string, incidentId: string, comment: string): Promise<void> {
  // A comment by one of the incident's responders is attributed to that responder, which
  // is what puts it on the timeline (the trigger writes responder.commented only then).
  const responderId = await findResponderId(args, incidentId, userId)
  await postRow(args, 'comments', { incident_id: incidentId, comment, created_by: userId, ...(responderId ? { responder_id: responderId } : {}) })
}

export type IncidentOption = { id: string; incident_id: string; title: string; status: string; severity: string }
export type HypothesisOption = { id: string; title: string; type: string; status: string }

/** The dialog's incident search (001 §2); failures are logged and answer an empty list (001 §8). */
export async function searchIncidentOptions(args: ApiArgs, text: string): Promise<IncidentOption[]> {
  let query = dbClient(args).from('incidents').select('id,incident_id,title,status,severity')
  const term = toIlikeTerm(text)
  if (term) query = query.or(`title.ilike.*${term}*,incident_id.ilike.*${term}*`)
  try {
    const data: unknown = requireData(await query.order('created_at', { ascending: false }).limit(20))
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
    const rows = requireData(await dbClient(args).from('incidents').select('id,incident_id,title,status,severity').eq('id', id).returns<IncidentOption[]>())
    return rows?.[0] ?? null
  } catch (error) {
    if (error instanceof Response) throw error
    consoleLog.warn({ err: error }, 'incident lookup failed')
    return null
  }
}

export async function listHypothesisOptions(args: ApiArgs, incidentId: string): Promise<HypothesisOption[]> {
  if (!isUuid(incidentId)) return []
  try {
    const data: unknown = requireData(await dbClient(args).from('hypotheses').select('id,title,type,status').eq('incident_id', incidentId).order('created_at'))
    if (!Array.isArray(data)) return []
    return data as HypothesisOption[]
  } catch (error) {
    if (error instanceof Response) throw error
    consoleLog.warn({ err: error }, 'hypothesis search failed')
    return []
  }
}

export type LinkOutcome = { ok: true; incidentId: string } | { ok: false; message: string }

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
    return { ok: false, message: getWriteErrorMessage(error) ?? 'The incident could not be created' }
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
    return { ok: false, message: getWriteErrorMessage(error) ?? 'The hypothesis could not be created' }
  }
  try {
    await createEvidence(args, userId, { hypothesisId, target: plan.target, description: plan.description })
  } catch (error) {
    if (error instanceof Response) throw error
    consoleLog.warn({ err: error }, 'link to incident: creating the evidence failed')
    return { ok: false, message: getWriteErrorMessage(error) ?? 'The evidence could not be added' }
  }
  return { ok: true, incidentId }
}

/**
 * The link form's schema with its server step, for both of the form's actions (the dialog's
 * fetcher and the no-JavaScript page): a valid form runs the link, and a missing evidence
 * target or a failed step becomes the form's error. Its value is the incident's id.
 */
export function getLinkActionSchema(args: ApiArgs, userId: string, target: EvidenceTarget | null) {
  return LinkSchema.transform(async (value, ctx) => {
    if (!target) {
      ctx.addIssue({ code: z.ZodIssueCode.custom, message: 'Nothing to link: the evidence target is missing or invalid' })
      return z.NEVER
    }
    const outcome = await runLinkPlan(args, userId, getLinkPlan(target, value))
    if (!outcome.ok) {
      ctx.addIssue({ code: z.ZodIssueCode.custom, message: outcome.message })
      return z.NEVER
    }
    return outcome.incidentId
  })
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
  const rows = requireData(
    await dbClient(args).from('responders').select('id').eq('incident_id', incidentId).eq('person_id', personId).is('deleted_at', null).limit(1).returns<Array<{ id: string }>>(),
  )
  return rows?.[0]?.id ?? null
}
