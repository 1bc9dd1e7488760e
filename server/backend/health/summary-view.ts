import { z } from 'zod'
import type { Db } from '#server/db/client.ts'
import {
  ALL_TAB,
  effectiveGroupBy,
  LABEL_PREFIX,
  SORT_COLUMNS,
  type SummaryViewRequest,
} from '#contract/canary/summary-view.ts'
import { ENTRY_FILTER, ENTRY_JOINS, ENTRY_JSON, MERGED_LABELS, SUMMARY_SETTINGS, SummaryInputError, summaryParams, WINDOW_CTES, type SummaryQuery } from './canary-summary.ts'

/*
 * The /health list in SQL (docs/decisions/017-health-list-in-sql.md): Lookout's extension of
 * GET /api/summary (`lookout_view`, contract/canary/summary-view.ts) answers only the page the
 * list shows plus the counts it displays, instead of every check's entry for the console to
 * filter, group and page. The rules are health-model.ts's (spec 001 §2–§4), which the console
 * still applies to a whole summary from canary-checker or Mission Control:
 *
 * - filters: hide passing (status healthy), the search (case-insensitive, in description,
 *   canary name and name), label includes (one of the values per key) and excludes;
 * - tabs: checks per value of the tab field after the filters; a tab that is not among them
 *   reads as All;
 * - rows: checks, or groups of checks by the group field, sorted by the column (then by name,
 *   then in the summary's own order, name and id), and one page of them (the last when the page
 *   asked for is past it);
 * - names compare lower-cased under ICU's root collation, which orders as the console's
 *   String.prototype.localeCompare does (both engines ship `und-x-icu`).
 *
 * Entries (the summary's JSON, byte for byte) are written only for the checks the page shows:
 * at 10,000 checks writing all of them was half of the statement.
 */

const ViewSchema = z.object({
  hidePassing: z.boolean(),
  query: z.string().max(200),
  labels: z.object({
    include: z.array(z.tuple([z.string().max(500), z.array(z.string().max(500)).max(200)])).max(200),
    exclude: z.array(z.tuple([z.string().max(500), z.string().max(500)])).max(200),
  }),
  tabBy: z.string().min(1).max(500),
  tab: z.string().min(1).max(500),
  groupBy: z.string().min(1).max(500),
  sortBy: z.enum(SORT_COLUMNS).nullable(),
  sortDesc: z.boolean(),
  page: z.number().int().min(1).max(10_000_000),
  pageSize: z.number().int().min(1).max(500),
  expanded: z.array(z.string().max(500)).max(200),
}) satisfies z.ZodType<SummaryViewRequest>

/** The `lookout_view` parameter, or a 400 naming what is wrong with it. */
export function parseSummaryView(text: string): SummaryViewRequest {
  let value: unknown
  try {
    value = JSON.parse(text)
  } catch {
    throw new SummaryInputError('invalid request: lookout_view must be JSON')
  }
  const parsed = ViewSchema.safeParse(value)
  if (!parsed.success) {
    const issue = parsed.error.issues[0]!
    throw new SummaryInputError(`invalid request: lookout_view.${issue.path.join('.')}: ${issue.message}`)
  }
  return parsed.data
}

const NIL_AGENT = `'00000000-0000-0000-0000-000000000000'::uuid`

/**
 * A list field of a check in `b` (health-model.ts fieldValue); label fields read the key from
 * the parameter `param`, every other field is one of these constant expressions.
 */
function fieldSql(field: string, param: string): string {
  if (field.startsWith(LABEL_PREFIX)) return `coalesce(b.labels ->> ${param}::text, '')`
  switch (field) {
    case 'namespace':
      return `coalesce(nullif(b.namespace, ''), 'none')`
    case 'agent_id':
      return 'b.agent'
    case 'canary_name':
      return `coalesce(b.canary_name, '')`
    case 'name':
      return `coalesce(b.name, '')`
    case 'description':
      return `coalesce(b.description, '')`
    case 'type':
      return 'b.type'
    default:
      return `''`
  }
}

const ICU = 'COLLATE "und-x-icu"'
const CHECK_NAME = `lower(coalesce(nullif(k.name, ''), k.description, '')) ${ICU}`
const CHECK_KEYS = {
  health: `CASE k.status WHEN 'unhealthy' THEN 0 WHEN 'healthy' THEN 2 ELSE 1 END`,
  uptime: `coalesce(k.passed::float8 / nullif(k.passed + k.failed, 0), -1)`,
  latency: 'coalesce(k.latency, -1)',
}
const GROUP_NAME = `lower(coalesce(nullif(g.key, ''), 'none')) ${ICU}`
const GROUP_KEYS = {
  health: 'CASE WHEN g.healthy = g.n THEN 2 WHEN g.unhealthy = g.n THEN 0 ELSE 1 END',
  uptime: 'g.passing::float8 / g.n',
  latency: 'coalesce(g.latency, -1)',
}

/** sortRows' order: the column (reversed by desc), then the name ascending, then the summary's order (`pos`). */
function orderSql(name: string, keys: Record<'health' | 'uptime' | 'latency', string>, pos: string, view: SummaryViewRequest): string {
  const direction = view.sortDesc ? 'DESC' : 'ASC'
  if (view.sortBy === null) return `${name}, ${pos}`
  if (view.sortBy === 'name') return `${name} ${direction}, ${pos}`
  return `${keys[view.sortBy]} ${direction}, ${name}, ${pos}`
}

// $1–$12 are the summary's (summaryParams); the list's own follow.
const P = {
  hidePassing: '$13::boolean',
  query: '$14::text',
  include: '$15::jsonb',
  exclude: '$16::jsonb',
  tabLabel: '$17',
  tab: '$18::text',
  groupLabel: '$19',
  expanded: '$20::text[]',
  page: '$21::integer',
  pageSize: '$22::integer',
}

export function summaryViewSql(view: SummaryViewRequest, rawOnly: boolean): string {
  const groupBy = effectiveGroupBy(view.groupBy)
  const checkOrder = orderSql(CHECK_NAME, CHECK_KEYS, 'k.pos', view)
  // Every parameter is named once here, so each has a type whichever shape the statement takes.
  const base = `${WINDOW_CTES(rawOnly)}, view_params AS (
  SELECT ${P.tabLabel}::text AS tab_label, ${P.groupLabel}::text AS group_label, ${P.expanded} AS expanded
), base AS MATERIALIZED (
  SELECT c.id, c.name, ca.name AS canary_name, coalesce(c.namespace, '') AS namespace, coalesce(c.type, '') AS type,
    coalesce(c.status, '') AS status, nullif(c.description, '') AS description, ${MERGED_LABELS} AS labels,
    ${view.tabBy === 'agent_id' ? `coalesce((SELECT a.name FROM agents a WHERE a.id = coalesce(c.agent_id, ${NIL_AGENT})),
      CASE WHEN coalesce(c.agent_id, ${NIL_AGENT}) = ${NIL_AGENT} THEN 'local' ELSE c.agent_id::text END)` : 'NULL::text'} AS agent,
    CASE WHEN h.total > 0 THEN h.passed ELSE (f.status IS TRUE)::integer END AS passed,
    CASE WHEN h.total > 0 THEN h.failed ELSE (f.status IS FALSE)::integer END AS failed,
    CASE WHEN h.total > 0 THEN coalesce(nullif(l.p95, 0), nullif(l.p97, 0), nullif(l.p99, 0)) ELSE nullif(f.duration, 0) END AS latency,
    row_number() OVER (ORDER BY c.name, c.id) AS pos
  FROM checks c
  JOIN canaries ca ON ca.id = c.canary_id
  LEFT JOIN counts h ON h.check_id = c.id
  LEFT JOIN latency l ON l.check_id = c.id
  LEFT JOIN LATERAL (
    SELECT s.status, s.duration FROM check_statuses s
    WHERE coalesce(h.total, 0) = 0 AND s.check_id = c.id AND s.time <= $4 ORDER BY s.time DESC LIMIT 1) AS f ON true
  WHERE ${ENTRY_FILTER}
), filtered AS MATERIALIZED (
  SELECT b.*, ${fieldSql(view.tabBy, P.tabLabel)} AS tab FROM base b
  WHERE (NOT ${P.hidePassing} OR b.status <> 'healthy')
    AND (${P.query} = '' OR strpos(lower(coalesce(b.description, '')), ${P.query}) > 0
      OR strpos(lower(coalesce(b.canary_name, '')), ${P.query}) > 0 OR strpos(lower(b.name), ${P.query}) > 0)
    AND NOT EXISTS (SELECT 1 FROM jsonb_array_elements(${P.exclude}) x WHERE b.labels -> (x ->> 0) = x -> 1)
    AND NOT EXISTS (SELECT 1 FROM jsonb_array_elements(${P.include}) i
      WHERE NOT EXISTS (SELECT 1 FROM jsonb_array_elements(i -> 1) v WHERE b.labels -> (i ->> 0) = v))
), chosen AS MATERIALIZED (
  SELECT b.* FROM filtered b
  WHERE ${P.tab} = '${ALL_TAB}' OR b.tab = ${P.tab} OR NOT EXISTS (SELECT 1 FROM filtered t WHERE t.tab = ${P.tab})
)`
  const frame = (rows: string) => `
SELECT '{"counts":' || (SELECT json_build_object('all', count(*), 'healthy', count(*) FILTER (WHERE b.status = 'healthy')) FROM base b)::text
  || ',"labels":' || (SELECT coalesce(json_agg(json_build_array(p.key, p.value)), '[]'::json) FROM (
       SELECT DISTINCT e.key, CASE WHEN jsonb_typeof(e.value) = 'string' THEN e.value #>> '{}' END AS value
       FROM base b, jsonb_each(b.labels) e) p)::text
  || ',"tabs":' || (SELECT coalesce(json_agg(json_build_array(t.tab, t.n)), '[]'::json) FROM (SELECT b.tab, count(*) AS n FROM filtered b GROUP BY b.tab) t)::text
  || ',"totalChecks":' || (SELECT count(*) FROM chosen)
  || ',"totalRows":' || paging.total || ',"page":' || paging.page
  || ',"rows":' || coalesce((SELECT '[' || string_agg(r.row, ',' ORDER BY r.rn) || ']' FROM (${rows}) r), '[]') || '}' AS body
FROM paging`
  const paging = (source: string) => `, paging AS (
  SELECT count(*)::integer AS total, least(${P.page}, greatest(1, ceil(count(*)::numeric / ${P.pageSize})::integer)) AS page FROM ${source}
)`
  const onPage = `o.rn > (paging.page - 1) * ${P.pageSize} AND o.rn <= paging.page * ${P.pageSize}`
  const entries = (needed: string) => `, entries AS (
  SELECT c.id, ${ENTRY_JSON} AS row
  ${ENTRY_JOINS}
  WHERE c.id IN (${needed})
)`

  if (groupBy === null) {
    return `${base}, ordered AS (
  SELECT k.id, row_number() OVER (ORDER BY ${checkOrder}) AS rn FROM chosen k
)${paging('chosen')}, page_rows AS (
  SELECT o.id, o.rn FROM ordered o, paging WHERE ${onPage}
)${entries('SELECT p.id FROM page_rows p')}${frame(`SELECT p.rn, '{"kind":"check","check":' || e.row || '}' AS row FROM page_rows p JOIN entries e ON e.id = p.id`)}`
  }

  const groupOrder = orderSql(GROUP_NAME, GROUP_KEYS, 'g.pos', view)
  return `${base}, grouped AS MATERIALIZED (
  SELECT b.*, ${fieldSql(groupBy, P.groupLabel)} AS grp FROM chosen b
), groups AS (
  SELECT k.grp AS key, count(*)::integer AS n,
    count(*) FILTER (WHERE k.status = 'healthy')::integer AS healthy, count(*) FILTER (WHERE k.status = 'unhealthy')::integer AS unhealthy,
    count(*) FILTER (WHERE k.failed = 0 AND k.passed > 0)::integer AS passing, round(avg(k.latency))::integer AS latency,
    count(DISTINCT k.type) = 1 AS same_type,
    coalesce(array_agg(DISTINCT k.namespace) FILTER (WHERE k.namespace <> ''), '{}') AS namespaces, min(k.pos) AS pos
  FROM grouped k GROUP BY k.grp
), ordered AS (
  SELECT g.*, row_number() OVER (ORDER BY ${groupOrder}) AS rn FROM groups g
)${paging('groups')}, page_rows AS (
  SELECT o.* FROM ordered o, paging WHERE ${onPage}
), children AS (
  SELECT k.id, k.grp, row_number() OVER (PARTITION BY k.grp ORDER BY ${checkOrder}) AS rn
  FROM grouped k WHERE k.grp = ANY(${P.expanded}) AND k.grp IN (SELECT p.key FROM page_rows p)
), firsts AS (
  SELECT p.key, k.id FROM page_rows p JOIN grouped k ON k.pos = p.pos
)${entries('SELECT f.id FROM firsts f UNION SELECT ch.id FROM children ch')}${frame(`
  SELECT p.rn, '{"kind":"group","key":' || to_json(p.key)::text
    || ',"stats":' || json_build_object('count', p.n, 'healthy', p.healthy, 'unhealthy', p.unhealthy, 'passing', p.passing,
         'latency', p.latency, 'sameType', p.same_type, 'namespaces', p.namespaces)::text
    || ',"first":' || fe.row
    || ',"children":' || coalesce((SELECT '[' || string_agg(e.row, ',' ORDER BY ch.rn) || ']' FROM children ch JOIN entries e ON e.id = ch.id WHERE ch.grp = p.key), '[]')
    || '}' AS row
  FROM page_rows p JOIN firsts f ON f.key = p.key JOIN entries fe ON fe.id = f.id`)}`
}

/** The list's page and counts as JSON text (contract SummaryViewAnswer). */
export async function getSummaryViewJson(db: Db, query: SummaryQuery, view: SummaryViewRequest): Promise<string> {
  const { rawOnly, params } = summaryParams(query)
  const groupBy = effectiveGroupBy(view.groupBy)
  const labelKey = (field: string | null) => (field?.startsWith(LABEL_PREFIX) ? field.slice(LABEL_PREFIX.length) : null)
  const { rows } = await db.transaction(async (tx) => {
    await tx.query(SUMMARY_SETTINGS)
    return tx.query<{ body: string }>(summaryViewSql(view, rawOnly), [
      ...params,
      view.hidePassing, view.query.toLowerCase(), JSON.stringify(view.labels.include), JSON.stringify(view.labels.exclude),
      labelKey(view.tabBy), view.tab, labelKey(groupBy), view.expanded, view.page, view.pageSize,
    ])
  })
  return rows[0]!.body
}
