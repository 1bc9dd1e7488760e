/**
 * Time ranges as the shared picker and the pages understand them (spec 002 §3, §5, §9; spec
 * 001 §9): relative (`now-5m` to `now`), absolute (two instants) and mapped (named calendar
 * windows such as "Yesterday"). Pure: every function takes `now` so tests and both renderers
 * agree.
 */

export type RelativeRange = { type: 'relative'; from: string; to: string; display: string }
export type AbsoluteRange = { type: 'absolute'; from: string; to: string; display?: string }
export type MappedRange = { type: 'mapped'; display: string }
export type TimeRange = RelativeRange | AbsoluteRange | MappedRange

import { endOfUnit, shiftDate, startOfUnit } from '#contract/date-math.ts'
import { DURATION_MINUTES, type DurationKey } from './durations.ts'

export { DEFAULT_DURATION, DURATION_KEYS, DURATION_MINUTES, isDurationKey } from './durations.ts'
export type { DurationKey } from './durations.ts'

const UNIT_WORDS: Record<string, [string, string]> = {
  m: ['minute', 'minutes'],
  h: ['hour', 'hours'],
  d: ['day', 'days'],
  w: ['week', 'weeks'],
  mo: ['month', 'months'],
  y: ['year', 'years'],
}

/** "1 hour", "3 months" for a duration key. */
export function durationLabel(key: DurationKey): string {
  const match = /^(\d+)(mo|[mhdwy])$/.exec(key)
  if (!match) return key
  const count = Number(match[1])
  const words = UNIT_WORDS[match[2]!]!
  return `${count} ${count === 1 ? words[0] : words[1]}`
}

/**
 * The canary API's `start` for a duration key. It understands h/d/w durations; months and
 * years are sent as an instant that many months back (http-api §3.2).
 */
export function durationToApiStart(key: DurationKey, now: Date): string {
  const match = /^(\d+)(mo|[mhdwy])$/.exec(key)!
  const count = Number(match[1])
  const unit = match[2]!
  if (unit === 'mo' || unit === 'y') {
    const date = new Date(now)
    date.setUTCMonth(date.getUTCMonth() - (unit === 'y' ? count * 12 : count))
    return date.toISOString()
  }
  return `${DURATION_MINUTES[key]}m`
}

// ---- relative grammar -------------------------------------------------------------------

const RELATIVE = /^now(?:([+-])(\d+)(ms|s|m|h|d|w|M|y))?(?:\/(s|m|h|d|w|M|y))?$/

export class TimeRangeError extends Error {
  override name = 'TimeRangeError'
}

export function isRelativeExpression(text: string): boolean {
  return RELATIVE.test(text.trim())
}

/**
 * `now`, `now-5m`, `now+1h`, `now-1d/d`: `/unit` rounds to the start of the unit, or to its
 * end when `roundUp` (the "to" side of a range).
 */
export function parseRelative(text: string, now: Date, roundUp = false): Date {
  const match = RELATIVE.exec(text.trim())
  if (!match) throw new TimeRangeError(`Invalid relative time: ${text}`)
  let date = new Date(now)
  if (match[1]) date = shiftDate(date, match[1] === '-' ? -1 : 1, Number(match[2]), match[3]!)
  if (match[4]) date = roundUp ? endOfUnit(date, match[4]) : startOfUnit(date, match[4])
  return date
}

/** An absolute instant or a relative expression. */
export function parseTimeInput(text: string, now: Date, roundUp = false): Date {
  const trimmed = text.trim()
  if (isRelativeExpression(trimmed)) return parseRelative(trimmed, now, roundUp)
  const time = Date.parse(trimmed)
  if (Number.isNaN(time)) throw new TimeRangeError(`Invalid time: ${text}`)
  return new Date(time)
}

// ---- quick lists --------------------------------------------------------------------------

const past = (amount: string, display: string): RelativeRange => ({ type: 'relative', from: `now-${amount}`, to: 'now', display })
const future = (amount: string, display: string): RelativeRange => ({ type: 'relative', from: 'now', to: `now+${amount}`, display })

/** Relative past ranges (spec 002 §9). */
export const RELATIVE_RANGES: RelativeRange[] = [
  past('5m', 'Last 5 minutes'),
  past('15m', 'Last 15 minutes'),
  past('30m', 'Last 30 minutes'),
  past('1h', 'Last 1 hour'),
  past('3h', 'Last 3 hours'),
  past('6h', 'Last 6 hours'),
  past('12h', 'Last 12 hours'),
  past('24h', 'Last 24 hours'),
  past('2d', 'Last 2 days'),
  past('7d', 'Last 7 days'),
  past('30d', 'Last 30 days'),
  past('90d', 'Last 90 days'),
  past('6M', 'Last 6 months'),
  past('1y', 'Last 1 year'),
  past('2y', 'Last 2 years'),
  past('5y', 'Last 5 years'),
]

/** Future ranges: "Indefinitely" plus the mirror of the past list. */
export const INDEFINITELY = 'Indefinitely'
export const FUTURE_RANGES: RelativeRange[] = [
  { type: 'relative', from: 'now', to: '', display: INDEFINITELY },
  ...RELATIVE_RANGES.map((range) => future(range.from.replace('now-', ''), range.display.replace('Last', 'Next'))),
]

/** Named calendar windows as relative expressions (spec 002 §9 "Mapped ranges"). */
const MAPPED: Record<string, { from: string; to: string }> = {
  Yesterday: { from: 'now-1d/d', to: 'now-1d/d' },
  'Day before yesterday': { from: 'now-2d/d', to: 'now-2d/d' },
  'This day last week': { from: 'now-7d/d', to: 'now-7d/d' },
  'Previous week': { from: 'now-1w/w', to: 'now-1w/w' },
  'Previous month': { from: 'now-1M/M', to: 'now-1M/M' },
  'Previous year': { from: 'now-1y/y', to: 'now-1y/y' },
  Today: { from: 'now/d', to: 'now/d' },
  'Today so far': { from: 'now/d', to: 'now' },
  'This week (so far)': { from: 'now/w', to: 'now' },
  'This month (so far)': { from: 'now/M', to: 'now' },
  'This year (so far)': { from: 'now/y', to: 'now' },
}

export const MAPPED_RANGES: MappedRange[] = Object.keys(MAPPED).map((display) => ({ type: 'mapped', display }))

export function isMappedRange(display: string): boolean {
  return Object.hasOwn(MAPPED, display)
}

/** The instants a range covers; `to` is null for an open ("Indefinitely") end. */
export function resolveTimeRange(range: TimeRange, now: Date): { from: Date; to: Date | null } {
  if (range.type === 'mapped') {
    const mapped = Object.hasOwn(MAPPED, range.display) ? MAPPED[range.display] : undefined
    if (!mapped) throw new TimeRangeError('Invalid mapped time range')
    return { from: parseRelative(mapped.from, now), to: parseRelative(mapped.to, now, true) }
  }
  const from = parseTimeInput(range.from, now)
  const to = range.to ? parseTimeInput(range.to, now, true) : null
  return { from, to }
}

/** Button text: the display label, or "from - to", or "Indefinitely" (spec 002 §2). */
export function timeRangeLabel(range: TimeRange | null): string {
  if (!range) return 'Please select time range'
  if (range.display) return range.display
  if (range.type === 'absolute') return `${range.from} - ${range.to}`
  return INDEFINITELY
}

// ---- URL parameters -----------------------------------------------------------------------

/** The picker's URL parameters (spec 002 §2). */
export const TIME_RANGE_PARAMS = ['rangeType', 'display', 'from', 'to', 'range', 'timeRange'] as const

/** Reads the range from URL parameters; null when none (or an unusable one) is set. */
export function timeRangeFromParams(params: URLSearchParams): TimeRange | null {
  const type = params.get('rangeType')
  const display = params.get('display') ?? ''
  if (type === 'mapped') return isMappedRange(display) ? { type: 'mapped', display } : null
  const from = params.get('from') ?? ''
  const to = params.get('to') ?? ''
  if (type === 'absolute') {
    if (!from || !to || Number.isNaN(Date.parse(from)) || Number.isNaN(Date.parse(to))) return null
    return { type: 'absolute', from, to, display: display || undefined }
  }
  if (type === 'relative') {
    const range = params.get('range')
    if (range && /^\d+(ms|s|m|h|d|w|M|y)$/.test(range)) return { type: 'relative', from: `now-${range}`, to: 'now', display: display || `Last ${range}` }
    if (!isRelativeExpression(from) || (to && !isRelativeExpression(to))) return null
    return { type: 'relative', from, to, display }
  }
  return null
}

/** Writes a range into URL parameters, replacing any earlier range. */
export function timeRangeToParams(params: URLSearchParams, range: TimeRange | null): URLSearchParams {
  const out = new URLSearchParams(params)
  for (const name of TIME_RANGE_PARAMS) out.delete(name)
  if (!range) return out
  out.set('rangeType', range.type)
  if (range.display) out.set('display', range.display)
  if (range.type !== 'mapped') {
    out.set('from', range.from)
    if (range.to) out.set('to', range.to)
  }
  return out
}

// ---- recents ------------------------------------------------------------------------------

export const RECENT_RANGES_LIMIT = 5

/** A chosen absolute range goes to the head, de-duplicated, capped at 5 (spec 002 §4). */
export function addRecentRange(recents: readonly AbsoluteRange[], range: AbsoluteRange): AbsoluteRange[] {
  const rest = recents.filter((item) => item.from !== range.from || item.to !== range.to)
  return [range, ...rest].slice(0, RECENT_RANGES_LIMIT)
}

/** Recents read back from storage: anything that is not a list of absolute ranges is dropped. */
export function parseRecentRanges(text: string | null): AbsoluteRange[] {
  if (!text) return []
  try {
    const value: unknown = JSON.parse(text)
    if (!Array.isArray(value)) return []
    return value
      .filter((item): item is AbsoluteRange => Boolean(item) && typeof item === 'object' && typeof item.from === 'string' && typeof item.to === 'string')
      .map((item) => ({ type: 'absolute' as const, from: item.from, to: item.to }))
      .slice(0, RECENT_RANGES_LIMIT)
  } catch {
    return []
  }
}
