import { errors } from './errors.ts'

/**
 * Kratos' allow-list rule: the target (relative values borrow scheme and host from the default
 * return URL) must match one allowed URL by scheme, host and path prefix.
 */
export function validateReturnTo(raw: string | undefined, options: { defaultReturnUrl: string; allowed: string[] }): string | undefined {
  if (raw === undefined || raw === '') return undefined
  // Control characters and backslashes are how open-redirect payloads sneak past URL parsers.
  if ([...raw].some((ch) => ch.charCodeAt(0) < 0x20 || ch === '\\')) throw errors.returnToForbidden()
  let target: URL
  try {
    target = new URL(raw, options.defaultReturnUrl)
  } catch {
    throw errors.returnToForbidden()
  }
  if (target.protocol !== 'http:' && target.protocol !== 'https:') throw errors.returnToForbidden()
  if (target.username || target.password) throw errors.returnToForbidden()
  const ok = options.allowed.some((entry) => {
    let allowed: URL
    try {
      allowed = new URL(entry)
    } catch {
      return false
    }
    if (allowed.protocol.toLowerCase() !== target.protocol.toLowerCase()) return false
    const hostOk = allowed.hostname.startsWith('*.')
      ? target.hostname.endsWith(allowed.hostname.slice(1)) && target.port === allowed.port
      : allowed.host.toLowerCase() === target.host.toLowerCase()
    if (!hostOk) return false
    const prefix = allowed.pathname === '/' ? '/' : allowed.pathname.replace(/\/+$/, '')
    return prefix === '/' || target.pathname === prefix || target.pathname.startsWith(prefix + '/')
  })
  if (!ok) throw errors.returnToForbidden()
  return raw
}

/** The absolute URL a validated return_to stands for. */
export function resolveReturnTo(returnTo: string | null | undefined, defaultReturnUrl: string): string {
  if (!returnTo) return defaultReturnUrl
  return new URL(returnTo, defaultReturnUrl).toString()
}
