import { afterAll, beforeAll, describe, expect, it } from 'vitest'
import { MAX_CODE_ATTEMPTS } from '#server/backend/identity/kratos/codes.ts'
import { createIdentity } from '#server/backend/identity/kratos/identities.ts'
import { useTestApp } from '#tests/support/use-test-app.ts'
import { csrfOf, lastMailedCode } from '#tests/identity/kratos-harness.ts'
import { answerOf, browserFrom, eventually, listenApp, mailsTo, requestRecovery, type ListeningApp } from './loopback-clients.ts'

/**
 * Issue 10 item 6, "recovery flood": every recovery request mailed a code, so anyone could
 * bury an inbox (and collect as many code guesses as they liked). Now codes mailed per address
 * are capped per hour — the answer stays the same, there is just no mail — and the code
 * requests of one client are capped too.
 */

const VICTIM = 'victim@example.com'
const RECOVERY_SUBJECT = 'Recover access to your account'
const MAILS_PER_HOUR = 3
const REQUESTS_PER_CLIENT = 6
const testApp = useTestApp()
let app: ListeningApp

beforeAll(async () => {
  app = await listenApp(testApp.db, {
    LOOKOUT_RATE_LIMIT_CODE_MAILS_PER_ADDRESS: String(MAILS_PER_HOUR),
    LOOKOUT_RATE_LIMIT_CODE_REQUESTS_PER_CLIENT: String(REQUESTS_PER_CLIENT),
  })
  await createIdentity(testApp.db, { email: VICTIM, firstName: 'V', lastName: 'C', password: 'victim password 12345' })
  await createIdentity(testApp.db, { email: 'guarded@example.com', firstName: 'G', lastName: 'D', password: 'guarded password 12345' })
})

afterAll(async () => {
  await app?.close()
})

/** What a client can see of an answer: status, state and messages, without ids and tokens. */
function visible(answer: { status: number; data: { state?: string; ui?: { messages?: { id: number }[] } } }) {
  return { status: answer.status, state: answer.data.state, messages: answer.data.ui?.messages?.map((m) => m.id) }
}

describe('recovery flood', () => {
  it('mails an address at most the hourly cap, answering every request the same', async () => {
    const answers: ReturnType<typeof visible>[] = []
    // Ten requests from ten places, so only the per-address cap can apply.
    for (let i = 0; i < 10; i++) answers.push(visible(await requestRecovery(browserFrom(app, `127.0.1.${i + 1}`), VICTIM)))
    expect(answers[0]).toEqual({ status: 200, state: 'sent_email', messages: [1060003] })
    expect(answers.every((answer) => JSON.stringify(answer) === JSON.stringify(answers[0]))).toBe(true)

    const mails = await eventually(() => mailsTo(testApp.db, VICTIM, RECOVERY_SUBJECT), (rows) => rows.length >= MAILS_PER_HOUR)
    // Give any (wrongly) queued extra mail time to land before counting.
    await new Promise((resolve) => setTimeout(resolve, 500))
    expect(mails).toHaveLength(MAILS_PER_HOUR)
    expect(await mailsTo(testApp.db, VICTIM, RECOVERY_SUBJECT)).toHaveLength(MAILS_PER_HOUR)
  })

  it('caps the code requests of one client with a Kratos 429', async () => {
    const client = browserFrom(app, '127.0.2.1')
    const statuses: number[] = []
    for (let i = 0; i < REQUESTS_PER_CLIENT + 2; i++) statuses.push((await requestRecovery(client, `someone-${i}@example.com`)).status)
    expect(statuses.slice(0, REQUESTS_PER_CLIENT)).toEqual(Array(REQUESTS_PER_CLIENT).fill(200))
    expect(statuses.slice(REQUESTS_PER_CLIENT)).toEqual([429, 429])
    const refused = await requestRecovery(client, VICTIM)
    expect(refused.data.error).toMatchObject({ id: 'self_service_rate_limited', code: 429 })
    expect(Number(refused.headers['retry-after'])).toBeGreaterThan(0)
    // Another client is not affected.
    expect((await requestRecovery(browserFrom(app, '127.0.2.2'), 'someone-else@example.com')).status).toBe(200)
  })

  it(`still allows ${MAX_CODE_ATTEMPTS} tries per code, then refuses even the right one`, async () => {
    expect(MAX_CODE_ATTEMPTS).toBe(5)
    const browser = browserFrom(app, '127.0.3.1')
    const { data: flow } = await browser.api.createBrowserRecoveryFlow()
    const sent = await answerOf(browser.api.updateRecoveryFlow({ flow: flow.id, updateRecoveryFlowBody: { method: 'code', email: 'guarded@example.com', csrf_token: csrfOf(flow) } }))
    expect(sent.status).toBe(200)
    const code = await lastMailedCode(testApp.db, 'guarded@example.com', { subject: RECOVERY_SUBJECT })
    const wrong = code === '000000' ? '111111' : '000000'
    for (let i = 0; i < MAX_CODE_ATTEMPTS; i++) {
      const attempt = await answerOf(browser.api.updateRecoveryFlow({ flow: flow.id, updateRecoveryFlowBody: { method: 'code', code: wrong, csrf_token: csrfOf(flow) } }))
      expect(attempt.status).toBe(400)
    }
    const right = await answerOf(browser.api.updateRecoveryFlow({ flow: flow.id, updateRecoveryFlowBody: { method: 'code', code, csrf_token: csrfOf(flow) } }))
    expect(right.status).toBe(400)
  })
})
