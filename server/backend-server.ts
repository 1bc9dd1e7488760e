import type { AddressInfo } from 'node:net'
import express from 'express'
import { createBackend } from '#server/backend/backend-app.ts'
import { createBackgroundWorkers } from '#server/backend/background-workers.ts'
import { APP_VERSION, handleShutdown, loadEnvOrExit, localUrl, prepareDatabase } from '#server/boot.ts'
import { createHttpLogger, createLogger } from '#server/logger.ts'
import { clientAddressMiddleware } from '#server/ops/client-address.ts'
import { createMetrics } from '#server/ops/metrics.ts'
import { mountOperationsEndpoints } from '#server/ops/operations.ts'
import { refuseMalformedUrl } from '#server/ops/url-encoding.ts'

/**
 * The embedded backend alone, serving the platform's paths at its root as Mission Control
 * does (`/db/...`, `/canary/...`, `/auth/...`). A console started with
 * LOOKOUT_MODE=upstream BACKEND_URL=<this URL> uses it as its upstream.
 */
const env = loadEnvOrExit()
const logger = createLogger(env.LOG_LEVEL)

async function main(): Promise<void> {
  const db = await prepareDatabase({ ...env, LOOKOUT_MODE: 'embedded' }, logger)
  let ownUrl = ''
  const workers = createBackgroundWorkers({ db, env, logger })
  const backend = createBackend({
    db,
    env,
    logger,
    appVersion: APP_VERSION,
    // Behind a console in upstream mode, people reach the identity flows through that console.
    consoleUrl: () => env.LOOKOUT_PUBLIC_URL ?? ownUrl,
    engine: workers.engine,
    scrapeEngine: workers.scrapeEngine,
    topologyEngine: workers.topologyEngine,
  })
  const generatedToken = await backend.credentials.ensureBootstrapToken()
  const metrics = createMetrics(db)

  const app = express()
  app.disable('x-powered-by')
  // Behind a console in upstream mode the browser's address arrives in X-Forwarded-For, which
  // counts (for rate limits and sessions) only with LOOKOUT_TRUST_PROXY.
  app.set('trust proxy', env.LOOKOUT_TRUST_PROXY)
  app.use(clientAddressMiddleware(env.LOOKOUT_TRUST_PROXY))
  app.use((req, res, next) => {
    if (!refuseMalformedUrl(req, res)) next()
  })
  app.use(createHttpLogger(logger))
  app.use(metrics.middleware)
  mountOperationsEndpoints(app, { db, metrics, isMigrated: () => true, env })
  app.use(backend.router)

  const server = app.listen(env.PORT, env.HOST)
  await new Promise<void>((resolve, reject) => {
    server.once('listening', resolve)
    server.once('error', reject)
  })
  const url = localUrl(env.HOST, (server.address() as AddressInfo).port)
  ownUrl = url
  await workers.start()
  process.stdout.write(`Lookout backend ${APP_VERSION} listening at ${url} (${db.engine})\n`)
  if (generatedToken) process.stdout.write(`Admin access token (shown once): ${generatedToken}\n`)
  handleShutdown({ server, logger, graceMs: env.LOOKOUT_SHUTDOWN_GRACE_MS, onClose: async () => {
      await workers.stop()
      await db.close()
    },
  })
}

main().catch((error: unknown) => {
  logger.fatal({ err: error }, 'Lookout backend failed to start')
  process.exit(1)
})
