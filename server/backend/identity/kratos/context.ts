import type { Request, Response } from 'express'
import type { Logger } from 'pino'
import type { Db } from '#server/db/client.ts'
import { cookieValue, httpOnlyCookie } from '#server/cookies.ts'
import type { Mailer } from '../mail/mailer.ts'
import { csrfCookieName, newCsrfSecret } from './csrf.ts'
import { resolveReturnTo } from './return-to.ts'
import type { OnIdentityCreated } from './identities.ts'
import type { RateLimits } from './rate-limit.ts'
import { SESSION_COOKIE, findSessionByToken, type SessionRow } from './sessions.ts'

export type FlowKind = 'login' | 'registration' | 'recovery' | 'verification' | 'settings'

/** Everything the flow handlers share; built once per router. */
export type KratosContext = {
  db: Db
  logger: Logger
  mailer: Mailer
  publicBaseUrl: () => string
  uiBaseUrl: () => string
  registration: 'open' | 'closed'
  defaultRole: string
  onIdentityCreated?: OnIdentityCreated
  flowLifespanSeconds: number
  sessionLifespanSeconds: number
  privilegedMaxAgeSeconds: number
  codeLifespanSeconds: number
  allowedReturnUrls: string[]
  rateLimits: RateLimits
  /**
   * Runs work after the answer, one task at a time, failures logged: code mails go this way so
   * a request for a known address answers as fast as one for an unknown address.
   */
  defer: (label: string, task: () => Promise<void>) => void
}

const UI_PATHS: Record<FlowKind | 'error', string> = {
  login: '/login',
  registration: '/registration',
  recovery: '/recovery',
  verification: '/verification',
  settings: '/profile-settings',
  error: '/error',
}

export const publicUrl = (ctx: KratosContext, path: string) => `${ctx.publicBaseUrl().replace(/\/+$/, '')}${path}`
export const uiUrl = (ctx: KratosContext, page: FlowKind | 'error', query: Record<string, string>) =>
  `${ctx.uiBaseUrl().replace(/\/+$/, '')}${UI_PATHS[page]}?${new URLSearchParams(query).toString()}`
export const defaultReturnUrl = (ctx: KratosContext) => `${ctx.uiBaseUrl().replace(/\/+$/, '')}/`
export const resolveReturnToUrl = (ctx: KratosContext, returnTo: string | null | undefined) => resolveReturnTo(returnTo, defaultReturnUrl(ctx))
export const schemaUrl = (ctx: KratosContext, schemaId: string) => publicUrl(ctx, `/schemas/${Buffer.from(schemaId).toString('base64url')}`)
export const allowedReturnUrls = (ctx: KratosContext) => [ctx.uiBaseUrl(), publicUrl(ctx, '/self-service'), ...ctx.allowedReturnUrls]

/**
 * Kratos answers JSON when the body is JSON or `Accept` prefers JSON (axios' default counts,
 * the explicit entry beats the wildcard); navigations and native form posts get redirects.
 */
export function isJsonClient(req: Request): boolean {
  if (req.is('application/json')) return true
  return req.accepts(['text/html', 'application/json']) === 'application/json'
}

export function cookieOf(req: Request, name: string): string | undefined {
  return cookieValue(req.headers.cookie, name)
}

function isSecure(ctx: KratosContext, req: Request): boolean {
  return req.secure || ctx.publicBaseUrl().startsWith('https:')
}

export function setCookie(ctx: KratosContext, req: Request, res: Response, name: string, value: string, maxAgeSeconds: number): void {
  res.append('Set-Cookie', httpOnlyCookie(name, value, { maxAgeSeconds, secure: isSecure(ctx, req), expiresWhenDeleted: true }))
}

const CSRF_MAX_AGE = 365 * 24 * 3600

export function csrfSecretOf(ctx: KratosContext, req: Request): string | undefined {
  return cookieOf(req, csrfCookieName(ctx.publicBaseUrl()))
}

/** The CSRF secret of this browser, issuing the cookie when there is none yet. */
export function ensureCsrfCookie(ctx: KratosContext, req: Request, res: Response): string {
  const existing = csrfSecretOf(ctx, req)
  if (existing && /^[A-Za-z0-9_-]{43}$/.test(existing)) return existing
  return regenerateCsrf(ctx, req, res)
}

/** A new CSRF secret on every principal change, so forms fetched before it stop working. */
export function regenerateCsrf(ctx: KratosContext, req: Request, res: Response): string {
  const secret = newCsrfSecret()
  setCookie(ctx, req, res, csrfCookieName(ctx.publicBaseUrl()), secret, CSRF_MAX_AGE)
  return secret
}

export function setSessionCookie(ctx: KratosContext, req: Request, res: Response, token: string): void {
  setCookie(ctx, req, res, SESSION_COOKIE, token, ctx.sessionLifespanSeconds)
}

export function clearSessionCookie(ctx: KratosContext, req: Request, res: Response): void {
  setCookie(ctx, req, res, SESSION_COOKIE, '', 0)
}

/** The session token a request carries: cookie, `X-Session-Token` or `Authorization: Bearer`. */
export function sessionTokenOf(req: Request): string | undefined {
  const header = req.headers['x-session-token']
  if (typeof header === 'string' && header) return header
  const auth = req.headers.authorization
  if (auth && /^bearer\s+/i.test(auth)) return auth.replace(/^bearer\s+/i, '').trim()
  return cookieOf(req, SESSION_COOKIE)
}

export async function currentSession(ctx: KratosContext, req: Request): Promise<SessionRow | undefined> {
  const token = sessionTokenOf(req)
  return token ? findSessionByToken(ctx.db, token) : undefined
}

export function queryString(req: Request, name: string): string | undefined {
  const value = req.query[name]
  return typeof value === 'string' ? value : undefined
}
