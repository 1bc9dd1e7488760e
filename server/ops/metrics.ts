import type { NextFunction, Request, Response } from 'express'
import { Counter, Gauge, Histogram, Registry, collectDefaultMetrics } from 'prom-client'
import type { Db } from '#server/db/client.ts'
import { findSubBase } from '#contract/sub-bases.ts'

export type Metrics = {
  registry: Registry
  middleware: (req: Request, res: Response, next: NextFunction) => void
  observe(method: string, route: string, status: number, seconds: number): void
}

/**
 * The route label must stay low-cardinality: API calls are labelled by sub-base
 * (`/api/db`), operations paths by themselves, and every page render as `page`.
 */
export function routeLabel(path: string): string {
  if (path === '/healthz' || path === '/readyz' || path === '/metrics') return path
  if (path === '/mcp' || path.startsWith('/mcp/')) return '/mcp'
  if (path.startsWith('/api/')) {
    const subBase = findSubBase(path.slice(4))
    return subBase ? `/api${subBase.base}` : '/api/other'
  }
  if (path.startsWith('/assets/')) return 'asset'
  return 'page'
}

export function createMetrics(db: Db): Metrics {
  // A registry per app instance, so tests can build several apps in one process.
  const registry = new Registry()
  collectDefaultMetrics({ register: registry, prefix: 'lookout_' })

  const duration = new Histogram({
    name: 'lookout_http_request_duration_seconds',
    help: 'HTTP request duration by method, route and status',
    labelNames: ['method', 'route', 'status'] as const,
    buckets: [0.001, 0.0025, 0.005, 0.01, 0.025, 0.05, 0.1, 0.25, 0.5, 1, 2.5, 5, 10],
    registers: [registry],
  })
  const requests = new Counter({
    name: 'lookout_http_requests_total',
    help: 'HTTP requests by method, route and status',
    labelNames: ['method', 'route', 'status'] as const,
    registers: [registry],
  })
  new Gauge({
    name: 'lookout_db_pool_connections',
    help: 'Database pool connections by state',
    labelNames: ['state'] as const,
    registers: [registry],
    collect() {
      const stats = db.poolStats()
      this.set({ state: 'total' }, stats.total)
      this.set({ state: 'idle' }, stats.idle)
      this.set({ state: 'waiting' }, stats.waiting)
    },
  })
  new Gauge({
    name: 'lookout_db_info',
    help: 'Database engine in use (1 for the active engine)',
    labelNames: ['engine'] as const,
    registers: [registry],
    collect() {
      this.set({ engine: db.engine }, 1)
    },
  })

  const observe = (method: string, route: string, status: number, seconds: number) => {
    const labels = { method, route, status: String(status) }
    duration.observe(labels, seconds)
    requests.inc(labels)
  }
  return {
    registry,
    observe,
    middleware(req, res, next) {
      const start = process.hrtime.bigint()
      res.on('finish', () => {
        observe(req.method, routeLabel(req.originalUrl.split('?')[0] ?? '/'), res.statusCode, Number(process.hrtime.bigint() - start) / 1e9)
      })
      next()
    },
  }
}
