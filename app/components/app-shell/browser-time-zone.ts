import { useRevalidator } from '@remix-run/react'
import { useEffect } from 'react'
import { BROWSER_TIME_ZONE, BROWSER_TIME_ZONE_COOKIE, normalizeBrowserTimeZone, type ResolvedPreferences } from '#app/lib/preferences.ts'

const ONE_YEAR_SECONDS = 60 * 60 * 24 * 365

/**
 * The 'Browser' timezone preference needs the browser's zone, which only the browser knows. It
 * writes it into a cookie once hydrated; the server then renders dates in it. Until then (and
 * always without JavaScript) 'Browser' means UTC. Dates are never formatted with the zone the
 * browser would pick implicitly: that is how server and browser renders came to disagree.
 */
export function useReportBrowserTimeZone(preferences: ResolvedPreferences | undefined): void {
  const revalidator = useRevalidator()
  const known = preferences?.browserTimeZone ?? null
  const usesBrowserZone = preferences?.timeZone === BROWSER_TIME_ZONE
  const shownZone = preferences?.dates.timeZone
  useEffect(() => {
    const zone = normalizeBrowserTimeZone(Intl.DateTimeFormat().resolvedOptions().timeZone)
    if (!zone || zone === known) return
    document.cookie = `${BROWSER_TIME_ZONE_COOKIE}=${encodeURIComponent(zone)}; Path=/; Max-Age=${ONE_YEAR_SECONDS}; SameSite=Lax`
    // Re-render only when the dates on screen would change.
    if (usesBrowserZone && zone !== shownZone && revalidator.state === 'idle') revalidator.revalidate()
    // eslint-disable-next-line react-hooks/exhaustive-deps -- once per reported zone, not per revalidation
  }, [known, usesBrowserZone, shownZone])
}
