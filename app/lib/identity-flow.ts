/**
 * The identity service's self-service flow as the console screens read it (a Kratos v1.3
 * browser flow, identity-flows.md §2). Pure: shared by loaders, components and unit tests.
 */

export type FlowKind = 'login' | 'registration' | 'recovery' | 'verification' | 'settings'

export type UiText = { id: number; text: string; type: 'info' | 'error' | 'success' | string; context?: Record<string, unknown> }

export type InputAttributes = {
  node_type: 'input'
  name: string
  type: string
  value?: unknown
  required?: boolean
  disabled?: boolean
  autocomplete?: string
  pattern?: string
  maxlength?: number
  label?: UiText
  onclick?: string
  onload?: string
}
export type TextAttributes = { node_type: 'text'; id: string; text: UiText }
export type ImgAttributes = { node_type: 'img'; id: string; src: string; width?: number; height?: number }
export type AnchorAttributes = { node_type: 'a'; id: string; href: string; title: UiText }
export type ScriptAttributes = { node_type: 'script'; id: string; src: string; async?: boolean; type?: string; crossorigin?: string; integrity?: string; referrerpolicy?: string; nonce?: string }

export type UiNode = {
  type: string
  group: string
  attributes: InputAttributes | TextAttributes | ImgAttributes | AnchorAttributes | ScriptAttributes
  messages: UiText[]
  meta: { label?: UiText }
}

export type Flow = {
  id: string
  type?: string
  state?: string
  return_to?: string
  refresh?: boolean
  requested_aal?: 'aal1' | 'aal2'
  expires_at?: string
  ui: { action: string; method: string; nodes: UiNode[]; messages?: UiText[] }
  identity?: { id: string; traits?: Record<string, unknown> }
}

/** The console page of each flow kind (Kratos' own names differ for settings). */
export const FLOW_PAGES: Record<FlowKind, string> = {
  login: '/login',
  registration: '/registration',
  recovery: '/recovery',
  verification: '/verification',
  settings: '/profile-settings',
}

/**
 * Spec 000 §8: errors that restart a flow carry a message. The page shows it above the new
 * flow; only these fixed keys travel in the URL, never free text.
 */
export const FLOW_NOTICES = {
  self_service_flow_return_to_forbidden: 'The return_to address is not allowed.',
  self_service_flow_expired: 'Your interaction expired, please fill out the form again.',
  security_csrf_violation: 'A security violation was detected, please fill out the form again.',
} as const

export type FlowNotice = keyof typeof FLOW_NOTICES

export function noticeText(value: string | null | undefined): string | undefined {
  return value && Object.hasOwn(FLOW_NOTICES, value) ? FLOW_NOTICES[value as FlowNotice] : undefined
}

export function isFlow(value: unknown): value is Flow {
  if (!value || typeof value !== 'object') return false
  const ui = (value as { ui?: unknown }).ui
  return typeof (value as { id?: unknown }).id === 'string' && !!ui && typeof ui === 'object' && Array.isArray((ui as { nodes?: unknown }).nodes)
}

/** The form key of a node: `name` for inputs, `id` for everything else. */
export function nodeKey(node: UiNode): string {
  return node.attributes.node_type === 'input' ? node.attributes.name : node.attributes.id
}

export function findNode(flow: Flow, key: string): UiNode | undefined {
  return flow.ui.nodes.find((node) => nodeKey(node) === key)
}

export function hasGroup(flow: Flow, group: string): boolean {
  return flow.ui.nodes.some((node) => node.group === group)
}

/** A group's nodes plus the `default` ones (csrf_token, identifier) every submit needs. */
export function nodesForGroups(flow: Flow, groups: readonly string[]): UiNode[] {
  return flow.ui.nodes.filter((node) => node.group === 'default' || groups.includes(node.group))
}

/** Settings cards in the order the reference console shows them, each only when present. */
export const SETTINGS_SECTIONS = [
  { group: 'profile', title: 'Profile Settings' },
  { group: 'password', title: 'Change Password' },
  { group: 'oidc', title: 'Manage Social Sign In' },
  { group: 'lookup_secret', title: 'Manage 2FA Backup Recovery Codes' },
  { group: 'totp', title: 'Manage 2FA TOTP Authenticator App' },
  { group: 'webauthn', title: 'Manage Hardware Tokens and Biometrics' },
] as const

export function loginTitle(flow: Pick<Flow, 'refresh' | 'requested_aal'> | undefined): string {
  if (flow?.requested_aal === 'aal2') return 'Two-Factor Authentication'
  if (flow?.refresh) return 'Confirm Action'
  return 'Sign In to your account'
}

/**
 * WebAuthn buttons carry an `onclick` string (`window.__oryWebAuthnLogin({...})`). The CSP
 * forbids inline handlers and eval, so the call is read as data: a global function name on
 * window and one JSON argument.
 */
export function parseWebAuthnTrigger(onclick: string | undefined): { fn: string; options: unknown } | undefined {
  if (!onclick) return undefined
  const match = /^\s*window\.([A-Za-z_$][\w$]*)\(([\s\S]*)\)\s*;?\s*$/.exec(onclick)
  if (!match) return undefined
  try {
    return { fn: match[1]!, options: JSON.parse(match[2]!) as unknown }
  } catch {
    return undefined
  }
}

/** Backup codes: text 1050015 lists each code (1050009) or its "used" form (1050014). */
export function lookupSecrets(text: UiText): Array<{ code: string; used: boolean }> {
  const secrets = text.context?.secrets
  if (Array.isArray(secrets)) {
    return secrets.flatMap((entry) => {
      if (!entry || typeof entry !== 'object') return []
      const secret = entry as UiText
      const used = secret.id === 1050014
      const code = typeof secret.context?.secret === 'string' ? secret.context.secret : secret.text
      return [{ code: used ? 'Used' : code, used }]
    })
  }
  return text.text
    .split(',')
    .map((code) => code.trim())
    .filter(Boolean)
    .map((code) => ({ code, used: false }))
}

/**
 * Where a `return_to` or `redirect_browser_to` may take the browser: a same-origin path (no
 * `//` or backslash tricks); Kratos' own create/settings endpoints map onto the console
 * pages so the redirect stays inside Remix.
 */
export function toConsolePath(target: string | null | undefined, origin: string, fallback = '/'): string {
  if (!target) return fallback
  let url: URL
  try {
    url = new URL(target, origin)
  } catch {
    return fallback
  }
  if (url.origin !== origin) return fallback
  if (target.startsWith('/') && (target.startsWith('//') || target.startsWith('/\\'))) return fallback
  const kratos = /^\/api\/\.ory\/self-service\/(login|registration|recovery|verification|settings)(\/browser)?$/.exec(url.pathname)
  if (kratos) {
    const kind = kratos[1] as FlowKind
    // `/self-service/settings?flow=` resumes a paused settings flow; `/browser` starts one.
    if (kratos[2] || url.searchParams.has('flow')) return `${FLOW_PAGES[kind]}${url.search}`
  }
  if (url.pathname.startsWith('/api/')) return fallback
  return `${url.pathname}${url.search}${url.hash}`
}
