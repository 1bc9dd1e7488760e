import pg from 'pg'

export const PG_ADMIN = process.env.LOOKOUT_TEST_PG_URL ?? 'postgres://postgres@127.0.0.1:5432/postgres'

/**
 * A fresh PostgreSQL database for one bench run, dropped afterwards; undefined when no server
 * answers (the bench then runs on PGlite only), unless `required` (BENCH_DB=postgres) says the
 * run is meaningless without it.
 */
export async function scratchDatabase(prefix: string, required = false): Promise<{ url: string; drop(): Promise<void> } | undefined> {
  const admin = new pg.Client({ connectionString: PG_ADMIN, connectionTimeoutMillis: 2000 })
  try {
    await admin.connect()
  } catch (error) {
    if (required) throw error
    return undefined
  }
  const name = `${prefix}_${Date.now().toString(36)}`
  await admin.query(`CREATE DATABASE ${name}`)
  await admin.end()
  const url = new URL(PG_ADMIN)
  url.pathname = `/${name}`
  return {
    url: url.toString(),
    async drop() {
      const client = new pg.Client({ connectionString: PG_ADMIN })
      await client.connect()
      await client.query(`DROP DATABASE IF EXISTS ${name} WITH (FORCE)`)
      await client.end()
    },
  }
}
