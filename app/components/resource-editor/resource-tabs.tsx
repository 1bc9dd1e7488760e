import { Link } from '@remix-run/react'
import { cn } from '#app/lib/cn.ts'

export type EditorTab = { id: string; label: string; href: string }

/** The editor's tab bar; each tab is a link so it works without JavaScript. */
export function ResourceTabs({ tabs, current }: { tabs: readonly EditorTab[]; current: string }) {
  return (
    <nav aria-label="Resource sections" className="flex gap-1 border-b" data-testid="resource-tabs">
      {tabs.map((tab) => (
        <Link
          key={tab.id}
          to={tab.href}
          preventScrollReset
          aria-current={tab.id === current ? 'page' : undefined}
          data-testid={`tab-${tab.id}`}
          className={cn('-mb-px border-b-2 px-3 py-2 text-sm', tab.id === current ? 'border-primary font-medium text-foreground' : 'border-transparent text-muted-foreground hover:text-foreground')}
        >
          {tab.label}
        </Link>
      ))}
    </nav>
  )
}
