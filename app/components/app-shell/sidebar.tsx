import { Form, Link, NavLink, useFetcher, useLocation } from '@remix-run/react'
import { ChevronRight, PanelLeftClose, PanelLeftOpen, Radar } from '#app/components/ui/icons.tsx'
import { useRef } from 'react'
import { useHydrated } from 'remix-utils/use-hydrated'
import { useDismissableDetails } from '#app/components/ui/dropdown-menu.tsx'
import { cn } from '#app/lib/cn.ts'
import type { NavEntry, Sidebar as SidebarData } from '#app/lib/navigation.ts'
import { NavIcon } from './nav-icon.tsx'

export const SIDEBAR_ACTION = '/resources/sidebar'
const SIDEBAR_FETCHER_KEY = 'sidebar-toggle'

function entryClassName(isActive: boolean, collapsed: boolean): string {
  return cn(
    'flex h-8 items-center gap-2.5 rounded-md text-sm transition-colors hover:bg-sidebar-active hover:text-foreground focus-visible:outline-none focus-visible:ring-2 focus-visible:ring-ring',
    isActive ? 'bg-sidebar-active font-medium text-foreground' : 'text-sidebar-foreground',
    collapsed ? 'justify-center' : 'px-2',
  )
}

function NavItem({ entry, collapsed }: { entry: NavEntry; collapsed: boolean }) {
  return (
    <li>
      <NavLink
        to={entry.href}
        prefetch="intent"
        data-testid={`nav-${entry.name}`}
        title={collapsed ? entry.label : undefined}
        className={({ isActive }) => entryClassName(isActive, collapsed)}
      >
        <NavIcon name={entry.icon} className="size-4 shrink-0" />
        <span className={cn('truncate', collapsed && 'sr-only')}>{entry.label}</span>
      </NavLink>
    </li>
  )
}

/** Settings as a submenu when expanded and as a flyout beside the rail when collapsed. */
function SettingsGroup({ entries, collapsed }: { entries: NavEntry[]; collapsed: boolean }) {
  const { pathname } = useLocation()
  const ref = useRef<HTMLDetailsElement>(null)
  // Only the flyout behaves like a menu; the expanded submenu stays open while you work in it.
  useDismissableDetails(ref, collapsed)
  const isActive = entries.some((entry) => pathname === entry.href || pathname.startsWith(`${entry.href}/`))
  return (
    <details ref={ref} key={collapsed ? 'flyout' : 'submenu'} className="group/settings relative" open={!collapsed && isActive ? true : undefined}>
      <summary data-testid="nav-settings" title={collapsed ? 'Settings' : undefined} className={entryClassName(isActive, collapsed)}>
        <NavIcon name="settings" className="size-4 shrink-0" />
        <span className={cn('flex-1 truncate', collapsed && 'sr-only')}>Settings</span>
        {collapsed ? null : <ChevronRight aria-hidden="true" className="size-3.5 transition-transform group-open/settings:rotate-90" />}
      </summary>
      <ul
        aria-label="Settings"
        className={cn(
          'flex flex-col gap-0.5',
          collapsed ? 'absolute bottom-0 left-full z-40 ml-2 w-52 rounded-md border bg-popover p-1 shadow-md' : 'mt-0.5 ml-4 border-l pl-2',
        )}
      >
        {entries.map((entry) => (
          <li key={entry.name}>
            <NavLink
              to={entry.href}
              prefetch="intent"
              data-testid={`nav-${entry.name}`}
              className={({ isActive: isEntryActive }) => entryClassName(isEntryActive, false)}
            >
              <span className="truncate">{entry.label}</span>
            </NavLink>
          </li>
        ))}
      </ul>
    </details>
  )
}

/**
 * Collapse/expand is a POST to a resource route that sets a cookie. Without JavaScript the
 * form posts and is redirected back; with it a fetcher flips the state in place.
 */
function SidebarToggle({ collapsed }: { collapsed: boolean }) {
  const location = useLocation()
  const isHydrated = useHydrated()
  const Icon = collapsed ? PanelLeftOpen : PanelLeftClose
  const label = collapsed ? 'Expand sidebar' : 'Collapse sidebar'
  return (
    <Form method="post" action={SIDEBAR_ACTION} navigate={false} fetcherKey={SIDEBAR_FETCHER_KEY}>
      <input type="hidden" name="collapsed" value={String(!collapsed)} />
      <input type="hidden" name="redirectTo" value={`${location.pathname}${location.search}`} />
      {/* Only present once hydrated: tells the action to answer with data instead of a redirect. */}
      {isHydrated ? <input type="hidden" name="mode" value="fetch" /> : null}
      <button
        type="submit"
        data-testid="sidebar-toggle"
        aria-label={label}
        title={label}
        aria-expanded={!collapsed}
        aria-controls="sidebar"
        className={cn(entryClassName(false, collapsed), 'w-full')}
      >
        <Icon aria-hidden="true" className="size-4 shrink-0" />
        <span className={cn('truncate', collapsed && 'sr-only')}>Collapse</span>
      </button>
    </Form>
  )
}

export function useSidebarCollapsed(fromCookie: boolean): boolean {
  // The toggle's fetcher is keyed so the layout can read the pending and settled state.
  const fetcher = useFetcher<{ collapsed?: boolean }>({ key: SIDEBAR_FETCHER_KEY })
  const pending = fetcher.formData?.get('collapsed')
  if (typeof pending === 'string') return pending === 'true'
  if (typeof fetcher.data?.collapsed === 'boolean') return fetcher.data.collapsed
  return fromCookie
}

export function Sidebar({ sidebar, collapsed }: { sidebar: SidebarData; collapsed: boolean }) {
  return (
    <aside
      id="sidebar"
      data-testid="sidebar"
      data-collapsed={collapsed ? 'true' : 'false'}
      aria-label="Sidebar"
      className={cn('sticky top-0 flex h-screen shrink-0 flex-col border-r bg-sidebar transition-[width]', collapsed ? 'w-14' : 'w-56')}
    >
      <div className={cn('flex h-12 items-center border-b', collapsed ? 'justify-center' : 'px-3')}>
        <Link to="/" className="flex items-center gap-2 rounded-md font-semibold focus-visible:outline-none focus-visible:ring-2 focus-visible:ring-ring" aria-label="Lookout home">
          <Radar aria-hidden="true" className="size-5 text-primary" />
          <span className={cn(collapsed && 'sr-only')}>Lookout</span>
        </Link>
      </div>
      {/* No overflow clipping on the rail: the collapsed settings flyout pokes out to the right. */}
      <nav aria-label="Main navigation" className={cn('flex flex-1 flex-col gap-3 p-2', !collapsed && 'overflow-y-auto')}>
        <ul className="flex flex-col gap-0.5">
          {sidebar.main.map((entry) => (
            <NavItem key={entry.name} entry={entry} collapsed={collapsed} />
          ))}
        </ul>
        {sidebar.views.length > 0 ? (
          <div className="flex flex-col gap-0.5">
            <p className={cn('px-2 text-[11px] font-semibold uppercase tracking-wide text-muted-foreground', collapsed && 'sr-only')}>Views</p>
            <ul className="flex flex-col gap-0.5" aria-label="Views">
              {sidebar.views.map((entry) => (
                <NavItem key={entry.name} entry={entry} collapsed={collapsed} />
              ))}
            </ul>
          </div>
        ) : null}
        {sidebar.settings.length > 0 ? (
          <div className="mt-auto">
            <SettingsGroup entries={sidebar.settings} collapsed={collapsed} />
          </div>
        ) : null}
      </nav>
      <div className="border-t p-2">
        <SidebarToggle collapsed={collapsed} />
      </div>
    </aside>
  )
}
