import { Link, useLocation, useNavigation, useRevalidator, useSearchParams } from '@remix-run/react'
import { Bell, Info, RefreshCw, Settings } from '#app/components/ui/icons.tsx'
import { lazy, Suspense, type MouseEvent } from 'react'
import { cn } from '#app/lib/cn.ts'
import { DOCS_URL } from '#app/lib/navigation.ts'
import { PREFERENCES_PARAM, type ResolvedPreferences } from '#app/lib/preferences.ts'
import { buttonVariants } from '#app/components/ui/button.tsx'
import { DropdownMenu, DropdownMenuContent, DropdownMenuTrigger, dropdownMenuItemClassName } from '#app/components/ui/dropdown-menu.tsx'
import { PreferencesPanel as ServerRenderedPreferencesPanel } from './preferences-panel.tsx'
import { usePreferencesHref, type TimeZoneOption } from './preferences-link.ts'
import { UserMenu, type UserMenuProps } from './user-menu.tsx'

// The panel (and the form library it uses) is opened a few times per session: the browser fetches
// its code then, out of every page's bundle (decision 007); the server renders it in place.
const PreferencesPanel = import.meta.env.SSR
  ? ServerRenderedPreferencesPanel
  : /* @__PURE__ */ lazy(() => import('./preferences-panel.tsx').then((module) => ({ default: module.PreferencesPanel })))

/**
 * Without JavaScript refresh is a link to the same URL (a full reload); with it, the click
 * re-runs the loaders in place and the icon spins until they settle.
 */
function RefreshControl() {
  const location = useLocation()
  const navigation = useNavigation()
  const revalidator = useRevalidator()
  const isBusy = revalidator.state === 'loading' || navigation.state === 'loading'
  const href = `${location.pathname}${location.search}`

  function handleClick(event: MouseEvent<HTMLAnchorElement>) {
    if (event.metaKey || event.ctrlKey || event.shiftKey || event.altKey || event.button !== 0) return
    event.preventDefault()
    if (revalidator.state === 'idle') revalidator.revalidate()
  }

  return (
    <a
      href={href}
      onClick={handleClick}
      data-testid="refresh"
      data-state={isBusy ? 'loading' : 'idle'}
      aria-label="Refresh"
      title="Refresh"
      aria-busy={isBusy}
      className={buttonVariants({ variant: 'ghost', size: 'icon' })}
    >
      <RefreshCw aria-hidden="true" className={cn(isBusy && 'animate-spin')} />
    </a>
  )
}

/**
 * The bell (spec 000 §2): a link to /notifications with the count of sends the person has not
 * seen there (app/lib/notification-unread.server.ts defines "unread"), rendered by the server so
 * it shows without JavaScript. Past 99 it reads "99+", as the API stops counting at 100.
 */
function NotificationBellLink({ unread }: { unread: number | null }) {
  const count = unread && unread > 0 ? (unread > 99 ? '99+' : String(unread)) : null
  const label = count ? `Notifications, ${count} unread` : 'Notifications'
  return (
    <Link to="/notifications" data-testid="notifications-bell" aria-label={label} title={label} className={cn(buttonVariants({ variant: 'ghost', size: 'icon' }), 'relative')}>
      <Bell aria-hidden="true" />
      {count ? (
        <span
          aria-hidden="true"
          data-testid="notifications-unread"
          className="absolute -right-0.5 -top-0.5 min-w-4 rounded-full bg-destructive px-1 text-center text-[10px] font-semibold leading-4 text-destructive-foreground tabular-nums"
        >
          {count}
        </span>
      ) : null}
    </Link>
  )
}

/** Spec 002 §2: one item, Docs, to the documentation site (a new tab: the console stays put). */
function HelpMenu() {
  return (
    <DropdownMenu data-testid="help-menu">
      <DropdownMenuTrigger aria-label="Help" title="Help">
        <Info aria-hidden="true" className="size-4" />
        <span className="max-md:sr-only">Help</span>
      </DropdownMenuTrigger>
      <DropdownMenuContent className="w-40">
        <a href={DOCS_URL} target="_blank" rel="noreferrer" data-testid="help-docs" className={dropdownMenuItemClassName}>
          Docs
        </a>
      </DropdownMenuContent>
    </DropdownMenu>
  )
}

/** Opens and closes the preferences panel through the URL, so it works without JavaScript. */
function PreferencesButton({ isOpen }: { isOpen: boolean }) {
  const href = usePreferencesHref(!isOpen)
  return (
    <Link
      to={href}
      preventScrollReset
      replace={isOpen}
      data-testid="preferences-button"
      aria-label="Preferences"
      title="Preferences"
      aria-expanded={isOpen}
      className={cn(buttonVariants({ variant: 'ghost', size: 'icon' }), isOpen && 'bg-accent')}
    >
      <Settings aria-hidden="true" />
    </Link>
  )
}

export function TopBar({
  title,
  user,
  preferences,
  timeZones,
  notificationBell,
}: {
  title: string
  user: UserMenuProps
  preferences: ResolvedPreferences
  /** Loaded only while the panel is open. */
  timeZones: TimeZoneOption[] | null
  /** Null for someone who may not read notifications: no bell. */
  notificationBell: { unread: number | null } | null
}) {
  const [searchParams] = useSearchParams()
  const isPreferencesOpen = searchParams.has(PREFERENCES_PARAM) && timeZones !== null
  return (
    // No backdrop-filter (or transform, filter) here: it would make the header the containing block
    // of the fixed dialogs rendered inside it (the kubeconfig dialog), trapping them in its 48 px.
    <header data-testid="topbar" className="sticky top-0 z-30 flex h-12 shrink-0 items-center gap-1 border-b bg-card px-2 sm:gap-2 sm:px-4">
      <h1 data-testid="page-title" className="min-w-0 flex-1 truncate text-base font-semibold">
        {title}
      </h1>
      <RefreshControl />
      {notificationBell ? <NotificationBellLink unread={notificationBell.unread} /> : null}
      <PreferencesButton isOpen={isPreferencesOpen} />
      <HelpMenu />
      <UserMenu {...user} />
      {isPreferencesOpen ? (
        <Suspense fallback={null}>
          <PreferencesPanel preferences={preferences} timeZones={timeZones} />
        </Suspense>
      ) : null}
    </header>
  )
}
