import { Link } from '@remix-run/react'
import { AccountCard } from '#app/components/account-card.tsx'
import { GeneralErrorBoundary } from '#app/components/error-boundary.tsx'
import { NotBuiltNote } from '#app/components/not-built.tsx'
import type { RouteHandle } from '#app/lib/route-handle.ts'

export const handle = { title: 'Verify your account' } satisfies RouteHandle

export default function VerificationRoute() {
  return (
    <AccountCard
      title="Verify your account"
      footer={
        <Link to="/login" className="underline-offset-4 hover:text-foreground hover:underline">
          Go back
        </Link>
      }
    >
      <NotBuiltNote capability="E-mail address verification by code or link through the identity service." />
    </AccountCard>
  )
}

export function ErrorBoundary() {
  return <GeneralErrorBoundary />
}
