import { useRouteLoaderData } from '@remix-run/react'
import { formatDate, formatDateTitle, toDate, type DateDisplay } from '#app/lib/format.ts'
import { DEFAULT_RESOLVED_PREFERENCES, type ResolvedPreferences } from '#app/lib/preferences.ts'
import { cn } from '#app/lib/cn.ts'

/** What this module reads of the root loader's data (root.tsx). */
type RootDates = { preferences?: ResolvedPreferences; now?: string }

/**
 * The person's date format and zone and the render's `now`, from the root loader: the server and
 * the browser read the same values, so a date is the same text in both renders.
 */
export function useDateDisplay(): { display: DateDisplay; now: Date } {
  const root = useRouteLoaderData('root') as RootDates | undefined
  const display = root?.preferences?.dates ?? DEFAULT_RESOLVED_PREFERENCES.dates
  const now = root?.now ? new Date(root.now) : new Date(0)
  return { display, now }
}

/** A formatter with the person's preferences, for text that is not a node (titles, labels). */
export function useFormatDate(): (value: string | number | Date | null | undefined, now?: Date) => string {
  const { display, now: rootNow } = useDateDisplay()
  return (value, now) => formatDate(value, display, now ?? rootNow)
}

/**
 * One date as the person chose to see it (spec 002 §3 datetime and timezone preferences), with
 * the exact instant and zone in its tooltip. `now` is the page's own render time where the page
 * has one (relative 'short' dates), otherwise the root loader's.
 */
export function DateTime({ value, now, className, testId }: { value: string | number | Date | null | undefined; now?: Date | string; className?: string; testId?: string }) {
  const { display, now: rootNow } = useDateDisplay()
  const date = toDate(value)
  if (!date) return null
  const at = now ? new Date(now) : rootNow
  return (
    <time dateTime={date.toISOString()} title={formatDateTitle(date, display, at)} data-testid={testId} className={cn('whitespace-nowrap', className)}>
      {formatDate(date, display, at)}
    </time>
  )
}
