import type { Request, Response } from 'express'
import { sendVerificationCode } from './code-flows.ts'
import { spendCode } from './codes.ts'
import { regenerateCsrf, resolveReturnToUrl, schemaUrl, setSessionCookie, uiUrl, type KratosContext } from './context.ts'
import { csrfHash } from './csrf.ts'
import { errors } from './errors.ts'
import { addFieldMessage, addFlowMessage, hasErrors, insertFlow, resetUiState, saveFlow, setFieldValue, type FlowRow } from './flows.ts'
import { createIdentity, DuplicateIdentityError, identityJson, normaliseEmail, type Traits } from './identities.ts'
import { str, type FormBody, type Outcome } from './outcome.ts'
import { passwordPolicyError } from './passwords.ts'
import { createSession, sessionJson } from './sessions.ts'
import { texts } from './ui-texts.ts'

const EMAIL = /^[^\s@]+@[^\s@]+$/

/** Traits from a submit, with schema-style messages on the offending fields. */
export function readTraits(flow: FlowRow, body: FormBody): Traits | undefined {
  const raw = body.traits && typeof body.traits === 'object' ? (body.traits as Record<string, unknown>) : {}
  const name = raw.name && typeof raw.name === 'object' ? (raw.name as Record<string, unknown>) : {}
  const email = str(raw.email)?.trim() ?? ''
  const first = str(name.first)?.trim() ?? ''
  const last = str(name.last)?.trim() ?? ''
  setFieldValue(flow, 'traits.email', email)
  setFieldValue(flow, 'traits.name.first', first)
  setFieldValue(flow, 'traits.name.last', last)
  if (!email) addFieldMessage(flow, 'traits.email', texts.missing('email'))
  else if (!EMAIL.test(email)) addFieldMessage(flow, 'traits.email', texts.generic(`"${email}" is not valid "email"`))
  if (first.length > 256) addFieldMessage(flow, 'traits.name.first', texts.generic('length must be <= 256'))
  if (last.length > 256) addFieldMessage(flow, 'traits.name.last', texts.generic('length must be <= 256'))
  if (hasErrors(flow)) return undefined
  return { email: normaliseEmail(email), name: { first, last } }
}

/** POST /self-service/registration (password method). */
export async function submitRegistration(ctx: KratosContext, req: Request, res: Response, flow: FlowRow, body: FormBody): Promise<Outcome> {
  if (ctx.registration !== 'open' && !flow.internal.registration_code_id) throw errors.flowDisabled('Registration')
  resetUiState(flow, false)
  const method = str(body.method) ?? 'password'
  flow.active = method
  if (method !== 'password') {
    addFlowMessage(flow, texts.noRegistrationStrategy())
    await saveFlow(ctx.db, flow)
    return { kind: 'flow', flow, status: 400 }
  }
  const traits = readTraits(flow, body)
  const password = str(body.password) ?? ''
  if (!password) addFieldMessage(flow, 'password', texts.missing('password'))
  else {
    const policy = passwordPolicyError(password, traits?.email)
    if (policy) addFieldMessage(flow, 'password', policy)
  }
  if (!traits || hasErrors(flow)) {
    await saveFlow(ctx.db, flow)
    return { kind: 'flow', flow, status: 400 }
  }

  // The one-time first-admin link is spent before the identity exists, so it works only once.
  if (flow.internal.registration_code_id && !(await spendCode(ctx.db, flow.internal.registration_code_id))) {
    throw errors.flowDisabled('Registration')
  }
  let identity
  try {
    identity = await createIdentity(
      ctx.db,
      { email: traits.email, firstName: traits.name.first, lastName: traits.name.last, password, role: flow.internal.role ?? ctx.defaultRole },
      { onIdentityCreated: ctx.onIdentityCreated },
    )
  } catch (error) {
    if (!(error instanceof DuplicateIdentityError)) throw error
    addFlowMessage(flow, texts.duplicate())
    await saveFlow(ctx.db, flow)
    return { kind: 'flow', flow, status: 400 }
  }
  ctx.logger.info({ identityId: identity.id }, 'identity registered')

  const verification = await insertFlow(ctx.db, {
    kind: 'verification',
    requestUrl: flow.request_url,
    lifespanSeconds: ctx.flowLifespanSeconds,
    state: 'sent_email',
    returnTo: flow.return_to ?? undefined,
    internal: { email: traits.email },
    uiState: { messages: [texts.verificationCodeSent()] },
  })
  await sendVerificationCode(ctx, verification, traits.email)

  // Signing in right after registration, like Kratos' `session` hook.
  const { session, token } = await createSession(ctx.db, {
    identityId: identity.id,
    method: 'password',
    lifespanSeconds: ctx.sessionLifespanSeconds,
    ip: req.ip,
    userAgent: req.headers['user-agent'],
  })
  setSessionCookie(ctx, req, res, token)
  const csrf = regenerateCsrf(ctx, req, res)
  // The verification flow belongs to the new principal's CSRF cookie.
  await ctx.db.query('UPDATE identity.flows SET csrf_token_hash = $2 WHERE id = $1', [verification.id, csrfHash(csrf)])

  flow.state = 'passed_challenge'
  flow.identity_id = identity.id
  flow.session_id = session.id
  await saveFlow(ctx.db, flow)
  const returnUrl = resolveReturnToUrl(ctx, flow.return_to)
  const schema = schemaUrl(ctx, identity.schema_id)
  return {
    kind: 'json',
    status: 200,
    body: {
      identity: await identityJson(ctx.db, identity, schema),
      session: await sessionJson(ctx.db, session, identity, schema),
      continue_with: [
        {
          action: 'show_verification_ui',
          flow: { id: verification.id, verifiable_address: traits.email, url: uiUrl(ctx, 'verification', { flow: verification.id }) },
        },
        { action: 'redirect_browser_to', redirect_browser_to: returnUrl },
      ],
    },
    redirect: returnUrl,
  }
}
