import http from 'node:http'
import https from 'node:https'
import type { IncomingMessage, ServerResponse } from 'node:http'

// Hop-by-hop headers (RFC 9110 §7.6.1) belong to one connection and are never forwarded.
const HOP_BY_HOP = new Set([
  'connection',
  'keep-alive',
  'proxy-authenticate',
  'proxy-authorization',
  'proxy-connection',
  'te',
  'trailer',
  'transfer-encoding',
  'upgrade',
])

export type ProxyOptions = {
  connectTimeoutMs: number
  /** Time allowed for the upstream to start answering (and between body chunks). */
  responseTimeoutMs: number
  /** Most bytes of a request body streamed to an upstream; beyond it the call ends in 413. */
  maxBodyBytes?: number
}

export type ProxyTarget = {
  url: string
  /** Path on the upstream, with query string. */
  path: string
  /** Replaces the caller's Authorization (hosted direct mode). */
  authorization?: string
  service: string
  /** How the caller reached us ('http' or 'https', after trusted proxies). */
  protocol: string
  requestId?: string
}

/** Methods that change nothing (RFC 9110 §9.2.1): a timeout leaves nothing in doubt. */
const SAFE_METHODS = new Set(['GET', 'HEAD', 'OPTIONS', 'TRACE'])

// Keep-alive pools: a new TCP connection per request would dominate the proxy's cost.
const httpAgent = new http.Agent({ keepAlive: true, maxSockets: 256, maxFreeSockets: 64 })
const httpsAgent = new https.Agent({ keepAlive: true, maxSockets: 256, maxFreeSockets: 64 })

function wantsHtml(req: IncomingMessage): boolean {
  const accept = req.headers.accept ?? ''
  return accept.includes('text/html') && !accept.includes('application/json')
}

function escapeHtml(text: string): string {
  return text.replace(/[&<>"']/g, (char) => `&#${char.charCodeAt(0)};`)
}

/** The gateway's own error answer: JSON for clients, a readable page for a browser tab. */
export function sendGatewayError(
  req: IncomingMessage,
  res: ServerResponse,
  status: number,
  error: string,
  message: string,
): void {
  if (res.headersSent) {
    res.destroy()
    return
  }
  if (wantsHtml(req)) {
    res.writeHead(status, { 'content-type': 'text/html; charset=utf-8' })
    res.end(
        `<!doctype html><html lang="en"><head><meta charset="utf-8"><title>${status} | Lookout</title>` +
          `<style>body{font-family:system-ui,sans-serif;max-width:40rem;margin:4rem auto;padding:0 1rem;color:#1f2937}` +
          `h1{font-size:1.5rem}code{background:#f3f4f6;padding:.1rem .3rem;border-radius:.25rem}</style></head>` +
          (status < 500
            ? `<body><h1>This request was refused</h1><p>${escapeHtml(message)}</p><p>Error <code>${escapeHtml(error)}</code>, status ${status}.</p>`
            : `<body><h1>The service behind this page is not answering</h1><p>${escapeHtml(message)}</p>` +
              `<p>Error <code>${escapeHtml(error)}</code>, status ${status}. Try again in a moment; if it persists, ` +
              `check that the backend is running.</p>`) +
          `<p><a href="/">Back to the console</a></p></body></html>`,
    )
    return
  }
  res.writeHead(status, { 'content-type': 'application/json; charset=utf-8' })
  res.end(JSON.stringify({ error, message }))
}

/**
 * Refuses a request before its body is read: the answer goes out with `Connection: close`
 * and the socket closes after it, so a large body is neither buffered nor drained.
 */
export function refuseRequest(
  req: IncomingMessage,
  res: ServerResponse,
  refusal: { status: number; error: string; message: string },
): void {
  req.pause()
  if (!res.headersSent) res.shouldKeepAlive = false
  sendGatewayError(req, res, refusal.status, refusal.error, refusal.message)
}

function forwardedHeaders(req: IncomingMessage, target: ProxyTarget, upstreamHost: string): http.OutgoingHttpHeaders {
  const headers: http.OutgoingHttpHeaders = {}
  for (const [name, value] of Object.entries(req.headers)) {
    if (value === undefined || HOP_BY_HOP.has(name) || name === 'host') continue
    headers[name] = value
  }
  const remote = req.socket.remoteAddress ?? ''
  const priorFor = req.headers['x-forwarded-for']
  headers['x-forwarded-for'] = priorFor ? `${String(priorFor)}, ${remote}` : remote
  headers['x-forwarded-proto'] = target.protocol
  headers['x-forwarded-host'] = req.headers['x-forwarded-host'] ?? req.headers.host ?? ''
  headers.host = upstreamHost
  if (target.authorization) headers.authorization = target.authorization
  if (target.requestId) headers['x-request-id'] = target.requestId
  return headers
}

/**
 * Streams one request to an upstream and its answer back, bodies flowing both ways without
 * buffering. An upstream that refuses, resets or stays silent past the timeouts becomes a
 * 502/504 from the gateway — a caller never hangs.
 */
export function proxyRequest(req: IncomingMessage, res: ServerResponse, target: ProxyTarget, options: ProxyOptions): void {
  const base = new URL(target.url)
  const client = base.protocol === 'https:' ? https : http
  const upstreamPath = `${base.pathname.replace(/\/$/, '')}${target.path}`
  let finished = false

  const upstreamReq = client.request({
    protocol: base.protocol,
    hostname: base.hostname,
    port: base.port || undefined,
    method: req.method,
    path: upstreamPath,
    headers: forwardedHeaders(req, target, base.host),
    agent: base.protocol === 'https:' ? httpsAgent : httpAgent,
  })

  const fail = (status: number, error: string, message: string) => {
    if (finished) return
    finished = true
    upstreamReq.destroy()
    sendGatewayError(req, res, status, error, message)
  }

  const connectTimer = setTimeout(() => {
    fail(502, 'upstream_unreachable', `${target.service} at ${base.origin} did not accept a connection within ${options.connectTimeoutMs} ms`)
  }, options.connectTimeoutMs)

  upstreamReq.on('socket', (socket) => {
    if (!socket.connecting) clearTimeout(connectTimer)
    else socket.once('connect', () => clearTimeout(connectTimer))
  })
  upstreamReq.setTimeout(options.responseTimeoutMs, () => {
    const silence = `${target.service} at ${base.origin} did not answer within ${options.responseTimeoutMs} ms`
    // The upstream had the request: a write may have been applied even though no answer came.
    fail(504, 'upstream_timeout', SAFE_METHODS.has(req.method ?? 'GET') ? silence : `${silence}; the ${req.method} may or may not have been applied, so check before retrying it`)
  })
  upstreamReq.on('error', (error: NodeJS.ErrnoException) => {
    clearTimeout(connectTimer)
    if (res.headersSent) {
      // The answer had started: the only honest signal left is to cut the connection.
      finished = true
      res.destroy(error)
      return
    }
    fail(502, 'upstream_unreachable', `${target.service} at ${base.origin} is unreachable (${error.code ?? error.message})`)
  })

  upstreamReq.on('response', (upstreamRes) => {
    clearTimeout(connectTimer)
    if (finished) {
      upstreamRes.resume()
      return
    }
    finished = true
    res.statusCode = upstreamRes.statusCode ?? 502
    for (const [name, value] of Object.entries(upstreamRes.headers)) {
      if (value === undefined || HOP_BY_HOP.has(name)) continue
      res.setHeader(name, value)
    }
    upstreamRes.pipe(res)
    upstreamRes.on('error', () => res.destroy())
  })

  // A caller that goes away stops the upstream request too.
  res.on('close', () => {
    clearTimeout(connectTimer)
    if (!res.writableFinished) upstreamReq.destroy()
  })
  if (options.maxBodyBytes !== undefined) {
    const limit = options.maxBodyBytes
    let size = 0
    const count = (chunk: Buffer) => {
      size += chunk.length
      if (size <= limit) return
      req.off('data', count)
      req.unpipe(upstreamReq)
      req.pause()
      if (!res.headersSent) res.shouldKeepAlive = false
      fail(413, 'payload_too_large', `the request body is larger than the ${limit} bytes any /api path accepts`)
      if (res.headersSent && !res.writableFinished) res.destroy()
    }
    req.on('data', count)
  }
  req.pipe(upstreamReq)
}
