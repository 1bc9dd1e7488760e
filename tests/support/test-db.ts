import { randomBytes } from 'node:crypto'
import pg from 'pg'
import { createPGliteDb, createPostgresDb, type Db } from '#server/db/client.ts'
import { migrate } from '#server/db/migrate.ts'

/**
 * Which engine the suite runs on: `npm test` runs every suite twice, once with
 * LOOKOUT_TEST_ENGINE=pglite and once with LOOKOUT_TEST_ENGINE=postgres.
 */
export const TEST_ENGINE: 'pglite' | 'postgres' =
  process.env.LOOKOUT_TEST_ENGINE === 'postgres' ? 'postgres' : 'pglite'

export const TEST_PG_ADMIN_URL = process.env.LOOKOUT_TEST_PG_URL ?? 'postgres://postgres@127.0.0.1:5432/postgres'

function databaseUrl(name: string): string {
  const url = new URL(TEST_PG_ADMIN_URL)
  url.pathname = `/${name}`
  return url.toString()
}

async function withAdmin<T>(fn: (client: pg.Client) => Promise<T>): Promise<T> {
  const client = new pg.Client({ connectionString: TEST_PG_ADMIN_URL })
  await client.connect()
  try {
    return await fn(client)
  } finally {
    await client.end()
  }
}

export type TestDb = { db: Db; url?: string; drop(): Promise<void> }

/**
 * A fresh database for one test file: an empty PostgreSQL database on the server (dropped
 * afterwards) or an in-memory PGlite. With `migrated` (the default) the Lookout schema is applied.
 */
export async function createTestDb(options: { migrated?: boolean } = {}): Promise<TestDb> {
  const migrated = options.migrated ?? true
  if (TEST_ENGINE === 'pglite') {
    const db = await createPGliteDb(undefined)
    if (migrated) await migrate(db)
    return { db, drop: () => db.close() }
  }
  const name = `lookout_t_${Date.now().toString(36)}_${randomBytes(4).toString('hex')}`
  await withAdmin((client) => client.query(`CREATE DATABASE ${name}`))
  const url = databaseUrl(name)
  const db = await createPostgresDb(url, { max: 5 })
  if (migrated) await migrate(db)
  return {
    db,
    url,
    async drop() {
      await db.close()
      await withAdmin((client) => client.query(`DROP DATABASE IF EXISTS ${name} WITH (FORCE)`))
    },
  }
}

/** An empty database on the server, for tests that start a real Lookout process against it. */
export async function createEmptyPostgresDatabase(): Promise<{ url: string; drop(): Promise<void> }> {
  const name = `lookout_t_${Date.now().toString(36)}_${randomBytes(4).toString('hex')}`
  await withAdmin((client) => client.query(`CREATE DATABASE ${name}`))
  return {
    url: databaseUrl(name),
    drop: () => withAdmin((client) => client.query(`DROP DATABASE IF EXISTS ${name} WITH (FORCE)`)).then(() => undefined),
  }
}
