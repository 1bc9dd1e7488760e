import { afterAll, beforeAll, describe, expect, it } from 'vitest'
import { createIdentity } from '#server/backend/identity/kratos/identities.ts'
import { useTestApp } from '#tests/support/use-test-app.ts'
import { passwordLogin, startKratos, type Harness } from './kratos-harness.ts'

/**
 * Issue 4 "Done when", security: sign-in is rate-limited per IP as well as per identity (the
 * per-identifier limit is covered in kratos-security.test.ts).
 */

const PASSWORD = 'a secret nobody logs 4711'
const testApp = useTestApp()
let kratos: Harness

beforeAll(async () => {
  kratos = await startKratos(testApp.db, {
    // Generous per identifier, tight per address: only the per-client limit can trip here.
    rateLimitConfig: { loginPerClientAccount: 100, loginPerClient: 4 },
  })
  await createIdentity(testApp.db, { email: 'logs@example.com', firstName: 'L', lastName: 'G', password: PASSWORD })
})

afterAll(async () => {
  await kratos?.close()
})

describe('login rate limit per address', () => {
  it('rate-limits failed logins per IP across different identifiers (429 with Retry-After)', async () => {
    const statuses: number[] = []
    let retryAfter: string | undefined
    for (let i = 0; i < 6; i++) {
      const answer = await passwordLogin(kratos.browser(), `nobody-${i}@example.com`, 'wrong password here')
      statuses.push(answer.status)
      if (answer.status === 429) retryAfter = String(answer.headers['retry-after'])
    }
    expect(statuses.slice(0, 4)).toEqual([400, 400, 400, 400])
    expect(statuses.at(-1)).toBe(429)
    expect(Number(retryAfter)).toBeGreaterThan(0)
    // A right password from the same address is refused too while the window lasts.
    expect((await passwordLogin(kratos.browser(), 'logs@example.com', PASSWORD)).status).toBe(429)
  })
})
