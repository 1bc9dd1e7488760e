import type { Logger } from 'pino'

/**
 * How a database call failed when the fault is the connection, not the statement:
 * - `connect`: no connection could be opened (server down, starting up, unreachable);
 * - `lost`: an open connection broke under a query or transaction (restart, crash, reset);
 * - `pool-timeout`: every pooled connection stayed busy past the checkout wait.
 * Any of them clears by itself once the server is back, so callers answer 503 and retry.
 */
export type ConnectionFailure = 'connect' | 'lost' | 'pool-timeout'

// Socket-level errno codes: the peer went away or cannot be reached.
const CONNECT_CODES = new Set(['ECONNREFUSED', 'ENOTFOUND', 'EAI_AGAIN', 'EHOSTUNREACH', 'ENETUNREACH', 'ETIMEDOUT'])
const LOST_CODES = new Set(['ECONNRESET', 'EPIPE', 'ECONNABORTED'])

// node-postgres reports these without a code.
const LOST_MESSAGES = [/^Connection terminated/, /not queryable/, /^Client was closed/]

export function connectionFailureOf(error: unknown): ConnectionFailure | null {
  if (!error || typeof error !== 'object') return null
  const { code, message } = error as { code?: unknown; message?: unknown }
  const text = typeof message === 'string' ? message : ''
  if (typeof code === 'string') {
    if (CONNECT_CODES.has(code)) return 'connect'
    if (LOST_CODES.has(code)) return 'lost'
    // 57P03 cannot_connect_now: starting up or shutting down; 57P01/57P02: the server ended our session.
    if (code === '57P03') return 'connect'
    if (code === '57P01' || code === '57P02') return 'lost'
    // Class 08: connection exception.
    if (/^08[0-9A-Z]{3}$/.test(code)) return code === '08001' || code === '08004' ? 'connect' : 'lost'
  }
  if (text === 'timeout exceeded when trying to connect') return 'pool-timeout'
  if (text === 'Connection terminated due to connection timeout') return 'connect'
  if (LOST_MESSAGES.some((pattern) => pattern.test(text))) return 'lost'
  // Node wraps a refused dual-stack connect (::1 and 127.0.0.1) in an AggregateError.
  if (error instanceof AggregateError) return error.errors.map(connectionFailureOf).find((kind) => kind !== null) ?? null
  return null
}

export function isConnectionFailure(error: unknown): boolean {
  return connectionFailureOf(error) !== null
}

/**
 * A short, address-free account of a connection failure for an error body: the database's own
 * words when it sent some, otherwise the socket's error code. Host names and ports stay in the log.
 */
export function connectionFailureDetails(error: unknown): string {
  const { code, message } = (error ?? {}) as { code?: unknown; message?: unknown }
  if (typeof code === 'string' && /^[0-9A-Z]{5}$/.test(code) && typeof message === 'string') return message
  if (typeof code === 'string') return code
  if (error instanceof AggregateError) return connectionFailureDetails(error.errors[0])
  return typeof message === 'string' && !/\d+\.\d+\.\d+\.\d+|:\d{2,5}/.test(message) ? message : 'connection failure'
}

export type OutageGate = {
  /** False while paused: callers skip their database work until the backoff has passed. */
  ready(): boolean
  /**
   * Reports a failed call. A connection failure pauses the caller (logged once per outage, the
   * pause doubling up to the maximum) and returns true; any other error returns false.
   */
  failed(error: unknown): boolean
  /** Reports a call that reached the database: ends an outage (logged once). */
  succeeded(): void
  readonly paused: boolean
  /** How long the current pause lasts (0 when not paused). */
  delayMs(): number
}

/**
 * The pause/resume of a background loop (check engine, event consumer) across a database
 * outage: no crash, one log line when it starts and one when it ends, and an exponential
 * backoff in between so a dead server is not hammered by every timer.
 */
export function createOutageGate(options: { logger: Logger; what: string; minMs?: number; maxMs?: number; now?: () => number }): OutageGate {
  const minMs = options.minMs ?? 500
  const maxMs = Math.max(minMs, options.maxMs ?? 30_000)
  const now = options.now ?? Date.now
  let paused = false
  let since = 0
  let delay = 0
  let resumeAt = 0
  return {
    ready: () => !paused || now() >= resumeAt,
    failed(error) {
      if (!isConnectionFailure(error)) return false
      if (!paused) {
        paused = true
        since = now()
        delay = minMs
        options.logger.warn({ err: error }, `database unreachable; ${options.what} pauses until it is back`)
      } else if (now() >= resumeAt) {
        // A probe after the pause failed; calls already under way when it began do not count.
        delay = Math.min(maxMs, delay * 2)
      } else {
        return true
      }
      resumeAt = now() + delay
      return true
    },
    succeeded() {
      if (!paused) return
      paused = false
      options.logger.info({ outageMs: now() - since }, `database reachable again; ${options.what} resumes`)
      delay = 0
    },
    get paused() {
      return paused
    },
    delayMs: () => (paused ? delay : 0),
  }
}
