import { NavLink } from '@remix-run/react'
import { cn } from '#app/lib/cn.ts'

const SECTIONS = [
  { to: '/catalog', label: 'Catalog', end: true },
  { to: '/catalog/changes', label: 'Changes' },
  { to: '/catalog/insights', label: 'Insights' },
  { to: '/catalog/scrapers', label: 'Scrapers' },
] as const

const TAB_LINK_CLASS = 'inline-flex h-9 items-center border-b-2 px-3 text-sm hover:text-foreground focus-visible:outline-none focus-visible:ring-2 focus-visible:ring-ring'

/** A tab link's classes; the two states share no utility of the same property (cn refuses conflicts). */
export function tabLinkClass(isActive: boolean): string {
  return cn(TAB_LINK_CLASS, isActive ? 'border-primary font-medium text-foreground' : 'border-transparent text-muted-foreground')
}

/** The catalog's own sections (spec 000 §2): the sidebar has one Catalog entry, these are its pages. */
export function CatalogNav() {
  return (
    <nav aria-label="Catalog sections" className="border-b bg-card px-6" data-testid="catalog-nav">
      <ul className="-mb-px flex gap-1">
        {SECTIONS.map((section) => (
          <li key={section.to}>
            <NavLink to={section.to} end={'end' in section ? section.end : false} className={({ isActive }) => tabLinkClass(isActive)}>
              {section.label}
            </NavLink>
          </li>
        ))}
      </ul>
    </nav>
  )
}
