import { isRouteErrorResponse, Link, useLocation, useParams, useRouteError, type ErrorResponse, type Params } from '@remix-run/react'
import { Ban, PowerOff } from '#app/components/ui/icons.tsx'
import type { ReactNode } from 'react'
import { ErrorView, GENERIC_ERROR_MESSAGE, RENDER_ERROR_TITLE, UNAUTHORIZED_MESSAGE } from './error-view.tsx'
import { NotFound } from './not-found.tsx'
import { buttonVariants } from './ui/button.tsx'

export type StatusHandler = (info: { error: ErrorResponse; params: Params; pathname: string }) => ReactNode

function bodyField(error: ErrorResponse, field: string): string | undefined {
  const body: unknown = error.data
  if (body && typeof body === 'object') {
    const value = (body as Record<string, unknown>)[field]
    if (typeof value === 'string' && value) return value
  }
  if (field === 'message' && typeof body === 'string' && body.trim() && !body.trim().startsWith('<')) return body
  return undefined
}

function FeatureDisabled() {
  return (
    <section data-testid="not-found" aria-labelledby="feature-disabled-title" className="mx-auto flex max-w-lg flex-col items-center gap-3 px-6 py-16 text-center">
      <PowerOff aria-hidden="true" className="size-10 text-muted-foreground" />
      <h1 id="feature-disabled-title" className="text-xl font-semibold">
        This feature is disabled
      </h1>
      <p className="text-muted-foreground">An administrator has switched this part of the console off.</p>
      <Link to="/" className={buttonVariants({ variant: 'outline', size: 'sm' })}>
        Back to the dashboard
      </Link>
    </section>
  )
}

const DEFAULT_HANDLERS: Record<number, StatusHandler> = {
  404: ({ error, pathname }) => (bodyField(error, 'reason') === 'feature-disabled' ? <FeatureDisabled /> : <NotFound pathname={pathname} />),
  403: () => <ErrorView title={UNAUTHORIZED_MESSAGE} icon={<Ban aria-hidden="true" className="size-10 text-muted-foreground" />} />,
}

const defaultStatusHandler: StatusHandler = ({ error }) => (
  <ErrorView title={`Error ${error.status}`} message={bodyField(error, 'message') ?? bodyField(error, 'error') ?? (error.statusText || GENERIC_ERROR_MESSAGE)} />
)

/**
 * The one error boundary of the app: thrown Responses are handled by status (404 and 403
 * have their own pages), anything else is a render or unexpected error. Stacks show in
 * development only.
 */
export function ErrorPage({
  statusHandlers,
}: {
  statusHandlers?: Record<number, StatusHandler>
}) {
  const error = useRouteError()
  const params = useParams()
  const { pathname } = useLocation()

  if (isRouteErrorResponse(error)) {
    const handler = statusHandlers?.[error.status] ?? DEFAULT_HANDLERS[error.status] ?? defaultStatusHandler
    return <>{handler({ error, params, pathname })}</>
  }

  const message = error instanceof Error ? error.message : typeof error === 'string' ? error : undefined
  const detail = import.meta.env.DEV && error instanceof Error ? error.stack : undefined
  return <ErrorView title={RENDER_ERROR_TITLE} message={message || GENERIC_ERROR_MESSAGE} detail={detail} />
}
