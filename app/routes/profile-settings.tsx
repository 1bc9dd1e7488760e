import { data, type ActionFunctionArgs, type LoaderFunctionArgs } from '@remix-run/node'
import { Link, useActionData, useLoaderData, useLocation } from '@remix-run/react'
import { Radar } from '#app/components/ui/icons.tsx'
import { GeneralErrorBoundary } from '#app/components/error-boundary.tsx'
import { FlowForm, FlowMessages, useFadingMessages } from '#app/components/identity/flow-nodes.tsx'
import { flowAction, FlowStatus } from '#app/components/identity/flow-status.tsx'
import { Card, CardContent, CardHeader } from '#app/components/ui/card.tsx'
import { apiJson } from '#app/lib/gateway.server.ts'
import { hasGroup, nodesForGroups, SETTINGS_SECTIONS, toConsolePath, type UiText } from '#app/lib/identity-flow.ts'
import { loadFlow, submitFlow, type FlowPageData } from '#app/lib/identity.server.ts'
import type { RouteHandle } from '#app/lib/route-handle.ts'

export const handle = { title: 'Profile Settings' } satisfies RouteHandle

/** Spec 000 §9: profile messages clear after 10 seconds. */
const MESSAGE_CLEAR_MS = 10_000

type TokenUser = { name: string; email: string | null; roles: string[] }
type SettingsData = FlowPageData & { tokenUser?: TokenUser }

/**
 * Someone signed in with an access token has no identity-service session, so the settings flow
 * answers "sign in"; sending them to /login would bounce straight back here. They get their
 * whoami details instead.
 */
async function tokenUser(args: LoaderFunctionArgs): Promise<TokenUser | null> {
  try {
    const { data: body } = await apiJson<{ payload?: { user?: { name?: string; email?: string }; roles?: string[] } }>(args, '/auth/whoami')
    const user = body?.payload?.user
    return user ? { name: user.name ?? '', email: user.email ?? null, roles: body.payload?.roles ?? [] } : null
  } catch {
    return null
  }
}

export async function loader(args: LoaderFunctionArgs) {
  try {
    return await loadFlow(args, 'settings')
  } catch (error) {
    if (error instanceof Response && error.headers.get('location')?.startsWith('/login?return_to=')) {
      const user = await tokenUser(args)
      if (user) return data<SettingsData>({ flow: null, notice: null, error: null, tokenUser: user })
    }
    throw error
  }
}

export async function action(args: ActionFunctionArgs) {
  return submitFlow(args, 'settings')
}

export default function ProfileSettingsRoute() {
  const loaderData = useLoaderData<typeof loader>() as SettingsData
  const actionData = useActionData<typeof action>() as FlowPageData | undefined
  const location = useLocation()
  const page: SettingsData = actionData?.flow || actionData?.error ? actionData : loaderData
  const flow = page.flow
  const messages = useFadingMessages(flow?.ui.messages ?? EMPTY, MESSAGE_CLEAR_MS)
  const back = backPath(flow?.return_to)

  return (
    <main id="main" className="flex min-h-screen flex-col items-center gap-6 bg-muted/40 px-4 py-10">
      <Link to="/" className="flex items-center gap-2 text-lg font-semibold" aria-label="Lookout home">
        <Radar aria-hidden="true" className="size-6 text-primary" />
        Lookout
      </Link>
      <div className="flex w-full max-w-xl flex-col gap-4">
        <div className="flex items-center justify-between">
          <h1 className="text-lg font-semibold">Profile Settings</h1>
          <Link to={back} data-testid="go-back" className="text-sm text-muted-foreground underline-offset-4 hover:text-foreground hover:underline">
            Go back
          </Link>
        </div>
        <FlowStatus notice={page.notice} error={page.error} flow={null} />
        <FlowMessages messages={messages} testId="settings-messages" />
        {page.tokenUser ? (
          <Card>
            <CardContent className="pt-6">
              <dl className="grid grid-cols-[6rem_1fr] gap-x-3 gap-y-2 text-sm" data-testid="token-profile">
                <dt className="text-muted-foreground">Name</dt>
                <dd className="truncate">{page.tokenUser.name}</dd>
                <dt className="text-muted-foreground">E-mail</dt>
                <dd className="truncate">{page.tokenUser.email ?? '—'}</dd>
                <dt className="text-muted-foreground">Roles</dt>
                <dd>{page.tokenUser.roles.length ? page.tokenUser.roles.join(', ') : '—'}</dd>
              </dl>
              <p className="mt-4 text-sm text-muted-foreground">
                You are signed in with an access token. Password and second-factor settings belong to accounts that sign in with an e-mail address.
              </p>
            </CardContent>
          </Card>
        ) : null}
        {flow
          ? SETTINGS_SECTIONS.filter((section) => hasGroup(flow, section.group)).map((section) => (
              <Card key={section.group} data-testid={`settings-section-${section.group}`}>
                <CardHeader>
                  <h2 className="text-base font-semibold">{section.title}</h2>
                </CardHeader>
                <CardContent>
                  <FlowForm
                    flow={flow}
                    nodes={nodesForGroups(flow, [section.group])}
                    action={flowAction('/profile-settings', flow, location.search)}
                    testId={`settings-${section.group}-form`}
                  />
                </CardContent>
              </Card>
            ))
          : null}
      </div>
    </main>
  )
}

const EMPTY: UiText[] = []

/** The identity service validated return_to against its allow-list; only its path is used here. */
function backPath(returnTo: string | undefined): string {
  if (!returnTo) return '/'
  try {
    const url = new URL(returnTo, 'http://console.invalid')
    return toConsolePath(`${url.pathname}${url.search}`, 'http://console.invalid', '/')
  } catch {
    return '/'
  }
}

export function ErrorBoundary() {
  return <GeneralErrorBoundary />
}
