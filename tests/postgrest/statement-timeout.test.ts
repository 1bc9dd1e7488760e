import { mkdtempSync, rmSync, writeFileSync } from 'node:fs'
import os from 'node:os'
import path from 'node:path'
import request from 'supertest'
import { afterAll, beforeAll, describe, expect, test } from 'vitest'
import { createPostgresDb, type Db } from '#server/db/client.ts'
import { migrate } from '#server/db/migrate.ts'
import { bearer, createTestApp } from '#tests/support/test-app.ts'
import { createEmptyPostgresDatabase, TEST_ENGINE } from '#tests/support/test-db.ts'

/**
 * LOOKOUT_DB_STATEMENT_TIMEOUT_MS is a startup parameter of every pooled PostgreSQL connection
 * (not a SET LOCAL around each request): a slow /api/db read through the real backend is
 * cancelled with PostgREST's 57014 answer, while migrations lift the limit for themselves.
 * PGlite has no timer to cancel a statement with, so this runs on the PostgreSQL engine only.
 */
const TIMEOUT_MS = 300

// Test-only objects, never in the product migrations: a sleeping function in its own schema and
// a view over it whose name the /db access map serves (generated `view_*` tables are readable).
const FIXTURE_SQL = `
CREATE SCHEMA lookout_test;
CREATE FUNCTION lookout_test.sleep_then(seconds float8) RETURNS integer
LANGUAGE sql VOLATILE AS $$ SELECT 1 FROM pg_sleep(seconds) $$;
CREATE VIEW view_lookout_test_slow AS SELECT lookout_test.sleep_then(2) AS id;
CREATE VIEW view_lookout_test_fast AS SELECT lookout_test.sleep_then(0) AS id;
`

describe.skipIf(TEST_ENGINE === 'pglite')('statement timeout on the PostgreSQL pool', () => {
  let database: { url: string; drop(): Promise<void> }
  let db: Db
  let scratch: string

  beforeAll(async () => {
    database = await createEmptyPostgresDatabase()
    db = await createPostgresDb(database.url, { max: 3, statementTimeoutMs: TIMEOUT_MS })
    scratch = mkdtempSync(path.join(os.tmpdir(), 'lookout-timeout-'))
  }, 60_000)
  afterAll(async () => {
    await db?.close()
    await database?.drop()
    if (scratch) rmSync(scratch, { recursive: true, force: true })
  })

  test('every pooled connection starts with the timeout', async () => {
    const { rows } = await db.query<{ statement_timeout: string }>('SHOW statement_timeout')
    expect(rows[0]!.statement_timeout).toBe(`${TIMEOUT_MS}ms`)
    await expect(db.query('SELECT pg_sleep(1)')).rejects.toMatchObject({ code: '57014' })
  })

  test('migrations run without the limit, even a statement slower than it', async () => {
    const { applied } = await migrate(db)
    expect(applied.length).toBeGreaterThan(0)
    writeFileSync(path.join(scratch, '9990_slow_fixture.sql'), `SELECT pg_sleep(${(TIMEOUT_MS * 2) / 1000});\n${FIXTURE_SQL}`)
    const started = Date.now()
    expect(await migrate(db, { dir: scratch })).toEqual({ applied: ['9990_slow_fixture.sql'] })
    expect(Date.now() - started).toBeGreaterThanOrEqual(TIMEOUT_MS * 2)
    // SET LOCAL ended with the migration's transaction: the pool's connections keep the limit.
    const { rows } = await db.query<{ statement_timeout: string }>('SHOW statement_timeout')
    expect(rows[0]!.statement_timeout).toBe(`${TIMEOUT_MS}ms`)
  }, 60_000)

  test('a slow /api/db read through the real backend is cancelled with 57014', async () => {
    const { app } = createTestApp(db, { DATABASE_URL: database.url, LOOKOUT_DB_STATEMENT_TIMEOUT_MS: String(TIMEOUT_MS) })
    const fast = await request(app).get('/api/db/view_lookout_test_fast?select=id').set(bearer)
    expect(fast.status).toBe(200)
    expect(fast.body).toEqual([{ id: 1 }])

    const started = Date.now()
    const slow = await request(app).get('/api/db/view_lookout_test_slow?select=id').set(bearer)
    const elapsed = Date.now() - started
    expect(slow.status).toBe(500)
    expect(slow.body).toEqual({
      code: '57014',
      message: 'canceling statement due to statement timeout',
      details: null,
      hint: null,
    })
    // Cancelled near the limit, long before the view's 2 s sleep would end.
    expect(elapsed).toBeLessThan(1500)

    // The cancelled connection went back to the pool in a usable state.
    const again = await request(app).get('/api/db/view_lookout_test_fast?select=id').set(bearer)
    expect(again.status).toBe(200)
  }, 30_000)
})
