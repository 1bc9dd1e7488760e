import { useLocation } from '@remix-run/react'
import { PREFERENCES_PARAM } from '#app/lib/preferences.ts'

export type TimeZoneOption = { name: string; offsetMinutes: number }

/** The current URL with the preferences panel's parameter set or removed. */
export function usePreferencesHref(open: boolean): string {
  const location = useLocation()
  const params = new URLSearchParams(location.search)
  if (open) params.set(PREFERENCES_PARAM, 'open')
  else params.delete(PREFERENCES_PARAM)
  const search = params.toString()
  return `${location.pathname}${search ? `?${search}` : ''}`
}
