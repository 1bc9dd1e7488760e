import { z } from 'zod'
import type { PlaybookParameterSpec } from '#contract/playbook/playbook-vocabulary.ts'
import { isUuid } from '#contract/uuid.ts'
import { dbClient, requireData, requirePage } from './data-client.server.ts'
import { apiJson, GatewayError, type ApiArgs } from './gateway.server.ts'
import { consoleLog } from './log.server.ts'

/**
 * The playbooks domain for the console (issue 16 screens): the catalogue and the runs through
 * the data API (http-api §2.5.6), running, approving and cancelling through `/playbook/…`
 * (§2.5.1–2.5.5). Routes call these; they build no query strings.
 */

/** Which resource a run is against (at most one, http-api §2.5.1). */
export type RunTarget = { config_id?: string; component_id?: string; check_id?: string }
export type TargetKind = keyof RunTarget
export const TARGET_KINDS: readonly TargetKind[] = ['config_id', 'component_id', 'check_id']

export type PlaybookSummary = {
  id: string
  name: string
  namespace: string
  title: string
  icon: string | null
  description: string | null
  category: string
  source: string
  spec: {
    parameters?: PlaybookParameterSpec[]
    configs?: Record<string, unknown>[]
    components?: Record<string, unknown>[]
    checks?: Record<string, unknown>[]
    approval?: { type?: string; approvers?: { people?: string[]; teams?: string[] } }
    actions?: Record<string, unknown>[]
  } | null
}

const PLAYBOOK_COLUMNS = 'id,name,namespace,title,icon,description,category,source,spec'

/** Every playbook not deleted, ordered by category then title; `search` matches title, name, description or category. */
export async function listPlaybooks(args: ApiArgs, search = ''): Promise<PlaybookSummary[]> {
  const rows =
    requireData(
      await dbClient(args)
        .from('playbooks')
        .select(PLAYBOOK_COLUMNS)
        .is('deleted_at', null)
        .order('category', { ascending: true })
        .order('title', { ascending: true })
        .limit(1000)
        .returns<PlaybookSummary[]>(),
    ) ?? []
  const needle = search.trim().toLowerCase()
  if (!needle) return rows
  // Filtered here, not in an `or=` expression: free text never becomes PostgREST syntax.
  return rows.filter((row) => [row.title, row.name, row.description, row.category].some((text) => text?.toLowerCase().includes(needle)))
}

export async function getPlaybook(args: ApiArgs, id: string): Promise<PlaybookSummary | null> {
  if (!isUuid(id)) return null
  const rows = requireData(await dbClient(args).from('playbooks').select(PLAYBOOK_COLUMNS).eq('id', id).is('deleted_at', null).limit(1).returns<PlaybookSummary[]>())
  return rows?.[0] ?? null
}

export type RunnablePlaybook = { id: string; name: string; title: string; icon: string | null; category: string }

/**
 * The playbooks that may run on one resource (`GET /playbook/list?config_id=…`, http-api §2.5.2),
 * or null while the API cannot answer: the pages around the drop-down still render.
 */
export async function listPlaybooksFor(args: ApiArgs, target: RunTarget): Promise<RunnablePlaybook[] | null> {
  const query = new URLSearchParams(Object.entries(target).filter((entry): entry is [string, string] => typeof entry[1] === 'string'))
  try {
    const { data } = await apiJson<unknown>(args, `/playbook/list?${query.toString()}`)
    if (!Array.isArray(data)) return null
    return data.flatMap((row) => {
      const parsed = RunnableSchema.safeParse(row)
      return parsed.success ? [parsed.data] : []
    })
  } catch (error) {
    if (!(error instanceof GatewayError)) throw error
    consoleLog.debug({ status: error.status }, 'playbook list unavailable for a resource')
    return null
  }
}

const RunnableSchema = z.object({
  id: z.string(),
  name: z.string(),
  title: z.string().nullish().transform((value) => value ?? ''),
  icon: z.string().nullish().transform((value) => value ?? null),
  category: z.string().nullish().transform((value) => value ?? ''),
})

const ParameterSchema = z
  .object({
    name: z.string(),
    label: z.string().nullish(),
    description: z.string().nullish(),
    icon: z.string().nullish(),
    type: z.string().nullish(),
    default: z.unknown().optional(),
    required: z.boolean().nullish(),
    dependsOn: z.array(z.string()).nullish(),
    properties: z.record(z.unknown()).nullish(),
  })
  .passthrough()

/**
 * The parameters of a playbook with their defaults templated against the chosen resource
 * (`POST /playbook/{id}/params`, http-api §2.5.3).
 */
export async function getPlaybookParams(args: ApiArgs, id: string, target: RunTarget): Promise<PlaybookParameterSpec[]> {
  const { data } = await apiJson<unknown>(args, `/playbook/${encodeURIComponent(id)}/params`, { method: 'POST', json: { id, ...target } })
  const params = z.object({ params: z.array(ParameterSchema).nullish() }).parse(data).params ?? []
  return params.map((param) => ({
    name: param.name,
    ...(param.label ? { label: param.label } : {}),
    ...(param.description ? { description: param.description } : {}),
    ...(param.icon ? { icon: param.icon } : {}),
    type: (param.type || 'text') as PlaybookParameterSpec['type'],
    ...(param.default !== undefined && param.default !== null ? { default: String(param.default) } : {}),
    ...(param.required ? { required: true } : {}),
    ...(param.dependsOn ? { dependsOn: param.dependsOn } : {}),
    ...(param.properties ? { properties: param.properties } : {}),
  }))
}

/** Starts a run (`POST /playbook/run`); the answer's run id is where the page goes next. */
export async function runPlaybook(args: ApiArgs, input: { id: string; params: Record<string, string> } & RunTarget): Promise<{ run_id: string; starts_at?: string }> {
  const { data } = await apiJson<unknown>(args, '/playbook/run', { method: 'POST', json: input })
  return z.object({ run_id: z.string(), starts_at: z.string().optional() }).parse(data)
}

export async function approveRun(args: ApiArgs, runId: string): Promise<string> {
  const { data } = await apiJson<unknown>(args, `/playbook/run/approve/${encodeURIComponent(runId)}`, { method: 'POST' })
  return messageFrom(data, 'playbook run approved')
}

export async function cancelRun(args: ApiArgs, runId: string): Promise<string> {
  const { data } = await apiJson<unknown>(args, `/playbook/run/cancel/${encodeURIComponent(runId)}`, { method: 'POST' })
  return messageFrom(data, 'playbook run cancelled')
}

function messageFrom(data: unknown, fallback: string): string {
  const parsed = z.object({ message: z.string() }).safeParse(data)
  return parsed.success ? parsed.data.message : fallback
}

// ---- resources a run can target, and the options of people/team/component/config/check parameters ----

export type ResourceOption = { id: string; name: string; type: string | null }

/** The resource selector entries of a playbook that name types (`configs: [{types: [...]}]`). */
function selectorTypes(selectors: Record<string, unknown>[] | undefined): string[] | null {
  if (!selectors?.length) return null
  const types = selectors.flatMap((selector) => (Array.isArray(selector.types) ? selector.types.filter((type): type is string => typeof type === 'string') : []))
  // One selector without types matches any type.
  return selectors.every((selector) => Array.isArray(selector.types) && selector.types.length) ? [...new Set(types)] : []
}

export type ResourceChoices = Partial<Record<TargetKind, ResourceOption[]>>

/**
 * For the Run Playbook picker: for each kind of resource the playbook selects (`configs`,
 * `components`, `checks`), the resources of the selected types. Tag, label and CEL parts of a
 * selector are left to the API, which refuses a resource the playbook does not match.
 */
export async function listTargetChoices(args: ApiArgs, playbook: PlaybookSummary): Promise<ResourceChoices> {
  const spec = playbook.spec ?? {}
  const db = dbClient(args)
  const choices: ResourceChoices = {}
  const configTypes = selectorTypes(spec.configs)
  const componentTypes = selectorTypes(spec.components)
  const checkTypes = selectorTypes(spec.checks)
  await Promise.all([
    configTypes &&
      (async () => {
        let query = db.from('config_items').select('id,name,type').is('deleted_at', null)
        if (configTypes.length) query = query.in('type', configTypes)
        choices.config_id = requireData(await query.order('name').limit(500).returns<ResourceOption[]>()) ?? []
      })(),
    componentTypes &&
      (async () => {
        let query = db.from('components').select('id,name,type').is('deleted_at', null)
        if (componentTypes.length) query = query.in('type', componentTypes)
        choices.component_id = requireData(await query.order('name').limit(500).returns<ResourceOption[]>()) ?? []
      })(),
    checkTypes &&
      (async () => {
        let query = db.from('checks').select('id,name,type').is('deleted_at', null)
        if (checkTypes.length) query = query.in('type', checkTypes)
        choices.check_id = requireData(await query.order('name').limit(500).returns<ResourceOption[]>()) ?? []
      })(),
  ])
  return choices
}

/** A resource's display name, for the form's heading. */
export async function getTargetName(args: ApiArgs, kind: TargetKind, id: string): Promise<ResourceOption | null> {
  if (!isUuid(id)) return null
  const table = kind === 'config_id' ? 'config_items' : kind === 'component_id' ? 'components' : 'checks'
  const rows = requireData(await dbClient(args).from(table).select('id,name,type').eq('id', id).limit(1).returns<ResourceOption[]>())
  return rows?.[0] ?? null
}

/** Options for the parameter types that pick a thing: people, team, component, config(s), check. */
export type ParameterOptions = Partial<Record<'people' | 'team' | 'component' | 'config' | 'check', ResourceOption[]>>

export async function listParameterOptions(args: ApiArgs, parameters: PlaybookParameterSpec[]): Promise<ParameterOptions> {
  const wanted = new Set<string | undefined>(parameters.map((param) => param.type))
  const db = dbClient(args)
  const options: ParameterOptions = {}
  const load = async (key: keyof ParameterOptions, read: () => PromiseLike<{ data: unknown; error: unknown }>) => {
    if (!wanted.has(key)) return
    options[key] = (requireData((await read()) as never) as ResourceOption[] | null) ?? []
  }
  await Promise.all([
    load('people', () => db.from('people').select('id,name,type:email').is('deleted_at', null).order('name').limit(500)),
    load('team', () => db.from('teams').select('id,name,type:icon').is('deleted_at', null).order('name').limit(500)),
    load('component', () => db.from('components').select('id,name,type').is('deleted_at', null).order('name').limit(500)),
    load('config', () => db.from('config_items').select('id,name,type').is('deleted_at', null).order('name').limit(500)),
    load('check', () => db.from('checks').select('id,name,type').is('deleted_at', null).order('name').limit(500)),
  ])
  return options
}

// ---- runs ------------------------------------------------------------------------------------

export type RunListRow = {
  id: string
  status: string
  created_at: string
  start_time: string | null
  end_time: string | null
  scheduled_time: string | null
  error: string | null
  created_by: { id: string; name: string; avatar: string | null } | null
  playbooks: { id: string; name: string; title: string; icon: string | null } | null
  component: { id: string; name: string; icon: string | null } | null
  check: { id: string; name: string; icon: string | null } | null
  config: { id: string; name: string; type: string | null; config_class: string | null } | null
}

export type RunFilters = {
  playbook: string | null
  status: string | null
  resource: string | null
  since: Date | null
  page: number
  pageSize: number
}

const RUN_LIST_SELECT =
  'id,status,created_at,start_time,end_time,scheduled_time,error,created_by(id,name,avatar),playbooks(id,name,title,icon),component:components(id,name,icon),check:checks(id,name,icon),config:config_items(id,name,type,config_class)'

/** One page of top-level runs, newest first, with the total (`Prefer: count=exact`, http-api §2.5.6). */
export async function listRuns(args: ApiArgs, filters: RunFilters): Promise<{ rows: RunListRow[]; total: number }> {
  let query = dbClient(args).from('playbook_runs').select(RUN_LIST_SELECT, { count: 'exact' }).is('parent_id', null)
  if (filters.playbook && isUuid(filters.playbook)) query = query.eq('playbook_id', filters.playbook)
  if (filters.status) query = query.eq('status', filters.status)
  // Only a UUID reaches the expression: it cannot carry PostgREST syntax.
  if (filters.resource && isUuid(filters.resource)) query = query.or(`config_id.eq.${filters.resource},component_id.eq.${filters.resource},check_id.eq.${filters.resource}`)
  if (filters.since) query = query.gte('created_at', filters.since.toISOString())
  const from = (filters.page - 1) * filters.pageSize
  return requirePage(await query.order('created_at', { ascending: false }).range(from, from + filters.pageSize - 1).returns<RunListRow[]>())
}

export type RunResourceOption = { id: string; name: string; kind: 'config' | 'component' | 'check' }

/** The resources recent runs were against, for the runs page's resource filter. */
export async function listRunResources(args: ApiArgs): Promise<RunResourceOption[]> {
  const rows =
    requireData(
      await dbClient(args)
        .from('playbook_runs')
        .select('component:components(id,name),check:checks(id,name),config:config_items(id,name)')
        .is('parent_id', null)
        .order('created_at', { ascending: false })
        .limit(1000)
        .returns<Pick<RunListRow, 'component' | 'check' | 'config'>[]>(),
    ) ?? []
  const seen = new Map<string, RunResourceOption>()
  for (const row of rows) {
    for (const kind of ['config', 'component', 'check'] as const) {
      const resource = row[kind]
      if (resource && !seen.has(resource.id)) seen.set(resource.id, { id: resource.id, name: resource.name, kind })
    }
  }
  return [...seen.values()].sort((a, b) => a.name.localeCompare(b.name))
}

export type RunApproval = {
  id: string
  created_at: string
  person_id: { id: string; name: string; email: string | null } | null
  team_id: { id: string; name: string } | null
}

export type RunDetailRow = Omit<RunListRow, 'playbooks'> & {
  playbooks: (NonNullable<RunListRow['playbooks']> & { spec: PlaybookSummary['spec'] }) | null
  playbook_id: string
  parent_id: string | null
  parameters: Record<string, unknown> | null
  /** The playbook spec as it was when the run was created. */
  spec: PlaybookSummary['spec']
  request: Record<string, unknown> | null
  timeout: number | null
  playbook_approvals: RunApproval[] | null
}

export type RunArtifact = { id: string; filename: string; path: string; content_type: string | null; size: number; created_at: string }

export type RunAction = {
  id: string
  name: string
  playbook_run_id: string
  status: string
  scheduled_time: string | null
  start_time: string | null
  end_time: string | null
  result: unknown
  error: string | null
  retry_count: number | null
  artifacts: RunArtifact[] | null
}

const ACTION_COLUMNS = 'id,name,playbook_run_id,status,scheduled_time,start_time,end_time,result,error,retry_count'
const ARTIFACT_COLUMNS = 'id,filename,path,content_type,size,created_at'

/** Actions in the order they ran: started ones by start, then the rest by when they are due. */
function byRunOrder(a: Pick<RunAction, 'start_time' | 'scheduled_time' | 'id'>, b: Pick<RunAction, 'start_time' | 'scheduled_time' | 'id'>): number {
  if (a.start_time && b.start_time) return a.start_time.localeCompare(b.start_time) || a.id.localeCompare(b.id)
  if (a.start_time || b.start_time) return a.start_time ? -1 : 1
  return (a.scheduled_time ?? '').localeCompare(b.scheduled_time ?? '') || a.id.localeCompare(b.id)
}

/**
 * A run with its child runs, approvals and every action of both, each action with its
 * artifacts (http-api §2.5.6). Actions are embedded in the runs read rather than read through
 * `rpc/get_playbook_run_actions`, whose rows carry neither the action's error nor artifacts
 * without their stored content.
 */
export async function getRun(args: ApiArgs, id: string): Promise<{ run: RunDetailRow; children: RunDetailRow[]; actions: RunAction[] } | null> {
  if (!isUuid(id)) return null
  const rows =
    requireData(
      await dbClient(args)
        .from('playbook_runs')
        .select(
          `${RUN_LIST_SELECT.replace('playbooks(id,name,title,icon)', 'playbooks(id,name,title,icon,spec)')},playbook_id,parent_id,parameters,spec,request,timeout,playbook_approvals(id,created_at,person_id(id,name,email),team_id(id,name)),actions:playbook_run_actions(${ACTION_COLUMNS},artifacts(${ARTIFACT_COLUMNS}))`,
        )
        .or(`id.eq.${id},parent_id.eq.${id}`)
        .order('created_at', { ascending: true })
        .returns<(RunDetailRow & { actions: RunAction[] | null })[]>(),
    ) ?? []
  const run = rows.find((row) => row.id === id)
  if (!run) return null
  const actions = rows.flatMap((row) => row.actions ?? []).sort(byRunOrder)
  const strip = ({ actions: _actions, ...row }: RunDetailRow & { actions: RunAction[] | null }): RunDetailRow => row
  return { run: strip(run), children: rows.filter((row) => row.id !== id).map(strip), actions }
}

/**
 * What changes while a run progresses: its status and every action's status, retry count and end.
 * The events route compares these between polls and tells the page to reload when they differ.
 */
export async function getRunProgress(args: ApiArgs, id: string): Promise<string | null> {
  if (!isUuid(id)) return null
  type ProgressRow = { id: string; status: string; end_time: string | null; actions: { id: string; status: string; retry_count: number | null; end_time: string | null }[] | null }
  const rows =
    requireData(
      await dbClient(args)
        .from('playbook_runs')
        .select('id,status,end_time,actions:playbook_run_actions(id,status,retry_count,end_time)')
        .or(`id.eq.${id},parent_id.eq.${id}`)
        .order('id')
        .returns<ProgressRow[]>(),
    ) ?? []
  if (!rows.some((row) => row.id === id)) return null
  return JSON.stringify(rows.map((row) => ({ ...row, actions: [...(row.actions ?? [])].sort((a, b) => a.id.localeCompare(b.id)) })))
}

export type ArtifactContent = { filename: string; contentType: string; body: Uint8Array<ArrayBuffer> }

/** An artifact of an action of this run (or of one of its child runs), with its stored content. */
export async function getRunArtifact(args: ApiArgs, runId: string, artifactId: string): Promise<ArtifactContent | null> {
  if (!isUuid(runId) || !isUuid(artifactId)) return null
  const rows =
    requireData(
      await dbClient(args)
        .from('artifacts')
        .select('id,filename,content_type,content,compression_type,action:playbook_run_actions!inner(id,run:playbook_runs!inner(id,parent_id))')
        .eq('id', artifactId)
        .is('deleted_at', null)
        .limit(1)
        .returns<{ id: string; filename: string; content_type: string | null; content: unknown; action: { run: { id: string; parent_id: string | null } | null } | null }[]>(),
    ) ?? []
  const row = rows[0]
  const run = row?.action?.run
  if (!row || !run || (run.id !== runId && run.parent_id !== runId)) return null
  const body = decodeBytea(row.content)
  if (!body) return null
  return { filename: row.filename, contentType: row.content_type || 'application/octet-stream', body }
}

/** bytea as the data API sends it: PostgreSQL's `\x…` hex text, or a serialised Buffer. */
function decodeBytea(content: unknown): Uint8Array<ArrayBuffer> | null {
  if (typeof content === 'string') {
    if (content.startsWith('\\x')) return Uint8Array.from(Buffer.from(content.slice(2), 'hex'))
    return Uint8Array.from(Buffer.from(content, 'base64'))
  }
  if (content && typeof content === 'object' && 'data' in content && Array.isArray(content.data)) return Uint8Array.from(content.data as number[])
  return null
}

export type RunApprovalSpec = { type?: string; approvers?: { people?: string[]; teams?: string[] } } | null | undefined

/**
 * Whether this person is one of the run's approvers (http-api §2.5.4): their email in `people`
 * (case-insensitive), or a member of a team named in `teams`, as the API decides when the
 * approval is posted; this only chooses whether to offer the button.
 */
export async function isRunApprover(args: ApiArgs, user: { id: string; email?: string }, approval: RunApprovalSpec): Promise<boolean> {
  const people = (approval?.approvers?.people ?? []).map((email) => email.toLowerCase())
  const teams = approval?.approvers?.teams ?? []
  if (user.email && people.includes(user.email.toLowerCase())) return true
  if (!teams.length || !isUuid(user.id)) return false
  const rows =
    requireData(
      await dbClient(args).from('team_members').select('team:teams(name,deleted_at)').eq('person_id', user.id).returns<{ team: { name: string; deleted_at: string | null } | null }[]>(),
    ) ?? []
  return rows.some((row) => row.team && !row.team.deleted_at && teams.includes(row.team.name))
}
