import { Writable } from 'node:stream'
import { pino } from 'pino'
import request from 'supertest'
import { describe, expect, it } from 'vitest'
import { redactUrl } from '#server/logger.ts'
import { useTestApp } from '#tests/support/use-test-app.ts'
import { TEST_TOKEN, createTestApp } from '#tests/support/test-app.ts'

const testApp = useTestApp()

describe('secrets never reach the log', () => {
  it('redacts secret query parameters and keeps the rest', () => {
    expect(redactUrl('/login?username=ada@example.org&password=hunter2&return_to=%2Fhealth')).toBe(
      '/login?username=ada@example.org&password=[redacted]&return_to=%2Fhealth',
    )
    expect(redactUrl('/view/health?refresh=30&token=abc.def')).toBe('/view/health?refresh=30&token=[redacted]')
    expect(redactUrl('/api/.ory/self-service/recovery?flow=1&code=123456')).toBe('/api/.ory/self-service/recovery?flow=1&code=[redacted]')
  })

  it('logs no password, token or cookie from real requests', async () => {
    const lines: string[] = []
    const sink = new Writable({
      write(chunk, _encoding, done) {
        lines.push(chunk.toString())
        done()
      },
    })
    const logger = pino({ level: 'trace', redact: { paths: ['req.headers.authorization', 'req.headers.cookie'], censor: '[redacted]' } }, sink)
    const { app } = createTestApp(testApp.db, {}, { logger })
    await request(app).get('/login?username=ada@example.org&password=hunter2-secret')
    await request(app).get('/api/db/checks?token=kiosk-secret-value').set('Cookie', 'lookout_session=cookie-secret')
    await request(app).post('/api/auth/login').send({ username: 'token', password: TEST_TOKEN })
    const log = lines.join('\n')
    expect(log).toContain('/login?username=ada@example.org&password=[redacted]')
    for (const secret of ['hunter2-secret', 'kiosk-secret-value', 'cookie-secret', TEST_TOKEN]) expect(log).not.toContain(secret)
  })
})
