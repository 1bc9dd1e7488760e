import { createHash, randomBytes, timingSafeEqual } from 'node:crypto'
import type { IncomingMessage } from 'node:http'
import { isIP } from 'node:net'
import type { NextFunction, Request, Response } from 'express'

/**
 * Who the client of a request is, decided once at the door for the whole process.
 *
 * - With LOOKOUT_TRUST_PROXY, a proxy in front says so: Express reads the X-Forwarded-For
 *   chain, -Host and -Proto (`trust proxy` = true).
 * - Without it, the socket is the client, and X-Forwarded-* (and `Forwarded`) are removed so
 *   that nothing downstream — Express, the Remix adapter, the upstream proxy — can be told
 *   otherwise by a caller, loopback or not.
 * - The console's own loopback calls (Remix loaders and actions calling /api) prove themselves
 *   with a secret made per process and carry the browser's address, host and protocol: only
 *   then are those taken from the call's headers.
 */

export const CONSOLE_SECRET_HEADER = 'x-lookout-console'
export const CLIENT_ADDRESS_HEADER = 'x-lookout-client-address'

const FORWARDED_HEADERS = ['x-forwarded-for', 'x-forwarded-host', 'x-forwarded-proto', 'x-forwarded-port', 'forwarded']

// Never leaves this process: the console sends it back to its own listener only.
const CONSOLE_SECRET = randomBytes(32).toString('base64url')
const SECRET_DIGEST = createHash('sha256').update(CONSOLE_SECRET).digest()

const RESOLVED = Symbol('lookout.client-resolved')

function isConsoleSecret(value: string | string[] | undefined): boolean {
  if (typeof value !== 'string' || !value) return false
  return timingSafeEqual(createHash('sha256').update(value).digest(), SECRET_DIGEST)
}

function firstValue(value: string | string[] | undefined): string | undefined {
  const text = Array.isArray(value) ? value[0] : value
  const first = text?.split(',')[0]?.trim()
  return first || undefined
}

/** `::ffff:127.0.0.2` and `127.0.0.2` are one client. */
export function normaliseAddress(address: string): string {
  return address.startsWith('::ffff:') && isIP(address.slice(7)) === 4 ? address.slice(7) : address
}

function hostnameOf(host: string): string {
  // "[::1]:3000" → "[::1]", "example.org:443" → "example.org", as Express's req.hostname does.
  const offset = host.startsWith('[') ? host.indexOf(']') + 1 : 0
  const colon = host.indexOf(':', offset)
  return colon === -1 ? host : host.slice(0, colon)
}

function shadow(req: IncomingMessage, name: string, value: unknown): void {
  Object.defineProperty(req, name, { value, configurable: true, enumerable: true, writable: true })
}

/**
 * Settles the client of one request (idempotent). Runs on the raw request before the upstream
 * fast path and again as the first Express middleware; the console's secret and claimed address
 * are always stripped, so they never reach an upstream or a log line.
 */
export function resolveClient(req: IncomingMessage, trustProxy: boolean): void {
  const marked = req as IncomingMessage & { [RESOLVED]?: true }
  if (marked[RESOLVED]) return
  marked[RESOLVED] = true
  const presented = req.headers[CONSOLE_SECRET_HEADER]
  const claimed = firstValue(req.headers[CLIENT_ADDRESS_HEADER])
  delete req.headers[CONSOLE_SECRET_HEADER]
  delete req.headers[CLIENT_ADDRESS_HEADER]

  if (isConsoleSecret(presented) && claimed && isIP(claimed)) {
    const address = normaliseAddress(claimed)
    const proto = firstValue(req.headers['x-forwarded-proto'])
    const host = firstValue(req.headers['x-forwarded-host'])
    const socketProto = (req.socket as { encrypted?: boolean }).encrypted ? 'https' : 'http'
    const protocol = proto === 'https' || proto === 'http' ? proto : socketProto
    // Express's getters live on the prototype; own properties answer for this request only.
    shadow(req, 'ip', address)
    shadow(req, 'ips', [address])
    shadow(req, 'protocol', protocol)
    if (host) shadow(req, 'hostname', hostnameOf(host))
    // An upstream (upstream mode) sees the browser first in the chain, as behind any proxy.
    req.headers['x-forwarded-for'] = address
    req.headers['x-forwarded-proto'] = protocol
    return
  }
  if (trustProxy) return
  for (const name of FORWARDED_HEADERS) delete req.headers[name]
}

export function clientAddressMiddleware(trustProxy: boolean) {
  return (req: Request, _res: Response, next: NextFunction): void => {
    resolveClient(req, trustProxy)
    next()
  }
}

/** The client's address: what `resolveClient` settled, else (no middleware in front) the socket's. */
export function clientAddressOf(req: IncomingMessage & { ip?: string }): string {
  return normaliseAddress(req.ip ?? req.socket.remoteAddress ?? 'unknown')
}

/**
 * Headers the console adds to its loopback API calls for the browser request `req`: they prove
 * the call is the console's and name the browser's address (the forwarded host and protocol
 * travel in X-Forwarded-Host/-Proto, which apiFetch sets). Handed to app code through the Remix
 * load context, never through anything that reaches the browser.
 */
export function consoleClientHeaders(req: IncomingMessage & { ip?: string }): Record<string, string> {
  return { [CONSOLE_SECRET_HEADER]: CONSOLE_SECRET, [CLIENT_ADDRESS_HEADER]: clientAddressOf(req) }
}
