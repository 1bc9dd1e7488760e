import { redirect, type LoaderFunctionArgs } from '@remix-run/node'
import { safeRedirect } from 'remix-utils/safe-redirect'

/**
 * Target of unauthenticated redirects in the original console. Sign-in does the session
 * check itself, so this only forwards, keeping where the person wanted to go.
 */
export async function loader({ request }: LoaderFunctionArgs) {
  const returnTo = new URL(request.url).searchParams.get('return_to')
  const target = returnTo ? `/login?return_to=${encodeURIComponent(safeRedirect(returnTo, '/'))}` : '/login'
  return redirect(target)
}
