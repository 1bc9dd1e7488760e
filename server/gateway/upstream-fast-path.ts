import type { IncomingMessage, ServerResponse } from 'node:http'
import type { Logger } from 'pino'
import type { Env } from '#server/env.ts'
import { redactUrl, requestIdOf } from '#server/logger.ts'
import type { Metrics } from '#server/ops/metrics.ts'
import type { TrustsForwarded } from '#server/ops/request-guards.ts'
import { apiBodyLimit, checkApiBodySize, checkApiForgery } from './forgery-guard.ts'
import { ORGANIZATION_COOKIE, ORGANIZATION_HEADER } from './organizations.ts'
import { findSubBase } from '#contract/sub-bases.ts'
import { upstreamFor } from './upstream-target.ts'
import { proxyRequest, refuseRequest } from './upstream-proxy.ts'

/**
 * The hot path of upstream mode: an /api request whose sub-base is proxied goes straight to
 * the proxy, before the general middleware stack (per-request child loggers, CSP nonces and
 * page security headers cost more than the proxying itself). It still gets a request id,
 * metrics, a log line and the headers that matter for API answers. Requests for a hosted
 * organisation need a database lookup and take the general path.
 */
export function createUpstreamFastPath(options: { env: Env; metrics: Metrics; logger: Logger; trustsForwarded: TrustsForwarded }) {
  const { env, metrics, logger } = options
  const proxyOptions = {
    connectTimeoutMs: env.LOOKOUT_UPSTREAM_CONNECT_TIMEOUT_MS,
    responseTimeoutMs: env.LOOKOUT_UPSTREAM_TIMEOUT_MS,
  }
  const originOptions = { publicUrl: env.LOOKOUT_PUBLIC_URL, trustsForwarded: options.trustsForwarded }

  function protocolOf(req: IncomingMessage): string {
    if (env.LOOKOUT_TRUST_PROXY) {
      const forwarded = req.headers['x-forwarded-proto']
      if (typeof forwarded === 'string' && forwarded) return forwarded.split(',')[0]!.trim()
    }
    return (req.socket as { encrypted?: boolean }).encrypted ? 'https' : 'http'
  }

  return function tryUpstreamFastPath(req: IncomingMessage, res: ServerResponse): boolean {
    const url = req.url ?? '/'
    if (!url.startsWith('/api/')) return false
    const rest = url.slice(4)
    const subBase = findSubBase(rest.split('?')[0]!)
    if (!subBase) return false
    const upstream = upstreamFor(subBase, env)
    if (!upstream) return false
    if (req.headers[ORGANIZATION_HEADER] || req.headers.cookie?.includes(`${ORGANIZATION_COOKIE}=`)) return false

    const started = process.hrtime.bigint()
    const requestId = requestIdOf(req, res)
    res.setHeader('X-Content-Type-Options', 'nosniff')
    res.setHeader('Referrer-Policy', 'same-origin')
    res.on('finish', () => {
      const seconds = Number(process.hrtime.bigint() - started) / 1e9
      metrics.observe(req.method ?? 'GET', `/api${subBase.base}`, res.statusCode, seconds)
      if (logger.isLevelEnabled('info') || (res.statusCode >= 400 && logger.isLevelEnabled('warn'))) {
        const level = res.statusCode >= 500 ? 'error' : res.statusCode >= 400 ? 'warn' : 'info'
        logger[level](
          {
            req: { id: requestId, method: req.method, url: redactUrl(url) },
            res: { statusCode: res.statusCode },
            responseTime: Math.round(seconds * 1000),
          },
          'request completed',
        )
      }
    })
    // The same refusals as the general path: the upstream never sees a forged or oversized call.
    const refusal = checkApiBodySize(req, env.LOOKOUT_API_BODY_LIMIT_BYTES) ?? checkApiForgery(req, originOptions)
    if (refusal) {
      refuseRequest(req, res, refusal)
      return true
    }
    proxyRequest(
      req,
      res,
      {
        url: upstream.url,
        path: `${upstream.pathPrefix}${rest.slice(subBase.base.length)}`,
        service: subBase.service,
        protocol: protocolOf(req),
        requestId,
      },
      { ...proxyOptions, maxBodyBytes: apiBodyLimit(req, env.LOOKOUT_API_BODY_LIMIT_BYTES) },
    )
    return true
  }
}
