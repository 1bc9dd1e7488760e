import type { Request, Response } from 'express'
import { verify as verifyTotp } from 'otplib'
import { currentSession, publicUrl, regenerateCsrf, resolveReturnToUrl, schemaUrl, setSessionCookie, type KratosContext } from './context.ts'
import { errors } from './errors.ts'
import { addFieldMessage, addFlowMessage, hasErrors, resetUiState, saveFlow, setFieldValue, type FlowRow } from './flows.ts'
import { findIdentity, findIdentityByEmail, getCredential, setCredential, type IdentityRow } from './identities.ts'
import { str, type FormBody, type Outcome } from './outcome.ts'
import { decoyVerify, verifyPassword } from './passwords.ts'
import { beginLogin, loginSucceededFor } from './login-lockout.ts'
import { addAuthenticationMethod, createSession, meetsHighestAvailable, sessionJson, type SessionRow } from './sessions.ts'
import { texts } from './ui-texts.ts'
import { verifyAuthentication } from './webauthn.ts'

function inferMethod(body: FormBody): string | undefined {
  const method = str(body.method)
  if (method) return method
  if (body.webauthn_login) return 'webauthn'
  if (body.totp_code !== undefined) return 'totp'
  if (body.lookup_secret !== undefined) return 'lookup_secret'
  if (body.password !== undefined) return 'password'
  return undefined
}

/** The time step of a valid TOTP code (one step of clock drift allowed), else undefined. */
export async function acceptedTimeStep(secret: string, code: string, afterTimeStep?: number): Promise<number | undefined> {
  if (!/^\d{6}$/.test(code)) return undefined
  try {
    const result = await verifyTotp({ secret, token: code, epochTolerance: 30, afterTimeStep })
    return result.valid && 'timeStep' in result && typeof result.timeStep === 'number' ? result.timeStep : undefined
  } catch {
    return undefined
  }
}

function invalid(flow: FlowRow): Outcome {
  return { kind: 'flow', flow, status: 400 }
}

/** Handles POST /self-service/login for every method. */
export async function submitLogin(ctx: KratosContext, req: Request, res: Response, flow: FlowRow, body: FormBody): Promise<Outcome> {
  const session = await currentSession(ctx, req)
  const method = inferMethod(body)
  resetUiState(flow, true)
  flow.active = method ?? null

  // A second factor or a refresh continues the caller's own session; a plain sign-in must not
  // happen on top of a session that is already good enough.
  const stepUp = flow.requested_aal === 'aal2' || flow.refresh
  if (stepUp && (!session || session.identity_id !== flow.identity_id)) throw errors.sessionInactive()
  if (!stepUp && session && (await meetsHighestAvailable(ctx.db, session))) throw errors.sessionAlreadyAvailable()

  if (method === 'password' && flow.requested_aal !== 'aal2') return passwordLogin(ctx, req, res, flow, body, session)
  if (flow.requested_aal === 'aal2' && session) {
    const identity = await findIdentity(ctx.db, session.identity_id)
    if (!identity) throw errors.sessionInactive()
    if (method === 'totp') return totpLogin(ctx, req, res, flow, body, session, identity)
    if (method === 'lookup_secret') return lookupLogin(ctx, req, res, flow, body, session, identity)
    if (method === 'webauthn') return webauthnLogin(ctx, req, res, flow, body, session, identity)
  }
  addFlowMessage(flow, texts.noStrategy())
  await saveFlow(ctx.db, flow)
  return invalid(flow)
}

async function passwordLogin(ctx: KratosContext, req: Request, res: Response, flow: FlowRow, body: FormBody, session: SessionRow | undefined): Promise<Outcome> {
  const identifier = str(body.identifier)?.trim() ?? ''
  const password = str(body.password) ?? ''
  setFieldValue(flow, 'identifier', identifier)
  if (!identifier) addFieldMessage(flow, 'identifier', texts.missing('identifier'))
  if (!password) addFieldMessage(flow, 'password', texts.missing('password'))
  if (hasErrors(flow)) {
    await saveFlow(ctx.db, flow)
    return invalid(flow)
  }
  // Counted before the check, so parallel guesses cannot all pass a limit read beforehand.
  await beginLogin(ctx, req, identifier)
  const identity = await findIdentityByEmail(ctx.db, identifier)
  const credential = identity ? await getCredential(ctx.db, identity.id, 'password') : undefined
  const matches = credential ? await verifyPassword(credential.hashed_password, password) : await decoyVerify(password)
  const allowed = matches && identity?.state === 'active' && (!flow.refresh || identity.id === flow.identity_id)
  if (!identity || !allowed) {
    addFlowMessage(flow, texts.invalidCredentials())
    await saveFlow(ctx.db, flow)
    return invalid(flow)
  }
  await loginSucceededFor(ctx, req, identifier)
  if (flow.refresh && session) {
    const upgraded = await addAuthenticationMethod(ctx.db, session.id, { method: 'password', aal: 'aal1' }, { rotate: true, reauthenticated: true })
    return finishLogin(ctx, req, res, flow, upgraded.session, upgraded.token, identity)
  }
  const created = await createSession(ctx.db, {
    identityId: identity.id,
    method: 'password',
    lifespanSeconds: ctx.sessionLifespanSeconds,
    ip: req.ip,
    userAgent: req.headers['user-agent'],
  })
  return finishLogin(ctx, req, res, flow, created.session, created.token, identity)
}

async function secondFactorFailed(ctx: KratosContext, flow: FlowRow, field: string, message: ReturnType<typeof texts.invalidTotp>): Promise<Outcome> {
  addFieldMessage(flow, field, message)
  await saveFlow(ctx.db, flow)
  return invalid(flow)
}

async function totpLogin(ctx: KratosContext, req: Request, res: Response, flow: FlowRow, body: FormBody, session: SessionRow, identity: IdentityRow): Promise<Outcome> {
  const code = str(body.totp_code)?.trim() ?? ''
  if (!code) {
    addFieldMessage(flow, 'totp_code', texts.missing('totp_code'))
    await saveFlow(ctx.db, flow)
    return invalid(flow)
  }
  await beginLogin(ctx, req, identity.traits.email)
  const credential = await getCredential(ctx.db, identity.id, 'totp')
  if (!credential) return secondFactorFailed(ctx, flow, 'totp_code', texts.noTotp())
  // afterTimeStep makes each code single-use, even within its 30-second window.
  const timeStep = await acceptedTimeStep(credential.secret, code, credential.last_time_step)
  if (timeStep === undefined) return secondFactorFailed(ctx, flow, 'totp_code', texts.invalidTotp())
  await setCredential(ctx.db, identity.id, 'totp', { ...credential, last_time_step: timeStep })
  await loginSucceededFor(ctx, req, identity.traits.email)
  const upgraded = await addAuthenticationMethod(ctx.db, session.id, { method: 'totp', aal: 'aal2' }, { rotate: true, reauthenticated: true })
  return finishLogin(ctx, req, res, flow, upgraded.session, upgraded.token, identity)
}

async function lookupLogin(ctx: KratosContext, req: Request, res: Response, flow: FlowRow, body: FormBody, session: SessionRow, identity: IdentityRow): Promise<Outcome> {
  const code = str(body.lookup_secret)?.trim().toLowerCase() ?? ''
  if (!code) {
    addFieldMessage(flow, 'lookup_secret', texts.missing('lookup_secret'))
    await saveFlow(ctx.db, flow)
    return invalid(flow)
  }
  await beginLogin(ctx, req, identity.traits.email)
  // Marking the code used is one conditional UPDATE, so two concurrent logins cannot both spend it.
  const { rows } = await ctx.db.query<{ outcome: string }>(
    `WITH cred AS (
       SELECT id, config FROM identity.identity_credentials WHERE identity_id = $1 AND type = 'lookup_secret' FOR UPDATE
     ), pos AS (
       SELECT cred.id, (e.ordinality - 1)::int AS idx, e.value ? 'used_at' AS used
         FROM cred, jsonb_array_elements(cred.config -> 'recovery_codes') WITH ORDINALITY AS e(value, ordinality)
        WHERE e.value ->> 'code' = $2
        LIMIT 1
     ), upd AS (
       UPDATE identity.identity_credentials c
          SET config = jsonb_set(c.config, ARRAY['recovery_codes', pos.idx::text, 'used_at'], to_jsonb($3::text)), updated_at = now()
         FROM pos WHERE c.id = pos.id AND NOT pos.used
       RETURNING c.id
     )
     SELECT CASE WHEN EXISTS (SELECT 1 FROM upd) THEN 'ok' WHEN EXISTS (SELECT 1 FROM pos) THEN 'used' ELSE 'invalid' END AS outcome`,
    [identity.id, code, new Date().toISOString()],
  )
  const outcome = rows[0]?.outcome
  if (outcome === 'used') return secondFactorFailed(ctx, flow, 'lookup_secret', texts.lookupUsed())
  if (outcome !== 'ok') return secondFactorFailed(ctx, flow, 'lookup_secret', texts.lookupInvalid())
  await loginSucceededFor(ctx, req, identity.traits.email)
  const upgraded = await addAuthenticationMethod(ctx.db, session.id, { method: 'lookup_secret', aal: 'aal2' }, { rotate: true, reauthenticated: true })
  return finishLogin(ctx, req, res, flow, upgraded.session, upgraded.token, identity)
}

function parseJsonField(value: unknown): unknown {
  if (typeof value !== 'string') return value
  try {
    return JSON.parse(value)
  } catch {
    return undefined
  }
}

async function webauthnLogin(ctx: KratosContext, req: Request, res: Response, flow: FlowRow, body: FormBody, session: SessionRow, identity: IdentityRow): Promise<Outcome> {
  const response = parseJsonField(body.webauthn_login)
  const credential = await getCredential(ctx.db, identity.id, 'webauthn')
  const challenge = flow.internal.webauthn_challenge
  if (!response || !credential || !challenge) {
    addFlowMessage(flow, texts.generic('The WebAuthn response is missing or malformed.'))
    await saveFlow(ctx.db, flow)
    return invalid(flow)
  }
  await beginLogin(ctx, req, identity.traits.email)
  const verified = await verifyAuthentication({ uiBaseUrl: ctx.uiBaseUrl(), challenge, response, keys: credential.credentials })
  // A challenge answers one ceremony only.
  delete flow.internal.webauthn_challenge
  if (!verified) {
    addFlowMessage(flow, texts.invalidCredentials())
    await saveFlow(ctx.db, flow)
    return invalid(flow)
  }
  const keys = credential.credentials.map((key) => (key.id === verified.key.id ? { ...key, counter: verified.newCounter } : key))
  await setCredential(ctx.db, identity.id, 'webauthn', { ...credential, credentials: keys })
  await loginSucceededFor(ctx, req, identity.traits.email)
  const upgraded = await addAuthenticationMethod(ctx.db, session.id, { method: 'webauthn', aal: 'aal2' }, { rotate: true, reauthenticated: true })
  return finishLogin(ctx, req, res, flow, upgraded.session, upgraded.token, identity)
}

async function finishLogin(ctx: KratosContext, req: Request, res: Response, flow: FlowRow, session: SessionRow, token: string | undefined, identity: IdentityRow): Promise<Outcome> {
  if (token) setSessionCookie(ctx, req, res, token)
  // A new principal gets a new CSRF secret; a step-up or refresh of the same session keeps it,
  // so the settings flow that asked for the refresh can still be submitted afterwards.
  if (!flow.refresh && flow.requested_aal !== 'aal2') regenerateCsrf(ctx, req, res)
  flow.state = 'passed_challenge'
  flow.session_id = session.id
  flow.identity_id = identity.id
  await saveFlow(ctx.db, flow)
  if (!(await meetsHighestAvailable(ctx.db, session))) {
    const query = new URLSearchParams({ aal: 'aal2' })
    if (flow.return_to) query.set('return_to', flow.return_to)
    throw errors.locationChange(publicUrl(ctx, `/self-service/login/browser?${query.toString()}`))
  }
  const returnUrl = resolveReturnToUrl(ctx, flow.return_to)
  return {
    kind: 'json',
    status: 200,
    body: {
      session: await sessionJson(ctx.db, session, identity, schemaUrl(ctx, identity.schema_id)),
      continue_with: [{ action: 'redirect_browser_to', redirect_browser_to: returnUrl }],
    },
    redirect: returnUrl,
  }
}
