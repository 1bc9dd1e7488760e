import { createHash } from 'node:crypto'
import type { NextFunction, Request, Response } from 'express'
import { RateLimiterPostgres, RateLimiterRes } from 'rate-limiter-flexible'
import type { Db } from '#server/db/client.ts'
import type { Env } from '#server/env.ts'
import { clientAddressOf } from '#server/ops/client-address.ts'
import type { Principal } from '../principal.ts'
import { MAX_CODE_ATTEMPTS } from './codes.ts'
import { errors } from './errors.ts'

/**
 * The identity service's rate limits, at three levels, counted by rate-limiter-flexible in
 * identity.rate_limits (migration 0180) so every process serving the same database shares them:
 *
 * 1. per client, every request that resolves no credential (identity flows, token sign-in,
 *    the public board, webhooks): a generous budget per minute against floods;
 * 2. per identifier for recovery and verification: codes mailed per address per hour, and
 *    code requests per client per hour;
 * 3. sign-in: attempts per client and account (what stops guessing from one place), per client
 *    over all accounts (spraying), and a slower global limit per account whose lockout mails
 *    the owner a one-time unlock link. An attacker elsewhere therefore blocks only their own
 *    client: the owner signs in from theirs, and a distributed attack ends in a mailed unlock.
 *
 * The "client" is the address `resolveClient` settled (the browser's, for the console's own
 * calls). Attempts are counted before the password is checked, so parallel requests cannot
 * slip past the limit; a successful sign-in hands its attempt back.
 */
export type RateLimitConfig = {
  anonymousPerMinute: number
  loginPerClientAccount: number
  loginPerClient: number
  loginPerAccount: number
  codeMailsPerAddress: number
  codeRequestsPerClient: number
}

export const DEFAULT_RATE_LIMITS: RateLimitConfig = {
  anonymousPerMinute: 300,
  loginPerClientAccount: 10,
  loginPerClient: 100,
  loginPerAccount: 100,
  codeMailsPerAddress: 5,
  codeRequestsPerClient: 20,
}

const MINUTE = 60
const LOGIN_WINDOW_SECONDS = 15 * MINUTE
const ACCOUNT_WINDOW_SECONDS = 24 * 60 * MINUTE
const CODE_WINDOW_SECONDS = 60 * MINUTE

/*
 * Recovery codes: six digits (10^6 values), MAX_CODE_ATTEMPTS (5) tries per code, and one code
 * per mail, so an address yields at most codeMailsPerAddress × 5 guesses per hour — 25 by
 * default, 100 at the highest setting (env.ts caps the setting at 20). A code lives an hour:
 * the chance that any guess within its lifetime hits is at most 100 / 10^6 = 1 in 10,000, and
 * covering half the code space takes 500,000 / 25 = 20,000 hours (over two years) by default.
 */
const CODE_GUESSES_PER_HOUR_MAX = 20 * MAX_CODE_ATTEMPTS

export type RateLimits = {
  readonly config: RateLimitConfig
  readonly anonymous: RateLimiterPostgres
  readonly loginClientAccount: RateLimiterPostgres
  readonly loginClient: RateLimiterPostgres
  readonly loginAccount: RateLimiterPostgres
  readonly codeMails: RateLimiterPostgres
  readonly codeRequests: RateLimiterPostgres
}

/**
 * The library calls its PostgreSQL client as `client.query({ name, text, values })` and reads
 * `rows` and `rowCount`; the Db interface (pg pool or PGlite) takes text and values. Statement
 * names are dropped: PGlite has no named statements and the pool prepares per connection anyway.
 */
function storeClientOf(db: Db) {
  return {
    query: (statement: { text: string; values?: unknown[] }) => db.query(statement.text, statement.values ?? []),
  }
}

export function rateLimitConfigOf(env: Env): RateLimitConfig {
  return {
    anonymousPerMinute: env.LOOKOUT_RATE_LIMIT_ANONYMOUS_PER_MINUTE,
    loginPerClientAccount: env.LOOKOUT_RATE_LIMIT_LOGIN_PER_CLIENT_ACCOUNT,
    loginPerClient: env.LOOKOUT_RATE_LIMIT_LOGIN_PER_CLIENT,
    loginPerAccount: env.LOOKOUT_RATE_LIMIT_LOGIN_PER_ACCOUNT,
    codeMailsPerAddress: env.LOOKOUT_RATE_LIMIT_CODE_MAILS_PER_ADDRESS,
    codeRequestsPerClient: env.LOOKOUT_RATE_LIMIT_CODE_REQUESTS_PER_CLIENT,
  }
}

export function createRateLimits(db: Db, overrides: Partial<RateLimitConfig> = {}): RateLimits {
  const config = { ...DEFAULT_RATE_LIMITS, ...overrides }
  if (config.codeMailsPerAddress * MAX_CODE_ATTEMPTS > CODE_GUESSES_PER_HOUR_MAX) {
    throw new Error(`codeMailsPerAddress ${config.codeMailsPerAddress} would allow more than ${CODE_GUESSES_PER_HOUR_MAX} code guesses an hour`)
  }
  const storeClient = storeClientOf(db)
  const limiter = (keyPrefix: string, points: number, duration: number, inMemoryBlock = false) =>
    new RateLimiterPostgres({
      storeClient,
      storeType: 'pool',
      schemaName: 'identity',
      tableName: 'rate_limits',
      tableCreated: true,
      keyPrefix,
      points,
      duration,
      // A client over its budget is refused from memory for the rest of the window: a flood
      // then costs no database write per request.
      ...(inMemoryBlock ? { inMemoryBlockOnConsumed: points + 1 } : {}),
    })
  return {
    config,
    anonymous: limiter('anonymous', config.anonymousPerMinute, MINUTE, true),
    loginClientAccount: limiter('login-client-account', config.loginPerClientAccount, LOGIN_WINDOW_SECONDS),
    loginClient: limiter('login-client', config.loginPerClient, LOGIN_WINDOW_SECONDS),
    loginAccount: limiter('login-account', config.loginPerAccount, ACCOUNT_WINDOW_SECONDS),
    codeMails: limiter('code-mails', config.codeMailsPerAddress, CODE_WINDOW_SECONDS),
    codeRequests: limiter('code-requests', config.codeRequestsPerClient, CODE_WINDOW_SECONDS),
  }
}

/** Keys are digests: identifiers come from request bodies and may be long or odd. */
function keyOf(...parts: string[]): string {
  return createHash('sha256').update(parts.join('\u0000')).digest('base64url')
}

export const accountKey = (identifier: string) => identifier.trim().toLowerCase()

type Taken = { allowed: true; consumed: number } | { allowed: false; consumed: number; retryAfterSeconds: number }

/** One point from a limiter; store failures propagate (the request fails like any other database error). */
async function take(limiter: RateLimiterPostgres, key: string): Promise<Taken> {
  try {
    const res = await limiter.consume(key)
    return { allowed: true, consumed: res.consumedPoints }
  } catch (error) {
    if (!(error instanceof RateLimiterRes)) throw error
    return { allowed: false, consumed: error.consumedPoints, retryAfterSeconds: Math.max(1, Math.ceil(error.msBeforeNext / 1000)) }
  }
}

const TOO_MANY_ATTEMPTS = (seconds: number) => `Too many failed sign-in attempts. Try again in ${seconds} seconds.`

/**
 * Counts a sign-in attempt (password or second factor) before it is checked; throws 429 when
 * this client used up its tries for the account or overall, or the account is locked. The
 * request that locks the account triggers `onAccountLocked` (the unlock mail) once.
 */
export async function beginLoginAttempt(
  limits: RateLimits,
  client: string,
  identifier: string,
  onAccountLocked: () => Promise<void>,
): Promise<void> {
  const account = accountKey(identifier)
  const perClientAccount = await take(limits.loginClientAccount, keyOf(client, account))
  if (!perClientAccount.allowed) throw errors.rateLimited(perClientAccount.retryAfterSeconds, TOO_MANY_ATTEMPTS(perClientAccount.retryAfterSeconds))
  const perClient = await take(limits.loginClient, keyOf(client))
  if (!perClient.allowed) throw errors.rateLimited(perClient.retryAfterSeconds, TOO_MANY_ATTEMPTS(perClient.retryAfterSeconds))
  const perAccount = await take(limits.loginAccount, keyOf(account))
  if (!perAccount.allowed) {
    if (perAccount.consumed === limits.config.loginPerAccount + 1) await onAccountLocked()
    throw errors.rateLimited(
      perAccount.retryAfterSeconds,
      'Sign-in to this account is paused after too many failed attempts. The owner was sent a link to unlock it.',
    )
  }
}

/** A successful sign-in: this client starts afresh for the account, and the attempt is handed back. */
export async function loginSucceeded(limits: RateLimits, client: string, identifier: string): Promise<void> {
  const account = accountKey(identifier)
  await limits.loginClientAccount.delete(keyOf(client, account))
  await limits.loginClient.reward(keyOf(client))
  await limits.loginAccount.reward(keyOf(account))
}

/** The owner opened the unlock link: the account's lock goes, and so does the opening client's count. */
export async function unlockAccount(limits: RateLimits, client: string, identifier: string): Promise<void> {
  const account = accountKey(identifier)
  await limits.loginAccount.delete(keyOf(account))
  await limits.loginClientAccount.delete(keyOf(client, account))
}

/** A recovery or verification code request from this client; throws 429 past the hourly budget. */
export async function assertCodeRequestAllowed(limits: RateLimits, client: string): Promise<void> {
  const taken = await take(limits.codeRequests, keyOf(client))
  if (!taken.allowed) {
    throw errors.rateLimited(taken.retryAfterSeconds, `Too many code requests from this address. Try again in ${taken.retryAfterSeconds} seconds.`)
  }
}

/**
 * Whether another code may be mailed to this address this hour. Counted for every address,
 * known or not, so neither the answer nor the limit tells which addresses have accounts.
 */
export async function mayMailCode(limits: RateLimits, address: string): Promise<boolean> {
  return (await take(limits.codeMails, keyOf(accountKey(address)))).allowed
}

/** Counts a request without a credential; the seconds to wait when the client is over budget. */
export async function anonymousRetryAfter(limits: RateLimits, client: string): Promise<number | undefined> {
  const taken = await take(limits.anonymous, keyOf(client))
  return taken.allowed ? undefined : taken.retryAfterSeconds
}

/**
 * For the backend's routes behind requireCredentials: a request that resolved no credential
 * (or only the public board's anonymous guest) counts against its client's budget.
 */
export function limitUnauthenticated(limits: RateLimits) {
  return async (req: Request, res: Response, next: NextFunction): Promise<void> => {
    try {
      const principal = res.locals.principal as Principal | undefined
      if (principal && principal.via !== 'anonymous') {
        next()
        return
      }
      const retryAfter = await anonymousRetryAfter(limits, clientAddressOf(req))
      if (retryAfter === undefined) {
        next()
        return
      }
      res.setHeader('Retry-After', String(retryAfter))
      res.status(429).json({ error: 'rate_limited', message: `Too many requests from this address. Try again in ${retryAfter} seconds.` })
    } catch (error) {
      next(error)
    }
  }
}
