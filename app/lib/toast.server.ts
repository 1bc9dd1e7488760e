import { cookieValue, httpOnlyCookie } from '#server/cookies.ts'

/**
 * One-shot success messages across a redirect (spec 002 §8 toasts): a short-lived cookie the
 * next page load reads and clears, so they show without JavaScript too.
 */
const TOAST_COOKIE = 'lookout_toast'

export function toastCookie(text: string): string {
  return httpOnlyCookie(TOAST_COOKIE, text.slice(0, 300), { maxAgeSeconds: 60 })
}

export function readToast(request: Request): { toast: string | null; headers: Headers } {
  const headers = new Headers()
  const toast = cookieValue(request.headers.get('cookie'), TOAST_COOKIE)
  if (toast === undefined) return { toast: null, headers }
  headers.append('set-cookie', httpOnlyCookie(TOAST_COOKIE, '', { maxAgeSeconds: 0 }))
  return { toast: toast || null, headers }
}
