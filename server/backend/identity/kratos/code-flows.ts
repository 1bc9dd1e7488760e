import type { Request, Response } from 'express'
import { regenerateCsrf, setSessionCookie, uiUrl, type KratosContext } from './context.ts'
import { consumeFlowCode, sixDigitCode, storeCode } from './codes.ts'
import { errors } from './errors.ts'
import { addFieldMessage, addFlowMessage, insertFlow, resetUiState, saveFlow, setFieldValue, type FlowRow } from './flows.ts'
import { markAddressVerified, normaliseEmail } from './identities.ts'
import { str, type FormBody, type Outcome } from './outcome.ts'
import { clientAddressOf } from '#server/ops/client-address.ts'
import { assertCodeRequestAllowed, mayMailCode } from './rate-limit.ts'
import { createSession } from './sessions.ts'
import { texts } from './ui-texts.ts'

const EMAIL = /^[^\s@]+@[^\s@]+$/

async function sendRecoveryCode(ctx: KratosContext, flowId: string, email: string): Promise<void> {
  const { rows } = await ctx.db.query<{ identity_id: string }>(
    'SELECT identity_id FROM identity.identity_recovery_addresses WHERE lower(value) = $1 LIMIT 1',
    [email],
  )
  const identityId = rows[0]?.identity_id
  if (!identityId) return
  const code = sixDigitCode()
  await storeCode(ctx.db, { kind: 'recovery_code', code, flowId, identityId, address: email, lifespanSeconds: ctx.codeLifespanSeconds })
  await ctx.mailer.send({
    to: email,
    subject: 'Recover access to your account',
    text: `Hi,\n\nplease recover access to your account by entering the following code:\n\n${code}\n\nThe code is valid for ${Math.round(ctx.codeLifespanSeconds / 60)} minutes. If you did not ask for it, ignore this mail.\n`,
  })
}

/** Mails a verification code for an address of this flow; also used right after registration. */
export async function sendVerificationCode(ctx: KratosContext, flow: FlowRow, email: string): Promise<void> {
  const { rows } = await ctx.db.query<{ identity_id: string }>(
    'SELECT identity_id FROM identity.identity_verifiable_addresses WHERE lower(value) = $1 LIMIT 1',
    [email],
  )
  const identityId = rows[0]?.identity_id
  if (!identityId) return
  const code = sixDigitCode()
  await storeCode(ctx.db, { kind: 'verification_code', code, flowId: flow.id, identityId, address: email, lifespanSeconds: ctx.codeLifespanSeconds })
  await ctx.db.query(
    "UPDATE identity.identity_verifiable_addresses SET status = 'sent', updated_at = now() WHERE identity_id = $1 AND lower(value) = $2 AND NOT verified",
    [identityId, email],
  )
  await ctx.mailer.send({
    to: email,
    subject: 'Please verify your email address',
    text: `Hi,\n\nplease verify your account by entering the following code:\n\n${code}\n`,
  })
}

/** POST /self-service/recovery and /self-service/verification with the `code` method. */
export async function submitCodeFlow(ctx: KratosContext, req: Request, res: Response, flow: FlowRow, body: FormBody): Promise<Outcome> {
  const recovery = flow.kind === 'recovery'
  const method = str(body.method) ?? 'code'
  resetUiState(flow, false)
  flow.active = 'code'
  if (method !== 'code') {
    addFlowMessage(flow, texts.generic(`The ${flow.kind} method "${method}" is not supported.`))
    await saveFlow(ctx.db, flow)
    return { kind: 'flow', flow, status: 400 }
  }
  const code = str(body.code)?.trim()
  const email = str(body.email)?.trim()

  if (code && flow.state === 'sent_email') {
    const spent = await consumeFlowCode(ctx.db, flow.id, recovery ? 'recovery_code' : 'verification_code', code)
    if (!spent?.identity_id) {
      addFlowMessage(flow, recovery ? texts.recoveryCodeInvalid() : texts.verificationCodeInvalid())
      await saveFlow(ctx.db, flow)
      return { kind: 'flow', flow, status: 400 }
    }
    if (spent.address) await markAddressVerified(ctx.db, spent.identity_id, spent.address)
    if (recovery) return completeRecovery(ctx, req, res, flow, spent.identity_id)
    flow.state = 'passed_challenge'
    addFlowMessage(flow, texts.verified())
    await saveFlow(ctx.db, flow)
    return { kind: 'flow', flow, status: 200 }
  }

  if (!email) {
    addFieldMessage(flow, flow.state === 'sent_email' ? 'code' : 'email', texts.missing(flow.state === 'sent_email' ? 'code' : 'email'))
    await saveFlow(ctx.db, flow)
    return { kind: 'flow', flow, status: 400 }
  }
  setFieldValue(flow, 'email', email)
  if (!EMAIL.test(email)) {
    addFieldMessage(flow, 'email', texts.generic(`"${email}" is not valid "email"`))
    await saveFlow(ctx.db, flow)
    return { kind: 'flow', flow, status: 400 }
  }
  const address = normaliseEmail(email)
  await assertCodeRequestAllowed(ctx.rateLimits, clientAddressOf(req))
  // Known or unknown, over its hourly limit or not, every address gets the same answer after
  // the same work: the lookup, the code and the mail happen after the response.
  if (await mayMailCode(ctx.rateLimits, address)) {
    const flowId = flow.id
    ctx.defer(`${flow.kind} code`, () => (recovery ? sendRecoveryCode(ctx, flowId, address) : sendVerificationCode(ctx, flow, address)))
  }
  flow.state = 'sent_email'
  flow.internal.email = address
  flow.ui_state = { messages: [recovery ? texts.recoveryCodeSent() : texts.verificationCodeSent()] }
  await saveFlow(ctx.db, flow)
  return { kind: 'flow', flow, status: 200 }
}

/**
 * Recovery ends signed in: a fresh session, and a settings flow where the user sets a new
 * password. JSON clients are told to move the browser there (422), browsers are redirected.
 */
export async function completeRecovery(ctx: KratosContext, req: Request, res: Response, flow: FlowRow, identityId: string): Promise<Outcome> {
  const { session, token } = await createSession(ctx.db, {
    identityId,
    method: 'code_recovery',
    lifespanSeconds: ctx.sessionLifespanSeconds,
    ip: req.ip,
    userAgent: req.headers['user-agent'],
  })
  setSessionCookie(ctx, req, res, token)
  const csrf = regenerateCsrf(ctx, req, res)
  const settings = await insertFlow(ctx.db, {
    kind: 'settings',
    requestUrl: flow.request_url,
    lifespanSeconds: ctx.flowLifespanSeconds,
    csrfSecret: csrf,
    returnTo: flow.return_to ?? undefined,
    identityId,
    sessionId: session.id,
    uiState: { messages: [texts.recovered(ctx.privilegedMaxAgeSeconds / 60)] },
  })
  flow.state = 'passed_challenge'
  flow.identity_id = identityId
  flow.session_id = session.id
  await saveFlow(ctx.db, flow)
  throw errors.locationChange(uiUrl(ctx, 'settings', { flow: settings.id }))
}
