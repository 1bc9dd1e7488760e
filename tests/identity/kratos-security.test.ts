import { afterAll, beforeAll, describe, expect, it } from 'vitest'
import { ensureFirstAdmin } from '#server/backend/identity/kratos/bootstrap.ts'
import { createIdentity } from '#server/backend/identity/kratos/identities.ts'
import { createTestDb } from '#tests/support/test-db.ts'
import { useTestApp } from '#tests/support/use-test-app.ts'
import { UI_BASE, CookieJar, csrfOf, failure, messageIds, passwordLogin, startKratos, type Harness } from './kratos-harness.ts'

const PASSWORD = 'a long enough passphrase 1'
const testApp = useTestApp()
let kratos: Harness
let closedKratos: Harness

beforeAll(async () => {
  kratos = await startKratos(testApp.db, { rateLimitConfig: { loginPerClientAccount: 3, loginPerClient: 1000 } })
  closedKratos = await startKratos(testApp.db, { registration: 'closed' })
  await createIdentity(testApp.db, { email: 'grace@example.com', firstName: 'Grace', lastName: 'Hopper', password: PASSWORD, role: 'editor' })
})
afterAll(async () => {
  await kratos?.close()
  await closedKratos?.close()
})

describe('flow errors', () => {
  it('answers 410 self_service_flow_expired on read and submit, with a replacement flow', async () => {
    const browser = kratos.browser()
    const { data: flow } = await browser.api.createBrowserLoginFlow({ returnTo: '/health' })
    await testApp.db.query("UPDATE identity.flows SET expires_at = now() - interval '5 minutes' WHERE id = $1", [flow.id])
    const read = await failure(browser.api.getLoginFlow({ id: flow.id }))
    expect(read.status).toBe(410)
    expect(read.data.error.id).toBe('self_service_flow_expired')
    expect(read.data.error.details.redirect_to).toBe(`${kratos.base}/self-service/login/browser?return_to=%2Fhealth`)
    const submit = await failure(
      browser.api.updateLoginFlow({ flow: flow.id, updateLoginFlowBody: { method: 'password', identifier: 'grace@example.com', password: PASSWORD, csrf_token: csrfOf(flow) } }),
    )
    expect(submit.status).toBe(410)
    expect(submit.data.error.id).toBe('self_service_flow_expired')
    const { data: replacement } = await browser.api.getLoginFlow({ id: submit.data.use_flow_id })
    expect(messageIds(replacement)).toContain(4010001)
    expect(replacement.return_to).toBe('/health')
  })

  it('rejects a tampered CSRF token and a missing CSRF cookie with security_csrf_violation', async () => {
    const browser = kratos.browser()
    const { data: flow } = await browser.api.createBrowserLoginFlow()
    const token = csrfOf(flow)
    const tampered = (token[0] === 'A' ? 'B' : 'A') + token.slice(1)
    const bad = await failure(browser.api.updateLoginFlow({ flow: flow.id, updateLoginFlowBody: { method: 'password', identifier: 'grace@example.com', password: PASSWORD, csrf_token: tampered } }))
    expect(bad.status).toBe(403)
    expect(bad.data.error.id).toBe('security_csrf_violation')
    expect(bad.data.error.details.reject_reason).toMatch(/do not match/)
    const stranger = kratos.browser()
    const read = await failure(stranger.api.getLoginFlow({ id: flow.id }))
    expect(read.data.error.id).toBe('security_csrf_violation')
  })

  it('rejects return_to outside the allow-list, including open-redirect tricks', async () => {
    const browser = kratos.browser()
    for (const target of ['https://evil.example/', '//evil.example/x', '/\\evil.example', 'javascript:alert(1)']) {
      const res = await failure(browser.api.createBrowserLoginFlow({ returnTo: target }))
      expect(res.status).toBe(400)
      expect(res.data.error.id).toBe('self_service_flow_return_to_forbidden')
    }
    const ok = await browser.api.createBrowserLoginFlow({ returnTo: `${UI_BASE}/catalog?x=1` })
    expect(ok.data.return_to).toBe(`${UI_BASE}/catalog?x=1`)
  })

  it('keeps registration closed unless opened, and creates aal2 login only with a session', async () => {
    const res = await failure(closedKratos.browser().api.createBrowserRegistrationFlow())
    expect(res.status).toBe(400)
    expect(res.data.error.id).toBe('self_service_flow_disabled')
    const aal2 = await failure(kratos.browser().api.createBrowserLoginFlow({ aal: 'aal2' }))
    expect(aal2.status).toBe(401)
    expect(aal2.data.error.id).toBe('session_aal1_required')
  })
})

describe('sessions', () => {
  it('issues a new session id and cookie on every login and refuses a second login', async () => {
    const browser = kratos.browser()
    const first = await passwordLogin(browser, 'grace@example.com', PASSWORD)
    const firstCookie = browser.jar.get('ory_kratos_session')
    const again = await failure(browser.api.createBrowserLoginFlow())
    expect(again.data.error.id).toBe('session_already_available')
    const { data: refresh } = await browser.api.createBrowserLoginFlow({ refresh: true })
    expect(refresh.refresh).toBe(true)
    expect(messageIds(refresh)).toContain(1010003)
    await browser.api.updateLoginFlow({ flow: refresh.id, updateLoginFlowBody: { method: 'password', identifier: 'grace@example.com', password: PASSWORD, csrf_token: csrfOf(refresh) } })
    expect(browser.jar.get('ory_kratos_session')).not.toBe(firstCookie)

    const other = kratos.browser()
    const second = await passwordLogin(other, 'grace@example.com', PASSWORD)
    expect(second.data.session.id).not.toBe(first.data.session.id)
    const cookie = await kratos.browser().api.toSession({ cookie: `ory_kratos_session=${firstCookie}` }).catch((e) => e.response)
    expect(cookie.status).toBe(401)
  })

  it('rate-limits failed logins per identifier with 429 and Retry-After', async () => {
    await createIdentity(testApp.db, { email: 'limited@example.com', firstName: 'L', lastName: 'L', password: PASSWORD })
    const browser = kratos.browser()
    for (let i = 0; i < 3; i++) expect((await passwordLogin(browser, 'limited@example.com', 'wrong password!')).status).toBe(400)
    const limited = await passwordLogin(browser, 'limited@example.com', PASSWORD)
    expect(limited.status).toBe(429)
    expect(Number(limited.headers['retry-after'])).toBeGreaterThan(0)
    // The counts live in the shared store (rate-limiter-flexible's table), not in this process.
    const rows = await testApp.db.query<{ points: number }>("SELECT points FROM identity.rate_limits WHERE key LIKE 'login-client-account:%'")
    expect(rows.rows.map((row) => row.points)).toEqual([4])
  })
})

describe('plain browser forms', () => {
  it('answers native form posts with 303 redirects', async () => {
    const jar = new CookieJar()
    const html = { Accept: 'text/html,application/xhtml+xml' }
    const start = await fetch(`${kratos.base}/self-service/login/browser?return_to=%2Ftopology`, { headers: html, redirect: 'manual' })
    expect(start.status).toBe(303)
    jar.store(start.headers.getSetCookie())
    const location = new URL(start.headers.get('location')!)
    expect(`${location.origin}${location.pathname}`).toBe(`${UI_BASE}/login`)
    const flowId = location.searchParams.get('flow')!
    const flow = await (await fetch(`${kratos.base}/self-service/login/flows?id=${flowId}`, { headers: { Accept: 'application/json', Cookie: jar.header() } })).json()
    const post = (password: string) =>
      fetch(`${kratos.base}/self-service/login?flow=${flowId}`, {
        method: 'POST',
        redirect: 'manual',
        headers: { ...html, 'Content-Type': 'application/x-www-form-urlencoded', Cookie: jar.header() },
        body: new URLSearchParams({ csrf_token: csrfOf(flow), identifier: 'grace@example.com', password, method: 'password' }).toString(),
      })
    const wrong = await post('wrong password!')
    expect(wrong.status).toBe(303)
    expect(wrong.headers.get('location')).toBe(`${UI_BASE}/login?flow=${flowId}`)
    const right = await post(PASSWORD)
    expect(right.status).toBe(303)
    expect(right.headers.get('location')).toBe(`${UI_BASE}/topology`)
    expect(right.headers.getSetCookie().join('\n')).toMatch(/ory_kratos_session=ory_st_[^;]+; Path=\/; HttpOnly; SameSite=Lax/)
  })
})

describe('bootstrap', () => {
  it('prints a one-time registration link for the first admin that works while registration is closed', async () => {
    const fresh = await createTestDb()
    const server = await startKratos(fresh.db, { registration: 'closed' })
    try {
      const result = await ensureFirstAdmin(fresh.db, {}, { publicBaseUrl: server.base, uiBaseUrl: UI_BASE })
      expect(result.status).toBe('registration-link')
      const link = new URL((result as { link: string }).link)
      const browser = server.browser()
      const { data: flow } = await browser.api.createBrowserRegistrationFlow({}, { params: { token: link.searchParams.get('token') } })
      const { data } = await browser.api.updateRegistrationFlow({
        flow: flow.id,
        updateRegistrationFlowBody: { method: 'password', csrf_token: csrfOf(flow), traits: { email: 'root@example.com', name: { first: 'Root', last: 'Admin' } }, password: PASSWORD },
      })
      const role = await fresh.db.query("SELECT v1 FROM public.casbin_rule WHERE ptype = 'g' AND v0 = $1", [data.identity.id])
      expect(role.rows).toEqual([{ v1: 'admin' }])
      expect(await ensureFirstAdmin(fresh.db, {}, { publicBaseUrl: server.base, uiBaseUrl: UI_BASE })).toEqual({ status: 'exists' })
      const reused = await failure(server.browser().api.createBrowserRegistrationFlow({}, { params: { token: link.searchParams.get('token') } }))
      expect(reused.status).toBe(403)
    } finally {
      await server.close()
      await fresh.drop()
    }
  })
})
