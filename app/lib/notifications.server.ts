import { data, redirect } from '@remix-run/node'
import { z } from 'zod'
import { isUuid } from '#contract/uuid.ts'
import { dbClient, requireData, requirePage } from '#app/lib/data-client.server.ts'
import { toErrorResponse } from '#app/lib/session.server.ts'
import { toastCookie } from '#app/lib/toast.server.ts'
import { apiFetch, apiJson, GatewayError, messageOf, signInRedirect, type ApiArgs } from '#app/lib/gateway.server.ts'
import { SilenceRefusal, submitSilenceForm, type NotificationRuleColumns, type RecipientResolver } from '#app/lib/notification-forms.ts'
import { RESOURCE_KINDS, SEND_HISTORY_PAGE_SIZE, SEND_STATUSES, SILENCE_STATES, SILENCES_HREF, SUMMARY_PAGE_SIZES, type NotificationResourceKind, type SilenceState } from '#app/lib/notification-form-shapes.ts'

/**
 * Notifications (spec 000 §2, http-api §2.3, data-model §8) as named functions for the
 * notification screens: the per-resource summary (`POST /notification/summary`), one resource's
 * send history (`notification_send_history_summary`, `GET /notification/send_history/{id}`),
 * rules (the data API's `notifications`), and silences (`POST /notification/silence`,
 * `/silence_preview`, and `PATCH notification_silences` to edit and end them).
 */

// ---- The summary: /notifications --------------------------------------------------------------

const NotificationListParamsSchema = z.object({
  search: z.string().trim().max(200).catch(''),
  status: z.enum(SEND_STATUSES).nullable().catch(null),
  resourceKind: z.enum(RESOURCE_KINDS).nullable().catch(null),
  includeDeleted: z.boolean().catch(false),
  page: z.coerce.number().int().min(1).max(100_000).catch(1),
  pageSize: z.coerce
    .number()
    .int()
    .refine((size) => (SUMMARY_PAGE_SIZES as readonly number[]).includes(size))
    .catch(50),
})
export type NotificationListParams = z.infer<typeof NotificationListParamsSchema>

/** /notifications' URL state (`?search=&status=&resourceKind=&includeDeleted=true&page=&pageSize=`); a bad value is its default. */
export function parseNotificationListParams(params: URLSearchParams): NotificationListParams {
  return NotificationListParamsSchema.parse({
    search: params.get('search') ?? '',
    status: params.get('status') || null,
    resourceKind: params.get('resourceKind') || null,
    includeDeleted: params.get('includeDeleted') === 'true',
    page: params.get('page') ?? undefined,
    pageSize: params.get('pageSize') ?? undefined,
  })
}

/** One resource's line of the summary (http-api §2.3.1). */
export type NotificationSummaryRow = {
  resource: { id: string; name?: string | null; type?: string | null } | null
  resource_type: string | null
  resource_kind: string | null
  resource_health: string | null
  resource_status: string | null
  first_observed: string | null
  last_seen: string | null
  total: number
  last_message: string | null
  sent: number
  error: number
  suppressed: number
  in_progress: number
}

/** Resources with notifications, most recently seen first, with their counts. */
export async function summarizeNotifications(args: ApiArgs, params: NotificationListParams): Promise<{ rows: NotificationSummaryRow[]; total: number }> {
  const body = {
    search: params.search || undefined,
    status: params.status ?? undefined,
    resourceKind: params.resourceKind ?? undefined,
    includeDeletedResources: params.includeDeleted,
    pageIndex: params.page - 1,
    pageSize: params.pageSize,
    groupBy: ['resource'],
  }
  const { data } = await apiJson<{ total: number; results: NotificationSummaryRow[] | null }>(args, '/notification/summary', { method: 'POST', json: body })
  return { rows: data.results ?? [], total: data.total ?? 0 }
}

// ---- Send history: /notifications/resource/{id} ------------------------------------------------

export type SendHistoryRow = {
  id: string
  notification_id: string
  status: string | null
  source_event: string
  resource_id: string
  resource_health: string | null
  resource_status: string | null
  resource_kind: string | null
  resource: { id: string; name?: string | null; type?: string | null; health?: string | null; status?: string | null; deleted_at?: string | null } | null
  count: number
  error: string | null
  person_id: string | null
  team_id: string | null
  connection_id: string | null
  silenced_by: string | null
  playbook_run_id: string | null
  duration_millis: number | null
  first_observed: string | null
  created_at: string
}

/** A send with its rendered body and structured payload. */
export type SendHistoryDetail = SendHistoryRow & { body: string | null; body_payload: unknown; retries: number; not_before: string | null; playbook_run: { id: string; playbook_name?: string; status?: string } | null }

const SEND_HISTORY_COLUMNS =
  'id,notification_id,status,source_event,resource_id,resource_health,resource_status,resource_kind,resource,count,error,person_id,team_id,connection_id,silenced_by,playbook_run_id,duration_millis,first_observed,created_at'

/** One resource's sends, newest first, optionally of one status, with the total. */
export async function listSendHistory(args: ApiArgs, resourceId: string, options: { status: string | null; page: number }): Promise<{ rows: SendHistoryRow[]; total: number }> {
  if (!isUuid(resourceId)) return { rows: [], total: 0 }
  let query = dbClient(args).from('notification_send_history_summary').select(SEND_HISTORY_COLUMNS, { count: 'exact' }).eq('resource_id', resourceId)
  if (options.status) query = query.eq('status', options.status)
  const from = (options.page - 1) * SEND_HISTORY_PAGE_SIZE
  return requirePage(await query.order('created_at', { ascending: false }).order('id', { ascending: false }).range(from, from + SEND_HISTORY_PAGE_SIZE - 1).returns<SendHistoryRow[]>())
}

/** One send (`GET /notification/send_history/{id}`), or null when it is unknown or not visible. */
export async function getSendHistory(args: ApiArgs, id: string): Promise<SendHistoryDetail | null> {
  if (!isUuid(id)) return null
  try {
    return (await apiJson<SendHistoryDetail>(args, `/notification/send_history/${encodeURIComponent(id)}`)).data
  } catch (error) {
    if (error instanceof GatewayError && error.status === 404) return null
    throw error
  }
}

// ---- Rules: /notifications/rules ---------------------------------------------------------------

/** Spec 000 §9: the notifications list loads up to 1000 rules, sorted by name. */
export const RULE_LIST_LIMIT = 1000

export type NotificationRuleRow = NotificationRuleColumns & {
  id: string
  source: string | null
  error: string | null
  error_at: string | null
  created_at: string
  updated_at: string | null
  deleted_at: string | null
  person: { id: string; name: string; email: string | null } | null
  team: { id: string; name: string } | null
}

const RULE_COLUMNS =
  'id,name,namespace,events,title,template,filter,properties,playbook_id,person_id,team_id,repeat_interval,inhibitions,wait_for,wait_for_eval_period,group_by,group_by_interval,custom_services,fallback_delay,fallback_custom_services,fallback_playbook_id,fallback_person_id,fallback_team_id,source,error,error_at,created_at,updated_at,deleted_at,person:person_id(id,name,email),team:team_id(id,name)'

/**
 * Every rule by name, the disabled ones too. The data model has no enabled flag: the delivery
 * pipeline matches live rows only (`deleted_at IS NULL`), so disabling a rule soft-deletes it
 * and enabling it clears `deleted_at` again.
 */
export async function listNotificationRules(args: ApiArgs): Promise<NotificationRuleRow[]> {
  const query = dbClient(args).from('notifications').select(RULE_COLUMNS).order('name').order('namespace').limit(RULE_LIST_LIMIT)
  return requireData(await query.returns<NotificationRuleRow[]>()) ?? []
}

/** A rule by id (enabled or not), or null (also for an id that is not a UUID). */
export async function getNotificationRule(args: ApiArgs, id: string): Promise<NotificationRuleRow | null> {
  if (!isUuid(id)) return null
  const rows = requireData(await dbClient(args).from('notifications').select(RULE_COLUMNS).eq('id', id).returns<NotificationRuleRow[]>())
  return rows?.[0] ?? null
}

/** Creates a UI rule and returns its id; a live name clash in the namespace is the API's 409 GatewayError. */
export async function createNotificationRule(args: ApiArgs, columns: NotificationRuleColumns, createdBy: string | null): Promise<string> {
  const row = { ...columns, source: 'UI', ...(createdBy && isUuid(createdBy) ? { created_by: createdBy } : {}) }
  const rows = requireData(await dbClient(args).from('notifications').insert(row).select('id').returns<{ id: string }[]>())
  const id = rows?.[0]?.id
  if (!id) throw new GatewayError(502, 'The data API did not return the new notification.', 'http')
  return id
}

export async function updateNotificationRule(args: ApiArgs, id: string, columns: NotificationRuleColumns): Promise<void> {
  requireData(await dbClient(args).from('notifications').update(columns).eq('id', id))
}

/** Enables (clears `deleted_at`) or disables (sets it) a rule; see `listNotificationRules`. */
export async function setNotificationRuleEnabled(args: ApiArgs, id: string, enabled: boolean): Promise<void> {
  requireData(await dbClient(args).from('notifications').update({ deleted_at: enabled ? null : new Date().toISOString() }).eq('id', id))
}

/** Names of people, teams and playbooks by id, for showing rules' recipients. */
export async function recipientNames(args: ApiArgs, ids: { people: string[]; teams: string[]; playbooks: string[] }) {
  const db = dbClient(args)
  const unique = (values: string[]) => [...new Set(values.filter(isUuid))]
  const [people, teams, playbooks] = await Promise.all([
    unique(ids.people).length ? db.from('people').select('id,name,email').in('id', unique(ids.people)).returns<{ id: string; name: string; email: string | null }[]>() : null,
    unique(ids.teams).length ? db.from('teams').select('id,name').in('id', unique(ids.teams)).returns<{ id: string; name: string }[]>() : null,
    unique(ids.playbooks).length ? db.from('playbooks').select('id,name,namespace').in('id', unique(ids.playbooks)).returns<{ id: string; name: string; namespace: string | null }[]>() : null,
  ])
  const personById = new Map((people ? requireData(people) ?? [] : []).map((row) => [row.id, row.email || row.name]))
  const teamById = new Map((teams ? requireData(teams) ?? [] : []).map((row) => [row.id, row.name]))
  const playbookById = new Map((playbooks ? requireData(playbooks) ?? [] : []).map((row) => [row.id, row.namespace ? `${row.namespace}/${row.name}` : row.name]))
  return { person: (id: string) => personById.get(id), team: (id: string) => teamById.get(id), playbook: (id: string) => playbookById.get(id) }
}

/** Finds people by id or e-mail, teams by id or name and playbooks by id, name or namespace/name. */
export function recipientResolver(args: ApiArgs): RecipientResolver {
  const db = dbClient(args)
  const one = async (table: 'people' | 'teams' | 'playbooks', column: string, value: string, namespace?: string): Promise<string | null> => {
    let query = db.from(table).select('id').eq(column, value).is('deleted_at', null)
    if (namespace) query = query.eq('namespace', namespace)
    const rows = requireData(await query.limit(1).returns<{ id: string }[]>())
    return rows?.[0]?.id ?? null
  }
  return {
    person: (ref) => (isUuid(ref) ? one('people', 'id', ref) : one('people', 'email', ref)),
    team: (ref) => (isUuid(ref) ? one('teams', 'id', ref) : one('teams', 'name', ref)),
    playbook: (ref: string) => {
      if (isUuid(ref)) return one('playbooks', 'id', ref)
      const text: string = ref
      const [namespace, name] = text.includes('/') ? text.split('/', 2) : [undefined, text]
      return one('playbooks', 'name', name!, namespace)
    },
  }
}

// ---- Silences: /notifications/silences ---------------------------------------------------------

export type SilenceRow = {
  id: string
  name: string
  description: string | null
  filter: string | null
  selectors: unknown
  error: string | null
  from: string | null
  until: string | null
  recursive: boolean | null
  config_id: string | null
  check_id: string | null
  canary_id: string | null
  component_id: string | null
  source: string | null
  created_at: string
  created_by: string | null
}

const SilenceListParamsSchema = z.object({ state: z.enum(SILENCE_STATES).nullable().catch(null), search: z.string().trim().max(200).catch('') })
export type SilenceListParams = z.infer<typeof SilenceListParamsSchema>

/** /notifications/silences' URL state (`?state=active|expired|indefinite&search=`). */
export function parseSilenceListParams(params: URLSearchParams): SilenceListParams {
  return SilenceListParamsSchema.parse({ state: params.get('state') || null, search: params.get('search') ?? '' })
}

const SILENCE_COLUMNS = 'id,name,description,filter,selectors,error,from,until,recursive,config_id,check_id,canary_id,component_id,source,created_at,created_by'

/** Which of active, expired and indefinite a silence is, at `now`. */
export function silenceState(silence: Pick<SilenceRow, 'until'>, now: Date): SilenceState {
  if (!silence.until) return 'indefinite'
  return new Date(silence.until).getTime() > now.getTime() ? 'active' : 'expired'
}

/** Live silences, newest first, of one state (at `now`) and matching a search on description or name. */
export async function listSilences(args: ApiArgs, params: SilenceListParams, now: Date): Promise<SilenceRow[]> {
  let query = dbClient(args).from('notification_silences').select(SILENCE_COLUMNS).is('deleted_at', null)
  if (params.state === 'indefinite') query = query.is('until', null)
  else if (params.state === 'active') query = query.gt('until', now.toISOString())
  else if (params.state === 'expired') query = query.lte('until', now.toISOString())
  if (params.search) query = query.or(`description.ilike.*${params.search.replace(/[,()*]/g, ' ')}*,name.ilike.*${params.search.replace(/[,()*]/g, ' ')}*`)
  return requireData(await query.order('created_at', { ascending: false }).limit(RULE_LIST_LIMIT).returns<SilenceRow[]>()) ?? []
}

export async function getSilence(args: ApiArgs, id: string): Promise<SilenceRow | null> {
  if (!isUuid(id)) return null
  const rows = requireData(await dbClient(args).from('notification_silences').select(SILENCE_COLUMNS).eq('id', id).is('deleted_at', null).returns<SilenceRow[]>())
  return rows?.[0] ?? null
}

export type SilenceBody = {
  description: string | null
  from: string | null
  until: string | null
  recursive: boolean
  filter: string | null
  config_id: string | null
  check_id: string | null
  component_id: string | null
  canary_id: string | null
}

/** `POST /notification/silence` (200 with an empty body); a refusal is a GatewayError with the API's message. */
export async function createSilence(args: ApiArgs, body: SilenceBody): Promise<void> {
  await apiJson<null>(args, '/notification/silence', { method: 'POST', json: body })
}

/** Runs a silence write; the API's refusal (a 4xx or 5xx GatewayError) becomes a `SilenceRefusal` for the form. */
export async function refusalsAsSilenceIssues(write: () => Promise<void>): Promise<void> {
  try {
    await write()
  } catch (error) {
    if (error instanceof GatewayError && error.status >= 400 && error.status < 600) throw new SilenceRefusal(error.message, error.status)
    throw error
  }
}

/**
 * The silence pages' action: `intent=save` hands the silence to `save` (303 to the list with the
 * `saved` toast), `intent=preview` answers the preview in place; refusals land on their fields.
 */
export async function answerSilenceForm(args: ApiArgs, save: (body: SilenceBody) => Promise<void>, saved: string) {
  const formData = await args.request.formData()
  const { submission, status, preview } = await submitSilenceForm(formData, {
    save: (body) => refusalsAsSilenceIssues(() => save(body)),
    preview: (body) => previewSilence(args, body),
  }).catch((error: unknown) => {
    throw toErrorResponse(error)
  })
  if (submission.status === 'success' && submission.value.intent === 'save') {
    throw redirect(SILENCES_HREF, { status: 303, headers: { 'set-cookie': toastCookie(saved) } })
  }
  return data({ result: submission.reply(), preview }, { status: submission.status === 'success' ? 200 : status })
}

/** Edits a silence through the data API (`until: null` = indefinitely). */
export async function updateSilence(args: ApiArgs, id: string, body: SilenceBody): Promise<void> {
  const patch = { ...body, from: body.from ?? new Date().toISOString() }
  requireData(await dbClient(args).from('notification_silences').update(patch).eq('id', id).is('deleted_at', null))
}

/** Ends a silence now: `until` set to the present (http-api §2.3.2). */
export async function endSilence(args: ApiArgs, id: string, now = new Date()): Promise<void> {
  requireData(await dbClient(args).from('notification_silences').update({ until: now.toISOString() }).eq('id', id).is('deleted_at', null))
}

/** The result of a silence preview: the recent sends it would have silenced, or the API's refusal. */
export type SilencePreview = { ok: true; rows: SendHistoryRow[] } | { ok: false; message: string }

/** `POST /notification/silence_preview`: a 400 is the refusal to show; other failures throw. */
export async function previewSilence(args: ApiArgs, target: Pick<SilenceBody, 'recursive' | 'filter' | 'config_id' | 'check_id' | 'component_id' | 'canary_id'>): Promise<SilencePreview> {
  const response = await apiFetch(args, '/notification/silence_preview', { method: 'POST', json: { ...target, limit: 50 } })
  if (response.status === 401) throw signInRedirect(args.request)
  const text = await response.text()
  let body: unknown = text
  try {
    body = text ? JSON.parse(text) : null
  } catch {
    // A plain-text answer is shown as it is.
  }
  if (response.ok) return { ok: true, rows: Array.isArray(body) ? (body as SendHistoryRow[]) : [] }
  if (response.status === 400) return { ok: false, message: messageOf(body, 'The preview was refused.') }
  throw new GatewayError(response.status, messageOf(body, `Request failed with status ${response.status}`), 'http', body)
}

// ---- Resources a silence may name --------------------------------------------------------------

export type SilenceResourceOption = { value: string; label: string; kind: NotificationResourceKind }

const PICKER_LIMIT = 50

const PICKER_SOURCES: { kind: NotificationResourceKind; table: 'configs' | 'checks' | 'components' | 'canaries'; columns: string; label: (row: Record<string, string | null>) => string }[] = [
  { kind: 'config', table: 'configs', columns: 'id,name,type', label: (row) => `${row.name ?? row.id} (${row.type ?? 'config'})` },
  { kind: 'check', table: 'checks', columns: 'id,name,type', label: (row) => `${row.name ?? row.id} (${row.type ?? 'check'})` },
  { kind: 'component', table: 'components', columns: 'id,name,type', label: (row) => `${row.name ?? row.id} (${row.type ?? 'component'})` },
  { kind: 'canary', table: 'canaries', columns: 'id,name,namespace', label: (row) => `${row.namespace ? `${row.namespace}/` : ''}${row.name ?? row.id}` },
]

/**
 * The silence form's resource choices: up to 50 live configs, checks, components and canaries
 * each whose name contains `search`, by name; `selected` (a `kind:id` value) is always among them.
 */
export async function searchSilenceResources(args: ApiArgs, search: string, selected: string | null): Promise<SilenceResourceOption[]> {
  const db = dbClient(args)
  const [selectedKind, selectedId] = selected?.split(':') ?? []
  const groups = await Promise.all(
    PICKER_SOURCES.map(async (source) => {
      let query = db.from(source.table).select(source.columns).is('deleted_at', null)
      if (search) query = query.ilike('name', `*${search}*`)
      const rows = requireData(await query.order('name').limit(PICKER_LIMIT).returns<Record<string, string | null>[]>()) ?? []
      if (selectedKind === source.kind && selectedId && isUuid(selectedId) && !rows.some((row) => row.id === selectedId)) {
        const picked = requireData(await db.from(source.table).select(source.columns).eq('id', selectedId).returns<Record<string, string | null>[]>()) ?? []
        rows.unshift(...picked)
      }
      return rows.map((row) => ({ value: `${source.kind}:${row.id}`, label: source.label(row), kind: source.kind }))
    }),
  )
  return groups.flat()
}

/** Names of the resources silences name, by `kind:id`. */
export async function silenceResourceLabels(args: ApiArgs, silences: SilenceRow[]): Promise<Record<string, string>> {
  const db = dbClient(args)
  const labels: Record<string, string> = {}
  await Promise.all(
    PICKER_SOURCES.map(async (source) => {
      const ids = [...new Set(silences.map((silence) => silence[`${source.kind}_id`]).filter((id): id is string => Boolean(id)))]
      if (ids.length === 0) return
      const rows = requireData(await db.from(source.table).select(source.columns).in('id', ids).returns<Record<string, string | null>[]>()) ?? []
      for (const row of rows) labels[`${source.kind}:${row.id}`] = source.label(row)
    }),
  )
  return labels
}

/** A silence's resource as the select's value. */
export function silenceResourceValue(silence: Pick<SilenceRow, 'config_id' | 'check_id' | 'component_id' | 'canary_id'>): string | null {
  for (const kind of RESOURCE_KINDS) {
    const id = silence[`${kind}_id`]
    if (id) return `${kind}:${id}`
  }
  return null
}

/** Rule names by id (enabled or not), for the send history. */
export async function ruleNames(args: ApiArgs, ids: string[]): Promise<Record<string, string>> {
  const unique = [...new Set(ids.filter(isUuid))]
  if (unique.length === 0) return {}
  const rows = requireData(await dbClient(args).from('notifications').select('id,name,namespace').in('id', unique).returns<{ id: string; name: string; namespace: string | null }[]>()) ?? []
  return Object.fromEntries(rows.map((row) => [row.id, row.namespace ? `${row.namespace}/${row.name}` : row.name]))
}
