import request from 'supertest'
import { beforeAll, describe, expect, it } from 'vitest'
import { useTestApp } from '#tests/support/use-test-app.ts'
import { personWith } from '../rbac/rbac-fixture.ts'
import { insertHypothesis, insertIncident, insertPerson } from './incident-fixtures.ts'

// Spec 000 §6 / 002 §6: responders and commanders (and admins, editors) write incidents,
// hypotheses, evidences, comments and responders; viewers and guests only read them.
const ROLES = ['admin', 'editor', 'commander', 'responder', 'viewer', 'guest'] as const
const WRITERS = new Set<string>(['admin', 'editor', 'commander', 'responder'])
const READ_ONLY_TABLES = ['incident_histories', 'incident_summary']

const testApp = useTestApp()
let author: string
let incidentId: string
let hypothesisId: string
const people = new Map<string, Awaited<ReturnType<typeof personWith>>>()

beforeAll(async () => {
  author = await insertPerson(testApp.db, 'author')
  incidentId = await insertIncident(testApp.db, author)
  hypothesisId = await insertHypothesis(testApp.db, incidentId, author)
  for (const role of ROLES) people.set(role, await personWith(testApp.db, [role], role))
})

function bodyFor(table: string, personId: string): Record<string, unknown> {
  switch (table) {
    case 'incidents':
      return { title: 'perm', description: '', severity: 'low', type: 'cost', created_by: personId }
    case 'hypotheses':
      return { incident_id: incidentId, title: 'perm', type: 'root', status: 'possible', created_by: personId }
    case 'evidences':
      return { hypothesis_id: hypothesisId, type: 'log', description: 'perm', created_by: personId }
    case 'comments':
      return { incident_id: incidentId, comment: 'perm', created_by: personId }
    default:
      return { incident_id: incidentId, type: 'person', person_id: personId, created_by: personId }
  }
}

const WRITE_TABLES = ['incidents', 'hypotheses', 'evidences', 'comments', 'responders']
const MISSING = '0190f0f0-0000-7000-8000-00000000dead'

describe('incident permissions through /api/db', () => {
  for (const role of ROLES) {
    const writes = WRITERS.has(role)
    it(`${role} ${writes ? 'reads and writes' : 'only reads'} the incident tables`, async () => {
      const person = people.get(role)!
      for (const table of [...WRITE_TABLES, ...READ_ONLY_TABLES]) {
        const read = await request(testApp.app).get(`/api/db/${table}?limit=1`).set(person.headers)
        expect(read.status, `${role} GET ${table}`).toBe(200)
      }
      for (const table of WRITE_TABLES) {
        const create = await request(testApp.app).post(`/api/db/${table}`).set(person.headers).send(bodyFor(table, person.id))
        expect(create.status, `${role} POST ${table}: ${JSON.stringify(create.body)}`).toBe(writes ? 201 : 403)
        const update = await request(testApp.app).patch(`/api/db/${table}?id=eq.${MISSING}`).set(person.headers).send({ created_by: person.id })
        expect(update.status, `${role} PATCH ${table}`).toBe(writes ? 204 : 403)
        const remove = await request(testApp.app).delete(`/api/db/${table}?id=eq.${MISSING}`).set(person.headers)
        expect(remove.status, `${role} DELETE ${table}`).toBe(writes ? 204 : 403)
      }
    })
  }

  it('answers 401 without credentials', async () => {
    expect((await request(testApp.app).get('/api/db/incidents')).status).toBe(401)
    expect((await request(testApp.app).post('/api/db/incidents').send(bodyFor('incidents', author))).status).toBe(401)
  })
})
