import { NotificationSendError } from './sender-http.ts'

/**
 * A Shoutrrr URL as the senders read it. `#` never starts a fragment in these URLs: Shoutrrr
 * writes channels and room aliases with it (`rocketchat://h/a/b/#ops`, `?rooms=#ops:host`),
 * so it is taken literally. Query options are matched case-insensitively, and a message's
 * `properties` override them, as Shoutrrr's params do.
 */
export class ShoutrrrUrl {
  readonly url: URL
  readonly scheme: string
  private readonly query = new Map<string, string>()

  constructor(raw: string, properties: Record<string, string> = {}) {
    const scheme = raw.slice(0, Math.max(0, raw.indexOf(':'))).toLowerCase()
    let url: URL
    try {
      url = new URL(raw.trim().replace(/#/g, '%23'))
    } catch {
      throw new NotificationSendError(scheme || 'unknown', `${scheme || 'notification'}: the URL could not be parsed`)
    }
    this.url = url
    this.scheme = url.protocol.replace(/:$/, '').toLowerCase()
    for (const [key, value] of url.searchParams) this.query.set(key.toLowerCase(), value)
    for (const [key, value] of Object.entries(properties)) this.query.set(key.toLowerCase(), value)
  }

  get user(): string {
    return decode(this.url.username)
  }

  get password(): string {
    return decode(this.url.password)
  }

  /** The host without IPv6 brackets. */
  get hostname(): string {
    return this.url.hostname.replace(/^\[|\]$/g, '')
  }

  /** Decoded path segments, empty ones dropped. */
  get segments(): string[] {
    return this.url.pathname.split('/').filter(Boolean).map(decode)
  }

  option(name: string): string | undefined {
    const value = this.query.get(name.toLowerCase())
    return value === undefined || value === '' ? undefined : value
  }

  flag(name: string, fallback = false): boolean {
    const value = this.option(name)
    if (value === undefined) return fallback
    return ['yes', 'true', '1', 'on'].includes(value.toLowerCase())
  }

  list(name: string): string[] {
    return (this.option(name) ?? '').split(',').map((entry) => entry.trim()).filter(Boolean)
  }

  /** Query options other than `consumed`, in their original spelling (for options that stay on a target URL). */
  remainingQuery(consumed: readonly string[]): URLSearchParams {
    const skip = new Set(consumed.map((name) => name.toLowerCase()))
    const rest = new URLSearchParams()
    for (const [key, value] of this.url.searchParams) if (!skip.has(key.toLowerCase())) rest.append(key, value)
    return rest
  }

  invalid(reason: string): NotificationSendError {
    return new NotificationSendError(this.scheme, `${this.scheme}: ${reason}`)
  }
}

function decode(text: string): string {
  try {
    return decodeURIComponent(text)
  } catch {
    return text
  }
}

/** `https:` unless an option says the service is plain http. */
export function httpProtocol(url: ShoutrrrUrl, disableTlsOption = 'disabletls'): 'http' | 'https' {
  return url.flag(disableTlsOption) ? 'http' : 'https'
}

/** `title` then `message`, separated by a blank line, the title emphasised as the service's markup does it. */
export function titled(title: string, message: string, emphasise: (title: string) => string = (text) => text): string {
  if (!title) return message
  return message ? `${emphasise(title)}\n${message}` : emphasise(title)
}

const SECRET_QUERY_KEYS = /(token|key|secret|pass|auth|sig)/i
// Shoutrrr options whose names look secret but are not.
const PLAIN_QUERY_KEYS = new Set(['titlekey', 'messagekey'])

export function isSecretQueryKey(key: string): boolean {
  return !PLAIN_QUERY_KEYS.has(key.toLowerCase()) && SECRET_QUERY_KEYS.test(key)
}

/** Query values whose names say they are secrets (googlechat's key/token, generic webhooks' tokens). */
export function secretQueryValues(url: URL): string[] {
  const values: string[] = []
  for (const [key, value] of url.searchParams) if (isSecretQueryKey(key)) values.push(value)
  return values
}
