import { createHash } from 'node:crypto'
import { readdir, readFile } from 'node:fs/promises'
import path from 'node:path'
import { fileURLToPath } from 'node:url'
import type { Db } from './client.ts'

export const MIGRATIONS_DIR = path.join(path.dirname(fileURLToPath(import.meta.url)), 'migrations')

const MIGRATION_FILE = /^(\d{4})_([a-z0-9_]+)\.sql$/

export type Migration = { version: string; name: string; file: string; sql: string; checksum: string }

export async function readMigrations(dir = MIGRATIONS_DIR): Promise<Migration[]> {
  const files = (await readdir(dir)).filter((file) => file.endsWith('.sql')).sort()
  const migrations: Migration[] = []
  for (const file of files) {
    const match = MIGRATION_FILE.exec(file)
    if (!match) throw new Error(`migration file name must look like 0001_name.sql: ${file}`)
    const sql = await readFile(path.join(dir, file), 'utf8')
    migrations.push({
      version: match[1]!,
      name: match[2]!,
      file,
      sql,
      checksum: createHash('sha256').update(sql).digest('hex'),
    })
  }
  return migrations
}

// Any number ≠ 0 works; it only has to be the same in every Lookout process sharing a database.
const MIGRATION_LOCK_KEY = 7_391_004_211

/**
 * Applies every migration not yet recorded in lookout.schema_migrations, all in one
 * transaction, so a failed file leaves the database as it was. Several processes may start at once against one PostgreSQL server: an advisory
 * lock makes the others wait and then find nothing left to do. An applied file whose content
 * changed is refused, since migrations are never edited after they land.
 */
export async function migrate(db: Db, options: { dir?: string } = {}): Promise<{ applied: string[] }> {
  const migrations = await readMigrations(options.dir)
  // Every start but the first finds nothing to do: one read, with no DDL, transaction or lock.
  if (await isUpToDate(db, migrations)) return { applied: [] }
  await db.exec(`
    CREATE SCHEMA IF NOT EXISTS lookout;
    CREATE TABLE IF NOT EXISTS lookout.schema_migrations (
      version text PRIMARY KEY,
      name text NOT NULL,
      checksum text NOT NULL,
      applied_at timestamptz NOT NULL DEFAULT now()
    );`)
  return db.transaction(async (tx) => {
    // The pool's statement_timeout guards requests; a migration on a big table may rightly take longer.
    await tx.exec('SET LOCAL statement_timeout = 0')
    await tx.query('SELECT pg_advisory_xact_lock($1)', [MIGRATION_LOCK_KEY])
    const { rows } = await tx.query<{ version: string; checksum: string }>(
      'SELECT version, checksum FROM lookout.schema_migrations',
    )
    const done = new Map(rows.map((row) => [row.version, row.checksum]))
    const applied: string[] = []
    for (const migration of migrations) {
      const checksum = done.get(migration.version)
      if (checksum !== undefined) {
        if (checksum !== migration.checksum) {
          throw new Error(`migration ${migration.file} was changed after it was applied; add a new migration instead`)
        }
        continue
      }
      try {
        await tx.exec(migration.sql)
      } catch (error) {
        throw new Error(`migration ${migration.file} failed: ${(error as Error).message}`, { cause: error })
      }
      await tx.query('INSERT INTO lookout.schema_migrations (version, name, checksum) VALUES ($1, $2, $3)', [
        migration.version,
        migration.name,
        migration.checksum,
      ])
      applied.push(migration.file)
    }
    return { applied }
  })
}

/** True when every migration is recorded with its current content (a changed one goes the slow way and is refused there). */
async function isUpToDate(db: Db, migrations: Migration[]): Promise<boolean> {
  const { rows: present } = await db.query<{ present: boolean }>(
    `SELECT to_regclass('lookout.schema_migrations') IS NOT NULL AS present`,
  )
  if (!present[0]?.present) return false
  const { rows } = await db.query<{ version: string; checksum: string }>('SELECT version, checksum FROM lookout.schema_migrations')
  const done = new Map(rows.map((row) => [row.version, row.checksum]))
  return migrations.every((migration) => done.get(migration.version) === migration.checksum)
}

export async function pendingMigrations(db: Db, dir?: string): Promise<string[]> {
  const migrations = await readMigrations(dir)
  const { rows } = await db
    .query<{ version: string }>('SELECT version FROM lookout.schema_migrations')
    .catch(() => ({ rows: [] as { version: string }[] }))
  const done = new Set(rows.map((row) => row.version))
  return migrations.filter((migration) => !done.has(migration.version)).map((migration) => migration.file)
}
