import { lazy, Suspense } from 'react'
import { ErrorPage as ServerRenderedErrorPage, type StatusHandler } from './error-page.tsx'
import { ErrorView, GENERIC_ERROR_MESSAGE } from './error-view.tsx'

// Error pages are rarely seen, so their code is fetched when one is shown; the server renders
// them in place, so an error page never depends on JavaScript.
const ErrorPage = import.meta.env.SSR
  ? ServerRenderedErrorPage
  : /* @__PURE__ */ lazy(() => import('./error-page.tsx').then((module) => ({ default: module.ErrorPage })))

/**
 * The one error boundary of the app: thrown Responses are handled by status (404 and 403
 * have their own pages), anything else is a render or unexpected error. Stacks show in
 * development only.
 */
export function GeneralErrorBoundary({ statusHandlers }: { statusHandlers?: Record<number, StatusHandler> }) {
  return (
    <Suspense fallback={<ErrorView title={GENERIC_ERROR_MESSAGE} />}>
      <ErrorPage statusHandlers={statusHandlers} />
    </Suspense>
  )
}
