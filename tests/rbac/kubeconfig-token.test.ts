import request from 'supertest'
import { parse } from 'yaml'
import { beforeAll, describe, expect, it } from 'vitest'
import type { Express } from 'express'
import type { Db } from '#server/db/client.ts'
import { sha256 } from '#server/backend/identity/credentials.ts'
import { issuePersonToken, KUBECONFIG_TOKEN_NAME } from '#server/backend/rbac/access-tokens.ts'
import { useTestApp } from '#tests/support/use-test-app.ts'
import { personWith } from './rbac-fixture.ts'

type Person = Awaited<ReturnType<typeof personWith>>

/** The secret inside a downloaded kubeconfig file. */
function passwordOf(text: string): string {
  const config = parse(text) as { users: { user: { password: string } }[] }
  return config.users[0]!.user.password
}

describe('kubeconfig downloads keep one token per person', () => {
  const testApp = useTestApp()
  let db: Db
  let app: Express
  let editor: Person

  async function kubeconfigTokens(personId: string): Promise<{ id: string; name: string; value: string; expires_at: Date | null }[]> {
    const { rows } = await db.query<{
      id: string
      name: string
      value: string
      expires_at: Date | null
    }>(`SELECT id, name, value, expires_at FROM access_tokens WHERE person_id = $1 AND name LIKE 'kubeconfig%' ORDER BY created_at`, [personId])
    return rows
  }

  async function download(person: Person) {
    const response = await request(app).get('/api/kubeconfig').set(person.headers)
    expect(response.status).toBe(200)
    return passwordOf(response.text)
  }

  beforeAll(async () => {
    db = testApp.db
    app = testApp.app
    editor = await personWith(db, ['editor'])
  })

  it('two downloads leave exactly one kubeconfig token, the second; the first stops working', async () => {
    const first = await download(editor)
    const second = await download(editor)
    expect(second).not.toBe(first)

    const tokens = await kubeconfigTokens(editor.id)
    expect(tokens).toEqual([
      {
        id: expect.any(String),
        name: KUBECONFIG_TOKEN_NAME,
        value: sha256(second),
        expires_at: null,
      },
    ])
    expect((await request(app).get('/api/auth/whoami').set('Authorization', `Bearer ${first}`)).status).toBe(401)
    const whoami = await request(app).get('/api/auth/whoami').set('Authorization', `Bearer ${second}`)
    expect(whoami.status).toBe(200)
    expect(whoami.body.payload.user.id).toBe(editor.id)
    // The person's other credentials are theirs to keep.
    expect((await request(app).get('/api/auth/whoami').set(editor.headers)).status).toBe(200)
  })

  it("revokes the tokens older downloads left behind, and only the person's own", async () => {
    const person = await personWith(db, ['editor'])
    const other = await personWith(db, ['editor'])
    await issuePersonToken(db, {
      personId: person.id,
      name: 'kubeconfig-20260101T000000-abc123',
    })
    await issuePersonToken(db, {
      personId: person.id,
      name: 'kubeconfig-20260102T000000-def456',
    })
    await download(other)
    // A scoped token its owner chose to call "kubeconfig" acts as a person of its own: not touched.
    const scoped = await request(app).post('/api/auth/create_token').set(person.headers).send({ name: KUBECONFIG_TOKEN_NAME, expiry: '1d' })
    expect(scoped.status).toBe(200)

    const password = await download(person)
    expect(await kubeconfigTokens(person.id)).toEqual([
      {
        id: expect.any(String),
        name: KUBECONFIG_TOKEN_NAME,
        value: sha256(password),
        expires_at: null,
      },
    ])
    expect(await kubeconfigTokens(other.id)).toHaveLength(1)
    expect(
      (
        await request(app)
          .get('/api/auth/whoami')
          .set('Authorization', `Bearer ${scoped.body.payload.token as string}`)
      ).status,
    ).toBe(200)
  })

  it('two downloads at once still leave one token', async () => {
    const person = await personWith(db, ['editor'])
    const passwords = await Promise.all([download(person), download(person)])
    const tokens = await kubeconfigTokens(person.id)
    expect(tokens).toHaveLength(1)
    expect(passwords.map(sha256)).toContain(tokens[0]!.value)
  })
})

describe('the kubeconfig names the host the caller used', () => {
  const direct = useTestApp()
  const proxied = useTestApp({ LOOKOUT_TRUST_PROXY: 'true' })

  async function fileNameAndServer(app: Express, db: Db, headers: Record<string, string>) {
    const person = await personWith(db, ['editor'])
    const response = await request(app).get('/api/kubeconfig').set(person.headers).set(headers)
    expect(response.status).toBe(200)
    const config = parse(response.text) as {
      clusters: { cluster: { server: string } }[]
    }
    return {
      disposition: response.headers['content-disposition'],
      server: config.clusters[0]!.cluster.server,
    }
  }

  it('ignores X-Forwarded-Host from a caller it does not trust', async () => {
    expect(
      await fileNameAndServer(direct.app, direct.db, {
        Host: 'demo.flanksource.com',
        'X-Forwarded-Host': 'evil.example',
      }),
    ).toEqual({
      disposition: 'attachment; filename=demo-kubeconfig.yaml',
      server: 'http://demo.flanksource.com/kubeproxy',
    })
  })

  it('follows a trusted proxy (LOOKOUT_TRUST_PROXY) to the public host and protocol', async () => {
    const headers = {
      Host: '127.0.0.1:3000',
      'X-Forwarded-Host': 'ops.example.org',
      'X-Forwarded-Proto': 'https',
    }
    expect(await fileNameAndServer(proxied.app, proxied.db, headers)).toEqual({
      disposition: 'attachment; filename=ops.example.org-kubeconfig.yaml',
      server: 'https://ops.example.org/kubeproxy',
    })
  })
})
