import { createHmac, generateKeyPairSync, sign } from 'node:crypto'
import { createServer, type Server } from 'node:http'
import type { AddressInfo } from 'node:net'
import request from 'supertest'
import { afterAll, beforeAll, describe, expect, it } from 'vitest'
import type { Db } from '#server/db/client.ts'
import { useTestApp } from '#tests/support/use-test-app.ts'

/** on.webhook (resource-specs §2.3): GET and POST /api/playbook/webhook/{path} with each authentication, and the stored request. */

const exec = [{ name: 'go', exec: { script: 'echo hi' } }]
const SVIX_KEY = Buffer.from('svix-signing-key-0123456789')

async function hookPlaybook(db: Db, name: string, webhook: Record<string, unknown>): Promise<string> {
  const { rows } = await db.query<{ id: string }>(`INSERT INTO playbooks (name, spec, source) VALUES ($1, $2::jsonb, 'UI') RETURNING id`, [
    name,
    JSON.stringify({ actions: exec, on: { webhook } }),
  ])
  return rows[0]!.id
}

describe('/api/playbook/webhook/{path}', () => {
  const testApp = useTestApp()
  let db: Db
  let jwks: Server
  const { privateKey, publicKey } = generateKeyPairSync('rsa', { modulusLength: 2048 })
  const { privateKey: strangerKey } = generateKeyPairSync('rsa', { modulusLength: 2048 })

  beforeAll(async () => {
    db = testApp.db
    jwks = createServer((_req, res) => {
      res.setHeader('Content-Type', 'application/json')
      res.end(JSON.stringify({ keys: [{ ...publicKey.export({ format: 'jwk' }), kid: 'k1', alg: 'RS256', use: 'sig' }] }))
    })
    await new Promise<void>((resolve) => jwks.listen(0, '127.0.0.1', resolve))
    const jwksUri = `http://127.0.0.1:${(jwks.address() as AddressInfo).port}/jwks.json`
    await hookPlaybook(db, 'hook-open', { path: 'open' })
    await hookPlaybook(db, 'hook-basic', { path: 'basic', authentication: { basic: { username: 'hook', password: { value: 'p4ss' } } } })
    await hookPlaybook(db, 'hook-github', { path: 'github', authentication: { github: { token: 'gh-secret' } } })
    await hookPlaybook(db, 'hook-svix', { path: 'svix', authentication: { svix: { secret: `whsec_${SVIX_KEY.toString('base64')}`, verifyTimestamp: '5m' } } })
    await hookPlaybook(db, 'hook-jwt', { path: 'jwt', authentication: { jwt: { jwksUri } } })
  })

  afterAll(async () => {
    await new Promise((resolve) => jwks.close(resolve))
  })

  const requestOf = async (runId: string) =>
    (await db.query<{ request: Record<string, unknown>; created_by: string | null; status: string }>('SELECT request, created_by, status FROM playbook_runs WHERE id = $1', [runId])).rows[0]!

  it('creates a run from POST and GET without a credential, storing {url, method, headers, params, content, json}', async () => {
    const posted = await request(testApp.app).post('/api/playbook/webhook/open?source=ci').set('Content-Type', 'application/json').send('{"alert":"down"}')
    expect(posted.status, posted.text).toBe(201)
    expect(Object.keys(posted.body).sort()).toEqual(['run_id', 'starts_at'])
    const stored = await requestOf(posted.body.run_id)
    expect(stored.created_by).toBeNull()
    expect(stored.status).toBe('scheduled')
    expect(stored.request).toMatchObject({ method: 'POST', params: { source: 'ci' }, content: '{"alert":"down"}', json: { alert: 'down' } })
    expect(String(stored.request.url)).toContain('/webhook/open?source=ci')
    expect((stored.request.headers as Record<string, string>)['content-type']).toBe('application/json')
    const got = await request(testApp.app).get('/api/playbook/webhook/open')
    expect(got.status).toBe(201)
    expect((await requestOf(got.body.run_id)).request).toMatchObject({ method: 'GET', content: '' })
  })

  it('404 for a path no playbook listens on', async () => {
    const response = await request(testApp.app).post('/api/playbook/webhook/nowhere').send({})
    expect(response.status).toBe(404)
    expect(response.body.error).toBe("no playbook listens on webhook path 'nowhere'")
  })

  it('basic: the right user and password pass; wrong or none are 401; the credential is not stored', async () => {
    const good = await request(testApp.app).post('/api/playbook/webhook/basic').auth('hook', 'p4ss').send({})
    expect(good.status, good.text).toBe(201)
    expect((await requestOf(good.body.run_id)).request.headers).not.toHaveProperty('authorization')
    expect((await request(testApp.app).post('/api/playbook/webhook/basic').auth('hook', 'nope').send({})).status).toBe(401)
    const none = await request(testApp.app).post('/api/playbook/webhook/basic').send({})
    expect(none.status).toBe(401)
    expect(none.body).toEqual({ error: 'basic authentication required', code: 'unauthorized' })
  })

  it('github: X-Hub-Signature-256 over the raw body', async () => {
    const body = '{"action":"opened"}'
    const signature = `sha256=${createHmac('sha256', 'gh-secret').update(body).digest('hex')}`
    const good = await request(testApp.app).post('/api/playbook/webhook/github').set('Content-Type', 'application/json').set('X-Hub-Signature-256', signature).send(body)
    expect(good.status, good.text).toBe(201)
    const tampered = await request(testApp.app).post('/api/playbook/webhook/github').set('Content-Type', 'application/json').set('X-Hub-Signature-256', signature).send('{"action":"closed"}')
    expect(tampered.status).toBe(401)
    expect(tampered.body.error).toBe('invalid X-Hub-Signature-256 signature')
    expect((await request(testApp.app).post('/api/playbook/webhook/github').send(body)).status).toBe(401)
  })

  it('svix: svix-id, svix-timestamp and svix-signature, with the timestamp window', async () => {
    const body = '{"type":"invoice.paid"}'
    const svix = (timestamp: number, key = SVIX_KEY) => {
      const signature = createHmac('sha256', key).update(`msg_1.${timestamp}.${body}`).digest('base64')
      return request(testApp.app)
        .post('/api/playbook/webhook/svix')
        .set('Content-Type', 'application/json')
        .set('svix-id', 'msg_1')
        .set('svix-timestamp', String(timestamp))
        .set('svix-signature', `v1,bogus v1,${signature}`)
        .send(body)
    }
    const now = Math.floor(Date.now() / 1000)
    expect((await svix(now)).status).toBe(201)
    const stale = await svix(now - 3600)
    expect(stale.status).toBe(401)
    expect(stale.body.error).toBe('svix-timestamp is outside the allowed window')
    const wrongKey = await svix(now, Buffer.from('another-key'))
    expect(wrongKey.status).toBe(401)
    expect(wrongKey.body.error).toBe('invalid svix-signature')
  })

  it('jwt: a bearer token signed by a key of the JWKS passes; another key, an expired token, none are 401', async () => {
    const token = (claims: Record<string, unknown>, key = privateKey) => {
      const header = Buffer.from(JSON.stringify({ alg: 'RS256', kid: 'k1', typ: 'JWT' })).toString('base64url')
      const payload = Buffer.from(JSON.stringify(claims)).toString('base64url')
      return `${header}.${payload}.${sign('sha256', Buffer.from(`${header}.${payload}`), key).toString('base64url')}`
    }
    const exp = Math.floor(Date.now() / 1000) + 600
    const good = await request(testApp.app).post('/api/playbook/webhook/jwt').set('Authorization', `Bearer ${token({ sub: 'ci', exp })}`).send({})
    expect(good.status, good.text).toBe(201)
    const stranger = await request(testApp.app).post('/api/playbook/webhook/jwt').set('Authorization', `Bearer ${token({ sub: 'ci', exp }, strangerKey)}`).send({})
    expect(stranger.status).toBe(401)
    expect(stranger.body.error).toBe('invalid token signature')
    const expired = await request(testApp.app).post('/api/playbook/webhook/jwt').set('Authorization', `Bearer ${token({ sub: 'ci', exp: exp - 1200 })}`).send({})
    expect(expired.body.error).toBe('token has expired')
    expect((await request(testApp.app).post('/api/playbook/webhook/jwt').send({})).status).toBe(401)
  })
})
