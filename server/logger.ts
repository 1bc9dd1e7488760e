import { randomUUID } from 'node:crypto'
import type { IncomingMessage, ServerResponse } from 'node:http'
import { pino, type Logger } from 'pino'
import { pinoHttp } from 'pino-http'

// Credentials must never reach a log line, whichever header or body field carries them.
const REDACT = [
  'req.headers.authorization',
  'req.headers.cookie',
  'req.headers["x-flanksource-scope"]',
  'res.headers["set-cookie"]',
  '*.password',
  '*.token',
]

export function createLogger(level: string): Logger {
  return pino({ level, redact: { paths: REDACT, censor: '[redacted]' }, base: { service: 'lookout' } })
}

const SECRET_PARAMS = /([?&](?:token|password|secret|code|api_key|access_token)=)[^&#]*/gi

/**
 * A URL fit for a log line: values of query parameters that carry secrets are replaced (kiosk
 * links carry ?token=, /login accepts ?username=&password= for auto sign-in, mailed links carry
 * one-time codes).
 */
export function redactUrl(url: string): string {
  return url.replace(SECRET_PARAMS, '$1[redacted]')
}

const REQUEST_ID = /^[A-Za-z0-9._:-]{1,128}$/

/** The caller's X-Request-Id when it is sane, else a new one; echoed back on the response. */
export function requestIdOf(req: IncomingMessage, res: ServerResponse): string {
  const incoming = req.headers['x-request-id']
  const id = typeof incoming === 'string' && REQUEST_ID.test(incoming) ? incoming : randomUUID()
  res.setHeader('X-Request-Id', id)
  return id
}

const QUIET_PATHS = new Set(['/healthz', '/readyz', '/metrics'])

export function createHttpLogger(logger: Logger) {
  return pinoHttp({
    logger,
    genReqId: requestIdOf,
    autoLogging: { ignore: (req) => QUIET_PATHS.has(req.url ?? '') || (req.url ?? '').startsWith('/assets/') },
    customLogLevel: (_req, res, error) => {
      // 501: a service this mode does not run yet (custom views in embedded mode) — a page asking
      // for it is expected, not a fault of this server.
      if (!error && res.statusCode === 501) return 'warn'
      if (error || res.statusCode >= 500) return 'error'
      if (res.statusCode >= 400) return 'warn'
      return 'info'
    },
    // pino-http makes an Error (with its stack) for every answer of 500 or more; a 501 is an answer,
    // not a failure, so its line carries no error.
    customErrorObject: (_req, res, _error, value) => {
      if (res.statusCode !== 501) return value
      const { err: _err, ...rest } = value as Record<string, unknown>
      return rest
    },
    customErrorMessage: (_req, res) => (res.statusCode === 501 ? 'request completed' : 'request errored'),
    // How long a page waited for its turn (server/console.ts `inTurn`), on the pages that did.
    customProps: (_req, res) => {
      const waited = (res as { locals?: { turnWaitMs?: unknown } }).locals?.turnWaitMs
      return typeof waited === 'number' ? { turnWaitMs: waited } : {}
    },
    serializers: {
      req: (req: { id: string; method: string; url: string }) => ({
        id: req.id,
        method: req.method,
        url: redactUrl(req.url),
      }),
      res: (res: { statusCode: number }) => ({ statusCode: res.statusCode }),
    },
  })
}
