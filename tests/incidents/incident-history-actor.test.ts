import request from 'supertest'
import { beforeAll, describe, expect, it } from 'vitest'
import { useTestApp } from '#tests/support/use-test-app.ts'
import { personWith } from '../rbac/rbac-fixture.ts'
import { insertHypothesis, insertIncident, insertPerson } from './incident-fixtures.ts'

/**
 * The timeline names who changed a status (issue 12 §10): an update through the data API is
 * attributed to its caller (migration 0192's `lookout.actor`), not to the row's creator; a write
 * with no caller (direct SQL, engine jobs) still falls back to the creator.
 */

const testApp = useTestApp()
let creator: string
let incidentId: string
let hypothesisId: string
let responder: Awaited<ReturnType<typeof personWith>>

beforeAll(async () => {
  creator = await insertPerson(testApp.db, 'creator')
  incidentId = await insertIncident(testApp.db, creator)
  hypothesisId = await insertHypothesis(testApp.db, incidentId, creator)
  responder = await personWith(testApp.db, ['responder'], 'changer')
})

async function history(type: string): Promise<string[]> {
  const { rows } = await testApp.db.query<{ created_by: string }>(
    'SELECT created_by FROM incident_histories WHERE incident_id = $1 AND type = $2 ORDER BY created_at, id',
    [incidentId, type],
  )
  return rows.map((row) => String(row.created_by))
}

describe('history actor', () => {
  it('names the caller who changed the incident status, not the incident creator', async () => {
    const response = await request(testApp.app).patch(`/api/db/incidents?id=eq.${incidentId}`).set(responder.headers).send({ status: 'investigating' })
    expect(response.status, JSON.stringify(response.body)).toBe(204)
    expect(await history('incident.status_updated')).toEqual([responder.id])
  })

  it('names the caller who changed a hypothesis status', async () => {
    const response = await request(testApp.app).patch(`/api/db/hypotheses?id=eq.${hypothesisId}`).set(responder.headers).send({ status: 'likely' })
    expect(response.status, JSON.stringify(response.body)).toBe(204)
    expect(await history('hypothesis.status_updated')).toEqual([responder.id])
  })

  it('falls back to the creator for a write that carries no caller, and the setting does not outlive its transaction', async () => {
    await testApp.db.query(`UPDATE incidents SET status = 'mitigated' WHERE id = $1`, [incidentId])
    expect(await history('incident.status_updated')).toEqual([responder.id, creator])
  })
})
