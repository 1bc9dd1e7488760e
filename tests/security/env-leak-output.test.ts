import type { Express } from 'express'
import request from 'supertest'
import { afterAll, beforeAll, describe, expect, it } from 'vitest'
import type { Db } from '#server/db/client.ts'
import { createRedactor, REDACTED, secretValuesFromEnv } from '#server/ops/secret-redaction.ts'
import { useTestApp } from '#tests/support/use-test-app.ts'
import { bearer, createTestApp, TEST_TOKEN } from '#tests/support/test-app.ts'

// Issue 10, finding 2: an exec check inherited the server's whole environment, so `env` (or a
// script that found the values elsewhere) put the bootstrap token and database credentials into
// check_statuses, job history and the Run Now answer for every reader of the health pages.

const DB_PASSWORD = 'S3cr3t-pa55word'
const SECRETS: Record<string, string> = {
  LOOKOUT_BOOTSTRAP_TOKEN: TEST_TOKEN,
  DATABASE_URL: `postgres://lookout:${DB_PASSWORD}@db.internal.example:5432/lookout`,
  SMTP_URL: 'smtp://mailer:mail-pa55word-xyz@smtp.internal.example:587',
  LOOKOUT_ADMIN_PASSWORD: 'first-admin-password-123',
  UPSTREAM_CONFIG_DB_URL: 'https://svc:upstream-pa55@config.internal.example',
  KRATOS_COOKIE_SECRET: 'kratos-cookie-secret-value',
  // Short values are not redacted: a flag of "1" would otherwise mangle every output.
  LOOKOUT_FEATURE_TOKEN_FLAG: '1',
}
const NEEDLES = [TEST_TOKEN, SECRETS.DATABASE_URL!, DB_PASSWORD, 'mail-pa55word-xyz', 'first-admin-password-123', 'upstream-pa55', 'kratos-cookie-secret-value']

const testApp = useTestApp()
let db: Db
let app: Express
const saved = new Map<string, string | undefined>()

beforeAll(async () => {
  for (const [name, value] of Object.entries(SECRETS)) {
    saved.set(name, process.env[name])
    process.env[name] = value
  }
  db = testApp.db
  app = createTestApp(db).app
})

afterAll(async () => {
  for (const [name, value] of saved) {
    if (value === undefined) delete process.env[name]
    else process.env[name] = value
  }
})

async function runExec(name: string, script: string, env?: { name: string; value: string }[]) {
  const created = await request(app).post('/api/canary/api/canaries').set(bearer).send({
    name, namespace: 'default', spec: { schedule: '@never', exec: [{ name: 'script', script, ...(env ? { env } : {}) }] },
  })
  expect(created.status, created.text).toBe(201)
  const checkId = created.body.canaries[0].checks[0].id as string
  const run = await request(app).post(`/api/canary/run/check/${checkId}`).set(bearer)
  expect(run.status, run.text).toBe(200)
  const { rows: statuses } = await db.query<{ message: string | null; error: string | null; details: unknown }>(
    'SELECT message, error, details FROM check_statuses WHERE check_id = $1', [checkId],
  )
  const { rows: jobs } = await db.query<{ details: unknown }>(
    `SELECT details FROM job_history WHERE resource_id = $1`, [created.body.canaries[0].id],
  )
  expect(statuses.length).toBeGreaterThan(0)
  return { run: run.body as Record<string, unknown>, stored: JSON.stringify({ statuses, jobs }), answer: JSON.stringify(run.body) }
}

function expectClean(text: string) {
  for (const needle of NEEDLES) expect(text).not.toContain(needle)
}

describe('exec output never carries the server environment', () => {
  it('runs scripts with a minimal environment: `env` shows no server variables', async () => {
    const { run, stored, answer } = await runExec('env-dump', 'env')
    expectClean(stored)
    expectClean(answer)
    const stdout = (run.detail as { stdout: string }).stdout
    expect(stdout).toMatch(/^PATH=/m)
    expect(stdout).not.toMatch(/^(LOOKOUT_|DATABASE_URL|SMTP_URL|KRATOS_|UPSTREAM_)/m)
  })

  it('does not expand the bootstrap token for a script that asks for it', async () => {
    const { run, stored } = await runExec('echo-token', 'echo "token=[$LOOKOUT_BOOTSTRAP_TOKEN] db=[$DATABASE_URL]"')
    expectClean(stored)
    expect((run.detail as { stdout: string }).stdout).toBe('token=[] db=[]')
  })

  it("keeps the spec's own env", async () => {
    const { run } = await runExec('own-env', 'echo "$GREETING"', [{ name: 'GREETING', value: 'hello from the spec' }])
    expect((run.detail as { stdout: string }).stdout).toBe('hello from the spec')
  })

  it('redacts secret values a script prints anyway, in statuses, job history and the Run Now answer', async () => {
    // The script found the values some other way (a file the server reads, say) and prints them,
    // to stdout and to stderr, then fails so the error message quotes them as well.
    const script = [
      `echo "db=${SECRETS.DATABASE_URL} pw=${DB_PASSWORD} token=${TEST_TOKEN}"`,
      `echo "smtp=${SECRETS.SMTP_URL} admin=${SECRETS.LOOKOUT_ADMIN_PASSWORD} count=1" >&2`,
      'exit 3',
    ].join('\n')
    const { run, stored, answer } = await runExec('printed', script)
    expectClean(stored)
    expectClean(answer)
    expect(run.pass).toBeUndefined()
    expect(stored).toContain(REDACTED)
    // The short "1" stays: redaction keeps output readable.
    expect((run.detail as { stderr: string }).stderr).toContain('count=1')
    expect(run.error).toContain(REDACTED)
  })
})

describe('the redactor', () => {
  it('finds secret values by name and by URL credentials, with a length floor', () => {
    const values = secretValuesFromEnv({
      DATABASE_URL: 'postgres://u:p%40ssw0rd-long@h/db',
      GITHUB_TOKEN: 'ghp_0123456789',
      SHORT_SECRET: 'abc',
      SOME_URL: 'https://user:another-pass-1@example.test/x',
      PLAIN_URL: 'https://example.test/x',
      HOME: '/home/lookout',
    })
    expect(values).toEqual(expect.arrayContaining(['postgres://u:p%40ssw0rd-long@h/db', 'p%40ssw0rd-long', 'p@ssw0rd-long', 'ghp_0123456789', 'https://user:another-pass-1@example.test/x', 'another-pass-1']))
    expect(values).not.toContain('abc')
    expect(values).not.toContain('https://example.test/x')
    expect(values).not.toContain('/home/lookout')
    const redactor = createRedactor(values)
    expect(redactor.redact({ list: ['x ghp_0123456789 y'], nested: { 'p@ssw0rd-long': 1 }, n: 5 })).toEqual({ list: [`x ${REDACTED} y`], nested: { [REDACTED]: 1 }, n: 5 })
  })
})
