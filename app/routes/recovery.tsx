import { Link } from '@remix-run/react'
import { AccountCard } from '#app/components/account-card.tsx'
import { GeneralErrorBoundary } from '#app/components/error-boundary.tsx'
import { NotBuiltNote } from '#app/components/not-built.tsx'
import type { RouteHandle } from '#app/lib/route-handle.ts'

export const handle = { title: 'Recover account' } satisfies RouteHandle

export default function RecoveryRoute() {
  return (
    <AccountCard
      title="Recover account"
      footer={
        <Link to="/login" className="underline-offset-4 hover:text-foreground hover:underline">
          Go back
        </Link>
      }
    >
      <NotBuiltNote capability="Account recovery by e-mailed code through the identity service; until then ask an administrator for a new access token." />
    </AccountCard>
  )
}

export function ErrorBoundary() {
  return <GeneralErrorBoundary />
}
