import type { LoaderFunctionArgs } from '@remix-run/node'
import { Link, useLoaderData } from '@remix-run/react'
import { AccountCard } from '#app/components/account-card.tsx'
import { GeneralErrorBoundary } from '#app/components/error-boundary.tsx'
import { NotBuiltNote } from '#app/components/not-built.tsx'
import type { RouteHandle } from '#app/lib/route-handle.ts'
import { requireSessionInfo } from '#app/lib/session.server.ts'

export const handle = { title: 'Profile Settings' } satisfies RouteHandle

export async function loader(args: LoaderFunctionArgs) {
  const session = await requireSessionInfo(args)
  return { name: session.user.name, email: session.user.email ?? null, roles: session.roles }
}

export default function ProfileSettingsRoute() {
  const { name, email, roles } = useLoaderData<typeof loader>()
  return (
    <AccountCard
      title="Profile Settings"
      footer={
        <Link to="/" className="underline-offset-4 hover:text-foreground hover:underline">
          Go back
        </Link>
      }
    >
      <dl className="grid grid-cols-[6rem_1fr] gap-x-3 gap-y-2 text-sm">
        <dt className="text-muted-foreground">Name</dt>
        <dd className="truncate">{name}</dd>
        <dt className="text-muted-foreground">E-mail</dt>
        <dd className="truncate">{email ?? '—'}</dd>
        <dt className="text-muted-foreground">Roles</dt>
        <dd>{roles.length ? roles.join(', ') : '—'}</dd>
      </dl>
      <NotBuiltNote capability="Changing your profile and password, social sign-in, recovery codes, authenticator apps and hardware keys." />
    </AccountCard>
  )
}

export function ErrorBoundary() {
  return <GeneralErrorBoundary />
}
