import { randomBytes } from 'node:crypto'
import { generateSecret, generateURI } from 'otplib'
import QRCode from 'qrcode'
import { maskCsrf } from './csrf.ts'
import { publicUrl, resolveReturnToUrl, schemaUrl, type KratosContext } from './context.ts'
import { applyUiState, anchorNode, imgNode, inputNode, saveFlow, scriptNode, textNode, type FlowRow, type UiNode } from './flows.ts'
import { findIdentity, getCredential, identityJson, secondFactorsOf, type IdentityRow } from './identities.ts'
import { texts } from './ui-texts.ts'
import { authenticationOptions, registrationOptions } from './webauthn.ts'

const TRAIT_TITLES = { email: 'E-Mail', first: 'First Name', last: 'Last Name' }

function traitNodes(group: string, identity?: IdentityRow): UiNode[] {
  return [
    inputNode(group, 'traits.email', 'email', { value: identity?.traits.email, required: true, autocomplete: 'email', label: texts.trait(TRAIT_TITLES.email) }),
    inputNode(group, 'traits.name.first', 'text', { value: identity?.traits.name?.first, label: texts.trait(TRAIT_TITLES.first) }),
    inputNode(group, 'traits.name.last', 'text', { value: identity?.traits.name?.last, label: texts.trait(TRAIT_TITLES.last) }),
  ]
}

function webauthnScript(ctx: KratosContext): UiNode {
  return scriptNode('webauthn', 'webauthn_script', publicUrl(ctx, '/.well-known/ory/webauthn.js'))
}

/** Second-factor nodes of an aal2 login flow; may store a new WebAuthn challenge on the flow. */
async function secondFactorNodes(ctx: KratosContext, flow: FlowRow, identity: IdentityRow): Promise<UiNode[]> {
  const factors = await secondFactorsOf(ctx.db, identity.id)
  const nodes: UiNode[] = []
  if (factors.has('totp')) {
    nodes.push(
      inputNode('totp', 'totp_code', 'text', { required: true, autocomplete: 'one-time-code', label: texts.authenticationCode() }),
      inputNode('totp', 'method', 'submit', { value: 'totp', label: texts.useAuthenticator() }),
    )
  }
  if (factors.has('lookup_secret')) {
    nodes.push(
      inputNode('lookup_secret', 'lookup_secret', 'text', { required: true, autocomplete: 'off', label: texts.backupCode() }),
      inputNode('lookup_secret', 'method', 'submit', { value: 'lookup_secret', label: texts.useBackupCode() }),
    )
  }
  if (factors.has('webauthn')) {
    const keys = (await getCredential(ctx.db, identity.id, 'webauthn'))?.credentials ?? []
    const options = await authenticationOptions({ uiBaseUrl: ctx.uiBaseUrl(), keys })
    if (flow.internal.webauthn_challenge) options.challenge = flow.internal.webauthn_challenge
    else {
      flow.internal.webauthn_challenge = options.challenge
      await saveFlow(ctx.db, flow)
    }
    nodes.push(
      inputNode('webauthn', 'webauthn_login', 'hidden', { value: '' }),
      webauthnScript(ctx),
      inputNode('webauthn', 'webauthn_login_trigger', 'button', {
        value: '',
        label: texts.signInWithHardwareKey(),
        onclick: `window.__oryWebAuthnLogin(${JSON.stringify(options)})`,
      }),
    )
  }
  return nodes
}

async function loginNodes(ctx: KratosContext, flow: FlowRow): Promise<UiNode[]> {
  const identity = flow.identity_id ? await findIdentity(ctx.db, flow.identity_id) : undefined
  if (flow.requested_aal === 'aal2' && identity) {
    return [inputNode('default', 'identifier', 'hidden', { value: identity.traits.email }), ...(await secondFactorNodes(ctx, flow, identity))]
  }
  if (flow.refresh && identity) {
    return [
      inputNode('default', 'identifier', 'hidden', { value: identity.traits.email, required: true }),
      inputNode('password', 'password', 'password', { required: true, autocomplete: 'current-password', label: texts.password() }),
      inputNode('password', 'method', 'submit', { value: 'password', label: texts.signIn() }),
    ]
  }
  return [
    inputNode('default', 'identifier', 'text', { value: '', required: true, autocomplete: 'username', label: texts.id() }),
    inputNode('password', 'password', 'password', { required: true, autocomplete: 'current-password', label: texts.password() }),
    inputNode('password', 'method', 'submit', { value: 'password', label: texts.signInWithPassword() }),
  ]
}

function registrationNodes(): UiNode[] {
  return [
    ...traitNodes('password'),
    inputNode('password', 'password', 'password', { required: true, autocomplete: 'new-password', label: texts.password() }),
    inputNode('password', 'method', 'submit', { value: 'password', label: texts.signUp() }),
  ]
}

function codeNodes(ctx: KratosContext, flow: FlowRow): UiNode[] {
  const recovery = flow.kind === 'recovery'
  if (flow.state === 'choose_method') {
    return [
      inputNode('code', 'email', 'email', { required: true, autocomplete: 'email', label: texts.email() }),
      inputNode('code', 'method', 'submit', { value: 'code', label: texts.continue() }),
    ]
  }
  if (flow.state === 'sent_email') {
    return [
      inputNode('code', 'code', 'text', {
        required: true,
        autocomplete: 'one-time-code',
        pattern: '[0-9]+',
        maxlength: 6,
        label: recovery ? texts.recoveryCode() : texts.verificationCode(),
      }),
      inputNode('code', 'method', 'hidden', { value: 'code' }),
      inputNode('code', 'method', 'submit', { value: 'code', label: texts.continue() }),
      ...(flow.internal.email ? [inputNode('code', 'email', 'submit', { value: flow.internal.email, label: texts.resendCode() })] : []),
    ]
  }
  if (!recovery && flow.state === 'passed_challenge') {
    return [anchorNode('code', 'continue', resolveReturnToUrl(ctx, flow.return_to), texts.continue())]
  }
  return []
}

async function settingsNodes(ctx: KratosContext, flow: FlowRow, identity: IdentityRow): Promise<UiNode[]> {
  const nodes: UiNode[] = [...traitNodes('profile', identity), inputNode('profile', 'method', 'submit', { value: 'profile', label: texts.save() })]
  nodes.push(
    inputNode('password', 'password', 'password', { required: true, autocomplete: 'new-password', label: texts.password() }),
    inputNode('password', 'method', 'submit', { value: 'password', label: texts.save() }),
  )

  // Backup codes: pending (regenerated, not yet confirmed) codes win over revealed stored ones.
  const lookup = await getCredential(ctx.db, identity.id, 'lookup_secret')
  const stored = lookup?.recovery_codes ?? []
  if (flow.internal.lookup_codes) {
    const secrets = flow.internal.lookup_codes.map((code) => texts.lookupCode(code))
    nodes.push(
      textNode('lookup_secret', 'lookup_secret_codes', texts.lookupCodes(secrets), texts.lookupCodesLabel()),
      inputNode('lookup_secret', 'lookup_secret_confirm', 'submit', { value: true, label: texts.confirmLookup() }),
    )
  } else if (flow.internal.lookup_reveal && stored.length > 0) {
    const secrets = stored.map((c) => (c.used_at ? texts.lookupCodeUsed(c.used_at) : texts.lookupCode(c.code)))
    nodes.push(
      textNode('lookup_secret', 'lookup_secret_codes', texts.lookupCodes(secrets), texts.lookupCodesLabel()),
      inputNode('lookup_secret', 'lookup_secret_regenerate', 'submit', { value: true, label: texts.regenerateLookup() }),
      inputNode('lookup_secret', 'lookup_secret_disable', 'submit', { value: true, label: texts.disableLookup() }),
    )
  } else if (stored.length > 0) {
    nodes.push(
      inputNode('lookup_secret', 'lookup_secret_reveal', 'submit', { value: true, label: texts.revealLookup() }),
      inputNode('lookup_secret', 'lookup_secret_regenerate', 'submit', { value: true, label: texts.regenerateLookup() }),
      inputNode('lookup_secret', 'lookup_secret_disable', 'submit', { value: true, label: texts.disableLookup() }),
    )
  } else {
    nodes.push(inputNode('lookup_secret', 'lookup_secret_regenerate', 'submit', { value: true, label: texts.regenerateLookup() }))
  }

  const totp = await getCredential(ctx.db, identity.id, 'totp')
  if (totp) {
    nodes.push(inputNode('totp', 'totp_unlink', 'submit', { value: true, label: texts.unlinkTotp() }))
  } else {
    let dirty = false
    if (!flow.internal.totp_secret) {
      flow.internal.totp_secret = generateSecret()
      dirty = true
    }
    const uri = generateURI({ issuer: 'Lookout', label: identity.traits.email, secret: flow.internal.totp_secret })
    const svg = await QRCode.toString(uri, { type: 'svg', margin: 1 })
    nodes.push(
      imgNode('totp', 'totp_qr', `data:image/svg+xml;base64,${Buffer.from(svg).toString('base64')}`, texts.totpQr()),
      textNode('totp', 'totp_secret_key', texts.totpSecret(flow.internal.totp_secret), texts.totpSecretLabel()),
      inputNode('totp', 'totp_code', 'text', { required: true, autocomplete: 'one-time-code', label: texts.verifyCode() }),
      inputNode('totp', 'method', 'submit', { value: 'totp', label: texts.save() }),
    )
    if (dirty) await saveFlow(ctx.db, flow)
  }

  const webauthn = await getCredential(ctx.db, identity.id, 'webauthn')
  const keys = webauthn?.credentials ?? []
  const userHandle = webauthn?.user_handle ?? randomBytes(32).toString('base64url')
  const options = await registrationOptions({
    uiBaseUrl: ctx.uiBaseUrl(),
    userHandle,
    email: identity.traits.email,
    displayName: identity.traits.email,
    existing: keys,
  })
  if (flow.internal.webauthn_challenge) options.challenge = flow.internal.webauthn_challenge
  else {
    flow.internal.webauthn_challenge = options.challenge
    await saveFlow(ctx.db, flow)
  }
  nodes.push(
    inputNode('webauthn', 'webauthn_register_displayname', 'text', { value: '', label: texts.securityKeyName() }),
    inputNode('webauthn', 'webauthn_register', 'hidden', { value: '' }),
    inputNode('webauthn', 'webauthn_register_trigger', 'button', {
      value: '',
      label: texts.addSecurityKey(),
      onclick: `window.__oryWebAuthnRegistration(${JSON.stringify(options)})`,
    }),
    webauthnScript(ctx),
    ...keys.map((key) =>
      inputNode('webauthn', 'webauthn_remove', 'submit', {
        value: Buffer.from(key.id, 'base64url').toString('hex'),
        label: texts.removeSecurityKey(key.display_name, key.added_at),
      }),
    ),
  )
  return nodes
}

const iso = (value: string | Date) => new Date(value).toISOString()

/** The flow JSON Kratos returns, with nodes rebuilt and a freshly masked CSRF token. */
export async function renderFlow(ctx: KratosContext, flow: FlowRow, csrfSecret: string | undefined): Promise<Record<string, unknown>> {
  const csrf = inputNode('default', 'csrf_token', 'hidden', { value: csrfSecret ? maskCsrf(csrfSecret) : '', required: true })
  let nodes: UiNode[]
  let identity: IdentityRow | undefined
  switch (flow.kind) {
    case 'login':
      nodes = await loginNodes(ctx, flow)
      break
    case 'registration':
      nodes = registrationNodes()
      break
    case 'recovery':
    case 'verification':
      nodes = codeNodes(ctx, flow)
      break
    case 'settings':
      identity = flow.identity_id ? await findIdentity(ctx.db, flow.identity_id) : undefined
      nodes = identity ? await settingsNodes(ctx, flow, identity) : []
      break
  }
  const messages = flow.ui_state.messages ?? []
  const body: Record<string, unknown> = {
    id: flow.id,
    type: flow.type,
    expires_at: iso(flow.expires_at),
    issued_at: iso(flow.issued_at),
    request_url: flow.request_url,
    ...(flow.return_to ? { return_to: flow.return_to } : {}),
    ...(flow.active ? { active: flow.active } : {}),
    ui: {
      action: publicUrl(ctx, `/self-service/${flow.kind}?flow=${flow.id}`),
      method: 'POST',
      nodes: applyUiState([csrf, ...nodes], flow.ui_state),
      ...(messages.length ? { messages } : {}),
    },
    state: flow.state,
  }
  if (flow.kind === 'login') {
    body.refresh = flow.refresh
    body.requested_aal = flow.requested_aal
    body.created_at = iso(flow.issued_at)
  }
  if (flow.kind === 'settings' && identity) body.identity = await identityJson(ctx.db, identity, schemaUrl(ctx, identity.schema_id))
  if (flow.internal.continue_with?.length) body.continue_with = flow.internal.continue_with
  return body
}
