/**
 * API endpoints whose POST only reads: the query travels in the body because it is too rich for a
 * URL (http-api.md §2.2). The gateway treats them as the safe reads they are — a session cookie
 * needs no same-origin proof for them, as for GET (server/gateway/forgery-guard.ts) — and the
 * backend authorizes them as `read` (server/backend/rbac/route-access.ts). Paths are under /api.
 */
export const QUERY_POSTS: readonly string[] = ['/api/catalog/summary', '/api/catalog/changes', '/api/resources/search']

export function isQueryPost(method: string | undefined, path: string): boolean {
  return (method ?? '').toUpperCase() === 'POST' && QUERY_POSTS.includes(path.replace(/\/+$/, ''))
}
