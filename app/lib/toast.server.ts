/**
 * One-shot success messages across a redirect (spec 002 §8 toasts): a short-lived cookie the
 * next page load reads and clears, so they show without JavaScript too.
 */
const TOAST_COOKIE = 'lookout_toast'

export function toastCookie(text: string): string {
  return `${TOAST_COOKIE}=${encodeURIComponent(text.slice(0, 300))}; Path=/; HttpOnly; SameSite=Lax; Max-Age=60`
}

export function readToast(request: Request): { toast: string | null; headers: Headers } {
  const headers = new Headers()
  const match = new RegExp(`(?:^|;\\s*)${TOAST_COOKIE}=([^;]*)`).exec(request.headers.get('cookie') ?? '')
  if (!match) return { toast: null, headers }
  headers.append('set-cookie', `${TOAST_COOKIE}=; Path=/; HttpOnly; SameSite=Lax; Max-Age=0`)
  try {
    return { toast: decodeURIComponent(match[1] ?? '') || null, headers }
  } catch {
    return { toast: null, headers }
  }
}
