import http from 'node:http'
import type { AddressInfo } from 'node:net'
import { pino } from 'pino'
import type { Db } from '#server/db/client.ts'
import { parseCanaryText } from '#contract/canary/canary-document.ts'
import { applyCanary } from '#server/backend/health/canary-store.ts'
import { createCheckEngine, type CheckEngineOptions } from '#server/backend/health/check-engine.ts'

export const silentLogger = pino({ level: process.env.HEALTH_TEST_LOG ?? 'silent' })

export type LocalServer = { url: string; port: number; hits: Map<string, number>; close(): Promise<void>; server: http.Server }

/** A loopback HTTP server; `handler` answers, every request path is counted. */
export async function startLocalServer(handler: http.RequestListener): Promise<LocalServer> {
  const hits = new Map<string, number>()
  const server = http.createServer((req, res) => {
    const path = (req.url ?? '/').split('?')[0]!
    hits.set(path, (hits.get(path) ?? 0) + 1)
    handler(req, res)
  })
  server.keepAliveTimeout = 60_000
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve))
  const port = (server.address() as AddressInfo).port
  return {
    url: `http://127.0.0.1:${port}`,
    port,
    hits,
    server,
    close: () => new Promise((resolve) => { server.closeAllConnections(); server.close(() => resolve()) }),
  }
}

export function testEngine(db: Db, overrides: Partial<CheckEngineOptions> = {}) {
  return createCheckEngine({
    db,
    logger: silentLogger,
    concurrency: 20,
    leaseMs: 2_000,
    pollIntervalMs: 50,
    syncIntervalMs: 200,
    flushIntervalMs: 30,
    minIntervalMs: 500,
    stopGraceMs: 2_000,
    ...overrides,
  })
}

/** Stores a canary from YAML the way the API does and returns its checks by name. */
export async function applyYaml(db: Db, yaml: string): Promise<{ canaryId: string; checks: Map<string, string> }> {
  const [input] = parseCanaryText(yaml)
  // Written in process, as the server's own import would: its loopback targets are trusted.
  const { canary } = await applyCanary(db, input!, { trustedWriter: 'server' })
  const { rows } = await db.query<{ id: string; name: string }>('SELECT id, name FROM checks WHERE canary_id = $1 AND deleted_at IS NULL', [canary.id])
  return { canaryId: canary.id, checks: new Map(rows.map((row) => [row.name, row.id])) }
}

export function canaryYaml(name: string, body: string, schedule = '@never'): string {
  return `apiVersion: canaries.flanksource.com/v1
kind: Canary
metadata:
  name: ${name}
  namespace: default
  labels: {team: test}
spec:
  schedule: "${schedule}"
${body}`
}

export async function waitFor<T>(fn: () => Promise<T | undefined | null | false>, timeoutMs = 10_000, intervalMs = 50): Promise<T> {
  const deadline = Date.now() + timeoutMs
  for (;;) {
    const value = await fn()
    if (value) return value
    if (Date.now() > deadline) throw new Error(`condition not met within ${timeoutMs} ms`)
    await new Promise((resolve) => setTimeout(resolve, intervalMs))
  }
}
