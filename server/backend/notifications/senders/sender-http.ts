import { httpRequest, type HttpResponse } from '#server/backend/health/checks/http-client.ts'
import type { Admission, TargetGuard } from '#server/backend/health/checks/target-guard.ts'

/**
 * What every sender shares: the message and option types, the error callers retry on, secret
 * redaction, and the one HTTP call all HTTP services make (deadline, abort, egress guard,
 * non-2xx as an error).
 */

export const SENDER_SCHEMES = [
  'smtp',
  'generic',
  'slack',
  'teams',
  'discord',
  'mattermost',
  'googlechat',
  'telegram',
  'ntfy',
  'pushover',
  'pushbullet',
  'opsgenie',
  'rocketchat',
  'zulip',
  'matrix',
  'ifttt',
] as const

export type SenderScheme = (typeof SENDER_SCHEMES)[number]

export type NotificationAttachment = { filename: string; content: string | Buffer; contentType?: string }

export type NotificationMessage = {
  title: string
  message: string
  /** Shoutrrr's params: override the URL's query options; generic webhooks add them to a JSON body. */
  properties?: Record<string, string>
  /** Sent by smtp only; other schemes refuse a message that has any. */
  attachments?: NotificationAttachment[]
}

export type SendOptions = {
  signal?: AbortSignal
  /** One deadline for the whole send (every request it makes); default 30 s. */
  timeoutMs?: number
  /** Per-service base URL overrides so tests point at loopback receivers, e.g. { slack: 'http://127.0.0.1:1234' }. */
  baseUrls?: Partial<Record<SenderScheme, string>>
  /**
   * Optional egress check, called before every request (and before the SMTP connection); throwing
   * refuses it. When it answers with the addresses it vetted (a TargetGuard's Admission), the
   * connection goes to those addresses and the host is not resolved again, so a DNS answer that
   * changes after the check (rebinding) cannot steer it elsewhere; Host and the TLS server name
   * stay the URL's host. Answering nothing leaves resolution to the connection.
   */
  guard?: (url: URL) => Promise<Admission | void>
}

export type SendResult = { scheme: string; target: string; status?: number; response?: string }

export class NotificationSendError extends Error {
  readonly scheme: string
  readonly status?: number
  /** Worth trying again later: 5xx, 429, 408, network failures and timeouts; not 4xx or a bad URL. */
  readonly retryable: boolean

  constructor(scheme: string, message: string, options: { status?: number; retryable?: boolean; cause?: unknown } = {}) {
    super(message, options.cause === undefined ? undefined : { cause: options.cause })
    this.name = 'NotificationSendError'
    this.scheme = scheme
    this.status = options.status
    this.retryable = options.retryable ?? false
  }
}

export const DEFAULT_TIMEOUT_MS = 30_000
const MAX_RESPONSE_CHARS = 500

/**
 * The secrets of one URL, so no message, error or response text carries them. Both the raw and
 * the URL-encoded forms are kept; very short values are skipped, since replacing them would
 * mangle the text without protecting anything.
 */
export class Secrets {
  private readonly values = new Set<string>()

  add(...values: (string | undefined | null)[]): this {
    for (const value of values) {
      if (!value || value.length < 4) continue
      this.values.add(value)
      this.values.add(encodeURIComponent(value))
      try {
        this.values.add(decodeURIComponent(value))
      } catch {
        // Not percent-encoded: the raw form is enough.
      }
    }
    return this
  }

  redact(text: string): string {
    let result = text
    // Longest first, so a secret that contains another is masked whole.
    for (const value of [...this.values].sort((a, b) => b.length - a.length)) result = result.split(value).join('***')
    return result
  }
}

/** Everything one sender needs from the call: the options, the combined deadline signal and the URL's secrets. */
export type SendContext = {
  scheme: SenderScheme
  options: SendOptions
  signal: AbortSignal
  secrets: Secrets
  timeoutMs: number
  /** Whether the deadline (rather than the caller) aborted `signal`. */
  timedOut: () => boolean
}

/** `path` on the service's API: the caller's `baseUrls` override when given, else `defaultBase`. */
export function endpointOf(context: SendContext, defaultBase: string, path: string): string {
  const base = (context.options.baseUrls?.[context.scheme] ?? defaultBase).replace(/\/+$/, '')
  return `${base}${path.startsWith('/') ? path : `/${path}`}`
}

export function abortedError(context: SendContext, cause?: unknown): NotificationSendError {
  return context.timedOut()
    ? new NotificationSendError(context.scheme, `${context.scheme}: timed out after ${context.timeoutMs} ms`, { retryable: true, cause })
    : new NotificationSendError(context.scheme, `${context.scheme}: the send was aborted`, { retryable: true, cause })
}

/** The guard's verdict on `url`: the addresses to dial, or null to dial the host as usual. */
export async function checkEgress(context: SendContext, url: URL): Promise<Admission> {
  if (!context.options.guard) return null
  try {
    return (await context.options.guard(url)) ?? null
  } catch (error) {
    const reason = error instanceof Error ? error.message : String(error)
    throw new NotificationSendError(context.scheme, context.secrets.redact(`${context.scheme}: ${url.protocol}//${url.host} is not an allowed target: ${reason}`), { cause: error })
  }
}

const DEFAULT_PORTS: Record<string, number> = { 'http:': 80, 'https:': 443, 'smtp:': 25 }

/**
 * A `guard` from a TargetGuard (target-guard.ts, as checks and playbooks use it): admits the
 * URL's host and port and answers the vetted addresses, so every send is pinned to them.
 */
export function targetGuardOf(targets: TargetGuard): NonNullable<SendOptions['guard']> {
  return (url) => targets.admit(url.hostname.replace(/^\[|\]$/g, ''), Number(url.port) || DEFAULT_PORTS[url.protocol] || 443)
}

/** A TargetGuard that answers an admission already made, so http-client dials it without asking again. */
function admitted(admission: NonNullable<Admission>): TargetGuard {
  return { admit: async () => admission, isRestricted: async () => true }
}

export type HttpCall = { method?: string; headers?: Record<string, string>; body?: string | URLSearchParams }
/** `text` is the whole body as received; `shown` its start with secrets masked, for results and logs. */
export type HttpAnswer = { status: number; text: string; shown: string }

function trimmed(text: string): string {
  const flat = text.replace(/\s+/g, ' ').trim()
  return flat.length > MAX_RESPONSE_CHARS ? `${flat.slice(0, MAX_RESPONSE_CHARS)}…` : flat
}

function isRetryableStatus(status: number): boolean {
  return status >= 500 || status === 429 || status === 408
}

/**
 * One request to a service, through the checks' HTTP client (http-client.ts): when the guard
 * vetted addresses, the socket is pinned to them there (pinnedLookup) while Host and SNI keep
 * the URL's host. Redirects are not followed: a notification API answers its POST directly, and
 * following one would skip the egress guard for the next hop. Anything but 2xx throws, with the
 * status and the start of the body; secrets are masked in every message.
 */
export async function httpCall(context: SendContext, target: string, call: HttpCall = {}): Promise<HttpAnswer> {
  const { scheme, secrets } = context
  const url = new URL(target)
  const shown = secrets.redact(`${url.origin}${url.pathname}`)
  const method = (call.method ?? 'POST').toUpperCase()
  const admission = await checkEgress(context, url)
  if (context.signal.aborted) throw abortedError(context)
  let response: HttpResponse
  let text: string
  try {
    response = await httpRequest(url.href, {
      method,
      headers: call.headers,
      body: method === 'GET' || method === 'HEAD' || call.body === undefined ? undefined : call.body.toString(),
      signal: context.signal,
      maxRedirects: 0,
      ...(admission ? { targets: admitted(admission) } : {}),
    })
    text = response.body.toString('utf8')
  } catch (error) {
    if (context.signal.aborted) throw abortedError(context, error)
    const cause = error instanceof Error ? error.message || (error.cause instanceof Error ? error.cause.message : error.name) : String(error)
    throw new NotificationSendError(scheme, secrets.redact(`${scheme}: ${method} ${shown} failed: ${cause}`), { retryable: true, cause: error })
  }
  if (response.status < 200 || response.status >= 300) {
    const body = trimmed(secrets.redact(text))
    throw new NotificationSendError(scheme, `${scheme}: ${method} ${shown} answered ${response.status}${body ? `: ${body}` : ''}`, {
      status: response.status,
      retryable: isRetryableStatus(response.status),
    })
  }
  return { status: response.status, text, shown: trimmed(secrets.redact(text)) }
}

export function jsonCall(body: unknown, headers: Record<string, string> = {}): HttpCall {
  return { method: 'POST', headers: { 'Content-Type': 'application/json', ...headers }, body: JSON.stringify(body) }
}

export function formCall(fields: Record<string, string | undefined>, headers: Record<string, string> = {}): HttpCall {
  const form = new URLSearchParams()
  for (const [key, value] of Object.entries(fields)) if (value !== undefined && value !== '') form.set(key, value)
  return { method: 'POST', headers: { 'Content-Type': 'application/x-www-form-urlencoded', ...headers }, body: form }
}

/** The parsed body of a JSON answer, or undefined when it is not JSON. */
export function parsedJson(answer: HttpAnswer): Record<string, unknown> | undefined {
  try {
    const value = JSON.parse(answer.text) as unknown
    return value && typeof value === 'object' ? (value as Record<string, unknown>) : undefined
  } catch {
    return undefined
  }
}
