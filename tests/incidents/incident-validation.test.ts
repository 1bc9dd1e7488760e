import request from 'supertest'
import { beforeAll, describe, expect, it } from 'vitest'
import type { Express } from 'express'
import { useTestApp } from '#tests/support/use-test-app.ts'
import { INCIDENT_HISTORY_TYPES } from '#contract/incident-vocabulary.ts'
import { createDbApp, insertCheck, insertHypothesis, insertIncident, insertPerson, insertTeam } from './incident-fixtures.ts'

const testApp = useTestApp()
let app: Express
let person: string
let team: string
let incidentId: string
let otherIncidentId: string
let rootId: string
let factorId: string
let otherRootId: string
let checkId: string

beforeAll(async () => {
  app = createDbApp(testApp.db)
  person = await insertPerson(testApp.db, 'responder')
  team = await insertTeam(testApp.db, person)
  incidentId = await insertIncident(testApp.db, person, 'payments down')
  otherIncidentId = await insertIncident(testApp.db, person, 'unrelated')
  rootId = await insertHypothesis(testApp.db, incidentId, person, 'root')
  factorId = await insertHypothesis(testApp.db, incidentId, person, 'factor', rootId)
  otherRootId = await insertHypothesis(testApp.db, otherIncidentId, person, 'root')
  ;({ checkId } = await insertCheck(testApp.db))
})

const post = (table: string, body: unknown) => request(app).post(`/api/db/${table}`).set('Prefer', 'return=representation').send(body as object)
const patch = (table: string, query: string, body: unknown) =>
  request(app).patch(`/api/db/${table}?${query}`).set('Prefer', 'return=representation').send(body as object)

/** A rejected write: 400 with the PostgREST error shape, the given message, and nothing stored. */
function expectRejected(response: request.Response, message: string | RegExp) {
  expect(response.status, JSON.stringify(response.body)).toBe(400)
  expect(response.body).toMatchObject({ code: '23514', hint: null })
  if (typeof message === 'string') expect(response.body.message).toBe(message)
  else expect(response.body.message).toMatch(message)
  expect(typeof response.body.details).toBe('string')
}

const incident = (overrides: Record<string, unknown> = {}) => ({
  title: 'Checkout failing',
  description: '',
  severity: 'high',
  type: 'availability',
  created_by: person,
  commander_id: person,
  communicator_id: person,
  ...overrides,
})

describe('incidents', () => {
  it('accepts the link dialog payload and defaults the status to open', async () => {
    const response = await post('incidents?select=*', incident())
    expect(response.status).toBe(201)
    expect(response.body[0]).toMatchObject({ status: 'open', severity: 'high', type: 'availability', incident_id: expect.stringMatching(/^INC-\d+$/) })
  })

  it('requires severity and type with the spec messages', async () => {
    expectRejected(await post('incidents', incident({ severity: undefined })), 'Please select incident severity')
    expectRejected(await post('incidents', incident({ severity: null })), 'Please select incident severity')
    expectRejected(await post('incidents', incident({ type: undefined })), 'Please select an incident type')
    expectRejected(await post('incidents', incident({ type: null })), 'Please select an incident type')
  })

  it('accepts every severity of the spec, both spellings of medium, and rejects others', async () => {
    for (const severity of ['info', 'warning', 'low', 'medium', 'Medium', 'high', 'blocker', 'critical']) {
      expect((await post('incidents', incident({ severity }))).status, severity).toBe(201)
    }
    expectRejected(await post('incidents', incident({ severity: 'urgent' })), /^severity must be one of info, warning, low, medium, Medium, high, blocker, critical$/)
  })

  it('accepts every incident type and status of the spec and rejects others', async () => {
    for (const type of ['cost', 'availability', 'performance', 'security', 'integration', 'compliance', 'technicalDebt', 'reliability']) {
      expect((await post('incidents', incident({ type }))).status, type).toBe(201)
    }
    for (const status of ['new', 'open', 'investigating', 'mitigated', 'resolved', 'closed']) {
      expect((await post('incidents', incident({ status }))).status, status).toBe(201)
    }
    expectRejected(await post('incidents', incident({ type: 'technical_debt' })), /^type must be one of cost, availability/)
    expectRejected(await post('incidents', incident({ status: 'cancelled' })), /^status must be one of new, open, investigating, mitigated, resolved, closed$/)
  })

  it('requires a title, a description string and a creator uuid', async () => {
    expectRejected(await post('incidents', incident({ title: undefined })), 'title is required')
    expectRejected(await post('incidents', incident({ title: '   ' })), 'title must not be empty')
    expectRejected(await post('incidents', incident({ description: undefined })), 'description is required')
    expectRejected(await post('incidents', incident({ description: 42 })), 'description must be a string')
    expectRejected(await post('incidents', incident({ created_by: undefined })), 'created_by is required')
    expectRejected(await post('incidents', incident({ created_by: 'me' })), 'created_by must be a uuid')
    expectRejected(await post('incidents', incident({ commander_id: 'boss' })), 'commander_id must be a uuid')
    expectRejected(await post('incidents', incident({ resolved: 'yesterday' })), 'resolved must be a timestamp')
  })

  it('names the failing row of a bulk insert and stores none of them', async () => {
    const before = await testApp.db.query('SELECT count(*)::int AS n FROM incidents')
    const response = await post('incidents', [incident({ title: 'bulk ok' }), incident({ title: 'bulk bad', severity: 'sev1' })])
    expectRejected(response, /^severity must be one of/)
    expect(response.body.details).toContain('[1] severity')
    const after = await testApp.db.query('SELECT count(*)::int AS n FROM incidents')
    expect(after.rows[0]).toEqual(before.rows[0])
  })

  it('validates only the fields a PATCH sends', async () => {
    const id = await insertIncident(testApp.db, person, 'to patch')
    expect((await patch('incidents', `id=eq.${id}`, { title: 'renamed' })).status).toBe(200)
    expect((await patch('incidents', `id=eq.${id}`, { status: 'investigating' })).body[0].status).toBe('investigating')
    expectRejected(await patch('incidents', `id=eq.${id}`, { status: 'fixed' }), /^status must be one of/)
    expectRejected(await patch('incidents', `id=eq.${id}`, { severity: null }), 'Please select incident severity')
    expectRejected(await patch('incidents', `id=eq.${id}`, { title: '' }), 'title must not be empty')
  })

  it('leaves unknown columns to the engine (PGRST204)', async () => {
    const response = await post('incidents', incident({ colour: 'red' }))
    expect(response.status).toBe(400)
    expect(response.body.code).toBe('PGRST204')
  })
})

describe('hypotheses', () => {
  const hypothesis = (overrides: Record<string, unknown> = {}) => ({
    incident_id: incidentId,
    title: 'Database is overloaded',
    status: 'possible',
    type: 'root',
    created_by: person,
    ...overrides,
  })

  it('accepts the link dialog payload; status defaults to possible', async () => {
    expect((await post('hypotheses', hypothesis())).status).toBe(201)
    const response = await post('hypotheses', hypothesis({ status: undefined }))
    expect(response.body[0].status).toBe('possible')
  })

  it('requires an incident with the spec message, and the vocabularies', async () => {
    expectRejected(await post('hypotheses', hypothesis({ incident_id: undefined })), 'Must select or create an incident')
    expectRejected(await post('hypotheses', hypothesis({ type: 'cause' })), 'type must be one of root, factor, solution')
    expectRejected(await post('hypotheses', hypothesis({ status: 'maybe' })), 'status must be one of proven, likely, possible, unlikely, improbable, disproven')
    expectRejected(await post('hypotheses', hypothesis({ title: '' })), 'title must not be empty')
    for (const status of ['proven', 'likely', 'possible', 'unlikely', 'improbable', 'disproven']) {
      expect((await post('hypotheses', hypothesis({ status }))).status, status).toBe(201)
    }
  })

  it('nests root → factor → solution within one incident', async () => {
    expectRejected(await post('hypotheses', hypothesis({ parent_id: rootId })), 'a root hypothesis has no parent_id')
    expectRejected(await post('hypotheses', hypothesis({ type: 'factor' })), 'a factor hypothesis needs parent_id: the root hypothesis it belongs to')
    expectRejected(await post('hypotheses', hypothesis({ type: 'solution' })), 'a solution hypothesis needs parent_id: the factor hypothesis it belongs to')
    expectRejected(await post('hypotheses', hypothesis({ type: 'solution', parent_id: rootId })), 'a solution hypothesis must be nested under a factor hypothesis, not a root')
    expectRejected(await post('hypotheses', hypothesis({ type: 'factor', parent_id: factorId })), 'a factor hypothesis must be nested under a root hypothesis, not a factor')
    expectRejected(await post('hypotheses', hypothesis({ type: 'factor', parent_id: otherRootId })), `parent hypothesis ${otherRootId} belongs to another incident`)
    const missing = '0190f0f0-0000-7000-8000-00000000beef'
    expectRejected(await post('hypotheses', hypothesis({ type: 'factor', parent_id: missing })), `parent hypothesis ${missing} does not exist`)
    expect((await post('hypotheses', hypothesis({ type: 'factor', parent_id: rootId }))).status).toBe(201)
    expect((await post('hypotheses', hypothesis({ type: 'solution', parent_id: factorId }))).status).toBe(201)
  })

  it('accepts a whole tree in one request when the client picks the ids', async () => {
    const root = '0190f0f0-0000-7000-8000-0000000000a1'
    const factor = '0190f0f0-0000-7000-8000-0000000000a2'
    const response = await post('hypotheses', [
      hypothesis({ id: root }),
      hypothesis({ id: factor, type: 'factor', parent_id: root }),
      // PostgREST bulk inserts take the union of keys, so every row names its id.
      hypothesis({ id: '0190f0f0-0000-7000-8000-0000000000a3', type: 'solution', parent_id: factor }),
    ])
    expect(response.status, JSON.stringify(response.body)).toBe(201)
  })

  it('keeps the nesting on PATCH', async () => {
    const root = await insertHypothesis(testApp.db, incidentId, person, 'root')
    const factor = await insertHypothesis(testApp.db, incidentId, person, 'factor', root)
    expect((await patch('hypotheses', `id=eq.${factor}`, { status: 'proven' })).status).toBe(200)
    expectRejected(await patch('hypotheses', `id=eq.${factor}`, { status: 'sure' }), /^status must be one of/)
    expectRejected(await patch('hypotheses', `id=eq.${root}`, { type: 'factor' }), /needs parent_id|children/)
    expectRejected(await patch('hypotheses', `id=eq.${factor}`, { parent_id: factorId }), 'a factor hypothesis must be nested under a root hypothesis, not a factor')
    expectRejected(await patch('hypotheses', `id=eq.${factor}`, { parent_id: factor }), 'a hypothesis cannot be its own parent')
    expectRejected(await patch('hypotheses', `incident_id=eq.${incidentId}`, { type: 'root' }), /must target them by id/)
    const other = await insertHypothesis(testApp.db, incidentId, person, 'root')
    expect((await patch('hypotheses', `id=eq.${factor}`, { parent_id: other })).status).toBe(200)
    // Promoting a childless factor to a root detaches it.
    expect((await patch('hypotheses', `id=eq.${factor}`, { type: 'root', parent_id: null })).status).toBe(200)
    expectRejected(await patch('hypotheses', `id=eq.${rootId}`, { incident_id: otherIncidentId }), /has children/)
  })
})

describe('evidences', () => {
  const evidence = (overrides: Record<string, unknown> = {}) => ({
    hypothesis_id: rootId,
    created_by: person,
    type: 'log',
    description: 'error lines',
    evidence: { lines: ['panic: nil map'] },
    ...overrides,
  })

  it('accepts the link dialog payload for each evidence type', async () => {
    expect((await post('evidences', evidence())).status).toBe(201)
    expect((await post('evidences', evidence({ type: 'comment' }))).status).toBe(201)
    const check = await post('evidences', evidence({ type: 'check', check_id: checkId, definition_of_done: true, done: false, script: 'curl -f http://x' }))
    expect(check.status).toBe(201)
    expect(check.body[0]).toMatchObject({ definition_of_done: true, done: false, script: 'curl -f http://x' })
  })

  it('requires a hypothesis with the spec message, a known type and its reference', async () => {
    expectRejected(await post('evidences', evidence({ hypothesis_id: undefined })), 'Must select or create a hypothesis')
    expectRejected(await post('evidences', evidence({ type: 'metric' })), 'type must be one of log, config, topology, check, config_analysis, config_change, comment')
    expectRejected(await post('evidences', evidence({ type: undefined })), 'type is required')
    expectRejected(await post('evidences', evidence({ description: undefined })), 'description is required')
    const references: [string, string][] = [
      ['check', 'check_id'],
      ['config', 'config_id'],
      ['topology', 'component_id'],
      ['config_analysis', 'config_analysis_id'],
      ['config_change', 'config_change_id'],
    ]
    for (const [type, column] of references) {
      expectRejected(await post('evidences', evidence({ type })), `${column} is required for evidence of type ${type}`)
    }
    expectRejected(await post('evidences', evidence({ definition_of_done: 'yes' })), 'definition_of_done must be true or false')
    expectRejected(await post('evidences', evidence({ done: 1 })), 'done must be true or false')
    expectRejected(await post('evidences', evidence({ script: 5 })), 'script must be a string')
    expectRejected(await post('evidences', evidence({ properties: [1] })), 'properties must be a JSON object')
  })

  it('validates PATCH fields only', async () => {
    const { body } = await post('evidences', evidence())
    const id = body[0].id as string
    expect((await patch('evidences', `id=eq.${id}`, { done: true })).status).toBe(200)
    expectRejected(await patch('evidences', `id=eq.${id}`, { type: 'check', check_id: null }), 'check_id is required for evidence of type check')
    expectRejected(await patch('evidences', `id=eq.${id}`, { definition_of_done: 'no' }), 'definition_of_done must be true or false')
  })
})

describe('comments', () => {
  const comment = (overrides: Record<string, unknown> = {}) => ({ incident_id: incidentId, comment: 'Rolling back', created_by: person, ...overrides })

  it('accepts a comment, optionally on a hypothesis of the same incident', async () => {
    expect((await post('comments', comment())).status).toBe(201)
    expect((await post('comments', comment({ hypothesis_id: rootId }))).status).toBe(201)
  })

  it('rejects empty comments, a missing incident and foreign hypotheses or responders', async () => {
    expectRejected(await post('comments', comment({ comment: ' ' })), 'comment must not be empty')
    expectRejected(await post('comments', comment({ incident_id: undefined })), 'Must select or create an incident')
    expectRejected(await post('comments', comment({ hypothesis_id: otherRootId })), `hypothesis_id ${otherRootId} belongs to another incident`)
    const { rows } = await testApp.db.query<{ id: string }>(
      `INSERT INTO responders (incident_id, type, person_id, created_by) VALUES ($1, 'person', $2, $2) RETURNING id`,
      [otherIncidentId, person],
    )
    expectRejected(await post('comments', comment({ responder_id: String(rows[0]!.id) })), `responder_id ${String(rows[0]!.id)} belongs to another incident`)
  })
})

describe('responders', () => {
  const responder = (overrides: Record<string, unknown> = {}) => ({ incident_id: incidentId, type: 'person', person_id: person, created_by: person, ...overrides })

  it('accepts a person or a team', async () => {
    expect((await post('responders', responder())).status).toBe(201)
    expect((await post('responders', responder({ type: 'email', person_id: undefined, team_id: team, properties: { to: 'oncall@example.test' } }))).status).toBe(201)
  })

  it('requires exactly one of person and team, and a known type', async () => {
    expectRejected(await post('responders', responder({ team_id: team })), 'a responder is either a person (person_id) or a team (team_id), not both')
    expectRejected(await post('responders', responder({ type: 'email', person_id: null })), 'a responder needs person_id (a person) or team_id (a team)')
    expectRejected(await post('responders', responder({ person_id: undefined, team_id: team })), 'person_id is required for a responder of type person')
    expectRejected(await post('responders', responder({ type: 'pager' })), /^type must be one of person, email, jira/)
    expectRejected(await post('responders', responder({ incident_id: undefined })), 'Must select or create an incident')
    expectRejected(await post('responders', responder({ index: -1 })), 'index must not be negative')
  })

  it('keeps person XOR team on PATCH against the stored row', async () => {
    const { body } = await post('responders', responder())
    const id = body[0].id as string
    expectRejected(await patch('responders', `id=eq.${id}`, { team_id: team }), 'a responder is either a person (person_id) or a team (team_id), not both')
    expectRejected(await patch('responders', `id=eq.${id}`, { person_id: null }), 'a responder needs person_id (a person) or team_id (a team)')
    expect((await patch('responders', `id=eq.${id}`, { type: 'email', person_id: null, team_id: team })).status).toBe(200)
  })
})

describe('incident history', () => {
  it('records every event kind for writes made through the API', async () => {
    const created = await post('incidents', incident({ title: 'history' }))
    const id = created.body[0].id as string
    await patch('incidents', `id=eq.${id}`, { status: 'investigating' })
    const root = (await post('hypotheses', { incident_id: id, title: 'root', type: 'root', created_by: person })).body[0].id as string
    await patch('hypotheses', `id=eq.${root}`, { status: 'likely' })
    const evidenceId = (await post('evidences', { hypothesis_id: root, created_by: person, type: 'log', description: 'x' })).body[0].id as string
    await patch('evidences', `id=eq.${evidenceId}`, { definition_of_done: true })
    const responderId = (await post('responders', { incident_id: id, type: 'person', person_id: person, created_by: person })).body[0].id as string
    expect((await post('comments', { incident_id: id, comment: 'on it', created_by: person, responder_id: responderId })).status).toBe(201)

    const { rows } = await testApp.db.query<{ type: string; description: string | null; hypothesis_id: string | null; evidence_id: string | null; responder_id: string | null; comment_id: string | null }>(
      'SELECT type, description, hypothesis_id, evidence_id, responder_id, comment_id FROM incident_histories WHERE incident_id = $1 ORDER BY created_at, type',
      [id],
    )
    expect(new Set(rows.map((row) => row.type))).toEqual(new Set(INCIDENT_HISTORY_TYPES))
    // One row per status change, under the type the triggers write (not the client-only incident_status.updated).
    expect(rows.filter((row) => row.type === 'incident.status_updated')).toEqual([expect.objectContaining({ description: 'investigating' })])
    expect(rows.find((row) => row.type === 'hypothesis.status_updated')).toMatchObject({ description: 'likely' })
    expect(rows.find((row) => row.type === 'evidence.done_definition_added')?.evidence_id).toBeTruthy()
    expect(rows.find((row) => row.type === 'responder.commented')?.comment_id).toBeTruthy()
  })
})
