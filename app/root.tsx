import type { LinksFunction, LoaderFunctionArgs } from '@remix-run/node'
import { Links, Meta, Outlet, Scripts, ScrollRestoration, useMatches } from '@remix-run/react'
import type { ReactNode } from 'react'
import { GeneralErrorBoundary } from './components/error-boundary.tsx'
import { useNonce } from './lib/nonce-provider.ts'
import { documentTitle, getRouteTitle, PRODUCT_NAME } from './lib/route-handle.ts'
import tailwindHref from './styles/tailwind.css?url'

export const links: LinksFunction = () => [
  { rel: 'stylesheet', href: tailwindHref },
  { rel: 'icon', href: 'data:,' },
]

export async function loader({ context }: LoaderFunctionArgs) {
  // Only the explicit public subset reaches the browser (style anchors §3 rule 7).
  return { publicEnv: context.publicEnv ?? { frontendVersion: 'dev', mode: 'embedded' as const } }
}

export function Layout({ children }: { children: ReactNode }) {
  const nonce = useNonce()
  // Titles come from route handles here rather than from per-route meta exports: Remix hands
  // a parent's meta function only the matches above it, so one place could not see the page.
  const prefix = getRouteTitle(useMatches())
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
        {children}
        <ScrollRestoration nonce={nonce} />
        <Scripts nonce={nonce} />
      </body>
    </html>
  )
}

export default function App() {
  return <Outlet />
}

export function ErrorBoundary() {
  return (
    <main id="main" className="min-h-screen">
      <GeneralErrorBoundary />
    </main>
  )
}
