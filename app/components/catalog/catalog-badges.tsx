import { Link } from '@remix-run/react'
import { Badge } from '#app/components/ui/badge.tsx'
import { Icon } from '#app/components/ui/icons.tsx'
import { cn } from '#app/lib/cn.ts'
import { configTypeIcon, healthVariant, hrefWith, severityVariant } from '#app/lib/catalog-vocabulary.ts'

/** An item's health as a coloured badge ('unknown' when none is recorded). */
export function HealthBadge({ health, testId }: { health: string | null | undefined; testId?: string }) {
  return (
    <Badge variant={healthVariant(health)} data-testid={testId}>
      {health || 'unknown'}
    </Badge>
  )
}

export function SeverityBadge({ severity }: { severity: string | null | undefined }) {
  if (!severity) return null
  return <Badge variant={severityVariant(severity)}>{severity}</Badge>
}

/** The type's family icon and its name (`Kubernetes::Pod` reads as "Kubernetes Pod"). */
export function ConfigType({ type, className, iconClassName = 'size-4' }: { type: string | null | undefined; className?: string; iconClassName?: string }) {
  return (
    <span className={cn('inline-flex items-center gap-1.5', className)}>
      <Icon name={configTypeIcon(type)} aria-hidden="true" className={cn('shrink-0 text-muted-foreground', iconClassName)} />
      <span>{(type ?? '').replace(/::+/g, ' ').trim()}</span>
    </span>
  )
}

/**
 * Labels or tags as chips; with `filterParam` each chip is a link that adds `key=value` to that
 * filter of the current list.
 */
export function KeyValueChips({ values, filterParam, search, limit, testId }: { values: Record<string, string> | null | undefined; filterParam?: 'label' | 'tag'; search?: string; limit?: number; testId?: string }) {
  const entries = Object.entries(values ?? {}).sort(([a], [b]) => a.localeCompare(b))
  if (entries.length === 0) return null
  const shown = limit ? entries.slice(0, limit) : entries
  const current = new URLSearchParams(search ?? '')
  return (
    <ul className="flex flex-wrap gap-1" data-testid={testId}>
      {shown.map(([key, value]) => {
        const text = `${key}=${value}`
        const chip = <span className="inline-flex max-w-64 truncate rounded border bg-muted px-1.5 py-0.5 font-mono text-xs">{text}</span>
        return (
          <li key={key} title={text}>
            {filterParam ? (
              <Link to={hrefWith(current, { [filterParam]: [...new Set([...current.getAll(filterParam), text])] })} preventScrollReset className="hover:underline">
                {chip}
              </Link>
            ) : (
              chip
            )}
          </li>
        )
      })}
      {shown.length < entries.length ? <li className="text-xs text-muted-foreground">+{entries.length - shown.length}</li> : null}
    </ul>
  )
}

const TAB_LINK_CLASS = 'inline-flex h-9 items-center border-b-2 px-3 text-sm hover:text-foreground focus-visible:outline-none focus-visible:ring-2 focus-visible:ring-ring'

/** A catalog tab link's classes; the two states share no utility of the same property (cn refuses conflicts). */
export function tabLinkClass(isActive: boolean): string {
  return cn(TAB_LINK_CLASS, isActive ? 'border-primary font-medium text-foreground' : 'border-transparent text-muted-foreground')
}
