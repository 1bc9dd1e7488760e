import { getFormProps, getInputProps, getSelectProps, type SubmissionResult } from '@conform-to/react'
import { Link, useFetcher, useNavigate } from '@remix-run/react'
import { useCallback, useEffect, useRef, useState } from 'react'
import { useHydrated } from 'remix-utils/use-hydrated'
import { ErrorList } from '#app/components/forms.tsx'
import { buttonVariants } from '#app/components/ui/button.tsx'
import { X } from '#app/components/ui/icons.tsx'
import { useSchemaForm } from '#app/components/use-schema-form.ts'
import { cn } from '#app/lib/cn.ts'
import { DATE_TIME_FORMATS, formatUtcOffset, type DateTimeFormat } from '#app/lib/format.ts'
import { PreferencesShape } from '#app/lib/preferences-form-shape.ts'
import { BROWSER_TIME_ZONE, CARD_WIDTH, type ResolvedPreferences } from '#app/lib/preferences.ts'
import { usePreferencesHref, type TimeZoneOption } from './preferences-link.ts'

export const PREFERENCES_ACTION = '/resources/preferences'
const PREFERENCES_FETCHER_KEY = 'preferences'

const FORMAT_LABELS: Record<DateTimeFormat, string> = {
  short: 'Short (5m ago)',
  medium: 'Medium (HH:mm:ss today)',
  full: 'Full (MMM D YYYY HH:mm:ss)',
  timestamp: 'Timestamp (YYYY-MM-DD HH:mm:ss.SSS)',
}

/** conform's prop getters include a React `key`, which must not be spread into JSX. */
function withoutKey<Props extends { key?: unknown }>(props: Props): Omit<Props, 'key'> {
  const { key: _key, ...rest } = props
  return rest
}

/**
 * The preferences panel of spec 002 §2. It is kept in the URL (`?preferences=open`) so a link opens
 * it without JavaScript; the zone list (some 400 names) is loaded only while it is open. The form
 * posts to a resource route that stores a cookie: without JavaScript a Save button posts and
 * returns to the page; with it every change is sent at once and the dates re-render.
 *
 * Date/time format and timezone apply to every date (components/date-time.tsx). Card width and
 * show hidden components apply on /topology and /topology/{id} (their loaders read the cookie;
 * a `showHiddenComponents=yes|no` URL parameter wins over the stored value there), show deleted
 * configs on the catalog lists (where `showDeleted` in the URL wins).
 */
export function PreferencesPanel({ preferences, timeZones }: { preferences: ResolvedPreferences; timeZones: TimeZoneOption[] }) {
  const closeHref = usePreferencesHref(false)
  const isHydrated = useHydrated()
  const navigate = useNavigate()
  const panelRef = useRef<HTMLElement>(null)
  const fetcher = useFetcher<SubmissionResult<string[]>>({ key: PREFERENCES_FETCHER_KEY })
  const [cardWidth, setCardWidth] = useState(preferences.cardWidth)
  const [form, fields] = useSchemaForm(PreferencesShape, {
    id: 'preferences',
    lastResult: fetcher.data,
    defaultValue: {
      showHiddenComponents: preferences.showHiddenComponents ? 'on' : undefined,
      showDeletedConfigs: preferences.showDeletedConfigs ? 'on' : undefined,
      cardWidth: String(preferences.cardWidth),
      dateTimeFormat: preferences.dateTimeFormat,
      timeZone: preferences.timeZone,
    },
  })

  // Escape closes the panel and focus goes back to the top bar button that opened it.
  useEffect(() => {
    panelRef.current?.focus()
    function handleKeyDown(event: KeyboardEvent) {
      if (event.key !== 'Escape') return
      navigate(closeHref, { preventScrollReset: true, replace: true })
      requestAnimationFrame(() => document.querySelector<HTMLElement>('[data-testid="preferences-button"]')?.focus())
    }
    document.addEventListener('keydown', handleKeyDown)
    return () => document.removeEventListener('keydown', handleKeyDown)
  }, [closeHref, navigate])

  // The native change event fires once per choice (for the slider: when it is let go), unlike
  // React's onChange, which fires on every step of a drag. Each post carries the whole form, so a
  // change made while one is on its way waits for it and then sends the form as it is by then:
  // resubmitting at once would abort the first post mid-answer (Remix logs that as an error).
  const submitRef = useRef(fetcher.submit)
  submitRef.current = fetcher.submit
  const inFlight = useRef(false)
  const changedWhileInFlight = useRef(false)
  const submitForm = useCallback(() => {
    const element = document.getElementById(form.id)
    if (!(element instanceof HTMLFormElement)) return
    if (inFlight.current) {
      changedWhileInFlight.current = true
      return
    }
    inFlight.current = true
    submitRef.current(element)
  }, [form.id])
  useEffect(() => {
    if (fetcher.state !== 'idle') return
    inFlight.current = false
    if (!changedWhileInFlight.current) return
    changedWhileInFlight.current = false
    submitForm()
  }, [fetcher.state, submitForm])
  useEffect(() => {
    const formElement = document.getElementById(form.id)
    if (!(formElement instanceof HTMLFormElement)) return
    formElement.addEventListener('change', submitForm)
    return () => formElement.removeEventListener('change', submitForm)
  }, [form.id, submitForm])

  const browserLabel = preferences.browserTimeZone
    ? `Browser (${preferences.browserTimeZone})`
    : isHydrated
      ? 'Browser'
      : 'Browser (UTC without JavaScript)'

  return (
    <section
      ref={panelRef}
      tabIndex={-1}
      aria-labelledby="preferences-title"
      data-testid="preferences-panel"
      className="absolute right-2 top-full z-40 mt-1 max-h-[calc(100vh-4rem)] w-80 max-w-[calc(100vw-1rem)] overflow-y-auto rounded-md border bg-popover p-4 text-sm text-popover-foreground shadow-lg focus:outline-none"
    >
      <div className="mb-3 flex items-center justify-between gap-2">
        <h2 id="preferences-title" className="text-base font-semibold">
          Preferences
        </h2>
        <Link to={closeHref} preventScrollReset replace aria-label="Close preferences" data-testid="preferences-close" className={buttonVariants({ variant: 'ghost', size: 'icon' })}>
          <X aria-hidden="true" />
        </Link>
      </div>
      <fetcher.Form
        method="post"
        action={PREFERENCES_ACTION}
        {...getFormProps(form)}
        className="flex flex-col gap-4"
      >
        <input type="hidden" name="redirectTo" value={closeHref} />
        {isHydrated ? <input type="hidden" name="mode" value="fetch" /> : null}
        <label className="flex items-center justify-between gap-3">
          <span>Show hidden components</span>
          <input {...withoutKey(getInputProps(fields.showHiddenComponents, { type: 'checkbox' }))} className="size-4 accent-primary" data-testid="pref-show-hidden" />
        </label>
        <label className="flex items-center justify-between gap-3">
          <span>Show deleted configs</span>
          <input {...withoutKey(getInputProps(fields.showDeletedConfigs, { type: 'checkbox' }))} className="size-4 accent-primary" data-testid="pref-show-deleted" />
        </label>
        <div className="flex flex-col gap-1">
          <label htmlFor={fields.cardWidth.id} className="flex items-center justify-between">
            <span>Card Width</span>
            <output htmlFor={fields.cardWidth.id} className="tabular-nums text-muted-foreground">
              {cardWidth}px
            </output>
          </label>
          <input
            {...withoutKey(getInputProps(fields.cardWidth, { type: 'range' }))}
            min={CARD_WIDTH.min}
            max={CARD_WIDTH.max}
            step={CARD_WIDTH.step}
            onInput={(event) => setCardWidth(Number(event.currentTarget.value))}
            className="accent-primary"
            data-testid="pref-card-width"
          />
          <ErrorList errors={fields.cardWidth.errors} />
        </div>
        <fieldset className="flex flex-col gap-1">
          <legend className="mb-1">Date/Time Format</legend>
          {DATE_TIME_FORMATS.map((format) => (
            <label key={format} className="flex items-center gap-2">
              <input
                type="radio"
                name={fields.dateTimeFormat.name}
                value={format}
                defaultChecked={preferences.dateTimeFormat === format}
                className="accent-primary"
                data-testid={`pref-format-${format}`}
              />
              <span>{FORMAT_LABELS[format]}</span>
            </label>
          ))}
          <ErrorList errors={fields.dateTimeFormat.errors} />
        </fieldset>
        <div className="flex flex-col gap-1">
          <label htmlFor={fields.timeZone.id}>Timezone</label>
          <select {...withoutKey(getSelectProps(fields.timeZone))} className="h-9 rounded-md border border-input bg-card px-2" data-testid="pref-time-zone">
            <option value={BROWSER_TIME_ZONE}>{browserLabel}</option>
            {timeZones.map((zone) => (
              <option key={zone.name} value={zone.name}>
                ({formatUtcOffset(zone.offsetMinutes)}) {zone.name}
              </option>
            ))}
          </select>
          <ErrorList errors={fields.timeZone.errors} />
        </div>
        <p className="text-xs text-muted-foreground" data-testid="pref-dates-in">
          Dates are shown in {preferences.dates.timeZone}.
        </p>
        {isHydrated ? null : (
          <button type="submit" data-testid="preferences-save" className={cn(buttonVariants({ size: 'sm' }), 'self-end')}>
            Save
          </button>
        )}
      </fetcher.Form>
    </section>
  )
}
