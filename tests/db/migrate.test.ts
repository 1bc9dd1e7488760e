import { cpSync, mkdtempSync, rmSync, writeFileSync } from 'node:fs'
import os from 'node:os'
import path from 'node:path'
import { afterAll, beforeAll, describe, expect, it } from 'vitest'
import { migrate, MIGRATIONS_DIR, readMigrations } from '#server/db/migrate.ts'
import { createTestDb, type TestDb } from '#tests/support/test-db.ts'

describe('migrate', () => {
  let test: TestDb
  let dir: string

  beforeAll(async () => {
    test = await createTestDb({ migrated: false })
    dir = mkdtempSync(path.join(os.tmpdir(), 'lookout-migrations-'))
    cpSync(MIGRATIONS_DIR, dir, { recursive: true })
  }, 120_000)

  afterAll(async () => {
    await test?.drop()
    rmSync(dir, { recursive: true, force: true })
  })

  it('applies every migration once; a restart finds nothing to do', async () => {
    const all = await readMigrations(dir)
    expect((await migrate(test.db, { dir })).applied).toEqual(all.map((migration) => migration.file))
    expect((await migrate(test.db, { dir })).applied).toEqual([])
  })

  it('still applies a migration added after the last start', async () => {
    writeFileSync(path.join(dir, '9990_added_later.sql'), 'CREATE TABLE lookout.migrate_test_added (id integer);')
    expect((await migrate(test.db, { dir })).applied).toEqual(['9990_added_later.sql'])
    const { rows } = await test.db.query<{ present: boolean }>(`SELECT to_regclass('lookout.migrate_test_added') IS NOT NULL AS present`)
    expect(rows[0]?.present).toBe(true)
  })

  it('refuses an applied migration whose file changed', async () => {
    writeFileSync(path.join(dir, '9990_added_later.sql'), 'CREATE TABLE lookout.migrate_test_added (id bigint);')
    await expect(migrate(test.db, { dir })).rejects.toThrow(/9990_added_later\.sql was changed after it was applied/)
  })
})
