import { Form, Link, useLocation } from '@remix-run/react'
import { CalendarClock } from '#app/components/ui/icons.tsx'
import { useEffect, useState } from 'react'
import { useHydrated } from 'remix-utils/use-hydrated'
import { buttonVariants } from '#app/components/ui/button.tsx'
import { HiddenParams } from '#app/components/data-table/hidden-params.tsx'
import { cn } from '#app/lib/cn.ts'
import {
  addRecentRange,
  durationLabel,
  MAPPED_RANGES,
  parseRecentRanges,
  RELATIVE_RANGES,
  TIME_RANGE_PARAMS,
  timeRangeLabel,
  timeRangeToParams,
  type AbsoluteRange,
  type DurationKey,
  type TimeRange,
} from '#app/lib/time-range.ts'

const RECENTS_KEY = 'recentlyUsedTimeRanges'

export type TimeRangePickerProps =
  | {
      /** Duration mode: a fixed list of durations written to one parameter (the health page's `timeRange`). */
      mode: 'duration'
      value: DurationKey
      durations: readonly DurationKey[]
      param?: string
      testId?: string
    }
  | {
      /** Range mode: relative, mapped and absolute ranges in the picker's URL parameters (spec 002 §2). */
      mode: 'range'
      value: TimeRange | null
      testId?: string
    }

function hrefWith(search: string, range: TimeRange | null): string {
  return `?${timeRangeToParams(new URLSearchParams(search), range).toString()}`
}

/** `2026-08-21T09:00` from a datetime-local input, as an ISO instant (the browser's zone). */
function localToIso(value: string): string {
  const date = new Date(value)
  return Number.isNaN(date.getTime()) ? value : date.toISOString()
}

function AbsoluteForm({ search, testId }: { search: string; testId: string }) {
  const hydrated = useHydrated()
  const [from, setFrom] = useState('')
  const [to, setTo] = useState('')
  const [recents, setRecents] = useState<AbsoluteRange[]>([])
  useEffect(() => {
    setRecents(parseRecentRanges(window.localStorage.getItem(RECENTS_KEY)))
  }, [])
  return (
    <div className="flex flex-col gap-2">
      <h3 className="text-xs font-semibold uppercase text-muted-foreground">Absolute range</h3>
      <Form
        method="get"
        preventScrollReset
        className="flex flex-col gap-2"
        data-testid={`${testId}-absolute`}
        onSubmit={(event) => {
          // Inputs give local wall time; the URL carries instants. Recents are kept in the browser only.
          const form = event.currentTarget
          const fromInput = form.elements.namedItem('from') as HTMLInputElement
          const toInput = form.elements.namedItem('to') as HTMLInputElement
          const range: AbsoluteRange = { type: 'absolute', from: localToIso(fromInput.value), to: localToIso(toInput.value) }
          fromInput.value = range.from
          toInput.value = range.to
          const next = addRecentRange(parseRecentRanges(window.localStorage.getItem(RECENTS_KEY)), range)
          window.localStorage.setItem(RECENTS_KEY, JSON.stringify(next))
          setRecents(next)
        }}
      >
        <HiddenParams search={search} exclude={TIME_RANGE_PARAMS} />
        <input type="hidden" name="rangeType" value="absolute" />
        <label className="flex flex-col gap-1 text-sm">
          From
          <input type={hydrated ? 'datetime-local' : 'text'} name="from" required value={hydrated ? from : undefined} onChange={(event) => setFrom(event.target.value)} placeholder="2026-08-21T09:00:00Z or now-1d" className="h-8 rounded-md border border-input bg-card px-2" />
        </label>
        <label className="flex flex-col gap-1 text-sm">
          To
          <input type={hydrated ? 'datetime-local' : 'text'} name="to" required value={hydrated ? to : undefined} onChange={(event) => setTo(event.target.value)} placeholder="2026-08-21T10:00:00Z or now" className="h-8 rounded-md border border-input bg-card px-2" />
        </label>
        <div className="flex gap-2">
          <Link to={hrefWith(search, null)} preventScrollReset className={buttonVariants({ variant: 'outline', size: 'sm' })} data-testid={`${testId}-clear`}>
            Clear
          </Link>
          <button type="submit" disabled={hydrated && (!from || !to)} className={buttonVariants({ size: 'sm' })} data-testid={`${testId}-submit`}>
            Submit
          </button>
        </div>
      </Form>
      {recents.length ? (
        <div className="flex flex-col gap-1">
          <h3 className="text-xs font-semibold uppercase text-muted-foreground">Recently used</h3>
          <ul className="max-h-36 overflow-auto text-sm" data-testid={`${testId}-recents`}>
            {recents.map((range) => (
              <li key={`${range.from}-${range.to}`}>
                <Link to={hrefWith(search, range)} preventScrollReset className="block rounded px-2 py-1 hover:bg-muted">
                  {range.from} - {range.to}
                </Link>
              </li>
            ))}
          </ul>
        </div>
      ) : null}
    </div>
  )
}

/**
 * The shared time-range picker (spec 002 §2): a `<details>` pop-over so it opens without
 * JavaScript; every quick range is a link, the absolute range a GET form.
 */
export function TimeRangePicker(props: TimeRangePickerProps) {
  const { search } = useLocation()
  const testId = props.testId ?? 'time-range-picker'
  const label = props.mode === 'duration' ? durationLabel(props.value) : timeRangeLabel(props.value)
  return (
    <details
      className="relative"
      data-testid={testId}
      // Client navigation keeps this element, so a chosen range would leave the pop-over open.
      onClick={(event) => {
        if ((event.target as HTMLElement).closest('a')) event.currentTarget.open = false
      }}
    >
      <summary className={buttonVariants({ variant: 'outline', size: 'sm' })} data-testid={`${testId}-button`}>
        <CalendarClock aria-hidden="true" />
        {label}
      </summary>
      <div className="absolute right-0 z-40 mt-1 flex w-[min(36rem,90vw)] gap-4 rounded-md border bg-popover p-3 shadow-lg">
        {props.mode === 'duration' ? (
          <ul className="grid w-full grid-cols-3 gap-1 text-sm" data-testid={`${testId}-options`}>
            {props.durations.map((key) => {
              const params = new URLSearchParams(search)
              params.set(props.param ?? 'timeRange', key)
              return (
                <li key={key}>
                  <Link to={`?${params.toString()}`} preventScrollReset replace aria-current={key === props.value ? 'true' : undefined} className={cn('block rounded px-2 py-1 hover:bg-muted', key === props.value && 'bg-accent font-medium')}>
                    {durationLabel(key)}
                  </Link>
                </li>
              )
            })}
          </ul>
        ) : (
          <>
            <div className="flex-1">
              <AbsoluteForm search={search} testId={testId} />
            </div>
            <div className="flex w-48 flex-col gap-2 text-sm">
              <h3 className="text-xs font-semibold uppercase text-muted-foreground">Quick ranges</h3>
              <ul className="max-h-64 overflow-auto" data-testid={`${testId}-quick`}>
                {[...RELATIVE_RANGES, ...MAPPED_RANGES].map((range) => (
                  <li key={range.display}>
                    <Link to={hrefWith(search, range)} preventScrollReset className={cn('block rounded px-2 py-1 hover:bg-muted', props.value?.display === range.display && 'bg-accent font-medium')}>
                      {range.display}
                    </Link>
                  </li>
                ))}
              </ul>
            </div>
          </>
        )}
      </div>
    </details>
  )
}
