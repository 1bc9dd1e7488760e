import { createLogger } from '#server/logger.ts'

/**
 * Loaders have no Express `req`, so they log through a child of the same pino setup (same
 * redaction rules) tagged with where the line came from.
 */
export const consoleLog = createLogger(process.env.LOG_LEVEL ?? 'info').child({ module: 'console' })
