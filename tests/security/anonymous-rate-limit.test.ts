import { afterAll, beforeAll, describe, expect, it } from 'vitest'
import { TEST_TOKEN } from '#tests/support/test-app.ts'
import { useTestApp } from '#tests/support/use-test-app.ts'
import { browserFrom, listenApp, type ListeningApp } from './loopback-clients.ts'

/**
 * Issue 10 item 6, first level: every request that resolves no credential — identity flows,
 * token sign-in, the public health board — counts against its client's budget per minute, and
 * past it gets 429 with Retry-After. Callers with a credential are not counted.
 */

const BUDGET = 5
const testApp = useTestApp()
let app: ListeningApp

beforeAll(async () => {
  app = await listenApp(testApp.db, { LOOKOUT_RATE_LIMIT_ANONYMOUS_PER_MINUTE: String(BUDGET), LOOKOUT_PUBLIC_HEALTH: 'true' })
})

afterAll(async () => {
  await app?.close()
})

describe('per-client limit on unauthenticated requests', () => {
  it('answers 429 with Retry-After once a client used its budget, on identity flows in Kratos\'s shape', async () => {
    const client = browserFrom(app, '127.0.0.2')
    const statuses: number[] = []
    for (let i = 0; i < BUDGET + 1; i++) {
      statuses.push((await client.get(`${app.base}/api/.ory/self-service/login/browser`, { Accept: 'application/json' })).status)
    }
    expect(statuses).toEqual([...Array(BUDGET).fill(200), 429])
    const refused = await client.get(`${app.base}/api/.ory/self-service/recovery/browser`, { Accept: 'application/json' })
    expect(refused.status).toBe(429)
    expect(refused.data.error).toMatchObject({ id: 'self_service_rate_limited', code: 429 })
    expect(Number(refused.headers['retry-after'])).toBeGreaterThan(0)

    // The same budget covers the public board and token sign-in.
    const board = await client.get(`${app.base}/api/canary/api/summary`)
    expect(board.status).toBe(429)
    expect(board.data).toMatchObject({ error: 'rate_limited' })
    expect(Number(board.headers['retry-after'])).toBeGreaterThan(0)
  })

  it('leaves other clients and callers with a credential alone', async () => {
    expect((await browserFrom(app, '127.0.0.3').get(`${app.base}/api/.ory/self-service/login/browser`, { Accept: 'application/json' })).status).toBe(200)
    const withToken = await browserFrom(app, '127.0.0.2').get(`${app.base}/api/db/checks?limit=1`, { Authorization: `Bearer ${TEST_TOKEN}` })
    expect(withToken.status).toBe(200)
  })
})
