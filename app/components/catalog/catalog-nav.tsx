import { NavLink } from '@remix-run/react'
import { tabLinkClass } from './catalog-badges.tsx'

const SECTIONS = [
  { to: '/catalog', label: 'Catalog', end: true },
  { to: '/catalog/changes', label: 'Changes' },
  { to: '/catalog/insights', label: 'Insights' },
  { to: '/catalog/scrapers', label: 'Scrapers' },
] as const


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
