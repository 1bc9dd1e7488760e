import { Link } from '@remix-run/react'
import { AccountCard } from '#app/components/account-card.tsx'
import { GeneralErrorBoundary } from '#app/components/error-boundary.tsx'
import { NotBuiltNote } from '#app/components/not-built.tsx'
import type { RouteHandle } from '#app/lib/route-handle.ts'

export const handle = { title: 'Create account' } satisfies RouteHandle

export default function RegistrationRoute() {
  return (
    <AccountCard
      title="Create account"
      footer={
        <>
          Already have an account?{' '}
          <Link to="/login" className="font-medium text-foreground underline-offset-4 hover:underline">
            Sign in
          </Link>
        </>
      }
    >
      <NotBuiltNote capability="Self-service registration through the identity service; until then an administrator issues access tokens." />
    </AccountCard>
  )
}

export function ErrorBoundary() {
  return <GeneralErrorBoundary />
}
