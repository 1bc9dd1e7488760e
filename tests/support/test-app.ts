import { createApp } from '#server/app.ts'
import { createBackend } from '#server/backend/backend-app.ts'
import type { Db } from '#server/db/client.ts'
import { parseEnv, type Env } from '#server/env.ts'
import { createLogger } from '#server/logger.ts'
import { APP_VERSION } from '#server/boot.ts'
import type { Logger } from 'pino'
import type { SharedDataCache } from '#server/gateway/shared-data-cache.ts'

export const TEST_TOKEN = 'test-bootstrap-token-0123456789abcdef'

export function testEnv(overrides: Record<string, string> = {}): Env {
  return parseEnv({ NODE_ENV: 'test', LOG_LEVEL: 'silent', LOOKOUT_BOOTSTRAP_TOKEN: TEST_TOKEN, ...overrides })
}

/**
 * The console process's Express app (gateway + embedded backend), without pages. Pass a
 * `logger` to capture log lines (e.g. to prove a secret never reaches them).
 */
export function createTestApp(
  db: Db,
  overrides: Record<string, string> = {},
  options: { logger?: Logger; consoleUrl?: string; sharedData?: SharedDataCache } = {},
) {
  const env = testEnv(overrides)
  const logger = options.logger ?? createLogger('silent')
  const backend = createBackend({ db, env, logger, appVersion: APP_VERSION, consoleUrl: () => options.consoleUrl ?? 'http://127.0.0.1:3000' })
  const app = createApp({ env, db, logger, embedded: backend.router, isMigrated: () => true, sharedData: options.sharedData })
  return { app, env, backend }
}

export const bearer = { Authorization: `Bearer ${TEST_TOKEN}` }
