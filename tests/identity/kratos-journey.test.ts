import { afterAll, beforeAll, describe, expect, it } from 'vitest'
import type { LoginFlow, SettingsFlow } from '@ory/client'
import { resolveKratosSession } from '#server/backend/identity/kratos/sessions.ts'
import { useTestApp } from '#tests/support/use-test-app.ts'
import {
  UI_BASE,
  csrfOf,
  failure,
  lastMailedCode,
  messageIds,
  nodeNamed,
  passwordLogin,
  startKratos,
  totpCode,
  type Browser,
  type Harness,
} from './kratos-harness.ts'

const EMAIL = 'ada@example.com'
const testApp = useTestApp()
let kratos: Harness

beforeAll(async () => {
  kratos = await startKratos(testApp.db)
})
afterAll(async () => {
  await kratos?.close()
})

async function logout(browser: Browser): Promise<void> {
  const { data } = await browser.api.createBrowserLogoutFlow()
  expect(data.logout_token).toMatch(/^ory_lo_/)
  const done = await browser.api.updateLogoutFlow({ token: data.logout_token })
  expect(done.status).toBe(204)
}

async function settingsFlow(browser: Browser): Promise<SettingsFlow> {
  return (await browser.api.createBrowserSettingsFlow()).data
}

async function submitSettings(browser: Browser, flow: SettingsFlow, body: Record<string, unknown>): Promise<SettingsFlow> {
  const { data } = await browser.api.updateSettingsFlow({
    flow: flow.id,
    updateSettingsFlowBody: { csrf_token: csrfOf(flow), ...body } as never,
  })
  return data
}

async function secondFactor(browser: Browser, body: Record<string, unknown>) {
  const { data: flow } = await browser.api.createBrowserLoginFlow({ aal: 'aal2' })
  expect(flow.requested_aal).toBe('aal2')
  return browser.api.updateLoginFlow({ flow: flow.id, updateLoginFlowBody: { csrf_token: csrfOf(flow), ...body } as never }).catch((e) => e.response)
}

describe('Kratos-compatible browser flows through @ory/client', () => {
  const browser = () => state.browser
  const state: { browser: Browser; totpSecret: string; backupCodes: string[]; password: string; registeredSessionToken?: string; usedTotp?: string } = {
    browser: undefined as unknown as Browser,
    totpSecret: '',
    backupCodes: [],
    password: 'correct horse battery staple',
  }

  it('rejects short and breached passwords at registration with Kratos message ids', async () => {
    state.browser = kratos.browser()
    const { data: flow } = await browser().api.createBrowserRegistrationFlow()
    expect(flow.ui.action).toBe(`${kratos.base}/self-service/registration?flow=${flow.id}`)
    expect(nodeNamed(flow, 'traits.email')?.meta.label?.id).toBe(1070002)
    const short = await failure(
      browser().api.updateRegistrationFlow({
        flow: flow.id,
        updateRegistrationFlowBody: { method: 'password', csrf_token: csrfOf(flow), traits: { email: EMAIL, name: { first: 'Ada', last: 'Ops' } }, password: 'abc' },
      }),
    )
    expect(short.status).toBe(400)
    expect(messageIds(short.data)).toContain(4000032)
    expect(nodeNamed(short.data, 'traits.email')?.attributes).toMatchObject({ value: EMAIL })
    expect(nodeNamed(short.data, 'password')?.attributes).not.toHaveProperty('value')
    const breached = await failure(
      browser().api.updateRegistrationFlow({
        flow: flow.id,
        updateRegistrationFlowBody: { method: 'password', csrf_token: csrfOf(short.data), traits: { email: EMAIL, name: { first: 'Ada', last: 'Ops' } }, password: 'password123' },
      }),
    )
    expect(messageIds(breached.data)).toContain(4000034)
  })

  it('registers (open mode), creates the person with the same id and mails a verification code', async () => {
    const { data: flow } = await browser().api.createBrowserRegistrationFlow()
    const { data, status } = await browser().api.updateRegistrationFlow({
      flow: flow.id,
      updateRegistrationFlowBody: { method: 'password', csrf_token: csrfOf(flow), traits: { email: EMAIL, name: { first: 'Ada', last: 'Ops' } }, password: state.password },
    })
    expect(status).toBe(200)
    expect(data.identity.traits).toEqual({ email: EMAIL, name: { first: 'Ada', last: 'Ops' } })
    expect(data.session?.authenticator_assurance_level).toBe('aal1')
    const person = await testApp.db.query<{ id: string; name: string; email: string }>('SELECT id, name, email FROM public.people WHERE id = $1', [data.identity.id])
    expect(person.rows[0]).toEqual({ id: data.identity.id, name: 'Ada Ops', email: EMAIL })
    const role = await testApp.db.query("SELECT 1 FROM public.casbin_rule WHERE ptype = 'g' AND v0 = $1 AND v1 = 'viewer'", [data.identity.id])
    expect(role.rows).toHaveLength(1)
    state.registeredSessionToken = browser().jar.get('ory_kratos_session')

    const verification = data.continue_with?.find((c) => c.action === 'show_verification_ui') as { flow: { id: string } } | undefined
    expect(verification).toBeDefined()
    const { data: vflow } = await browser().api.getVerificationFlow({ id: verification!.flow.id })
    expect(vflow.state).toBe('sent_email')
    const wrong = await failure(browser().api.updateVerificationFlow({ flow: vflow.id, updateVerificationFlowBody: { method: 'code', code: '000000', csrf_token: csrfOf(vflow) } }))
    expect(messageIds(wrong.data)).toContain(4070006)
    const code = await lastMailedCode(testApp.db, EMAIL)
    const { data: verified } = await browser().api.updateVerificationFlow({ flow: vflow.id, updateVerificationFlowBody: { method: 'code', code, csrf_token: csrfOf(wrong.data) } })
    expect(verified.state).toBe('passed_challenge')
    expect(messageIds(verified)).toContain(1080002)
    const { data: session } = await browser().api.toSession()
    expect(session.identity?.verifiable_addresses?.[0]).toMatchObject({ value: EMAIL, verified: true, status: 'completed' })
  })

  it('logs out, then signs in with a password into a new session (fixation-safe)', async () => {
    const before = await resolveKratosSession(testApp.db, state.registeredSessionToken!)
    await logout(browser())
    expect(await resolveKratosSession(testApp.db, state.registeredSessionToken!)).toBeUndefined()
    expect(await failure(browser().api.toSession())).toMatchObject({ status: 401 })

    const wrong = await passwordLogin(browser(), EMAIL, 'not the password')
    expect(wrong.status).toBe(400)
    expect(messageIds(wrong.data as LoginFlow)).toContain(4000006)

    const response = await passwordLogin(browser(), EMAIL, state.password, '/topology')
    expect(response.status).toBe(200)
    expect(response.data.session.id).not.toBe(before?.sessionId)
    expect(response.data.continue_with).toEqual([{ action: 'redirect_browser_to', redirect_browser_to: `${UI_BASE}/topology` }])
    const resolved = await resolveKratosSession(testApp.db, browser().jar.get('ory_kratos_session')!)
    expect(resolved).toMatchObject({ aal: 'aal1', email: EMAIL, name: 'Ada Ops', sessionId: response.data.session.id })
  })

  it('changes the password, enrols TOTP and confirms backup codes in settings', async () => {
    let flow = await settingsFlow(browser())
    expect(flow.identity.traits.email).toBe(EMAIL)
    const groups = new Set(flow.ui.nodes.map((n) => n.group))
    expect([...groups]).toEqual(expect.arrayContaining(['default', 'profile', 'password', 'lookup_secret', 'totp', 'webauthn']))

    const weak = await failure(browser().api.updateSettingsFlow({ flow: flow.id, updateSettingsFlowBody: { method: 'password', password: 'short', csrf_token: csrfOf(flow) } }))
    expect(weak.status).toBe(400)
    expect(messageIds(weak.data)).toContain(4000032)
    state.password = 'a much better passphrase 42'
    flow = await submitSettings(browser(), weak.data, { method: 'password', password: state.password })
    expect(flow.state).toBe('success')
    expect(messageIds(flow)).toContain(1050001)

    const qr = nodeNamed(flow, 'totp_qr')
    expect(qr?.attributes).toMatchObject({ node_type: 'img' })
    expect(String((qr?.attributes as { src: string }).src)).toMatch(/^data:image\/svg\+xml;base64,/)
    const secretNode = nodeNamed(flow, 'totp_secret_key')
    state.totpSecret = String(((secretNode?.attributes as { text: { context: { secret: string } } }).text.context.secret))
    const badTotp = await failure(browser().api.updateSettingsFlow({ flow: flow.id, updateSettingsFlowBody: { method: 'totp', totp_code: '000000', csrf_token: csrfOf(flow) } }))
    expect(messageIds(badTotp.data)).toContain(4000008)
    flow = await submitSettings(browser(), badTotp.data, { method: 'totp', totp_code: await totpCode(state.totpSecret) })
    expect(flow.state).toBe('success')
    expect(nodeNamed(flow, 'totp_unlink')).toBeDefined()

    flow = await submitSettings(browser(), flow, { method: 'lookup_secret', lookup_secret_regenerate: true })
    const codesNode = nodeNamed(flow, 'lookup_secret_codes')
    const secrets = (codesNode?.attributes as { text: { id: number; context: { secrets: { text: string }[] } } }).text
    expect(secrets.id).toBe(1050015)
    state.backupCodes = secrets.context.secrets.map((s) => s.text)
    expect(state.backupCodes).toHaveLength(12)
    for (const code of state.backupCodes) expect(code).toMatch(/^[a-z0-9]{8}$/)
    flow = await submitSettings(browser(), flow, { method: 'lookup_secret', lookup_secret_confirm: true })
    expect(flow.state).toBe('success')
    expect(nodeNamed(flow, 'lookup_secret_reveal')).toBeDefined()
  })

  it('requires the second factor after a password login and accepts TOTP and single-use backup codes', async () => {
    await logout(browser())
    const first = await passwordLogin(browser(), EMAIL, state.password)
    expect(first.status).toBe(422)
    expect(first.data.error.id).toBe('browser_location_change_required')
    expect(first.data.redirect_browser_to).toBe(`${kratos.base}/self-service/login/browser?aal=aal2`)
    const whoami = await failure(browser().api.toSession())
    expect(whoami.status).toBe(403)
    expect(whoami.data.error.id).toBe('session_aal2_required')

    const { data: aal2Flow } = await browser().api.createBrowserLoginFlow({ aal: 'aal2' })
    expect(messageIds(aal2Flow)).toContain(1010004)
    expect(nodeNamed(aal2Flow, 'totp_code')?.meta.label?.id).toBe(1010006)
    expect(nodeNamed(aal2Flow, 'lookup_secret')?.meta.label?.id).toBe(1010007)
    // The enrolment spent the current time step's code; the next step's is within tolerance.
    state.usedTotp = await totpCode(state.totpSecret, 1)
    const ok = await secondFactor(browser(), { method: 'totp', totp_code: state.usedTotp })
    expect(ok.status).toBe(200)
    expect(ok.data.session.authenticator_assurance_level).toBe('aal2')
    expect(ok.data.session.authentication_methods.map((m: { method: string }) => m.method)).toEqual(['password', 'totp'])
    expect((await browser().api.toSession()).data.authenticator_assurance_level).toBe('aal2')

    await logout(browser())
    expect((await passwordLogin(browser(), EMAIL, state.password)).status).toBe(422)
    const replay = await secondFactor(browser(), { method: 'totp', totp_code: state.usedTotp })
    expect(replay.status).toBe(400)
    expect(messageIds(replay.data)).toContain(4000008)
    const backup = await secondFactor(browser(), { method: 'lookup_secret', lookup_secret: state.backupCodes[0] })
    expect(backup.status).toBe(200)

    await logout(browser())
    expect((await passwordLogin(browser(), EMAIL, state.password)).status).toBe(422)
    const reused = await secondFactor(browser(), { method: 'lookup_secret', lookup_secret: state.backupCodes[0] })
    expect(reused.status).toBe(400)
    expect(messageIds(reused.data)).toContain(4000012)
    const unknown = await secondFactor(browser(), { method: 'lookup_secret', lookup_secret: 'zzzzzzzz' })
    expect(messageIds(unknown.data)).toContain(4000016)
    const another = await secondFactor(browser(), { method: 'lookup_secret', lookup_secret: state.backupCodes[2] })
    expect(another.status).toBe(200)
  })

  it('recovers the account by an e-mailed code and lands in settings', async () => {
    await logout(browser())
    const { data: flow } = await browser().api.createBrowserRecoveryFlow()
    expect(nodeNamed(flow, 'email')?.group).toBe('code')
    const { data: sent } = await browser().api.updateRecoveryFlow({ flow: flow.id, updateRecoveryFlowBody: { method: 'code', email: EMAIL, csrf_token: csrfOf(flow) } })
    expect(sent.state).toBe('sent_email')
    expect(messageIds(sent)).toContain(1060003)
    const code = await lastMailedCode(testApp.db, EMAIL, { subject: 'Recover access to your account' })
    const done = await failure(browser().api.updateRecoveryFlow({ flow: flow.id, updateRecoveryFlowBody: { method: 'code', code, csrf_token: csrfOf(sent) } }))
    expect(done.status).toBe(422)
    expect(done.data.error.id).toBe('browser_location_change_required')
    const target = new URL(done.data.redirect_browser_to)
    expect(`${target.origin}${target.pathname}`).toBe(`${UI_BASE}/profile-settings`)
    const settingsId = target.searchParams.get('flow')!

    // The identity has a second factor, so settings first asks for it.
    const blocked = await failure(browser().api.getSettingsFlow({ id: settingsId }))
    expect(blocked.status).toBe(403)
    expect(blocked.data.error.id).toBe('session_aal2_required')
    expect((await secondFactor(browser(), { method: 'lookup_secret', lookup_secret: state.backupCodes[1] })).status).toBe(200)
    const { data: settings } = await browser().api.getSettingsFlow({ id: settingsId })
    expect(messageIds(settings)).toContain(1060001)
    state.password = 'recovered and renewed 2024'
    const changed = await submitSettings(browser(), settings, { method: 'password', password: state.password })
    expect(changed.state).toBe('success')
    await logout(browser())
    expect((await passwordLogin(browser(), EMAIL, state.password)).status).toBe(422)
  })
})
