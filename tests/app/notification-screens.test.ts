import http from 'node:http'
import type { AddressInfo } from 'node:net'
import { getZodConstraint } from '@conform-to/zod'
import type { AppLoadContext } from '@remix-run/node'
import { afterAll, beforeAll, describe, expect, it } from 'vitest'
import { NotificationRuleFormSchema, SilenceFormSchema } from '#app/lib/notification-forms.ts'
import { NotificationRuleShape, SilenceShape } from '#app/lib/notification-form-shapes.ts'
import { loader as summaryLoader } from '#app/routes/_console.notifications._index.tsx'
import { loader as resourceLoader } from '#app/routes/_console.notifications.resource.$resourceId.tsx'
import { action as rulesAction, loader as rulesLoader } from '#app/routes/_console.notifications.rules.tsx'
import { action as ruleAction, loader as ruleLoader } from '#app/routes/_console.notifications.rules_.$id.tsx'
import { action as editSilenceAction, loader as editSilenceLoader } from '#app/routes/_console.notifications.silences.$id.tsx'
import { action as silencesAction, loader as silencesLoader } from '#app/routes/_console.notifications.silences._index.tsx'
import { action as addSilenceAction, loader as addSilenceLoader } from '#app/routes/_console.notifications.silences.add.tsx'
import { bearer } from '#tests/support/test-app.ts'
import { useTestApp } from '#tests/support/use-test-app.ts'

/**
 * The notification screens' loaders and actions against the real gateway and backend on a
 * loopback port, as Remix calls them: the per-resource summary and one resource's send history,
 * rules written through the editor (form fields and YAML) and enabled/disabled, silences added
 * with 'Indefinitely', previewed, edited and ended, and the schema's messages on the fields.
 */
describe('notification screens', () => {
  const testApp = useTestApp()
  let server: http.Server
  let base: string
  const ids = { canary: '', check: '', otherCheck: '', person: '', team: '' }

  beforeAll(async () => {
    server = http.createServer((req, res) => testApp.app(req, res))
    await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve))
    base = `http://127.0.0.1:${(server.address() as AddressInfo).port}`
    const db = testApp.db
    const one = async (sql: string, values: unknown[]) => (await db.query<{ id: string }>(sql, values)).rows[0]!.id
    ids.person = await one(`INSERT INTO people (name, email) VALUES ('On Call', 'oncall@example.org') RETURNING id`, [])
    ids.team = await one(`INSERT INTO teams (name, created_by) VALUES ('platform', $1) RETURNING id`, [ids.person])
    ids.canary = await one(`INSERT INTO canaries (name, namespace, spec, source) VALUES ('web', 'default', '{}', 'Demo') RETURNING id`, [])
    ids.check = await one(`INSERT INTO checks (canary_id, type, name, status) VALUES ($1, 'http', 'homepage', 'unhealthy') RETURNING id`, [ids.canary])
    ids.otherCheck = await one(`INSERT INTO checks (canary_id, type, name, status) VALUES ($1, 'http', 'login-page', 'healthy') RETURNING id`, [ids.canary])
    const rule = await one(`INSERT INTO notifications (name, namespace, events, person_id, source) VALUES ('seeded', 'default', '{check.failed}', $1, 'UI') RETURNING id`, [ids.person])
    const send = `INSERT INTO notification_send_history (notification_id, status, source_event, resource_id, body, person_id, error, created_at)
      VALUES ($1, $2, 'check.failed', $3, $4, $5, $6, now() - $7::interval) RETURNING id`
    await one(send, [rule, 'sent', ids.check, 'homepage is failing: 503 Service Unavailable', ids.person, null, '2 hours'])
    await one(send, [rule, 'error', ids.check, null, ids.person, 'smtp: 550 mailbox unavailable', '1 hour'])
    await one(send, [rule, 'silenced', ids.check, null, ids.person, null, '30 minutes'])
    await one(send, [rule, 'sent', ids.otherCheck, 'login-page is failing', ids.person, null, '10 minutes'])
  })

  afterAll(async () => {
    await new Promise<void>((resolve) => server.close(() => resolve()))
  })

  const context = () => ({ gateway: { gatewayBaseUrl: base, gatewayTimeoutMs: 10_000 }, cspNonce: 'n', publicEnv: { frontendVersion: 't', mode: 'embedded' } }) as AppLoadContext
  const get = (path: string, params: Record<string, string> = {}) => ({ request: new Request(`http://console.test${path}`, { headers: bearer }), context: context(), params })
  function post(path: string, fields: Array<[string, string]> | Record<string, string>, params: Record<string, string> = {}) {
    const request = new Request(`http://console.test${path}`, {
      method: 'POST',
      headers: { ...bearer, 'content-type': 'application/x-www-form-urlencoded' },
      body: new URLSearchParams(fields),
    })
    return { request, context: context(), params }
  }

  /** A loader's or action's answer: a thrown redirect or Response, or a returned `data()`. */
  // The answers are read deep and differ per route; the assertions check their shapes.
  // eslint-disable-next-line @typescript-eslint/no-explicit-any
  async function settle(run: () => Promise<unknown>): Promise<{ status: number; location: string | null; cookie: string | null; body: any }> {
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

  it('keeps the pages’ form shapes equal to the schemas the actions parse with (decision 016)', () => {
    const rendered = (constraint: unknown) => JSON.parse(JSON.stringify(constraint))
    expect(NotificationRuleShape.constraint).toEqual(rendered(getZodConstraint(NotificationRuleFormSchema)))
    expect(SilenceShape.constraint).toEqual(rendered(getZodConstraint(SilenceFormSchema)))
  })

  it('summarizes notifications by resource with the sent, error and suppressed counts, filters and paging from the URL', async () => {
    const all = await settle(() => summaryLoader(get('/notifications')))
    expect(all.status).toBe(200)
    const homepage = all.body.rows.find((row: { resource: { id: string } }) => row.resource.id === ids.check)
    expect(homepage).toMatchObject({ resource: { name: 'homepage' }, resource_kind: 'check', sent: 1, error: 1, suppressed: 1, total: 3 })
    expect(all.body.total).toBe(2)

    const searched = await settle(() => summaryLoader(get('/notifications?search=login&pageSize=nonsense&page=-3')))
    expect(searched.body.rows.map((row: { resource: { name: string } }) => row.resource.name)).toEqual(['login-page'])
    expect(searched.body.params).toMatchObject({ search: 'login', page: 1, pageSize: 50, status: null })
    const paged = await settle(() => summaryLoader(get('/notifications?pageSize=25&page=2')))
    expect(paged.body.rows).toEqual([])
    expect(paged.body.total).toBe(2)
  })

  it('shows one resource’s send history with each status, and one send’s rendered body', async () => {
    const history = await settle(() => resourceLoader(get(`/notifications/resource/${ids.check}`, { resourceId: ids.check })))
    expect(history.body.rows.map((row: { status: string }) => row.status)).toEqual(['silenced', 'error', 'sent'])
    expect(history.body.rows[0]).toMatchObject({ rule: 'default/seeded', recipient: 'person oncall@example.org' })
    expect(history.body.title).toBe('Notifications / homepage')
    const sent = history.body.rows[2]
    const opened = await settle(() => resourceLoader(get(`/notifications/resource/${ids.check}?send=${sent.id}`, { resourceId: ids.check })))
    expect(opened.body.detail).toMatchObject({ id: sent.id, status: 'sent', body: 'homepage is failing: 503 Service Unavailable', rule: 'default/seeded' })
    const onlyErrors = await settle(() => resourceLoader(get(`/notifications/resource/${ids.check}?status=error`, { resourceId: ids.check })))
    expect(onlyErrors.body.rows.map((row: { error: string }) => row.error)).toEqual(['smtp: 550 mailbox unavailable'])
    // Another resource's send is not shown under this one.
    const other = await settle(() => resourceLoader(get(`/notifications/resource/${ids.otherCheck}?send=${sent.id}`, { resourceId: ids.otherCheck })))
    expect(other.body).toMatchObject({ detail: null, detailMissing: true })
  })

  const ruleFields = (overrides: Record<string, string> = {}) => ({
    intent: 'save',
    name: 'failing-http',
    namespace: 'default',
    title: '{{.check.name}} is failing',
    filter: "check.type == 'http'",
    repeatInterval: '1h',
    recipientKind: 'person',
    recipient: 'oncall@example.org',
    spec: 'waitFor: 5m\ngroupBy: [type]\nfallback:\n  team: platform\n  delay: 10m\n',
    ...overrides,
  })
  const withEvents = (fields: Record<string, string>, events: string[]) => [...Object.entries(fields), ...events.map((event) => ['events', event] as [string, string])]

  it('saves a rule from the form and its YAML, with the spec’s toast, and opens it as the same spec', async () => {
    const created = await settle(() => ruleAction(post('/notifications/rules/new', withEvents(ruleFields(), ['check.failed', 'check.passed']), { id: 'new' })))
    expect(created).toMatchObject({ status: 303, location: '/notifications/rules' })
    expect(decodeURIComponent(created.cookie ?? '')).toContain('Notification created successfully')
    const row = (await testApp.db.query<Record<string, unknown> & { id: string }>('SELECT * FROM notifications WHERE name = $1', ['failing-http'])).rows[0]!
    expect(row).toMatchObject({
      namespace: 'default',
      events: ['check.failed', 'check.passed'],
      title: '{{.check.name}} is failing',
      filter: "check.type == 'http'",
      repeat_interval: '1h',
      person_id: ids.person,
      fallback_team_id: ids.team,
      group_by: ['type'],
      source: 'UI',
    })
    expect(Number(row.wait_for)).toBe(5 * 60 * 1e9)
    expect(Number(row.fallback_delay)).toBe(10 * 60 * 1e9)

    const opened = await settle(() => ruleLoader(get(`/notifications/rules/${row.id}`, { id: row.id })))
    expect(opened.body.values).toMatchObject({ name: 'failing-http', events: ['check.failed', 'check.passed'], recipientKind: 'person', recipient: 'oncall@example.org', repeatInterval: '1h' })
    expect(opened.body.values.spec).toContain('waitFor: 5m')
    expect(opened.body.values.spec).toContain('team: platform')

    // Saved again with a Shoutrrr URL instead of the person: "Notification updated successfully".
    const updated = await settle(() => ruleAction(post(`/notifications/rules/${row.id}`, withEvents(ruleFields({ recipientKind: 'url', recipient: 'generic+http://127.0.0.1:9/hook' }), ['check.failed']), { id: row.id })))
    expect(updated).toMatchObject({ status: 303, location: '/notifications/rules' })
    expect(decodeURIComponent(updated.cookie ?? '')).toContain('Notification updated successfully')
    const saved = (await testApp.db.query('SELECT person_id, custom_services, events FROM notifications WHERE id = $1', [row.id])).rows[0]!
    expect(saved).toMatchObject({ person_id: null, events: ['check.failed'], custom_services: [{ name: 'url', url: 'generic+http://127.0.0.1:9/hook' }] })

    // The spec's link /notifications/rules?id={id} opens the editor.
    const link = await settle(() => rulesLoader(get(`/notifications/rules?id=${row.id}`)))
    expect(link).toMatchObject({ status: 302, location: `/notifications/rules/${row.id}` })
  })

  it('puts the editor’s refusals on their fields: no event, unknown person, bad YAML, a name taken', async () => {
    const none = await settle(() => ruleAction(post('/notifications/rules/new', ruleFields({ name: 'no-events' }), { id: 'new' })))
    expect(none.status).toBe(400)
    expect(none.body.result.error.events).toEqual(['Choose at least one event.'])

    const stranger = await settle(() => ruleAction(post('/notifications/rules/new', withEvents(ruleFields({ name: 'stranger', recipient: 'nobody@example.org', spec: '' }), ['check.failed']), { id: 'new' })))
    expect(stranger.body.result.error.recipient).toEqual(['to.person: no person "nobody@example.org" was found'])

    const badYaml = await settle(() => ruleAction(post('/notifications/rules/new', withEvents(ruleFields({ name: 'bad-yaml', spec: 'waitFor: [unclosed' }), ['check.failed']), { id: 'new' })))
    expect(badYaml.body.result.error.spec?.[0]).toMatch(/Invalid|flow|unclosed|Missing/i)
    const badDuration = await settle(() => ruleAction(post('/notifications/rules/new', withEvents(ruleFields({ name: 'bad-duration', spec: 'waitFor: soon' }), ['check.failed']), { id: 'new' })))
    expect(badDuration.body.result.error.spec).toEqual(['waitFor: "soon" is not a duration such as 30s, 5m or 1h'])

    const badName = await settle(() => ruleAction(post('/notifications/rules/new', withEvents(ruleFields({ name: 'Bad Name' }), ['check.failed']), { id: 'new' })))
    expect(badName.body.result.error.name?.[0]).toMatch(/lower-case/)

    const taken = await settle(() => ruleAction(post('/notifications/rules/new', withEvents(ruleFields({ name: 'seeded' }), ['check.failed']), { id: 'new' })))
    expect(taken.status).toBe(409)
    expect(taken.body.result.error.name).toEqual(['A notification named seeded already exists in namespace default'])
    expect((await testApp.db.query(`SELECT count(*)::int AS n FROM notifications WHERE name IN ('no-events', 'stranger', 'bad-yaml', 'bad-duration')`)).rows[0]!.n).toBe(0)
  })

  it('lists rules by name with events, recipients and the last error, and disables and enables one', async () => {
    await testApp.db.query(`UPDATE notifications SET error = 'smtp: connection refused', error_at = now() WHERE name = 'seeded'`)
    const list = await settle(() => rulesLoader(get('/notifications/rules')))
    expect(list.body.rows.map((row: { name: string }) => row.name)).toEqual(['failing-http', 'seeded'])
    const seeded = list.body.rows[1]
    expect(seeded).toMatchObject({ events: ['check.failed'], recipients: ['person: oncall@example.org'], error: 'smtp: connection refused', enabled: true })

    const disabled = await settle(() => rulesAction(post('/notifications/rules', { intent: 'disable', id: seeded.id })))
    expect(disabled).toMatchObject({ status: 303, location: '/notifications/rules' })
    expect(decodeURIComponent(disabled.cookie ?? '')).toContain('Notification updated successfully')
    // The delivery pipeline matches live rules only.
    expect((await testApp.db.query(`SELECT count(*)::int AS n FROM notifications WHERE deleted_at IS NULL AND 'check.failed' = ANY(events) AND id = $1`, [seeded.id])).rows[0]!.n).toBe(0)
    const afterDisable = await settle(() => rulesLoader(get('/notifications/rules')))
    expect(afterDisable.body.rows.find((row: { id: string }) => row.id === seeded.id).enabled).toBe(false)

    const enabled = await settle(() => rulesAction(post('/notifications/rules', { intent: 'enable', id: seeded.id })))
    expect(enabled.status).toBe(303)
    const afterEnable = await settle(() => rulesLoader(get('/notifications/rules')))
    expect(afterEnable.body.rows.find((row: { id: string }) => row.id === seeded.id).enabled).toBe(true)
    const unknown = await settle(() => rulesAction(post('/notifications/rules', { intent: 'disable', id: '00000000-0000-0000-0000-000000000001' })))
    expect(unknown.status).toBe(404)
  })

  const silenceFields = (overrides: Record<string, string> = {}) => ({ intent: 'save', resource: `check:${ids.check}`, description: 'maintenance', from: '', until: '', filter: '', ...overrides })

  it('adds a silence with Indefinitely (until null), lists it as indefinite, and refuses a missing Until or resource inline', async () => {
    const page = await settle(() => addSilenceLoader(get(`/notifications/silences/add?resource=check:${ids.check}&q=home`)))
    expect(page.body.values.resource).toBe(`check:${ids.check}`)
    expect(page.body.resources.map((option: { label: string }) => option.label)).toEqual(['homepage (http)'])

    const noUntil = await settle(() => addSilenceAction(post('/notifications/silences/add', silenceFields())))
    expect(noUntil.status).toBe(400)
    expect(noUntil.body.result.error.until).toEqual(['Enter when the silence ends, or choose Indefinitely.'])
    const nothing = await settle(() => addSilenceAction(post('/notifications/silences/add', silenceFields({ resource: '', indefinitely: 'on' }))))
    expect(nothing.body.result.error.resource).toEqual(['Choose a resource or write a filter.'])
    const badFilter = await settle(() => addSilenceAction(post('/notifications/silences/add', silenceFields({ indefinitely: 'on', filter: 'check.type ==' }))))
    expect(badFilter.status).toBe(400)
    expect(badFilter.body.result.error.filter?.[0]).toMatch(/^invalid filter/)

    const created = await settle(() => addSilenceAction(post('/notifications/silences/add', silenceFields({ indefinitely: 'on', until: '2030-01-01T00:00', recursive: 'on' }))))
    expect(created).toMatchObject({ status: 303, location: '/notifications/silences' })
    const stored = (await testApp.db.query('SELECT until, recursive, check_id, source FROM notification_silences WHERE description = $1', ['maintenance'])).rows
    expect(stored).toEqual([{ until: null, recursive: true, check_id: ids.check, source: 'UI' }])

    const list = await settle(() => silencesLoader(get('/notifications/silences?state=indefinite')))
    expect(list.body.rows).toHaveLength(1)
    expect(list.body.rows[0]).toMatchObject({ resource: 'homepage (http)', description: 'maintenance', until: null, state: 'indefinite', recursive: true })
    expect((await settle(() => silencesLoader(get('/notifications/silences?state=expired')))).body.rows).toEqual([])
    expect((await settle(() => silencesLoader(get('/notifications/silences?search=mainten')))).body.rows).toHaveLength(1)
    expect((await settle(() => silencesLoader(get('/notifications/silences?search=nothing,(like)*this')))).body.rows).toEqual([])
  })

  it('previews a silence’s filter against recent notifications, keeping the form’s answers', async () => {
    const preview = await settle(() => addSilenceAction(post('/notifications/silences/add', silenceFields({ intent: 'preview', resource: '', filter: "check.name == 'login-page'", description: 'kept' }))))
    expect(preview.status).toBe(200)
    expect(preview.body.preview).toMatchObject({ ok: true })
    expect(preview.body.preview.rows.map((row: { resource_id: string; status: string }) => [row.resource_id, row.status])).toEqual([[ids.otherCheck, 'sent']])
    expect(preview.body.result.initialValue).toMatchObject({ description: 'kept', filter: "check.name == 'login-page'" })
    const refused = await settle(() => addSilenceAction(post('/notifications/silences/add', silenceFields({ intent: 'preview', resource: '', filter: 'check.name ==' }))))
    expect(refused.body.preview).toMatchObject({ ok: false })
    expect(refused.body.preview.message).toMatch(/^invalid filter/)
  })

  it('edits a silence to end at a time, then ends it from the list', async () => {
    const id = (await testApp.db.query<{ id: string }>('SELECT id FROM notification_silences WHERE description = $1', ['maintenance'])).rows[0]!.id
    const opened = await settle(() => editSilenceLoader(get(`/notifications/silences/${id}`, { id })))
    expect(opened.body.values).toMatchObject({ resource: `check:${ids.check}`, indefinitely: true, recursive: true, description: 'maintenance' })

    const later = new Date(Date.now() + 3 * 3_600_000).toISOString().slice(0, 16)
    const saved = await settle(() => editSilenceAction(post(`/notifications/silences/${id}`, silenceFields({ until: later, from: opened.body.values.from, description: 'maintenance window' }), { id })))
    expect(saved).toMatchObject({ status: 303, location: '/notifications/silences' })
    expect(decodeURIComponent(saved.cookie ?? '')).toContain('Silence updated successfully')
    const active = await settle(() => silencesLoader(get('/notifications/silences?state=active')))
    expect(active.body.rows.map((row: { description: string; recursive: boolean }) => [row.description, row.recursive])).toEqual([['maintenance window', false]])

    const ended = await settle(() => silencesAction(post('/notifications/silences', { intent: 'end', id })))
    expect(ended).toMatchObject({ status: 303, location: '/notifications/silences' })
    const expired = await settle(() => silencesLoader(get('/notifications/silences?state=expired')))
    expect(expired.body.rows.map((row: { id: string; state: string }) => [row.id, row.state])).toEqual([[id, 'expired']])
    expect((await settle(() => silencesLoader(get('/notifications/silences?state=active')))).body.rows).toEqual([])
  })
})
