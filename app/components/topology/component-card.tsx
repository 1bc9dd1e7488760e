import { Link } from '@remix-run/react'
import type { ReactNode } from 'react'
import { DateTime } from '#app/components/date-time.tsx'
import { Badge } from '#app/components/ui/badge.tsx'
import { EyeOff, Icon } from '#app/components/ui/icons.tsx'
import { cn } from '#app/lib/cn.ts'
import { HEALTH_BADGE, HEALTH_BORDER, type TopologyCardData } from './topology-model.ts'

const CHECK_TONE: Record<string, 'success' | 'danger' | 'warning' | 'outline'> = { healthy: 'success', unhealthy: 'danger', warning: 'warning' }

const LARGE_TEXT: Record<string, string> = { healthy: 'text-success', unhealthy: 'text-danger', warning: 'text-warning', unknown: 'text-muted-foreground' }

/** Children by health, worst first, as small coloured counts (on a wall, as large coloured text). */
function ChildCounts({ children, large }: { children: TopologyCardData['children']; large: boolean }) {
  if (children.total === 0) return null
  const parts = (['unhealthy', 'warning', 'healthy', 'unknown'] as const).filter((key) => children[key] > 0)
  return (
    <span className={cn('flex flex-wrap items-center', large ? 'gap-3' : 'gap-1')} data-testid="card-children">
      <span className="text-muted-foreground">
        {children.total} {children.total === 1 ? 'component' : 'components'}
      </span>
      {parts.map((key) =>
        large ? (
          <span key={key} className={cn('font-semibold', LARGE_TEXT[key])}>
            {children[key]} {key}
          </span>
        ) : (
          <Badge key={key} variant={HEALTH_BADGE[key]} title={`${children[key]} ${key}`}>
            {children[key]} {key}
          </Badge>
        ),
      )}
    </span>
  )
}

const LARGE_HEALTH: Record<string, string> = { healthy: 'bg-success text-white', unhealthy: 'bg-danger text-white', warning: 'bg-warning text-white', unknown: 'bg-muted text-foreground' }

/** The health as a badge, or for a wall screen as a large solid label. */
export function HealthLabel({ health, large = false, testId }: { health: string; large?: boolean; testId?: string }) {
  if (!large) {
    return (
      <Badge variant={HEALTH_BADGE[health] ?? 'outline'} data-testid={testId}>
        {health}
      </Badge>
    )
  }
  return (
    <span className={cn('rounded-lg px-3 py-1 text-xl font-bold', LARGE_HEALTH[health] ?? LARGE_HEALTH.unknown)} data-testid={testId}>
      {health}
    </span>
  )
}

/**
 * One component as a card (spec 000 §2 topology dashboard): health as the left border's colour,
 * icon, name and type, headline properties, check and insight counts, node info for nodes, and
 * its children by health. The whole header is a link, so it works without JavaScript; `width`
 * is the card-width preference (spec 002 §2).
 */
export function ComponentCard({ card, width, large = false, href }: { card: TopologyCardData; width?: number; large?: boolean; href?: string }) {
  const title = (
    <span className="flex min-w-0 items-center gap-2">
      <Icon name={card.icon} aria-hidden="true" className={cn('shrink-0 text-muted-foreground', large ? 'size-8' : 'size-5')} />
      <span className="min-w-0">
        <span className={cn('block truncate font-semibold', large ? 'text-3xl' : 'text-base')} data-testid="card-name">
          {card.name}
        </span>
        <span className={cn('block truncate text-muted-foreground', large ? 'text-xl' : 'text-xs')}>{card.type}</span>
      </span>
    </span>
  )
  return (
    <li
      data-testid="component-card"
      data-health={card.health}
      data-id={card.id}
      style={width ? { width: `${width}px` } : undefined}
      className={cn('flex max-w-full flex-col rounded-md border border-l-4 bg-card shadow-sm', HEALTH_BORDER[card.health], large ? 'gap-3 p-5 text-xl' : 'gap-2 p-3 text-sm')}
    >
      <div className="flex items-start justify-between gap-2">
        {href ? (
          <Link to={href} className="min-w-0 hover:underline" data-testid="card-link">
            {title}
          </Link>
        ) : (
          title
        )}
        <span className="flex shrink-0 items-center gap-1">
          {card.hidden ? <EyeOff aria-label="hidden component" className="size-4 text-muted-foreground" /> : null}
          <HealthLabel health={card.health} large={large} testId="card-health" />
        </span>
      </div>
      {card.statusReason ? <p className={cn('text-muted-foreground', large ? 'text-lg' : 'text-xs')}>{card.statusReason}</p> : null}
      {card.text ? <p className="text-muted-foreground">{card.text}</p> : null}
      {card.properties.length > 0 ? (
        <dl className="grid grid-cols-[repeat(auto-fill,minmax(7rem,1fr))] gap-x-3 gap-y-1" data-testid="card-properties">
          {card.properties.map((property) => (
            <div key={property.name} className="min-w-0" title={property.tooltip}>
              <dt className={cn('truncate text-muted-foreground', large ? 'text-base' : 'text-xs')}>{property.label}</dt>
              <dd className={cn('truncate', property.headline && 'font-semibold', property.headline && !large && 'text-base')} data-testid={property.headline ? 'card-headline' : undefined}>
                {property.value}
              </dd>
            </div>
          ))}
        </dl>
      ) : null}
      {card.nodeInfo.length > 0 ? (
        <dl className="flex flex-wrap gap-x-3 gap-y-0.5 text-xs" data-testid="card-node-info">
          {card.nodeInfo.map((info) => (
            <div key={info.label} className="flex gap-1">
              <dt className="text-muted-foreground">{info.label}</dt>
              <dd>{info.isDate ? <DateTime value={info.value} testId="card-created" /> : info.value}</dd>
            </div>
          ))}
        </dl>
      ) : null}
      <div className={cn('mt-auto flex flex-wrap items-center gap-x-3 gap-y-1', large ? 'text-lg' : 'text-xs')}>
        <ChildCounts children={card.children} large={large} />
        {card.checks.length > 0 ? (
          <span className="flex items-center gap-1" data-testid="card-checks">
            <span className="text-muted-foreground">checks</span>
            {card.checks.map(([status, count]) => (
              <Badge key={status} variant={CHECK_TONE[status] ?? 'outline'} title={`${count} ${status} checks`}>
                {count} {status}
              </Badge>
            ))}
          </span>
        ) : null}
        {card.insights > 0 ? (
          <Badge variant="warning" data-testid="card-insights">
            {card.insights} {card.insights === 1 ? 'insight' : 'insights'}
          </Badge>
        ) : null}
        {card.incidents > 0 ? (
          <Badge variant="danger" data-testid="card-incidents">
            {card.incidents} {card.incidents === 1 ? 'incident' : 'incidents'}
          </Badge>
        ) : null}
        {card.updatedAt && !large ? (
          <span className="ml-auto text-muted-foreground">
            updated <DateTime value={card.updatedAt} testId="card-updated" />
          </span>
        ) : null}
      </div>
    </li>
  )
}

/** Cards in rows at the chosen width; a narrower window shows fewer per row. */
export function CardGrid({ children, testId = 'component-cards' }: { children: ReactNode; testId?: string }) {
  return (
    <ul className="flex flex-wrap items-stretch gap-3" data-testid={testId}>
      {children}
    </ul>
  )
}
