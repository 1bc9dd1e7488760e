import { nextTick, parseSchedule, scheduleTextOf } from './schedule.ts'

/** The agent id of canaries this server owns; other agents run (and push) their own checks. */
export const LOCAL_AGENT_ID = '00000000-0000-0000-0000-000000000000'
/** The demo estate's canaries carry this source; the engine never runs them (README, LOOKOUT_ENGINE). */
export const DEMO_CANARY_SOURCE = 'Demo'

export type ScheduledCanary = {
  id: string
  source: string | null
  agent_id: string | null
  deleted_at: string | null
  annotations: Record<string, unknown> | null
  spec: unknown
}

/** When a check runs next, as the check panel says it (spec 000 §2 "next run"). */
export type NextRun = { kind: 'at'; at: string } | { kind: 'due' } | { kind: 'not-scheduled' }

/**
 * Whether this server's engine runs the canary: the same rule as the engine's schedule sync
 * (server/backend/health/canary-sync.ts): live, local, not demo data, not suspended.
 */
export function isRunHere(canary: ScheduledCanary): boolean {
  const spec = (canary.spec ?? {}) as { replicas?: unknown }
  return (
    canary.deleted_at === null &&
    (canary.agent_id ?? LOCAL_AGENT_ID) === LOCAL_AGENT_ID &&
    canary.source !== DEMO_CANARY_SOURCE &&
    canary.annotations?.suspend !== 'true' &&
    spec.replicas !== 0
  )
}

function toTime(value: string | null): number | null {
  if (!value) return null
  const time = new Date(value).getTime()
  return Number.isNaN(time) ? null : time
}

/**
 * The next run of a check, never in the past: the engine's recorded next run while it lies ahead,
 * else the schedule's first tick after the last run (croner for cron schedules, the `@every`
 * grid otherwise); `due` once that moment has come (or the check has never run); `not-scheduled`
 * for checks nothing here runs (demo data, agent-pushed checks, a missing, suspended or
 * unscheduled canary, a deleted check).
 */
export function nextRunOf(
  check: { next_runtime: string | null; last_runtime: string | null; deleted_at: string | null },
  canary: ScheduledCanary | null,
  now: Date,
): NextRun {
  if (!canary || check.deleted_at || !isRunHere(canary)) return { kind: 'not-scheduled' }
  const text = scheduleTextOf((canary.spec ?? {}) as { schedule?: unknown; interval?: unknown })
  if (!text) return { kind: 'not-scheduled' }
  let schedule
  try {
    schedule = parseSchedule(text)
  } catch {
    return { kind: 'not-scheduled' }
  }
  if (schedule.kind === 'never') return { kind: 'not-scheduled' }
  const recorded = toTime(check.next_runtime)
  const last = toTime(check.last_runtime)
  const next = recorded ?? (last === null ? null : (nextTick(schedule, new Date(last), canary.id)?.getTime() ?? null))
  // Under a second away reads as "due now" rather than "just now".
  if (next === null || next - now.getTime() < 1000) return { kind: 'due' }
  return { kind: 'at', at: new Date(next).toISOString() }
}
