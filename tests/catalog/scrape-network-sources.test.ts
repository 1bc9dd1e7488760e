import http from 'node:http'
import type { AddressInfo } from 'node:net'
import pg from 'pg'
import { afterAll, beforeAll, describe, expect, it } from 'vitest'
import type { ScrapeEngine } from '#server/backend/catalog/scrape-engine.ts'
import { recordSpecTrust } from '#server/backend/health/check-trust.ts'
import { createEmptyPostgresDatabase, createTestDb, type TestDb } from '#tests/support/test-db.ts'
import { insertScraper, itemsOf, testScrapeEngine } from './scrape-fixtures.ts'

/**
 * End to end through the scrape engine's run-now: a ScrapeConfig with a paginated http scraper
 * and a sql scraper (through a stored connection) becomes config_items with the ids, names and
 * types its fields say, and an unchanged re-run changes nothing.
 */

const SERVICES = [
  { id: 'svc-api', name: 'api', tier: 'backend' },
  { id: 'svc-web', name: 'web', tier: 'frontend' },
  { id: 'svc-jobs', name: 'jobs', tier: 'backend' },
]

let testDb: TestDb
let engine: ScrapeEngine
let server: http.Server
let base: string
let inventory: { url: string; drop(): Promise<void> }

beforeAll(async () => {
  testDb = await createTestDb()
  engine = testScrapeEngine(testDb.db)
  server = http.createServer((req, res) => {
    const page = Number(new URL(req.url ?? '/', 'http://x').searchParams.get('page') ?? '1')
    const services = SERVICES.slice((page - 1) * 2, page * 2)
    res.writeHead(200, { 'content-type': 'application/json' })
    res.end(JSON.stringify({ services, next: page * 2 < SERVICES.length ? `/services?page=${page + 1}` : null }))
  })
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve))
  base = `http://127.0.0.1:${(server.address() as AddressInfo).port}`
  inventory = await createEmptyPostgresDatabase()
  const client = new pg.Client({ connectionString: inventory.url })
  await client.connect()
  await client.query(`CREATE TABLE tenants (id text PRIMARY KEY, name text NOT NULL, plan text NOT NULL);
    INSERT INTO tenants VALUES ('t-1', 'acme', 'gold'), ('t-2', 'globex', 'free');`)
  await client.end()
  await testDb.db.query(
    "INSERT INTO connections (name, namespace, type, url, username) VALUES ('inventory-db', 'default', 'postgres', $1, 'postgres')",
    [inventory.url.replace('postgres@', '$(username)@')],
  )
})

afterAll(async () => {
  await engine?.stop()
  server?.closeAllConnections()
  await new Promise<void>((resolve) => (server ? server.close(() => resolve()) : resolve()))
  await inventory?.drop()
  await testDb?.drop()
})

/**
 * A scraper as an exec holder would write it: its http and sql entries may reach loopback
 * (tests/security/scraper-targets.test.ts covers the fence for everyone else).
 */
async function trustedScraper(name: string, spec: Record<string, unknown>): Promise<string> {
  const id = await insertScraper(testDb.db, name, spec)
  await recordSpecTrust(testDb.db, spec, 'server')
  return id
}

describe('http and sql scrapers through the engine', () => {
  it('run-now stores the paginated services and the tenants as config items, then a re-run changes nothing', async () => {
    const scraperId = await trustedScraper('network-inventory', {
      http: [{
        url: `${base}/services?page=1`,
        type: 'App::Service',
        id: '$.id',
        name: '$.name',
        labels: { tier: '$.tier' },
        pagination: { nextPageExpr: 'body.next', reduceExpr: 'acc + page.services' },
        items: '$[*]',
      }],
      sql: [{
        connection: 'connection://default/inventory-db',
        type: 'App::Tenant',
        id: '$.id',
        name: '$.name',
        query: 'SELECT id, name, plan FROM tenants ORDER BY id',
      }],
    })
    const first = await engine.runNow(scraperId)
    expect(first).toMatchObject({ status: 'SUCCESS', summary: { added: 5, updated: 0, deleted: 0, errors: 0 } })
    const items = await itemsOf(testDb.db, scraperId)
    expect(items.map((item) => [item.type, item.name, item.external_id])).toEqual([
      ['App::Service', 'api', ['svc-api']],
      ['App::Service', 'jobs', ['svc-jobs']],
      ['App::Service', 'web', ['svc-web']],
      ['App::Tenant', 'acme', ['t-1']],
      ['App::Tenant', 'globex', ['t-2']],
    ])
    expect(items.find((item) => item.name === 'web')!.labels).toMatchObject({ tier: 'frontend' })
    expect(items.find((item) => item.name === 'globex')!.config).toEqual({ id: 't-2', name: 'globex', plan: 'free' })

    const again = await engine.runNow(scraperId)
    expect(again).toMatchObject({ status: 'SUCCESS', summary: { added: 0, updated: 0, unchanged: 5, deleted: 0 } })
  })

  it('records a failing source in job history verbatim, next to the entries that worked', async () => {
    const scraperId = await trustedScraper('half-broken', {
      http: [{ url: `${base.replace(/:\d+$/, ':1')}/services`, type: 'App::Service', id: '$.id', name: '$.name' }],
      sql: [{ connection: 'connection://default/inventory-db', type: 'App::Tenant', id: '$.id', name: '$.name', query: 'SELECT id, name FROM tenants' }],
    })
    const outcome = await engine.runNow(scraperId)
    expect(outcome!.status).toBe('WARNING')
    expect(outcome!.errors).toEqual([expect.stringMatching(/^http\[0\]: GET http:\/\/127\.0\.0\.1:1\/services: .*ECONNREFUSED/)])
    const { rows } = await testDb.db.query<{ status: string; details: { errors?: string[] } }>('SELECT status, details FROM job_history WHERE id = $1', [outcome!.jobHistoryId])
    expect(rows[0]).toMatchObject({ status: 'WARNING', details: { errors: outcome!.errors } })
    expect((await itemsOf(testDb.db, scraperId)).map((item) => item.name)).toEqual(['acme', 'globex'])
  })
})
