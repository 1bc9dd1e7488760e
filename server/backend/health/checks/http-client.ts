import http from 'node:http'
import https from 'node:https'
import { isIP } from 'node:net'
import type { TLSSocket } from 'node:tls'
import { Agent as UndiciAgent, errors as undiciErrors, type Dispatcher } from 'undici'
import { pinnedLookup, type TargetGuard } from './target-guard.ts'

/**
 * A lean HTTP(S) client for checks: keep-alive pools shared by every check, manual redirects
 * (so `maxRedirects: 0` can accept a 301), the peer certificate for SSL expiry, and an abort
 * signal for the per-check timeout.
 *
 * Plain-http requests of trusted checks go through undici's dispatcher (docs/decisions/012):
 * it costs about a third of node:http's CPU per request, which is most of what a check costs.
 * Everything else stays on node:http(s): https because checks read the peer certificate, which
 * undici does not expose per request; fenced checks because their lookup is pinned per request;
 * and the few request headers undici refuses or rewrites. Both paths answer alike: headers
 * merged by node's rules, and node's messages for the failures that the two word differently.
 */
const HTTP_AGENT = new http.Agent({ keepAlive: true, maxSockets: 512, maxFreeSockets: 256 })
const HTTPS_AGENT = new https.Agent({ keepAlive: true, maxSockets: 512, maxFreeSockets: 256 })
// Fenced checks (target-guard.ts) never reuse a socket a trusted check opened to a host they may not reach.
const GUARDED_HTTP_AGENT = new http.Agent({ keepAlive: true, maxSockets: 256, maxFreeSockets: 64 })
const GUARDED_HTTPS_AGENT = new https.Agent({ keepAlive: true, maxSockets: 256, maxFreeSockets: 64 })
// No timeouts of undici's own (connect 10 s, headers and body 300 s): the check's signal is
// the only deadline, as on node:http. Idle sockets are kept across a 30 s schedule unless the
// server's Keep-Alive hint says it closes them sooner.
const plainHttpAgent = () =>
  new UndiciAgent({
    connections: 512,
    connect: { timeout: 0 },
    headersTimeout: 0,
    bodyTimeout: 0,
    keepAliveTimeout: 60_000,
    keepAliveMaxTimeout: 600_000,
  })
let plainHttp = plainHttpAgent()
// undici's Agent keeps a pool per origin for its lifetime (node's agent drops empty ones): past
// this many origins a fresh agent takes over and the old one closes once its requests finish.
const MAX_ORIGINS = 4_096
const origins = new Set<string>()

function plainHttpFor(origin: string): UndiciAgent {
  if (!origins.has(origin)) {
    if (origins.size >= MAX_ORIGINS) {
      const old = plainHttp
      plainHttp = plainHttpAgent()
      origins.clear()
      void old.close().catch(() => undefined)
    }
    origins.add(origin)
  }
  return plainHttp
}

/** Request headers undici refuses or handles itself; requests carrying one go through node:http as given. */
const NODE_ONLY_HEADERS = new Set(['connection', 'keep-alive', 'transfer-encoding', 'upgrade', 'expect', 'content-length', 'host', 'te'])
// A method that is no token fails on node:http, with its own message.
const HTTP_TOKEN = /^[\^_`a-zA-Z\-0-9!#$%&'*+.|~]+$/
/** Response headers whose repeats node:http drops, keeping the first (IncomingMessage.headers). */
const FIRST_WINS = new Set([
  'age', 'authorization', 'content-length', 'content-type', 'etag', 'expires', 'from', 'host', 'if-modified-since',
  'if-unmodified-since', 'last-modified', 'location', 'max-forwards', 'proxy-authorization', 'referer', 'retry-after',
  'server', 'user-agent',
])

export type HttpResponse = {
  status: number
  statusText: string
  headers: Record<string, string>
  body: Buffer
  url: string
  /** Expiry of the leaf certificate, when the final hop was TLS. */
  certificateExpiresAt?: Date
}

export type HttpRequestOptions = {
  method?: string
  headers?: Record<string, string>
  body?: string | Buffer
  signal?: AbortSignal
  maxRedirects?: number
  maxBodyBytes?: number
  tls?: { rejectUnauthorized?: boolean; ca?: string; cert?: string; key?: string }
  /** Where the request may connect; every hop (redirects too) is admitted before it dials. */
  targets?: TargetGuard
}

const USER_AGENT = 'canary-checker/lookout'

async function once(url: URL, options: HttpRequestOptions): Promise<HttpResponse> {
  const isHttps = url.protocol === 'https:'
  const hostname = url.hostname.replace(/^\[|\]$/g, '')
  const admission = options.targets ? await options.targets.admit(hostname, Number(url.port) || (isHttps ? 443 : 80)) : null
  const transport = isHttps ? https : http
  const headers: Record<string, string> = { 'user-agent': USER_AGENT, ...options.headers }
  if (url.username || url.password) {
    headers.authorization ??= `Basic ${Buffer.from(`${decodeURIComponent(url.username)}:${decodeURIComponent(url.password)}`).toString('base64')}`
  }
  const body = options.body === undefined ? undefined : Buffer.isBuffer(options.body) ? options.body : Buffer.from(options.body)
  if (body) headers['content-length'] = String(body.length)
  const limit = options.maxBodyBytes ?? 10 * 1024 * 1024
  const method = options.method ?? 'GET'
  if (!isHttps && !admission && HTTP_TOKEN.test(method) && !Object.keys(options.headers ?? {}).some((name) => NODE_ONLY_HEADERS.has(name.toLowerCase()))) {
    return viaUndici(url, method, headers, body, options.signal, limit)
  }
  return new Promise((resolve, reject) => {
    const request = transport.request(
      {
        protocol: url.protocol,
        hostname,
        port: url.port || undefined,
        path: `${url.pathname}${url.search}`,
        method: options.method ?? 'GET',
        headers,
        agent: admission ? (isHttps ? GUARDED_HTTPS_AGENT : GUARDED_HTTP_AGENT) : isHttps ? HTTPS_AGENT : HTTP_AGENT,
        ...(admission ? { lookup: pinnedLookup(admission) } : {}),
        signal: options.signal,
        ...(isHttps ? { rejectUnauthorized: options.tls?.rejectUnauthorized ?? true, ca: options.tls?.ca, cert: options.tls?.cert, key: options.tls?.key, servername: isIP(url.hostname) ? undefined : url.hostname } : {}),
      },
      (response) => {
        let certificateExpiresAt: Date | undefined
        if (isHttps) {
          const certificate = (response.socket as TLSSocket).getPeerCertificate?.()
          if (certificate?.valid_to) certificateExpiresAt = new Date(certificate.valid_to)
        }
        const chunks: Buffer[] = []
        let size = 0
        response.on('data', (chunk: Buffer) => {
          size += chunk.length
          if (size <= limit) chunks.push(chunk)
        })
        response.on('end', () => {
          const flat: Record<string, string> = {}
          for (const [key, value] of Object.entries(response.headers)) {
            if (value !== undefined) flat[key] = Array.isArray(value) ? value.join(', ') : value
          }
          resolve({
            status: response.statusCode ?? 0,
            statusText: response.statusMessage ?? '',
            headers: flat,
            body: Buffer.concat(chunks),
            url: url.toString(),
            certificateExpiresAt,
          })
        })
        response.on('error', reject)
      },
    )
    request.on('error', reject)
    request.end(body)
  })
}

function viaUndici(url: URL, method: string, given: Record<string, string>, body: Buffer | undefined, signal: AbortSignal | undefined, limit: number): Promise<HttpResponse> {
  return new Promise((resolve, reject) => {
    // node:http validates names and values the same way and throws these same errors.
    const headers: Record<string, string> = {}
    const names = new Map<string, string>()
    for (const [name, value] of Object.entries(given)) {
      http.validateHeaderName(name)
      http.validateHeaderValue(name, value)
      // node:http keeps one header per case-insensitive name, the last one given.
      const key = name.toLowerCase()
      const previous = names.get(key)
      if (previous !== undefined) delete headers[previous]
      names.set(key, name)
      headers[name] = value
    }
    if (signal?.aborted) return reject(abortError(signal))
    let settled = false
    let headersSeen = false
    let abortRequest: ((error: Error) => void) | null = null
    const settle = () => {
      settled = true
      signal?.removeEventListener('abort', onAbort)
    }
    // Settles at once, as node:http does, even while the request still waits for a socket.
    const onAbort = () => {
      if (settled) return
      const error = abortError(signal!)
      settle()
      abortRequest?.(error)
      reject(error)
    }
    signal?.addEventListener('abort', onAbort, { once: true })
    let status = 0
    let statusText = ''
    let flat: Record<string, string> = {}
    const chunks: Buffer[] = []
    let size = 0
    const origin = url.origin
    const request: Dispatcher.DispatchOptions = { origin, path: `${url.pathname}${url.search}`, method: method as Dispatcher.HttpMethod, headers, body }
    const handler: Dispatcher.DispatchHandlers = {
      onConnect(abort) {
        if (settled) abort(new Error('settled'))
        else abortRequest = abort
      },
      onHeaders(statusCode, rawHeaders, _resume, message) {
        // 1xx answers are skipped, as node:http does.
        if (statusCode < 200) return true
        headersSeen = true
        status = statusCode
        statusText = message
        flat = nodeStyleHeaders(rawHeaders)
        return true
      },
      onData(chunk) {
        size += chunk.length
        if (size <= limit) chunks.push(chunk)
        return true
      },
      onComplete() {
        if (settled) return
        settle()
        resolve({ status, statusText, headers: flat, body: Buffer.concat(chunks), url: url.toString() })
      },
      onError(error) {
        if (settled) return
        settle()
        reject(asNodeError(error, headersSeen))
      },
    }
    try {
      plainHttpFor(origin).dispatch(request, handler)
    } catch (error) {
      handler.onError!(error as Error)
    }
  })
}

/** A response's raw header lines merged as IncomingMessage.headers merges them, then flattened. */
function nodeStyleHeaders(raw: Buffer[] | string[] | null): Record<string, string> {
  const merged: Record<string, string> = {}
  if (!raw) return merged
  for (let index = 0; index + 1 < raw.length; index += 2) {
    const name = raw[index]!.toString('latin1').toLowerCase()
    const value = raw[index + 1]!.toString('latin1')
    const previous = merged[name]
    if (previous === undefined) merged[name] = value
    else if (FIRST_WINS.has(name)) continue
    else merged[name] = `${previous}${name === 'cookie' ? '; ' : ', '}${value}`
  }
  return merged
}

/** node:http's error for an aborted request (AbortError, ABORT_ERR), the signal's reason as cause. */
function abortError(signal: AbortSignal): Error {
  const error = new Error('The operation was aborted', { cause: signal.reason }) as Error & { code: string }
  error.name = 'AbortError'
  error.code = 'ABORT_ERR'
  return error
}

/** undici's wording of a failure, in node:http's words where they differ; network errors pass as they are. */
function asNodeError(error: Error, headersSeen: boolean): Error {
  const reworded = (message: string, code: string) => Object.assign(new Error(message, { cause: error }), { code })
  if (error instanceof undiciErrors.SocketError) return headersSeen ? reworded('aborted', 'ECONNRESET') : reworded('socket hang up', 'ECONNRESET')
  if (error instanceof undiciErrors.HeadersOverflowError) return reworded('Parse Error: Header overflow', 'HPE_HEADER_OVERFLOW')
  if (error instanceof undiciErrors.HTTPParserError) return reworded(`Parse Error: ${error.message}`, (error as Error & { code?: string }).code ?? 'HPE_INTERNAL')
  return error
}

export async function httpRequest(target: string, options: HttpRequestOptions = {}): Promise<HttpResponse> {
  let url = new URL(target)
  let current = options
  const maxRedirects = options.maxRedirects ?? 10
  for (let hop = 0; ; hop += 1) {
    const response = await once(url, current)
    const location = response.headers.location
    if (response.status >= 300 && response.status < 400 && location && hop < maxRedirects) {
      url = new URL(location, url)
      // 303, and 301/302 after a POST, continue as GET without a body, as browsers and Go do.
      if (response.status === 303 || ((response.status === 301 || response.status === 302) && current.method && current.method !== 'GET' && current.method !== 'HEAD')) {
        current = { ...current, method: 'GET', body: undefined }
      }
      continue
    }
    return response
  }
}

export function parseJsonBody(response: HttpResponse): unknown {
  return JSON.parse(response.body.toString('utf8'))
}
