import { createHash } from 'node:crypto'
import { GatewayError, type ApiArgs } from '#app/lib/gateway.server.ts'
import { consoleLog } from '#app/lib/log.server.ts'
import type { CheckSummary } from '#app/components/health/health-model.ts'
import { fetchSummary } from './_console.health.server.ts'

export const DEFAULT_REFRESH_S = 30
const MIN_REFRESH_S = 5
const MAX_REFRESH_S = 3600

/** `refresh` in seconds, clamped so a typo cannot hammer the API or freeze the board. */
export function parseRefreshSeconds(value: string | null): number {
  if (!value || !/^\d{1,6}$/.test(value)) return DEFAULT_REFRESH_S
  return Math.min(MAX_REFRESH_S, Math.max(MIN_REFRESH_S, Number(value)))
}

/**
 * Which credential the board reads with: an access token in the URL, else whatever the visitor
 * sent (session cookie). Without either the backend decides: it serves the summary anonymously
 * when LOOKOUT_PUBLIC_HEALTH=true and answers 401 (a sign-in redirect here) otherwise.
 */
export function boardCredential(request: Request): { authorization?: string; mode: 'token' | 'session' } {
  const token = new URL(request.url).searchParams.get('token')
  if (token) return { authorization: `Bearer ${token}`, mode: 'token' }
  return { mode: 'session' }
}

/** The last good answer per credential, shown with a 'stale since' banner while the API is down. */
const lastGood = new Map<string, { checks: CheckSummary[]; at: string }>()
const LAST_GOOD_LIMIT = 100

function keyOf(request: Request, authorization: string | undefined): string {
  return createHash('sha256').update(authorization ?? request.headers.get('cookie') ?? '').digest('hex')
}

function isOutage(error: unknown): boolean {
  return error instanceof GatewayError && (error.kind !== 'http' || error.status >= 500)
}

export type BoardData = { checks: CheckSummary[]; fetchedAt: string; staleSince: string | null; error: string | null }

export async function loadBoard(args: ApiArgs): Promise<BoardData> {
  const credential = boardCredential(args.request)
  const key = keyOf(args.request, credential.authorization)
  const headers = credential.authorization ? { authorization: credential.authorization } : undefined
  try {
    const checks = await fetchSummary(args, '1h', headers ? { headers } : undefined)
    const at = new Date().toISOString()
    lastGood.delete(key)
    lastGood.set(key, { checks, at })
    if (lastGood.size > LAST_GOOD_LIMIT) lastGood.delete(lastGood.keys().next().value!)
    return { checks, fetchedAt: at, staleSince: null, error: null }
  } catch (error) {
    if (!isOutage(error)) throw error
    consoleLog.warn({ err: error }, 'health board: backend unreachable, showing the last good data')
    const cached = lastGood.get(key)
    const message = (error as Error).message
    if (cached) return { checks: cached.checks, fetchedAt: cached.at, staleSince: cached.at, error: message }
    return { checks: [], fetchedAt: new Date().toISOString(), staleSince: null, error: message }
  }
}
