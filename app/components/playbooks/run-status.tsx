import { Badge } from '#app/components/ui/badge.tsx'

type Tone = 'success' | 'danger' | 'warning' | 'secondary' | 'outline'

const TONES: Record<string, Tone> = {
  completed: 'success',
  failed: 'danger',
  timed_out: 'danger',
  running: 'warning',
  retrying: 'warning',
  waiting: 'warning',
  waiting_children: 'warning',
  sleeping: 'warning',
  pending_approval: 'outline',
  scheduled: 'outline',
  cancelled: 'secondary',
  skipped: 'secondary',
}

/** A run's or action's status as a badge, in the words of resource-specs §2.7 with spaces. */
export function RunStatusBadge({ status, testId }: { status: string | null | undefined; testId?: string }) {
  const value = status ?? 'unknown'
  return (
    <Badge variant={TONES[value] ?? 'outline'} data-testid={testId} data-status={value}>
      {value.replaceAll('_', ' ')}
    </Badge>
  )
}

/** "1m 34s" between two instants (to now while still running); empty before it starts. */
export function formatRunDuration(start: string | null | undefined, end: string | null | undefined, now: Date): string {
  if (!start) return ''
  const ms = Math.max(0, (end ? new Date(end) : now).getTime() - new Date(start).getTime())
  if (ms < 1000) return `${ms}ms`
  const seconds = Math.round(ms / 1000)
  const hours = Math.floor(seconds / 3600)
  const minutes = Math.floor((seconds % 3600) / 60)
  const rest = seconds % 60
  return [hours ? `${hours}h` : '', minutes ? `${minutes}m` : '', rest || (!hours && !minutes) ? `${rest}s` : ''].filter(Boolean).join(' ')
}

/** The time ranges the runs page offers, newest first, with their labels (spec 002 §9 duration keys). */
export const RUN_RANGES = [
  ['1h', 'Last hour'],
  ['6h', 'Last 6 hours'],
  ['1d', 'Last day'],
  ['3d', 'Last 3 days'],
  ['1w', 'Last week'],
  ['2w', 'Last 2 weeks'],
  ['1mo', 'Last month'],
  ['3mo', 'Last 3 months'],
] as const
export type RunRange = (typeof RUN_RANGES)[number][0]
