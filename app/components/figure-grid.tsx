import { cn } from '#app/lib/cn.ts'

export type Figure = { label: string; value: number | string | null; tone?: 'default' | 'success' | 'danger' | 'warning'; testId?: string }

const TONES = {
  default: 'text-foreground',
  success: 'text-success',
  danger: 'text-danger',
  warning: 'text-warning',
} as const

/** A row of live numbers; an unknown value shows as a dash rather than a misleading zero. */
export function FigureGrid({ figures, label }: { figures: Figure[]; label: string }) {
  return (
    <dl aria-label={label} className="grid grid-cols-[repeat(auto-fill,minmax(10rem,1fr))] gap-3">
      {figures.map((figure) => (
        <div key={figure.label} className="rounded-lg border bg-card px-4 py-3" data-testid={figure.testId}>
          <dt className="text-xs font-medium text-muted-foreground">{figure.label}</dt>
          <dd className={cn('mt-1 text-2xl font-semibold tabular-nums', figure.value === null ? 'text-muted-foreground' : TONES[figure.tone ?? 'default'])}>
            {figure.value ?? '—'}
          </dd>
        </div>
      ))}
    </dl>
  )
}
