import { Link } from '@remix-run/react'
import { CircleAlert } from '#app/components/ui/icons.tsx'
import type { ReactNode } from 'react'
import { buttonVariants } from './ui/button.tsx'

export const UNAUTHORIZED_MESSAGE = 'You do not have permission to access this page'
export const RENDER_ERROR_TITLE = 'Sorry.. there was an error'
export const GENERIC_ERROR_MESSAGE = 'Something went wrong'

export function ErrorView({
  title,
  message,
  detail,
  icon,
  action,
}: {
  title: string
  message?: string
  detail?: string
  icon?: ReactNode
  /** Replaces the default way out (a link to the dashboard). */
  action?: ReactNode
}) {
  return (
    <section data-testid="error-view" role="alert" className="mx-auto flex max-w-xl flex-col items-center gap-3 px-6 py-16 text-center">
      {icon ?? <CircleAlert aria-hidden="true" className="size-10 text-danger" />}
      <h1 className="text-xl font-semibold">{title}</h1>
      {message ? <p className="text-muted-foreground">{message}</p> : null}
      {detail ? (
        <pre className="max-h-64 w-full overflow-auto rounded-md bg-muted p-3 text-left font-mono text-xs text-muted-foreground">{detail}</pre>
      ) : null}
      {action ?? (
        <Link to="/" className={buttonVariants({ variant: 'outline', size: 'sm' })}>
          Back to the dashboard
        </Link>
      )}
    </section>
  )
}
