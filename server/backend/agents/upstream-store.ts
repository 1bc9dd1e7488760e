import { z } from 'zod'
import type { Db, Queryable } from '#server/db/client.ts'

/**
 * What an agent replicates upstream and how the central instance stores it. Tables go in
 * dependency order (a check after its canary, a change after its config item), which is the
 * order the agent drains them and the order one push body is stored in.
 *
 * Ownership is the point of the whole module: whatever the body says, every row is stamped with
 * the pushing agent's id, a row already owned by someone else (the local agent, another agent)
 * is never overwritten, and rows that hang off a parent (statuses, changes, analysis) are kept
 * only when that parent is the pushing agent's.
 */
export type PushTable = {
  name: PushTableName
  key: string[]
  /** Whether the table carries agent_id (stamped); child tables are owned through a parent. */
  stamped: boolean
  /** SQL over the incoming row `r` that must hold for it to be stored; `$2` is the agent id. */
  owned?: string
  /** SQL over the existing row (named by the table) that must hold for a conflict to update it. */
  ownsExisting: string
  /** Columns rewritten on the way in: references the central instance cannot honour are cleared. */
  rewrite?: Record<string, string>
}

export const PUSH_TABLE_NAMES = [
  'topologies',
  'canaries',
  'checks',
  'check_statuses',
  'config_scrapers',
  'config_items',
  'config_changes',
  'config_analysis',
  'components',
] as const
export type PushTableName = (typeof PUSH_TABLE_NAMES)[number]

const ownedCheck = `EXISTS (SELECT 1 FROM checks o WHERE o.id = r.check_id AND o.agent_id = $2)`
const ownedConfig = (column: string) => `EXISTS (SELECT 1 FROM config_items o WHERE o.id = r.${column} AND o.agent_id = $2)`
/**
 * A reference kept only when it points at the pusher's own row; otherwise cleared. A parent of
 * the same table may also arrive in the same body (a tree pushed at once); a parent of an
 * earlier table is already stored by then, in the same transaction.
 */
const ownParentOrNull = (table: string, column: string, options: { sameTable?: boolean; alsoAllow?: string } = {}) =>
  `CASE WHEN r.${column} IS NULL ${options.alsoAllow ? `OR ${options.alsoAllow}` : ''}
             OR EXISTS (SELECT 1 FROM ${table} o WHERE o.id = r.${column} AND o.agent_id = $2)
             ${options.sameTable ? `OR r.${column}::text IN (SELECT e->>'id' FROM jsonb_array_elements($1::jsonb) e)` : ''}
        THEN r.${column} END`

export const PUSH_TABLES: readonly PushTable[] = [
  { name: 'topologies', key: ['id'], stamped: true, ownsExisting: 'topologies.agent_id = $2' },
  { name: 'canaries', key: ['id'], stamped: true, ownsExisting: 'canaries.agent_id = $2' },
  {
    name: 'checks',
    key: ['id'],
    stamped: true,
    owned: `EXISTS (SELECT 1 FROM canaries o WHERE o.id = r.canary_id AND o.agent_id = $2)`,
    ownsExisting: 'checks.agent_id = $2',
  },
  { name: 'check_statuses', key: ['check_id', 'time'], stamped: false, owned: ownedCheck, ownsExisting: 'true' },
  { name: 'config_scrapers', key: ['id'], stamped: true, ownsExisting: 'config_scrapers.agent_id = $2', rewrite: { application_id: 'NULL' } },
  {
    name: 'config_items',
    key: ['id'],
    stamped: true,
    ownsExisting: 'config_items.agent_id = $2',
    rewrite: {
      // The nil scraper is every instance's own System scraper, so it may stay.
      scraper_id: ownParentOrNull('config_scrapers', 'scraper_id', { alsoAllow: `r.scraper_id = '00000000-0000-0000-0000-000000000000'` }),
      parent_id: ownParentOrNull('config_items', 'parent_id', { sameTable: true }),
    },
  },
  {
    name: 'config_changes',
    key: ['id'],
    stamped: false,
    owned: ownedConfig('config_id'),
    ownsExisting: `EXISTS (SELECT 1 FROM config_items o WHERE o.id = config_changes.config_id AND o.agent_id = $2)`,
  },
  {
    name: 'config_analysis',
    key: ['id'],
    stamped: false,
    owned: ownedConfig('config_id'),
    ownsExisting: `EXISTS (SELECT 1 FROM config_items o WHERE o.id = config_analysis.config_id AND o.agent_id = $2)`,
    rewrite: { scraper_id: ownParentOrNull('config_scrapers', 'scraper_id') },
  },
  {
    name: 'components',
    key: ['id'],
    stamped: true,
    owned: `(r.topology_id IS NULL OR EXISTS (SELECT 1 FROM topologies o WHERE o.id = r.topology_id AND o.agent_id = $2))`,
    ownsExisting: 'components.agent_id = $2',
    rewrite: { parent_id: ownParentOrNull('components', 'parent_id', { sameTable: true }), config_id: ownParentOrNull('config_items', 'config_id') },
  },
]

const MAX_ROWS_PER_PUSH = 20_000
const Rows = z.array(z.record(z.string(), z.unknown())).max(MAX_ROWS_PER_PUSH)

/** The push body: the platform's PushData keys, each a list of rows as the agent's tables hold them. */
export const PushBodySchema = z
  .object(Object.fromEntries(PUSH_TABLE_NAMES.map((name) => [name, Rows.optional()])) as Record<PushTableName, z.ZodOptional<typeof Rows>>)
  .passthrough()
  .superRefine((body, ctx) => {
    const total = PUSH_TABLE_NAMES.reduce((sum, name) => sum + (body[name]?.length ?? 0), 0)
    if (total > MAX_ROWS_PER_PUSH) ctx.addIssue({ code: 'custom', message: `a push carries at most ${MAX_ROWS_PER_PUSH} rows (got ${total})` })
  })
export type PushBody = z.infer<typeof PushBodySchema>

/** `fallback`: the column's default, used where a NOT NULL column is missing from a pushed row. */
type Column = { name: string; references: string | null; fallback: string | null }

/** Writable columns of each pushed table, read from the live catalog once per process. */
async function columnsOf(db: Queryable): Promise<Map<string, Column[]>> {
  const { rows } = await db.query<{ table_name: string; column_name: string; references: string | null; fallback: string | null }>(
    `SELECT c.table_name::text, c.column_name::text,
            CASE WHEN c.is_nullable = 'NO' THEN c.column_default::text END AS fallback,
            (SELECT ft.relname::text
               FROM pg_constraint k
               JOIN pg_class t ON t.oid = k.conrelid
               JOIN pg_class ft ON ft.oid = k.confrelid
               JOIN pg_attribute a ON a.attrelid = k.conrelid AND a.attnum = ANY (k.conkey)
              WHERE k.contype = 'f' AND t.relname = c.table_name AND a.attname = c.column_name
                AND t.relnamespace = 'public'::regnamespace LIMIT 1) AS references
       FROM information_schema.columns c
      WHERE c.table_schema = 'public' AND c.table_name = ANY ($1::text[]) AND c.is_generated = 'NEVER'
      ORDER BY c.table_name, c.ordinal_position`,
    [[...PUSH_TABLE_NAMES]],
  )
  const byTable = new Map<string, Column[]>()
  for (const row of rows) {
    const list = byTable.get(row.table_name) ?? []
    list.push({ name: row.column_name, references: row.references, fallback: row.fallback })
    byTable.set(row.table_name, list)
  }
  return byTable
}

const quote = (identifier: string) => `"${identifier.replace(/"/g, '""')}"`

function upsertSql(table: PushTable, columns: Column[]): string {
  const written = columns.filter((column) => column.name !== 'is_pushed')
  const values = written.map((column) => {
    if (column.name === 'agent_id' && table.stamped) return '$2::uuid'
    const rewrite = table.rewrite?.[column.name]
    if (rewrite) return rewrite
    // People are the agent's own: the central instance has no such rows to point at.
    if (column.references === 'people') return 'NULL'
    return column.fallback ? `coalesce(r.${quote(column.name)}, ${column.fallback})` : `r.${quote(column.name)}`
  })
  const keys = table.key.map(quote).join(', ')
  const updates = written.filter((column) => !table.key.includes(column.name)).map((column) => `${quote(column.name)} = EXCLUDED.${quote(column.name)}`)
  return `INSERT INTO ${table.name} AS ${table.name} (${written.map((column) => quote(column.name)).join(', ')})
SELECT DISTINCT ON (${table.key.map((key) => `r.${quote(key)}`).join(', ')}) ${values.join(', ')}
  FROM jsonb_populate_recordset(NULL::${table.name}, $1::jsonb) r
 WHERE ${table.owned ?? 'true'}
ON CONFLICT (${keys}) DO UPDATE SET ${updates.join(', ')}
 WHERE ${table.ownsExisting}`
}

export type PushCounts = Partial<Record<PushTableName, number>>

/**
 * Stores one push for an agent, in one transaction, and marks the agent seen. Storing the same
 * body twice leaves the same rows (upserts on each table's key). Returns rows written per table;
 * rows refused for ownership are not counted.
 */
export function createUpstreamStore(db: Db) {
  let statements: Promise<Map<PushTableName, string>> | null = null
  const prepare = () =>
    (statements ??= columnsOf(db).then(
      (columns) => new Map(PUSH_TABLES.map((table) => [table.name, upsertSql(table, columns.get(table.name) ?? [])])),
      (error: unknown) => {
        statements = null
        throw error
      },
    ))
  return {
    async store(agentId: string, body: PushBody): Promise<PushCounts> {
      const sql = await prepare()
      return db.transaction(async (tx) => {
        const counts: PushCounts = {}
        for (const table of PUSH_TABLES) {
          const rows = body[table.name]
          if (!rows || rows.length === 0) continue
          const result = await tx.query(sql.get(table.name)!, [JSON.stringify(rows), agentId])
          counts[table.name] = result.rowCount
        }
        await tx.query('UPDATE agents SET last_seen = now(), last_received = now() WHERE id = $1', [agentId])
        return counts
      })
    },
    async seen(agentId: string): Promise<void> {
      await db.query('UPDATE agents SET last_seen = now() WHERE id = $1', [agentId])
    },
  }
}
