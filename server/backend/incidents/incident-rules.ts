import { hostname } from 'node:os'
import type { Logger } from 'pino'
import { z } from 'zod'
import type { Db, Queryable } from '#server/db/client.ts'
import type { EventContext, EventHandlers, EventOutcome, QueuedEvent } from '#server/backend/events/event-consumer.ts'
import { parseDurationMs } from '#contract/canary/duration.ts'
import { renderGoTemplate } from '#server/backend/health/go-template.ts'
import { parseYaml } from '#contract/yaml-input.ts'
import { FINISHED_INCIDENT_STATUSES, INCIDENT_SEVERITIES, INCIDENT_STATUSES, INCIDENT_TYPES, type IncidentSeverity } from '#contract/incident-vocabulary.ts'
import {
  RuleSelectorSchema,
  SelectorSyntaxError,
  checkSelectorSyntax,
  patternListMatches,
  selectorMatches,
  type RuleSelector,
  type SelectorSubject,
} from './rule-selector.ts'

/**
 * Incident rules (`incident_rules.spec`, resource-specs §3.3): when a check a rule selects turns
 * unhealthy, open an incident for it (created by System, with a root hypothesis and the check as
 * evidence), at most one open incident per rule and check; when the check passes again, resolve
 * or close it if the rule asks. Every run of a rule against a check is a job_history row
 * (resource_type `incident_rule`, name `IncidentRuleRun`).
 */

export const INCIDENT_RULE_JOB_NAME = 'IncidentRuleRun'
export const INCIDENT_RULE_RESOURCE_TYPE = 'incident_rule'
export const AUTO_RESOLVE_EVENT = 'incident_rule.auto_resolve'
export const AUTO_CLOSE_EVENT = 'incident_rule.auto_close'

// A Go duration serialises as nanoseconds in JSON; YAML authors write "30m".
const DurationSchema = z.union([z.number().nonnegative(), z.string()]).transform((value, ctx) => {
  if (typeof value === 'number') return value / 1e6
  const ms = parseDurationMs(value)
  if (ms === null) {
    ctx.addIssue({ code: z.ZodIssueCode.custom, message: `"${value}" is not a duration (e.g. 30s, 5m, 1h)` })
    return z.NEVER
  }
  return ms
})

// `autoResolve: true` means "as soon as the check passes"; false turns it off.
const TimeoutSchema = z
  .preprocess(
    (value) => (value === true ? { timeout: 0 } : value === false ? null : value),
    z.object({ timeout: DurationSchema.optional() }, { invalid_type_error: 'must be {timeout: <duration>} or true' }).strict().nullable(),
  )
  .transform((value) => (value === null ? null : (value.timeout ?? 0)))

const ClockSchema = z.string().regex(/^([01]?\d|2[0-3]):[0-5]\d(:[0-5]\d)?$/, 'must be a time of day such as 09:00')
const uuidField = (field: string) => z.string().uuid(`${field} must be a uuid`)
const enumOf = <T extends readonly [string, ...string[]]>(field: string, values: T) =>
  z.enum(values, { errorMap: () => ({ message: `${field} must be one of ${values.join(', ')}` }) })

export const IncidentRuleSpecSchema = z
  .object({
    name: z.string().optional(),
    checks: z.array(RuleSelectorSchema).optional(),
    components: z.array(RuleSelectorSchema).optional(),
    filter: z
      .object({
        status: z.array(z.string()).optional(),
        severity: z.array(z.string()).optional(),
        category: z.array(z.string()).optional(),
        age: DurationSchema.optional(),
      })
      .strict()
      .optional(),
    template: z
      .object({
        title: z.string().min(1, 'title must not be empty').optional(),
        description: z.string().optional(),
        type: enumOf('type', INCIDENT_TYPES).optional(),
        status: enumOf('status', INCIDENT_STATUSES).optional(),
        severity: enumOf('severity', INCIDENT_SEVERITIES).optional(),
        created_by: uuidField('created_by').optional(),
        commander_id: uuidField('commander_id').optional(),
        communicator_id: uuidField('communicator_id').optional(),
      })
      .strict()
      .optional(),
    autoAssignOwner: z.boolean().optional(),
    priority: z.number().int('priority must be a whole number').optional(),
    breakOnMatch: z.boolean().optional(),
    hoursOfOperation: z.array(z.object({ start: ClockSchema, end: ClockSchema, negate: z.boolean().optional() }).strict()).optional(),
    autoResolve: TimeoutSchema.optional(),
    autoClose: TimeoutSchema.optional(),
    responders: z.record(z.unknown()).optional(),
  })
  .strict()
  .superRefine((spec, ctx) => {
    if (!spec.checks?.length && !spec.components?.length) {
      ctx.addIssue({ code: z.ZodIssueCode.custom, path: ['checks'], message: 'a rule must select checks or components' })
    }
    for (const key of ['checks', 'components'] as const) {
      spec[key]?.forEach((selector, index) => {
        try {
          checkSelectorSyntax(selector)
        } catch (error) {
          if (!(error instanceof SelectorSyntaxError)) throw error
          ctx.addIssue({ code: z.ZodIssueCode.custom, path: [key, index], message: error.message })
        }
      })
    }
  })

export type IncidentRuleSpec = {
  name?: string
  checks: RuleSelector[]
  components: RuleSelector[]
  filter: { status: string[]; severity: string[]; category: string[]; ageMs: number | null }
  template: {
    title: string
    description: string
    type: string
    status: string
    severity: string | null
    createdBy: string | null
    commanderId: string | null
    communicatorId: string | null
  }
  priority: number
  breakOnMatch: boolean
  hoursOfOperation: { start: string; end: string; negate: boolean }[]
  /** ms the check must pass before the incident is resolved / closed; null = never automatically. */
  autoResolveMs: number | null
  autoCloseMs: number | null
}

export class IncidentRuleSpecError extends Error {
  readonly issues: { path: string; message: string }[]
  constructor(issues: { path: string; message: string }[]) {
    super(`invalid incident rule spec: ${issues.map((issue) => (issue.path ? `${issue.path}: ${issue.message}` : issue.message)).join('; ')}`)
    this.issues = issues
  }
}

const DEFAULT_TITLE = '{{.check.name}} is unhealthy'
const DEFAULT_DESCRIPTION = '{{.check.name}} failed: {{.status.message}}'

/**
 * Parses a rule spec as stored in `incident_rules.spec`: an object, a YAML or JSON text, or a
 * whole IncidentRule document (apiVersion/kind/metadata/spec). Throws IncidentRuleSpecError.
 */
export function parseIncidentRuleSpec(input: unknown): IncidentRuleSpec {
  let value = input
  if (typeof value === 'string') {
    try {
      value = parseYaml(value) as unknown
    } catch (error) {
      throw new IncidentRuleSpecError([{ path: '', message: `spec is not valid YAML or JSON: ${(error as Error).message}` }])
    }
  }
  if (value && typeof value === 'object' && !Array.isArray(value) && 'kind' in value && 'spec' in value) {
    value = (value as { spec: unknown }).spec
  }
  if (!value || typeof value !== 'object' || Array.isArray(value)) {
    throw new IncidentRuleSpecError([{ path: '', message: 'spec must be an object' }])
  }
  const parsed = IncidentRuleSpecSchema.safeParse(value)
  if (!parsed.success) {
    throw new IncidentRuleSpecError(parsed.error.issues.map((issue) => ({ path: issue.path.join('.'), message: issue.message })))
  }
  const spec = parsed.data
  return {
    name: spec.name,
    checks: spec.checks ?? [],
    components: spec.components ?? [],
    filter: {
      status: spec.filter?.status ?? [],
      severity: spec.filter?.severity ?? [],
      category: spec.filter?.category ?? [],
      ageMs: spec.filter?.age ?? null,
    },
    template: {
      title: spec.template?.title ?? DEFAULT_TITLE,
      description: spec.template?.description ?? DEFAULT_DESCRIPTION,
      type: spec.template?.type ?? 'availability',
      status: spec.template?.status ?? 'open',
      severity: spec.template?.severity ?? null,
      createdBy: spec.template?.created_by ?? null,
      commanderId: spec.template?.commander_id ?? null,
      communicatorId: spec.template?.communicator_id ?? null,
    },
    priority: spec.priority ?? 0,
    breakOnMatch: spec.breakOnMatch ?? false,
    hoursOfOperation: (spec.hoursOfOperation ?? []).map((window) => ({ ...window, negate: window.negate ?? false })),
    autoResolveMs: spec.autoResolve ?? null,
    autoCloseMs: spec.autoClose ?? null,
  }
}

function minutesOf(clock: string): number {
  const [hours, minutes, seconds] = clock.split(':').map(Number)
  return hours! * 60 + minutes! + (seconds ?? 0) / 60
}

/** Windows are UTC times of day; an end before the start wraps past midnight. */
export function withinHoursOfOperation(windows: IncidentRuleSpec['hoursOfOperation'], now: Date): boolean {
  if (windows.length === 0) return true
  const minute = now.getUTCHours() * 60 + now.getUTCMinutes() + now.getUTCSeconds() / 60
  return windows.some((window) => {
    const start = minutesOf(window.start)
    const end = minutesOf(window.end)
    const inside = start <= end ? minute >= start && minute < end : minute >= start || minute < end
    return inside !== window.negate
  })
}

type CheckRow = {
  id: string
  name: string
  namespace: string | null
  type: string
  description: string | null
  labels: Record<string, string> | null
  severity: string | null
  category: string | null
  agent_id: string
  canary_id: string
  canary_name: string
  deleted_at: Date | string | null
  last_transition_time: Date | string | null
  status: string | null
}

type ComponentRow = {
  id: string
  name: string
  namespace: string | null
  type: string | null
  status: string | null
  health: string | null
  labels: Record<string, string> | null
  agent_id: string | null
  topology_id: string | null
  deleted_at: Date | string | null
}

type RuleRow = { id: string; name: string; spec: unknown }

type CheckFacts = { check: CheckRow; components: ComponentRow[] }

function checkSubject(check: CheckRow): SelectorSubject {
  return {
    id: String(check.id),
    name: check.name,
    namespace: check.namespace,
    type: check.type,
    status: check.status,
    description: check.description,
    labels: check.labels ?? {},
    agentId: check.agent_id ? String(check.agent_id) : null,
    scopeId: String(check.canary_id),
    deleted: check.deleted_at !== null,
  }
}

function componentSubject(component: ComponentRow): SelectorSubject {
  return {
    id: String(component.id),
    name: component.name,
    namespace: component.namespace,
    type: component.type,
    status: component.status,
    health: component.health,
    labels: component.labels ?? {},
    agentId: component.agent_id ? String(component.agent_id) : null,
    scopeId: component.topology_id ? String(component.topology_id) : null,
    deleted: component.deleted_at !== null,
  }
}

/** Whether a rule selects this check, directly or through a component the check is linked to. */
export function ruleSelectsCheck(spec: IncidentRuleSpec, facts: CheckFacts, now: Date): { component: ComponentRow | null } | null {
  const subject = checkSubject(facts.check)
  let component: ComponentRow | null = null
  let selected = spec.checks.some((selector) => selectorMatches(selector, subject))
  if (!selected && spec.components.length > 0) {
    component = facts.components.find((row) => spec.components.some((selector) => selectorMatches(selector, componentSubject(row)))) ?? null
    selected = component !== null
  }
  if (!selected) return null
  const { filter } = spec
  if (!patternListMatches(filter.status, facts.check.status)) return null
  if (!patternListMatches(filter.severity, facts.check.severity)) return null
  if (!patternListMatches(filter.category, facts.check.category)) return null
  // `age`: a transition older than this is stale news (e.g. a backlog after downtime).
  if (filter.ageMs !== null && filter.ageMs > 0 && facts.check.last_transition_time) {
    if (now.getTime() - new Date(facts.check.last_transition_time).getTime() > filter.ageMs) return null
  }
  return { component }
}

async function loadCheck(tx: Queryable, checkId: string): Promise<CheckFacts | null> {
  const { rows } = await tx.query<CheckRow>(
    `SELECT c.id, c.name, c.namespace, c.type, c.description, c.labels, c.severity, c.category, c.agent_id, c.canary_id,
            cn.name AS canary_name, c.deleted_at, c.last_transition_time, coalesce(cu.status, c.status) AS status
       FROM checks c
       JOIN canaries cn ON cn.id = c.canary_id
       LEFT JOIN checks_unlogged cu ON cu.check_id = c.id
      WHERE c.id = $1`,
    [checkId],
  )
  const check = rows[0]
  if (!check) return null
  const { rows: components } = await tx.query<ComponentRow>(
    `SELECT co.id, co.name, co.namespace, co.type, co.status, co.health, co.labels, co.agent_id, co.topology_id, co.deleted_at
       FROM check_component_relationships r
       JOIN components co ON co.id = r.component_id
      WHERE r.check_id = $1 AND r.deleted_at IS NULL`,
    [checkId],
  )
  return { check, components }
}

async function loadRules(tx: Queryable): Promise<RuleRow[]> {
  const { rows } = await tx.query<RuleRow>('SELECT id, name, spec FROM incident_rules WHERE deleted_at IS NULL ORDER BY name')
  return rows.map((row) => ({ ...row, id: String(row.id) }))
}

async function systemPerson(tx: Queryable): Promise<string> {
  const { rows } = await tx.query<{ id: string }>(
    "SELECT id FROM people WHERE name = 'System' AND deleted_at IS NULL ORDER BY created_at LIMIT 1",
  )
  if (!rows[0]) throw new Error('the System person is missing from people')
  return String(rows[0].id)
}

/** Serialises every run of one rule for one check, across processes, until the transaction ends. */
async function lockRuleCheck(tx: Queryable, ruleId: string, checkId: string) {
  await tx.query('SELECT pg_advisory_xact_lock(hashtext($1))', [`incident-rule:${ruleId}:${checkId}`])
}

async function openIncidentOf(tx: Queryable, ruleId: string, checkId: string): Promise<{ id: string; incident_id: string; status: string } | null> {
  const { rows } = await tx.query<{ id: string; incident_id: string; status: string }>(
    `SELECT i.id, i.incident_id, i.status
       FROM incidents i
      WHERE i.incident_rule_id = $1
        AND NOT (i.status = ANY($3::text[]))
        AND EXISTS (SELECT 1 FROM hypotheses h JOIN evidences e ON e.hypothesis_id = h.id
                     WHERE h.incident_id = i.id AND e.check_id = $2)
      ORDER BY i.created_at DESC
      LIMIT 1`,
    [ruleId, checkId, FINISHED_INCIDENT_STATUSES],
  )
  return rows[0] ? { ...rows[0], id: String(rows[0].id) } : null
}

type JobRun = { ruleId: string; status: 'SUCCESS' | 'FAILED' | 'SKIPPED'; started: Date; details: Record<string, unknown> }

async function recordRun(tx: Queryable, run: JobRun) {
  const ended = new Date()
  await tx.query(
    `INSERT INTO job_history (name, resource_type, resource_id, status, success_count, error_count, details, hostname, duration_millis, time_start, time_end)
     VALUES ($1, $2, $3, $4, $5, $6, $7, $8, $9, $10, $11)`,
    [
      INCIDENT_RULE_JOB_NAME,
      INCIDENT_RULE_RESOURCE_TYPE,
      run.ruleId,
      run.status,
      run.status === 'FAILED' ? 0 : 1,
      run.status === 'FAILED' ? 1 : 0,
      JSON.stringify(run.details),
      hostname(),
      Math.max(0, ended.getTime() - run.started.getTime()),
      run.started.toISOString(),
      ended.toISOString(),
    ],
  )
}

function severityFor(spec: IncidentRuleSpec, check: CheckRow): IncidentSeverity {
  if (spec.template.severity) return spec.template.severity as IncidentSeverity
  const fromCheck = check.severity?.toLowerCase()
  return (INCIDENT_SEVERITIES as readonly string[]).includes(fromCheck ?? '') ? (fromCheck as IncidentSeverity) : 'medium'
}

class RuleTemplateError extends Error {}

function render(template: string, data: Record<string, unknown>, field: string): string {
  try {
    return renderGoTemplate(template, data).replace(/<no value>/g, '').trim()
  } catch (error) {
    throw new RuleTemplateError(`template.${field}: ${(error as Error).message}`)
  }
}

async function openIncident(
  tx: Queryable,
  rule: RuleRow,
  spec: IncidentRuleSpec,
  facts: CheckFacts,
  component: ComponentRow | null,
): Promise<{ id: string; incident_id: string }> {
  const { rows: statuses } = await tx.query<{ time: Date | string; message: string | null; error: string | null; duration: number | null; status: boolean | null }>(
    'SELECT time, message, error, duration, status FROM check_statuses WHERE check_id = $1 ORDER BY time DESC LIMIT 1',
    [facts.check.id],
  )
  const last = statuses[0]
  const check = facts.check
  const data = {
    check: { ...check, id: String(check.id), labels: check.labels ?? {} },
    component: component ? { ...component, id: String(component.id), labels: component.labels ?? {} } : null,
    status: { message: last?.message || last?.error || '', error: last?.error ?? '', time: last ? new Date(last.time).toISOString() : '' },
    rule: { id: rule.id, name: rule.name },
  }
  const title = render(spec.template.title, data, 'title') || `${check.name} is unhealthy`
  const description = render(spec.template.description, data, 'description')
  const createdBy = spec.template.createdBy ?? (await systemPerson(tx))
  const { rows } = await tx.query<{ id: string; incident_id: string }>(
    `INSERT INTO incidents (title, description, type, severity, status, created_by, commander_id, communicator_id, incident_rule_id)
     VALUES ($1, $2, $3, $4, $5, $6, $7, $8, $9) RETURNING id, incident_id`,
    [title, description, spec.template.type, severityFor(spec, check), spec.template.status, createdBy, spec.template.commanderId, spec.template.communicatorId, rule.id],
  )
  const incident = { id: String(rows[0]!.id), incident_id: rows[0]!.incident_id }
  const { rows: hypotheses } = await tx.query<{ id: string }>(
    `INSERT INTO hypotheses (incident_id, title, type, status, created_by) VALUES ($1, $2, 'root', 'possible', $3) RETURNING id`,
    [incident.id, title, createdBy],
  )
  // The check passing again is what "done" means for this incident, hence definition_of_done.
  await tx.query(
    `INSERT INTO evidences (hypothesis_id, type, description, check_id, component_id, created_by, definition_of_done, done, evidence)
     VALUES ($1, 'check', $2, $3, $4, $5, true, false, $6)`,
    [
      hypotheses[0]!.id,
      description || `${check.name} is unhealthy`,
      check.id,
      component?.id ?? null,
      createdBy,
      JSON.stringify({ check_id: String(check.id), canary: check.canary_name, status: last ? { ...data.status, duration: last.duration } : null }),
    ],
  )
  return incident
}

async function finishIncident(tx: Queryable, incidentId: string, checkId: string, status: 'resolved' | 'closed', checkName: string) {
  const { rowCount } = await tx.query(
    `UPDATE incidents
        SET status = $2,
            resolved = CASE WHEN $2 = 'resolved' THEN coalesce(resolved, now()) ELSE resolved END,
            closed = CASE WHEN $2 = 'closed' THEN coalesce(closed, now()) ELSE closed END
      WHERE id = $1 AND status <> $2 AND status <> 'closed'`,
    [incidentId, status],
  )
  if (rowCount === 0) return false
  await tx.query(
    `UPDATE evidences SET done = true
      WHERE check_id = $2 AND definition_of_done AND done IS DISTINCT FROM true
        AND hypothesis_id IN (SELECT id FROM hypotheses WHERE incident_id = $1)`,
    [incidentId, checkId],
  )
  const system = await systemPerson(tx)
  await tx.query('INSERT INTO comments (incident_id, comment, created_by) VALUES ($1, $2, $3)', [
    incidentId,
    `${status === 'resolved' ? 'Resolved' : 'Closed'} automatically: ${checkName} is healthy again.`,
    system,
  ])
  return true
}

async function schedule(tx: Queryable, name: string, incidentId: string, properties: Record<string, unknown>, delayMs: number) {
  // Re-scheduling restarts the wait: the check has to keep passing for the whole timeout.
  await tx.query(
    `INSERT INTO event_queue (name, event_id, properties, delay) VALUES ($1, $2, $3, $4)
     ON CONFLICT (name, event_id) DO UPDATE
       SET created_at = now(), attempts = 0, last_attempt = NULL, error = NULL, properties = EXCLUDED.properties, delay = EXCLUDED.delay`,
    [name, incidentId, JSON.stringify(properties), Math.round(delayMs * 1e6)],
  )
}

type RuleStep = (rule: RuleRow, spec: IncidentRuleSpec, started: Date) => Promise<{ matched: boolean } | void>

/**
 * Runs `step` for each live rule in priority order, each inside a savepoint so one failing rule
 * neither undoes nor blocks the others; a failure becomes a FAILED job row. Unexpected errors
 * (not a bad spec or template) ask the consumer to retry the event.
 */
async function eachRule(tx: Queryable, log: Logger, event: QueuedEvent, step: RuleStep, onlyRuleId?: string): Promise<EventOutcome> {
  const rules = (await loadRules(tx)).filter((rule) => !onlyRuleId || rule.id === onlyRuleId)
  const parsed: { rule: RuleRow; spec: IncidentRuleSpec | null; error?: string }[] = rules.map((rule) => {
    try {
      return { rule, spec: parseIncidentRuleSpec(rule.spec) }
    } catch (error) {
      return { rule, spec: null, error: (error as Error).message }
    }
  })
  parsed.sort((a, b) => (a.spec?.priority ?? 0) - (b.spec?.priority ?? 0) || a.rule.name.localeCompare(b.rule.name))
  const retryable: string[] = []
  for (const [index, { rule, spec, error }] of parsed.entries()) {
    const started = new Date()
    if (!spec) {
      await recordRun(tx, { ruleId: rule.id, status: 'FAILED', started, details: { event: event.name, check_id: event.eventId, errors: [error] } })
      continue
    }
    const savepoint = `incident_rule_${index}`
    await tx.exec(`SAVEPOINT ${savepoint}`)
    try {
      const outcome = await step(rule, spec, started)
      await tx.exec(`RELEASE SAVEPOINT ${savepoint}`)
      if (outcome?.matched && spec.breakOnMatch) break
    } catch (failure) {
      await tx.exec(`ROLLBACK TO SAVEPOINT ${savepoint}`)
      const message = (failure as Error).message
      log.warn({ rule: rule.name, event: event.name, eventId: event.eventId, error: message }, 'incident rule run failed')
      await recordRun(tx, { ruleId: rule.id, status: 'FAILED', started, details: { event: event.name, check_id: event.eventId, errors: [message] } })
      if (!(failure instanceof RuleTemplateError)) retryable.push(`${rule.name}: ${message}`)
    }
  }
  return retryable.length > 0 ? { retry: true, error: retryable.join('; ') } : undefined
}

/**
 * The consumer handlers of incident rules: `check.failed` and `check.passed` (enqueued by the
 * checks_unlogged trigger) and the delayed auto-resolve/close events the rules schedule.
 * Handlers write through the consumer's transaction, so `_db` is only part of the signature
 * callers wire with.
 */
export function createIncidentRulesHandlers(_db: Db, logger: Logger, options: { now?: () => Date } = {}): EventHandlers {
  const now = options.now ?? (() => new Date())
  const log = logger.child({ component: 'incident-rules' })

  async function onCheckFailed(event: QueuedEvent, { tx }: EventContext): Promise<EventOutcome> {
    if (!event.eventId) return
    const checkId = event.eventId
    const facts = await loadCheck(tx, checkId)
    if (!facts) return
    return eachRule(tx, log, event, async (rule, spec, started) => {
      const match = ruleSelectsCheck(spec, facts, now())
      if (!match) return { matched: false }
      const base = { event: event.name, check_id: checkId, check: facts.check.name }
      if (!withinHoursOfOperation(spec.hoursOfOperation, now())) {
        await recordRun(tx, { ruleId: rule.id, status: 'SKIPPED', started, details: { ...base, reason: 'outside hours of operation' } })
        return { matched: false }
      }
      await lockRuleCheck(tx, rule.id, checkId)
      // Another process may have handled a later check.passed first; act on the state now.
      const current = await loadCheck(tx, checkId)
      if (!current || current.check.status !== 'unhealthy') {
        await recordRun(tx, { ruleId: rule.id, status: 'SKIPPED', started, details: { ...base, reason: 'the check is no longer unhealthy' } })
        return { matched: true }
      }
      const existing = await openIncidentOf(tx, rule.id, checkId)
      if (existing) {
        await recordRun(tx, { ruleId: rule.id, status: 'SUCCESS', started, details: { ...base, action: 'deduplicated', incident_id: existing.id, incident: existing.incident_id } })
        return { matched: true }
      }
      const incident = await openIncident(tx, rule, spec, current, match.component)
      log.info({ rule: rule.name, check: facts.check.name, incident: incident.incident_id }, 'incident opened by rule')
      await recordRun(tx, { ruleId: rule.id, status: 'SUCCESS', started, details: { ...base, action: 'opened', incident_id: incident.id, incident: incident.incident_id } })
      return { matched: true }
    })
  }

  async function onCheckPassed(event: QueuedEvent, { tx }: EventContext): Promise<EventOutcome> {
    if (!event.eventId) return
    const checkId = event.eventId
    const facts = await loadCheck(tx, checkId)
    if (!facts) return
    return eachRule(tx, log, event, async (rule, spec, started) => {
      if (spec.autoResolveMs === null && spec.autoCloseMs === null) return { matched: false }
      // Status filters describe the failing state, so selection alone decides here.
      const selection = { ...spec, filter: { ...spec.filter, status: [], ageMs: null } }
      if (!ruleSelectsCheck(selection, facts, now())) return { matched: false }
      await lockRuleCheck(tx, rule.id, checkId)
      const incident = await openIncidentOf(tx, rule.id, checkId)
      if (!incident) return { matched: true }
      const base = { event: event.name, check_id: checkId, check: facts.check.name, incident_id: incident.id, incident: incident.incident_id }
      const actions: string[] = []
      const properties = { rule_id: rule.id, check_id: checkId }
      for (const [ms, status, name] of [
        [spec.autoResolveMs, 'resolved', AUTO_RESOLVE_EVENT],
        [spec.autoCloseMs, 'closed', AUTO_CLOSE_EVENT],
      ] as const) {
        if (ms === null) continue
        if (ms === 0) {
          if (await finishIncident(tx, incident.id, checkId, status, facts.check.name)) actions.push(status)
        } else {
          await schedule(tx, name, incident.id, properties, ms)
          actions.push(`${status === 'resolved' ? 'resolve' : 'close'} scheduled in ${ms} ms`)
        }
      }
      await recordRun(tx, { ruleId: rule.id, status: 'SUCCESS', started, details: { ...base, action: actions.join(', ') || 'none' } })
      return { matched: true }
    })
  }

  const onRecoveryDue = (status: 'resolved' | 'closed') =>
    async (event: QueuedEvent, { tx }: EventContext): Promise<EventOutcome> => {
      const incidentId = event.eventId
      const ruleId = typeof event.properties?.rule_id === 'string' ? event.properties.rule_id : null
      const checkId = typeof event.properties?.check_id === 'string' ? event.properties.check_id : null
      if (!incidentId || !ruleId || !checkId) return
      return eachRule(tx, log, event, async (rule, _spec, started) => {
        await lockRuleCheck(tx, rule.id, checkId)
        const facts = await loadCheck(tx, checkId)
        const base = { event: event.name, check_id: checkId, incident_id: incidentId }
        // A check that failed again keeps its incident open; a later pass schedules anew.
        if (!facts || facts.check.status !== 'healthy') {
          await recordRun(tx, { ruleId: rule.id, status: 'SKIPPED', started, details: { ...base, reason: 'the check is not healthy' } })
          return { matched: true }
        }
        const done = await finishIncident(tx, incidentId, checkId, status, facts.check.name)
        await recordRun(tx, { ruleId: rule.id, status: done ? 'SUCCESS' : 'SKIPPED', started, details: { ...base, action: done ? status : 'already finished' } })
        return { matched: true }
      }, ruleId)
    }

  return {
    'check.failed': onCheckFailed,
    'check.passed': onCheckPassed,
    [AUTO_RESOLVE_EVENT]: onRecoveryDue('resolved'),
    [AUTO_CLOSE_EVENT]: onRecoveryDue('closed'),
  }
}
