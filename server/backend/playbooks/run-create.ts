import { parseDurationMs } from '#contract/canary/duration.ts'
import { validateParameterValues } from '#contract/playbook/playbook-parameters.ts'
import type { RunStatus } from '#contract/playbook/playbook-vocabulary.ts'
import { isUuid } from '#contract/uuid.ts'
import type { Db, Queryable } from '#server/db/client.ts'
import { EVERY_CONFIG } from '#server/backend/catalog/config-access.ts'
import { resourceSearch, type SearchKind } from '#server/backend/catalog/resource-search.ts'
import { ExpressionError } from '#server/backend/health/expressions.ts'
import { SelectorError, toSearchSelector } from '#server/backend/topology/component-selectors.ts'
import {
  PlaybookError,
  type CreateRunInput,
  type CreatedRun,
  type PlaybookParameterSpec,
  type PlaybookRunRow,
  type PlaybookSpec,
  type PlaybookTemplateEnv,
  type RunCreator,
} from './playbook-model.ts'
import { evaluatePlaybookCel, loadTemplateEnv, PlaybookTemplateError, renderPlaybookTemplate, templateParameterDefaults } from './playbook-template.ts'
import { sealSecret } from '#server/backend/secrets/sealed-secrets.ts'
import { writeRunConfigChange } from './run-config-changes.ts'

/**
 * Run creation (http-api §2.5.1, resource-specs §2.7 "create"): every check the reference makes
 * before a run exists (the playbook, at most one target, the target matching the playbook's
 * selectors, parameter defaults templated then validated, `filters`), then one insert with the
 * spec snapshot and the PlaybookScheduled config change. The insert's trigger notifies the
 * runners (playbook_run_updates). On failure no run is created.
 */

const LOCAL_AGENT = '00000000-0000-0000-0000-000000000000'
/** The run id templates see while no run exists yet (the params form). */
const DRAFT_RUN_ID = '00000000-0000-0000-0000-000000000000'
const DEFAULT_TIMEOUT_MS = 30 * 60_000
const NS_PER_MS = 1_000_000

export type PlaybookRecord = { id: string; name: string; namespace: string; title: string; spec: PlaybookSpec }

export type RunTargetKind = 'config' | 'component' | 'check'
export type RunTarget = { kind: RunTargetKind; id: string }

const TARGET_TABLE: Record<RunTargetKind, 'config_items' | 'components' | 'checks'> = { config: 'config_items', component: 'components', check: 'checks' }
const TARGET_SELECTORS: Record<RunTargetKind, 'configs' | 'components' | 'checks'> = { config: 'configs', component: 'components', check: 'checks' }
const TARGET_SEARCH: Record<RunTargetKind, SearchKind> = { config: 'configs', component: 'components', check: 'checks' }

export type CreateRunOptions = {
  /**
   * Values rendered against the run's environment before validation (on.schedule `parameters`,
   * resource-specs §2.3); explicit `params` win over them.
   */
  paramTemplates?: Record<string, string>
  /**
   * false for event triggers: the trigger's own labels and filter chose the resource, so the
   * playbook's configs/checks/components selectors (which decide where it is offered) are not asked.
   */
  matchSelectors?: boolean
  now?: Date
}

/** The live playbook with this id; 404 `playbook '<id>' not found` otherwise. */
export async function loadPlaybook(db: Queryable, id: string | undefined, notFound = (value: string) => `playbook '${value}' not found`): Promise<PlaybookRecord> {
  if (!id) throw new PlaybookError(400, 'playbook id is required')
  if (!isUuid(id)) throw new PlaybookError(404, notFound(id))
  const { rows } = await db.query<PlaybookRecord>(
    'SELECT id, name, namespace, title, spec FROM playbooks WHERE id = $1 AND deleted_at IS NULL',
    [id],
  )
  if (!rows[0]) throw new PlaybookError(404, notFound(id))
  return rows[0]
}

/** The one target of a request (http-api §2.5.1): none, or exactly one of config, component, check. */
export function targetOf(input: { configId?: string; componentId?: string; checkId?: string }): RunTarget | null {
  const given = ([['config', input.configId], ['component', input.componentId], ['check', input.checkId]] as const).filter(([, id]) => id)
  if (given.length > 1) throw new PlaybookError(400, 'provide none or exactly one of config_id, component_id, or check_id')
  const [kind, id] = given[0] ?? []
  if (!kind || !id) return null
  return { kind, id }
}

/** 404 when the target does not exist (or is deleted); its id is a uuid afterwards. */
export async function assertTargetExists(db: Queryable, target: RunTarget): Promise<void> {
  const found = isUuid(target.id)
    ? (await db.query(`SELECT 1 FROM ${TARGET_TABLE[target.kind]} WHERE id = $1 AND deleted_at IS NULL`, [target.id])).rows.length > 0
    : false
  if (!found) throw new PlaybookError(404, `${target.kind} '${target.id}' not found`)
}

/**
 * Whether the playbook is offered for this resource: its selector list of the resource's kind is
 * not empty and every selector in it matches (resource-specs §2.1). A selector the search cannot
 * read matches nothing.
 */
export async function playbookMatchesTarget(db: Queryable, spec: PlaybookSpec, target: RunTarget): Promise<boolean> {
  const selectors = spec[TARGET_SELECTORS[target.kind]]
  if (!Array.isArray(selectors) || selectors.length === 0) return false
  for (const raw of selectors) {
    if (!raw || typeof raw !== 'object') return false
    if (typeof raw.id === 'string' && raw.id !== '' && raw.id !== target.id) return false
    let selector
    try {
      selector = { ...toSearchSelector(raw), id: target.id }
    } catch (error) {
      if (error instanceof SelectorError) return false
      throw error
    }
    const kind = TARGET_SEARCH[target.kind]
    // resourceSearch only queries; a transaction serves as well as the pool.
    const text = await resourceSearch(db as Db, { [kind]: [selector], limit: 1 }, EVERY_CONFIG, async () => true)
    const hits = (JSON.parse(text) as Partial<Record<SearchKind, unknown[]>>)[kind] ?? []
    if (hits.length === 0) return false
  }
  return true
}

function creatorId(creator: RunCreator): string | null {
  return creator.kind === 'person' ? creator.personId : null
}

/** A run row as it will be inserted, for the template environment before the row exists. */
function draftRun(id: string, playbook: PlaybookRecord, target: RunTarget | null, creator: RunCreator, parameters: Record<string, string>, input: CreateRunInput, now: Date): PlaybookRunRow {
  return {
    id,
    playbook_id: playbook.id,
    spec: playbook.spec,
    status: 'scheduled',
    created_at: now,
    scheduled_time: now,
    start_time: null,
    end_time: null,
    timeout: timeoutNs(playbook.spec),
    created_by: creatorId(creator),
    config_id: target?.kind === 'config' ? target.id : null,
    component_id: target?.kind === 'component' ? target.id : null,
    check_id: target?.kind === 'check' ? target.id : null,
    parameters,
    request: input.request ?? null,
    parent_id: input.parentId ?? null,
    error: null,
  }
}

function timeoutNs(spec: PlaybookSpec, defaultMs = DEFAULT_TIMEOUT_MS): number {
  const ms = typeof spec.timeout === 'string' && spec.timeout.trim() !== '' ? parseDurationMs(spec.timeout) : null
  return Math.round((ms ?? defaultMs) * NS_PER_MS)
}

/** The run timeout of a spec without one: property `playbook.run.timeout` (resource-specs §2.1), else 30m. */
async function defaultTimeoutMs(db: Queryable): Promise<number> {
  const { rows } = await db.query<{ value: string }>(`SELECT value FROM properties WHERE name = 'playbook.run.timeout' AND deleted_at IS NULL`)
  const ms = rows[0] ? parseDurationMs(rows[0].value) : null
  return ms && ms > 0 ? ms : DEFAULT_TIMEOUT_MS
}

function hasApprovers(spec: PlaybookSpec): boolean {
  const approvers = spec.approval?.approvers
  return (approvers?.people?.length ?? 0) + (approvers?.teams?.length ?? 0) > 0
}

/** Template and CEL failures are the caller's (or the playbook author's) 400, never a 500. */
async function templating<T>(work: () => Promise<T> | T): Promise<T> {
  try {
    return await work()
  } catch (error) {
    if (error instanceof PlaybookTemplateError || error instanceof ExpressionError) throw new PlaybookError(400, error.message)
    throw error
  }
}

/** The environment of a run that does not exist yet: the target, the creator, the playbook, no parameters. */
async function resourceEnv(db: Queryable, run: PlaybookRunRow): Promise<PlaybookTemplateEnv> {
  return templating(() => loadTemplateEnv(db, { ...run, spec: { ...run.spec, parameters: [] }, parameters: {} }))
}

/** What a trigger's CEL `filter` sees for a resource (resource-specs §2.3): the target row, the playbook, no parameters. */
export async function targetTemplateEnv(db: Queryable, playbook: PlaybookRecord, target: RunTarget): Promise<PlaybookTemplateEnv> {
  return resourceEnv(db, draftRun(DRAFT_RUN_ID, playbook, target, { kind: 'system', reason: 'event' }, {}, { playbookId: playbook.id }, new Date()))
}

/**
 * The playbook's parameters with their defaults rendered against the target and the creator
 * (POST /playbook/{id}/params, http-api §2.5.3). `given` values are visible to later defaults.
 */
export async function templatedParameterSpecs(
  db: Queryable,
  playbook: PlaybookRecord,
  target: RunTarget | null,
  creator: RunCreator,
  given: Record<string, string> = {},
): Promise<PlaybookParameterSpec[]> {
  const specs = playbook.spec.parameters ?? []
  const env = await resourceEnv(db, draftRun(DRAFT_RUN_ID, playbook, target, creator, {}, { playbookId: playbook.id }, new Date()))
  const defaults = await templating(() => templateParameterDefaults(specs, { ...env, params: { ...given } }))
  return specs.map((spec) => (spec.name in defaults ? { ...spec, default: defaults[spec.name] } : spec))
}

/**
 * Creates a run (resource-specs §2.7): checks, then the insert and the PlaybookScheduled change in
 * one transaction. `db` may be a transaction already (the event consumer's), whose commit then
 * decides.
 */
export async function createPlaybookRun(db: Db | Queryable, input: CreateRunInput, creator: RunCreator, options: CreateRunOptions = {}): Promise<CreatedRun> {
  const now = options.now ?? new Date()
  const target = targetOf(input)
  const playbook = await loadPlaybook(db, input.playbookId)
  const spec = playbook.spec
  if (target) {
    await assertTargetExists(db, target)
    if (options.matchSelectors !== false && !(await playbookMatchesTarget(db, spec, target))) {
      throw new PlaybookError(400, `playbook '${playbook.name}' cannot run on ${target.kind} '${target.id}': it does not match the playbook's ${TARGET_SELECTORS[target.kind]} selectors`)
    }
  }
  if (input.parentId !== undefined && !isUuid(input.parentId)) throw new PlaybookError(400, `parent_id '${input.parentId}' is not a uuid`)
  if (input.agentId !== undefined && !isUuid(input.agentId)) throw new PlaybookError(400, `agent_id '${input.agentId}' is not a uuid`)

  const { rows: idRows } = await db.query<{ id: string }>('SELECT generate_ulid() AS id')
  const runId = idRows[0]!.id
  const specs = spec.parameters ?? []
  const given: Record<string, string> = {}
  for (const [name, value] of Object.entries(input.params ?? {})) {
    if (value !== undefined && value !== null) given[name] = String(value)
  }

  // Defaults (and schedule parameters) rendered against the target and creator, then everything validated.
  const draft = draftRun(runId, playbook, target, creator, {}, input, now)
  const env = await resourceEnv(db, draft)
  const fromTemplates: Record<string, string> = {}
  for (const [name, text] of Object.entries(options.paramTemplates ?? {})) {
    if (given[name] === undefined || given[name] === '') fromTemplates[name] = await templating(() => renderPlaybookTemplate(String(text), env, `parameter ${name}`))
  }
  const supplied = { ...fromTemplates, ...Object.fromEntries(Object.entries(given).filter(([, value]) => value !== '')) }
  const missing = specs.filter((parameter) => supplied[parameter.name] === undefined && parameter.default !== undefined)
  const defaults = await templating(() => templateParameterDefaults(missing, { ...env, params: { ...supplied } }))
  const verdict = validateParameterValues(specs, { ...given, ...supplied, ...defaults })
  if (!verdict.ok) throw new PlaybookError(400, verdict.message)
  const parameters = verdict.values

  // Filters see the run as it will be, parameters included (resource-specs §2.1).
  if (spec.filters?.length) {
    const runEnv = await templating(() => loadTemplateEnv(db, { ...draft, parameters }))
    for (const filter of spec.filters) {
      const result = await templating(() => evaluatePlaybookCel(filter, runEnv))
      // The reference compares the rendered result with "true": a CEL string "true" passes too.
      if (result !== true && result !== 'true') throw new PlaybookError(400, typeof result === 'string' ? result : JSON.stringify(result ?? null))
    }
  }

  const stored: Record<string, string> = {}
  for (const [name, value] of Object.entries(parameters)) {
    const type = specs.find((parameter) => parameter.name === name)?.type
    stored[name] = type === 'secret' && value !== '' ? await sealSecret(db, value) : value
  }

  const timeout = spec.timeout ? draft.timeout : timeoutNs(spec, await defaultTimeoutMs(db))
  const status: RunStatus = hasApprovers(spec) ? 'pending_approval' : 'scheduled'
  const insert = async (tx: Queryable): Promise<CreatedRun> => {
    if (input.parentId) {
      const parent = await tx.query('SELECT 1 FROM playbook_runs WHERE id = $1', [input.parentId])
      if (parent.rows.length === 0) throw new PlaybookError(404, `playbook run (id=${input.parentId}) not found`)
    }
    const { rows } = await tx.query<{ scheduled_time: Date }>(
      `INSERT INTO playbook_runs (id, playbook_id, spec, status, scheduled_time, timeout, created_by, config_id, component_id, check_id,
         parameters, request, agent_id, parent_id, notification_send_id)
       VALUES ($1, $2, $3::jsonb, $4, $5, $6, $7, $8, $9, $10, $11::jsonb, $12::jsonb, coalesce($13::uuid, $14::uuid), $15, $16)
       RETURNING scheduled_time`,
      [
        runId,
        playbook.id,
        JSON.stringify(spec),
        status,
        now,
        timeout,
        draft.created_by,
        draft.config_id,
        draft.component_id,
        draft.check_id,
        JSON.stringify(stored),
        input.request ? JSON.stringify(input.request) : null,
        input.agentId ?? null,
        LOCAL_AGENT,
        input.parentId ?? null,
        input.notificationSendId ?? null,
      ],
    )
    await writeRunConfigChange(tx, { id: runId, playbook_id: playbook.id, config_id: draft.config_id, created_by: draft.created_by, status, error: null }, 'PlaybookScheduled')
    return { run_id: runId, starts_at: new Date(rows[0]!.scheduled_time).toISOString(), status }
  }
  return 'transaction' in db ? db.transaction(insert) : insert(db)
}
