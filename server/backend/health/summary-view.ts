import { z } from 'zod'
import type { Db } from '#server/db/client.ts'
import {
  ALL_TAB,
  effectiveGroupBy,
  LABEL_PREFIX,
  SORT_COLUMNS,
  type SummaryViewRequest,
} from '#contract/canary/summary-view.ts'
import { ENTRY_FILTER, ENTRY_JOINS_AFTER_CHECKS, ENTRY_JSON, MERGED_LABELS_OF, SummaryInputError, summaryParams, windowCtes, type SummaryQuery } from './canary-summary.ts'

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
  if (field.startsWith(LABEL_PREFIX)) return `coalesce(l.labels ->> ${param}::text, '')`
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

/** sortRows' order: the column (reversed by desc), then the name ascending, then the summary's order (`pos`: name, id). */
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

/*
 * What the list needs of every check is its counts and shown latency over the window; the
 * last pass and failure (the costly part of the summary's counting) only for the checks it
 * shows. So the statement counts every check in one light pass (raw ends, then one pass over
 * the buckets for both counts and percentiles), and runs the summary's own CTEs, narrowed to
 * the page's checks, to write their entries.
 */
/**
 * The run-weighted mean of a percentile over the buckets, rounded half away from zero: what the
 * summary's `round(sum(p::numeric * total) / sum(total))` gives, in float8 arithmetic, several
 * times cheaper than numeric's. Exact: the sums are integers far below 2^53, and floor((2n + d) /
 * 2d) of such integers is the rounded quotient (a quotient's distance to the next integer, at
 * least 1/2d, is far above float8's rounding error).
 */
export const ROUNDED_MEAN = (p: string) => `floor((2 * sum(b.${p}::float8 * b.total) FILTER (WHERE b.${p} IS NOT NULL) + sum(b.total) FILTER (WHERE b.${p} IS NOT NULL))
      / nullif(2 * sum(b.total::float8) FILTER (WHERE b.${p} IS NOT NULL), 0))::integer`

const listCounts = (rawOnly: boolean) => `list_raw AS MATERIALIZED (
  SELECT s.check_id, count(*) AS total, count(*) FILTER (WHERE s.status) AS passed, count(*) FILTER (WHERE NOT s.status) AS failed
  FROM ${rawOnly
    ? 'check_statuses s WHERE s.time > $1 AND s.time <= $4'
    : `(SELECT s.check_id, s.status FROM check_statuses s WHERE s.time > $1 AND s.time < $2
      UNION ALL SELECT s.check_id, s.status FROM check_statuses s WHERE s.time >= $3 AND s.time <= $4) s`}
  GROUP BY s.check_id
), list_buckets AS MATERIALIZED (
  SELECT b.check_id,
    sum(b.total) FILTER (WHERE b.counted) AS total, sum(b.passed) FILTER (WHERE b.counted) AS passed, sum(b.failed) FILTER (WHERE b.counted) AS failed,
    ${ROUNDED_MEAN('p99')} AS p99, ${ROUNDED_MEAN('p97')} AS p97, ${ROUNDED_MEAN('p95')} AS p95
  FROM (
    SELECT h.check_id, h.total, h.passed, h.failed, h.p99, h.p97, h.p95, ${rawOnly ? 'false' : 'h.created_at >= $2 AND h.created_at < $3'} AS counted
    FROM check_statuses_1h h
    WHERE h.created_at > $1::timestamptz - interval '1 hour' AND h.created_at <= $4 AND NOT (h.created_at >= $5 AND h.created_at < $6)
    UNION ALL
    SELECT d.check_id, d.total, d.passed, d.failed, d.p99, d.p97, d.p95, true FROM check_statuses_1d d
    WHERE d.created_at >= $5 AND d.created_at < $6
  ) b
  GROUP BY b.check_id
)`

export function summaryViewSql(view: SummaryViewRequest, rawOnly: boolean): string {
  const groupBy = effectiveGroupBy(view.groupBy)
  const checkOrder = orderSql(CHECK_NAME, CHECK_KEYS, 'k.name, k.id', view)
  // The merged labels are made only when a filter, the tab or the grouping reads them.
  const needsLabels = view.labels.include.length > 0 || view.labels.exclude.length > 0 || view.tabBy.startsWith(LABEL_PREFIX) || (groupBy?.startsWith(LABEL_PREFIX) ?? false)
  const filters = [
    view.hidePassing ? `b.status <> 'healthy'` : null,
    view.query ? `(strpos(lower(coalesce(b.description, '')), ${P.query}) > 0
      OR strpos(lower(coalesce(b.canary_name, '')), ${P.query}) > 0 OR strpos(lower(b.name), ${P.query}) > 0)` : null,
    view.labels.exclude.length ? `NOT EXISTS (SELECT 1 FROM jsonb_array_elements(${P.exclude}) x WHERE l.labels -> (x ->> 0) = x -> 1)` : null,
    view.labels.include.length ? `NOT EXISTS (SELECT 1 FROM jsonb_array_elements(${P.include}) i
      WHERE NOT EXISTS (SELECT 1 FROM jsonb_array_elements(i -> 1) v WHERE l.labels -> (i ->> 0) = v))` : null,
  ].filter((filter) => filter !== null)
  // Every parameter is named once here, so each has a type whichever shape the statement takes.
  const base = `WITH view_params AS (
  SELECT ${P.hidePassing} AS hide_passing, ${P.query} AS query, ${P.include} AS include, ${P.exclude} AS exclude,
    ${P.tabLabel}::text AS tab_label, ${P.groupLabel}::text AS group_label, ${P.expanded} AS expanded,
    $9::uuid AS check_id, $11::integer AS statuses, $12::boolean AS messages
), ${listCounts(rawOnly)}, base AS MATERIALIZED (
  SELECT c.id, c.name, ca.name AS canary_name, coalesce(c.namespace, '') AS namespace, coalesce(c.type, '') AS type,
    coalesce(c.status, '') AS status, nullif(c.description, '') AS description, ca.labels AS canary_labels, c.labels AS check_labels,
    ${view.tabBy === 'agent_id' ? `coalesce((SELECT a.name FROM agents a WHERE a.id = coalesce(c.agent_id, ${NIL_AGENT})),
      CASE WHEN coalesce(c.agent_id, ${NIL_AGENT}) = ${NIL_AGENT} THEN 'local' ELSE c.agent_id::text END)` : 'NULL::text'} AS agent,
    CASE WHEN h.total > 0 THEN h.passed ELSE (f.status IS TRUE)::integer END AS passed,
    CASE WHEN h.total > 0 THEN h.failed ELSE (f.status IS FALSE)::integer END AS failed,
    CASE WHEN h.total > 0 THEN coalesce(nullif(h.p95, 0), nullif(h.p97, 0), nullif(h.p99, 0)) ELSE nullif(f.duration, 0) END AS latency
  FROM checks c
  JOIN canaries ca ON ca.id = c.canary_id
  LEFT JOIN list_raw r ON r.check_id = c.id
  LEFT JOIN list_buckets lb ON lb.check_id = c.id
  CROSS JOIN LATERAL (
    SELECT coalesce(r.total, 0) + coalesce(lb.total, 0) AS total, coalesce(r.passed, 0) + coalesce(lb.passed, 0) AS passed,
      coalesce(r.failed, 0) + coalesce(lb.failed, 0) AS failed, lb.p99, lb.p97, lb.p95) AS h
  LEFT JOIN LATERAL (
    SELECT s.status, s.duration FROM check_statuses s
    WHERE h.total = 0 AND s.check_id = c.id AND s.time <= $4 ORDER BY s.time DESC LIMIT 1) AS f ON true
  WHERE ${ENTRY_FILTER}
), filtered AS MATERIALIZED (
  SELECT b.id, b.name, b.description, b.namespace, b.type, b.status, b.passed, b.failed, b.latency,
    ${fieldSql(view.tabBy, P.tabLabel)} AS tab, ${groupBy === null ? 'NULL::text' : fieldSql(groupBy, P.groupLabel)} AS grp
  FROM base b${needsLabels ? `\n  CROSS JOIN LATERAL (SELECT ${MERGED_LABELS_OF('b.canary_labels', 'b.check_labels')} AS labels) l` : ''}${filters.length ? `\n  WHERE ${filters.join('\n    AND ')}` : ''}
), chosen AS MATERIALIZED (
  SELECT b.* FROM filtered b
  WHERE ${P.tab} = '${ALL_TAB}' OR b.tab = ${P.tab} OR NOT EXISTS (SELECT 1 FROM filtered t WHERE t.tab = ${P.tab})
)`
  const frame = (rows: string) => `
SELECT '{"counts":' || (SELECT json_build_object('all', count(*), 'healthy', count(*) FILTER (WHERE b.status = 'healthy')) FROM base b)::text
  || ',"labels":' || (SELECT coalesce(json_agg(json_build_array(p.key, p.value)), '[]'::json) FROM (
       SELECT DISTINCT e.key, CASE WHEN jsonb_typeof(e.value) = 'string' THEN e.value #>> '{}' END AS value
       FROM (SELECT DISTINCT ${MERGED_LABELS_OF('m.canary_labels', 'm.check_labels')} AS labels
         FROM (SELECT DISTINCT b.canary_labels, b.check_labels FROM base b) m) b, jsonb_each(b.labels) e) p)::text
  || ',"tabs":' || (SELECT coalesce(json_agg(json_build_array(t.tab, t.n)), '[]'::json) FROM (SELECT b.tab, count(*) AS n FROM filtered b GROUP BY b.tab) t)::text
  || ',"totalChecks":' || (SELECT count(*) FROM chosen)
  || ',"totalRows":' || paging.total || ',"page":' || paging.page
  || ',"rows":' || coalesce((SELECT '[' || string_agg(r.row, ',' ORDER BY r.rn) || ']' FROM (${rows}) r), '[]') || '}' AS body
FROM paging`
  const paging = (source: string) => `, paging AS (
  SELECT count(*)::integer AS total, least(${P.page}, greatest(1, ceil(count(*)::numeric / ${P.pageSize})::integer)) AS page FROM ${source}
)`
  const onPage = `o.rn > (paging.page - 1) * ${P.pageSize} AND o.rn <= paging.page * ${P.pageSize}`
  // The summary's own CTEs, narrowed to the checks whose entries are written.
  const entries = (needed: string) => `, needed AS MATERIALIZED (${needed}
), ${windowCtes(rawOnly, (alias) => `${alias}.check_id = ANY(ARRAY(SELECT n.id FROM needed n))`)}, entries AS (
  SELECT c.id, ${ENTRY_JSON} AS row
  FROM needed n JOIN checks c ON c.id = n.id
  ${ENTRY_JOINS_AFTER_CHECKS}
)`

  if (groupBy === null) {
    return `${base}, ordered AS (
  SELECT k.id, row_number() OVER (ORDER BY ${checkOrder}) AS rn FROM chosen k
)${paging('chosen')}, page_rows AS (
  SELECT o.id, o.rn FROM ordered o, paging WHERE ${onPage}
)${entries('SELECT p.id FROM page_rows p')}${frame(`SELECT p.rn, '{"kind":"check","check":' || e.row || '}' AS row FROM page_rows p JOIN entries e ON e.id = p.id`)}`
  }

  const groupOrder = orderSql(GROUP_NAME, GROUP_KEYS, 'f.name, f.id', view)
  return `${base}, groups AS (
  SELECT k.grp AS key, count(*)::integer AS n,
    count(*) FILTER (WHERE k.status = 'healthy')::integer AS healthy, count(*) FILTER (WHERE k.status = 'unhealthy')::integer AS unhealthy,
    count(*) FILTER (WHERE k.failed = 0 AND k.passed > 0)::integer AS passing, round(avg(k.latency))::integer AS latency,
    count(DISTINCT k.type) = 1 AS same_type,
    coalesce(array_agg(DISTINCT k.namespace) FILTER (WHERE k.namespace <> ''), '{}') AS namespaces
  FROM chosen k GROUP BY k.grp
), firsts AS (
  SELECT DISTINCT ON (k.grp) k.grp AS key, k.id, k.name FROM chosen k ORDER BY k.grp, k.name, k.id
), ordered AS (
  SELECT g.*, f.id AS first_id, row_number() OVER (ORDER BY ${groupOrder}) AS rn FROM groups g JOIN firsts f ON f.key = g.key
)${paging('groups')}, page_rows AS (
  SELECT o.* FROM ordered o, paging WHERE ${onPage}
), children AS (
  SELECT k.id, k.grp, row_number() OVER (PARTITION BY k.grp ORDER BY ${checkOrder}) AS rn
  FROM chosen k WHERE k.grp = ANY(${P.expanded}) AND k.grp IN (SELECT p.key FROM page_rows p)
)${entries('SELECT p.first_id AS id FROM page_rows p UNION SELECT ch.id FROM children ch')}${frame(`
  SELECT p.rn, '{"kind":"group","key":' || to_json(p.key)::text
    || ',"stats":' || json_build_object('count', p.n, 'healthy', p.healthy, 'unhealthy', p.unhealthy, 'passing', p.passing,
         'latency', p.latency, 'sameType', p.same_type, 'namespaces', p.namespaces)::text
    || ',"first":' || fe.row
    || ',"children":' || coalesce((SELECT '[' || string_agg(e.row, ',' ORDER BY ch.rn) || ']' FROM children ch JOIN entries e ON e.id = ch.id WHERE ch.grp = p.key), '[]')
    || '}' AS row
  FROM page_rows p JOIN entries fe ON fe.id = p.first_id`)}`
}

/**
 * The summary's settings, and no parallel workers: the statement's passes are a few tens of
 * milliseconds each, and on a two-core server gathering workers' sorted partial aggregates cost
 * as much as it saved (bench/health-page, 6 h: 118–153 ms with workers, 109–135 ms without).
 */
const VIEW_SETTINGS = `SELECT set_config('jit', 'off', true), set_config('work_mem', '64MB', true), set_config('max_parallel_workers_per_gather', '0', true)`

/** The list's page and counts as JSON text (contract SummaryViewAnswer). */
export async function getSummaryViewJson(db: Db, query: SummaryQuery, view: SummaryViewRequest): Promise<string> {
  const { rawOnly, params } = summaryParams(query)
  const groupBy = effectiveGroupBy(view.groupBy)
  const labelKey = (field: string | null) => (field?.startsWith(LABEL_PREFIX) ? field.slice(LABEL_PREFIX.length) : null)
  const { rows } = await db.transaction(async (tx) => {
    await tx.query(VIEW_SETTINGS)
    return tx.query<{ body: string }>(summaryViewSql(view, rawOnly), [
      ...params,
      view.hidePassing, view.query.toLowerCase(), JSON.stringify(view.labels.include), JSON.stringify(view.labels.exclude),
      labelKey(view.tabBy), view.tab, labelKey(groupBy), view.expanded, view.page, view.pageSize,
    ])
  })
  return rows[0]!.body
}
