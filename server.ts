import http from 'node:http'
import type { AddressInfo } from 'node:net'
import { createApp } from '#server/app.ts'
import { createBackend } from '#server/backend/backend-app.ts'
import { APP_VERSION, handleShutdown, loadEnvOrExit, localUrl, prepareDatabase } from '#server/boot.ts'
import { firstAdminLines } from '#server/backend/identity/first-admin.ts'
import { createBackgroundWorkers } from '#server/backend/background-workers.ts'
import { createConsoleHandler } from '#server/console.ts'
import { createLogger } from '#server/logger.ts'
import { consoleClientHeaders } from '#server/ops/client-address.ts'

const env = loadEnvOrExit()
const logger = createLogger(env.LOG_LEVEL)

async function main(): Promise<void> {
  const db = await prepareDatabase(env, logger)
  let gatewayBaseUrl = ''
  const consoleUrl = () => env.LOOKOUT_PUBLIC_URL ?? gatewayBaseUrl
  const embedded = env.LOOKOUT_MODE === 'embedded'
  const workers = embedded ? createBackgroundWorkers({ db, env, logger }) : undefined
  const backend = createBackend({ db, env, logger, appVersion: APP_VERSION, consoleUrl, engine: workers?.engine })
  const generatedToken = embedded ? await backend.credentials.ensureBootstrapToken() : undefined

  const consoleHandler = await createConsoleHandler({
    isProduction: env.NODE_ENV === 'production',
    getLoadContext: (req, res) => ({
      gateway: { gatewayBaseUrl, gatewayTimeoutMs: env.LOOKOUT_UPSTREAM_TIMEOUT_MS, clientHeaders: consoleClientHeaders(req) },
      cspNonce: res.locals.cspNonce as string,
      publicEnv: { frontendVersion: APP_VERSION, mode: env.LOOKOUT_MODE },
    }),
  })
  const app = createApp({
    env,
    db,
    logger,
    embedded: backend.router,
    console: consoleHandler.handler,
    isMigrated: () => true,
  })

  const server = http.createServer(app.listener).listen(env.PORT, env.HOST)
  await new Promise<void>((resolve, reject) => {
    server.once('listening', resolve)
    server.once('error', reject)
  })
  const port = (server.address() as AddressInfo).port
  gatewayBaseUrl = localUrl(env.HOST, port)
  const url = consoleUrl()
  await workers?.start()

  const lines = [`Lookout ${APP_VERSION} is running at ${url} (${env.LOOKOUT_MODE} mode, ${db.engine})`]
  if (embedded) lines.push(...(await firstAdminLines(db, env, url, backend)))
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
  process.stdout.write(`\n${lines.join('\n')}\n\n`)
  logger.info({ url, port }, 'listening')

  handleShutdown({
    server,
    logger,
    graceMs: env.LOOKOUT_SHUTDOWN_GRACE_MS,
    onClose: async () => {
      await workers?.stop()
      await consoleHandler.close()
      await db.close()
    },
  })
}

main().catch((error: unknown) => {
  logger.fatal({ err: error }, 'Lookout failed to start')
  process.exit(1)
})
