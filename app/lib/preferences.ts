import { z } from 'zod'
import { DATE_TIME_FORMATS, isKnownTimeZone, timeZoneOffsetMinutes, type DateDisplay, type DateTimeFormat } from './format.ts'

/**
 * The preferences panel of spec 002 §2 ("Preferences panel") and the client-side preferences
 * of spec 002 §3, kept in one cookie so the server renders with them (no JavaScript needed, and
 * no hydration mismatch: the browser renders from the same loader data).
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
  showHiddenComponents: true,
  showDeletedConfigs: false,
  cardWidth: CARD_WIDTH.default,
  dateTimeFormat: 'timestamp',
  timeZone: BROWSER_TIME_ZONE,
}

const TimeZoneSchema = z
  .string()
  .trim()
  .refine((zone) => zone === BROWSER_TIME_ZONE || (zone.length <= 64 && isKnownTimeZone(zone)), 'Unknown timezone')

const CardWidthSchema = z.coerce
  .number({ invalid_type_error: 'Card width must be a number' })
  .int('Card width must be a whole number')
  .min(CARD_WIDTH.min, `Card width is at least ${CARD_WIDTH.min}`)
  .max(CARD_WIDTH.max, `Card width is at most ${CARD_WIDTH.max}`)
  .refine((width) => width % CARD_WIDTH.step === 0, `Card width goes in steps of ${CARD_WIDTH.step}`)

/**
 * The panel's form. Checkboxes send 'on' when ticked and nothing otherwise; every field has a
 * fixed choice in the browser, so an error here means a hand-made request.
 */
export const PreferencesFormSchema = z.object({
  redirectTo: z.string().optional(),
  showHiddenComponents: z.literal('on').optional().transform(Boolean),
  showDeletedConfigs: z.literal('on').optional().transform(Boolean),
  cardWidth: CardWidthSchema,
  dateTimeFormat: z.enum(DATE_TIME_FORMATS as [DateTimeFormat, ...DateTimeFormat[]], {
    errorMap: () => ({ message: 'Choose short, medium, full or timestamp' }),
  }),
  timeZone: TimeZoneSchema,
})

/** Reads the stored preferences field by field: a bad or missing value falls back to its default. */
const StoredPreferencesSchema = z.object({
  showHiddenComponents: z.boolean().catch(DEFAULT_PREFERENCES.showHiddenComponents),
  showDeletedConfigs: z.boolean().catch(DEFAULT_PREFERENCES.showDeletedConfigs),
  cardWidth: CardWidthSchema.catch(DEFAULT_PREFERENCES.cardWidth),
  dateTimeFormat: z.enum(DATE_TIME_FORMATS as [DateTimeFormat, ...DateTimeFormat[]]).catch(DEFAULT_PREFERENCES.dateTimeFormat),
  timeZone: TimeZoneSchema.catch(DEFAULT_PREFERENCES.timeZone),
})

export function parseStoredPreferences(text: string | null | undefined): Preferences {
  let value: unknown = {}
  try {
    value = text ? JSON.parse(text) : {}
  } catch {
    value = {}
  }
  const parsed = StoredPreferencesSchema.safeParse(value && typeof value === 'object' ? value : {})
  return parsed.success ? parsed.data : DEFAULT_PREFERENCES
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
