import { data, redirect, type ActionFunctionArgs, type LoaderFunctionArgs } from '@remix-run/node'
import { Link, useActionData, useLoaderData, useLocation } from '@remix-run/react'
import { AccountCard } from '#app/components/account-card.tsx'
import { GeneralErrorBoundary } from '#app/components/error-boundary.tsx'
import { FlowForm } from '#app/components/identity/flow-nodes.tsx'
import { flowAction, FlowStatus } from '#app/components/identity/flow-status.tsx'
import { apiFetch } from '#app/lib/gateway.server.ts'
import { hasGroup, isFlow, loginTitle, nodesForGroups, toConsolePath, type Flow } from '#app/lib/identity-flow.ts'
import { createFlow, isRegistrationOpen, loadFlow, mapFlowAnswer, respond, submitFlow, type FlowPageData } from '#app/lib/identity.server.ts'
import type { RouteHandle } from '#app/lib/route-handle.ts'

export const handle = {
  title: (data: unknown) => loginTitle((data as FlowPageData | undefined)?.flow ?? undefined),
} satisfies RouteHandle

/** Second-factor methods, each in its own form, in the order the screen offers them. */
const SECOND_FACTORS = [
  { group: 'totp', title: 'Authenticator app' },
  { group: 'lookup_secret', title: 'Backup recovery code' },
  { group: 'webauthn', title: 'Hardware key' },
] as const

/** Console sessions from an access token are not known to the identity service; honour them too. */
async function hasConsoleSession(args: LoaderFunctionArgs): Promise<boolean> {
  const { request } = args
  if (!request.headers.get('cookie') && !request.headers.get('authorization')) return false
  try {
    const response = await apiFetch(args, '/auth/whoami')
    await response.body?.cancel()
    return response.ok
  } catch {
    return false
  }
}

/**
 * `?username=` (spec 000 §2 also passes `&password=`) no longer signs in by itself: a link or a
 * page of another site could otherwise sign the browser into any account without a click. The
 * page creates a flow as usual and shows the form with the identifier filled in; the password
 * is dropped from the address (it is never echoed into a page), so one gesture — typing it and
 * pressing Sign in — completes the sign-in, with JavaScript or without.
 */
async function prefilledSignIn(args: LoaderFunctionArgs, username: string) {
  const url = new URL(args.request.url)
  const created = await createFlow(args, 'login')
  if (created.status !== 200 || !isFlow(created.body)) return respond(mapFlowAnswer(args.request, 'login', created, 'create'), created.cookies)
  const next = new URLSearchParams()
  const returnTo = url.searchParams.get('return_to')
  if (returnTo) next.set('return_to', returnTo)
  next.set('flow', created.body.id)
  next.set('username', username)
  return respond({ kind: 'redirect', to: `/login?${next.toString()}` }, created.cookies)
}

/** The flow with its identifier field showing `username` (when the service left it empty). */
function withIdentifier(flow: Flow, username: string | null): Flow {
  if (!username) return flow
  const nodes = flow.ui.nodes.map((node) => {
    const attributes = node.attributes
    if (attributes.node_type !== 'input' || attributes.name !== 'identifier' || attributes.value) return node
    return { ...node, attributes: { ...attributes, value: username } }
  })
  return { ...flow, ui: { ...flow.ui, nodes } }
}

export async function loader(args: LoaderFunctionArgs) {
  const url = new URL(args.request.url)
  const username = url.searchParams.get('username')
  if (username && !url.searchParams.has('flow')) return prefilledSignIn(args, username)

  const isPlainSignIn = url.searchParams.get('refresh') !== 'true' && !url.searchParams.has('aal') && !url.searchParams.has('flow')
  if (isPlainSignIn && (await hasConsoleSession(args))) {
    throw redirect(toConsolePath(url.searchParams.get('return_to'), url.origin, '/').replace(/^\/login(?=[/?]|$).*/, '/'), 303)
  }
  // Asked alongside the flow; it never rejects, so a thrown redirect leaves nothing pending.
  const registration = isRegistrationOpen(args)
  const page = await loadFlow(args, 'login')
  return data({ ...page.data, isRegistrationOpen: await registration }, page.init ?? undefined)
}

export async function action(args: ActionFunctionArgs) {
  return submitFlow(args, 'login')
}

export default function LoginRoute() {
  const loaderData = useLoaderData<typeof loader>() as FlowPageData & { isRegistrationOpen?: boolean }
  const actionData = useActionData<typeof action>() as FlowPageData | undefined
  const location = useLocation()
  const page = actionData?.flow || actionData?.error ? actionData : loaderData
  const search = new URLSearchParams(location.search)
  const flow = page.flow ? withIdentifier(page.flow, search.get('username')) : null
  const returnTo = search.get('return_to')
  const tokenHref = returnTo ? `/login/token?return_to=${encodeURIComponent(returnTo)}` : '/login/token'
  const action = flow ? flowAction('/login', flow, location.search) : '/login'
  const isSecondFactor = flow?.requested_aal === 'aal2'

  return (
    <AccountCard
      title={loginTitle(flow ?? undefined)}
      footer={
        <div className="flex flex-col items-center gap-1">
          <Link to="/recovery" data-testid="reset-password-link" className="underline-offset-4 hover:text-foreground hover:underline">
            Reset password
          </Link>
          {isSecondFactor || loaderData.isRegistrationOpen === false ? null : (
            <Link to="/registration" data-testid="create-account-link" className="underline-offset-4 hover:text-foreground hover:underline">
              Create account
            </Link>
          )}
          <Link to={tokenHref} data-testid="token-sign-in-link" className="underline-offset-4 hover:text-foreground hover:underline">
            Sign in with an access token
          </Link>
        </div>
      }
    >
      <FlowStatus notice={page.notice} error={page.error} flow={flow} />
      {flow && !isSecondFactor ? (
        <>
          <FlowForm flow={flow} nodes={nodesForGroups(flow, ['password', 'identifier_first'])} action={action} testId="password-login-form" />
          {hasGroup(flow, 'oidc') ? <FlowForm flow={flow} nodes={nodesForGroups(flow, ['oidc'])} action={action} testId="oidc-login-form" /> : null}
        </>
      ) : null}
      {flow && isSecondFactor
        ? SECOND_FACTORS.filter((factor) => hasGroup(flow, factor.group)).map((factor, index) => (
            <section key={factor.group} aria-label={factor.title} className="flex flex-col gap-3">
              {index > 0 ? <hr className="border-border" /> : null}
              <h2 className="text-sm font-medium">{factor.title}</h2>
              <FlowForm flow={flow} nodes={nodesForGroups(flow, [factor.group])} action={action} testId={`${factor.group}-login-form`} />
            </section>
          ))
        : null}
    </AccountCard>
  )
}

export function ErrorBoundary() {
  return <GeneralErrorBoundary />
}
