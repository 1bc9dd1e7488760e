import { type Environment } from '@marcbachmann/cel-js'
import type { EnvVar } from '#contract/canary/canary-spec.schema.ts'
import { isUuid } from '#contract/uuid.ts'
import type { Db, Queryable } from '#server/db/client.ts'
import { EVERY_CONFIG } from '#server/backend/catalog/config-access.ts'
import { resourceSearch, SelectorSchema } from '#server/backend/catalog/resource-search.ts'
import { ExpressionError } from '#server/backend/health/expressions.ts'
import { createCelEnvironment } from '#server/backend/health/cel-library.ts'
import { renderGoTemplate, TemplateError } from '#server/backend/health/go-template.ts'
import { envValue } from '#server/backend/health/checks/check-inputs.ts'
import type { PlaybookParameterSpec, PlaybookRunActionRow, PlaybookRunRow, PlaybookSpec, PlaybookTemplateEnv } from './playbook-model.ts'
import { openSecret } from '#server/backend/secrets/sealed-secrets.ts'

/**
 * The template environment of resource-specs §2.6: what Go templates (`{{ }}` and `$( )`) and
 * CEL see while a run's actions, parameter defaults and conditions are evaluated. Built from the
 * database for each action (the run's earlier actions change between them), with secret
 * parameters decrypted here only; `secrets` lists their plain values so outputs can be redacted.
 */

export class PlaybookTemplateError extends Error {}

type ActionView = PlaybookTemplateEnv['actions'][number]

// ---- loading --------------------------------------------------------------------------------

/** A row as a plain JSON object (timestamps as ISO text, jsonb as objects), generated search columns left out. */
async function rowObject(db: Queryable, table: 'config_items' | 'components' | 'checks', id: string | null): Promise<Record<string, unknown> | undefined> {
  if (!id) return undefined
  const { rows } = await db.query<{ row: Record<string, unknown> }>(
    `SELECT to_jsonb(t) - 'tags_values' - 'properties_values' - 'is_pushed' AS row FROM ${table} t WHERE id = $1::uuid`,
    [id],
  )
  return rows[0]?.row
}

async function rowsById(db: Queryable, table: 'config_items', ids: string[]): Promise<Record<string, unknown>[]> {
  if (ids.length === 0) return []
  const { rows } = await db.query<{ row: Record<string, unknown> }>(
    `SELECT to_jsonb(t) - 'tags_values' - 'properties_values' - 'is_pushed' AS row FROM ${table} t
     WHERE id = ANY($1::uuid[]) ORDER BY name NULLS LAST, id`,
    [ids],
  )
  return rows.map((row) => row.row)
}

/**
 * A `configs` parameter: a JSON selector (or list of them) of resource-specs §0.4, or ids. Any
 * config the selector names is listed: the person who started the run was checked when it was
 * created, and the runner acts for the playbook, not for a reader.
 */
async function configsParameter(db: Queryable, value: string, name: string): Promise<Record<string, unknown>[]> {
  const text = value.trim()
  if (text === '') return []
  if (isUuid(text)) return rowsById(db, 'config_items', [text])
  let parsed: unknown
  try {
    parsed = JSON.parse(text)
  } catch {
    throw new PlaybookTemplateError(`parameter ${name}: a configs parameter is a JSON selector or a list of ids (${value.trim().slice(0, 80)})`)
  }
  const list = Array.isArray(parsed) ? parsed : [parsed]
  if (list.every((entry) => typeof entry === 'string')) return rowsById(db, 'config_items', (list as string[]).filter(isUuid))
  const selectors = list.map((entry, index) => {
    const result = SelectorSchema.safeParse(entry)
    if (!result.success) throw new PlaybookTemplateError(`parameter ${name}[${index}]: ${result.error.issues[0]?.path.join('.') || 'selector'}: ${result.error.issues[0]?.message}`)
    return result.data
  })
  // resourceSearch is typed for a pool but only reads through query(), which a transaction has too.
  const found = JSON.parse(await resourceSearch(db as Db, { configs: selectors, limit: 1000 }, EVERY_CONFIG, async () => true)) as {
    configs?: { id: string }[]
  }
  return rowsById(db, 'config_items', (found.configs ?? []).map((entry) => entry.id))
}

/**
 * Parameter values as templates see them: `check`, `config` and `component` as the full object
 * (the id itself when no such row exists, so nothing is lost), `configs` as a list of config
 * objects, `secret` decrypted, everything else the string given.
 */
async function parameterValues(db: Queryable, specs: PlaybookParameterSpec[], given: Record<string, string>): Promise<{ params: Record<string, unknown>; secrets: string[] }> {
  const params: Record<string, unknown> = {}
  const secrets: string[] = []
  const types = new Map(specs.map((spec) => [spec.name, spec.type ?? 'text']))
  for (const [name, value] of Object.entries(given)) {
    const type = types.get(name) ?? 'text'
    if (typeof value !== 'string') {
      params[name] = value
      continue
    }
    switch (type) {
      case 'secret': {
        const plain = await openSecret(db, value)
        params[name] = plain
        if (plain !== '') secrets.push(plain)
        break
      }
      case 'config':
      case 'component':
      case 'check': {
        const table = type === 'config' ? 'config_items' : type === 'component' ? 'components' : 'checks'
        params[name] = (isUuid(value.trim()) ? await rowObject(db, table, value.trim()) : undefined) ?? value
        break
      }
      case 'configs':
        params[name] = await configsParameter(db, value, name)
        break
      default:
        params[name] = value
    }
  }
  return { params, secrets }
}

async function actionsOf(db: Queryable, runId: string, exceptId?: string): Promise<ActionView[]> {
  const { rows } = await db.query<ActionView & { id: string }>(
    `SELECT id, name, status, result, error, start_time, end_time FROM playbook_run_actions
     WHERE playbook_run_id = $1 ORDER BY coalesce(start_time, scheduled_time), scheduled_time, id`,
    [runId],
  )
  return rows.filter((row) => row.id !== exceptId).map(({ id: _id, ...row }) => row)
}

async function personOf(db: Queryable, id: string | null): Promise<Record<string, unknown> | undefined> {
  if (!id) return undefined
  const { rows } = await db.query<Record<string, unknown>>('SELECT id, name, email, avatar, type FROM people WHERE id = $1::uuid', [id])
  return rows[0]
}

async function agentOf(db: Queryable, id: unknown): Promise<Record<string, unknown> | undefined> {
  if (typeof id !== 'string' || !isUuid(id)) return undefined
  const { rows } = await db.query<Record<string, unknown>>('SELECT id, name, hostname, description, version, properties FROM agents WHERE id = $1::uuid', [id])
  return rows[0]
}

async function playbookOf(db: Queryable, playbookId: string, snapshot: PlaybookSpec | null | undefined): Promise<Record<string, unknown>> {
  const { rows } = await db.query<Record<string, unknown>>(
    'SELECT id, name, namespace, title, description, category, icon, source, created_by, created_at, updated_at FROM playbooks WHERE id = $1::uuid',
    [playbookId],
  )
  const row = rows[0] ?? { id: playbookId }
  // A run's snapshot says what the playbook was when the run was created.
  const spec = snapshot ?? { actions: [] }
  return {
    ...row,
    title: spec.title ?? row.title ?? row.name,
    description: spec.description ?? row.description,
    category: spec.category ?? row.category,
    icon: spec.icon ?? row.icon,
    spec,
  }
}

function runView(run: PlaybookRunRow): Record<string, unknown> {
  return {
    id: run.id,
    playbook_id: run.playbook_id,
    status: run.status,
    created_at: run.created_at,
    scheduled_time: run.scheduled_time,
    start_time: run.start_time,
    end_time: run.end_time,
    timeout: run.timeout,
    created_by: run.created_by,
    config_id: run.config_id,
    component_id: run.component_id,
    check_id: run.check_id,
    parent_id: run.parent_id,
    request: run.request,
  }
}

function actionView(action: PlaybookRunActionRow | undefined): Record<string, unknown> | undefined {
  if (!action) return undefined
  return {
    id: action.id,
    name: action.name,
    playbook_run_id: action.playbook_run_id,
    status: action.status,
    scheduled_time: action.scheduled_time,
    start_time: action.start_time,
    retry_count: action.retry_count ?? 0,
  }
}

/**
 * `spec.env` (EnvVar list): each value Go-templated with what is known so far, exposed as
 * `env.<name>`. `valueFrom` sources have no store without Kubernetes and fail naming the entry.
 */
function specEnv(list: unknown, env: PlaybookTemplateEnv): Record<string, string> {
  const out: Record<string, string> = {}
  if (!Array.isArray(list)) return out
  list.forEach((entry: EnvVar, index) => {
    if (typeof entry !== 'object' || entry === null || !entry.name) throw new PlaybookTemplateError(`spec.env[${index}].name is required`)
    let value: string | undefined
    try {
      value = envValue(entry, `spec.env[${index}]`)
    } catch (error) {
      throw new PlaybookTemplateError((error as Error).message)
    }
    out[entry.name] = value === undefined ? '' : renderPlaybookTemplate(value, { ...env, env: { ...env.env, ...out } }, `spec.env[${index}] (${entry.name})`)
  })
  return out
}

/** What an environment is built around: a run, or (before one exists) the playbook and the chosen resource. */
export type TemplateTarget = {
  playbookId: string
  spec: PlaybookSpec | null | undefined
  configId?: string | null
  componentId?: string | null
  checkId?: string | null
  createdBy?: string | null
  parameters?: Record<string, string> | null
  request?: Record<string, unknown> | null
}

async function buildEnv(db: Queryable, target: TemplateTarget, run: Record<string, unknown>, actions: ActionView[], action?: PlaybookRunActionRow): Promise<PlaybookTemplateEnv> {
  const [config, component, check, user, playbook] = await Promise.all([
    rowObject(db, 'config_items', target.configId ?? null),
    rowObject(db, 'components', target.componentId ?? null),
    rowObject(db, 'checks', target.checkId ?? null),
    personOf(db, target.createdBy ?? null),
    playbookOf(db, target.playbookId, target.spec),
  ])
  const resource = config ?? component ?? check
  const agent = await agentOf(db, resource?.agent_id)
  const { params, secrets } = await parameterValues(db, target.spec?.parameters ?? [], target.parameters ?? {})
  return {
    ...(config ? { config } : {}),
    ...(component ? { component } : {}),
    ...(check ? { check } : {}),
    params,
    env: {},
    ...(user ? { user } : {}),
    ...(agent ? { agent } : {}),
    playbook,
    run,
    ...(action ? { action: actionView(action) } : {}),
    ...(target.request ? { request: target.request } : {}),
    actions,
    secrets,
  }
}

/** The environment of one action of `run` (or of the run itself, for `if`, `delay` and defaults). */
export async function loadTemplateEnv(db: Queryable, run: PlaybookRunRow, action?: PlaybookRunActionRow): Promise<PlaybookTemplateEnv> {
  const target: TemplateTarget = {
    playbookId: run.playbook_id,
    spec: run.spec,
    configId: run.config_id,
    componentId: run.component_id,
    checkId: run.check_id,
    createdBy: run.created_by,
    parameters: run.parameters,
    request: run.request,
  }
  const env = await buildEnv(db, target, runView(run), await actionsOf(db, run.id, action?.id), action)
  // Parameters the run does not carry (a run created by a trigger) take their templated default.
  const specs = run.spec?.parameters ?? []
  const missing = specs.filter((spec) => !(spec.name in env.params) && spec.default !== undefined && spec.type !== 'secret')
  if (missing.length > 0) Object.assign(env.params, templateParameterDefaults(missing, env))
  env.env = specEnv(run.spec?.env, env)
  return env
}

/**
 * The environment before a run exists (`POST /playbook/{id}/params`, run creation): the chosen
 * resource, the caller as `user`, the playbook and the parameters given so far; no run, no
 * actions, and `spec.env` left out (its values may read parameters not chosen yet). Pair it with
 * templateParameterDefaults.
 */
export async function loadParameterEnv(db: Queryable, target: TemplateTarget): Promise<PlaybookTemplateEnv> {
  return buildEnv(db, target, {}, [])
}

// ---- Go templates ---------------------------------------------------------------------------

function lastAction(env: PlaybookTemplateEnv): ActionView | null {
  return env.actions[env.actions.length - 1] ?? null
}

function namedAction(env: PlaybookTemplateEnv, name: unknown): ActionView | null {
  for (let index = env.actions.length - 1; index >= 0; index -= 1) {
    if (env.actions[index]!.name === name) return env.actions[index]!
  }
  return null
}

/** The variables templates see: the environment's keys, plus `last_result` (the legacy name of the latest action's result). */
function templateData(env: PlaybookTemplateEnv): Record<string, unknown> {
  const { actions: _actions, secrets: _secrets, ...visible } = env
  return { ...visible, last_result: lastAction(env)?.result ?? null }
}

function templateFunctions(env: PlaybookTemplateEnv): Record<string, (...args: unknown[]) => unknown> {
  return { getLastAction: () => lastAction(env), getAction: (name) => namedAction(env, name) }
}

const ENV_ROOTS = ['config', 'component', 'check', 'params', 'env', 'user', 'agent', 'playbook', 'run', 'action', 'request', 'git', 'last_result']
/**
 * Which `$( … )` are templates: a field (`$(.params.x)`, `$(params.x)`, `$(config.name)`) or a
 * call of getAction/getLastAction. Anything else — `$(date +%s)`, `$(kubectl get pods)` — is a
 * shell command substitution of the script and is left alone.
 */
const DOLLAR_TEMPLATE = new RegExp(`^(\\.[\\w.-]*|(?:${ENV_ROOTS.join('|')})(?:\\.[\\w-]+)+|(?:getLastAction|getAction)\\b[^()]*)$`)

/**
 * Renders `{{ }}` and `$( )` in `text` with the run's environment; `where` names the field in
 * errors. Text without either comes back as it is.
 */
export function renderPlaybookTemplate(text: string, env: PlaybookTemplateEnv, where = 'template'): string {
  if (!text.includes('{{') && !text.includes('$(')) return text
  const data = templateData(env)
  const functions = templateFunctions(env)
  try {
    let out = text
    if (out.includes('$(')) {
      out = out.replace(/\$\(([^()]*)\)/g, (whole, inner: string) => {
        const expression = inner.trim()
        if (!DOLLAR_TEMPLATE.test(expression)) return whole
        const pipe = /^[A-Za-z_][\w.-]*$/.test(expression) && !expression.startsWith('get') ? `.${expression}` : expression
        return renderGoTemplate(`{{${pipe}}}`, data, functions).replace(/^<no value>$/, '')
      })
    }
    if (out.includes('{{')) out = renderGoTemplate(out, data, functions)
    return out
  } catch (error) {
    throw new PlaybookTemplateError(`${where}: ${error instanceof TemplateError ? error.message : (error as Error).message}`)
  }
}

/**
 * Struct templating (resource-specs §0.6): every string inside `part` rendered, keys kept.
 * `skip` names top-level keys left as written (an http body without templateBody, CEL lists).
 */
export function renderActionFields<T>(part: T, env: PlaybookTemplateEnv, options: { skip?: string[]; where?: string } = {}): T {
  const skip = new Set(options.skip ?? [])
  const walk = (value: unknown, path: string, depth: number): unknown => {
    if (typeof value === 'string') return renderPlaybookTemplate(value, env, path)
    if (Array.isArray(value)) return value.map((item, index) => walk(item, `${path}[${index}]`, depth + 1))
    if (value && typeof value === 'object' && !(value instanceof Date)) {
      return Object.fromEntries(
        Object.entries(value).map(([key, item]) => [key, depth === 0 && skip.has(key) ? item : walk(item, path ? `${path}.${key}` : key, depth + 1)]),
      )
    }
    return value
  }
  return walk(part, options.where ?? '', 0) as T
}

/**
 * Parameter defaults (resource-specs §2.2) rendered against the run's environment, in order, so
 * a default may read the parameters before it (`dependsOn`). Parameters without one are left out.
 */
export function templateParameterDefaults(params: PlaybookParameterSpec[], env: PlaybookTemplateEnv): Record<string, string> {
  const out: Record<string, string> = {}
  const values = { ...env.params }
  for (const param of params) {
    if (param.default === undefined || param.default === null) continue
    const rendered = renderPlaybookTemplate(String(param.default), { ...env, params: values }, `parameter ${param.name} default`)
    out[param.name] = rendered
    values[param.name] = rendered
  }
  return out
}

// ---- CEL ------------------------------------------------------------------------------------

/**
 * CEL functions read the call being evaluated from here. Evaluation is synchronous, so one slot
 * per process is enough and one environment serves every run (building one per call costs more
 * than the evaluation).
 */
let current: { env: PlaybookTemplateEnv; functions: Record<string, () => unknown> } | null = null

/** The conditions the runner passes for `if` (resource-specs §2.5). */
const CONDITION_FUNCTIONS = ['success', 'failure', 'always', 'skip', 'timeout'] as const

function condition(name: string): () => unknown {
  return () => {
    const fn = current?.functions[name]
    if (!fn) throw new ExpressionError(`${name}() is only available in an action's if`)
    return fn()
  }
}

function celJson(value: unknown): unknown {
  if (value instanceof Date) return value.toISOString()
  if (typeof value === 'bigint') return Number(value)
  if (Array.isArray(value)) return value.map(celJson)
  if (value && typeof value === 'object') return Object.fromEntries(Object.entries(value).map(([key, item]) => [key, celJson(item)]))
  return value
}

function buildEnvironment(extra: string[]): Environment {
  let environment = createCelEnvironment()
    .registerFunction('getLastAction(): dyn', () => celJson(current ? lastAction(current.env) : null))
    .registerFunction('getAction(string): dyn', (name: string) => celJson(current ? namedAction(current.env, name) : null))
  for (const name of [...CONDITION_FUNCTIONS, ...extra]) environment = environment.registerFunction(`${name}(): dyn`, condition(name))
  return environment
}

const environments = new Map<string, Environment>()

function environmentFor(functions: Record<string, () => unknown>): Environment {
  const extra = Object.keys(functions).filter((name) => !(CONDITION_FUNCTIONS as readonly string[]).includes(name) && /^[A-Za-z_]\w*$/.test(name)).sort()
  const key = extra.join(',')
  let environment = environments.get(key)
  if (!environment) {
    environment = buildEnvironment(extra)
    if (environments.size < 50) environments.set(key, environment)
  }
  return environment
}

function fromCel(value: unknown): unknown {
  if (typeof value === 'bigint') return Number(value)
  if (Array.isArray(value)) return value.map(fromCel)
  if (value instanceof Map) return Object.fromEntries([...value.entries()].map(([key, item]) => [String(key), fromCel(item)]))
  if (value && typeof value === 'object' && !(value instanceof Date) && !(value instanceof Uint8Array)) {
    return Object.fromEntries(Object.entries(value).map(([key, item]) => [key, fromCel(item)]))
  }
  return value
}

/**
 * CEL over the environment (`if`, `delay`, `filters`): the variables of §2.6, the shared CEL
 * library (cel-library.ts), getLastAction(), getAction("name") and the functions the caller passes (the runner's success(), failure(), …).
 */
export function evaluatePlaybookCel(expression: string, env: PlaybookTemplateEnv, functions: Record<string, () => unknown> = {}): unknown {
  const data = celJson(templateData(env)) as Record<string, unknown>
  for (const root of ['config', 'component', 'check', 'user', 'agent', 'action', 'request']) data[root] ??= null
  const previous = current
  current = { env, functions }
  try {
    return fromCel(environmentFor(functions).evaluate(expression, data))
  } catch (error) {
    if (error instanceof ExpressionError) throw error
    throw new ExpressionError(`${(error as Error).message.split('\n')[0]}`)
  } finally {
    current = previous
  }
}
