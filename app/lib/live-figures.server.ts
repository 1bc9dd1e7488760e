import { apiFetch, type ApiArgs } from './gateway.server.ts'
import { consoleLog } from './log.server.ts'

/**
 * Small live numbers for pages that are not built yet. Each read may fail while the data
 * API is still growing; the page then simply shows no figure.
 */

/** `Content-Range: 0-0/42` or `*\/42` → 42. */
export function parseContentRangeTotal(header: string | null): number | null {
  if (!header) return null
  const match = /\/(\d+)\s*$/.exec(header)
  return match ? Number(match[1]) : null
}

/** Total rows matching a PostgREST query (`select=id&deleted_at=is.null` …), or null when unknown. */
export async function countRows(args: ApiArgs, table: string, query: string): Promise<number | null> {
  try {
    const response = await apiFetch(args, `/db/${table}?${query}&limit=1`, {
      headers: { prefer: 'count=exact' },
    })
    if (!response.ok) {
      consoleLog.warn({ table, status: response.status }, 'row count unavailable')
      return null
    }
    await response.body?.cancel()
    return parseContentRangeTotal(response.headers.get('content-range'))
  } catch (error) {
    consoleLog.warn({ err: error, table }, 'row count unavailable')
    return null
  }
}

export async function readRows<T>(args: ApiArgs, pathAndQuery: string): Promise<T[] | null> {
  try {
    const response = await apiFetch(args, `/db/${pathAndQuery}`)
    if (!response.ok) {
      consoleLog.warn({ path: pathAndQuery.split('?')[0], status: response.status }, 'rows unavailable')
      return null
    }
    const body: unknown = await response.json()
    return Array.isArray(body) ? (body as T[]) : null
  } catch (error) {
    consoleLog.warn({ err: error, path: pathAndQuery.split('?')[0] }, 'rows unavailable')
    return null
  }
}
