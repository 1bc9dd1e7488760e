import { randomBytes } from 'node:crypto'
import { publicUrl, type KratosContext } from './context.ts'
import { errors } from './errors.ts'
import { addFieldMessage, addFlowMessage, resetUiState, saveFlow, type FlowRow } from './flows.ts'
import {
  deleteCredential,
  findIdentity,
  findIdentityByEmail,
  getCredential,
  setCredential,
  updateTraits,
  type IdentityRow,
} from './identities.ts'
import { acceptedTimeStep } from './login-flow.ts'
import { str, truthy, type FormBody, type Outcome } from './outcome.ts'
import { hashPassword, passwordPolicyError } from './passwords.ts'
import { readTraits } from './registration-flow.ts'
import { addAuthenticationMethod, type SessionRow } from './sessions.ts'
import { texts } from './ui-texts.ts'
import { verifyRegistration } from './webauthn.ts'

const LOOKUP_ALPHABET = 'abcdefghijklmnopqrstuvwxyz0123456789'

/** 12 one-time backup codes of 8 lowercase alphanumerics, as Kratos issues them. */
export function newLookupCodes(): string[] {
  return Array.from({ length: 12 }, () => {
    const bytes = randomBytes(8)
    return Array.from(bytes, (b) => LOOKUP_ALPHABET[b % LOOKUP_ALPHABET.length]).join('')
  })
}

function inferMethod(body: FormBody): string | undefined {
  const method = str(body.method)
  if (method) return method
  if (body.totp_unlink !== undefined || body.totp_code !== undefined) return 'totp'
  if (Object.keys(body).some((k) => k.startsWith('lookup_secret_'))) return 'lookup_secret'
  if (body.webauthn_register !== undefined || body.webauthn_remove !== undefined) return 'webauthn'
  if (body.password !== undefined) return 'password'
  if (body.traits !== undefined) return 'profile'
  return undefined
}

function invalid(flow: FlowRow): Outcome {
  return { kind: 'flow', flow, status: 400 }
}

/** A second factor just enrolled proves itself, so the session gains it (as in Kratos). */
async function creditSecondFactor(ctx: KratosContext, session: SessionRow, method: string): Promise<void> {
  await addAuthenticationMethod(ctx.db, session.id, { method, aal: 'aal2' }, { rotate: false, reauthenticated: false })
}

/** POST /self-service/settings; the caller already checked session, identity and AAL. */
export async function submitSettings(ctx: KratosContext, flow: FlowRow, body: FormBody, session: SessionRow): Promise<Outcome> {
  const identity = await findIdentity(ctx.db, session.identity_id)
  if (!identity) throw errors.sessionInactive()
  const method = inferMethod(body)
  resetUiState(flow, false)
  flow.active = method ?? null

  // Every change needs a recent sign-in; otherwise re-authenticate and come back to this flow.
  const age = Date.now() - new Date(session.authenticated_at).getTime()
  if (age > ctx.privilegedMaxAgeSeconds * 1000) {
    const resume = publicUrl(ctx, `/self-service/settings?flow=${flow.id}`)
    throw errors.refreshRequired(publicUrl(ctx, `/self-service/login/browser?refresh=true&return_to=${encodeURIComponent(resume)}`))
  }

  let outcome: Outcome | undefined
  switch (method) {
    case 'profile':
      outcome = await updateProfile(ctx, flow, body, identity)
      break
    case 'password':
      outcome = await updatePassword(ctx, flow, body, identity)
      break
    case 'totp':
      outcome = await updateTotp(ctx, flow, body, identity, session)
      break
    case 'lookup_secret':
      outcome = await updateLookup(ctx, flow, body, identity, session)
      break
    case 'webauthn':
      outcome = await updateWebAuthn(ctx, flow, body, identity, session)
      break
    default:
      addFlowMessage(flow, texts.generic('Could not find a strategy to update your settings. Did you fill out the form correctly?'))
      await saveFlow(ctx.db, flow)
      return invalid(flow)
  }
  if (outcome) return outcome
  flow.state = 'success'
  flow.ui_state = { messages: [texts.settingsSaved()] }
  await saveFlow(ctx.db, flow)
  return { kind: 'flow', flow, status: 200 }
}

async function updateProfile(ctx: KratosContext, flow: FlowRow, body: FormBody, identity: IdentityRow): Promise<Outcome | undefined> {
  const traits = readTraits(flow, body)
  if (!traits) {
    await saveFlow(ctx.db, flow)
    return invalid(flow)
  }
  if (traits.email !== identity.traits.email) {
    const other = await findIdentityByEmail(ctx.db, traits.email)
    const person = await ctx.db.query('SELECT 1 FROM public.people WHERE lower(email) = $1 AND deleted_at IS NULL AND id <> $2', [traits.email, identity.id])
    if ((other && other.id !== identity.id) || person.rowCount > 0) {
      addFlowMessage(flow, texts.duplicate())
      await saveFlow(ctx.db, flow)
      return invalid(flow)
    }
  }
  await ctx.db.transaction((tx) => updateTraits(tx, identity.id, traits))
  return undefined
}

async function updatePassword(ctx: KratosContext, flow: FlowRow, body: FormBody, identity: IdentityRow): Promise<Outcome | undefined> {
  const password = str(body.password) ?? ''
  const problem = password ? passwordPolicyError(password, identity.traits.email) : texts.missing('password')
  if (problem) {
    addFieldMessage(flow, 'password', problem)
    await saveFlow(ctx.db, flow)
    return invalid(flow)
  }
  await setCredential(ctx.db, identity.id, 'password', { hashed_password: await hashPassword(password) }, [identity.traits.email])
  return undefined
}

async function updateTotp(ctx: KratosContext, flow: FlowRow, body: FormBody, identity: IdentityRow, session: SessionRow): Promise<Outcome | undefined> {
  if (truthy(body.totp_unlink)) {
    await deleteCredential(ctx.db, identity.id, 'totp')
    delete flow.internal.totp_secret
    return undefined
  }
  const secret = flow.internal.totp_secret
  const code = str(body.totp_code)?.trim() ?? ''
  if (!code) {
    addFieldMessage(flow, 'totp_code', texts.missing('totp_code'))
    await saveFlow(ctx.db, flow)
    return invalid(flow)
  }
  const timeStep = secret ? await acceptedTimeStep(secret, code) : undefined
  if (!secret || timeStep === undefined) {
    addFieldMessage(flow, 'totp_code', texts.invalidTotp())
    await saveFlow(ctx.db, flow)
    return invalid(flow)
  }
  await setCredential(ctx.db, identity.id, 'totp', { secret, last_time_step: timeStep })
  delete flow.internal.totp_secret
  await creditSecondFactor(ctx, session, 'totp')
  return undefined
}

async function updateLookup(ctx: KratosContext, flow: FlowRow, body: FormBody, identity: IdentityRow, session: SessionRow): Promise<Outcome | undefined> {
  if (truthy(body.lookup_secret_regenerate)) {
    flow.internal.lookup_codes = newLookupCodes()
    flow.internal.lookup_reveal = false
    return undefined
  }
  if (truthy(body.lookup_secret_confirm)) {
    const codes = flow.internal.lookup_codes
    if (!codes) {
      addFlowMessage(flow, texts.generic('There are no new backup recovery codes to confirm. Generate them first.'))
      await saveFlow(ctx.db, flow)
      return invalid(flow)
    }
    await setCredential(ctx.db, identity.id, 'lookup_secret', { recovery_codes: codes.map((code) => ({ code })) })
    delete flow.internal.lookup_codes
    await creditSecondFactor(ctx, session, 'lookup_secret')
    return undefined
  }
  if (truthy(body.lookup_secret_reveal)) {
    const stored = await getCredential(ctx.db, identity.id, 'lookup_secret')
    if (!stored?.recovery_codes.length) {
      addFlowMessage(flow, texts.noLookup())
      await saveFlow(ctx.db, flow)
      return invalid(flow)
    }
    flow.internal.lookup_reveal = true
    return undefined
  }
  if (truthy(body.lookup_secret_disable)) {
    await deleteCredential(ctx.db, identity.id, 'lookup_secret')
    delete flow.internal.lookup_codes
    flow.internal.lookup_reveal = false
    return undefined
  }
  addFlowMessage(flow, texts.generic('Choose an action for the backup recovery codes.'))
  await saveFlow(ctx.db, flow)
  return invalid(flow)
}

async function updateWebAuthn(ctx: KratosContext, flow: FlowRow, body: FormBody, identity: IdentityRow, session: SessionRow): Promise<Outcome | undefined> {
  const existing = await getCredential(ctx.db, identity.id, 'webauthn')
  const removeHex = str(body.webauthn_remove)
  if (removeHex) {
    const keys = existing?.credentials ?? []
    const remaining = keys.filter((key) => Buffer.from(key.id, 'base64url').toString('hex') !== removeHex.toLowerCase())
    if (remaining.length === keys.length) {
      addFlowMessage(flow, texts.noWebAuthn())
      await saveFlow(ctx.db, flow)
      return invalid(flow)
    }
    if (remaining.length === 0) await deleteCredential(ctx.db, identity.id, 'webauthn')
    else if (existing) await setCredential(ctx.db, identity.id, 'webauthn', { ...existing, credentials: remaining })
    return undefined
  }
  const raw = body.webauthn_register
  let response: unknown = raw
  if (typeof raw === 'string') {
    try {
      response = JSON.parse(raw)
    } catch {
      response = undefined
    }
  }
  const challenge = flow.internal.webauthn_challenge
  // The challenge is single-use whatever the outcome.
  delete flow.internal.webauthn_challenge
  const displayName = (str(body.webauthn_register_displayname)?.trim() || 'Security key').slice(0, 100)
  const key = response && challenge ? await verifyRegistration({ uiBaseUrl: ctx.uiBaseUrl(), challenge, response, displayName }) : undefined
  if (!key) {
    addFlowMessage(flow, texts.generic('The security key could not be registered. Please try again.'))
    await saveFlow(ctx.db, flow)
    return invalid(flow)
  }
  const userHandle = existing?.user_handle ?? randomBytes(32).toString('base64url')
  await setCredential(ctx.db, identity.id, 'webauthn', {
    user_handle: userHandle,
    credentials: [...(existing?.credentials ?? []).filter((k) => k.id !== key.id), key],
  })
  await creditSecondFactor(ctx, session, 'webauthn')
  return undefined
}
