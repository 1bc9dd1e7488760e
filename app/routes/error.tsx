import { redirect, type LoaderFunctionArgs } from '@remix-run/node'
import { Form, Link, useLoaderData } from '@remix-run/react'
import { AccountCard } from '#app/components/account-card.tsx'
import { GeneralErrorBoundary } from '#app/components/error-boundary.tsx'
import { Button, buttonVariants } from '#app/components/ui/button.tsx'
import { noticeText } from '#app/lib/identity-flow.ts'
import { getFlowError, messageOfAnswer } from '#app/lib/identity.server.ts'
import type { RouteHandle } from '#app/lib/route-handle.ts'

export const handle = { title: 'Error' } satisfies RouteHandle

export const BAD_SESSION_MESSAGE =
  'Your session could not be read. Please sign out and sign in again to continue.'
export const UNKNOWN_ERROR_MESSAGE = 'Unknown error'

type FlowErrorBody = { error?: { id?: string; message?: string; reason?: string; code?: number } }

/**
 * One page for both error sources: `?id=` is a flow error the identity service parked for a
 * browser (spec: 404, 403 or 410 go home), `?error_code=` the hosted-mode session problem.
 */
export async function loader(args: LoaderFunctionArgs) {
  const url = new URL(args.request.url)
  const id = url.searchParams.get('id')
  if (id) {
    const answer = await getFlowError(args, id)
    if ([403, 404, 410].includes(answer.status)) throw redirect('/')
    if (answer.status !== 200) {
      return { kind: 'flow' as const, title: 'Something went wrong', message: messageOfAnswer(answer, UNKNOWN_ERROR_MESSAGE), errorId: null }
    }
    const error = (answer.body as FlowErrorBody | null)?.error
    const known = noticeText(error?.id)
    return {
      kind: 'flow' as const,
      title: 'Something went wrong',
      message: known ?? error?.reason ?? error?.message ?? UNKNOWN_ERROR_MESSAGE,
      errorId: error?.id ?? null,
    }
  }
  const isBadSession = url.searchParams.get('error_code') === 'BAD_SESSION'
  return {
    kind: isBadSession ? ('bad-session' as const) : ('unknown' as const),
    title: isBadSession ? 'Your session is not valid' : 'Something went wrong',
    message: isBadSession ? BAD_SESSION_MESSAGE : UNKNOWN_ERROR_MESSAGE,
    errorId: null,
  }
}

export default function ErrorRoute() {
  const { kind, title, message, errorId } = useLoaderData<typeof loader>()
  return (
    <AccountCard title={title}>
      <div data-testid="error-view" data-error-id={errorId ?? undefined} role="alert" className="flex flex-col gap-4">
        <p className={kind === 'flow' ? 'text-danger' : 'text-muted-foreground'}>{message}</p>
        {kind === 'bad-session' ? (
          <Form method="post" action="/logout">
            <input type="hidden" name="returnTo" value="/" />
            <Button type="submit" className="w-full">
              Sign out
            </Button>
          </Form>
        ) : kind === 'flow' ? (
          <Link to="/login" className={buttonVariants({ variant: 'outline' })}>
            Go back
          </Link>
        ) : (
          <Link to="/" className={buttonVariants({ variant: 'outline' })}>
            Back to the dashboard
          </Link>
        )}
      </div>
    </AccountCard>
  )
}

export function ErrorBoundary() {
  return <GeneralErrorBoundary />
}
