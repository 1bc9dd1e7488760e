import { Link } from '@remix-run/react'
import { Badge, type BadgeProps } from '#app/components/ui/badge.tsx'
import { cn } from '#app/lib/cn.ts'
import { NOTIFICATIONS_HREF, RULES_HREF, SILENCES_HREF } from '#app/lib/notification-form-shapes.ts'

const SECTIONS = [
  { href: NOTIFICATIONS_HREF, label: 'Notifications', id: 'notifications' },
  { href: RULES_HREF, label: 'Rules', id: 'rules' },
  { href: SILENCES_HREF, label: 'Silences', id: 'silences' },
] as const

/** The links between the three notification screens, the current one marked. */
export function NotificationsNav({ current }: { current: (typeof SECTIONS)[number]['id'] }) {
  return (
    <nav aria-label="Notifications" className="flex gap-1 border-b px-6" data-testid="notifications-nav">
      {SECTIONS.map((section) => (
        <Link
          key={section.id}
          to={section.href}
          aria-current={section.id === current ? 'page' : undefined}
          data-testid={`notifications-nav-${section.id}`}
          className={cn('-mb-px border-b-2 px-3 py-2 text-sm', section.id === current ? 'border-primary font-medium text-foreground' : 'border-transparent text-muted-foreground hover:text-foreground')}
        >
          {section.label}
        </Link>
      ))}
    </nav>
  )
}

function sendStatusVariant(status: string | null | undefined): BadgeProps['variant'] {
  switch (status) {
    case 'sent':
      return 'success'
    case 'error':
      return 'danger'
    case 'silenced':
    case 'inhibited':
    case 'repeat-interval':
    case 'skipped':
      return 'secondary'
    default:
      return 'warning'
  }
}

/** A send-history status (sent, error, silenced, pending…) as a coloured badge. */
export function SendStatusBadge({ status }: { status: string | null | undefined }) {
  return (
    <Badge variant={sendStatusVariant(status)} data-testid="send-status" data-status={status ?? ''}>
      {status || 'unknown'}
    </Badge>
  )
}

const HEALTH_VARIANT: Record<string, BadgeProps['variant']> = { healthy: 'success', warning: 'warning', unhealthy: 'danger' }

/**
 * A resource's health as a coloured badge ('unknown' when none is recorded). The catalog's badge
 * would bring its vocabulary chunk, which these pages' JavaScript budget has no room for.
 */
export function ResourceHealthBadge({ health, testId }: { health: string | null | undefined; testId?: string }) {
  return (
    <Badge variant={(health && HEALTH_VARIANT[health]) || 'outline'} data-testid={testId}>
      {health || 'unknown'}
    </Badge>
  )
}

/** A count that draws the eye only when it is not zero. */
export function Count({ value, tone, testId }: { value: number; tone: 'success' | 'danger' | 'muted'; testId: string }) {
  const colour = value === 0 ? 'text-muted-foreground' : tone === 'success' ? 'text-success' : tone === 'danger' ? 'text-danger' : 'text-foreground'
  return (
    <span className={cn('tabular-nums', colour)} data-testid={testId}>
      {value}
    </span>
  )
}
