import request from 'supertest'
import { describe, expect, it } from 'vitest'
import { buildNotificationUrl } from '#contract/connections/notification-url.ts'
import { maskUrl, sealUrl, openUrl, urlSecrets } from '#server/backend/connections/connection-secrets.ts'
import { findOpenedConnection } from '#server/backend/connections/connection-lookup.ts'
import { useTestApp } from '#tests/support/use-test-app.ts'
import { bearer } from '#tests/support/test-app.ts'
import { personWith } from '#tests/rbac/rbac-fixture.ts'

/** Connection secrets at rest (issue 17 item 1): sealed by the data API, masked for readers who may not edit. */

type RawRow = { id: string; url: string | null; username: string | null; password: string | null; certificate: string | null; properties: Record<string, string> | null }

const CERTIFICATE = '-----BEGIN OPENSSH PRIVATE KEY-----\nb3BlbnNzaC1rZXktdjEAAAAA\n-----END OPENSSH PRIVATE KEY-----'

describe('connection secrets', () => {
  const testApp = useTestApp()

  async function create(row: Record<string, unknown>): Promise<string> {
    const response = await request(testApp.app).post('/api/db/connections').set(bearer).set('Prefer', 'return=representation').send({ namespace: 'default', ...row })
    expect(response.status, JSON.stringify(response.body)).toBe(201)
    return (response.body as { id: string }[])[0]!.id
  }

  async function raw(id: string): Promise<RawRow> {
    const { rows } = await testApp.db.query<RawRow>('SELECT id, url, username, password, certificate, properties FROM connections WHERE id = $1', [id])
    return rows[0]!
  }

  it('stores password, certificate, secret properties and the secrets of the URL sealed', async () => {
    const id = await create({
      name: 'restic-backup',
      type: 'restic',
      url: 's3:https://backup:url-s3cret@s3.example.test/bucket?token=query-s3cret&region=eu',
      username: 'backup',
      password: 'restic-s3cret',
      certificate: CERTIFICATE,
      properties: { awsConnectionName: 'aws', accessKey: 'AKIAEXAMPLE', secretKey: 'aws-s3cret' },
    })
    const row = await raw(id)
    const text = JSON.stringify(row)
    for (const secret of ['url-s3cret', 'query-s3cret', 'restic-s3cret', 'OPENSSH', 'AKIAEXAMPLE', 'aws-s3cret']) expect(text).not.toContain(secret)
    expect(row.password).toMatch(/^lookout:enc:v1:(env|db):/)
    expect(row.certificate).toMatch(/^lookout:enc:v1:/)
    expect(row.properties!.secretKey).toMatch(/^lookout:enc:v1:/)
    expect(row.properties!.awsConnectionName).toBe('aws')
    // The URL keeps its shape: only the secret parts are tokens.
    expect(row.url).toMatch(/^s3:https:\/\/backup:lookout~enc~v1~(env|db)~[A-Za-z0-9_-]+~@s3\.example\.test\/bucket\?token=lookout~enc~v1~.+~&region=eu$/)
    expect(row.username).toBe('backup')
  })

  it('opens the values for a caller who may edit the connection and masks them for a reader who may not', async () => {
    const id = await create({ name: 'pg-main', type: 'postgres', url: 'postgres://app:url-pass@db.example.test:5432/app', username: 'app', password: 'pg-s3cret', certificate: CERTIFICATE })
    const asAdmin = await request(testApp.app).get(`/api/db/connections?id=eq.${id}&select=id,name,type,url,username,password,certificate`).set(bearer)
    expect(asAdmin.status).toBe(200)
    expect(asAdmin.body).toEqual([{ id, name: 'pg-main', type: 'postgres', url: 'postgres://app:url-pass@db.example.test:5432/app', username: 'app', password: 'pg-s3cret', certificate: CERTIFICATE }])

    // Editors read connections but do not write them (role matrix, spec 002 §6).
    const editor = await personWith(testApp.db, ['editor'], 'secrets-editor')
    const asEditor = await request(testApp.app).get(`/api/db/connections?id=eq.${id}`).set(editor.headers)
    expect(asEditor.status).toBe(200)
    const [masked] = asEditor.body as Record<string, unknown>[]
    expect(masked).toMatchObject({ id, url: 'postgres://app:***@db.example.test:5432/app', username: '***', password: '***', certificate: '***' })
    expect(JSON.stringify(asEditor.body)).not.toMatch(/pg-s3cret|url-pass|lookout:enc|lookout~enc/)

    const single = await request(testApp.app).get(`/api/db/connections?id=eq.${id}&select=password`).set(editor.headers).set('Accept', 'application/vnd.pgrst.object+json')
    expect(single.body).toEqual({ password: '***' })

    const viewer = await personWith(testApp.db, ['viewer'], 'secrets-viewer')
    expect((await request(testApp.app).get(`/api/db/connections?id=eq.${id}`).set(viewer.headers)).status).toBe(403)

    const details = await request(testApp.app).get(`/api/db/connection_details?id=eq.${id}&select=password,certificate`).set(editor.headers)
    expect(details.body).toEqual([{ password: '***', certificate: '***' }])
  })

  it('keeps the stored secrets when the masked values are sent back', async () => {
    const id = await create({ name: 'mask-roundtrip', type: 'restic', url: 'rest:https://user:rest-pass@repo.example.test/', password: 'p1', properties: { accessKey: 'ak-1', region: 'eu' } })
    const before = await raw(id)
    const masked = await request(testApp.app).get(`/api/db/connections?id=eq.${id}&select=url,password,properties`).set(bearer).set('Accept', 'application/vnd.pgrst.object+json')
    expect(masked.body.password).toBe('p1')
    const patch = await request(testApp.app)
      .patch(`/api/db/connections?id=eq.${id}`)
      .set(bearer)
      .send({ url: maskUrl(before.url!, 'restic'), password: '***', properties: { accessKey: '***', region: 'us' } })
    expect(patch.status, JSON.stringify(patch.body)).toBe(204)
    const after = await raw(id)
    expect(after.url).toBe(before.url)
    expect(after.password).toBe(before.password)
    expect(after.properties).toEqual({ accessKey: before.properties!.accessKey, region: 'us' })
    const opened = await findOpenedConnection(testApp.db, id, 'default')
    expect(opened).toMatchObject({ url: 'rest:https://user:rest-pass@repo.example.test/', password: 'p1', properties: { accessKey: 'ak-1', region: 'us' } })
  })

  it('gives the server its own users the decrypted connection (findConnection round trip)', async () => {
    await create({ name: 'slack-alerts', namespace: 'ops', type: 'slack', url: buildNotificationUrl('slack', { channel: 'C0123', botToken: { value: 'xoxb-123-abc' } }), certificate: CERTIFICATE })
    const { rows } = await testApp.db.query<{ url: string; category: string }>(
      `SELECT c.url, l.category FROM connections c JOIN connections_list l USING (id) WHERE c.name = 'slack-alerts'`,
    )
    expect(rows[0]!.url).not.toContain('123-abc')
    // The scheme stays readable, so the list still files it under notifications.
    expect(rows[0]!.category).toBe('notification')
    const opened = await findOpenedConnection(testApp.db, 'connection://ops/slack-alerts', 'default')
    expect(opened).toMatchObject({ name: 'slack-alerts', namespace: 'ops', type: 'slack', url: buildNotificationUrl('slack', { channel: 'C0123', botToken: { value: 'xoxb-123-abc' } }), certificate: CERTIFICATE })
    expect(await findOpenedConnection(testApp.db, 'connection://ops/nothing', 'default')).toBeNull()
  })

  it('stores Secret and Config Map references as written; resolving them needs Kubernetes', async () => {
    const id = await create({ name: 'k8s-ref', type: 'postgres', url: 'postgres://db.example.test/app', username: 'configmap://pg/user', password: 'secret://pg-creds/password' })
    const row = await raw(id)
    expect(row.password).toBe('secret://pg-creds/password')
    expect(row.username).toBe('configmap://pg/user')
    const editor = await personWith(testApp.db, ['editor'], 'ref-editor')
    const shown = await request(testApp.app).get(`/api/db/connections?id=eq.${id}&select=username,password`).set(editor.headers)
    expect(shown.body).toEqual([{ username: 'configmap://pg/user', password: 'secret://pg-creds/password' }])
    const lookup = findOpenedConnection(testApp.db, id, 'default')
    await expect(lookup).rejects.toThrow(/needs Kubernetes/)
  })

  it('seals and opens URL secrets of each notification format', async () => {
    const urls: [string, string, string][] = [
      ['email', buildNotificationUrl('email', { host: 'smtp.example.test', port: 587, username: { value: 'mailer' }, password: { value: 'p@ss:w/rd' }, fromAddress: 'a@example.test', fromName: 'A' }), 'p%40ss%3Aw%2Frd'],
      ['discord', buildNotificationUrl('discord', { webhookId: '12345', token: { value: 'discord-tok' } }), 'discord-tok'],
      ['telegram', buildNotificationUrl('telegram', { token: { value: '110201543:AAHdqTcv' }, chats: '@alerts' }), 'AAHdqTcv'],
      ['google_chat', buildNotificationUrl('google_chat', { webhookName: 'AAAA', key: { value: 'gkey-1' }, token: { value: 'gtok-2' } }), 'gtok-2'],
    ]
    for (const [type, url, secret] of urls) {
      expect(urlSecrets(url, type).length, type).toBeGreaterThan(0)
      const sealed = await sealUrl(testApp.db, url, type)
      expect(sealed, type).not.toContain(secret)
      expect(sealed.split('://')[0]).toBe(url.split('://')[0])
      expect(await openUrl(testApp.db, sealed)).toBe(url)
      expect(maskUrl(sealed, type)).not.toContain(secret)
    }
  })
})
