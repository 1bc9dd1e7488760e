import { Cron } from 'croner'
import { parseDurationMs } from './duration.ts'

/** Runs of one canary are at least this far apart, whatever the schedule says (§1.1). */
export const MIN_RUN_GAP_MS = 10_000

export type Schedule =
  | { kind: 'every'; text: string; intervalMs: number }
  | { kind: 'cron'; text: string; cron: Cron }
  | { kind: 'never'; text: string }

const NAMED: Record<string, string> = {
  '@yearly': '0 0 1 1 *',
  '@annually': '0 0 1 1 *',
  '@monthly': '0 0 1 * *',
  '@weekly': '0 0 * * 0',
  '@daily': '0 0 * * *',
  '@midnight': '0 0 * * *',
  '@hourly': '0 * * * *',
}

export class ScheduleError extends Error {}

/** Parses `schedule` (cron, `@every 30s`, `@hourly`…, `CRON_TZ=` prefix, `@never`); throws ScheduleError. */
export function parseSchedule(input: string): Schedule {
  let text = input.trim()
  let timezone = 'UTC'
  const tz = /^(?:CRON_TZ|TZ)=(\S+)\s+(.*)$/.exec(text)
  if (tz) {
    timezone = tz[1]!
    text = tz[2]!.trim()
  }
  if (text === '') throw new ScheduleError('schedule is empty')
  if (text === '@never') return { kind: 'never', text: input }
  if (text.startsWith('@every')) {
    const intervalMs = parseDurationMs(text.slice('@every'.length).trim())
    if (intervalMs === null || intervalMs <= 0) throw new ScheduleError(`invalid @every duration in "${input}"`)
    return { kind: 'every', text: input, intervalMs }
  }
  const pattern = NAMED[text] ?? text
  if (pattern.startsWith('@')) throw new ScheduleError(`unknown schedule descriptor "${text}"`)
  const fields = pattern.split(/\s+/)
  if (fields.length !== 5) {
    throw new ScheduleError(`invalid cron "${input}": expected 5 fields (minute hour day month weekday), got ${fields.length}`)
  }
  try {
    return { kind: 'cron', text: input, cron: new Cron(pattern, { paused: true, timezone }) }
  } catch (error) {
    throw new ScheduleError(`invalid cron "${input}": ${(error as Error).message}`)
  }
}

/** The canary's effective schedule text: `schedule` wins; a deprecated `interval` (seconds) becomes `@every Ns`. */
export function scheduleTextOf(spec: { schedule?: unknown; interval?: unknown }): string | null {
  if (typeof spec.schedule === 'string' && spec.schedule.trim() !== '') return spec.schedule.trim()
  const interval = typeof spec.interval === 'string' ? Number(spec.interval) : spec.interval
  if (typeof interval === 'number' && Number.isFinite(interval) && interval > 0) return `@every ${interval}s`
  return null
}

/**
 * Deterministic offset inside an `@every` period so a thousand canaries on `@every 30s` do not
 * all fire in the same millisecond; checks of one canary share it and so share their ticks.
 */
export function phaseOf(key: string, periodMs: number): number {
  let hash = 2_166_136_261
  for (let index = 0; index < key.length; index += 1) {
    hash ^= key.charCodeAt(index)
    hash = Math.imul(hash, 16_777_619)
  }
  return (hash >>> 0) % Math.max(1, Math.floor(periodMs))
}

/**
 * The first tick strictly after `after`. `@every` ticks sit on a fixed grid (epoch + phase +
 * k·interval), so a late run never drifts the schedule; cron ticks come from croner. Both keep
 * `minGapMs` (MIN_RUN_GAP_MS unless a test lowers it) after `previousTick` when given.
 */
export function nextTick(
  schedule: Schedule,
  after: Date,
  phaseKey: string,
  options: { previousTick?: Date; minGapMs?: number } = {},
): Date | null {
  if (schedule.kind === 'never') return null
  const minGap = options.minGapMs ?? MIN_RUN_GAP_MS
  const floor = options.previousTick ? Math.max(after.getTime(), options.previousTick.getTime() + minGap - 1) : after.getTime()
  if (schedule.kind === 'every') {
    const interval = Math.max(schedule.intervalMs, minGap)
    const phase = phaseOf(phaseKey, interval)
    const k = Math.floor((floor - phase) / interval) + 1
    return new Date(phase + k * interval)
  }
  return schedule.cron.nextRun(new Date(floor)) ?? null
}
