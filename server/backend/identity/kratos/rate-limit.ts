import type { Db } from '#server/db/client.ts'
import { errors } from './errors.ts'

export type LoginRateLimit = { perIdentifier: number; perIp: number; windowSeconds: number }

export const DEFAULT_LOGIN_RATE_LIMIT: LoginRateLimit = { perIdentifier: 10, perIp: 100, windowSeconds: 900 }

function keysOf(identifier: string | undefined, ip: string | undefined, limit: LoginRateLimit): { key: string; max: number }[] {
  const keys: { key: string; max: number }[] = []
  if (identifier) keys.push({ key: `identifier:${identifier.trim().toLowerCase()}`, max: limit.perIdentifier })
  if (ip) keys.push({ key: `ip:${ip}`, max: limit.perIp })
  return keys
}

/** Throws 429 (with Retry-After) when the identifier or the address used up its failures. */
export async function assertLoginAllowed(db: Db, identifier: string | undefined, ip: string | undefined, limit: LoginRateLimit): Promise<void> {
  for (const { key, max } of keysOf(identifier, ip, limit)) {
    const { rows } = await db.query<{ failures: number; retry_after: number }>(
      `SELECT failures,
              ceil(extract(epoch FROM (window_started_at + make_interval(secs => $2) - now())))::int AS retry_after
         FROM identity.login_attempts
        WHERE key = $1 AND window_started_at + make_interval(secs => $2) > now()`,
      [key, limit.windowSeconds],
    )
    const row = rows[0]
    if (row && row.failures >= max) throw errors.rateLimited(Math.max(1, row.retry_after))
  }
}

export async function recordLoginFailure(db: Db, identifier: string | undefined, ip: string | undefined, limit: LoginRateLimit): Promise<void> {
  for (const { key } of keysOf(identifier, ip, limit)) {
    // A fixed window per key: the first failure after the window ran out starts a new one.
    await db.query(
      `INSERT INTO identity.login_attempts (key, window_started_at, failures) VALUES ($1, now(), 1)
       ON CONFLICT (key) DO UPDATE SET
         failures = CASE WHEN identity.login_attempts.window_started_at + make_interval(secs => $2) <= now()
                         THEN 1 ELSE identity.login_attempts.failures + 1 END,
         window_started_at = CASE WHEN identity.login_attempts.window_started_at + make_interval(secs => $2) <= now()
                                  THEN now() ELSE identity.login_attempts.window_started_at END`,
      [key, limit.windowSeconds],
    )
  }
}

/** A successful sign-in clears the identifier's counter (the address keeps its count). */
export async function clearLoginFailures(db: Db, identifier: string): Promise<void> {
  await db.query('DELETE FROM identity.login_attempts WHERE key = $1', [`identifier:${identifier.trim().toLowerCase()}`])
}
