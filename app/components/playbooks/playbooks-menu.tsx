import { Link } from '@remix-run/react'
import { buttonVariants } from '#app/components/ui/button.tsx'
import { ChevronDown, Play } from '#app/components/ui/icons.tsx'
import { cn } from '#app/lib/cn.ts'
import { runDialogHref, type RunTargetParams } from './playbook-links.ts'

export type PlaybookMenuEntry = { id: string; name: string; title?: string | null }

/**
 * The 'Playbooks' drop-down of config, component and check pages (spec 002 §2 "Playbook run"):
 * the playbooks that may run on this resource, each opening the Run Playbook dialog with the
 * resource chosen. A `<details>` of links, so it works without JavaScript; hidden when nothing
 * may run here (or the caller may not run playbooks: the loader passes none).
 */
export function PlaybooksMenu({ playbooks, target, returnTo, align = 'right' }: { playbooks: PlaybookMenuEntry[] | null | undefined; target: RunTargetParams; returnTo: string; align?: 'left' | 'right' }) {
  if (!playbooks?.length) return null
  return (
    <details className="relative" data-testid="playbooks-menu">
      <summary className={cn(buttonVariants({ variant: 'outline', size: 'sm' }), 'list-none')}>
        <Play aria-hidden="true" />
        Playbooks
        <ChevronDown aria-hidden="true" />
      </summary>
      <ul className={cn('absolute z-20 mt-1 flex min-w-48 flex-col rounded-md border bg-popover p-1 text-sm shadow-md', align === 'right' ? 'right-0' : 'left-0')}>
        {playbooks.map((playbook) => (
          <li key={playbook.id}>
            <Link to={runDialogHref(playbook.id, target, returnTo)} className="block rounded px-2 py-1 hover:bg-accent" data-testid="playbook-link">
              {playbook.title || playbook.name}
            </Link>
          </li>
        ))}
      </ul>
    </details>
  )
}
