/**
 * `POST /api/logs` as both sides see it (http-api §2.7.3 and what Lookout adds to it): the body a
 * search sends and the `{total, results}` it answers. Pure data, safe in the browser bundle.
 */

export const LOG_SEARCH_DEFAULT_LIMIT = 100
export const LOG_SEARCH_MAX_LIMIT = 5_000

export type LogSearchBody = {
  /** A component (its log selectors) or config item (the backends whose routes take its type). */
  id?: string
  /** One of the component's log selectors by name; all of them when left out. */
  name?: string
  /** A log backend by name, instead of an id. */
  backend?: string
  /** RFC 3339 or date math (`now-1h`); the last hour by default. */
  start?: string
  end?: string
  labels?: Record<string, string>
  /** Text the lines must contain (a full LogQL or query-DSL query where the backend speaks one). */
  query?: string
  limit?: number
}

export type LogSearchLine = {
  timestamp: string
  message: string
  labels: Record<string, string>
  /** Empty when the backend and the line's parse gave none. */
  severity: string
  /** The log backend the line came from. */
  backend: string
  count?: number
  host?: string
  id?: string
}

export type LogSearchAnswer = { total: number; results: LogSearchLine[] }
