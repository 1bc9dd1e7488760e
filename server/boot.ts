import { mkdirSync, readFileSync } from 'node:fs'
import type { Server } from 'node:http'
import type { Logger } from 'pino'
import { openDatabase, type Db } from '#server/db/client.ts'
import { migrate } from '#server/db/migrate.ts'
import { findTemplate } from '#server/db/pglite-template.ts'
import { isDatabaseEmpty, seedDemoData } from '#server/db/seed.ts'
import { EnvError, parseEnv, pgliteDir, type Env } from '#server/env.ts'

export const APP_VERSION: string = (
  JSON.parse(readFileSync(new URL('../package.json', import.meta.url), 'utf8')) as { version: string }
).version

/** Parses the environment or exits with the list of bad variables (no stack trace). */
export function loadEnvOrExit(): Env {
  try {
    return parseEnv()
  } catch (error) {
    if (error instanceof EnvError) {
      process.stderr.write(`${error.message}\nSee README.md, "Configuration", for every variable.\n`)
      process.exit(1)
    }
    throw error
  }
}

/**
 * Opens the configured database, applies migrations and, on the first start of an empty
 * embedded database, loads the demo estate.
 */
export async function prepareDatabase(env: Env, logger: Logger): Promise<Db> {
  if (!env.DATABASE_URL) mkdirSync(pgliteDir(env), { recursive: true })
  const started = Date.now()
  const db = await openDatabase({
    databaseUrl: env.DATABASE_URL,
    dataDir: env.DATABASE_URL ? undefined : pgliteDir(env),
    poolMax: env.LOOKOUT_DB_POOL_MAX,
    statementTimeoutMs: env.LOOKOUT_DB_STATEMENT_TIMEOUT_MS,
    pgliteTemplate: env.DATABASE_URL ? undefined : await findTemplate(),
  })
  const { applied } = await migrate(db)
  logger.info(
    { engine: db.engine, applied: applied.length, ms: Date.now() - started },
    applied.length ? `applied ${applied.length} migrations` : 'database schema is up to date',
  )
  if (env.LOOKOUT_MODE === 'embedded' && env.LOOKOUT_DEMO_DATA && (await isDatabaseEmpty(db))) {
    const seedStart = Date.now()
    const summary = await seedDemoData(db, { seed: env.LOOKOUT_DEMO_SEED })
    logger.info({ ms: Date.now() - seedStart, summary }, 'loaded demo data into the empty database')
  }
  return db
}

/**
 * SIGTERM/SIGINT: stop accepting connections, let in-flight requests finish (up to the grace
 * period), then close the database. A second signal exits at once.
 */
export function handleShutdown(options: {
  server: Server
  logger: Logger
  graceMs: number
  onClose: () => Promise<void>
}): void {
  const { server, logger } = options
  let stopping = false
  const stop = (signal: string) => {
    if (stopping) {
      logger.warn({ signal }, 'second signal: exiting now')
      process.exit(1)
    }
    stopping = true
    logger.info({ signal }, 'shutting down: draining connections')
    const force = setTimeout(() => {
      logger.warn('grace period over: closing remaining connections')
      server.closeAllConnections()
    }, options.graceMs)
    force.unref()
    server.close(() => {
      options
        .onClose()
        .then(() => {
          logger.info('stopped')
          process.exit(0)
        })
        .catch((error: unknown) => {
          logger.error({ err: error }, 'error while stopping')
          process.exit(1)
        })
    })
    server.closeIdleConnections()
  }
  process.on('SIGTERM', () => stop('SIGTERM'))
  process.on('SIGINT', () => stop('SIGINT'))
}

export function localUrl(host: string, port: number): string {
  const reachable = host === '0.0.0.0' || host === '::' ? '127.0.0.1' : host
  return `http://${reachable.includes(':') ? `[${reachable}]` : reachable}:${port}`
}
