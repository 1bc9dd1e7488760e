/**
 * API endpoints whose POST only reads: the query travels in the body because it is too rich for a
 * URL (http-api.md §2.2). The gateway treats them as the safe reads they are — a session cookie
 * needs no same-origin proof for them, as for GET (server/gateway/forgery-guard.ts) — and the
 * backend authorizes them as `read` (server/backend/rbac/route-access.ts). Paths are under /api.
 */
export const QUERY_POSTS: readonly string[] = ['/api/catalog/summary', '/api/catalog/changes', '/api/resources/search', '/api/notification/summary', '/api/logs']

/**
 * Query POSTs with an id in the path: a playbook's parameters with their defaults templated for a
 * resource (http-api §2.5.3); a custom view run with variables (§2.4.1, its rows refreshed as a cache).
 */
const QUERY_POST_PATTERNS: readonly RegExp[] = [/^\/api\/playbook\/[^/]+\/params$/, /^\/api\/view\/[^/]+(\/[^/]+)?$/]

export function isQueryPost(method: string | undefined, path: string): boolean {
  if ((method ?? '').toUpperCase() !== 'POST') return false
  const trimmed = path.replace(/\/+$/, '')
  return QUERY_POSTS.includes(trimmed) || QUERY_POST_PATTERNS.some((pattern) => pattern.test(trimmed))
}
