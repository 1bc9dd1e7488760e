import { redirect, type ActionFunctionArgs } from '@remix-run/node'
import { safeRedirect } from 'remix-utils/safe-redirect'
import { apiFetch } from '#app/lib/gateway.server.ts'
import { createLogoutFlow, mergeCookies, updateLogoutFlow } from '#app/lib/identity.server.ts'
import { consoleLog } from '#app/lib/log.server.ts'

/** GET never signs anyone out (no state change on GET); it just goes home. */
export async function loader() {
  return redirect('/')
}

const KRATOS_SESSION_COOKIE = /(?:^|;\s*)ory_kratos_session=/

/**
 * Ends both kinds of session: the identity service's (logout URL → token → logout, as the
 * reference console does) and the console's access-token session. Either may be absent.
 */
export async function action(args: ActionFunctionArgs) {
  const formData = await args.request.formData()
  const returnToField = formData.get('returnTo')
  const returnTo = safeRedirect(typeof returnToField === 'string' ? returnToField : null, '/')
  const headers = new Headers()
  const cookieHeader = args.request.headers.get('cookie') ?? ''

  if (KRATOS_SESSION_COOKIE.test(cookieHeader)) {
    try {
      const flow = await createLogoutFlow(args)
      const token = (flow.body as { logout_token?: unknown } | null)?.logout_token
      if (flow.status === 200 && typeof token === 'string') {
        const done = await updateLogoutFlow(args, token, mergeCookies(cookieHeader, flow.cookies))
        for (const cookie of [...flow.cookies, ...done.cookies]) headers.append('set-cookie', cookie)
        if (done.status >= 400) consoleLog.warn({ status: done.status }, 'identity sign-out answered with an error')
      } else if (flow.status !== 401) {
        consoleLog.warn({ status: flow.status }, 'identity logout URL could not be created')
      }
    } catch (error) {
      consoleLog.warn({ err: error }, 'identity sign-out call failed')
    }
  }

  try {
    const response = await apiFetch(args, '/auth/logout', { method: 'POST' })
    await response.body?.cancel()
    for (const cookie of response.headers.getSetCookie()) headers.append('set-cookie', cookie)
    if (!response.ok && response.status !== 401) consoleLog.warn({ status: response.status }, 'sign-out answered with an error')
  } catch (error) {
    // The browser still leaves; its cookie may outlive this, which the next sign-in replaces.
    consoleLog.warn({ err: error }, 'sign-out call failed')
  }
  const target = returnTo.startsWith('/login') ? '/login' : `/login?return_to=${encodeURIComponent(returnTo)}`
  return redirect(target, { status: 303, headers })
}
