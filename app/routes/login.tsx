import { redirect, type ActionFunctionArgs, type LoaderFunctionArgs } from '@remix-run/node'
import { Link, useActionData, useLoaderData, useLocation } from '@remix-run/react'
import { AccountCard } from '#app/components/account-card.tsx'
import { GeneralErrorBoundary } from '#app/components/error-boundary.tsx'
import { FlowForm } from '#app/components/identity/flow-nodes.tsx'
import { flowAction, FlowStatus } from '#app/components/identity/flow-status.tsx'
import { apiFetch } from '#app/lib/gateway.server.ts'
import { findNode, hasGroup, isFlow, loginTitle, nodesForGroups, toConsolePath } from '#app/lib/identity-flow.ts'
import { createFlow, loadFlow, mapFlowAnswer, mergeCookies, respond, submitFlow, successTarget, updateFlow, type FlowPageData } from '#app/lib/identity.server.ts'
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
 * `?username=&password=` signs in without a form (spec 000 §2): create a flow, take its CSRF
 * token and submit the password method, all on the server so it works without JavaScript.
 */
async function autoSubmit(args: LoaderFunctionArgs, username: string, password: string) {
  const created = await createFlow(args, 'login')
  if (created.status !== 200 || !isFlow(created.body)) return respond(mapFlowAnswer(args.request, 'login', created, 'create'), created.cookies)
  const csrf = findNode(created.body, 'csrf_token')
  const csrfToken = csrf?.attributes.node_type === 'input' && typeof csrf.attributes.value === 'string' ? csrf.attributes.value : ''
  const cookie = mergeCookies(args.request.headers.get('cookie'), created.cookies)
  const form = new URLSearchParams({ csrf_token: csrfToken, method: 'password', identifier: username, password })
  const answer = await updateFlow(args, 'login', created.body.id, form, cookie)
  const cookies = [...created.cookies, ...answer.cookies]
  if (answer.status === 200 && !isFlow(answer.body)) {
    return respond({ kind: 'redirect', to: successTarget(args.request, answer.body, new URL(args.request.url).searchParams.get('return_to')) }, cookies)
  }
  return respond(mapFlowAnswer(args.request, 'login', answer, 'submit'), cookies)
}

export async function loader(args: LoaderFunctionArgs) {
  const url = new URL(args.request.url)
  const username = url.searchParams.get('username')
  const password = url.searchParams.get('password')
  if (username && password && !url.searchParams.has('flow')) return autoSubmit(args, username, password)

  const isPlainSignIn = url.searchParams.get('refresh') !== 'true' && !url.searchParams.has('aal') && !url.searchParams.has('flow')
  if (isPlainSignIn && (await hasConsoleSession(args))) {
    throw redirect(toConsolePath(url.searchParams.get('return_to'), url.origin, '/').replace(/^\/login(?=[/?]|$).*/, '/'), 303)
  }
  return loadFlow(args, 'login')
}

export async function action(args: ActionFunctionArgs) {
  return submitFlow(args, 'login')
}

export default function LoginRoute() {
  const loaderData = useLoaderData<typeof loader>() as FlowPageData
  const actionData = useActionData<typeof action>() as FlowPageData | undefined
  const location = useLocation()
  const page = actionData?.flow || actionData?.error ? actionData : loaderData
  const flow = page.flow
  const returnTo = new URLSearchParams(location.search).get('return_to')
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
          {isSecondFactor ? null : (
            <Link to="/registration" className="underline-offset-4 hover:text-foreground hover:underline">
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
