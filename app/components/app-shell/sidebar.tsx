import { Form, Link, NavLink, useFetcher, useLocation } from '@remix-run/react'
import { ChevronRight, PanelLeftClose, PanelLeftOpen, Radar } from '#app/components/ui/icons.tsx'
import { useEffect, useRef, useState, useSyncExternalStore, type RefObject } from 'react'
import { useHydrated } from 'remix-utils/use-hydrated'
import { useDismissableDetails } from '#app/components/ui/dropdown-menu.tsx'
import { cn } from '#app/lib/cn.ts'
import type { NavEntry, Sidebar as SidebarData } from '#app/lib/navigation.ts'
import { NavIcon } from './nav-icon.tsx'

export const SIDEBAR_ACTION = '/resources/sidebar'
const SIDEBAR_FETCHER_KEY = 'sidebar-toggle'

/**
 * How the sidebar is drawn (spec 002 §9: 14 units collapsed, 56 expanded, collapsed below 1024 px):
 * - `rail`: icons only, settings as a flyout (collapsed by the person, or a narrow window with JS);
 * - `responsive`: expanded from 1024 px and a rail below it by CSS alone, which is what the server
 *   sends when it does not know the width (no JavaScript, or before hydration);
 * - `overlay`: a narrow window whose rail the person opened; it lies over the page and a click
 *   outside closes it (spec 002 §4).
 */
type SidebarVariant = 'rail' | 'responsive' | 'overlay'

const byVariant = (variant: SidebarVariant, classes: Record<SidebarVariant, string>): string => classes[variant]

/** Matches Tailwind's `lg` breakpoint, under which the sidebar is a rail. */
const NARROW_QUERY = '(max-width: 1023.98px)'

function subscribeToNarrow(onChange: () => void): () => void {
  const query = window.matchMedia(NARROW_QUERY)
  query.addEventListener('change', onChange)
  return () => query.removeEventListener('change', onChange)
}

/** False on the server and during hydration, so the first browser render matches the HTML. */
function useIsNarrowWindow(): boolean {
  return useSyncExternalStore(subscribeToNarrow, () => window.matchMedia(NARROW_QUERY).matches, () => false)
}

function labelClassName(variant: SidebarVariant, extra?: string): string {
  return cn('truncate', extra, byVariant(variant, { rail: 'sr-only', responsive: 'max-lg:sr-only', overlay: '' }))
}

function entryClassName(isActive: boolean, variant: SidebarVariant): string {
  return cn(
    'flex h-8 items-center gap-2.5 rounded-md text-sm transition-colors hover:bg-sidebar-active hover:text-foreground focus-visible:outline-none focus-visible:ring-2 focus-visible:ring-ring',
    isActive ? 'bg-sidebar-active font-medium text-foreground' : 'text-sidebar-foreground',
    byVariant(variant, { rail: 'justify-center', responsive: 'px-2 max-lg:justify-center max-lg:px-0', overlay: 'px-2' }),
  )
}

function NavItem({ entry, variant }: { entry: NavEntry; variant: SidebarVariant }) {
  return (
    <li>
      <NavLink
        to={entry.href}
        prefetch="intent"
        data-testid={`nav-${entry.name}`}
        title={variant === 'overlay' ? undefined : entry.label}
        className={({ isActive }) => entryClassName(isActive, variant)}
      >
        <NavIcon name={entry.icon} className="size-4 shrink-0" />
        <span className={labelClassName(variant)}>{entry.label}</span>
      </NavLink>
    </li>
  )
}

/**
 * Settings as a submenu when expanded and as a flyout beside the rail (spec 002 §2). The server
 * never renders it open: it cannot tell a wide window (submenu, open on a settings page) from a
 * narrow one (a flyout that would cover the page); once hydrated a wide window opens it there.
 */
function SettingsGroup({ entries, variant, isNarrow }: { entries: NavEntry[]; variant: SidebarVariant; isNarrow: boolean }) {
  const { pathname } = useLocation()
  const ref = useRef<HTMLDetailsElement>(null)
  const isFlyout = variant === 'rail' || (variant === 'responsive' && isNarrow)
  // Only the flyout behaves like a menu; the expanded submenu stays open while you work in it.
  useDismissableDetails(ref, isFlyout)
  const isActive = entries.some((entry) => pathname === entry.href || pathname.startsWith(`${entry.href}/`))
  useEffect(() => {
    if (!isFlyout && isActive && ref.current) ref.current.open = true
  }, [isFlyout, isActive])
  return (
    <details ref={ref} key={isFlyout ? 'flyout' : 'submenu'} data-testid="nav-settings-group" className="group/settings relative">
      <summary data-testid="nav-settings" title={variant === 'overlay' ? undefined : 'Settings'} className={entryClassName(isActive, variant)}>
        <NavIcon name="settings" className="size-4 shrink-0" />
        <span className={labelClassName(variant, 'flex-1')}>Settings</span>
        {variant === 'rail' ? null : (
          <ChevronRight
            aria-hidden="true"
            className={cn('size-3.5 transition-transform group-open/settings:rotate-90', variant === 'responsive' && 'max-lg:hidden')}
          />
        )}
      </summary>
      <ul
        aria-label="Settings"
        data-testid="nav-settings-menu"
        className={cn(
          'flex flex-col gap-0.5',
          byVariant(variant, {
            rail: 'absolute bottom-0 left-full z-40 ml-2 w-52 rounded-md border bg-popover p-1 shadow-md',
            responsive:
              'mt-0.5 ml-4 border-l pl-2 max-lg:absolute max-lg:bottom-0 max-lg:left-full max-lg:z-40 max-lg:mt-0 max-lg:ml-2 max-lg:w-52 max-lg:rounded-md max-lg:border max-lg:bg-popover max-lg:p-1 max-lg:shadow-md',
            overlay: 'mt-0.5 ml-4 border-l pl-2',
          }),
        )}
      >
        {entries.map((entry) => (
          <li key={entry.name}>
            <NavLink
              to={entry.href}
              prefetch="intent"
              data-testid={`nav-${entry.name}`}
              className={({ isActive: isEntryActive }) => entryClassName(isEntryActive, 'overlay')}
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
 * form posts and is redirected back; with it a fetcher flips the state in place. Below 1024 px
 * the CSS keeps the rail whatever the cookie says, so without JavaScript the button is not
 * offered there; with JavaScript a narrow window gets the overlay button instead.
 */
function SidebarToggle({ collapsed, variant }: { collapsed: boolean; variant: SidebarVariant }) {
  const location = useLocation()
  const isHydrated = useHydrated()
  const Icon = collapsed ? PanelLeftOpen : PanelLeftClose
  const label = collapsed ? 'Expand sidebar' : 'Collapse sidebar'
  return (
    <Form method="post" action={SIDEBAR_ACTION} navigate={false} fetcherKey={SIDEBAR_FETCHER_KEY} className={cn(!isHydrated && 'max-lg:hidden')}>
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
        className={cn(entryClassName(false, variant), 'w-full')}
      >
        <Icon aria-hidden="true" className="size-4 shrink-0" />
        <span className={labelClassName(variant)}>Collapse</span>
      </button>
    </Form>
  )
}

/** A narrow window's toggle: opens the sidebar over the page for a moment, stores nothing. */
function OverlayToggle({ isOpen, onToggle }: { isOpen: boolean; onToggle: () => void }) {
  const label = isOpen ? 'Close sidebar' : 'Open sidebar'
  const Icon = isOpen ? PanelLeftClose : PanelLeftOpen
  return (
    <button
      type="button"
      data-testid="sidebar-toggle"
      aria-label={label}
      title={label}
      aria-expanded={isOpen}
      aria-controls="sidebar"
      onClick={onToggle}
      className={cn(entryClassName(false, isOpen ? 'overlay' : 'rail'), 'w-full')}
    >
      <Icon aria-hidden="true" className="size-4 shrink-0" />
      <span className={labelClassName(isOpen ? 'overlay' : 'rail')}>Close</span>
    </button>
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

/** The overlay closes on a click outside it, on Escape and on every navigation. */
function useOverlayDismissal(isOpen: boolean, close: () => void, ref: RefObject<HTMLElement | null>): void {
  const { key } = useLocation()
  useEffect(() => close(), [key, close])
  useEffect(() => {
    if (!isOpen) return
    function handlePointerDown(event: PointerEvent) {
      if (event.target instanceof Node && !ref.current?.contains(event.target)) close()
    }
    function handleKeyDown(event: KeyboardEvent) {
      if (event.key === 'Escape') close()
    }
    document.addEventListener('pointerdown', handlePointerDown)
    document.addEventListener('keydown', handleKeyDown)
    return () => {
      document.removeEventListener('pointerdown', handlePointerDown)
      document.removeEventListener('keydown', handleKeyDown)
    }
  }, [isOpen, close, ref])
}

const closeOverlay = (setOpen: (open: boolean) => void) => () => setOpen(false)

export function Sidebar({ sidebar, collapsed }: { sidebar: SidebarData; collapsed: boolean }) {
  const isNarrow = useIsNarrowWindow()
  const [isOverlayOpen, setOverlayOpen] = useState(false)
  const asideRef = useRef<HTMLElement>(null)
  const close = useRef(closeOverlay(setOverlayOpen)).current
  useOverlayDismissal(isOverlayOpen && isNarrow, close, asideRef)
  const variant: SidebarVariant = isNarrow ? (isOverlayOpen ? 'overlay' : 'rail') : collapsed ? 'rail' : 'responsive'
  return (
    <>
      {/* The overlay leaves the page where it was: a rail-wide spacer keeps its place in the flow. */}
      {variant === 'overlay' ? <div aria-hidden="true" className="w-14 shrink-0" /> : null}
      <aside
        ref={asideRef}
        id="sidebar"
        data-testid="sidebar"
        data-collapsed={variant === 'rail' ? 'true' : 'false'}
        data-variant={variant}
        aria-label="Sidebar"
        // z-20: a sticky box is its own stacking layer; without it the page's table painted over the flyout.
        className={cn(
          'flex h-screen shrink-0 flex-col border-r bg-sidebar transition-[width]',
          byVariant(variant, { rail: 'sticky top-0 z-20 w-14', responsive: 'sticky top-0 z-20 w-56 max-lg:w-14', overlay: 'fixed inset-y-0 left-0 z-40 w-56 shadow-lg' }),
        )}
      >
        <div className={cn('flex h-12 items-center border-b', byVariant(variant, { rail: 'justify-center', responsive: 'px-3 max-lg:justify-center max-lg:px-0', overlay: 'px-3' }))}>
          <Link to="/" className="flex items-center gap-2 rounded-md font-semibold focus-visible:outline-none focus-visible:ring-2 focus-visible:ring-ring" aria-label="Lookout home">
            <Radar aria-hidden="true" className="size-5 text-primary" />
            <span className={labelClassName(variant)}>Lookout</span>
          </Link>
        </div>
        {/* No overflow clipping on the rail: the collapsed settings flyout pokes out to the right. */}
        <nav
          aria-label="Main navigation"
          className={cn('flex flex-1 flex-col gap-3 p-2', byVariant(variant, { rail: '', responsive: 'lg:overflow-y-auto', overlay: 'overflow-y-auto' }))}
        >
          <ul className="flex flex-col gap-0.5">
            {sidebar.main.map((entry) => (
              <NavItem key={entry.name} entry={entry} variant={variant} />
            ))}
          </ul>
          {sidebar.views.length > 0 ? (
            <div className="flex flex-col gap-0.5">
              <p className={cn('px-2 text-[11px] font-semibold uppercase tracking-wide text-muted-foreground', byVariant(variant, { rail: 'sr-only', responsive: 'max-lg:sr-only', overlay: '' }))}>Views</p>
              <ul className="flex flex-col gap-0.5" aria-label="Views">
                {sidebar.views.map((entry) => (
                  <NavItem key={entry.name} entry={entry} variant={variant} />
                ))}
              </ul>
            </div>
          ) : null}
          {sidebar.settings.length > 0 ? (
            <div className="mt-auto">
              <SettingsGroup entries={sidebar.settings} variant={variant} isNarrow={isNarrow} />
            </div>
          ) : null}
        </nav>
        <div className="border-t p-2">
          {isNarrow ? (
            <OverlayToggle isOpen={isOverlayOpen} onToggle={() => setOverlayOpen((open) => !open)} />
          ) : (
            <SidebarToggle collapsed={collapsed} variant={variant} />
          )}
        </div>
      </aside>
    </>
  )
}
