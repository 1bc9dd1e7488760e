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

const pad = (value: number, width = 2) => String(value).padStart(width, '0')
const MONTHS = ['Jan', 'Feb', 'Mar', 'Apr', 'May', 'Jun', 'Jul', 'Aug', 'Sep', 'Oct', 'Nov', 'Dec']
const WEEKDAYS = ['Sun', 'Mon', 'Tue', 'Wed', 'Thu', 'Fri', 'Sat']

/**
 * The four date styles of spec 002 §9, in UTC so that server and browser agree (the timezone
 * preference is a later issue's concern).
 */
export function formatDateTime(value: string | number | Date | null | undefined, format: DateTimeFormat, now: Date): string {
  const date = toDate(value)
  if (!date) return ''
  const hms = `${pad(date.getUTCHours())}:${pad(date.getUTCMinutes())}:${pad(date.getUTCSeconds())}`
  const hm = `${pad(date.getUTCHours())}:${pad(date.getUTCMinutes())}`
  const monthDay = `${MONTHS[date.getUTCMonth()]} ${date.getUTCDate()}`
  switch (format) {
    case 'short':
      return timeAgo(date, now) ?? ''
    case 'timestamp':
      return `${date.getUTCFullYear()}-${pad(date.getUTCMonth() + 1)}-${pad(date.getUTCDate())} ${hms}.${pad(date.getUTCMilliseconds(), 3)}`
    case 'full':
      return `${monthDay} ${date.getUTCFullYear()} ${hms}`
    case 'medium': {
      const sameDay = date.toISOString().slice(0, 10) === now.toISOString().slice(0, 10)
      if (sameDay) return hms
      if (Math.abs(now.getTime() - date.getTime()) < 7 * DAY) return `${WEEKDAYS[date.getUTCDay()]} ${hms}`
      if (date.getUTCFullYear() === now.getUTCFullYear()) return `${monthDay} ${hm}`
      return `${monthDay} ${date.getUTCFullYear()} ${hm}`
    }
  }
}
