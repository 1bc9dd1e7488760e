import { afterAll, beforeAll, describe, expect, it } from 'vitest'
import { createIdentity } from '#server/backend/identity/kratos/identities.ts'
import { useTestApp } from '#tests/support/use-test-app.ts'
import { browserFrom, eventually, listenApp, mailsTo, signIn, type ListeningApp } from './loopback-clients.ts'

/**
 * Issue 10 item 6, "login lockout of the owner": sign-in failures used to be counted per
 * identifier, so anyone could lock an account's owner out by failing ten times. Now the limit
 * that stops guessing applies per client and account, a slower limit per account catches
 * guessing from many places, and its lockout mails the owner a one-time unlock link.
 */

const OWNER = 'owner@example.com'
const PASSWORD = 'the owner knows this one 42'
const testApp = useTestApp()
let app: ListeningApp

beforeAll(async () => {
  app = await listenApp(testApp.db, {
    LOOKOUT_RATE_LIMIT_LOGIN_PER_CLIENT_ACCOUNT: '3',
    LOOKOUT_RATE_LIMIT_LOGIN_PER_ACCOUNT: '8',
  })
  await createIdentity(testApp.db, { email: OWNER, firstName: 'O', lastName: 'W', password: PASSWORD })
})

afterAll(async () => {
  await app?.close()
})

describe('login lockout', () => {
  it('blocks the guessing client but not the owner signing in from elsewhere', async () => {
    const attacker = browserFrom(app, '127.0.0.2')
    const statuses: number[] = []
    for (let i = 0; i < 12; i++) statuses.push((await signIn(attacker, OWNER, `guess number ${i}`)).status)
    expect(statuses.slice(0, 3)).toEqual([400, 400, 400])
    expect(new Set(statuses.slice(3))).toEqual(new Set([429]))

    // Even the right password is refused from the blocked client, in Kratos's 429 shape.
    const blocked = await signIn(attacker, OWNER, PASSWORD)
    expect(blocked.status).toBe(429)
    expect(blocked.data.error).toMatchObject({ id: 'self_service_rate_limited', code: 429 })
    expect(Number(blocked.headers['retry-after'])).toBeGreaterThan(0)

    const owner = browserFrom(app, '127.0.0.3')
    const signedIn = await signIn(owner, OWNER, PASSWORD)
    expect(signedIn.status).toBe(200)
    expect(signedIn.data.session.identity.traits.email).toBe(OWNER)
  })

  it('locks the account after failures from many clients, mails an unlock link, and the link lifts it', async () => {
    // 3 failures so far (127.0.0.2); 5 more from two other places reach the account's limit of 8.
    for (const [address, tries] of [['127.0.0.4', 3], ['127.0.0.5', 2]] as const) {
      const guesser = browserFrom(app, address)
      for (let i = 0; i < tries; i++) expect((await signIn(guesser, OWNER, `guess from ${address} ${i}`)).status).toBe(400)
    }
    const locking = await signIn(browserFrom(app, '127.0.0.6'), OWNER, 'one guess too many')
    expect(locking.status).toBe(429)
    expect(locking.data.error.id).toBe('self_service_rate_limited')

    // Now the owner must prove possession of the mailbox: the right password alone is refused.
    const owner = browserFrom(app, '127.0.0.3')
    expect((await signIn(owner, OWNER, PASSWORD)).status).toBe(429)

    const mails = await eventually(() => mailsTo(testApp.db, OWNER, 'Sign-in to your account was paused'), (rows) => rows.length > 0)
    expect(mails).toHaveLength(1)
    const link = /https?:\/\/\S+\/self-service\/login\/unlock\?token=[\w-]+/.exec(mails[0]!.body)?.[0]
    expect(link).toBeDefined()
    const path = new URL(link!)
    const unlockUrl = `${app.base}${path.pathname}${path.search}`

    // The link works from the owner's browser, once.
    const opened = await owner.get(unlockUrl, { Accept: 'text/html' })
    expect(opened.status).toBe(303)
    expect(opened.headers.location).toMatch(/\/login$/)
    expect((await owner.get(unlockUrl, { Accept: 'application/json' })).status).toBe(403)

    expect((await signIn(owner, OWNER, PASSWORD)).status).toBe(200)
    // The attacker's own client stays blocked.
    expect((await signIn(browserFrom(app, '127.0.0.2'), OWNER, PASSWORD)).status).toBe(429)
    // Only one unlock mail for one lockout.
    expect(await mailsTo(testApp.db, OWNER, 'Sign-in to your account was paused')).toHaveLength(1)
  })

  it('counts unknown accounts the same way and mails nobody', async () => {
    const guesser = browserFrom(app, '127.0.0.7')
    const statuses: number[] = []
    for (let i = 0; i < 4; i++) statuses.push((await signIn(guesser, 'nobody@example.com', `guess ${i}`)).status)
    expect(statuses).toEqual([400, 400, 400, 429])
    expect(await mailsTo(testApp.db, 'nobody@example.com')).toEqual([])
  })
})
