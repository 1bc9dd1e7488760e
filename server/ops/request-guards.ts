import type { IncomingMessage, ServerResponse } from 'node:http'
import type { Socket } from 'node:net'
import type { NextFunction, Request, RequestHandler, Response } from 'express'
import { rawCookies } from '#server/cookies.ts'

/**
 * Guards that run before anything reads a request: where it comes from (Origin /
 * Sec-Fetch-Site against the console's own origin) and how big its body may be. Shared by
 * the /api gateway and the console, so both judge an origin the same way.
 */

const SAFE_METHODS = new Set(['GET', 'HEAD', 'OPTIONS', 'TRACE'])

export function isUnsafeMethod(method: string | undefined): boolean {
  return !SAFE_METHODS.has((method ?? 'GET').toUpperCase())
}

/** The cookies that authenticate a browser: the console's own session and the identity service's. */
const SESSION_COOKIES = ['lookout_session', 'ory_kratos_session']

export function hasSessionCookie(req: IncomingMessage): boolean {
  const cookies = rawCookies(req.headers.cookie)
  return SESSION_COOKIES.some((name) => (cookies[name] ?? '') !== '')
}

/**
 * A request the browser's cookies authenticate: a session cookie and no credential of its own.
 * A web page cannot add an Authorization or X-Session-Token header to a cross-origin request
 * without a CORS preflight (which is never granted), so such requests are not forgeable.
 */
export function isCookieAuthenticated(req: IncomingMessage): boolean {
  return hasSessionCookie(req) && !req.headers.authorization && !req.headers['x-session-token']
}

/** Decides whether X-Forwarded-* of a peer count (Express's compiled `trust proxy`). */
export type TrustsForwarded = (remoteAddress: string) => boolean

export type OriginOptions = {
  /** LOOKOUT_PUBLIC_URL: the origin browsers use when a proxy in front rewrites the host. */
  publicUrl?: string
  trustsForwarded: TrustsForwarded
}

function firstValue(header: string | string[] | undefined): string | undefined {
  const value = Array.isArray(header) ? header[0] : header
  const first = value?.split(',')[0]?.trim()
  return first || undefined
}

function normalizedOrigin(value: string): string | undefined {
  try {
    const url = new URL(value)
    if (url.protocol !== 'http:' && url.protocol !== 'https:') return undefined
    return url.origin
  } catch {
    return undefined
  }
}

/**
 * The origins this request may legitimately come from: the configured public URL, and the
 * scheme://host the request itself was sent to (as a trusted proxy reports it, and as it
 * arrived). A page of another origin cannot make a browser send its own origin as the Host.
 */
export function ownOrigins(req: IncomingMessage, options: OriginOptions): Set<string> {
  const origins = new Set<string>()
  if (options.publicUrl) {
    const configured = normalizedOrigin(options.publicUrl)
    if (configured) origins.add(configured)
  }
  const socketScheme = (req.socket as { encrypted?: boolean }).encrypted ? 'https' : 'http'
  const host = firstValue(req.headers.host)
  if (host) {
    const direct = normalizedOrigin(`${socketScheme}://${host}`)
    if (direct) origins.add(direct)
  }
  if (options.trustsForwarded(req.socket.remoteAddress ?? '')) {
    const scheme = firstValue(req.headers['x-forwarded-proto']) ?? socketScheme
    const forwardedHost = firstValue(req.headers['x-forwarded-host']) ?? host
    if (forwardedHost) {
      const forwarded = normalizedOrigin(`${scheme}://${forwardedHost}`)
      if (forwarded) origins.add(forwarded)
    }
  }
  return origins
}

export type OriginVerdict =
  | { ok: true; origin?: string }
  | { ok: false; reason: 'foreign-origin' | 'cross-site-fetch' | 'missing-origin'; detail: string }

/**
 * Whether a request comes from the console's own pages: a matching Origin, or (when the
 * browser sent none) `Sec-Fetch-Site: same-origin`. A page on another port of the same host
 * is same-site but not same-origin, and is refused like any other site.
 */
export function checkOrigin(req: IncomingMessage, options: OriginOptions): OriginVerdict {
  const originHeader = firstValue(req.headers.origin)
  const allowed = ownOrigins(req, options)
  if (originHeader) {
    const origin = originHeader === 'null' ? undefined : normalizedOrigin(originHeader)
    if (origin && allowed.has(origin)) return { ok: true, origin }
    return { ok: false, reason: 'foreign-origin', detail: `Origin ${originHeader} is not this console's origin (${[...allowed].join(', ') || 'unknown'})` }
  }
  const fetchSite = firstValue(req.headers['sec-fetch-site'])
  if (fetchSite === 'same-origin') return { ok: true }
  if (fetchSite) return { ok: false, reason: 'cross-site-fetch', detail: `the browser reports the request as ${fetchSite}, not same-origin` }
  return { ok: false, reason: 'missing-origin', detail: 'the request carries neither an Origin header nor Sec-Fetch-Site: same-origin' }
}

/** Whether a request announces a body (a length above zero, or chunked). */
export function hasBody(req: IncomingMessage): boolean {
  const length = req.headers['content-length']
  if (length !== undefined) return Number(length) > 0
  return req.headers['transfer-encoding'] !== undefined
}

export function declaredLength(req: IncomingMessage): number | undefined {
  const length = req.headers['content-length']
  if (length === undefined) return undefined
  const value = Number(length)
  return Number.isFinite(value) && value >= 0 ? value : undefined
}

export function mediaType(req: IncomingMessage): string {
  return (req.headers['content-type'] ?? '').split(';')[0]!.trim().toLowerCase()
}

/** How long a refused connection stays half-open so the client can read the answer. */
const LINGER_MS = 2_000

/**
 * Replaces Node's close-after-answer for one connection: stop reading at once (the rest of the
 * body stays in kernel buffers, then is discarded), send FIN after the answer, and destroy the
 * socket a moment later. Closing outright would reset the connection while the client is still
 * sending, and a client that gets the reset before reading loses the answer.
 */
function lingerInsteadOfDrain(socket: Socket): void {
  const target = socket as Socket & {
    _paused?: boolean
    destroySoon?: () => void
    _handle?: { reading?: boolean; readStop?: () => number } | null
  }
  if (typeof target.destroySoon !== 'function') return
  target.destroySoon = () => {
    // `_paused` is what keeps Node's request reader (`_dump`) from resuming the socket.
    target._paused = true
    socket.pause()
    if (target._handle?.readStop) {
      target._handle.reading = false
      target._handle.readStop()
    }
    if (!socket.writableEnded) socket.end()
    const timer = setTimeout(() => socket.destroy(), LINGER_MS)
    timer.unref()
    socket.once('close', () => clearTimeout(timer))
  }
}

const watched = new WeakSet<ServerResponse>()

/**
 * An answer written while the request body is still arriving closes the connection: without
 * `Connection: close` Node would read (and discard) the rest of the body to reuse the
 * connection, so a refused 100 MB upload would still be received in full.
 */
export function closeIfBodyUnread(req: IncomingMessage, res: ServerResponse): void {
  if (!hasBody(req) || watched.has(res)) return
  watched.add(res)
  const writeHead = res.writeHead
  res.writeHead = function patchedWriteHead(this: ServerResponse, ...args: unknown[]) {
    if (!req.complete) {
      this.shouldKeepAlive = false
      lingerInsteadOfDrain(req.socket)
    }
    return (writeHead as (...rest: unknown[]) => ServerResponse).apply(this, args)
  } as typeof res.writeHead
}

/** Stops reading a refused body: the answer goes out, then the connection closes. */
export function refuseBody(req: IncomingMessage, res: ServerResponse): void {
  req.pause()
  res.shouldKeepAlive = false
}

/**
 * Counts a body (chunked, or longer than announced) as its consumer reads it and calls
 * `onOverflow` once it passes `limit`. The stream is paused first so the counter alone never
 * makes data flow (chunks would be lost before the real reader attaches); when that reader
 * subscribes to 'data' the stream is resumed for it, as adding the listener would have done.
 */
export function countBody(req: IncomingMessage, limit: number, onOverflow: () => void): void {
  let size = 0
  if (req.readableFlowing !== true) req.pause()
  const count = (chunk: Buffer | string) => {
    size += typeof chunk === 'string' ? Buffer.byteLength(chunk) : chunk.length
    if (size > limit) {
      req.off('data', count)
      req.off('newListener', resumeForReader)
      onOverflow()
    }
  }
  const resumeForReader = (event: string | symbol, listener: unknown) => {
    if (event !== 'data' || listener === count) return
    req.off('newListener', resumeForReader)
    process.nextTick(() => {
      if (!req.destroyed) req.resume()
    })
  }
  req.on('data', count)
  req.on('newListener', resumeForReader)
}

export class BodyTooLargeError extends Error {
  readonly status = 413
  constructor(limit: number) {
    super(`request body larger than ${limit} bytes`)
    this.name = 'BodyTooLargeError'
  }
}

/**
 * Holds a body to `limit` while its reader consumes it. Past the limit the reader's stream
 * fails (a stream that merely ended would hand it a truncated body to act on), `answer` sends
 * the 413 if nothing was sent yet, and the connection closes after it.
 */
export function limitBody(req: IncomingMessage, res: ServerResponse & { locals?: Record<string, unknown> }, limit: number, answer: () => void): void {
  if (!hasBody(req)) return
  countBody(req, limit, () => {
    if (res.locals) res.locals.bodyRefused = true
    const fail = () => req.destroy(new BodyTooLargeError(limit))
    if (res.headersSent) {
      fail()
      return
    }
    req.pause()
    res.shouldKeepAlive = false
    // The reader fails once the client had its moment to read the 413 (see lingerInsteadOfDrain).
    res.once('finish', () => setTimeout(fail, LINGER_MS).unref())
    answer()
  })
}

export type ConsoleGuardOptions = OriginOptions & {
  /** Largest urlencoded (or other non-multipart) form body a console route accepts. */
  formLimitBytes: number
  /** Largest multipart/form-data body (uploads). */
  multipartLimitBytes: number
}

function escapeHtml(text: string): string {
  return text.replace(/[&<>"']/g, (char) => `&#${char.charCodeAt(0)};`)
}

function sendGuardPage(res: Response, status: number, title: string, message: string): void {
  res.status(status).type('html').send(
    `<!doctype html><html lang="en"><head><meta charset="utf-8"><title>${status} | Lookout</title>` +
      `<style>body{font-family:system-ui,sans-serif;max-width:40rem;margin:4rem auto;padding:0 1rem;color:#1f2937}` +
      `h1{font-size:1.5rem}</style></head><body><h1>${escapeHtml(title)}</h1><p>${escapeHtml(message)}</p>` +
      `<p><a href="/">Back to the console</a></p></body></html>`,
  )
}

function formatBytes(bytes: number): string {
  return bytes >= 1024 * 1024 ? `${Math.round((bytes / (1024 * 1024)) * 10) / 10} MiB` : `${Math.round(bytes / 1024)} KB`
}

/**
 * In front of the console's pages: an unsafe request (a form post to a route action) must come
 * from the console's own origin, and its body must fit the form limits before Remix reads it.
 * Remix's own host/origin comparison throws (a 500) where this answers a readable 403 first.
 */
export function consoleRequestGuard(options: ConsoleGuardOptions): RequestHandler {
  return (req: Request, res: Response, next: NextFunction) => {
    if (!isUnsafeMethod(req.method)) {
      next()
      return
    }
    const verdict = checkOrigin(req, options)
    const foreign = !verdict.ok && verdict.reason !== 'missing-origin'
    if (foreign || (!verdict.ok && hasSessionCookie(req))) {
      if (hasBody(req)) refuseBody(req, res)
      sendGuardPage(
        res,
        403,
        'This form was sent from another site',
        `The console only accepts changes sent from its own pages: ${verdict.ok ? '' : verdict.detail}. Reload the page and try again.`,
      )
      return
    }
    const limit = mediaType(req) === 'multipart/form-data' ? options.multipartLimitBytes : options.formLimitBytes
    const tooLarge = () =>
      sendGuardPage(res, 413, 'The form is too large', `A form sent to the console may carry at most ${formatBytes(limit)}.`)
    const length = declaredLength(req)
    if (length !== undefined && length > limit) {
      refuseBody(req, res)
      tooLarge()
      return
    }
    limitBody(req, res, limit, tooLarge)
    next()
  }
}
