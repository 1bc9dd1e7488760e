import type { IncomingMessage, ServerResponse } from 'node:http'

/**
 * True when every percent-escape of a request target is well formed: `%` and two hex digits,
 * decoding to valid UTF-8. Routers, the PostgREST engine and Remix decode paths and queries in
 * many places, and each threw its own URIError (a 500); refusing the request once, before any
 * of them, answers it as what it is.
 */
export function hasValidPercentEncoding(target: string): boolean {
  if (!target.includes('%')) return true
  try {
    decodeURIComponent(target)
    return true
  } catch {
    return false
  }
}

/** Answers 400 to a request whose URL holds a malformed percent-escape; true when it did. */
export function refuseMalformedUrl(req: IncomingMessage, res: ServerResponse): boolean {
  if (hasValidPercentEncoding(req.url ?? '/')) return false
  const body = JSON.stringify({ error: 'bad_request', message: 'The URL contains a malformed percent-escape (% must be followed by two hex digits forming valid UTF-8).' })
  res.writeHead(400, { 'content-type': 'application/json; charset=utf-8', 'content-length': Buffer.byteLength(body) })
  res.end(body)
  return true
}
