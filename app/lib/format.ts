/**
 * Display formats shared by every screen (spec 002 §9): short relative times, durations,
 * latencies and the four date/time styles. Pure functions so the server and the browser
 * render the same text (no hydration mismatches) given the same `now`.
 */

const SECOND = 1000
const MINUTE = 60 * SECOND
const HOUR = 60 * MINUTE
const DAY = 24 * HOUR
const MONTH = 30 * DAY
const YEAR = 365 * DAY

/** Dates at the zero value 0001-01-01 count as empty (spec 002 §3). */
export function toDate(value: string | number | Date | null | undefined): Date | null {
  if (value === null || value === undefined || value === '') return null
  const date = value instanceof Date ? value : new Date(value)
  if (Number.isNaN(date.getTime()) || date.getUTCFullYear() <= 1) return null
  return date
}

/** `5m`, `2h`, `3d`, `1mo`, `1y`; under a minute `30s`, and `now` under a second. */
export function formatShortAge(ms: number): string {
  const abs = Math.abs(ms)
  if (abs < SECOND) return 'now'
  if (abs < MINUTE) return `${Math.floor(abs / SECOND)}s`
  if (abs < HOUR) return `${Math.floor(abs / MINUTE)}m`
  if (abs < DAY) return `${Math.floor(abs / HOUR)}h`
  if (abs < MONTH) return `${Math.floor(abs / DAY)}d`
  if (abs < YEAR) return `${Math.floor(abs / MONTH)}mo`
  return `${Math.floor(abs / YEAR)}y`
}

/** "5m ago" for a past time, "in 5m" for a future one, null for no time. */
export function timeAgo(value: string | number | Date | null | undefined, now: Date): string | null {
  const date = toDate(value)
  if (!date) return null
  const delta = now.getTime() - date.getTime()
  const short = formatShortAge(delta)
  if (short === 'now') return 'just now'
  return delta >= 0 ? `${short} ago` : `in ${short}`
}

/** Duration as d/h/m/s parts, or ms under a second (spec 002 §9). */
export function formatDuration(ms: number | null | undefined): string {
  if (ms === null || ms === undefined || !Number.isFinite(ms)) return ''
  if (ms < SECOND) return `${Math.round(ms)}ms`
  const parts: string[] = []
  let rest = Math.floor(ms / SECOND)
  for (const [unit, size] of [['d', 86_400], ['h', 3600], ['m', 60], ['s', 1]] as const) {
    const count = Math.floor(rest / size)
    if (count > 0) parts.push(`${count}${unit}`)
    rest -= count * size
  }
  return parts.join(' ')
}

/** Latency units (spec 001 §2): ms under 1 s, s under 1 min, m under 1 h, otherwise h. */
export function formatLatency(ms: number | null | undefined): string {
  if (ms === null || ms === undefined || !Number.isFinite(ms)) return ''
  const trim = (value: number) => (Number.isInteger(value) ? String(value) : value.toFixed(value < 10 ? 2 : 1).replace(/\.?0+$/, ''))
  if (ms < SECOND) return `${Math.round(ms)}ms`
  if (ms < MINUTE) return `${trim(ms / SECOND)}s`
  if (ms < HOUR) return `${trim(ms / MINUTE)}m`
  return `${trim(ms / HOUR)}h`
}

/** Percent with one decimal, or null when there is nothing to divide. */
export function formatPercent(part: number, whole: number): string | null {
  if (!whole) return null
  return `${(Math.round((part / whole) * 1000) / 10).toFixed(1)}%`
}

export type DateTimeFormat = 'short' | 'medium' | 'full' | 'timestamp'

export const DATE_TIME_FORMATS: readonly DateTimeFormat[] = ['short', 'medium', 'full', 'timestamp']

/** How dates are shown: the person's format and the IANA zone to show them in (never implicit). */
export type DateDisplay = { format: DateTimeFormat; timeZone: string }

export const UTC_DISPLAY: DateDisplay = { format: 'timestamp', timeZone: 'UTC' }

const pad = (value: number, width = 2) => String(value).padStart(width, '0')
const MONTHS = ['Jan', 'Feb', 'Mar', 'Apr', 'May', 'Jun', 'Jul', 'Aug', 'Sep', 'Oct', 'Nov', 'Dec']
const WEEKDAYS = ['Sun', 'Mon', 'Tue', 'Wed', 'Thu', 'Fri', 'Sat']

type WallClock = { year: number; month: number; day: number; weekday: number; hour: number; minute: number; second: number; ms: number }

const zoneFormatters = new Map<string, Intl.DateTimeFormat>()

/** True for a zone name this runtime knows ("UTC", "Europe/Berlin"). */
export function isKnownTimeZone(timeZone: string): boolean {
  try {
    new Intl.DateTimeFormat('en-US', { timeZone })
    return true
  } catch {
    return false
  }
}

function zoneFormatter(timeZone: string): Intl.DateTimeFormat {
  let formatter = zoneFormatters.get(timeZone)
  if (!formatter) {
    // A fixed locale and an explicit zone: the text never depends on where it is rendered.
    formatter = new Intl.DateTimeFormat('en-US', {
      timeZone: isKnownTimeZone(timeZone) ? timeZone : 'UTC',
      hourCycle: 'h23',
      year: 'numeric',
      month: 'numeric',
      day: 'numeric',
      hour: 'numeric',
      minute: 'numeric',
      second: 'numeric',
      weekday: 'short',
    })
    zoneFormatters.set(timeZone, formatter)
  }
  return formatter
}

/** The date's calendar fields as a clock in `timeZone` shows them. */
function wallClock(date: Date, timeZone: string): WallClock {
  if (timeZone === 'UTC') {
    return {
      year: date.getUTCFullYear(),
      month: date.getUTCMonth() + 1,
      day: date.getUTCDate(),
      weekday: date.getUTCDay(),
      hour: date.getUTCHours(),
      minute: date.getUTCMinutes(),
      second: date.getUTCSeconds(),
      ms: date.getUTCMilliseconds(),
    }
  }
  const parts: Record<string, string> = {}
  for (const part of zoneFormatter(timeZone).formatToParts(date)) parts[part.type] = part.value
  return {
    year: Number(parts.year),
    month: Number(parts.month),
    day: Number(parts.day),
    weekday: Math.max(0, WEEKDAYS.indexOf(parts.weekday ?? '')),
    hour: Number(parts.hour) % 24,
    minute: Number(parts.minute),
    second: Number(parts.second),
    ms: date.getUTCMilliseconds(),
  }
}

/** Minutes east of UTC that `timeZone` is at `date` (+60 for Berlin in winter). */
export function timeZoneOffsetMinutes(timeZone: string, date: Date): number {
  const clock = wallClock(date, timeZone)
  const asUtc = Date.UTC(clock.year, clock.month - 1, clock.day, clock.hour, clock.minute, clock.second, clock.ms)
  return Math.round((asUtc - date.getTime()) / MINUTE)
}

/** `UTC+05:30`, `UTC-03:00`, `UTC` for an offset in minutes. */
export function formatUtcOffset(minutes: number): string {
  if (minutes === 0) return 'UTC'
  const abs = Math.abs(minutes)
  return `UTC${minutes > 0 ? '+' : '-'}${pad(Math.floor(abs / 60))}:${pad(abs % 60)}`
}

/**
 * The four date styles of spec 002 §9, on the clock of `timeZone` (UTC unless given). Server and
 * browser agree because the zone is always explicit; the console passes the person's
 * preference through `formatDate`.
 */
export function formatDateTime(value: string | number | Date | null | undefined, format: DateTimeFormat, now: Date, timeZone = 'UTC'): string {
  const date = toDate(value)
  if (!date) return ''
  const clock = wallClock(date, timeZone)
  const hms = `${pad(clock.hour)}:${pad(clock.minute)}:${pad(clock.second)}`
  const hm = `${pad(clock.hour)}:${pad(clock.minute)}`
  const monthDay = `${MONTHS[clock.month - 1]} ${clock.day}`
  switch (format) {
    case 'short':
      return timeAgo(date, now) ?? ''
    case 'timestamp':
      return `${clock.year}-${pad(clock.month)}-${pad(clock.day)} ${hms}.${pad(clock.ms, 3)}`
    case 'full':
      return `${monthDay} ${clock.year} ${hms}`
    case 'medium': {
      const today = wallClock(now, timeZone)
      const sameDay = today.year === clock.year && today.month === clock.month && today.day === clock.day
      if (sameDay) return hms
      if (Math.abs(now.getTime() - date.getTime()) < 7 * DAY) return `${WEEKDAYS[clock.weekday]} ${hms}`
      if (clock.year === today.year) return `${monthDay} ${hm}`
      return `${monthDay} ${clock.year} ${hm}`
    }
  }
}

/** Every date the console shows goes through here, with the person's format and zone. */
export function formatDate(value: string | number | Date | null | undefined, display: DateDisplay, now: Date): string {
  return formatDateTime(value, display.format, now, display.timeZone)
}

/** The exact instant for a tooltip: timestamp style plus the zone's name, whatever the chosen style. */
export function formatDateTitle(value: string | number | Date | null | undefined, display: DateDisplay, now: Date): string {
  const text = formatDateTime(value, 'timestamp', now, display.timeZone)
  return text ? `${text} ${display.timeZone}` : ''
}
