/**
 * A UUID in its text form (any version, either case), as PostgreSQL's `uuid` type reads it. Ids
 * from URLs and request bodies are checked with it before they reach a query, so a malformed id
 * is a 400/404 rather than a database error; the console and the server check the same way.
 */
export const UUID_PATTERN = /^[0-9a-f]{8}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{12}$/i

export function isUuid(value: unknown): value is string {
  return typeof value === 'string' && UUID_PATTERN.test(value)
}
