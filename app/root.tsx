import type { LinksFunction, LoaderFunctionArgs } from '@remix-run/node'
import { Links, Meta, Outlet, Scripts, ScrollRestoration, useLoaderData, useMatches, type ShouldRevalidateFunction } from '@remix-run/react'
import { useEffect, useSyncExternalStore, type ReactNode } from 'react'
import { useReportBrowserTimeZone } from './components/app-shell/browser-time-zone.ts'
import { GeneralErrorBoundary } from './components/error-boundary.tsx'
import { useNonce } from './lib/nonce-provider.ts'
import { getPreferences } from './lib/preferences.server.ts'
import { documentTitle, getRouteTitle, isStaticDocument, PRODUCT_NAME } from './lib/route-handle.ts'
import tailwindHref from './styles/tailwind.css?url'

export const links: LinksFunction = () => [
  { rel: 'stylesheet', href: tailwindHref },
  { rel: 'icon', href: 'data:,' },
]

/** Spec 000 §8, "Offline": only a browser running the app can tell, so the server never shows it. */
export const OFFLINE_MESSAGE = 'No internet connection. Please try again.'

function subscribeToConnectivity(onChange: () => void): () => void {
  window.addEventListener('online', onChange)
  window.addEventListener('offline', onChange)
  return () => {
    window.removeEventListener('online', onChange)
    window.removeEventListener('offline', onChange)
  }
}

/**
 * A banner over every screen while the browser is offline: whatever navigation or form post
 * fails meanwhile, the person learns why, and it goes away by itself when the link is back.
 */
function OfflineNotice() {
  const online = useSyncExternalStore(
    subscribeToConnectivity,
    () => navigator.onLine,
    () => true,
  )
  if (online) return null
  return (
    <div role="alert" data-testid="offline-notice" className="fixed inset-x-0 top-0 z-50 bg-danger px-4 py-2 text-center text-sm font-medium text-white">
      {OFFLINE_MESSAGE}
    </div>
  )
}

export async function loader({ request, context }: LoaderFunctionArgs) {
  return {
    // Only the explicit public subset reaches the browser (style anchors §3 rule 7).
    publicEnv: context.publicEnv ?? { frontendVersion: 'dev', mode: 'embedded' as const },
    // Every date on every screen is formatted with these and this instant (components/date-time.tsx),
    // so the server's HTML and the browser's first render are the same text.
    preferences: getPreferences(request),
    now: new Date().toISOString(),
  }
}

/** Cheap (cookies only), and `now` must move with every navigation for relative dates. */
export const shouldRevalidate: ShouldRevalidateFunction = () => true

export function Layout({ children }: { children: ReactNode }) {
  const nonce = useNonce()
  // Titles come from route handles here rather than from per-route meta exports: Remix hands
  // a parent's meta function only the matches above it, so one place could not see the page.
  const matches = useMatches()
  const prefix = getRouteTitle(matches)
  // A static document (the kiosk boards) gets no script tag, no modulepreload and no inlined
  // loader data: without <Scripts> Remix streams none of it (decision 014).
  const hydrate = !isStaticDocument(matches)
  return (
    <html lang="en" className="h-full">
      <head>
        <meta charSet="utf-8" />
        <meta name="viewport" content="width=device-width, initial-scale=1" />
        <title>{documentTitle(prefix)}</title>
        <meta name="description" content={prefix ? `${prefix} in the ${PRODUCT_NAME} operations console` : `${PRODUCT_NAME} operations console`} />
        <Meta />
        <Links />
      </head>
      <body className="h-full">
        <OfflineNotice />
        {children}
        {hydrate ? (
          <>
            <ScrollRestoration nonce={nonce} />
            <Scripts nonce={nonce} />
          </>
        ) : null}
      </body>
    </html>
  )
}

export default function App() {
  useReportBrowserTimeZone(useLoaderData<typeof loader>().preferences)
  // Marks the document once React has taken it over: browser tests that change the page's DOM
  // directly wait for it, since hydration would otherwise put server values back.
  useEffect(() => {
    document.documentElement.dataset.hydrated = 'true'
  }, [])
  return <Outlet />
}

export function ErrorBoundary() {
  return (
    <main id="main" className="min-h-screen">
      <GeneralErrorBoundary />
    </main>
  )
}
