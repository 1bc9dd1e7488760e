import request from 'supertest'
import { describe, expect, it } from 'vitest'
import { useTestApp } from '#tests/support/use-test-app.ts'
import { bearer } from '#tests/support/test-app.ts'
import { sha256 } from '#server/backend/identity/credentials.ts'
import { personWith } from '#tests/rbac/rbac-fixture.ts'

const LOCAL = '00000000-0000-0000-0000-000000000000'

describe('agents: generate, push, delete', () => {
  const testApp = useTestApp()

  async function generate(name: string, properties: Record<string, unknown> = {}) {
    const response = await request(testApp.app).post('/api/agent/generate').set(bearer).send({ name, properties })
    expect(response.status, response.text).toBe(201)
    return response.body as { id: string; username: string; access_token: string; agent_id: string; name: string }
  }

  it('generate answers 201 with the token once, stores only its hash, and the agent row names the person', async () => {
    const created = await generate('eu-cluster', { region: 'eu' })
    expect(created.username).toMatch(/^agent-[0-9a-f]{16}$/)
    expect(created.name).toBe('eu-cluster')
    const { rows } = await testApp.db.query<{ value: string; expires_at: Date; type: string; email: string; person_id: string; properties: unknown }>(
      `SELECT t.value, t.expires_at, p.type, p.email, a.person_id::text, a.properties
         FROM agents a JOIN people p ON p.id = a.person_id JOIN access_tokens t ON t.person_id = p.id WHERE a.id = $1`,
      [created.agent_id],
    )
    expect(rows).toHaveLength(1)
    expect(rows[0]!.value).toBe(sha256(created.access_token))
    expect(rows[0]!.value).not.toContain(created.access_token)
    expect(rows[0]!).toMatchObject({ type: 'agent', email: `${created.username}@local`, person_id: created.id, properties: { region: 'eu' } })
    // A one-year token.
    const days = (new Date(rows[0]!.expires_at).getTime() - Date.now()) / 86_400_000
    expect(days).toBeGreaterThan(364)
    // Nothing readable gives the secret back.
    const listed = await request(testApp.app).get('/api/db/agents_summary?select=*&name=eq.eu-cluster').set(bearer)
    expect(listed.status).toBe(200)
    expect(JSON.stringify(listed.body)).not.toContain(created.access_token)
    expect(listed.body[0]).toMatchObject({ name: 'eu-cluster', status: 'unknown', checks_count: null })
  })

  it('generate is for admins only, refuses a bad body and a taken name', async () => {
    for (const role of ['editor', 'viewer']) {
      const person = await personWith(testApp.db, [role])
      const response = await request(testApp.app).post('/api/agent/generate').set(person.headers).send({ name: `by-${role}` })
      expect(response.status, role).toBe(403)
    }
    expect((await request(testApp.app).post('/api/agent/generate').set(bearer).send({})).status).toBe(400)
    expect((await request(testApp.app).post('/api/agent/generate').set(bearer).send({ name: 'x', properties: 'no' })).status).toBe(400)
    await generate('taken')
    const again = await request(testApp.app).post('/api/agent/generate').set(bearer).send({ name: 'taken' })
    expect(again.status).toBe(400)
    expect(again.body.error).toMatch(/already exists/)
    const { rows } = await testApp.db.query(`SELECT 1 FROM people WHERE type = 'agent' AND deleted_at IS NULL`)
    // eu-cluster and the first `taken`: the refused attempt left no person behind.
    expect(rows).toHaveLength(2)
  })

  it('push stamps the agent id, ignores one sent in the body, is idempotent, and updates last_seen', async () => {
    const agent = await generate('pusher')
    const auth = { Authorization: `Bearer ${agent.access_token}` }
    const canaryId = '11111111-1111-4111-8111-111111111111'
    const checkId = '22222222-2222-4222-8222-222222222222'
    const body = {
      canaries: [{ id: canaryId, name: 'remote', namespace: 'default', spec: { http: [] }, agent_id: LOCAL, created_by: '33333333-3333-4333-8333-333333333333' }],
      checks: [{ id: checkId, canary_id: canaryId, type: 'http', name: 'remote-http', status: 'healthy', agent_id: LOCAL }],
      check_statuses: [
        { check_id: checkId, time: '2026-11-24T10:00:00Z', status: true, duration: 12, message: 'ok' },
        { check_id: checkId, time: '2026-11-24T10:01:00Z', status: false, duration: 40, error: 'boom' },
      ],
    }
    const first = await request(testApp.app).post('/api/upstream/push').set(auth).send(body)
    expect(first.status, first.text).toBe(200)
    expect(first.body.counts).toEqual({ canaries: 1, checks: 1, check_statuses: 2 })
    const second = await request(testApp.app).post('/api/upstream/push').set(auth).send(body)
    expect(second.status).toBe(200)
    const { rows } = await testApp.db.query<{ agent_id: string; statuses: number; created_by: string | null }>(
      `SELECT c.agent_id::text, ca.created_by::text, (SELECT count(*)::int FROM check_statuses s WHERE s.check_id = c.id) AS statuses
         FROM checks c JOIN canaries ca ON ca.id = c.canary_id WHERE c.id = $1`,
      [checkId],
    )
    expect(rows).toEqual([{ agent_id: agent.agent_id, statuses: 2, created_by: null }])
    const seen = await testApp.db.query<{ fresh: boolean }>(`SELECT last_seen > now() - interval '1 minute' AS fresh FROM agents WHERE id = $1`, [agent.agent_id])
    expect(seen.rows[0]!.fresh).toBe(true)
    const summary = await request(testApp.app).get(`/api/db/agents_summary?id=eq.${agent.agent_id}`).set(bearer)
    expect(summary.body[0]).toMatchObject({ checks_count: 1, status: 'online', health: 'healthy' })
  })

  it("an agent cannot overwrite the local agent's rows or another agent's, nor hang results on them", async () => {
    const mallory = await generate('mallory')
    const auth = { Authorization: `Bearer ${mallory.access_token}` }
    const canaryId = '44444444-4444-4444-8444-444444444444'
    await testApp.db.query(`INSERT INTO canaries (id, name, namespace, spec) VALUES ($1, 'local-one', 'default', '{}')`, [canaryId])
    await testApp.db.query(`INSERT INTO checks (id, canary_id, type, name) VALUES ('55555555-5555-4555-8555-555555555555', $1, 'http', 'local-check')`, [canaryId])
    const response = await request(testApp.app)
      .post('/api/upstream/push')
      .set(auth)
      .send({
        canaries: [{ id: canaryId, name: 'hijacked', namespace: 'default', spec: {} }],
        check_statuses: [{ check_id: '55555555-5555-4555-8555-555555555555', time: '2026-11-24T10:00:00Z', status: false }],
      })
    expect(response.status, response.text).toBe(200)
    expect(response.body.counts).toEqual({ canaries: 0, check_statuses: 0 })
    const { rows } = await testApp.db.query<{ name: string; agent_id: string }>('SELECT name, agent_id::text FROM canaries WHERE id = $1', [canaryId])
    expect(rows).toEqual([{ name: 'local-one', agent_id: LOCAL }])
  })

  it('push needs an agent credential: a person without agent is refused, a viewer has no agent-push', async () => {
    expect((await request(testApp.app).post('/api/upstream/push').set(bearer).send({})).status).toBe(403)
    const viewer = await personWith(testApp.db, ['viewer'])
    expect((await request(testApp.app).post('/api/upstream/push').set(viewer.headers).send({})).status).toBe(403)
    expect((await request(testApp.app).post('/api/upstream/push').send({})).status).toBe(401)
  })

  it('POST /agent/token issues another token for an existing agent (admins only)', async () => {
    const agent = await generate('second-token')
    const issued = await request(testApp.app).post('/api/agent/token').set(bearer).send({ AgentName: 'second-token', auto_renew: true })
    expect(issued.status, issued.text).toBe(201)
    expect(issued.body).toMatchObject({ id: agent.id, agent_id: agent.agent_id })
    expect(issued.body.access_token).not.toBe(agent.access_token)
    const ping = await request(testApp.app).get('/api/upstream/ping').set({ Authorization: `Bearer ${issued.body.access_token}` })
    expect(ping.status).toBe(200)
    expect(ping.body.agent).toEqual({ id: agent.agent_id, name: 'second-token' })
    expect((await request(testApp.app).post('/api/agent/token').set(bearer).send({ AgentName: 'nobody' })).status).toBe(404)
    const editor = await personWith(testApp.db, ['editor'])
    expect((await request(testApp.app).post('/api/agent/token').set(editor.headers).send({ AgentName: 'second-token' })).status).toBe(403)
  })

  it('edits go through /api/db/agents; a soft delete expires the token so the agent can no longer push', async () => {
    const agent = await generate('short-lived')
    const auth = { Authorization: `Bearer ${agent.access_token}` }
    const patched = await request(testApp.app)
      .patch(`/api/db/agents?id=eq.${agent.agent_id}`)
      .set(bearer)
      .set('Prefer', 'return=representation')
      .send({ properties: { region: 'us' }, description: 'US cluster' })
    expect(patched.status, patched.text).toBe(200)
    expect(patched.body[0]).toMatchObject({ properties: { region: 'us' }, description: 'US cluster' })
    expect((await request(testApp.app).get('/api/upstream/ping').set(auth)).status).toBe(200)
    const removed = await request(testApp.app).patch(`/api/db/agents?id=eq.${agent.agent_id}`).set(bearer).send({ deleted_at: new Date().toISOString() })
    expect(removed.status).toBeLessThan(300)
    const after = await request(testApp.app).get('/api/upstream/ping').set(auth)
    expect(after.status).toBe(401)
  })
})
