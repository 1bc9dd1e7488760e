import http from 'node:http'
import type { AddressInfo } from 'node:net'
import type { AppLoadContext } from '@remix-run/node'
import { afterAll, beforeAll, describe, expect, it } from 'vitest'
import { getIncidentDetail } from '#app/lib/incidents.server.ts'
import { createTestApp } from '#tests/support/test-app.ts'
import { createTestDb, TEST_ENGINE, type TestDb } from '#tests/support/test-db.ts'
import { personWith } from '../rbac/rbac-fixture.ts'

/** The incident page's data as the console loads it: through the gateway, counting the calls. */
describe(`incident detail in one call (${TEST_ENGINE})`, () => {
  let testDb: TestDb
  let server: http.Server
  let context: AppLoadContext
  const calls: string[] = []
  let headers: Record<string, string>
  let incidentId: string

  beforeAll(async () => {
    testDb = await createTestDb()
    const { app } = createTestApp(testDb.db)
    server = http.createServer((req, res) => {
      calls.push(`${req.method} ${req.url}`)
      app.listener(req, res)
    })
    await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve))
    const base = `http://127.0.0.1:${(server.address() as AddressInfo).port}`
    context = { gateway: { gatewayBaseUrl: base, gatewayTimeoutMs: 5000 }, cspNonce: 'n', publicEnv: { frontendVersion: 't', mode: 'embedded' } }
    const person = await personWith(testDb.db, ['admin'])
    headers = person.headers
    const db = testDb.db
    const { rows } = await db.query<{ id: string }>(
      `INSERT INTO incidents (title, created_by, severity, description, type, status) VALUES ('Checkout down', $1, 'High', 'd', 'availability', 'open') RETURNING id`,
      [person.id],
    )
    incidentId = rows[0]!.id
    const other = await db.query<{ id: string }>(
      `INSERT INTO incidents (title, created_by, severity, description, type, status) VALUES ('Elsewhere', $1, 'Low', 'd', 'availability', 'open') RETURNING id`,
      [person.id],
    )
    // Inserted newest first, so only the requested order puts them oldest first.
    for (const [title, minutes] of [['second', 1], ['first', 2]] as const) {
      await db.query(
        `INSERT INTO hypotheses (created_by, incident_id, type, title, status, created_at) VALUES ($1, $2, 'factor', $3, 'possible', now() - make_interval(mins => $4))`,
        [person.id, incidentId, title, minutes],
      )
    }
    await db.query(`INSERT INTO hypotheses (created_by, incident_id, type, title, status) VALUES ($1, $2, 'root', 'not this incident', 'possible')`, [person.id, other.rows[0]!.id])
    await db.query(`INSERT INTO responders (incident_id, type, created_by, person_id) VALUES ($1, 'person', $2, $2)`, [incidentId, person.id])
    await db.query(`INSERT INTO responders (incident_id, type, created_by, person_id, deleted_at) VALUES ($1, 'person', $2, $2, now())`, [incidentId, person.id])
    for (const [text, minutes] of [['later', 1], ['earlier', 3]] as const) {
      await db.query(`INSERT INTO comments (created_by, comment, incident_id, created_at) VALUES ($1, $2, $3, now() - make_interval(mins => $4))`, [
        person.id,
        text,
        incidentId,
        minutes,
      ])
    }
  })

  afterAll(async () => {
    await new Promise<void>((resolve) => server.close(() => resolve()))
    await testDb.drop()
  })

  it('loads the incident, its hypotheses, live responders, comments and history with one API call', async () => {
    calls.length = 0
    const detail = await getIncidentDetail({ request: new Request('http://console.test/incidents', { headers }), context }, incidentId)
    expect(calls).toHaveLength(1)
    expect(detail?.incident).toMatchObject({ id: incidentId, title: 'Checkout down' })
    expect(detail?.incident).not.toHaveProperty('hypotheses')
    expect(detail?.hypotheses.map((hypothesis) => hypothesis.title)).toEqual(['first', 'second'])
    expect(detail?.hypotheses.every((hypothesis) => Array.isArray(hypothesis.evidences))).toBe(true)
    expect(detail?.responders).toHaveLength(1)
    expect(detail?.comments.map((comment) => comment.comment)).toEqual(['earlier', 'later'])
    expect(Array.isArray(detail?.history)).toBe(true)
  })

  it('answers null for an incident that does not exist', async () => {
    const detail = await getIncidentDetail(
      { request: new Request('http://console.test/incidents', { headers }), context },
      '0190f0f0-0000-7000-8000-00000000dead',
    )
    expect(detail).toBeNull()
  })
})
