import type { NextFunction, Request, RequestHandler, Response } from 'express'
import type { Env } from '#server/env.ts'
import { cookieValue } from '#server/cookies.ts'
import { limitBody, type TrustsForwarded } from '#server/ops/request-guards.ts'
import { apiBodyLimit, checkApiBodySize, checkApiForgery, tooLarge } from './forgery-guard.ts'
import { ORGANIZATION_COOKIE, ORGANIZATION_HEADER, type OrganizationResolver } from './organizations.ts'
import { findSubBase } from '#contract/sub-bases.ts'
import { upstreamFor } from './upstream-target.ts'
import { proxyRequest, refuseRequest, sendGatewayError, type ProxyOptions } from './upstream-proxy.ts'

export type GatewayOptions = {
  env: Env
  /** The in-process backend; absent in a pure upstream deployment. */
  embedded?: RequestHandler
  resolveOrganization?: OrganizationResolver
  /** Whether a peer's X-Forwarded-* count (the app's `trust proxy`), for the origin check. */
  trustsForwarded: TrustsForwarded
}

function organizationOf(req: Request): string | undefined {
  const fromHeader = req.headers[ORGANIZATION_HEADER]
  if (typeof fromHeader === 'string' && fromHeader.trim()) return fromHeader.trim()
  return cookieValue(req.headers.cookie, ORGANIZATION_COOKIE)
}

/**
 * The /api layer: each sub-base goes to the embedded backend (in process) or to an upstream
 * URL, decided per request from configuration and, in hosted mode, the organisation.
 * Mounted at /api (and /mcp), so `req.url` here is the path below /api.
 */
export function createGatewayHandler(options: GatewayOptions): RequestHandler {
  const { env, embedded, resolveOrganization } = options
  const proxyOptions: ProxyOptions = {
    connectTimeoutMs: env.LOOKOUT_UPSTREAM_CONNECT_TIMEOUT_MS,
    responseTimeoutMs: env.LOOKOUT_UPSTREAM_TIMEOUT_MS,
  }
  const originOptions = { publicUrl: env.LOOKOUT_PUBLIC_URL, trustsForwarded: options.trustsForwarded }

  return async (req: Request, res: Response, next: NextFunction) => {
    try {
      const path = req.path
      if (path === '/_health') {
        res.json({ health: 'ok' })
        return
      }
      const subBase = findSubBase(path)
      if (!subBase) {
        res.status(404).json({ error: 'not_found', message: `no API is served at /api${path}` })
        return
      }
      const refusal = checkApiBodySize(req, env.LOOKOUT_API_BODY_LIMIT_BYTES) ?? checkApiForgery(req, originOptions)
      if (refusal) {
        refuseRequest(req, res, refusal)
        return
      }
      const bodyLimit = apiBodyLimit(req, env.LOOKOUT_API_BODY_LIMIT_BYTES)
      const withLimit = { ...proxyOptions, maxBodyBytes: bodyLimit }
      const rest = req.url.slice(subBase.base.length)

      const organization = resolveOrganization ? organizationOf(req) : undefined
      if (organization && resolveOrganization) {
        const route = await resolveOrganization(organization)
        if (route.kind === 'provisioning') {
          sendGatewayError(req, res, 503, 'provisioning', `the instance of organization ${organization} is being created`)
          return
        }
        if (route.kind === 'invalid') {
          sendGatewayError(req, res, 500, 'invalid_organization', route.message)
          return
        }
        if (route.kind === 'backend') {
          proxyRequest(
            req,
            res,
            {
              url: route.backendUrl,
              path: `${subBase.service === 'kratos' ? '/kratos' : subBase.base}${rest}`,
              authorization: route.direct && route.bearerToken ? `Bearer ${route.bearerToken}` : undefined,
              service: `organization ${organization}`,
              protocol: req.protocol,
              requestId: String(req.id),
            },
            withLimit,
          )
          return
        }
      }

      const upstream = upstreamFor(subBase, env)
      if (upstream) {
        proxyRequest(
          req,
          res,
          { url: upstream.url, path: `${upstream.pathPrefix}${rest}`, service: subBase.service, protocol: req.protocol, requestId: String(req.id) },
          withLimit,
        )
        return
      }
      if (!embedded) {
        sendGatewayError(req, res, 502, 'no_backend', `no backend is configured for /api${subBase.base} (${subBase.purpose})`)
        return
      }
      // The platform serves the identity API under /kratos; /api/.ory is its browser-facing name.
      if (subBase.service === 'kratos') req.url = `/kratos${rest}`
      // Body parsers read (and discard) a refused body to its end; this stops them at the limit.
      limitBody(req, res, bodyLimit, () => {
        const refusal = tooLarge(req, bodyLimit)
        sendGatewayError(req, res, refusal.status, refusal.error, refusal.message)
      })
      embedded(req, res, next)
    } catch (error) {
      next(error)
    }
  }
}
