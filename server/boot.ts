import { existsSync, mkdirSync, readFileSync } from 'node:fs'
import type { Server } from 'node:http'
import path from 'node:path'
import { fileURLToPath } from 'node:url'
import type { Logger } from 'pino'
import { openDatabase, type Db } from '#server/db/client.ts'
import { migrate } from '#server/db/migrate.ts'
import { copyTemplate, findTemplate } from '#server/db/pglite-template.ts'
import { isDatabaseEmpty, seedDemoData } from '#server/db/seed.ts'
import { EnvError, parseEnv, pgliteDir, type Env } from '#server/env.ts'

/** The nearest package.json above this module: server/boot.ts in the sources, build/lookout/ in the bundle. */
function readAppVersion(): string {
  for (let dir = path.dirname(fileURLToPath(import.meta.url)); ; dir = path.dirname(dir)) {
    const manifest = path.join(dir, 'package.json')
    if (existsSync(manifest)) return (JSON.parse(readFileSync(manifest, 'utf8')) as { version: string }).version
    if (path.dirname(dir) === dir) throw new Error(`no package.json above ${fileURLToPath(import.meta.url)}`)
  }
}

export const APP_VERSION: string = readAppVersion()

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
 * When each start-up step ended, in ms since this process began (performance.timeOrigin), and
 * what the start did to the database. Logged with 'listening', where bench/start-time reads it.
 */
export class StartupClock {
  readonly startedAt = Math.round(performance.timeOrigin)
  readonly steps: Record<string, number> = {}
  migrationsApplied = 0
  seeded = false

  mark(step: string): void {
    this.steps[step] = Math.round(performance.now())
  }

  toJSON(): Record<string, unknown> {
    return { startedAt: this.startedAt, pid: process.pid, steps: this.steps, migrationsApplied: this.migrationsApplied, seeded: this.seeded }
  }
}

/**
 * Opens the configured database, applies migrations and, on the first start of an empty
 * embedded database, loads the demo estate.
 */
export async function prepareDatabase(env: Env, logger: Logger, clock = new StartupClock()): Promise<Db> {
  const started = Date.now()
  if (!env.DATABASE_URL) {
    mkdirSync(pgliteDir(env), { recursive: true })
    const template = await findTemplate()
    if (template && copyTemplate(template, pgliteDir(env))) clock.mark('template')
  }
  const db = await openDatabase({
    databaseUrl: env.DATABASE_URL,
    dataDir: env.DATABASE_URL ? undefined : pgliteDir(env),
    poolMax: env.LOOKOUT_DB_POOL_MAX,
    statementTimeoutMs: env.LOOKOUT_DB_STATEMENT_TIMEOUT_MS,
  })
  clock.mark('opened')
  const { applied } = await migrate(db)
  clock.mark('migrated')
  clock.migrationsApplied = applied.length
  logger.info(
    { engine: db.engine, applied: applied.length, ms: Date.now() - started },
    applied.length ? `applied ${applied.length} migrations` : 'database schema is up to date',
  )
  if (env.LOOKOUT_MODE === 'embedded' && env.LOOKOUT_DEMO_DATA && (await isDatabaseEmpty(db))) {
    const seedStart = Date.now()
    const summary = await seedDemoData(db, { seed: env.LOOKOUT_DEMO_SEED })
    logger.info({ ms: Date.now() - seedStart, summary }, 'loaded demo data into the empty database')
    clock.mark('seeded')
    clock.seeded = !summary.skipped
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
  /**
   * A cluster worker stops on its primary's SIGTERM alone: Ctrl-C's SIGINT reaches the whole
   * process group, and counting it too would make the primary's SIGTERM a second signal.
   */
  worker?: boolean
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
  if (options.worker) {
    // The same stop may arrive twice (from the primary, and from a supervisor signalling the
    // whole process group); the primary's own timer is what ends a drain that hangs.
    const once = () => {
      if (!stopping) stop('SIGTERM')
    }
    process.on('SIGTERM', once)
    process.on('SIGINT', () => undefined)
    // A primary that died cannot send anything any more: stop as if it had.
    process.on('disconnect', once)
  } else {
    process.on('SIGTERM', () => stop('SIGTERM'))
    process.on('SIGINT', () => stop('SIGINT'))
  }
}

export function localUrl(host: string, port: number): string {
  const reachable = host === '0.0.0.0' || host === '::' ? '127.0.0.1' : host
  return `http://${reachable.includes(':') ? `[${reachable}]` : reachable}:${port}`
}
