import { useLocation } from '@remix-run/react'
import { GeneralErrorBoundary } from '#app/components/error-boundary.tsx'
import { NotFound } from '#app/components/not-found.tsx'
import type { RouteHandle } from '#app/lib/route-handle.ts'

export const handle = { title: 'Not found' } satisfies RouteHandle

/** Unknown URLs: throwing a 404 from the loader gives the right HTTP status to the document. */
export async function loader() {
  throw new Response('Not found', { status: 404 })
}

export default function NotFoundRoute() {
  const { pathname } = useLocation()
  return (
    <main id="main" className="min-h-screen">
      <NotFound pathname={pathname} />
    </main>
  )
}

export function ErrorBoundary() {
  return (
    <main id="main" className="min-h-screen">
      <GeneralErrorBoundary />
    </main>
  )
}
