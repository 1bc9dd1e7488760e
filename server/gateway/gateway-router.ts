import type { NextFunction, Request, RequestHandler, Response } from 'express'
import type { Env } from '#server/env.ts'
import { cookieValue } from '#server/backend/identity/credentials.ts'
import { ORGANIZATION_COOKIE, ORGANIZATION_HEADER, type OrganizationResolver } from './organizations.ts'
import { findSubBase, upstreamFor } from './sub-bases.ts'
import { proxyRequest, sendGatewayError, type ProxyOptions } from './upstream-proxy.ts'

export type GatewayOptions = {
  env: Env
  /** The in-process backend; absent in a pure upstream deployment. */
  embedded?: RequestHandler
  resolveOrganization?: OrganizationResolver
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
            proxyOptions,
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
          proxyOptions,
        )
        return
      }
      if (!embedded) {
        sendGatewayError(req, res, 502, 'no_backend', `no backend is configured for /api${subBase.base} (${subBase.purpose})`)
        return
      }
      // The platform serves the identity API under /kratos; /api/.ory is its browser-facing name.
      if (subBase.service === 'kratos') req.url = `/kratos${rest}`
      embedded(req, res, next)
    } catch (error) {
      next(error)
    }
  }
}
