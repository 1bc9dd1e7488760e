import http from 'node:http'
import type { AddressInfo } from 'node:net'
import { beforeAll, describe, expect, it } from 'vitest'
import { pino } from 'pino'
import { createEventConsumer } from '#server/backend/events/event-consumer.ts'
import { IncidentRuleSpecError, createIncidentRulesHandlers, parseIncidentRuleSpec, withinHoursOfOperation } from '#server/backend/incidents/incident-rules.ts'
import { labelSelectorMatches, patternListMatches } from '#server/backend/incidents/rule-selector.ts'
import { useTestApp } from '#tests/support/use-test-app.ts'
import { applyYaml, canaryYaml, testEngine, waitFor } from '../health/health-fixtures.ts'
import { insertCheck, insertPerson, setCheckStatus } from './incident-fixtures.ts'

const logger = pino({ level: 'silent' })
const testApp = useTestApp()
let owner: string

beforeAll(async () => {
  owner = await insertPerson(testApp.db, 'rule owner')
})

async function addRule(name: string, spec: unknown): Promise<string> {
  const { rows } = await testApp.db.query<{ id: string }>('INSERT INTO incident_rules (name, spec, source, created_by) VALUES ($1, $2, $3, $4) RETURNING id', [
    name,
    JSON.stringify(spec),
    'UI',
    owner,
  ])
  return String(rows[0]!.id)
}

const consumer = () => createEventConsumer({ db: testApp.db, logger, backoffBaseMs: 0, handlers: createIncidentRulesHandlers(testApp.db, logger) })

async function incidentsOf(ruleId: string) {
  const { rows } = await testApp.db.query<{ id: string; title: string; status: string; severity: string; type: string; created_by: string; resolved: Date | null }>(
    'SELECT id, title, status, severity, type, created_by, resolved FROM incidents WHERE incident_rule_id = $1 ORDER BY created_at',
    [ruleId],
  )
  return rows
}

async function ruleRuns(ruleId: string) {
  const { rows } = await testApp.db.query<{ status: string; details: Record<string, unknown>; name: string }>(
    "SELECT name, status, details FROM job_history WHERE resource_type = 'incident_rule' AND resource_id = $1 ORDER BY created_at, time_start",
    [ruleId],
  )
  return rows
}

describe('rule spec', () => {
  it('parses YAML with selectors, filter, template and timeouts', () => {
    const spec = parseIncidentRuleSpec(`
name: api
checks:
  - name: "api-*"
    labelSelector: "team in (payments,checkout),!experimental"
components: [{types: ["!virtual"]}]
filter: {status: [unhealthy], severity: ["*"], age: 1h}
template: {title: "{{.check.name}} down", type: reliability, severity: Medium}
autoResolve: {timeout: 30m}
autoClose: {timeout: 86400000000000}
priority: 2
breakOnMatch: true
`)
    expect(spec).toMatchObject({
      checks: [{ name: 'api-*' }],
      filter: { status: ['unhealthy'], ageMs: 3_600_000 },
      template: { title: '{{.check.name}} down', type: 'reliability', severity: 'Medium', status: 'open' },
      autoResolveMs: 1_800_000,
      autoCloseMs: 86_400_000,
      priority: 2,
      breakOnMatch: true,
    })
  })

  it('accepts a whole IncidentRule document and the seeded reference shape', () => {
    expect(parseIncidentRuleSpec({ apiVersion: 'mission-control.flanksource.com/v1', kind: 'IncidentRule', metadata: { name: 'x' }, spec: { checks: [{ name: 'a' }] } }).checks).toHaveLength(1)
    const seeded = parseIncidentRuleSpec({
      name: 'critical-payment-checks',
      components: [{ labelSelector: 'team=payments' }],
      filter: { status: ['unhealthy'], severity: ['critical', 'high'], category: ['*'], age: 300_000_000_000 },
      template: { title: '{{.component.name}} is unhealthy', type: 'availability', status: 'open', severity: 'high' },
      autoAssignOwner: true,
      priority: 1,
      breakOnMatch: true,
      autoResolve: { timeout: '30m' },
      responders: { email: [{ to: 'oncall@example.test' }] },
    })
    expect(seeded.filter.ageMs).toBe(300_000)
  })

  it('rejects bad specs with the field at fault', () => {
    const issues = (input: unknown) => {
      try {
        parseIncidentRuleSpec(input)
      } catch (error) {
        expect(error).toBeInstanceOf(IncidentRuleSpecError)
        return (error as IncidentRuleSpecError).message
      }
      throw new Error('expected a rejection')
    }
    expect(issues({ template: { title: 'x' } })).toContain('checks: a rule must select checks or components')
    expect(issues({ checks: [{ name: 'a' }], template: { type: 'outage' } })).toContain('template.type: type must be one of cost, availability')
    expect(issues({ checks: [{ name: 'a' }], template: { severity: 'P1' } })).toContain('template.severity: severity must be one of')
    expect(issues({ checks: [{ name: 'a' }], autoResolve: { timeout: 'soon' } })).toContain('autoResolve.timeout: "soon" is not a duration')
    expect(issues({ checks: [{ labelSelector: 'a in (b' }] })).toContain('checks.0: invalid selector term')
    expect(issues({ checks: [{ nam: 'typo' }] })).toContain("Unrecognized key(s) in object: 'nam'")
    expect(issues({ checks: [{ name: 'a' }], hoursOfOperation: [{ start: '25:00', end: '10:00' }] })).toContain('must be a time of day')
    expect(issues('checks: [unclosed')).toContain('not valid YAML')
  })

  it('matches label selectors, name patterns and hours of operation', () => {
    const labels = { team: 'payments', env: 'prod' }
    expect(labelSelectorMatches('team=payments,env!=dev', labels)).toBe(true)
    expect(labelSelectorMatches('team in (checkout, payments)', labels)).toBe(true)
    expect(labelSelectorMatches('env notin (prod)', labels)).toBe(false)
    expect(labelSelectorMatches('!experimental,team', labels)).toBe(true)
    expect(labelSelectorMatches('experimental', labels)).toBe(false)
    expect(patternListMatches(['api-*', '!api-internal'], 'api-public')).toBe(true)
    expect(patternListMatches(['api-*', '!api-internal'], 'api-internal')).toBe(false)
    expect(patternListMatches(['!virtual'], 'http')).toBe(true)
    const at = (time: string) => new Date(`2026-01-01T${time}:00Z`)
    expect(withinHoursOfOperation([{ start: '09:00', end: '17:00', negate: false }], at('12:00'))).toBe(true)
    expect(withinHoursOfOperation([{ start: '09:00', end: '17:00', negate: false }], at('18:00'))).toBe(false)
    expect(withinHoursOfOperation([{ start: '22:00', end: '06:00', negate: false }], at('03:00'))).toBe(true)
    expect(withinHoursOfOperation([{ start: '09:00', end: '17:00', negate: true }], at('18:00'))).toBe(true)
  })
})

describe('rules on check events', () => {
  it('opens one incident per failing check, deduplicates while open, and resolves on recovery', async () => {
    const ruleId = await addRule('payments-checks', {
      checks: [{ name: 'payments-*', labelSelector: 'team=payments' }],
      template: { title: '{{.check.name}} is failing', type: 'availability', severity: 'critical' },
      autoResolve: { timeout: '0s' },
    })
    const { checkId } = await insertCheck(testApp.db, 'payments-api', { team: 'payments' })
    const { checkId: ignored } = await insertCheck(testApp.db, 'search-api', { team: 'search' })
    const events = consumer()

    await setCheckStatus(testApp.db, checkId, false, 'HTTP 503')
    await setCheckStatus(testApp.db, ignored, false)
    await events.drain()
    let incidents = await incidentsOf(ruleId)
    expect(incidents).toHaveLength(1)
    expect(incidents[0]).toMatchObject({ title: 'payments-api is failing', status: 'open', severity: 'critical', type: 'availability' })
    const { rows: system } = await testApp.db.query<{ name: string }>('SELECT name FROM people WHERE id = $1', [incidents[0]!.created_by])
    expect(system[0]!.name).toBe('System')
    const { rows: evidence } = await testApp.db.query<{ type: string; check_id: string; hypothesis_type: string; description: string; definition_of_done: boolean }>(
      `SELECT e.type, e.check_id, h.type AS hypothesis_type, e.description, e.definition_of_done FROM evidences e JOIN hypotheses h ON h.id = e.hypothesis_id WHERE h.incident_id = $1`,
      [incidents[0]!.id],
    )
    expect(evidence).toEqual([expect.objectContaining({ type: 'check', check_id: checkId, hypothesis_type: 'root', definition_of_done: true })])
    expect(evidence[0]!.description).toContain('HTTP 503')

    // The same check failing again while its incident is open adds nothing.
    await testApp.db.query("SELECT enqueue_event('check.failed', $1::uuid, NULL)", [checkId])
    await events.drain()
    expect(await incidentsOf(ruleId)).toHaveLength(1)

    await setCheckStatus(testApp.db, checkId, true)
    await events.drain()
    incidents = await incidentsOf(ruleId)
    expect(incidents[0]).toMatchObject({ status: 'resolved' })
    expect(incidents[0]!.resolved).not.toBeNull()
    const { rows: history } = await testApp.db.query<{ type: string; description: string }>(
      "SELECT type, description FROM incident_histories WHERE incident_id = $1 AND type = 'incident.status_updated'",
      [incidents[0]!.id],
    )
    expect(history).toEqual([{ type: 'incident.status_updated', description: 'resolved' }])

    // A new failure after the incident was resolved opens a new one.
    await setCheckStatus(testApp.db, checkId, false)
    await events.drain()
    expect((await incidentsOf(ruleId)).map((row) => row.status)).toEqual(['resolved', 'open'])

    const runs = await ruleRuns(ruleId)
    expect(runs.every((run) => run.name === 'IncidentRuleRun')).toBe(true)
    expect(runs.map((run) => run.details.action)).toEqual(['opened', 'deduplicated', 'resolved', 'opened'])
    expect(runs.every((run) => run.status === 'SUCCESS')).toBe(true)
    await testApp.db.query('UPDATE incident_rules SET deleted_at = now() WHERE id = $1', [ruleId])
  })

  it('selects checks through their components and waits out an autoResolve timeout', async () => {
    const ruleId = await addRule('component-rule', {
      components: [{ labelSelector: 'tier=edge' }],
      template: { title: 'Edge: {{.component.name}} / {{.check.name}}' },
      autoResolve: { timeout: '400ms' },
    })
    const { canaryId, checkId } = await insertCheck(testApp.db, 'edge-probe')
    const { rows } = await testApp.db.query<{ id: string }>(
      `INSERT INTO components (name, external_id, status, labels, type) VALUES ('cdn', 'cdn', 'healthy', '{"tier":"edge"}', 'service') RETURNING id`,
    )
    await testApp.db.query('INSERT INTO check_component_relationships (component_id, check_id, canary_id) VALUES ($1, $2, $3)', [rows[0]!.id, checkId, canaryId])
    const events = consumer()
    await setCheckStatus(testApp.db, checkId, false)
    await events.drain()
    expect((await incidentsOf(ruleId))[0]).toMatchObject({ title: 'Edge: cdn / edge-probe', status: 'open', severity: 'medium' })

    await setCheckStatus(testApp.db, checkId, true)
    await events.drain()
    expect((await incidentsOf(ruleId))[0]!.status).toBe('open')
    await new Promise((resolve) => setTimeout(resolve, 500))
    await events.drain()
    expect((await incidentsOf(ruleId))[0]!.status).toBe('resolved')
    await testApp.db.query('UPDATE incident_rules SET deleted_at = now() WHERE id = $1', [ruleId])
  })

  it('records a broken rule as a FAILED run without stopping the others', async () => {
    const broken = await addRule('broken-rule', { checks: [{ name: 'x' }], template: { type: 'outage' } })
    const working = await addRule('working-rule', { checks: [{ name: 'billing-*' }] })
    const { checkId } = await insertCheck(testApp.db, 'billing-api')
    await setCheckStatus(testApp.db, checkId, false)
    await consumer().drain()
    expect(await incidentsOf(working)).toHaveLength(1)
    const failed = await ruleRuns(broken)
    expect(failed.at(-1)).toMatchObject({ status: 'FAILED' })
    expect(JSON.stringify(failed.at(-1)!.details)).toContain('template.type')
    await testApp.db.query('UPDATE incident_rules SET deleted_at = now() WHERE id = ANY($1::uuid[])', [[broken, working]])
  })
})

/** A loopback server that can be stopped and started again on the same port. */
async function listen(server: http.Server, port = 0): Promise<number> {
  await new Promise<void>((resolve) => server.listen(port, '127.0.0.1', resolve))
  return (server.address() as AddressInfo).port
}
const close = (server: http.Server) => new Promise<void>((resolve) => { server.closeAllConnections(); server.close(() => resolve()) })

describe('end to end with the health engine', () => {
  it('opens an incident when a real check fails against a stopped server and resolves it when the server returns', async () => {
    const handler: http.RequestListener = (_req, res) => res.writeHead(200, { 'content-type': 'text/plain' }).end('ok')
    let server = http.createServer(handler)
    const port = await listen(server)
    const ruleId = await addRule('loopback-rule', {
      checks: [{ name: 'loopback-*', namespace: 'default' }],
      template: { title: 'Check {{.check.name}} is down', type: 'availability', severity: 'high' },
      autoResolve: { timeout: '0s' },
    })
    const { checks } = await applyYaml(testApp.db, canaryYaml('loopback', `  http:
    - {name: loopback-ping, url: "http://127.0.0.1:${port}/", responseCodes: [200]}
`, '@every 1s'))
    const checkId = checks.get('loopback-ping')!
    const engine = testEngine(testApp.db, { minIntervalMs: 300 })
    const events = createEventConsumer({ db: testApp.db, logger, pollMs: 50, handlers: createIncidentRulesHandlers(testApp.db, logger) })
    await engine.start()
    await events.start()
    try {
      const status = async () => (await testApp.db.query<{ status: string | null }>('SELECT status FROM checks_unlogged WHERE check_id = $1', [checkId])).rows[0]?.status
      await waitFor(async () => (await status()) === 'healthy', 15_000)
      expect(await incidentsOf(ruleId)).toHaveLength(0)

      await close(server)
      const opened = await waitFor(async () => (await incidentsOf(ruleId))[0], 20_000)
      expect(opened).toMatchObject({ title: 'Check loopback-ping is down', status: 'open' })
      const { rows: evidence } = await testApp.db.query<{ check_id: string }>(
        'SELECT e.check_id FROM evidences e JOIN hypotheses h ON h.id = e.hypothesis_id WHERE h.incident_id = $1',
        [opened.id],
      )
      expect(evidence).toEqual([{ check_id: checkId }])

      server = http.createServer(handler)
      await listen(server, port)
      await waitFor(async () => (await incidentsOf(ruleId))[0]?.status === 'resolved', 20_000)
      expect(await incidentsOf(ruleId)).toHaveLength(1)
      expect((await ruleRuns(ruleId)).map((run) => run.details.action)).toEqual(['opened', 'resolved'])
    } finally {
      await events.stop()
      await engine.stop()
      await close(server)
    }
  }, 60_000)
})
