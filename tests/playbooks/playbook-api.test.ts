import request from 'supertest'
import { beforeAll, describe, expect, it } from 'vitest'
import type { Db } from '#server/db/client.ts'
import { issuePersonToken } from '#server/backend/rbac/access-tokens.ts'
import { useTestApp } from '#tests/support/use-test-app.ts'
import { bearer } from '#tests/support/test-app.ts'
import { personWith, RANDOM_ID } from '#tests/rbac/rbac-fixture.ts'

/** The playbook API of http-api §2.5: run, list, params, approve, cancel, run reads, and the §2.5.6 data-API reads. */

const exec = [{ name: 'go', exec: { script: 'echo hi' } }]

async function insertPlaybook(db: Db, name: string, spec: Record<string, unknown>): Promise<string> {
  const { rows } = await db.query<{ id: string }>(
    `INSERT INTO playbooks (name, namespace, title, spec, source, category) VALUES ($1, 'ops', $1, $2::jsonb, 'UI', 'test') RETURNING id`,
    [name, JSON.stringify({ actions: exec, ...spec })],
  )
  return rows[0]!.id
}

async function approverPerson(db: Db, email: string, roles: string[]) {
  const { rows } = await db.query<{ id: string }>('INSERT INTO people (name, email) VALUES ($1, $2) RETURNING id', [email.split('@')[0], email])
  const id = rows[0]!.id
  for (const role of roles) await db.query(`INSERT INTO casbin_rule (ptype, v0, v1, v2, v3, v4, v5) VALUES ('g', $1, $2, '', '', '', '')`, [id, role])
  const { token } = await issuePersonToken(db, { personId: id, name: `approver-${email}` })
  return { id, headers: { Authorization: `Bearer ${token}` } }
}

describe('/api/playbook', () => {
  const testApp = useTestApp()
  let db: Db
  const ids: Record<string, string> = {}

  beforeAll(async () => {
    db = testApp.db
    const config = async (name: string, type: string) =>
      (await db.query<{ id: string }>(`INSERT INTO config_items (name, type, config_class, tags) VALUES ($1, $2, 'Pod', '{"namespace":"prod"}') RETURNING id`, [name, type])).rows[0]!.id
    ids.webPod = await config('web-pod', 'Kubernetes::Pod')
    ids.database = await config('orders-db', 'AWS::RDS::Instance')
    const topology = (await db.query<{ id: string }>(`INSERT INTO topologies (name, namespace, spec) VALUES ('shop', 'default', '{}') RETURNING id`)).rows[0]!.id
    ids.component = (await db.query<{ id: string }>(`INSERT INTO components (name, topology_id, type, external_id, status) VALUES ('api', $1, 'Service', 'api', 'healthy') RETURNING id`, [topology])).rows[0]!.id
    const canary = (await db.query<{ id: string }>(`INSERT INTO canaries (name, namespace, spec) VALUES ('shop-checks', 'default', '{}') RETURNING id`)).rows[0]!.id
    ids.check = (await db.query<{ id: string }>(`INSERT INTO checks (canary_id, type, name, status) VALUES ($1, 'http', 'api-health', 'healthy') RETURNING id`, [canary])).rows[0]!.id

    ids.restart = await insertPlaybook(db, 'restart-pod', {
      timeout: '10m',
      configs: [{ types: ['Kubernetes::Pod'] }],
      parameters: [
        { name: 'replicas', label: 'Replicas', default: '3', required: true, properties: { regex: '^[0-9]+$' } },
        { name: 'target', default: '{{.config.name}}-{{.params.replicas}}' },
        { name: 'token', type: 'secret', default: 's3cret-value' },
        { name: 'memory', type: 'bytes' },
      ],
    })
    ids.guarded = await insertPlaybook(db, 'guarded', {
      configs: [{ types: ['Kubernetes::Pod', 'AWS::RDS::Instance'] }],
      filters: ["config.name == 'web-pod' ? 'true' : 'refused: ' + config.name"],
    })
    ids.approveAny = await insertPlaybook(db, 'approve-any', { approval: { type: 'any', approvers: { people: ['Boss@Example.test'], teams: ['sre'] } } })
    ids.approveAll = await insertPlaybook(db, 'approve-all', { approval: { approvers: { teams: ['sre'] } } })
    ids.onCheck = await insertPlaybook(db, 'on-check', { checks: [{ name: 'api-*' }] })
    ids.onComponent = await insertPlaybook(db, 'on-component', { components: [{ types: ['Service'] }] })
    ids.plain = await insertPlaybook(db, 'plain', {})
  })

  const run = (body: Record<string, unknown>, headers: Record<string, string> = bearer) => request(testApp.app).post('/api/playbook/run').set(headers).send(body)

  describe('POST /run', () => {
    it('answers the reference texts for a missing id, two resources and an unknown playbook', async () => {
      const noId = await run({})
      expect(noId.status).toBe(400)
      expect(noId.body).toEqual({ error: 'playbook id is required', code: 'invalid' })
      const two = await run({ id: ids.restart, config_id: ids.webPod, check_id: ids.check })
      expect(two.status).toBe(400)
      expect(two.body.error).toBe('provide none or exactly one of config_id, component_id, or check_id')
      const unknown = await run({ id: RANDOM_ID })
      expect(unknown.status).toBe(404)
      expect(unknown.body.error).toBe(`playbook '${RANDOM_ID}' not found`)
    })

    it('creates a scheduled run: 201 {run_id, starts_at}, defaults templated against the config, the secret encrypted, the timeout in ns, PlaybookScheduled', async () => {
      const response = await run({ id: ids.restart, config_id: ids.webPod })
      expect(response.status, response.text).toBe(201)
      expect(Object.keys(response.body).sort()).toEqual(['run_id', 'starts_at'])
      expect(new Date(response.body.starts_at).toISOString()).toBe(response.body.starts_at)
      const { rows } = await db.query<{ status: string; parameters: Record<string, string>; timeout: string; config_id: string; spec: { actions: unknown[] }; created_by: string | null }>(
        'SELECT status, parameters, timeout, config_id, spec, created_by FROM playbook_runs WHERE id = $1',
        [response.body.run_id],
      )
      const row = rows[0]!
      expect(row.status).toBe('scheduled')
      expect(row.config_id).toBe(ids.webPod)
      expect(Number(row.timeout)).toBe(10 * 60 * 1e9)
      expect(row.spec.actions).toEqual(exec)
      expect(row.created_by).not.toBeNull()
      expect(row.parameters.replicas).toBe('3')
      expect(row.parameters.target).toBe('web-pod-3')
      expect(row.parameters.token).not.toContain('s3cret-value')
      const changes = await db.query('SELECT 1 FROM config_changes WHERE config_id = $1 AND change_type = $2', [ids.webPod, 'PlaybookScheduled'])
      expect(changes.rows).toHaveLength(1)
    })

    it('takes the run timeout from the spec, else property playbook.run.timeout, else 30m', async () => {
      const timeoutOf = async (runId: string) => Number((await db.query<{ timeout: string }>('SELECT timeout FROM playbook_runs WHERE id = $1', [runId])).rows[0]!.timeout)
      expect(await timeoutOf((await run({ id: ids.plain })).body.run_id)).toBe(30 * 60 * 1e9)
      await db.query(`INSERT INTO properties (name, value) VALUES ('playbook.run.timeout', '2h')`)
      expect(await timeoutOf((await run({ id: ids.plain })).body.run_id)).toBe(2 * 3600 * 1e9)
      expect(await timeoutOf((await run({ id: ids.restart, config_id: ids.webPod })).body.run_id)).toBe(10 * 60 * 1e9)
      await db.query(`DELETE FROM properties WHERE name = 'playbook.run.timeout'`)
    })

    it('validates parameters: required, regex, bytes units, unknown names', async () => {
      const empty = await run({ id: ids.restart, config_id: ids.webPod, params: { replicas: 'many' } })
      expect(empty.status).toBe(400)
      expect(empty.body.error).toBe("parameter 'replicas' must match ^[0-9]+$")
      const bytes = await run({ id: ids.restart, config_id: ids.webPod, params: { memory: '512MB' } })
      expect(bytes.body.error).toBe("parameter 'memory' must be a size with a unit of Mi, Gi or Ti (e.g. 512Mi)")
      const unknown = await run({ id: ids.restart, config_id: ids.webPod, params: { nope: 'x' } })
      expect(unknown.body.error).toBe('unknown parameter(s): nope')
      const required = await db.query<{ id: string }>(
        `INSERT INTO playbooks (name, spec, source) VALUES ('needs-input', $1::jsonb, 'UI') RETURNING id`,
        [JSON.stringify({ actions: exec, parameters: [{ name: 'a', required: true }, { name: 'b', required: true }] })],
      )
      const missing = await run({ id: required.rows[0]!.id })
      expect(missing.status).toBe(400)
      expect(missing.body.error).toBe('missing required parameter(s): a, b')
      const ok = await run({ id: ids.restart, config_id: ids.webPod, params: { replicas: 5, memory: '512Mi' } })
      expect(ok.status, ok.text).toBe(201)
    })

    it('refuses a resource outside the selectors and a filter that does not yield true, with the yielded value', async () => {
      const outside = await run({ id: ids.restart, config_id: ids.database })
      expect(outside.status).toBe(400)
      expect(outside.body.error).toContain("does not match the playbook's configs selectors")
      const refused = await run({ id: ids.guarded, config_id: ids.database })
      expect(refused.status).toBe(400)
      expect(refused.body.error).toBe('refused: orders-db')
      expect((await run({ id: ids.guarded, config_id: ids.webPod })).status).toBe(201)
      const noSuchConfig = await run({ id: ids.restart, config_id: RANDOM_ID })
      expect(noSuchConfig.status).toBe(404)
    })

    it("refuses a cookie-authenticated run from another site's page (the gateway's origin check)", async () => {
      const forged = await request(testApp.app)
        .post('/api/playbook/run')
        .set('Cookie', 'lookout_session=s1')
        .set('Host', 'console.example.org')
        .set('Origin', 'http://evil.example.net')
        .set('Content-Type', 'application/json')
        .send(JSON.stringify({ id: ids.plain }))
      expect(forged.status).toBe(403)
      expect(forged.body.error).toBe('forbidden_origin')
    })

    it('runs against checks and components that match', async () => {
      expect((await run({ id: ids.onCheck, check_id: ids.check })).status).toBe(201)
      expect((await run({ id: ids.onComponent, component_id: ids.component })).status).toBe(201)
      expect((await run({ id: ids.onComponent, check_id: ids.check })).status).toBe(400)
    })

    it('needs playbook:run (a viewer is refused by the route table) and read on the resource', async () => {
      const viewer = await personWith(db, ['viewer'], 'pb-viewer')
      const refused = await run({ id: ids.plain }, viewer.headers)
      expect(refused.status).toBe(403)
      expect(refused.text).toBe('unauthorized. Access Denied')
      // An editor narrowed to configs tagged namespace=staging may run, but not on the prod pod.
      const narrowed = await personWith(db, ['editor'], 'pb-narrowed')
      await db.query(
        `INSERT INTO permissions (subject_type, subject, object, action, tags) VALUES ('person', $1, 'catalog', 'read', '{"namespace":"staging"}'::jsonb)`,
        [narrowed.id],
      )
      testApp.backend.authorizer.invalidate()
      const hidden = await run({ id: ids.restart, config_id: ids.webPod }, narrowed.headers)
      expect(hidden.status).toBe(403)
      expect(hidden.body).toMatchObject({ code: 'forbidden' })
      expect(hidden.body.error).toMatch(/^access denied/)
      expect((await run({ id: ids.plain }, narrowed.headers)).status).toBe(201)
      // Nor read a run against that pod.
      const podRun = await run({ id: ids.restart, config_id: ids.webPod })
      expect((await request(testApp.app).get(`/api/playbook/run/${podRun.body.run_id}`).set(narrowed.headers)).status).toBe(403)
      expect((await request(testApp.app).get(`/api/playbook/run/${podRun.body.run_id}/status`).set(bearer)).status).toBe(200)
    })
  })

  describe('approvals', () => {
    let boss: Awaited<ReturnType<typeof approverPerson>>
    let member: Awaited<ReturnType<typeof approverPerson>>
    let outsider: Awaited<ReturnType<typeof approverPerson>>

    beforeAll(async () => {
      boss = await approverPerson(db, 'boss@example.test', ['editor'])
      member = await approverPerson(db, 'oncall@example.test', ['editor'])
      outsider = await approverPerson(db, 'someone@example.test', ['editor'])
      const team = (await db.query<{ id: string }>(`INSERT INTO teams (name, created_by) VALUES ('sre', $1) RETURNING id`, [boss.id])).rows[0]!.id
      await db.query('INSERT INTO team_members (team_id, person_id) VALUES ($1, $2)', [team, member.id])
      testApp.backend.authorizer.invalidate()
    })

    const statusOf = async (runId: string) => (await db.query<{ status: string }>('SELECT status FROM playbook_runs WHERE id = $1', [runId])).rows[0]!.status
    const approve = (runId: string, headers: Record<string, string>) => request(testApp.app).post(`/api/playbook/run/approve/${runId}`).set(headers)

    it('starts a run with approvers in pending_approval; a listed person (email, any case) approves it', async () => {
      const created = await run({ id: ids.approveAny })
      expect(created.status).toBe(201)
      expect(await statusOf(created.body.run_id)).toBe('pending_approval')
      const refused = await approve(created.body.run_id, outsider.headers)
      expect(refused.status).toBe(403)
      expect(refused.body.error).toBe('you are not allowed to approve this playbook run')
      const approved = await approve(created.body.run_id, boss.headers)
      expect(approved.status, approved.text).toBe(200)
      expect(approved.body).toEqual({ message: 'playbook run approved' })
      expect(await statusOf(created.body.run_id)).toBe('scheduled')
      const approvals = await db.query('SELECT person_id FROM playbook_approvals WHERE run_id = $1', [created.body.run_id])
      expect(approvals.rows).toEqual([{ person_id: boss.id }])
    })

    it('a member of a listed team approves as that team', async () => {
      const created = await run({ id: ids.approveAll })
      expect(await statusOf(created.body.run_id)).toBe('pending_approval')
      expect((await approve(created.body.run_id, boss.headers)).status).toBe(403)
      const approved = await approve(created.body.run_id, member.headers)
      expect(approved.status, approved.text).toBe(200)
      expect(await statusOf(created.body.run_id)).toBe('scheduled')
      const approvals = await db.query<{ team_id: string | null }>('SELECT team_id FROM playbook_approvals WHERE run_id = $1', [created.body.run_id])
      expect(approvals.rows[0]!.team_id).not.toBeNull()
    })

    it('answers the reference errors: invalid run id, unknown run, no approval required, no approve permission', async () => {
      const invalid = await approve('not-a-uuid', boss.headers)
      expect(invalid.status).toBe(400)
      expect(invalid.body.message).toBe('invalid run id')
      const unknown = await approve(RANDOM_ID, boss.headers)
      expect(unknown.status).toBe(404)
      expect(unknown.body.error).toBe(`playbook run (id=${RANDOM_ID}) not found`)
      const plain = await run({ id: ids.plain })
      const notRequired = await approve(plain.body.run_id, boss.headers)
      expect(notRequired.status).toBe(400)
      expect(notRequired.body.error).toBe('this playbook does not require approval')
      const viewer = await personWith(db, ['viewer'], 'pb-approve-viewer')
      const created = await run({ id: ids.approveAny })
      expect((await approve(created.body.run_id, viewer.headers)).status).toBe(403)
      // A deny narrowed to this playbook passes the route table (no resource there) and is met by the attribute check.
      const denied = await approverPerson(db, 'denied@example.test', ['editor'])
      await db.query(
        `INSERT INTO permissions (subject_type, subject, action, playbook_id, deny) VALUES ('person', $1, 'playbook:approve', $2, true)`,
        [denied.id, ids.approveAny],
      )
      testApp.backend.authorizer.invalidate()
      const refused = await approve(created.body.run_id, denied.headers)
      expect(refused.status).toBe(403)
      expect(refused.body).toEqual({ error: 'access denied: approval permission required', code: 'forbidden' })
    })
  })

  describe('POST /run/cancel/{id}', () => {
    const cancel = (runId: string) => request(testApp.app).post(`/api/playbook/run/cancel/${runId}`).set(bearer)

    it('cancels a live run, then answers 400 for the final run; 404 unknown, 400 bad uuid', async () => {
      const created = await run({ id: ids.plain })
      const cancelled = await cancel(created.body.run_id)
      expect(cancelled.status, cancelled.text).toBe(200)
      expect(cancelled.body).toEqual({ message: 'playbook run cancelled' })
      const again = await cancel(created.body.run_id)
      expect(again.status).toBe(400)
      expect(again.body.error).toContain('cancelled')
      expect((await cancel(RANDOM_ID)).status).toBe(404)
      expect((await cancel('nope')).status).toBe(400)
    })

    it('a viewer may not cancel', async () => {
      const viewer = await personWith(db, ['viewer'], 'pb-cancel-viewer')
      const created = await run({ id: ids.plain })
      const refused = await request(testApp.app).post(`/api/playbook/run/cancel/${created.body.run_id}`).set(viewer.headers)
      expect(refused.status).toBe(403)
    })
  })

  describe('GET /list', () => {
    const list = async (query = '') => request(testApp.app).get(`/api/playbook/list${query}`).set(bearer)

    it('lists all playbooks without a filter, with the reference fields', async () => {
      const response = await list()
      expect(response.status).toBe(200)
      const restart = (response.body as { id: string }[]).find((entry) => entry.id === ids.restart)
      expect(restart).toMatchObject({ namespace: 'ops', name: 'restart-pod', title: 'restart-pod', source: 'UI', category: 'test' })
      expect(restart).toHaveProperty('parameters')
      expect(restart).toHaveProperty('spec')
    })

    it('filters by the resource a playbook may run on', async () => {
      const names = async (query: string) => ((await list(query)).body as { name: string }[]).map((entry) => entry.name).sort()
      expect(await names(`?config_id=${ids.webPod}`)).toEqual(['guarded', 'restart-pod'])
      expect(await names(`?config_id=${ids.database}`)).toEqual(['guarded'])
      expect(await names(`?check_id=${ids.check}`)).toEqual(['on-check'])
      expect(await names(`?component_id=${ids.component}`)).toEqual(['on-component'])
      const two = await list(`?config_id=${ids.webPod}&check_id=${ids.check}`)
      expect(two.status).toBe(400)
      expect(two.body.error).toBe('provide at most one of: config_id, check_id or component_id')
    })
  })

  describe('POST /{id}/params', () => {
    const params = (id: string, body: Record<string, unknown>) => request(testApp.app).post(`/api/playbook/${id}/params`).set(bearer).send(body)

    it('answers the parameters with defaults templated against the chosen resource', async () => {
      const response = await params(ids.restart!, { id: ids.restart, config_id: ids.webPod })
      expect(response.status, response.text).toBe(200)
      const byName = Object.fromEntries((response.body.params as { name: string }[]).map((entry) => [entry.name, entry]))
      expect(byName.replicas).toEqual({ name: 'replicas', label: 'Replicas', type: 'text', default: '3', required: true, properties: { regex: '^[0-9]+$' } })
      expect(byName.target).toMatchObject({ default: 'web-pod-3', type: 'text' })
      expect(byName.memory).toMatchObject({ type: 'bytes' })
    })

    it('404 for an unknown playbook, 500 for a resource outside the selectors', async () => {
      const unknown = await params(RANDOM_ID, {})
      expect(unknown.status).toBe(404)
      expect(unknown.body.error).toBe(`playbook(id=${RANDOM_ID}) not found`)
      const outside = await params(ids.restart!, { id: ids.restart, config_id: ids.database })
      expect(outside.status).toBe(500)
      expect(outside.body.error).toContain('does not match')
    })
  })

  describe('run reads', () => {
    it('GET /run/{id} and /run/{id}/status', async () => {
      const created = await run({ id: ids.restart, config_id: ids.webPod })
      const runId = created.body.run_id as string
      await db.query(`INSERT INTO playbook_run_actions (name, status, playbook_run_id, start_time) VALUES ('go', 'completed', $1, now())`, [runId])
      const one = await request(testApp.app).get(`/api/playbook/run/${runId}`).set(bearer)
      expect(one.status).toBe(200)
      expect(one.body).toMatchObject({ id: runId, playbook_id: ids.restart, status: 'scheduled' })
      const status = await request(testApp.app).get(`/api/playbook/run/${runId}/status`).set(bearer)
      expect(status.status).toBe(200)
      expect(status.body.playbook).toMatchObject({ id: ids.restart, name: 'restart-pod' })
      expect(status.body.run).toMatchObject({ id: runId })
      expect(status.body.actions).toEqual([expect.objectContaining({ name: 'go', status: 'completed' })])
      expect((await request(testApp.app).get(`/api/playbook/run/${RANDOM_ID}`).set(bearer)).status).toBe(404)
    })

    it('answers the data-API reads of §2.5.6 with their embeds', async () => {
      const created = await run({ id: ids.approveAny })
      const runId = created.body.run_id as string
      const action = (await db.query<{ id: string }>(`INSERT INTO playbook_run_actions (name, status, playbook_run_id) VALUES ('go', 'completed', $1) RETURNING id`, [runId])).rows[0]!.id
      await db.query(`INSERT INTO artifacts (playbook_run_action_id, path, filename, size, checksum) VALUES ($1, '/tmp/a', 'a', 1, 'x')`, [action])
      const get = (path: string) => request(testApp.app).get(`/api/db/${path}`).set(bearer).set('Prefer', 'count=exact')
      const runs = await get(
        `playbook_runs?config_id=eq.${ids.webPod}&parent_id=is.null&limit=10&offset=0&order=created_at.desc&select=*,created_by(id,name,avatar),playbooks(id,name,title,spec,icon),component:components(id,name,icon),check:checks(id,name,icon),config:config_items(id,name,type,config_class)`,
      )
      expect(runs.status, runs.text).toBe(200)
      expect(runs.headers['content-range']).toMatch(/\/\d+$/)
      const withConfig = (runs.body as { config: { name: string } | null; playbooks: { name: string } }[]).find((entry) => entry.config)
      expect(withConfig?.config?.name).toBe('web-pod')
      const approvals = await get(`playbook_runs?or=(id.eq.${runId},parent_id.eq.${runId})&select=*,playbook_approvals(*,person_id(id,name),team_id(*))`)
      expect(approvals.status, approvals.text).toBe(200)
      expect(approvals.body[0].playbook_approvals).toEqual([])
      const actions = await get(`rpc/get_playbook_run_actions?run_id=${runId}`)
      expect(actions.status, actions.text).toBe(200)
      expect(actions.body).toHaveLength(1)
      // Exactly what the console sends, the json cast on the embed included.
      const withArtifacts = await get(`playbook_run_actions?id=eq.${action}&select=*,artifacts:artifacts(*)::jsonb,playbook_run:playbook_runs(spec)`)
      expect(withArtifacts.status, withArtifacts.text).toBe(200)
      expect(withArtifacts.body[0].artifacts).toHaveLength(1)
      expect(withArtifacts.body[0].playbook_run).toHaveProperty('spec')
      // Any other cast of an embed is refused in the data API's parse-error shape.
      const badCast = await get(`playbook_run_actions?id=eq.${action}&select=*,artifacts(*)::text`)
      expect(badCast.status).toBe(400)
      expect(badCast.body.code).toBe('PGRST100')
    })
  })
})
