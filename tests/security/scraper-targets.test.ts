import http from 'node:http'
import type { AddressInfo } from 'node:net'
import type { Express } from 'express'
import pg from 'pg'
import request from 'supertest'
import { afterAll, beforeAll, describe, expect, it } from 'vitest'
import type { Db } from '#server/db/client.ts'
import { TEST_PG_ADMIN_URL } from '#tests/support/test-db.ts'
import { useTestApp } from '#tests/support/use-test-app.ts'
import { createTestApp } from '#tests/support/test-app.ts'
import { personWith } from '#tests/rbac/rbac-fixture.ts'

// The http and sql scrapers connect from the server's own network position, like checks: an
// editor's ScrapeConfig could otherwise read the server's loopback-only endpoints, its database
// (trust auth on 127.0.0.1) or the cloud metadata service, and get the answers back as config
// items. Scrapers whose spec nobody with the exec permission wrote refuse those addresses.

type Person = { id: string; headers: Record<string, string> }

const testApp = useTestApp()
let db: Db
let app: Express
let peer: http.Server
let peerUrl: string
let peerHits = 0
let editor: Person
let admin: Person

const REFUSED_SELF = /target 127\.0\.0\.1:\d+ is an address of this server; ask an admin to allow it \(LOOKOUT_CHECK_ALLOWED_TARGETS\)/
const REFUSED_METADATA = /target 169\.254\.169\.254:80 is a link-local or cloud metadata address; ask an admin to allow it \(LOOKOUT_CHECK_ALLOWED_TARGETS\)/

beforeAll(async () => {
  db = testApp.db
  app = createTestApp(db).app
  peer = http.createServer((_req, res) => {
    peerHits += 1
    res.writeHead(200, { 'content-type': 'application/json' }).end('[{"id": "secret-1", "name": "loopback-only"}]')
  })
  await new Promise<void>((resolve) => peer.listen(0, '127.0.0.1', resolve))
  peerUrl = `http://127.0.0.1:${(peer.address() as AddressInfo).port}`
  editor = await personWith(db, ['editor'])
  admin = await personWith(db, ['admin'])
})

afterAll(async () => {
  peer?.closeAllConnections()
  await new Promise((resolve) => peer?.close(resolve))
})

function probeSpec() {
  return {
    schedule: '@every 24h',
    http: [
      { url: `${peerUrl}/admin`, type: 'Probe::Http', id: '$.id', name: '$.name', items: '$[*]' },
      { url: 'http://169.254.169.254/latest/meta-data/', type: 'Probe::Metadata', id: 'metadata', name: 'metadata' },
    ],
    sql: [{ connection: TEST_PG_ADMIN_URL, type: 'Probe::Sql', id: '$.usename', name: '$.usename', query: 'SELECT usename, usesysid FROM pg_user' }],
  }
}

async function writeScraper(who: Person, name: string, spec: Record<string, unknown>): Promise<string> {
  const response = await request(app).post('/api/db/config_scrapers').set(who.headers).set('Prefer', 'return=representation')
    .send({ name, namespace: 'default', source: 'UI', spec })
  expect(response.status, response.text).toBe(201)
  return (response.body as { id: string }[])[0]!.id
}

async function runNow(who: Person, id: string, through: Express = app) {
  const response = await request(through).post(`/api/config/run/${id}`).set(who.headers).send({})
  expect(response.status, response.text).toBe(200)
  return response.body.payload as { status: string; errors?: string[]; scrape_summary?: { added: number } }
}

async function itemCount(scraperId: string): Promise<number> {
  const { rows } = await db.query<{ n: number }>('SELECT count(*)::int AS n FROM config_items WHERE scraper_id = $1', [scraperId])
  return rows[0]!.n
}

describe("an editor's scrapers cannot reach this server", () => {
  it('refuses loopback HTTP, the metadata address and the local database; nothing is stored', async () => {
    const id = await writeScraper(editor, 'editor-probe', probeSpec())
    const before = peerHits
    const outcome = await runNow(editor, id)
    expect(outcome.status).toBe('FAILED')
    // One error per entry, in the stored spec's key order.
    const errors = [...(outcome.errors ?? [])].sort()
    expect(errors).toHaveLength(3)
    expect(errors[0]).toMatch(/^http\[0\]: GET http:\/\/127\.0\.0\.1:\d+\/admin: /)
    expect(errors[0]).toMatch(REFUSED_SELF)
    expect(errors[1]).toMatch(/^http\[1\]: /)
    expect(errors[1]).toMatch(REFUSED_METADATA)
    expect(errors[2]).toMatch(/^sql\[0\]: query on postgres postgres:\/\/postgres@127\.0\.0\.1:5432\/postgres failed: /)
    expect(errors[2]).toMatch(/target 127\.0\.0\.1:5432 is an address of this server/)
    expect(peerHits).toBe(before)
    expect(await itemCount(id)).toBe(0)
  })

  it("runs an exec holder's scraper unfenced, until someone without exec edits its spec", async () => {
    const spec = probeSpec()
    const trusted = { ...spec, http: [spec.http[0]!] }
    const id = await writeScraper(admin, 'admin-probe', trusted)
    const outcome = await runNow(editor, id)
    expect(outcome).toMatchObject({ status: 'SUCCESS', scrape_summary: { added: 1 + (await pgUserCount()) } })
    expect(await itemCount(id)).toBeGreaterThan(1)

    const edited = await request(app).patch(`/api/db/config_scrapers?id=eq.${id}`).set(editor.headers)
      .send({ spec: { ...trusted, http: [{ ...trusted.http[0]!, url: `${peerUrl}/admin?edited=1` }] } })
    expect(edited.status, edited.text).toBe(204)
    // Trust answers are cached for seconds per process; a process that has not asked yet sees the edit at once.
    const after = await runNow(editor, id, createTestApp(db).app)
    expect(after.errors?.[0]).toMatch(REFUSED_SELF)
  })
})

async function pgUserCount(): Promise<number> {
  const client = new pg.Client({ connectionString: TEST_PG_ADMIN_URL })
  await client.connect()
  try {
    return (await client.query<{ n: number }>('SELECT count(*)::int AS n FROM pg_user')).rows[0]!.n
  } finally {
    await client.end()
  }
}
