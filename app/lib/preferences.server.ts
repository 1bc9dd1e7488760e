import { cookieValue, httpOnlyCookie } from '#server/cookies.ts'
import { parseStoredPreferences } from './preferences-form.ts'
import { BROWSER_TIME_ZONE_COOKIE, resolvePreferences, type Preferences, type ResolvedPreferences } from './preferences.ts'

/**
 * The preferences cookie. A plain UI choice, so unsigned; HttpOnly because only the server reads
 * it (the page renders from it). The browser's own zone comes in a second cookie the browser
 * writes itself (app/components/app-shell/browser-time-zone.ts).
 */
const PREFERENCES_COOKIE = 'lookout_preferences'
const ONE_YEAR_SECONDS = 60 * 60 * 24 * 365

export function getPreferences(request: Request): ResolvedPreferences {
  const header = request.headers.get('cookie')
  return resolvePreferences(parseStoredPreferences(cookieValue(header, PREFERENCES_COOKIE)), cookieValue(header, BROWSER_TIME_ZONE_COOKIE) ?? null)
}

export function serializePreferences(request: Request, preferences: Preferences): string {
  const stored: Preferences = {
    showHiddenComponents: preferences.showHiddenComponents,
    showDeletedConfigs: preferences.showDeletedConfigs,
    cardWidth: preferences.cardWidth,
    dateTimeFormat: preferences.dateTimeFormat,
    timeZone: preferences.timeZone,
  }
  return httpOnlyCookie(PREFERENCES_COOKIE, JSON.stringify(stored), {
    maxAgeSeconds: ONE_YEAR_SECONDS,
    secure: new URL(request.url).protocol === 'https:',
  })
}
