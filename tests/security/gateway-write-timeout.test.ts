import http from 'node:http'
import type { AddressInfo } from 'node:net'
import request from 'supertest'
import { afterAll, beforeAll, describe, expect, it } from 'vitest'
import { openDatabase, type Db } from '#server/db/client.ts'
import { bearer, createTestApp } from '#tests/support/test-app.ts'

/**
 * Issue 10, item 9: when an upstream took a write and never answered, the gateway's 504 said only
 * that it "did not answer", which reads as "nothing happened" and invites a blind retry (a
 * duplicate incident, a playbook run twice). For a write the 504 now says the
 * outcome is unknown; a read's 504 stays as it was.
 */
let silent: http.Server
let silentUrl: string
let db: Db
const received: string[] = []

beforeAll(async () => {
  // Takes every request (and its body) and never answers.
  silent = http.createServer((req) => {
    received.push(`${req.method} ${req.url}`)
    req.resume()
  })
  await new Promise<void>((resolve) => silent.listen(0, '127.0.0.1', resolve))
  silentUrl = `http://127.0.0.1:${(silent.address() as AddressInfo).port}`
  db = await openDatabase({ dataDir: undefined })
})

afterAll(async () => {
  silent.closeAllConnections()
  await new Promise((resolve) => silent.close(resolve))
  await db?.close()
})

const gateway = () => createTestApp(db, { LOOKOUT_MODE: 'upstream', BACKEND_URL: silentUrl, LOOKOUT_UPSTREAM_TIMEOUT_MS: '300' }).app

describe('gateway timeout on a write', () => {
  it.each(['post', 'patch', 'put', 'delete'] as const)('a %s that timed out says the outcome is unknown', async (method) => {
    const response = await request(gateway())[method]('/api/db/incidents?id=eq.1').set(bearer).send({ title: 'x' })
    expect(response.status).toBe(504)
    expect(response.body.error).toBe('upstream_timeout')
    expect(response.body.message).toMatch(/did not answer within 300 ms/)
    expect(response.body.message).toMatch(new RegExp(`the ${method.toUpperCase()} may or may not have been applied, so check before retrying it`))
    expect(received).toContain(`${method.toUpperCase()} /db/incidents?id=eq.1`)
  })

  it('the browser page says so too', async () => {
    const page = await request(gateway()).post('/api/db/incidents').set(bearer).set('Accept', 'text/html').send({ title: 'x' })
    expect(page.status).toBe(504)
    expect(page.text).toContain('may or may not have been applied')
  })

  it('a read that timed out claims nothing about writes', async () => {
    const response = await request(gateway()).get('/api/db/incidents').set(bearer)
    expect(response.status).toBe(504)
    expect(response.body.message).toMatch(/did not answer within 300 ms$/)
  })
})
