import http from 'node:http'
import type { AddressInfo } from 'node:net'
import type { AppLoadContext } from '@remix-run/node'
import { afterAll, beforeAll, describe, expect, it } from 'vitest'
import { maskConnectionUrl } from '#app/components/connections/connection-display.ts'
import { getConnection, listConnections } from '#app/lib/connections.server.ts'
import { action as connectionAction, loader as connectionLoader } from '#app/routes/_console.settings.connections_.$id.tsx'
import { loader as listLoader } from '#app/routes/_console.settings.connections.tsx'
import { bearer } from '#tests/support/test-app.ts'
import { useTestApp } from '#tests/support/use-test-app.ts'

/**
 * The connection screens' loaders and actions against the real gateway and backend on a loopback
 * port, as Remix calls them: create through a type form, edit keeping a secret shown as `***`, a
 * notification type's URL built on submit, the schema's messages on the fields, the Test button
 * probing a loopback HTTP server, and delete.
 */
describe('connection screens', () => {
  const testApp = useTestApp()
  let server: http.Server
  let probed: http.Server
  let base: string
  let probedUrl: string
  const seenAuthorization: string[] = []

  beforeAll(async () => {
    server = http.createServer((req, res) => testApp.app(req, res))
    await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve))
    base = `http://127.0.0.1:${(server.address() as AddressInfo).port}`
    probed = http.createServer((req, res) => {
      seenAuthorization.push(req.headers.authorization ?? '')
      res.writeHead(req.url === '/down' ? 503 : 200, { 'content-type': 'text/plain' })
      res.end('hello')
    })
    await new Promise<void>((resolve) => probed.listen(0, '127.0.0.1', resolve))
    probedUrl = `http://127.0.0.1:${(probed.address() as AddressInfo).port}`
  })

  afterAll(async () => {
    await new Promise<void>((resolve) => server.close(() => resolve()))
    await new Promise<void>((resolve) => probed.close(() => resolve()))
  })

  const context = () => ({ gateway: { gatewayBaseUrl: base, gatewayTimeoutMs: 10_000 }, cspNonce: 'n', publicEnv: { frontendVersion: 't', mode: 'embedded' } }) as AppLoadContext
  const get = (path: string) => ({ request: new Request(`http://console.test${path}`, { headers: bearer }), context: context(), params: {} })
  const loadArgs = (id: string, search = '') => ({ ...get(`/settings/connections/${id}${search}`), params: { id } })

  function post(id: string, fields: Record<string, string>) {
    const request = new Request(`http://console.test/settings/connections/${id}`, {
      method: 'POST',
      headers: { ...bearer, 'content-type': 'application/x-www-form-urlencoded' },
      body: new URLSearchParams(fields),
    })
    return { request, context: context(), params: { id } }
  }

  /** An action's answer: a thrown redirect or a returned `data()`. */
  async function settle(run: () => Promise<unknown>): Promise<{ status: number; location: string | null; cookie: string | null; body: unknown }> {
    let answer: unknown
    try {
      answer = await run()
    } catch (thrown) {
      answer = thrown
    }
    if (answer instanceof Response) return { status: answer.status, location: answer.headers.get('location'), cookie: answer.headers.get('set-cookie'), body: null }
    const single = answer as { data: unknown; init?: { status?: number } | null }
    return { status: single.init?.status ?? 200, location: null, cookie: null, body: single.data }
  }

  const idOf = (location: string | null) => location!.split('/').pop()!

  const httpFields = (overrides: Record<string, string> = {}) => ({
    intent: 'create',
    connectionType: 'http',
    name: 'web',
    namespace: 'default',
    url: probedUrl,
    'username.source': 'static',
    'username.value': 'ops',
    'password.source': 'static',
    'password.value': 'pa:ss@word',
    insecure_tls: 'on',
    ...overrides,
  })

  it('creates an http connection from its form, stores its secrets sealed and redirects with a toast', async () => {
    const created = await settle(() => connectionAction(post('new', httpFields())))
    expect(created.status).toBe(303)
    expect(created.location).toMatch(/^\/settings\/connections\/[0-9a-f-]{36}$/)
    expect(decodeURIComponent(created.cookie ?? '')).toContain('Connection web created successfully')
    const id = idOf(created.location)
    const stored = (await testApp.db.query<{ password: string; url: string; insecure_tls: boolean; source: string }>('SELECT password, url, insecure_tls, source FROM connections WHERE id = $1', [id])).rows[0]!
    expect(stored).toMatchObject({ url: probedUrl, insecure_tls: true, source: 'UI' })
    expect(stored.password).not.toContain('pa:ss@word')
    // The admin edits it, so the data client reads it in clear.
    expect(await getConnection(get('/'), id)).toMatchObject({ name: 'web', type: 'http', username: 'ops', password: 'pa:ss@word' })
  })

  it('refuses a second connection of the same name in the namespace on the Name field', async () => {
    const again = await settle(() => connectionAction(post('new', httpFields())))
    expect(again.status).toBe(409)
    expect((again.body as { result: { error: Record<string, string[]> } }).result.error.name).toEqual(['A connection named web already exists in namespace default'])
  })

  it('shows stored secrets as *** and keeps them when *** is posted back on edit', async () => {
    const { rows } = await listConnections(get('/'), { search: 'web', type: 'http' })
    const id = rows[0]!.id
    const loaded = await settle(() => connectionLoader(loadArgs(id)))
    const defaults = (loaded.body as { defaults: Record<string, unknown> }).defaults
    expect(defaults).toMatchObject({ name: 'web', url: probedUrl, password: { source: 'static', value: '***' }, username: { source: 'static', value: '***' }, insecure_tls: true })
    expect(JSON.stringify(loaded.body)).not.toContain('pa:ss@word')

    const saved = await settle(() =>
      connectionAction(post(id, { ...httpFields({ intent: 'save', url: `${probedUrl}/health`, 'username.value': '***', 'password.value': '***' }), connectionType: 'http' })),
    )
    expect(saved.status).toBe(303)
    expect(saved.location).toBe(`/settings/connections/${id}`)
    expect(decodeURIComponent(saved.cookie ?? '')).toContain('Connection web updated successfully')
    expect(await getConnection(get('/'), id)).toMatchObject({ url: `${probedUrl}/health`, username: 'ops', password: 'pa:ss@word' })

    // A secret switched to a Secret reference is stored as the reference, the static value dropped.
    await settle(() => connectionAction(post(id, { ...httpFields({ intent: 'save', 'username.value': '***', 'password.source': 'secret', 'password.value': '***', 'password.name': 'web-creds', 'password.key': 'password' }) })))
    expect((await getConnection(get('/'), id))?.password).toBe('secret://web-creds/password')
    const reopened = await settle(() => connectionLoader(loadArgs(id)))
    expect((reopened.body as { defaults: Record<string, unknown> }).defaults.password).toEqual({ source: 'secret', name: 'web-creds', key: 'password' })
  })

  it('puts the schema’s messages on the fields: required answers, a reference without its key, a port out of range', async () => {
    const missing = await settle(() => connectionAction(post('new', httpFields({ name: 'broken', url: '', 'password.value': '' }))))
    expect(missing.status).toBe(400)
    const errors = (missing.body as { result: { error: Record<string, string[]>; initialValue: Record<string, unknown> } }).result
    expect(errors.error.url).toEqual(['This field is required'])
    expect(errors.error['password.value']).toEqual(['This field is required'])
    // The typed secrets are not echoed back into the page.
    expect(JSON.stringify(errors.initialValue)).not.toContain('ops')

    const reference = await settle(() => connectionAction(post('new', httpFields({ name: 'ref', 'password.source': 'configmap', 'password.name': 'Bad Name', 'password.key': '' }))))
    expect((reference.body as { result: { error: Record<string, string[]> } }).result.error).toMatchObject({
      'password.name': ['Must be a lowercase name: letters, digits, "-" and "."'],
      'password.key': ['This field is required'],
    })

    const sftp = await settle(() =>
      connectionAction(post('new', { intent: 'create', connectionType: 'sftp', name: 'files', namespace: 'default', url: 'files.example', 'username.value': 'u', 'password.value': 'p', 'properties.port': '70000' })),
    )
    expect((sftp.body as { result: { error: Record<string, string[]> } }).result.error['properties.port']).toEqual(['Must be 65535 or less'])
    expect((await listConnections(get('/'), { search: '', type: null })).rows.map((row) => row.name)).toEqual(['web'])
  })

  it('builds a slack connection’s URL on submit, with a Secret source left as a placeholder, and reads it back', async () => {
    const created = await settle(() =>
      connectionAction(
        post('new', { intent: 'create', connectionType: 'slack', name: 'alerts', namespace: 'ops', channel: 'C0123ABCD', 'botToken.source': 'secret', 'botToken.name': 'slack', 'botToken.key': 'token', botName: 'lookout' }),
      ),
    )
    expect(created.status).toBe(303)
    const id = idOf(created.location)
    const row = await getConnection(get('/'), id)
    expect(row?.url).toMatch(/^slack:\/\//)
    expect(row?.url).toContain('$(secret:slack/token)')
    expect(row?.url).toContain('C0123ABCD')
    expect(row).toMatchObject({ username: null, password: null })
    const loaded = await settle(() => connectionLoader(loadArgs(id)))
    expect(loaded.body).toMatchObject({ defaults: { channel: 'C0123ABCD', botName: 'lookout', botToken: { source: 'secret', name: 'slack', key: 'token' } }, url: maskConnectionUrl(row?.url) })

    // A static token is encoded into the URL; shown as *** and posted back, it stays.
    const token = 'xoxb-123-456-abc'
    await settle(() => connectionAction(post(id, { intent: 'save', name: 'alerts', namespace: 'ops', channel: 'C0123ABCD', 'botToken.source': 'static', 'botToken.value': token })))
    const withToken = (await getConnection(get('/'), id))?.url ?? ''
    expect(withToken).toContain('C0123ABCD')
    expect(withToken).not.toContain('$(secret:')
    const masked = await settle(() => connectionLoader(loadArgs(id)))
    expect((masked.body as { defaults: Record<string, unknown> }).defaults.botToken).toEqual({ source: 'static', value: '***' })
    expect(JSON.stringify(masked.body)).not.toContain('abc')
    await settle(() => connectionAction(post(id, { intent: 'save', name: 'alerts', namespace: 'ops', channel: 'C999', 'botToken.source': 'static', 'botToken.value': '***' })))
    const rebuilt = (await getConnection(get('/'), id))?.url ?? ''
    expect(rebuilt).toBe(withToken.replace('C0123ABCD', 'C999'))

    // A part the URL cannot be built without is required.
    const noChannel = await settle(() => connectionAction(post('new', { intent: 'create', connectionType: 'slack', name: 'x', namespace: 'ops', channel: '', 'botToken.value': token })))
    expect((noChannel.body as { result: { error: Record<string, string[]> } }).result.error.channel).toEqual(['This field is required'])
  })

  it('tests a connection with its probe and shows the result: ok, then the failure', async () => {
    const created = await settle(() => connectionAction(post('new', httpFields({ name: 'probe', insecure_tls: '' }))))
    const id = idOf(created.location)
    seenAuthorization.length = 0
    const passed = await settle(() => connectionAction(post(id, { intent: 'test' })))
    expect(passed).toMatchObject({ status: 200, body: { intent: 'test', test: { ok: true, message: 'ok' } } })
    expect(seenAuthorization).toEqual([`Basic ${Buffer.from('ops:pa:ss@word').toString('base64')}`])

    await testApp.db.query('UPDATE connections SET url = $1 WHERE id = $2', [`${probedUrl}/down`, id])
    const failed = await settle(() => connectionAction(post(id, { intent: 'test' })))
    expect(failed.status).toBe(200)
    expect(failed.body).toMatchObject({ intent: 'test', test: { ok: false } })
    expect((failed.body as { test: { message: string } }).test.message).toMatch(/503/)
  })

  it('lists by name with search and type filters from the URL, and deletes with a toast', async () => {
    const list = await settle(() => listLoader(get('/settings/connections?type=http&search=pro')))
    expect((list.body as { rows: { name: string }[] }).rows.map((row) => row.name)).toEqual(['probe'])
    const all = await settle(() => listLoader(get('/settings/connections?type=nonsense')))
    expect((all.body as { rows: { name: string }[]; params: unknown }).rows.map((row) => row.name)).toEqual(['alerts', 'probe', 'web'])
    expect((all.body as { params: unknown }).params).toEqual({ search: '', type: null })

    const probe = (all.body as { rows: { id: string; name: string }[] }).rows.find((row) => row.name === 'probe')!
    const deleted = await settle(() => connectionAction(post(probe.id, { intent: 'delete' })))
    expect(deleted).toMatchObject({ status: 303, location: '/settings/connections' })
    expect(decodeURIComponent(deleted.cookie ?? '')).toContain('Connection probe deleted successfully')
    expect((await testApp.db.query('SELECT deleted_at FROM connections WHERE id = $1', [probe.id])).rows[0]?.deleted_at).not.toBeNull()
    expect(await getConnection(get('/'), probe.id)).toBeNull()
    const missing = await settle(() => connectionLoader(loadArgs(probe.id)))
    expect(missing.status).toBe(404)
  })

  it('masks the secrets of a URL for the list', () => {
    expect(maskConnectionUrl('postgres://app:s3cret@db:5432/app')).toBe('postgres://app:***@db:5432/app')
    expect(maskConnectionUrl('slack://xoxb:123-abc@C0123')).toBe('slack://xoxb:***@C0123')
    expect(maskConnectionUrl('discord://tok3n@12345')).toBe('discord://***@12345')
    expect(maskConnectionUrl('googlechat://chat.googleapis.com/v1/spaces/x/messages?key=k1&token=t1')).toBe('googlechat://chat.googleapis.com/v1/spaces/x/messages?key=***&token=***')
    expect(maskConnectionUrl('https://example.org/')).toBe('https://example.org/')
  })
})
