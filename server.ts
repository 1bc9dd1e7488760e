import cluster from 'node:cluster'
import http from 'node:http'
import type { AddressInfo } from 'node:net'
import type { Db } from '#server/db/client.ts'
import type { Env } from '#server/env.ts'
import { createApp } from '#server/app.ts'
import { createBackend } from '#server/backend/backend-app.ts'
import { APP_VERSION, handleShutdown, loadEnvOrExit, localUrl, prepareDatabase, StartupClock } from '#server/boot.ts'
import { firstAdminLines } from '#server/backend/identity/first-admin.ts'
import { createBackgroundWorkers } from '#server/backend/background-workers.ts'
import { createConsoleHandler } from '#server/console.ts'
import { createLogger } from '#server/logger.ts'
import { consoleClientHeaders } from '#server/ops/client-address.ts'
import { createSharedDataCache, invalidateOnNotice } from '#server/gateway/shared-data-cache.ts'
import { consoleProcessCount, isConsoleWorker, reportListening, startConsoleWorkers } from '#server/cluster.ts'

const clock = new StartupClock()
clock.mark('imported')
const env = loadEnvOrExit()
const logger = createLogger(env.LOG_LEVEL)

async function main(): Promise<void> {
  const db = await prepareDatabase(env, logger, clock)
  let gatewayBaseUrl = ''
  const consoleUrl = () => env.LOOKOUT_PUBLIC_URL ?? gatewayBaseUrl
  const embedded = env.LOOKOUT_MODE === 'embedded'
  const workers = embedded ? createBackgroundWorkers({ db, env, logger }) : undefined
  const backend = createBackend({ db, env, logger, appVersion: APP_VERSION, consoleUrl, engine: workers?.engine, scrapeEngine: workers?.scrapeEngine, topologyEngine: workers?.topologyEngine })
  // A worker's primary has made the token and the first admin, and says what they are.
  const worker = isConsoleWorker()
  const generatedToken = embedded && !worker ? await backend.credentials.ensureBootstrapToken() : undefined
  const sharedData = createSharedDataCache({ ttlMs: env.LOOKOUT_SHARED_DATA_TTL_MS, maxEntries: env.LOOKOUT_SHARED_DATA_MAX })
  // Only the embedded backend's tables carry migration 0230's triggers; upstream, the TTL and
  // the writes passing through this gateway bound what the cache may hold.
  if (embedded) {
    await invalidateOnNotice(db, sharedData, backend.authorizer).catch((error: unknown) => {
      logger.warn({ err: error }, 'no listener for shared-data notices: other processes’ writes reach this one within the cache TTL')
    })
  }

  const consoleHandler = await createConsoleHandler({
    isProduction: env.NODE_ENV === 'production',
    pageConcurrency: env.LOOKOUT_PAGE_CONCURRENCY,
    getLoadContext: (req, res) => ({
      gateway: { gatewayBaseUrl, gatewayTimeoutMs: env.LOOKOUT_UPSTREAM_TIMEOUT_MS, clientHeaders: consoleClientHeaders(req) },
      cspNonce: res.locals.cspNonce as string,
      publicEnv: { frontendVersion: APP_VERSION, mode: env.LOOKOUT_MODE },
      sharedData,
    }),
  })
  clock.mark('console')
  const app = createApp({
    env,
    db,
    logger,
    embedded: backend.router,
    console: consoleHandler.handler,
    isMigrated: () => true,
    sharedData,
  })

  const server = http.createServer(app.listener).listen(env.PORT, env.HOST)
  await new Promise<void>((resolve, reject) => {
    server.once('listening', resolve)
    server.once('error', reject)
  })
  const port = (server.address() as AddressInfo).port
  gatewayBaseUrl = localUrl(env.HOST, port)
  const url = consoleUrl()
  clock.mark('listening')
  await workers?.start()

  if (worker) reportListening(port)
  else process.stdout.write(await startupLines({ env, db, url, backend, generatedToken }))
  clock.mark('ready')
  logger.info({ url, port, startup: clock }, 'listening')

  handleShutdown({
    server,
    logger,
    graceMs: env.LOOKOUT_SHUTDOWN_GRACE_MS,
    worker,
    onClose: async () => {
      await workers?.stop()
      await consoleHandler.close()
      await db.close()
    },
  })
}

/** What the first start prints: where the console is and how to sign in. */
async function startupLines(options: {
  env: Env
  db: Db
  url: string
  backend: ReturnType<typeof createBackend>
  generatedToken: string | undefined
}): Promise<string> {
  const { env, db, url, backend, generatedToken } = options
  const lines = [`Lookout ${APP_VERSION} is running at ${url} (${env.LOOKOUT_MODE} mode, ${db.engine})`]
  if (env.LOOKOUT_MODE === 'embedded') lines.push(...(await firstAdminLines(db, env, url, backend)))
  if (generatedToken) {
    lines.push(
      `Sign in at ${url}/login/token with this admin access token (shown once; set LOOKOUT_BOOTSTRAP_TOKEN to choose your own):`,
      `  ${generatedToken}`,
      `API: curl -H "Authorization: Bearer ${generatedToken}" ${url}/api/db/checks`,
    )
  } else if (env.LOOKOUT_BOOTSTRAP_TOKEN) {
    lines.push(`Sign in at ${url}/login/token with the access token in LOOKOUT_BOOTSTRAP_TOKEN.`)
  } else {
    lines.push(
      `Sign in at ${url}/login/token with the admin access token printed on the first start (or restart with LOOKOUT_BOOTSTRAP_TOKEN set).`,
    )
  }
  return `\n${lines.join('\n')}\n\n`
}

/**
 * The primary of several console processes: it migrates and seeds once, makes the bootstrap
 * token, forks the workers and, once they all listen, prints what a single process would.
 */
async function primary(count: number): Promise<void> {
  const db = await prepareDatabase(env, logger, clock)
  let url = env.LOOKOUT_PUBLIC_URL ?? ''
  const backend = createBackend({ db, env, logger, appVersion: APP_VERSION, consoleUrl: () => url })
  const generatedToken = env.LOOKOUT_MODE === 'embedded' ? await backend.credentials.ensureBootstrapToken() : undefined
  const { port } = await startConsoleWorkers({ count, logger, graceMs: env.LOOKOUT_SHUTDOWN_GRACE_MS })
  url = env.LOOKOUT_PUBLIC_URL ?? localUrl(env.HOST, port)
  process.stdout.write(await startupLines({ env, db, url, backend, generatedToken }))
  await backend.credentialCache.close()
  await db.close()
  clock.mark('ready')
  logger.info({ url, port, workers: count, startup: clock }, 'listening')
}

const processCount = consoleProcessCount(env)
;(processCount > 1 && cluster.isPrimary ? primary(processCount) : main()).catch((error: unknown) => {
  logger.fatal({ err: error }, 'Lookout failed to start')
  process.exit(1)
})
