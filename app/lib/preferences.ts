import { isKnownTimeZone, timeZoneOffsetMinutes, type DateDisplay, type DateTimeFormat } from './format.ts'

/**
 * The preferences panel of spec 002 §2 ("Preferences panel") and the client-side preferences
 * of spec 002 §3, kept in one cookie so the server renders with them (no JavaScript needed, and
 * no hydration mismatch: the browser renders from the same loader data). Pure and free of zod, so
 * every page can include it; the schemas are in preferences-form.ts.
 */

/** The zone the spec calls 'Browser': whatever zone the browser reports (UTC until it has). */
export const BROWSER_TIME_ZONE = 'Browser'
export const CARD_WIDTH = { min: 250, max: 768, step: 2, default: 554 } as const
/** The URL parameter that opens the panel (a link works without JavaScript). */
export const PREFERENCES_PARAM = 'preferences'

export type Preferences = {
  showHiddenComponents: boolean
  showDeletedConfigs: boolean
  cardWidth: number
  dateTimeFormat: DateTimeFormat
  timeZone: string
}

export const DEFAULT_PREFERENCES: Preferences = {
  showHiddenComponents: false,
  showDeletedConfigs: false,
  cardWidth: CARD_WIDTH.default,
  dateTimeFormat: 'timestamp',
  timeZone: BROWSER_TIME_ZONE,
}

/** What the root loader hands every screen: the stored choices plus the zone dates use. */
export type ResolvedPreferences = Preferences & {
  /** The zone the browser reported (cookie written by the browser), null until it has. */
  browserTimeZone: string | null
  dates: DateDisplay
}

const UTC_ALIASES = new Set(['Etc/UTC', 'Etc/UCT', 'Etc/GMT', 'Etc/Universal', 'Etc/Zulu', 'Etc/GMT+0', 'Etc/GMT-0', 'Etc/GMT0', 'GMT', 'UCT', 'Universal', 'Zulu'])

/** The browser's zone as the console names it: its UTC aliases are plain UTC (no re-render for them). */
export function normalizeBrowserTimeZone(timeZone: string | null | undefined): string | null {
  if (!timeZone || !isKnownTimeZone(timeZone)) return null
  return UTC_ALIASES.has(timeZone) ? 'UTC' : timeZone
}

export function resolvePreferences(preferences: Preferences, browserTimeZone: string | null): ResolvedPreferences {
  const browser = normalizeBrowserTimeZone(browserTimeZone)
  const timeZone = preferences.timeZone === BROWSER_TIME_ZONE ? (browser ?? 'UTC') : preferences.timeZone
  return { ...preferences, browserTimeZone: browser, dates: { format: preferences.dateTimeFormat, timeZone } }
}

export const DEFAULT_RESOLVED_PREFERENCES: ResolvedPreferences = resolvePreferences(DEFAULT_PREFERENCES, null)

/** Every IANA zone this runtime knows, sorted by its UTC offset at `now`, then by name (spec 002 §2). */
export function listTimeZonesByOffset(now: Date): { name: string; offsetMinutes: number }[] {
  const names = typeof Intl.supportedValuesOf === 'function' ? Intl.supportedValuesOf('timeZone') : ['UTC']
  const zones = (names.includes('UTC') ? names : ['UTC', ...names]).map((name) => ({ name, offsetMinutes: timeZoneOffsetMinutes(name, now) }))
  return zones.sort((a, b) => a.offsetMinutes - b.offsetMinutes || a.name.localeCompare(b.name))
}

/** The name of the cookie the browser writes with its own zone (read by the root loader). */
export const BROWSER_TIME_ZONE_COOKIE = 'lookout_browser_tz'
