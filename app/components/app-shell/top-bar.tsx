import { Link, useLocation, useNavigation, useRevalidator } from '@remix-run/react'
import { Bell, RefreshCw } from '#app/components/ui/icons.tsx'
import type { MouseEvent } from 'react'
import { cn } from '#app/lib/cn.ts'
import { buttonVariants } from '#app/components/ui/button.tsx'
import { UserMenu, type UserMenuProps } from './user-menu.tsx'

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

export function TopBar({ title, user }: { title: string; user: UserMenuProps }) {
  return (
    <header data-testid="topbar" className="sticky top-0 z-30 flex h-12 shrink-0 items-center gap-2 border-b bg-card/95 px-4 backdrop-blur">
      <h1 data-testid="page-title" className="min-w-0 flex-1 truncate text-base font-semibold">
        {title}
      </h1>
      <RefreshControl />
      <Link
        to="/notifications"
        data-testid="notifications-bell"
        aria-label="Notifications"
        title="Notifications"
        className={buttonVariants({ variant: 'ghost', size: 'icon' })}
      >
        <Bell aria-hidden="true" />
      </Link>
      <UserMenu {...user} />
    </header>
  )
}
