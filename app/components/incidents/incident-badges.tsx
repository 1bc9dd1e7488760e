import { cn } from '#app/lib/cn.ts'
import {
  getSeverityBadge,
  HYPOTHESIS_STATUS_TONES,
  INCIDENT_STATUS_TONES,
  isHypothesisStatus,
  isIncidentStatus,
  labelOf,
  type BadgeTone,
} from '#app/lib/incidents.ts'

const TONE_CLASSES: Record<BadgeTone, string> = {
  gray: 'border-gray-300 bg-gray-100 text-gray-700',
  blue: 'border-blue-300 bg-blue-50 text-blue-700',
  red: 'border-red-300 bg-red-50 text-red-700',
  orange: 'border-orange-300 bg-orange-50 text-orange-700',
  yellow: 'border-yellow-300 bg-yellow-50 text-yellow-800',
  green: 'border-green-300 bg-green-50 text-green-700',
  purple: 'border-purple-300 bg-purple-50 text-purple-700',
}

function ToneBadge({ tone, children, testId, title }: { tone: BadgeTone; children: string; testId?: string; title?: string }) {
  return (
    <span
      data-testid={testId}
      data-tone={tone}
      title={title}
      className={cn('inline-flex items-center gap-1 rounded-md border px-1.5 py-0.5 text-xs font-medium whitespace-nowrap', TONE_CLASSES[tone])}
    >
      {children}
    </span>
  )
}

/** Severity by the spec's numeric mapping, so 'Medium' and 'medium' look the same. */
export function SeverityBadge({ severity }: { severity: string | null | undefined }) {
  const badge = getSeverityBadge(severity)
  return (
    <ToneBadge tone={badge.tone} testId="severity-badge" title={`Severity ${badge.level}`}>
      {badge.label}
    </ToneBadge>
  )
}

export function IncidentStatusBadge({ status }: { status: string | null | undefined }) {
  const tone = isIncidentStatus(status) ? INCIDENT_STATUS_TONES[status] : 'gray'
  return (
    <ToneBadge tone={tone} testId="status-badge">
      {labelOf(status) || 'Unknown'}
    </ToneBadge>
  )
}

export function HypothesisStatusBadge({ status }: { status: string | null | undefined }) {
  const tone = isHypothesisStatus(status) ? HYPOTHESIS_STATUS_TONES[status] : 'gray'
  return (
    <ToneBadge tone={tone} testId="hypothesis-status-badge">
      {labelOf(status) || 'Unknown'}
    </ToneBadge>
  )
}
