import cluster, { type Worker } from 'node:cluster'
import os from 'node:os'
import type { Logger } from 'pino'
import type { Env } from '#server/env.ts'

/**
 * Several console processes on one PostgreSQL database (docs/decisions/015-console-processes.md).
 * One Node process renders pages on one core; with LOOKOUT_WORKERS the primary forks that many
 * full console processes (gateway, embedded backend, check engine, pages) sharing the port.
 * Nothing they need to agree on lives in their memory: sessions, queues, schedules and leases
 * are in PostgreSQL, and the in-memory caches (credentials, shared page data) hear each other's
 * writes through LISTEN/NOTIFY. PGlite is one process's database, so it always runs one.
 */
export function consoleProcessCount(env: Pick<Env, 'NODE_ENV' | 'DATABASE_URL' | 'LOOKOUT_WORKERS'>): number {
  // Vite's dev server compiles on demand and reloads modules in place: one process only.
  if (env.NODE_ENV !== 'production' || !env.DATABASE_URL) return 1
  return env.LOOKOUT_WORKERS === 'auto' ? os.availableParallelism() : env.LOOKOUT_WORKERS
}

/** True in a process the primary forked: it serves, and leaves announcing to the primary. */
export const isConsoleWorker = (): boolean => cluster.isWorker

type WorkerMessage = { type: 'listening'; port: number }

/** Tells the primary this worker listens (cluster workers share the primary's port). */
export function reportListening(port: number): void {
  process.send?.({ type: 'listening', port } satisfies WorkerMessage)
}

/**
 * Forks `count` workers and resolves with the shared port once every one of them listens. A
 * worker that dies later is replaced (it may have crashed mid-request; the others go on serving).
 * SIGTERM/SIGINT stop the workers, each draining its own connections, then the primary exits.
 */
export function startConsoleWorkers(options: { count: number; logger: Logger; graceMs: number }): Promise<{ port: number }> {
  const { count, logger } = options
  let stopping = false
  let port = 0
  const listening = new Set<number>()

  return new Promise((resolve, reject) => {
    const fork = (): Worker => {
      const worker = cluster.fork()
      worker.on('message', (message: WorkerMessage) => {
        if (message?.type !== 'listening') return
        port = message.port
        listening.add(worker.id)
        if (listening.size === count) resolve({ port })
      })
      return worker
    }
    cluster.on('exit', (worker, code, signal) => {
      const wasListening = listening.delete(worker.id)
      if (stopping) {
        if (Object.keys(cluster.workers ?? {}).length === 0) process.exit(0)
        return
      }
      if (!wasListening && listening.size < count && port === 0) {
        reject(new Error(`a console worker exited before it listened (code ${code ?? signal})`))
        return
      }
      logger.error({ worker: worker.process.pid, code, signal }, 'console worker exited; starting another')
      fork()
    })
    for (let index = 0; index < count; index++) fork()

    const stop = (signal: NodeJS.Signals) => {
      if (stopping) {
        logger.warn({ signal }, 'second signal: exiting now')
        process.exit(1)
      }
      stopping = true
      logger.info({ signal, workers: Object.keys(cluster.workers ?? {}).length }, 'stopping console workers')
      // SIGTERM whichever signal came: workers ignore SIGINT (boot.ts handleShutdown).
      for (const worker of Object.values(cluster.workers ?? {})) worker?.process.kill('SIGTERM')
      // A worker's own grace period bounds its drain; this only catches one that hangs past it.
      setTimeout(() => process.exit(1), options.graceMs + 5_000).unref()
    }
    process.on('SIGTERM', () => stop('SIGTERM'))
    process.on('SIGINT', () => stop('SIGINT'))
  })
}
