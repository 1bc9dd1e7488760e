import { randomUUID } from 'node:crypto'
import { hostname } from 'node:os'
import type { Logger } from 'pino'
import { MIN_RUN_GAP_MS, nextTick, parseSchedule, ScheduleError, type Schedule } from '#contract/canary/schedule.ts'
import type { Db, Queryable } from '#server/db/client.ts'
import type { EventContext, EventHandler, EventHandlers, EventOutcome, QueuedEvent } from '#server/backend/events/event-consumer.ts'
import { ExpressionError } from '#server/backend/health/expressions.ts'
import { PlaybookError, type PlaybookSpec } from './playbook-model.ts'
import { evaluatePlaybookCel } from './playbook-template.ts'
import { createPlaybookRun, targetTemplateEnv, type PlaybookRecord, type RunTarget } from './run-create.ts'

/**
 * The playbook triggers of resource-specs §2.3 that run without a caller: `on.canary`,
 * `on.config` and `on.component` from the event queue (labels and CEL filter over the event's
 * resource; one run per matching playbook, targeting that resource), and `on.schedule` (cron,
 * CRON_TZ) claimed per slot in PostgreSQL so two processes never create the same scheduled run.
 */

type TriggerSection = 'canary' | 'config' | 'component'
type EventEntry = { event?: string; labels?: Record<string, string>; filter?: string }

/** Queue event name → the trigger section and event name a playbook's `on` uses. */
const EVENT_TRIGGERS: Record<string, { section: TriggerSection; event: string }> = {
  'check.passed': { section: 'canary', event: 'passed' },
  'check.failed': { section: 'canary', event: 'failed' },
  ...Object.fromEntries(
    ['created', 'updated', 'changed', 'deleted', 'healthy', 'unhealthy', 'warning', 'degraded', 'unknown'].map((event) => [`config.${event}`, { section: 'config', event }]),
  ),
  ...Object.fromEntries(['healthy', 'unhealthy', 'warning', 'unknown'].map((event) => [`component.${event}`, { section: 'component', event }])),
}

/** The event names the handlers answer (the lead composes them with other consumers of the same names). */
export const PLAYBOOK_TRIGGER_EVENTS = Object.keys(EVENT_TRIGGERS)

const TARGET_KIND: Record<TriggerSection, RunTarget['kind']> = { canary: 'check', config: 'config', component: 'component' }

const LABELS_SQL: Record<RunTarget['kind'], string> = {
  config: `SELECT coalesce(tags, '{}'::jsonb) || coalesce(labels, '{}'::jsonb) AS labels FROM config_items WHERE id = $1`,
  component: `SELECT coalesce(labels, '{}'::jsonb) AS labels FROM components WHERE id = $1`,
  check: `SELECT coalesce(labels, '{}'::jsonb) AS labels FROM checks WHERE id = $1`,
}

/** The resource an event is about: config changes name their item in the properties. */
function resourceIdOf(event: QueuedEvent): string | null {
  if (event.name === 'config.updated' || event.name === 'config.changed') {
    const configId = event.properties?.config_id
    return typeof configId === 'string' ? configId : null
  }
  return event.eventId
}

function labelsMatch(want: Record<string, string> | undefined, have: Record<string, unknown>): boolean {
  if (!want) return true
  return Object.entries(want).every(([key, value]) => String(have[key] ?? '') === String(value))
}

const EVENT_RUN_RETENTION_DAYS = 7

/**
 * Handler sets that share event names (incident rules and playbook triggers both answer
 * check.failed / check.passed) as one set: each handler of a name runs in turn in the event's
 * transaction; the first retry asked for is returned after all have run. A throw rolls back all.
 */
export function mergeEventHandlers(...sets: EventHandlers[]): EventHandlers {
  const names = new Set(sets.flatMap((set) => Object.keys(set)))
  const merged: EventHandlers = {}
  for (const name of names) {
    const handlers = sets.map((set) => set[name]).filter((handler): handler is EventHandler => handler !== undefined)
    merged[name] =
      handlers.length === 1
        ? handlers[0]!
        : async (event, context) => {
            let outcome: EventOutcome = undefined
            for (const handler of handlers) {
              const result = await handler(event, context)
              if (result && !outcome) outcome = result
            }
            return outcome
          }
  }
  return merged
}

export function createPlaybookTriggerHandlers(_db: Db, logger: Logger): EventHandlers {
  const log = logger.child({ component: 'playbook-triggers' })

  async function onEvent(event: QueuedEvent, { tx }: EventContext): Promise<void> {
    const trigger = EVENT_TRIGGERS[event.name]
    if (!trigger) return
    // A run's own PlaybookScheduled/Started/... changes must not trigger playbooks on `changed` again and again.
    if (event.name === 'config.changed' && String(event.properties?.change_type ?? '').startsWith('Playbook')) return
    const resourceId = resourceIdOf(event)
    if (!resourceId) return
    const target: RunTarget = { kind: TARGET_KIND[trigger.section], id: resourceId }
    const { rows: playbooks } = await tx.query<PlaybookRecord>(
      `SELECT id, name, namespace, title, spec FROM playbooks
       WHERE deleted_at IS NULL AND jsonb_typeof(spec -> 'on' -> $1::text) = 'array' ORDER BY name, id`,
      [trigger.section],
    )
    if (playbooks.length === 0) return
    const { rows } = await tx.query<{ labels: Record<string, unknown> }>(LABELS_SQL[target.kind], [resourceId])
    if (!rows[0]) return
    const labels = rows[0].labels
    for (const playbook of playbooks) {
      const entries = ((playbook.spec.on as Record<string, unknown> | undefined)?.[trigger.section] ?? []) as EventEntry[]
      const candidates = entries.filter((entry) => entry && entry.event === trigger.event && labelsMatch(entry.labels, labels))
      if (candidates.length === 0) continue
      if (!(await anyFilterPasses(tx, playbook, target, candidates))) continue
      const eventKey = `${event.id}@${event.createdAt.toISOString()}`
      const claimed = await tx.query(
        'INSERT INTO lookout.playbook_event_runs (event_key, playbook_id) VALUES ($1, $2) ON CONFLICT DO NOTHING RETURNING event_key',
        [eventKey, playbook.id],
      )
      if (claimed.rows.length === 0) continue
      try {
        const created = await createPlaybookRun(tx, { playbookId: playbook.id, [`${target.kind}Id`]: resourceId }, { kind: 'system', reason: 'event' }, { matchSelectors: false })
        await tx.query('UPDATE lookout.playbook_event_runs SET run_id = $3 WHERE event_key = $1 AND playbook_id = $2', [eventKey, playbook.id, created.run_id])
        log.info({ playbook: playbook.name, event: event.name, resource: resourceId, run: created.run_id }, 'playbook run created by event')
      } catch (error) {
        // A run the playbook refuses (its filters, a required parameter) is the author's matter: retrying the event changes nothing.
        if (!(error instanceof PlaybookError)) throw error
        log.warn({ playbook: playbook.name, event: event.name, resource: resourceId, reason: error.message }, 'event did not create a playbook run')
      }
    }
  }

  async function anyFilterPasses(tx: Queryable, playbook: PlaybookRecord, target: RunTarget, entries: EventEntry[]): Promise<boolean> {
    if (entries.some((entry) => !entry.filter || entry.filter.trim() === '')) return true
    const env = await targetTemplateEnv(tx, playbook, target)
    for (const entry of entries) {
      try {
        const result = evaluatePlaybookCel(entry.filter!, env)
        if (result === true || result === 'true') return true
      } catch (error) {
        if (!(error instanceof ExpressionError) && !(error instanceof PlaybookError)) throw error
        log.warn({ playbook: playbook.name, filter: entry.filter, reason: (error as Error).message }, 'playbook trigger filter failed')
      }
    }
    return false
  }

  let handled = 0
  const handler: EventHandler = async (event, context) => {
    await onEvent(event, context)
    handled += 1
    if (handled % 500 === 1) {
      await context.tx.query(`DELETE FROM lookout.playbook_event_runs WHERE created_at < now() - make_interval(days => $1)`, [EVENT_RUN_RETENTION_DAYS])
    }
  }
  return Object.fromEntries(PLAYBOOK_TRIGGER_EVENTS.map((name) => [name, handler]))
}

// ---- on.schedule ----------------------------------------------------------------------------

export type PlaybookSchedulerOptions = {
  db: Db
  logger: Logger
  processId?: string
  /** How often due slots are looked for (default 5 s; cron's resolution is a minute). */
  pollIntervalMs?: number
  /** `@every` periods are at least this long (MIN_RUN_GAP_MS unless a test lowers it). */
  minGapMs?: number
  now?: () => Date
}

export type PlaybookScheduler = {
  readonly processId: string
  start(): Promise<void>
  stop(): Promise<void>
  /** One pass: creates the runs of the slots due now that this process claimed; returns how many. */
  tick(): Promise<number>
}

type ScheduleEntry = { schedule?: string; parameters?: Record<string, unknown> }
type SlotState = { text: string; schedule: Schedule; nextDue: Date }

const SLOT_RETENTION_DAYS = 7

export function createPlaybookScheduler(options: PlaybookSchedulerOptions): PlaybookScheduler {
  const { db } = options
  const processId = options.processId ?? `${hostname()}-${process.pid}-${randomUUID().slice(0, 8)}`
  const log = options.logger.child({ component: 'playbook-scheduler', processId })
  const now = options.now ?? (() => new Date())
  const pollMs = options.pollIntervalMs ?? 5_000
  const minGapMs = options.minGapMs ?? MIN_RUN_GAP_MS
  const states = new Map<string, SlotState>()
  const badSchedules = new Set<string>()
  let timer: NodeJS.Timeout | null = null
  let running: Promise<unknown> | null = null
  let passes = 0

  async function claimAndRun(playbook: { id: string; name: string }, index: number, entry: ScheduleEntry, slot: Date): Promise<boolean> {
    // The primary key (playbook, entry, slot) lets exactly one process insert the slot.
    const claimed = await db.query(
      `INSERT INTO lookout.playbook_schedule_slots (playbook_id, entry, slot, owner) VALUES ($1, $2, $3, $4)
       ON CONFLICT DO NOTHING RETURNING slot`,
      [playbook.id, index, slot, processId],
    )
    if (claimed.rows.length === 0) return false
    const paramTemplates = Object.fromEntries(Object.entries(entry.parameters ?? {}).map(([name, value]) => [name, String(value)]))
    try {
      const created = await createPlaybookRun(db, { playbookId: playbook.id }, { kind: 'system', reason: 'schedule' }, { paramTemplates })
      await db.query('UPDATE lookout.playbook_schedule_slots SET run_id = $4 WHERE playbook_id = $1 AND entry = $2 AND slot = $3', [playbook.id, index, slot, created.run_id])
      log.info({ playbook: playbook.name, slot: slot.toISOString(), run: created.run_id }, 'scheduled playbook run created')
      return true
    } catch (error) {
      const message = error instanceof Error ? error.message : String(error)
      await db.query('UPDATE lookout.playbook_schedule_slots SET error = $4 WHERE playbook_id = $1 AND entry = $2 AND slot = $3', [playbook.id, index, slot, message])
      log.warn({ playbook: playbook.name, slot: slot.toISOString(), reason: message }, 'scheduled playbook run not created')
      return false
    }
  }

  async function tick(): Promise<number> {
    const current = now()
    const { rows } = await db.query<{ id: string; name: string; spec: PlaybookSpec }>(
      `SELECT id, name, spec FROM playbooks WHERE deleted_at IS NULL AND jsonb_typeof(spec -> 'on' -> 'schedule') = 'array'`,
    )
    const seen = new Set<string>()
    let created = 0
    for (const playbook of rows) {
      const entries = ((playbook.spec.on as Record<string, unknown>).schedule ?? []) as ScheduleEntry[]
      for (const [index, entry] of entries.entries()) {
        const text = typeof entry?.schedule === 'string' ? entry.schedule.trim() : ''
        const key = `${playbook.id}/${index}`
        seen.add(key)
        let state = states.get(key)
        if (!state || state.text !== text) {
          let schedule: Schedule
          try {
            schedule = parseSchedule(text)
          } catch (error) {
            if (!(error instanceof ScheduleError)) throw error
            if (!badSchedules.has(`${key}/${text}`)) log.warn({ playbook: playbook.name, schedule: text, reason: error.message }, 'playbook schedule is invalid')
            badSchedules.add(`${key}/${text}`)
            states.delete(key)
            continue
          }
          const nextDue = nextTick(schedule, current, key, { minGapMs })
          if (!nextDue) continue
          state = { text, schedule, nextDue }
          states.set(key, state)
        }
        if (current.getTime() < state.nextDue.getTime()) continue
        if (await claimAndRun(playbook, index, entry, state.nextDue)) created += 1
        // Slots missed while this process was busy or down are not made up.
        state.nextDue = nextTick(state.schedule, current, key, { minGapMs }) ?? new Date(8.64e15)
      }
    }
    for (const key of states.keys()) if (!seen.has(key)) states.delete(key)
    passes += 1
    if (passes % 720 === 1) {
      await db.query(`DELETE FROM lookout.playbook_schedule_slots WHERE slot < now() - make_interval(days => $1)`, [SLOT_RETENTION_DAYS])
    }
    return created
  }

  const loop = () => {
    running = tick()
      .catch((error: unknown) => log.error({ err: error }, 'playbook schedule pass failed'))
      .finally(() => {
        running = null
        if (timer) {
          timer = setTimeout(loop, pollMs)
          timer.unref()
        }
      })
  }

  return {
    processId,
    async start() {
      if (timer) return
      timer = setTimeout(loop, 0)
      timer.unref()
    },
    async stop() {
      if (timer) clearTimeout(timer)
      timer = null
      await running
    },
    tick,
  }
}
