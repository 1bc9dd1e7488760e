/*
 * Date math as the platform writes it (`now-7d`, `now-1d/d`): shifting by a unit and rounding to
 * a unit's start or end, in UTC. Units: ms, s, m, h, d, w (weeks start on Monday), M (months), y.
 * Shared by the console's time-range picker and the catalog API's date filters. Pure data and
 * functions, safe in the browser bundle.
 */

export const DATE_MATH_UNIT_MS: Record<string, number> = { ms: 1, s: 1000, m: 60_000, h: 3_600_000, d: 86_400_000, w: 7 * 86_400_000 }

/** `date` moved by `sign × amount` units; months and years by the calendar. */
export function shiftDate(date: Date, sign: number, amount: number, unit: string): Date {
  const out = new Date(date)
  if (unit === 'M') out.setUTCMonth(out.getUTCMonth() + sign * amount)
  else if (unit === 'y') out.setUTCFullYear(out.getUTCFullYear() + sign * amount)
  else out.setTime(out.getTime() + sign * amount * DATE_MATH_UNIT_MS[unit]!)
  return out
}

/** The start of the unit `date` falls in. */
export function startOfUnit(date: Date, unit: string): Date {
  const out = new Date(date)
  switch (unit) {
    case 'y':
      out.setUTCMonth(0, 1)
      out.setUTCHours(0, 0, 0, 0)
      break
    case 'M':
      out.setUTCDate(1)
      out.setUTCHours(0, 0, 0, 0)
      break
    case 'w': {
      // Weeks start on Monday.
      const day = (out.getUTCDay() + 6) % 7
      out.setUTCDate(out.getUTCDate() - day)
      out.setUTCHours(0, 0, 0, 0)
      break
    }
    case 'd':
      out.setUTCHours(0, 0, 0, 0)
      break
    case 'h':
      out.setUTCMinutes(0, 0, 0)
      break
    case 'm':
      out.setUTCSeconds(0, 0)
      break
    case 's':
      out.setUTCMilliseconds(0)
      break
  }
  return out
}

/** The last millisecond of the unit `date` falls in. */
export function endOfUnit(date: Date, unit: string): Date {
  const next = shiftDate(startOfUnit(date, unit), 1, 1, unit)
  return new Date(next.getTime() - 1)
}
