import type express from 'express'
import type { Db } from '#server/db/client.ts'
import type { Metrics } from './metrics.ts'

/**
 * /healthz (the process is alive), /readyz (it can serve: database reachable, schema
 * migrated) and /metrics (Prometheus). Shared by the console process and `npm run backend`.
 */
export function mountOperationsEndpoints(
  app: express.Express,
  options: { db: Db; metrics: Metrics; isMigrated: () => boolean },
): void {
  const { db, metrics } = options
  app.get('/healthz', (_req, res) => {
    res.json({ status: 'ok' })
  })
  app.get('/readyz', async (_req, res) => {
    const checks: Record<string, string> = {}
    try {
      await db.query('SELECT 1')
      checks.database = 'ok'
    } catch (error) {
      checks.database = `unreachable: ${(error as Error).message}`
    }
    checks.migrations = options.isMigrated() ? 'ok' : 'pending'
    const ready = Object.values(checks).every((value) => value === 'ok')
    res.status(ready ? 200 : 503).json({ status: ready ? 'ready' : 'not ready', checks })
  })
  app.get('/metrics', async (_req, res, next) => {
    try {
      res.type(metrics.registry.contentType).send(await metrics.registry.metrics())
    } catch (error) {
      next(error)
    }
  })
}
