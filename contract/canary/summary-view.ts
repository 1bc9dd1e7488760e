/**
 * Lookout's extension of the canary summary (docs/decisions/017-health-list-in-sql.md): the
 * /health list asks `GET /api/canary/api/summary?start=…&lookout_view=<JSON>` and Lookout's
 * embedded backend answers with only the page it shows plus the counts it displays, under
 * `lookout_view` instead of `checks_summary`. canary-checker and Mission Control ignore the
 * unknown query parameter and answer the whole summary, which the console then filters, groups
 * and pages itself (app/lib/health.server.ts decides which, from the answer).
 *
 * Both sides follow the same rules, spec 001 §2–§4 as health-model.ts implements them: the
 * console in JavaScript over a whole summary, the backend in SQL. What they share lives here.
 */

export const SUMMARY_VIEW_PARAM = 'lookout_view'

export const SORT_COLUMNS = ['name', 'health', 'uptime', 'latency'] as const
export type SortColumn = (typeof SORT_COLUMNS)[number]
export const NO_GROUPING = 'no_grouping'
export const ALL_TAB = 'All'
export const LABEL_PREFIX = 'label:'
/** The fields a list may be grouped by besides `label:<key>` (spec 001 §2). */
export const GROUP_FIELDS = ['canary_name', 'name', 'description', 'type'] as const

/** The field the rows are grouped by, or null for no grouping (an unknown field groups nothing). */
export function effectiveGroupBy(groupBy: string): string | null {
  if (groupBy === NO_GROUPING) return null
  if ((GROUP_FIELDS as readonly string[]).includes(groupBy) || groupBy.startsWith(LABEL_PREFIX)) return groupBy
  return null
}

/**
 * Label filters as the list applies them: for every key with an included value a check must
 * carry one of them; any excluded pair drops it.
 */
export type LabelFilterSets = { include: [key: string, values: string[]][]; exclude: [key: string, value: string][] }

/** The list's question (the URL's parameters the list reads, already validated by the console). */
export type SummaryViewRequest = {
  hidePassing: boolean
  /** Matched case-insensitively against description, canary name, endpoint and name. */
  query: string
  labels: LabelFilterSets
  tabBy: string
  tab: string
  groupBy: string
  sortBy: SortColumn | null
  sortDesc: boolean
  page: number
  pageSize: number
  /** Group keys whose children are listed. */
  expanded: string[]
}

/** One check as the summary writes it (http-api §3.1): the list reads what it shows from it. */
export type SummaryEntry = Record<string, unknown> & { id: string; name: string }

/** What a group row shows of its checks (spec 001 §4), whichever side counted them. */
export type GroupStats = {
  count: number
  healthy: number
  unhealthy: number
  /** Checks with passes and no failure in the window. */
  passing: number
  /** Mean shown latency of the checks that have one, rounded. */
  latency: number | null
  /** Every check is of the first check's type. */
  sameType: boolean
  /** Distinct non-empty namespaces, in any order. */
  namespaces: string[]
}

export type SummaryViewRow =
  | { kind: 'check'; check: SummaryEntry }
  | { kind: 'group'; key: string; stats: GroupStats; first: SummaryEntry; children: SummaryEntry[] }

/** The embedded backend's answer under `lookout_view`. */
export type SummaryViewAnswer = {
  /** Every check of the summary, and those whose status is `healthy`. */
  counts: { all: number; healthy: number }
  /** Distinct label pairs over every check; the value is null when it is not a string. */
  labels: [key: string, value: string | null][]
  /** Checks per tab value after the filters, before the tab is chosen. */
  tabs: [value: string, count: number][]
  /** Checks in the chosen tab. */
  totalChecks: number
  /** Rows (groups, or checks without grouping) in the chosen tab. */
  totalRows: number
  /** The page shown: the one asked for, or the last one when that is past the end. */
  page: number
  rows: SummaryViewRow[]
}
