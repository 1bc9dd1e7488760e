import { cn } from '#app/lib/cn.ts'

export type HealthState = 'healthy' | 'unhealthy' | 'unknown' | 'good' | 'mixed' | 'bad'

/** Green healthy/good, red unhealthy/bad, orange mixed, grey unknown (spec 001 §4). */
export const STATUS_COLOURS: Record<HealthState, string> = {
  healthy: 'bg-success',
  good: 'bg-success',
  unhealthy: 'bg-danger',
  bad: 'bg-danger',
  mixed: 'bg-warning',
  unknown: 'bg-muted-foreground/40',
}

export function StatusDot({ status, className }: { status: HealthState; className?: string }) {
  return (
    <span
      role="img"
      aria-label={status}
      title={status}
      data-status={status}
      data-testid="status-dot"
      className={cn('inline-block size-2.5 shrink-0 rounded-full', STATUS_COLOURS[status], className)}
    />
  )
}
