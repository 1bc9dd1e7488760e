import type { IncomingMessage } from 'node:http'
import {
  checkOrigin,
  declaredLength,
  hasBody,
  hasSessionCookie,
  isCookieAuthenticated,
  isUnsafeMethod,
  mediaType,
  type OriginOptions,
} from '#server/ops/request-guards.ts'
import { isQueryPost } from '#contract/query-posts.ts'

export type GuardRefusal = { status: number; error: string; message: string }

/**
 * Body types a browser can send cross-origin without a preflight that an API could mistake
 * for JSON or YAML. A cookie-authenticated caller must name its real type (application/json,
 * application/yaml, a form for the identity flows), which a foreign page cannot.
 */
function ambiguousBodyType(req: IncomingMessage): string | undefined {
  if (!hasBody(req)) return undefined
  const type = mediaType(req)
  if (type === '') return 'no Content-Type'
  if (type === 'text/plain') return 'Content-Type text/plain'
  return undefined
}

/**
 * The gateway's forgery rules for one /api request, in embedded and upstream mode alike (the
 * gateway is where the browser's cookies arrive): an unsafe request the session cookie
 * authenticates must come from the console's own origin and must not send its body as
 * text/plain or untyped. Token-authenticated calls pass untouched.
 */
export function checkApiForgery(req: IncomingMessage, options: OriginOptions): GuardRefusal | undefined {
  if (!isUnsafeMethod(req.method) || !isCookieAuthenticated(req)) return undefined
  const path = ((req as { originalUrl?: string }).originalUrl ?? req.url ?? '').split('?')[0]!
  // A POST that only reads changes nothing a forged request could exploit, and its answer is not
  // readable cross-origin: it needs no origin proof, as GET does not (its body type still does).
  const verdict = isQueryPost(req.method, path) ? ({ ok: true } as const) : checkOrigin(req, options)
  if (!verdict.ok) {
    return {
      status: 403,
      error: 'forbidden_origin',
      message: `${req.method} ${path} with a session cookie needs a same-origin request: ${verdict.detail}. API clients send an access token instead.`,
    }
  }
  const ambiguous = ambiguousBodyType(req)
  if (ambiguous) {
    return {
      status: 415,
      error: 'unsupported_media_type',
      message: `${req.method} ${path} with a session cookie cannot send its body with ${ambiguous}: send application/json (or the API's own type).`,
    }
  }
  return undefined
}

/** Anonymous calls (sign-in, identity flows) carry small forms; their parsers stop at 64 KB too. */
export const ANONYMOUS_BODY_LIMIT_BYTES = 64 * 1024

/** Whether the request presents any credential (valid or not): a session cookie or a token header. */
function presentsCredentials(req: IncomingMessage): boolean {
  return hasSessionCookie(req) || Boolean(req.headers.authorization) || Boolean(req.headers['x-session-token'])
}

/**
 * Every /api path has a ceiling the gateway enforces before any credential check or parser:
 * LOOKOUT_API_BODY_LIMIT_BYTES for callers that present a credential, 64 KB for anonymous ones.
 * The embedded routers' own limits are smaller still; this one also bounds what a body parser
 * would read and discard after refusing, and what a proxied call streams to an upstream.
 */
export function apiBodyLimit(req: IncomingMessage, ceilingBytes: number): number {
  return presentsCredentials(req) ? ceilingBytes : Math.min(ceilingBytes, ANONYMOUS_BODY_LIMIT_BYTES)
}

export function checkApiBodySize(req: IncomingMessage, ceilingBytes: number): GuardRefusal | undefined {
  const length = declaredLength(req)
  const limit = apiBodyLimit(req, ceilingBytes)
  if (length === undefined || length <= limit) return undefined
  return tooLarge(req, limit)
}

export function tooLarge(req: IncomingMessage, limit: number): GuardRefusal {
  const who = presentsCredentials(req) ? '' : ' without credentials'
  return { status: 413, error: 'payload_too_large', message: `a request body${who} to /api may carry at most ${limit} bytes` }
}
