import type { LoaderFunctionArgs } from '@remix-run/node'
import { Form, Link, useLoaderData } from '@remix-run/react'
import { AccountCard } from '#app/components/account-card.tsx'
import { GeneralErrorBoundary } from '#app/components/error-boundary.tsx'
import { Button, buttonVariants } from '#app/components/ui/button.tsx'
import type { RouteHandle } from '#app/lib/route-handle.ts'

export const handle = { title: 'Error' } satisfies RouteHandle

export const BAD_SESSION_MESSAGE =
  'Your session could not be read. Please sign out and sign in again to continue.'
export const UNKNOWN_ERROR_MESSAGE = 'Unknown error'

export async function loader({ request }: LoaderFunctionArgs) {
  const errorCode = new URL(request.url).searchParams.get('error_code')
  return { isBadSession: errorCode === 'BAD_SESSION' }
}

export default function ErrorRoute() {
  const { isBadSession } = useLoaderData<typeof loader>()
  return (
    <AccountCard title={isBadSession ? 'Your session is not valid' : 'Something went wrong'}>
      <div data-testid="error-view" role="alert" className="flex flex-col gap-4">
        <p className="text-muted-foreground">{isBadSession ? BAD_SESSION_MESSAGE : UNKNOWN_ERROR_MESSAGE}</p>
        {isBadSession ? (
          <Form method="post" action="/logout">
            <input type="hidden" name="returnTo" value="/" />
            <Button type="submit" className="w-full">
              Sign out
            </Button>
          </Form>
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
