import { afterAll, beforeAll, describe, expect, it } from 'vitest'
import { createTestDb, type TestDb } from '#tests/support/test-db.ts'

/**
 * Migration 0250 gave checks and checks_unlogged column-comparing BEFORE UPDATE triggers in place
 * of the generic set_updated_at / reset_is_pushed (0001), which compare the rows as jsonb. Each
 * table here is paired with a copy that keeps the generic triggers; the same updates on both must
 * leave the same rows.
 */
const REMOTE_AGENT = '11111111-1111-1111-1111-111111111111'

describe('check write-path triggers (migration 0250)', () => {
  let testDb: TestDb

  beforeAll(async () => {
    testDb = await createTestDb()
    const { db } = testDb
    await db.query(`INSERT INTO agents (id, name) VALUES ($1, 'remote-agent')`, [REMOTE_AGENT])
    const { rows } = await db.query<{ id: string }>(
      `INSERT INTO canaries (name, namespace, spec, source) VALUES ('triggers', 'default', '{}'::jsonb, 'UI') RETURNING id`,
    )
    const canary = rows[0]!.id
    await db.query(
      `INSERT INTO checks (canary_id, agent_id, type, name, spec, labels, status, updated_at, is_pushed)
       SELECT $1, CASE WHEN g = 4 THEN $2::uuid ELSE '00000000-0000-0000-0000-000000000000'::uuid END, 'http', 'check-' || g,
              jsonb_build_object('url', 'http://example.org/' || g), '{"team":"a"}'::jsonb, 'healthy', '2001-01-01T00:00:00Z', true
       FROM generate_series(1, 5) g`,
      [canary, REMOTE_AGENT],
    )
    await db.query(
      `INSERT INTO checks_unlogged (check_id, canary_id, status, updated_at, is_pushed)
       SELECT id, canary_id, 'healthy', '2001-01-01T00:00:00Z', true FROM checks`,
    )
    // The twins: same columns and rows, the generic triggers of 0001 (and checks' transition-time trigger).
    await db.exec(`
      CREATE TABLE checks_generic (LIKE checks INCLUDING ALL);
      INSERT INTO checks_generic SELECT * FROM checks;
      CREATE TRIGGER checks_generic_is_pushed BEFORE UPDATE ON checks_generic FOR EACH ROW EXECUTE FUNCTION reset_is_pushed();
      CREATE TRIGGER checks_generic_last_transition_time BEFORE INSERT OR UPDATE ON checks_generic FOR EACH ROW EXECUTE FUNCTION checks_set_last_transition_time();
      CREATE TRIGGER checks_generic_updated_at BEFORE UPDATE ON checks_generic FOR EACH ROW EXECUTE FUNCTION set_updated_at();
      CREATE TABLE checks_unlogged_generic (LIKE checks_unlogged INCLUDING ALL);
      INSERT INTO checks_unlogged_generic SELECT * FROM checks_unlogged;
      CREATE TRIGGER checks_unlogged_generic_is_pushed BEFORE UPDATE ON checks_unlogged_generic FOR EACH ROW EXECUTE FUNCTION reset_is_pushed();
      CREATE TRIGGER checks_unlogged_generic_updated_at BEFORE UPDATE ON checks_unlogged_generic FOR EACH ROW EXECUTE FUNCTION set_updated_at();
    `)
  }, 60_000)

  afterAll(async () => {
    await testDb?.drop()
  })

  // updated_at becomes now() when a trigger bumps it: compared as "still the seeded value or not".
  const snapshot = async (table: string, key: string) =>
    (
      await testDb.db.query(
        `SELECT to_jsonb(t) - 'updated_at' - 'last_transition_time' AS row, t.updated_at = '2001-01-01T00:00:00Z' AS kept_updated_at,
                to_jsonb(t) ->> 'last_transition_time' IS NOT NULL AS transitioned
         FROM ${table} t ORDER BY ${key}`,
      )
    ).rows

  const both = async (sql: (table: string) => string) => {
    await testDb.db.query(sql('checks'))
    await testDb.db.query(sql('checks_generic'))
    expect(await snapshot('checks', 'name')).toEqual(await snapshot('checks_generic', 'name'))
  }

  const bothUnlogged = async (sql: (table: string) => string) => {
    await testDb.db.query(sql('checks_unlogged'))
    await testDb.db.query(sql('checks_unlogged_generic'))
    expect(await snapshot('checks_unlogged', 'check_id')).toEqual(await snapshot('checks_unlogged_generic', 'check_id'))
  }

  it('treats checks as the generic triggers do: pushes, no-op updates, real changes, remote rows and deletions', async () => {
    // Only is_pushed: nothing else changed, so neither is_pushed is reset nor updated_at bumped.
    await both((t) => `UPDATE ${t} SET is_pushed = true WHERE name = 'check-1'`)
    // A no-op update.
    await both((t) => `UPDATE ${t} SET status = status WHERE name = 'check-2'`)
    // A status change: last_transition_time, updated_at and is_pushed all move.
    await both((t) => `UPDATE ${t} SET status = 'unhealthy', last_runtime = '2002-02-02T00:00:00Z' WHERE name IN ('check-3', 'check-4')`)
    // The engine's update (same status, new runtimes).
    await both((t) => `UPDATE ${t} SET status = 'healthy', last_runtime = '2003-03-03T00:00:00Z', next_runtime = '2003-03-03T00:00:30Z' WHERE name = 'check-1'`)
    // A change inside a jsonb column.
    await both((t) => `UPDATE ${t} SET labels = '{"team":"b"}'::jsonb WHERE name = 'check-2'`)
    // Soft deletion, then a second deletion time (the first one wins), then an undelete.
    await both((t) => `UPDATE ${t} SET deleted_at = '2004-04-04T00:00:00Z' WHERE name = 'check-5'`)
    await both((t) => `UPDATE ${t} SET deleted_at = '2005-05-05T00:00:00Z' WHERE name = 'check-5'`)
    await both((t) => `UPDATE ${t} SET deleted_at = NULL, description = 'back' WHERE name = 'check-5'`)

    const rows = await snapshot('checks', 'name')
    // check-4 belongs to a remote agent: its updated_at is the agent's, even after a change.
    expect(rows.map((row) => row.kept_updated_at)).toEqual([false, false, false, true, false])
    expect(rows[3]!.row).toMatchObject({ name: 'check-4', status: 'unhealthy', is_pushed: false })
    expect(rows.find((row) => (row.row as { name: string }).name === 'check-5')!.row).toMatchObject({ deleted_at: null, description: 'back' })
  })

  it('treats checks_unlogged as the generic triggers do', async () => {
    const first = (await testDb.db.query<{ check_id: string }>('SELECT check_id FROM checks_unlogged ORDER BY check_id LIMIT 1')).rows[0]!.check_id
    await bothUnlogged((t) => `UPDATE ${t} SET is_pushed = true WHERE check_id = '${first}'`)
    await bothUnlogged((t) => `UPDATE ${t} SET status = status, last_runtime = last_runtime`)
    await bothUnlogged((t) => `UPDATE ${t} SET status = 'unhealthy', last_runtime = '2002-02-02T00:00:00Z' WHERE check_id = '${first}'`)
    await bothUnlogged((t) => `UPDATE ${t} SET next_runtime = '2003-03-03T00:00:00Z'`)
    const rows = await snapshot('checks_unlogged', 'check_id')
    expect(rows.every((row) => !row.kept_updated_at)).toBe(true)
    expect(rows.every((row) => (row.row as { is_pushed: boolean }).is_pushed === false)).toBe(true)
  })
})
