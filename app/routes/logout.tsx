import { redirect, type ActionFunctionArgs } from '@remix-run/node'
import { safeRedirect } from 'remix-utils/safe-redirect'
import { apiFetch } from '#app/lib/gateway.server.ts'
import { consoleLog } from '#app/lib/log.server.ts'

/** GET never signs anyone out (no state change on GET); it just goes home. */
export async function loader() {
  return redirect('/')
}

export async function action(args: ActionFunctionArgs) {
  const formData = await args.request.formData()
  const returnToField = formData.get('returnTo')
  const returnTo = safeRedirect(typeof returnToField === 'string' ? returnToField : null, '/')
  const headers = new Headers()
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
