import type { IncomingMessage, ServerResponse } from 'node:http'
import express, { type NextFunction, type Request, type RequestHandler, type Response } from 'express'
import type { Logger } from 'pino'
import type { Db } from '#server/db/client.ts'
import { isConnectionFailure } from '#server/db/outage.ts'
import type { Env } from '#server/env.ts'
import { createHttpLogger } from '#server/logger.ts'
import { createGatewayHandler } from '#server/gateway/gateway-router.ts'
import { createOrganizationResolver } from '#server/gateway/organizations.ts'
import { watchShellWrites, type SharedDataCache } from '#server/gateway/shared-data-cache.ts'
import { createUpstreamFastPath } from '#server/gateway/upstream-fast-path.ts'
import { sendGatewayError } from '#server/gateway/upstream-proxy.ts'
import { clientAddressMiddleware, resolveClient } from '#server/ops/client-address.ts'
import { createMetrics } from '#server/ops/metrics.ts'
import { mountOperationsEndpoints } from '#server/ops/operations.ts'
import { closeIfBodyUnread, consoleRequestGuard, type TrustsForwarded } from '#server/ops/request-guards.ts'
import { cspNonce, securityHeaders } from '#server/ops/security.ts'
import { refuseMalformedUrl } from '#server/ops/url-encoding.ts'

/** Console forms are small: a urlencoded (or JSON) body above this is refused unread. */
export const CONSOLE_FORM_LIMIT_BYTES = 64 * 1024

export type AppOptions = {
  env: Env
  db: Db
  logger: Logger
  /** The embedded backend's router (absent when every sub-base is upstream). */
  embedded?: RequestHandler
  /** Serves the console's pages and assets; absent in API-only processes and unit tests. */
  console?: RequestHandler
  /** Whether migrations have been applied; /readyz answers 503 until then. */
  isMigrated: () => boolean
  /** What the console keeps per session; emptied by writes through /api that can change it. */
  sharedData?: SharedDataCache
}

/**
 * Builds the Express app without listening, so tests can drive it with supertest and
 * server.ts can add Vite or the built console. Middleware order: logging and metrics first
 * (they see every request), security headers, operations endpoints, the /api gateway (before
 * any body parser, since it streams bodies), then the console.
 */
export type LookoutApp = express.Express & {
  /**
   * The same app as a plain Node request listener with the upstream fast path in front of
   * Express, so proxied /api calls skip Express's own per-request setup too. server.ts serves
   * this; tests drive the Express app, where the fast path runs as the first middleware.
   */
  listener: (req: IncomingMessage, res: ServerResponse) => void
}

export function createApp(options: AppOptions): LookoutApp {
  const { env, db, logger } = options
  const app = express()
  app.disable('x-powered-by')
  // Behind a TLS-terminating proxy, X-Forwarded-Proto decides req.secure (and Secure cookies).
  // Without LOOKOUT_TRUST_PROXY, resolveClient strips X-Forwarded-* from every caller but the
  // console's own authenticated loopback calls, so 'loopback' applies to those alone.
  app.set('trust proxy', env.LOOKOUT_TRUST_PROXY ? true : 'loopback')
  app.use(clientAddressMiddleware(env.LOOKOUT_TRUST_PROXY))

  const metrics = createMetrics(db)
  // Express's compiled `trust proxy`, read per call so a later app.set still applies.
  const trustsForwarded: TrustsForwarded = (address) =>
    (app.get('trust proxy fn') as (address: string, hop: number) => boolean)(address, 0)
  const upstreamFastPath = createUpstreamFastPath({ env, metrics, logger, trustsForwarded })
  const sharedData = options.sharedData
  const invalidateSharedData = () => sharedData?.invalidate()
  app.use((req, res, next) => {
    if (sharedData) watchShellWrites(req, res, invalidateSharedData)
    closeIfBodyUnread(req, res)
    if (refuseMalformedUrl(req, res)) return
    if (!upstreamFastPath(req, res)) next()
  })
  app.use(createHttpLogger(logger))
  app.use(metrics.middleware)
  app.use(cspNonce)
  app.use(
    securityHeaders({
      isProduction: env.NODE_ENV === 'production',
      reportOnly: env.LOOKOUT_CSP_REPORT_ONLY,
    }),
  )

  mountOperationsEndpoints(app, { db, metrics, isMigrated: options.isMigrated, env })

  const gateway = createGatewayHandler({
    env,
    embedded: options.embedded,
    resolveOrganization: createOrganizationResolver(db),
    trustsForwarded,
  })
  app.use('/api', gateway)
  // MCP clients are configured with `<backend URL>/mcp`, outside /api.
  app.use((req, res, next) => {
    if (req.path === '/mcp' || req.path.startsWith('/mcp/')) {
      gateway(req, res, next)
      return
    }
    next()
  })

  if (options.console) {
    app.use(
      consoleRequestGuard({
        publicUrl: env.LOOKOUT_PUBLIC_URL,
        trustsForwarded,
        formLimitBytes: CONSOLE_FORM_LIMIT_BYTES,
        multipartLimitBytes: env.LOOKOUT_UPLOAD_LIMIT_BYTES,
      }),
    )
    app.use(options.console)
  }

  app.use((error: unknown, req: Request, res: Response, _next: NextFunction) => {
    // A form cut off at its size limit was already answered with 413; its reader just failed.
    if (res.locals.bodyRefused) return
    if (isConnectionFailure(error)) {
      req.log?.warn({ err: error }, 'database unavailable')
      res.setHeader('Retry-After', '1')
      sendGatewayError(req, res, 503, 'database_unavailable', 'The database is not reachable right now; try again in a moment.')
      return
    }
    req.log?.error({ err: error }, 'request failed')
    sendGatewayError(req, res, 500, 'internal', 'Internal Server Error')
  })
  return Object.assign(app, {
    listener: (req: IncomingMessage, res: ServerResponse) => {
      resolveClient(req, env.LOOKOUT_TRUST_PROXY)
      if (sharedData) watchShellWrites(req, res, invalidateSharedData)
      closeIfBodyUnread(req, res)
      if (refuseMalformedUrl(req, res)) return
      if (!upstreamFastPath(req, res)) app(req, res)
    },
  })
}
