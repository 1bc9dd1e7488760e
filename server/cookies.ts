import { parse } from 'cookie'

/**
 * The one place the server and the console read and write cookies. Parsing is the `cookie`
 * package's; the Set-Cookie text is built here so every cookie Lookout sets carries the same
 * attributes in the same order (`Path=/; HttpOnly; SameSite=Lax; Max-Age=…`).
 */

/** A cookie's decoded value from a `Cookie` header (the first one of that name), or undefined. */
export function cookieValue(header: string | null | undefined, name: string): string | undefined {
  if (!header) return undefined
  return parse(header)[name]
}

/** Every cookie of a `Cookie` header with its value as sent (not decoded), for passing on. */
export function rawCookies(header: string | null | undefined): Record<string, string> {
  if (!header) return {}
  return parse(header, { decode: (value) => value }) as Record<string, string>
}

export type HttpOnlyCookieOptions = {
  /** 0 deletes the cookie. */
  maxAgeSeconds: number
  secure?: boolean
  /** Also send a past `Expires`, for clients that ignore `Max-Age=0`. */
  expiresWhenDeleted?: boolean
}

/** Set-Cookie for a cookie only the server reads: path /, HttpOnly, SameSite=Lax. */
export function httpOnlyCookie(name: string, value: string, options: HttpOnlyCookieOptions): string {
  const parts = [`${name}=${encodeURIComponent(value)}`, 'Path=/', 'HttpOnly', 'SameSite=Lax', `Max-Age=${options.maxAgeSeconds}`]
  if (options.expiresWhenDeleted && options.maxAgeSeconds === 0) parts.push('Expires=Thu, 01 Jan 1970 00:00:00 GMT')
  if (options.secure) parts.push('Secure')
  return parts.join('; ')
}
