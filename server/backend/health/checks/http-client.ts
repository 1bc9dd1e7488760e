import http from 'node:http'
import https from 'node:https'
import { isIP } from 'node:net'
import type { TLSSocket } from 'node:tls'
import { pinnedLookup, type TargetGuard } from './target-guard.ts'

/**
 * A lean HTTP(S) client for checks: keep-alive pools shared by every check, manual redirects
 * (so `maxRedirects: 0` can accept a 301), the peer certificate for SSL expiry, and an abort
 * signal for the per-check timeout. node:http rather than fetch: it exposes the certificate and
 * costs far less per request, which matters at thousands of checks per second.
 */
const HTTP_AGENT = new http.Agent({ keepAlive: true, maxSockets: 512, maxFreeSockets: 256 })
const HTTPS_AGENT = new https.Agent({ keepAlive: true, maxSockets: 512, maxFreeSockets: 256 })
// Fenced checks (target-guard.ts) never reuse a socket a trusted check opened to a host they may not reach.
const GUARDED_HTTP_AGENT = new http.Agent({ keepAlive: true, maxSockets: 256, maxFreeSockets: 64 })
const GUARDED_HTTPS_AGENT = new https.Agent({ keepAlive: true, maxSockets: 256, maxFreeSockets: 64 })

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
