import fc from 'fast-check'
import { afterAll, beforeAll, expect, test } from 'vitest'
import { startPostgrest, type PostgrestHarness } from './postgrest-fixture.ts'

/**
 * Throws random and hostile query strings at the engine: every answer must be a success or a
 * PostgREST-shaped client error (never a 5xx or a stack), and reads must leave data unchanged.
 * LOOKOUT_FUZZ_RUNS sets the number of requests (default 2000, about 10 s).
 */
const RUNS = Number(process.env.LOOKOUT_FUZZ_RUNS ?? 2000)
const TABLES = ['people', 'teams', 'team_members', 'config_items', 'config_relationships', 'config_changes', 'incidents', 'hypotheses', 'evidences']

let h: PostgrestHarness

async function fingerprint(): Promise<string> {
  const parts: string[] = []
  for (const table of TABLES) {
    const { rows } = await h.testDb.db.query<{ digest: string | null }>(
      `SELECT md5(coalesce(string_agg(t::text, '|' ORDER BY t::text), '')) AS digest FROM ${table} t`,
    )
    parts.push(`${table}:${rows[0]?.digest}`)
  }
  return parts.join(',')
}

beforeAll(async () => {
  h = await startPostgrest({ maxRows: 50 })
}, 60_000)
afterAll(async () => {
  await h?.close()
})

const hostile = fc.constantFrom(
  "'; DROP TABLE people; --",
  '1; DELETE FROM people',
  '") OR 1=1 --',
  "\\'; SELECT pg_sleep(10); --",
  '$1',
  '$$',
  '%00',
  '\u0000',
  '💥🚀',
  'ü\u200bñ',
  '((((((((',
  '))))',
  '"',
  '\\',
  ',,,',
  '*',
  '{a,b}',
  '[1,2)',
  '{"a":1}',
  'null',
  'not_null',
  'NaN',
  '-0',
  '9'.repeat(40),
  'a'.repeat(300),
)
const value = fc.oneof(hostile, fc.string({ maxLength: 12 }), fc.integer().map(String), fc.string({ unit: 'grapheme', maxLength: 6 }))
// Embed names too ('teams', 'created_by'): filters and logic-tree leaves may test an embed's presence.
const column = fc.constantFrom('id', 'name', 'age', 'tags', 'meta', 'meta->team->>name', 'meta->level', 'bio', 'available', 'active', 'created_at', 'nope', '"name"', 'name;drop', 'id)--', 'teams', 'created_by')
const operator = fc.constantFrom(
  'eq', 'neq', 'gt', 'gte', 'lt', 'lte', 'like', 'ilike', 'match', 'imatch', 'in', 'is', 'isdistinct', 'fts', 'plfts',
  'phfts', 'wfts', 'fts(english)', 'fts(nope)', 'cs', 'cd', 'ov', 'sl', 'sr', 'nxr', 'nxl', 'adj', 'eq(any)', 'like(all)', 'bogus',
)
const filterExpr = fc.tuple(fc.boolean(), operator, value).map(([not, op, v]) => {
  const operand = op === 'in' ? `(${v},${v})` : op.includes('(any)') || op.includes('(all)') ? `{${v}}` : v
  return `${not ? 'not.' : ''}${op}.${operand}`
})
const logicTree: fc.Arbitrary<string> = fc.letrec((tie) => ({
  tree: fc.tuple(fc.constantFrom('and', 'or', 'not.or'), fc.array(tie('item'), { minLength: 1, maxLength: 4 })).map(
    ([kind, items]) => `${kind}(${items.join(',')})`,
  ),
  item: fc.oneof(
    { depthSize: 'small', withCrossShrink: true },
    fc.tuple(column, filterExpr).map(([c, f]) => `${c}.${f}`),
    tie('tree'),
  ),
})).tree as fc.Arbitrary<string>
const selectItem: fc.Arbitrary<string> = fc.letrec((tie) => ({
  item: fc.oneof(
    { depthSize: 'small' },
    column,
    fc.constant('*'),
    fc.tuple(fc.constantFrom('x', 'a b', 'ü'), column).map(([alias, c]) => `${alias}:${c}`),
    column.map((c) => `${c}::text`),
    column.map((c) => `${c}::nope`),
    fc.tuple(
      fc.constantFrom('teams', 'people', 'team_members', 'created_by', 'commander:commander_id', 'hypotheses', 'configs', 'nope', 'teams!team_members', 'teams!inner'),
      fc.array(tie('item'), { maxLength: 3 }),
    ).map(([name, items]) => `${name}(${items.join(',')})`),
  ),
})).item as fc.Arbitrary<string>

const pair = fc.oneof(
  fc.tuple(column, filterExpr),
  fc.tuple(fc.constant('select'), fc.array(selectItem, { minLength: 1, maxLength: 4 }).map((items) => items.join(','))),
  fc.tuple(fc.constant('or'), logicTree.map((tree) => tree.slice(tree.indexOf('(')))),
  fc.tuple(fc.constant('and'), logicTree.map((tree) => tree.slice(tree.indexOf('(')))),
  fc.tuple(fc.constant('order'), fc.tuple(column, fc.constantFrom('', '.asc', '.desc.nullslast', '.nullsfirst', '.sideways')).map(([c, d]) => `${c}${d}`)),
  fc.tuple(fc.constantFrom('limit', 'offset', 'teams.limit', 'nope.order'), fc.oneof(fc.nat(100).map(String), value)),
  fc.tuple(fc.string({ maxLength: 10 }), fc.string({ maxLength: 20 })),
)
const relation = fc.constantFrom(...TABLES, 'configs', 'nope', 'rpc/search_people', 'rpc/add_numbers', 'rpc/nope', '%27;drop', 'rpc')
const headers = fc.record(
  {
    Prefer: fc.constantFrom('count=exact', 'count=planned', 'count=estimated', 'return=representation', 'count=bogus'),
    Accept: fc.constantFrom('application/json', 'application/vnd.pgrst.object+json', 'text/csv', '*/*', 'image/png'),
    Range: fc.constantFrom('0-9', '5-1', '3-', 'bytes=0-1', 'x'),
  },
  { requiredKeys: [] },
)

// Deep nesting and huge lists are exercised once each, outside the random mix.
const EXTREMES = [
  `/people?or=${'or('.repeat(60)}id.eq.1${')'.repeat(60)}`.replace('or=or(', 'or=('),
  `/people?select=${'teams('.repeat(200)}id${')'.repeat(200)}`,
  `/people?id=in.(${Array.from({ length: 1500 }, (_, i) => i).join(',')})`,
  `/people?name=in.(${Array.from({ length: 300 }, (_, i) => `"v${i},\\"x"`).join(',')})`,
  '/people?select=' + encodeURIComponent('name,"weird""col"'),
  '/people?%E0%A4%A=1',
  '/%E0%A4%A',
]

function isPostgrestShaped(body: unknown): boolean {
  if (typeof body !== 'object' || body === null) return false
  const keys = Object.keys(body).sort().join(',')
  return keys === 'code,details,hint,message' && typeof (body as { code: unknown }).code === 'string'
}

const statuses = new Map<number, number>()

async function check(path: string, requestHeaders: Record<string, string>) {
  const response = await fetch(`${h.url}${path}`, { headers: requestHeaders })
  const text = await response.text()
  const status = response.status
  statuses.set(status, (statuses.get(status) ?? 0) + 1)
  const context = `${status} ${path} ${JSON.stringify(requestHeaders)} → ${text.slice(0, 300)}`
  expect(status < 500, context).toBe(true)
  if (status >= 300) {
    let body: unknown
    try {
      body = JSON.parse(text)
    } catch {
      body = null
    }
    expect(isPostgrestShaped(body), context).toBe(true)
    expect(text.includes('    at '), context).toBe(false)
  }
}

test('hostile and random query strings never break the engine nor change data', async () => {
  const before = await fingerprint()
  for (const path of EXTREMES) await check(path, {})
  const started = Date.now()
  await fc.assert(
    fc.asyncProperty(relation, fc.array(pair, { maxLength: 5 }), headers, fc.boolean(), async (rel, pairs, hdrs, encode) => {
      const query = pairs
        .map(([key, val]) => (encode ? `${encodeURIComponent(key)}=${encodeURIComponent(val)}` : `${key}=${val}`.replace(/[#\s%&]/g, (c) => encodeURIComponent(c))))
        .join('&')
      await check(`/${rel}${query ? `?${query}` : ''}`, hdrs as Record<string, string>)
    }),
    { numRuns: RUNS },
  )
  const elapsed = Date.now() - started
  expect(await fingerprint()).toBe(before)
  console.info(`postgrest fuzz: ${RUNS} runs in ${elapsed} ms, statuses ${JSON.stringify(Object.fromEntries(statuses))}`)
  // The mix must reach real queries, not only parse errors.
  expect(statuses.get(200) ?? 0).toBeGreaterThan(RUNS / 40)
}, 600_000)
