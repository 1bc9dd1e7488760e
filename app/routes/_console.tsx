import type { LoaderFunctionArgs } from '@remix-run/node'
import { Outlet, useLoaderData, useLocation, useMatches, useNavigation, useRouteLoaderData, type ShouldRevalidateFunction } from '@remix-run/react'
import { Hourglass } from '#app/components/ui/icons.tsx'
import { GeneralErrorBoundary } from '#app/components/error-boundary.tsx'
import { ErrorView } from '#app/components/error-view.tsx'
import { Sidebar, SIDEBAR_ACTION, useSidebarCollapsed } from '#app/components/app-shell/sidebar.tsx'
import { TopBar } from '#app/components/app-shell/top-bar.tsx'
import { buttonVariants } from '#app/components/ui/button.tsx'
import { hasAccess } from '#app/lib/access.ts'
import { getSwitchedOffNames, isFeatureDisabled } from '#app/lib/features.ts'
import { buildSidebar } from '#app/lib/navigation.ts'
import { getPublicOrigin } from '#app/lib/public-origin.server.ts'
import { getRouteTitle } from '#app/lib/route-handle.ts'
import { getBackendVersion } from '#app/lib/about.server.ts'
import { DEFAULT_RESOLVED_PREFERENCES, listTimeZonesByOffset, PREFERENCES_PARAM } from '#app/lib/preferences.ts'
import { getProperties, getSidebarViews, requireSessionInfo } from '#app/lib/session.server.ts'
import { getNotificationBell } from '#app/lib/notification-unread.server.ts'
import { NOTIFICATIONS_HREF } from '#app/lib/notification-vocabulary.ts'
import { getSidebarCollapsed } from '#app/lib/sidebar-cookie.server.ts'
import type { loader as rootLoader } from '#app/root.tsx'

export async function loader(args: LoaderFunctionArgs) {
  const sessionAndProperties = Promise.all([requireSessionInfo(args), getProperties(args)])
  const [[session, properties], views, backendVersion, collapsed, notificationBell] = await Promise.all([
    sessionAndProperties,
    getSidebarViews(args),
    getBackendVersion(args),
    getSidebarCollapsed(args.request),
    // Needs the permissions and switches (both shared per session); runs beside the rest.
    sessionAndProperties.then(([who, props]) => getNotificationBell(args, who, getSwitchedOffNames(props))),
  ])
  const switchedOff = getSwitchedOffNames(properties)
  const sidebar = buildSidebar({ session, switchedOff, views })
  return {
    user: { name: session.user.name || session.user.email || 'Signed in', email: session.user.email },
    backendVersion,
    sidebar,
    notificationBell,
    collapsed,
    // The kubeconfig dialog names the file after it (the same host the API names the download after); Setup MCP shows the endpoint on it.
    publicOrigin: getPublicOrigin(args.request),
    // The Setup MCP dialog offers the token form only to those the tokens page's action accepts.
    canCreateTokens: hasAccess(session, 'auth', 'write') && !isFeatureDisabled('settings.tokens', switchedOff),
    // Some 400 zone names: sent only while the preferences panel is open.
    timeZones: new URL(args.request.url).searchParams.has(PREFERENCES_PARAM) ? listTimeZonesByOffset(new Date()) : null,
  }
}

/**
 * The sidebar toggle already shows its result; re-reading whoami for it would be waste. Going to
 * or from /notifications changes the bell's unread count, so those navigations re-read it.
 */
export const shouldRevalidate: ShouldRevalidateFunction = ({ formAction, currentUrl, nextUrl, defaultShouldRevalidate }) => {
  if (formAction === SIDEBAR_ACTION) return false
  if (currentUrl.pathname !== nextUrl.pathname && (currentUrl.pathname === NOTIFICATIONS_HREF || nextUrl.pathname === NOTIFICATIONS_HREF)) return true
  return defaultShouldRevalidate
}

export default function ConsoleLayout() {
  const { user, backendVersion, sidebar, collapsed: collapsedFromCookie, timeZones, notificationBell } = useLoaderData<typeof loader>()
  const rootData = useRouteLoaderData<typeof rootLoader>('root')
  const matches = useMatches()
  const navigation = useNavigation()
  const collapsed = useSidebarCollapsed(collapsedFromCookie)
  const title = getRouteTitle(matches) ?? 'Lookout'

  return (
    <div className="flex min-h-screen">
      <Sidebar sidebar={sidebar} collapsed={collapsed} />
      <div className="flex min-w-0 flex-1 flex-col">
        <TopBar
          title={title}
          user={{ ...user, frontendVersion: rootData?.publicEnv.frontendVersion ?? 'dev', backendVersion }}
          preferences={rootData?.preferences ?? DEFAULT_RESOLVED_PREFERENCES}
          timeZones={timeZones}
          notificationBell={notificationBell}
        />
        <main id="main" aria-busy={navigation.state === 'loading'} className="relative flex-1">
          <Outlet />
          {/* Dims the page while it loads without opacity on <main>: that would make it a stacking
              context and put the top bar over the page's dialogs (app/components/modal/dialog-behaviour.ts). */}
          {navigation.state === 'loading' ? <div aria-hidden="true" className="pointer-events-none absolute inset-0 z-10 bg-background/30" data-testid="page-loading" /> : null}
        </main>
      </div>
    </div>
  )
}

/**
 * Only the layout's own failures land here (pages have their own boundary), and the layout
 * only fails when whoami does. A 404 or 5xx from whoami means the backend is not ready
 * (spec 000 §8, "provisioning"), so say that and offer a retry instead of a bare error.
 */
function BackendNotReady({ message }: { message: string }) {
  const location = useLocation()
  return (
    <main id="main" className="min-h-screen">
      <ErrorView
        title="The console cannot reach its backend yet"
        message={`${message} It may still be starting; try again in a moment.`}
        icon={<Hourglass aria-hidden="true" className="size-10 text-warning" />}
        action={
          <a href={`${location.pathname}${location.search}`} className={buttonVariants({ variant: 'outline', size: 'sm' })}>
            Try again
          </a>
        }
      />
    </main>
  )
}

const notReady = ({ error }: { error: { data: unknown; statusText: string } }) => {
  const body = error.data as { message?: unknown } | null
  return <BackendNotReady message={typeof body?.message === 'string' ? body.message : error.statusText || 'No answer from the backend.'} />
}

export function ErrorBoundary() {
  return (
    <GeneralErrorBoundary statusHandlers={{ 404: notReady, 500: notReady, 502: notReady, 503: notReady, 504: notReady }} />
  )
}
