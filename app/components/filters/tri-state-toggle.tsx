import { Link } from '@remix-run/react'
import { Minus, Plus } from '#app/components/ui/icons.tsx'
import { nextFilterState, type FilterState } from '#app/lib/filter-string.ts'
import { cn } from '#app/lib/cn.ts'

export type TriStateToggleProps = {
  label: string
  state: FilterState
  /** The URL that applies a new state (links work without JavaScript). */
  hrefFor: (next: FilterState) => string
  testId?: string
}

/**
 * Exclude / neutral / include (spec 002 §4): choosing the current side again resets to neutral.
 */
export function TriStateToggle({ label, state, hrefFor, testId }: TriStateToggleProps) {
  const side = (value: 1 | -1) => {
    const active = state === value
    const Icon = value === 1 ? Plus : Minus
    return (
      <Link
        to={hrefFor(nextFilterState(state, value))}
        preventScrollReset
        replace
        discover="none"
        aria-pressed={active}
        // The title is the link's accessible name too (its only content is a hidden icon).
        title={`${value === 1 ? 'Include' : 'Exclude'} ${label}`}
        data-testid={testId ? `${testId}-${value === 1 ? 'include' : 'exclude'}` : undefined}
        className={cn(
          'inline-flex size-6 items-center justify-center rounded border hover:bg-muted',
          !active && 'text-muted-foreground',
          active && value === 1 && 'border-success bg-success-muted text-success',
          active && value === -1 && 'border-danger bg-danger-muted text-danger',
        )}
      >
        <Icon className="size-3" />
      </Link>
    )
  }
  return (
    <div className="flex items-center gap-2" data-testid={testId} data-state={state}>
      {side(-1)}
      <span className={cn('min-w-0 flex-1 truncate text-sm', state === -1 && 'line-through')}>{label}</span>
      {side(1)}
    </div>
  )
}
