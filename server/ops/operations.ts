import { createHash, timingSafeEqual } from 'node:crypto'
import type express from 'express'
import type { Db } from '#server/db/client.ts'
import { connectionFailureDetails } from '#server/db/outage.ts'
import type { Env } from '#server/env.ts'
import type { Metrics } from './metrics.ts'

export type MetricsAccessEnv = Pick<Env, 'LOOKOUT_METRICS_PUBLIC' | 'LOOKOUT_METRICS_TOKEN' | 'LOOKOUT_BOOTSTRAP_TOKEN'>

const digest = (text: string) => createHash('sha256').update(text).digest()

/**
 * Who may read /metrics. Its figures (routes, pool sizes, process memory, versions) map the
 * deployment, so it is not public unless LOOKOUT_METRICS_PUBLIC says so: a scraper sends
 * `Authorization: Bearer <LOOKOUT_METRICS_TOKEN>` (or the bootstrap token from the environment).
 */
export function metricsAccess(env: MetricsAccessEnv): (authorization: string | undefined) => 'ok' | 'unauthorized' | 'not-configured' {
  if (env.LOOKOUT_METRICS_PUBLIC) return () => 'ok'
  const tokens = [env.LOOKOUT_METRICS_TOKEN, env.LOOKOUT_BOOTSTRAP_TOKEN].filter((token): token is string => Boolean(token)).map(digest)
  return (authorization) => {
    if (tokens.length === 0) return 'not-configured'
    const match = /^Bearer\s+(\S+)\s*$/i.exec(authorization ?? '')
    if (!match) return 'unauthorized'
    // Compared as digests: equal lengths for timingSafeEqual, and no early exit on a prefix.
    const offered = digest(match[1]!)
    return tokens.some((token) => timingSafeEqual(token, offered)) ? 'ok' : 'unauthorized'
  }
}

/**
 * /healthz (the process is alive), /readyz (it can serve: database reachable, schema
 * migrated) and /metrics (Prometheus, behind a token). Shared by the console process and
 * `npm run backend`.
 */
export function mountOperationsEndpoints(
  app: express.Express,
  options: { db: Db; metrics: Metrics; isMigrated: () => boolean; env: MetricsAccessEnv },
): void {
  const { db, metrics } = options
  const mayReadMetrics = metricsAccess(options.env)
  app.get('/healthz', (_req, res) => {
    res.json({ status: 'ok' })
  })
  app.get('/readyz', async (_req, res) => {
    const checks: Record<string, string> = {}
    try {
      await db.query('SELECT 1')
      checks.database = 'ok'
    } catch (error) {
      // /readyz is public: the database's address stays in the log.
      checks.database = `unreachable: ${connectionFailureDetails(error)}`
    }
    checks.migrations = options.isMigrated() ? 'ok' : 'pending'
    const ready = Object.values(checks).every((value) => value === 'ok')
    res.status(ready ? 200 : 503).json({ status: ready ? 'ready' : 'not ready', checks })
  })
  app.get('/metrics', async (req, res, next) => {
    const verdict = mayReadMetrics(req.headers.authorization)
    if (verdict !== 'ok') {
      res.status(401).set('WWW-Authenticate', 'Bearer realm="metrics"').json({
        error: 'unauthorized',
        message:
          verdict === 'not-configured'
            ? '/metrics needs a token: set LOOKOUT_METRICS_TOKEN and send it as a bearer token (or LOOKOUT_METRICS_PUBLIC=true to serve it openly)'
            : '/metrics needs Authorization: Bearer <LOOKOUT_METRICS_TOKEN>',
      })
      return
    }
    try {
      res.type(metrics.registry.contentType).send(await metrics.registry.metrics())
    } catch (error) {
      next(error)
    }
  })
}
