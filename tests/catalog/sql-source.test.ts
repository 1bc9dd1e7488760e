import net from 'node:net'
import mysql from 'mysql2/promise'
import pg from 'pg'
import pino from 'pino'
import { afterAll, beforeAll, describe, expect, it } from 'vitest'
import type { ScrapeRunContext } from '#server/backend/catalog/scrapers/scraper-source.ts'
import { driverOf, sqlSource } from '#server/backend/catalog/scrapers/sql-source.ts'
import { restrictedGuard } from '#server/backend/health/checks/target-guard.ts'
import { createEmptyPostgresDatabase, createTestDb, type TestDb } from '#tests/support/test-db.ts'

/**
 * The sql scraper against the real PostgreSQL server and the real MariaDB: each row a document,
 * single columns as their value, stored connections and raw connection strings, auth filling
 * missing credentials, errors, and a timeout that also stops the statement on the server.
 */

const MARIADB_URL = 'mysql://root@127.0.0.1:3306/test'

let testDb: TestDb
let scratch: { url: string; drop(): Promise<void> }
let scratchName: string
let mariadb: mysql.Connection | null = null
let mariadbDown = ''
const table = `scrape_tenants_${process.pid}`

function context(overrides: Partial<ScrapeRunContext> = {}): ScrapeRunContext {
  return {
    db: testDb.db,
    logger: pino({ level: 'silent' }),
    signal: AbortSignal.timeout(15_000),
    scraperId: '00000000-0000-0000-0000-000000000002',
    namespace: 'default',
    ...overrides,
  }
}

async function onScratch<T>(fn: (client: pg.Client) => Promise<T>): Promise<T> {
  const client = new pg.Client({ connectionString: scratch.url })
  await client.connect()
  try {
    return await fn(client)
  } finally {
    await client.end()
  }
}

beforeAll(async () => {
  testDb = await createTestDb()
  scratch = await createEmptyPostgresDatabase()
  scratchName = new URL(scratch.url).pathname.slice(1)
  await onScratch((client) => client.query(`
    CREATE TABLE tenants (id bigint PRIMARY KEY, name text NOT NULL, plan text, seats numeric, price numeric(30, 10), created timestamptz, settings jsonb);
    INSERT INTO tenants VALUES
      (1, 'acme', 'gold', 25, 19.5, '2026-01-02T03:04:05Z', '{"sso": true}'),
      (2, 'globex', NULL, 3, 12345678901234567890.0123456789, '2026-02-03T04:05:06Z', '{"sso": false, "regions": ["eu"]}'),
      (9007199254740993, 'initech', 'free', 0, 0, NULL, NULL);
  `))
  try {
    mariadb = await mysql.createConnection({ host: '127.0.0.1', port: 3306, user: 'root', connectTimeout: 3_000 })
    await mariadb.query('CREATE DATABASE IF NOT EXISTS test')
    await mariadb.query('USE test')
    await mariadb.query(`CREATE TABLE ${table} (id INT PRIMARY KEY, name VARCHAR(50) NOT NULL, seats DECIMAL(10, 2), big BIGINT, created DATETIME, doc TEXT)`)
    await mariadb.query(`INSERT INTO ${table} VALUES (1, 'acme', 25.50, 9007199254740993, '2026-01-02 03:04:05', '{"sso": true}'), (2, 'globex', 3.00, 7, NULL, NULL)`)
  } catch (error) {
    mariadbDown = `MariaDB at 127.0.0.1:3306 (root, database test) is unreachable: ${(error as Error).message}`
    await mariadb?.end().catch(() => undefined)
    mariadb = null
  }
})

afterAll(async () => {
  if (mariadb) {
    await mariadb.query(`DROP TABLE IF EXISTS ${table}`).catch(() => undefined)
    await mariadb.end()
  }
  await scratch?.drop()
  await testDb?.drop()
})

describe('sql scraper on PostgreSQL', () => {
  it('turns each row into a document with native values, through a raw connection string', async () => {
    const documents = await sqlSource.fetch({ connection: scratch.url, query: 'SELECT * FROM tenants ORDER BY id' }, context())
    expect(documents.map((document) => document.source)).toEqual(['query row 1', 'query row 2', 'query row 3'])
    expect(documents[0]!.config).toEqual({ id: 1, name: 'acme', plan: 'gold', seats: 25, price: 19.5, created: '2026-01-02T03:04:05.000Z', settings: { sso: true } })
    // Numbers that a double cannot hold stay exact, as text.
    expect(documents[1]!.config).toMatchObject({ plan: null, price: '12345678901234567890.0123456789', settings: { sso: false, regions: ['eu'] } })
    expect(documents[2]!.config).toMatchObject({ id: '9007199254740993', name: 'initech', created: null })
  })

  it('uses the value of a single column: JSON objects as objects, text as text', async () => {
    const objects = await sqlSource.fetch({ connection: scratch.url, query: `SELECT json_build_object('id', id, 'name', name) FROM tenants WHERE id < 3 ORDER BY id` }, context())
    expect(objects.map((document) => document.config)).toEqual([{ id: 1, name: 'acme' }, { id: 2, name: 'globex' }])
    const fromText = await sqlSource.fetch({ connection: scratch.url, query: `SELECT settings::text FROM tenants WHERE id = 1` }, context())
    expect(fromText[0]!.config).toEqual({ sso: true })
    const names = await sqlSource.fetch({ connection: scratch.url, query: 'SELECT name FROM tenants ORDER BY id' }, context())
    expect(names.map((document) => document.config)).toEqual(['acme', 'globex', 'initech'])
    expect(await sqlSource.fetch({ connection: scratch.url, query: 'SELECT * FROM tenants WHERE false' }, context())).toEqual([])
  })

  it('reads a stored connection (connection://namespace/name and by id); auth fills only what it lacks', async () => {
    const { rows } = await testDb.db.query<{ id: string }>(
      `INSERT INTO connections (name, namespace, type, url, username) VALUES ('tenants-db', 'platform', 'postgres', $1, 'postgres') RETURNING id`,
      [`postgres://$(username)@127.0.0.1:5432/${scratchName}?sslmode=disable`],
    )
    const query = 'SELECT name FROM tenants WHERE id = 1'
    const byName = await sqlSource.fetch({ connection: 'connection://platform/tenants-db', query, auth: { username: { value: 'someone-else' } } }, context())
    expect(byName.map((document) => document.config)).toEqual(['acme'])
    const byId = await sqlSource.fetch({ connection: rows[0]!.id, query }, context())
    expect(byId.map((document) => document.config)).toEqual(['acme'])
    // A connection without credentials: the scraper's auth supplies the user.
    await testDb.db.query(
      `INSERT INTO connections (name, namespace, type, url) VALUES ('tenants-db-anon', 'default', 'postgres', $1)`,
      [`postgres://127.0.0.1:5432/${scratchName}`],
    )
    const withAuth = await sqlSource.fetch({ connection: 'connection://tenants-db-anon', query, auth: { username: { value: 'postgres' } } }, context())
    expect(withAuth.map((document) => document.config)).toEqual(['acme'])
    await expect(sqlSource.fetch({ connection: 'connection://default/absent-db', query }, context())).rejects.toThrow('connection connection://default/absent-db was not found')
  })

  it('accepts a key=value DSN and the driver field', async () => {
    const documents = await sqlSource.fetch({ connection: `host=127.0.0.1 port=5432 dbname=${scratchName} user=postgres`, driver: 'postgres', query: 'SELECT count(*) AS n FROM tenants' }, context())
    expect(documents[0]!.config).toBe(3)
  })

  it('fails with the query error and the redacted connection string, and closes every connection it opened', async () => {
    const withPassword = scratch.url.replace('postgres@', 'postgres:hunter2@')
    await expect(sqlSource.fetch({ connection: withPassword, query: 'SELECT nope FROM nowhere' }, context()))
      .rejects.toThrow(/^query on postgres postgres:\/\/postgres:\*\*\*@127\.0\.0\.1:5432\/\w+ failed: relation "nowhere" does not exist$/)
    const open = await onScratch((client) => client.query<{ n: number }>(`SELECT count(*)::int AS n FROM pg_stat_activity WHERE application_name = 'lookout-scraper' AND datname = $1`, [scratchName]))
    expect(open.rows[0]!.n).toBe(0)
  })

  it('stops at the scraper timeout and cancels the statement on the server', async () => {
    const started = Date.now()
    await expect(sqlSource.fetch({ connection: scratch.url, query: 'SELECT pg_sleep(30)' }, context({ signal: AbortSignal.timeout(300) })))
      .rejects.toThrow(/failed: timed out \(the scraper's timeout\)$/)
    expect(Date.now() - started).toBeLessThan(3_000)
    let running = 1
    for (let attempt = 0; attempt < 40 && running > 0; attempt += 1) {
      await new Promise((resolve) => setTimeout(resolve, 50))
      const { rows } = await onScratch((client) => client.query<{ n: number }>(`SELECT count(*)::int AS n FROM pg_stat_activity WHERE query = 'SELECT pg_sleep(30)' AND state = 'active'`))
      running = rows[0]!.n
    }
    expect(running).toBe(0)
  })

  it('refuses loopback for an untrusted scraper, names unsupported drivers and requires query and connection', async () => {
    await expect(sqlSource.fetch({ connection: scratch.url, query: 'SELECT 1' }, context({ targets: restrictedGuard([]) })))
      .rejects.toThrow(/target 127\.0\.0\.1:5432 .*ask an admin to allow it/)
    await expect(sqlSource.fetch({ connection: 'sqlserver://sa@127.0.0.1:1433/db', query: 'SELECT 1' }, context()))
      .rejects.toThrow("driver sqlserver is not supported by this console's sql scraper (PostgreSQL and MySQL/MariaDB are)")
    await expect(sqlSource.fetch({ connection: scratch.url }, context())).rejects.toThrow('query is required')
    await expect(sqlSource.fetch({ query: 'SELECT 1' }, context())).rejects.toThrow(/^connection is required/)
    expect(() => driverOf('127.0.0.1:5432')).toThrow(/cannot tell the database/)
  })
})

describe('sql scraper against servers that refuse or never answer', () => {
  it('reports a refused connection, and drops a handshake a silent server never finishes at the timeout', async () => {
    await expect(sqlSource.fetch({ connection: 'mysql://root@127.0.0.1:1/test', query: 'SELECT 1' }, context()))
      .rejects.toThrow(/^query on mysql mysql:\/\/root@127\.0\.0\.1:1\/test failed: .*ECONNREFUSED/)
    await expect(sqlSource.fetch({ connection: 'postgres://postgres@127.0.0.1:1/x', query: 'SELECT 1' }, context()))
      .rejects.toThrow(/^query on postgres postgres:\/\/postgres@127\.0\.0\.1:1\/x failed: .*ECONNREFUSED/)
    const open = new Set<net.Socket>()
    const silent = net.createServer((socket) => {
      socket.resume()
      open.add(socket)
      socket.on('close', () => open.delete(socket))
    })
    await new Promise<void>((resolve) => silent.listen(0, '127.0.0.1', resolve))
    const port = (silent.address() as net.AddressInfo).port
    try {
      for (const connection of [`postgres://postgres@127.0.0.1:${port}/x`, `mysql://root@127.0.0.1:${port}/x`]) {
        const started = Date.now()
        await expect(sqlSource.fetch({ connection, query: 'SELECT 1' }, context({ signal: AbortSignal.timeout(300) })))
          .rejects.toThrow(/^query on (postgres|mysql) \S+ failed: timed out \(the scraper's timeout\)$/)
        expect(Date.now() - started).toBeLessThan(2_000)
        for (let attempt = 0; attempt < 20 && open.size > 0; attempt += 1) await new Promise((resolve) => setTimeout(resolve, 25))
        expect(open.size).toBe(0)
      }
    } finally {
      silent.close()
    }
  })
})

describe('sql scraper on MariaDB', () => {
  it('rows, single columns, exact decimals and big integers through a URL, a Go DSN and a stored connection', async (test) => {
    if (mariadbDown) return test.skip(mariadbDown)
    const rows = await sqlSource.fetch({ connection: MARIADB_URL, query: `SELECT * FROM ${table} ORDER BY id` }, context())
    expect(rows.map((document) => document.config)).toEqual([
      { id: 1, name: 'acme', seats: 25.5, big: '9007199254740993', created: '2026-01-02T03:04:05.000Z', doc: '{"sso": true}' },
      { id: 2, name: 'globex', seats: 3, big: 7, created: null, doc: null },
    ])
    const single = await sqlSource.fetch({ connection: 'root:@tcp(127.0.0.1:3306)/test', query: `SELECT doc FROM ${table} WHERE id = 1` }, context())
    expect(single[0]!.config).toEqual({ sso: true })
    await testDb.db.query(
      `INSERT INTO connections (name, namespace, type, url, username) VALUES ('maria', 'default', 'mysql', 'tcp(127.0.0.1:3306)/test', 'root')`,
    )
    const stored = await sqlSource.fetch({ connection: 'connection://default/maria', query: `SELECT name FROM ${table} ORDER BY id` }, context())
    expect(stored.map((document) => document.config)).toEqual(['acme', 'globex'])
    // A bare host:port says nothing of the database: the driver field does, and auth gives the user.
    const viaDriver = await sqlSource.fetch({ connection: '127.0.0.1:3306', driver: 'mariadb', auth: { username: { value: 'root' } }, query: 'SELECT 1 AS one' }, context())
    expect(viaDriver.map((document) => document.config)).toEqual([1])
  })

  it('fails with the server error, and stops (KILL QUERY) at the scraper timeout', async (test) => {
    if (mariadbDown) return test.skip(mariadbDown)
    await expect(sqlSource.fetch({ connection: MARIADB_URL, query: 'SELECT * FROM no_such_table' }, context()))
      .rejects.toThrow(/^query on mysql mysql:\/\/root@127\.0\.0\.1:3306\/test failed: Table 'test\.no_such_table' doesn't exist$/)
    const started = Date.now()
    await expect(sqlSource.fetch({ connection: MARIADB_URL, query: 'SELECT SLEEP(30) AS slept' }, context({ signal: AbortSignal.timeout(300) })))
      .rejects.toThrow(/failed: timed out \(the scraper's timeout\)$/)
    expect(Date.now() - started).toBeLessThan(3_000)
    let running = 1
    for (let attempt = 0; attempt < 40 && running > 0; attempt += 1) {
      await new Promise((resolve) => setTimeout(resolve, 50))
      const [list] = await mariadb!.query(`SELECT COUNT(*) AS n FROM information_schema.PROCESSLIST WHERE INFO = 'SELECT SLEEP(30) AS slept'`)
      running = Number((list as { n: number }[])[0]!.n)
    }
    expect(running).toBe(0)
  })
})
