import express, { type NextFunction, type Request, type Response } from 'express'
import type { Logger } from 'pino'
import type { Db } from '#server/db/client.ts'
import type { Mailer } from '../mail/mailer.ts'
import { completeRecovery, submitCodeFlow } from './code-flows.ts'
import { findLinkCode, spendCode } from './codes.ts'
import {
  allowedReturnUrls,
  clearSessionCookie,
  csrfSecretOf,
  currentSession,
  defaultReturnUrl,
  ensureCsrfCookie,
  isJsonClient,
  publicUrl,
  queryString,
  regenerateCsrf,
  resolveReturnToUrl,
  schemaUrl,
  uiUrl,
  type FlowKind,
  type KratosContext,
} from './context.ts'
import { assertCsrf } from './csrf.ts'
import { errors, KratosError } from './errors.ts'
import { renderFlow } from './flow-nodes.ts'
import { findFlow, insertFlow, isExpired, minutesSinceExpiry, type FlowRow } from './flows.ts'
import { findIdentity, type OnIdentityCreated } from './identities.ts'
import { submitLogin } from './login-flow.ts'
import { readBody, type Outcome } from './outcome.ts'
import { clientAddressOf } from '#server/ops/client-address.ts'
import { unlockWithLink } from './login-lockout.ts'
import { anonymousRetryAfter, createRateLimits, type RateLimitConfig, type RateLimits } from './rate-limit.ts'
import { submitRegistration } from './registration-flow.ts'
import { validateReturnTo } from './return-to.ts'
import { issueLogoutToken, meetsHighestAvailable, revokeSession, sessionJson, tokenHash, type SessionRow } from './sessions.ts'
import { submitSettings } from './settings-flow.ts'
import { texts } from './ui-texts.ts'
import { WEBAUTHN_SCRIPT } from './webauthn.ts'

export type KratosRouterOptions = {
  db: Db
  publicBaseUrl: () => string
  uiBaseUrl: () => string
  mailer: Mailer
  registration: 'open' | 'closed'
  defaultRole: string
  onIdentityCreated?: OnIdentityCreated
  logger: Logger
  /** Extra return_to targets besides the console origin and Kratos' own endpoints. */
  allowedReturnUrls?: string[]
  flowLifespanSeconds?: number
  sessionLifespanSeconds?: number
  privilegedMaxAgeSeconds?: number
  codeLifespanSeconds?: number
  /** Shared with the rest of the backend; made from `rateLimitConfig` (or the defaults) when absent. */
  rateLimits?: RateLimits
  rateLimitConfig?: Partial<RateLimitConfig>
}

const FLOW_KINDS: FlowKind[] = ['login', 'registration', 'recovery', 'verification', 'settings']

type Handler = (req: Request, res: Response) => Promise<void>

/**
 * The Kratos v1.3 public self-service API for browser flows, served from the identity tables.
 * Mounted by the backend at /kratos; the gateway exposes it as /api/.ory.
 */
export function createKratosRouter(options: KratosRouterOptions): express.Router {
  const ctx: KratosContext = {
    db: options.db,
    logger: options.logger,
    mailer: options.mailer,
    publicBaseUrl: options.publicBaseUrl,
    uiBaseUrl: options.uiBaseUrl,
    registration: options.registration,
    defaultRole: options.defaultRole,
    onIdentityCreated: options.onIdentityCreated,
    flowLifespanSeconds: options.flowLifespanSeconds ?? 3600,
    sessionLifespanSeconds: options.sessionLifespanSeconds ?? 24 * 3600,
    privilegedMaxAgeSeconds: options.privilegedMaxAgeSeconds ?? 15 * 60,
    codeLifespanSeconds: options.codeLifespanSeconds ?? 3600,
    allowedReturnUrls: options.allowedReturnUrls ?? [],
    rateLimits: options.rateLimits ?? createRateLimits(options.db, options.rateLimitConfig),
    defer: deferredQueue(options.logger),
  }
  const router = express.Router()
  // Before the body parsers: a flood is turned away unread.
  router.use((req, res, next) => {
    limitAnonymous(ctx, req)
      .then(() => next())
      .catch((error: unknown) => sendError(ctx, req, res, error).catch(next))
  })
  router.use(express.json({ limit: '64kb' }), express.urlencoded({ extended: false, limit: '64kb' }))

  const wrap = (handler: Handler) => (req: Request, res: Response, next: NextFunction) => {
    res.setHeader('Cache-Control', 'private, no-cache, no-store, must-revalidate')
    handler(req, res).catch((error: unknown) => sendError(ctx, req, res, error).catch(next))
  }

  for (const kind of FLOW_KINDS) {
    router.get(`/self-service/${kind}/browser`, wrap((req, res) => createFlow(ctx, kind, req, res)))
    router.get(`/self-service/${kind}/flows`, wrap((req, res) => getFlow(ctx, kind, req, res)))
    router.post(`/self-service/${kind}`, wrap((req, res) => submitFlow(ctx, kind, req, res)))
  }
  router.get('/self-service/recovery', wrap((req, res) => recoveryLink(ctx, req, res)))
  router.get('/self-service/login/unlock', wrap((req, res) => unlockWithLink(ctx, req, res)))
  router.get('/self-service/verification', wrap(async (req, res) => redirectToUi(ctx, res, 'verification', queryString(req, 'flow'))))
  // The return target after a refresh login resumes the paused settings flow in the console.
  router.get('/self-service/settings', wrap(async (req, res) => redirectToUi(ctx, res, 'settings', queryString(req, 'flow'))))
  router.get('/self-service/logout/browser', wrap((req, res) => createLogout(ctx, req, res)))
  router.get('/self-service/logout', wrap((req, res) => performLogout(ctx, req, res)))
  router.get('/sessions/whoami', wrap((req, res) => whoami(ctx, req, res)))
  router.get('/self-service/errors', wrap((req, res) => flowError(ctx, req, res)))
  router.get('/schemas/:id', wrap(async (_req, res) => void res.json(IDENTITY_SCHEMA)))
  router.get('/.well-known/ory/webauthn.js', (_req, res) => {
    res.type('application/javascript').setHeader('Cache-Control', 'public, max-age=3600')
    res.send(WEBAUTHN_SCRIPT)
  })
  router.get('/health/alive', (_req, res) => void res.json({ status: 'ok' }))
  return router
}

/** A request carrying no live session counts against its client's per-minute budget. */
async function limitAnonymous(ctx: KratosContext, req: Request): Promise<void> {
  if (await currentSession(ctx, req)) return
  const retryAfter = await anonymousRetryAfter(ctx.rateLimits, clientAddressOf(req))
  if (retryAfter !== undefined) {
    throw errors.rateLimited(retryAfter, `Too many requests from this address. Try again in ${retryAfter} seconds.`)
  }
}

function deferredQueue(logger: Logger): KratosContext['defer'] {
  let tail: Promise<void> = Promise.resolve()
  return (label, task) => {
    tail = tail.then(task).catch((error: unknown) => logger.error({ err: error, task: label }, 'deferred identity work failed'))
  }
}

async function redirectToUi(ctx: KratosContext, res: Response, kind: FlowKind, flowId: string | undefined): Promise<void> {
  if (!flowId) throw errors.badRequest('The flow query parameter is missing or malformed.')
  res.redirect(303, uiUrl(ctx, kind, { flow: flowId }))
}

// Errors ----------------------------------------------------------------------------------------

async function sendError(ctx: KratosContext, req: Request, res: Response, error: unknown): Promise<void> {
  const kratosError =
    error instanceof KratosError
      ? error
      : new KratosError(500, { reason: 'An internal error occurred.' })
  if (!(error instanceof KratosError)) ctx.logger.error({ err: error, path: req.path }, 'identity request failed')
  for (const [name, value] of Object.entries(kratosError.headers)) res.setHeader(name, value)
  if (isJsonClient(req)) {
    res.status(kratosError.code).json(kratosError.envelope())
    return
  }
  // Browsers: follow location changes, otherwise park the error and show the console's error page.
  if (kratosError.extras.redirect_browser_to) {
    res.redirect(303, kratosError.extras.redirect_browser_to)
    return
  }
  if (kratosError.id === 'session_already_available') {
    res.redirect(303, defaultReturnUrl(ctx))
    return
  }
  if (kratosError.code === 429) {
    res.status(429).type('text/plain').send(kratosError.reason ?? 'Too many requests')
    return
  }
  const { rows } = await ctx.db.query<{ id: string }>('INSERT INTO identity.flow_errors (error) VALUES ($1) RETURNING id', [JSON.stringify(kratosError.body())])
  res.redirect(303, uiUrl(ctx, 'error', { id: rows[0]?.id ?? '' }))
}

async function flowError(ctx: KratosContext, req: Request, res: Response): Promise<void> {
  const id = queryString(req, 'id') ?? ''
  const { rows } = /^[0-9a-f-]{36}$/i.test(id)
    ? await ctx.db.query<{ id: string; error: unknown; created_at: Date; updated_at: Date }>('SELECT * FROM identity.flow_errors WHERE id = $1', [id])
    : { rows: [] }
  const row = rows[0]
  if (!row) throw errors.notFound('The requested error could not be found.')
  res.json({ id: row.id, error: row.error, created_at: new Date(row.created_at).toISOString(), updated_at: new Date(row.updated_at).toISOString() })
}

// Create ----------------------------------------------------------------------------------------

function createEndpoint(ctx: KratosContext, kind: FlowKind, returnTo: string | null): string {
  const query = returnTo ? `?${new URLSearchParams({ return_to: returnTo }).toString()}` : ''
  return publicUrl(ctx, `/self-service/${kind}/browser${query}`)
}

// req.url is relative to this router, whatever path the gateway or backend mounted it under.
function requestUrl(ctx: KratosContext, req: Request): string {
  const url = new URL(req.url, 'http://placeholder')
  const base = new URL(ctx.publicBaseUrl())
  return `${base.origin}${base.pathname.replace(/\/+$/, '')}${url.pathname}${url.search}`
}

async function respondWithNewFlow(ctx: KratosContext, req: Request, res: Response, flow: FlowRow, csrf: string): Promise<void> {
  if (isJsonClient(req)) {
    res.json(await renderFlow(ctx, flow, csrf))
    return
  }
  res.redirect(303, uiUrl(ctx, flow.kind, { flow: flow.id }))
}

async function createFlow(ctx: KratosContext, kind: FlowKind, req: Request, res: Response): Promise<void> {
  const returnTo = validateReturnTo(queryString(req, 'return_to'), { defaultReturnUrl: defaultReturnUrl(ctx), allowed: allowedReturnUrls(ctx) })
  const session = await currentSession(ctx, req)
  const base = { kind, requestUrl: requestUrl(ctx, req), lifespanSeconds: ctx.flowLifespanSeconds, returnTo }

  if (kind === 'login') {
    const aalParam = queryString(req, 'aal') ?? ''
    if (!['', 'aal1', 'aal2'].includes(aalParam)) throw errors.badRequest('Unable to parse AuthenticationMethod Assurance Level (AAL).')
    const requestedAal = aalParam === 'aal2' ? 'aal2' : 'aal1'
    // Any non-empty refresh value counts, as in Kratos; without a session it is dropped.
    const refreshParam = queryString(req, 'refresh')
    const refresh = Boolean(refreshParam && refreshParam !== 'false') && Boolean(session)
    if (requestedAal === 'aal2' && !session) throw errors.aal1Required()
    if (session && !refresh && (requestedAal === 'aal1' || session.aal === 'aal2')) {
      if (!isJsonClient(req)) {
        res.redirect(303, resolveReturnToUrl(ctx, returnTo))
        return
      }
      throw errors.sessionAlreadyAvailable()
    }
    const csrf = ensureCsrfCookie(ctx, req, res)
    const messages = requestedAal === 'aal2' ? [texts.secondFactor()] : refresh ? [texts.confirmAction()] : []
    const flow = await insertFlow(ctx.db, {
      ...base,
      csrfSecret: csrf,
      requestedAal,
      refresh,
      identityId: session?.identity_id,
      sessionId: session?.id,
      uiState: { messages },
    })
    return respondWithNewFlow(ctx, req, res, flow, csrf)
  }

  if (kind === 'registration' || kind === 'recovery') {
    if (session) {
      if (!isJsonClient(req)) {
        res.redirect(303, resolveReturnToUrl(ctx, returnTo))
        return
      }
      throw errors.sessionAlreadyAvailable()
    }
  }

  const internal: FlowRow['internal'] = {}
  if (kind === 'registration') {
    const token = queryString(req, 'token')
    if (token) {
      const code = await findLinkCode(ctx.db, 'registration_link', token)
      if (!code) throw new KratosError(403, { reason: 'The registration link is invalid, expired or was already used.' })
      internal.registration_code_id = code.id
      internal.role = code.role ?? undefined
    } else if (ctx.registration !== 'open') {
      throw errors.flowDisabled('Registration')
    }
  }

  if (kind === 'settings') {
    if (!session) {
      if (!isJsonClient(req)) {
        res.redirect(303, createEndpoint(ctx, 'login', publicUrl(ctx, `/self-service/settings/browser${returnTo ? `?return_to=${encodeURIComponent(returnTo)}` : ''}`)))
        return
      }
      throw errors.sessionInactive()
    }
    await assertSettingsAal(ctx, session, returnTo)
  }

  const csrf = ensureCsrfCookie(ctx, req, res)
  const flow = await insertFlow(ctx.db, {
    ...base,
    csrfSecret: csrf,
    identityId: kind === 'settings' ? session?.identity_id : undefined,
    sessionId: kind === 'settings' ? session?.id : undefined,
    internal,
  })
  return respondWithNewFlow(ctx, req, res, flow, csrf)
}

async function assertSettingsAal(ctx: KratosContext, session: SessionRow, returnTo: string | null | undefined): Promise<void> {
  if (await meetsHighestAvailable(ctx.db, session)) return
  const query = new URLSearchParams({ aal: 'aal2' })
  if (returnTo) query.set('return_to', returnTo)
  throw errors.aal2Required(publicUrl(ctx, `/self-service/login/browser?${query.toString()}`))
}

// Read ------------------------------------------------------------------------------------------

async function getFlow(ctx: KratosContext, kind: FlowKind, req: Request, res: Response): Promise<void> {
  const flow = await findFlow(ctx.db, kind, queryString(req, 'id'))
  if (!flow) throw errors.notFound('The requested flow could not be found.')
  if (kind === 'settings') {
    const session = await currentSession(ctx, req)
    if (!session) throw errors.sessionInactive()
    if (session.identity_id !== flow.identity_id) throw errors.identityMismatch()
    await assertSettingsAal(ctx, session, flow.return_to)
  } else if (flow.type === 'browser' && flow.csrf_token_hash) {
    assertCsrf({
      cookieSecret: csrfSecretOf(ctx, req),
      hasCookieHeader: Boolean(req.headers.cookie),
      submitted: undefined,
      requireSubmitted: false,
      flowHash: flow.csrf_token_hash,
    })
  }
  if (isExpired(flow)) {
    const withId = kind === 'login' || kind === 'registration'
    throw new KratosError(410, {
      ...(withId ? { id: 'self_service_flow_expired' } : {}),
      reason: 'The self-service flow expired, please restart it.',
      message: 'self-service flow expired',
      details: { redirect_to: createEndpoint(ctx, kind, flow.return_to), ...(flow.return_to ? { return_to: flow.return_to } : {}) },
    })
  }
  res.json(await renderFlow(ctx, flow, csrfSecretOf(ctx, req)))
}

// Submit ----------------------------------------------------------------------------------------

const EXPIRED_TEXT: Record<FlowKind, (minutes: number) => ReturnType<typeof texts.loginExpired>> = {
  login: texts.loginExpired,
  registration: texts.registrationExpired,
  recovery: texts.recoveryExpired,
  verification: texts.verificationExpired,
  settings: texts.settingsExpired,
}

async function replaceExpiredFlow(ctx: KratosContext, req: Request, res: Response, flow: FlowRow): Promise<void> {
  const csrf = ensureCsrfCookie(ctx, req, res)
  const replacement = await insertFlow(ctx.db, {
    kind: flow.kind,
    requestUrl: flow.request_url,
    lifespanSeconds: ctx.flowLifespanSeconds,
    csrfSecret: csrf,
    returnTo: flow.return_to ?? undefined,
    requestedAal: flow.requested_aal,
    refresh: flow.refresh,
    identityId: flow.identity_id ?? undefined,
    sessionId: flow.session_id ?? undefined,
    internal: flow.kind === 'registration' ? { registration_code_id: flow.internal.registration_code_id, role: flow.internal.role } : {},
    uiState: { messages: [EXPIRED_TEXT[flow.kind](minutesSinceExpiry(flow))] },
  })
  if (!isJsonClient(req)) {
    res.redirect(303, uiUrl(ctx, flow.kind, { flow: replacement.id }))
    return
  }
  const expiredAt = new Date(flow.expires_at)
  res.status(410).json({
    ...new KratosError(410, {
      id: 'self_service_flow_expired',
      reason: 'The self-service flow expired, please restart it.',
      message: 'self-service flow expired',
      details: { redirect_to: createEndpoint(ctx, flow.kind, flow.return_to) },
    }).envelope(),
    use_flow_id: replacement.id,
    expired_at: expiredAt.toISOString(),
    since: Math.max(0, Date.now() - expiredAt.getTime()) * 1_000_000,
  })
}

async function submitFlow(ctx: KratosContext, kind: FlowKind, req: Request, res: Response): Promise<void> {
  const flow = await findFlow(ctx.db, kind, queryString(req, 'flow'))
  if (!flow) throw errors.notFound('The requested flow could not be found.')
  const body = readBody(req)

  let session: SessionRow | undefined
  if (kind === 'settings') {
    session = await currentSession(ctx, req)
    if (!session) throw errors.sessionInactive()
    if (session.identity_id !== flow.identity_id) throw errors.identityMismatch()
    await assertSettingsAal(ctx, session, flow.return_to)
  }
  if (flow.type === 'browser') {
    const header = req.headers['x-csrf-token']
    assertCsrf({
      cookieSecret: csrfSecretOf(ctx, req),
      hasCookieHeader: Boolean(req.headers.cookie),
      submitted: typeof body.csrf_token === 'string' ? body.csrf_token : typeof header === 'string' ? header : undefined,
      requireSubmitted: true,
      // Settings flows are bound to the session instead; a refresh sign-in in between must not
      // orphan the flow that asked for it.
      flowHash: kind === 'settings' ? null : flow.csrf_token_hash,
    })
  }
  if (isExpired(flow)) return replaceExpiredFlow(ctx, req, res, flow)

  let outcome: Outcome
  switch (kind) {
    case 'login':
      outcome = await submitLogin(ctx, req, res, flow, body)
      break
    case 'registration':
      outcome = await submitRegistration(ctx, req, res, flow, body)
      break
    case 'recovery':
    case 'verification':
      outcome = await submitCodeFlow(ctx, req, res, flow, body)
      break
    case 'settings':
      outcome = await submitSettings(ctx, flow, body, session as SessionRow)
      break
  }
  await sendOutcome(ctx, req, res, outcome)
}

async function sendOutcome(ctx: KratosContext, req: Request, res: Response, outcome: Outcome): Promise<void> {
  if (outcome.kind === 'json') {
    if (isJsonClient(req)) res.status(outcome.status).json(outcome.body)
    else res.redirect(303, outcome.redirect)
    return
  }
  if (!isJsonClient(req)) {
    res.redirect(303, uiUrl(ctx, outcome.flow.kind, { flow: outcome.flow.id }))
    return
  }
  // The response may have rotated the CSRF cookie; the rendered token must match the new one.
  const rotated = /csrf_token_[0-9a-f]+=([^;]*)/.exec(String(res.getHeader('Set-Cookie') ?? ''))
  const secret = rotated?.[1] ? decodeURIComponent(rotated[1]) : csrfSecretOf(ctx, req)
  res.status(outcome.status).json(await renderFlow(ctx, outcome.flow, secret))
}

// Recovery links (invites, admin-created) -------------------------------------------------------

async function recoveryLink(ctx: KratosContext, req: Request, res: Response): Promise<void> {
  const flowId = queryString(req, 'flow')
  const token = queryString(req, 'token')
  if (!token) return redirectToUi(ctx, res, 'recovery', flowId)
  const code = await findLinkCode(ctx.db, 'recovery_link', token)
  const flow = code?.flow_id && code.flow_id === flowId ? await findFlow(ctx.db, 'recovery', flowId) : undefined
  if (!code?.identity_id || !flow || !(await spendCode(ctx.db, code.id))) {
    const csrf = ensureCsrfCookie(ctx, req, res)
    const fresh = await insertFlow(ctx.db, {
      kind: 'recovery',
      requestUrl: requestUrl(ctx, req),
      lifespanSeconds: ctx.flowLifespanSeconds,
      csrfSecret: csrf,
      uiState: { messages: [{ id: 4060004, text: 'The recovery token is invalid or has already been used. Please retry the flow.', type: 'error', context: {} }] },
    })
    res.redirect(303, uiUrl(ctx, 'recovery', { flow: fresh.id }))
    return
  }
  const identity = await findIdentity(ctx.db, code.identity_id)
  if (!identity || identity.state !== 'active') throw errors.badRequest('The account of this recovery link is not active.')
  try {
    await completeRecovery(ctx, req, res, flow, code.identity_id)
  } catch (error) {
    // A link is always opened by a browser: follow the location change with a redirect.
    if (error instanceof KratosError && error.extras.redirect_browser_to) {
      res.redirect(303, error.extras.redirect_browser_to)
      return
    }
    throw error
  }
}

// Logout and whoami -----------------------------------------------------------------------------

async function createLogout(ctx: KratosContext, req: Request, res: Response): Promise<void> {
  const returnTo = validateReturnTo(queryString(req, 'return_to'), { defaultReturnUrl: defaultReturnUrl(ctx), allowed: allowedReturnUrls(ctx) })
  const session = await currentSession(ctx, req)
  if (!session) throw errors.sessionInactive()
  const token = await issueLogoutToken(ctx.db, session.id)
  const query = new URLSearchParams({ token })
  if (returnTo) query.set('return_to', returnTo)
  res.json({ logout_url: publicUrl(ctx, `/self-service/logout?${query.toString()}`), logout_token: token })
}

async function performLogout(ctx: KratosContext, req: Request, res: Response): Promise<void> {
  const token = queryString(req, 'token')
  const returnTo = validateReturnTo(queryString(req, 'return_to'), { defaultReturnUrl: defaultReturnUrl(ctx), allowed: allowedReturnUrls(ctx) })
  if (!token) throw errors.badRequest('Please include a token in the URL query.')
  const session = await currentSession(ctx, req)
  if (!session) throw errors.sessionInactive()
  if (!session.logout_token_hash || session.logout_token_hash !== tokenHash(token)) {
    throw new KratosError(403, { reason: 'Unable to log out because the logout token in the URL query does not match the session cookie.' })
  }
  await revokeSession(ctx.db, session.id)
  clearSessionCookie(ctx, req, res)
  regenerateCsrf(ctx, req, res)
  if (isJsonClient(req)) {
    res.status(204).end()
    return
  }
  res.redirect(303, returnTo ? resolveReturnToUrl(ctx, returnTo) : `${ctx.uiBaseUrl().replace(/\/+$/, '')}/login`)
}

async function whoami(ctx: KratosContext, req: Request, res: Response): Promise<void> {
  const session = await currentSession(ctx, req)
  const identity = session ? await findIdentity(ctx.db, session.identity_id) : undefined
  if (!session || !identity || identity.state !== 'active') {
    // Kratos answers this 401 without an error id; the console branches on the status alone.
    res.status(401).json({ error: { code: 401, status: 'Unauthorized', reason: 'No valid session credentials found in the request.', message: 'The request could not be authorized' } })
    return
  }
  if (!(await meetsHighestAvailable(ctx.db, session))) {
    throw errors.aal2Required(publicUrl(ctx, '/self-service/login/browser?aal=aal2'))
  }
  res.setHeader('X-Kratos-Authenticated-Identity-Id', identity.id)
  res.json(await sessionJson(ctx.db, session, identity, schemaUrl(ctx, identity.schema_id)))
}

const IDENTITY_SCHEMA = {
  $id: 'https://schemas.ory.sh/presets/kratos/identity.email.schema.json',
  $schema: 'http://json-schema.org/draft-07/schema#',
  title: 'Person',
  type: 'object',
  properties: {
    traits: {
      type: 'object',
      properties: {
        email: {
          type: 'string',
          format: 'email',
          title: 'E-Mail',
          'ory.sh/kratos': { credentials: { password: { identifier: true } }, verification: { via: 'email' }, recovery: { via: 'email' } },
        },
        name: { type: 'object', properties: { first: { type: 'string', title: 'First Name' }, last: { type: 'string', title: 'Last Name' } } },
      },
      required: ['email'],
      additionalProperties: false,
    },
  },
}
