import type { Queryable } from '#server/db/client.ts'
import { csrfHash } from './csrf.ts'
import type { FlowKind } from './context.ts'
import type { UiText } from './ui-texts.ts'
import { isUuid } from '#contract/uuid.ts'

export type FieldState = { value?: unknown; messages?: UiText[] }
export type UiState = { messages?: UiText[]; fields?: Record<string, FieldState> }

/** Server-only flow state, never rendered as is. */
export type FlowInternal = {
  email?: string
  totp_secret?: string
  lookup_codes?: string[]
  lookup_reveal?: boolean
  webauthn_challenge?: string
  registration_code_id?: string
  role?: string
  continue_with?: Record<string, unknown>[]
}

export type FlowRow = {
  id: string
  kind: FlowKind
  type: 'browser' | 'api'
  state: string
  active: string | null
  request_url: string
  return_to: string | null
  requested_aal: 'aal1' | 'aal2'
  refresh: boolean
  identity_id: string | null
  session_id: string | null
  csrf_token_hash: string | null
  ui_state: UiState
  internal: FlowInternal
  issued_at: string | Date
  expires_at: string | Date
}

export const INITIAL_STATE: Record<FlowKind, string> = {
  login: 'choose_method',
  registration: 'choose_method',
  recovery: 'choose_method',
  verification: 'choose_method',
  settings: 'show_form',
}

export async function insertFlow(
  db: Queryable,
  input: {
    kind: FlowKind
    requestUrl: string
    lifespanSeconds: number
    csrfSecret?: string
    returnTo?: string
    requestedAal?: 'aal1' | 'aal2'
    refresh?: boolean
    identityId?: string
    sessionId?: string
    state?: string
    uiState?: UiState
    internal?: FlowInternal
  },
): Promise<FlowRow> {
  const { rows } = await db.query<FlowRow>(
    `INSERT INTO identity.flows (kind, state, request_url, return_to, requested_aal, refresh, identity_id, session_id, csrf_token_hash, ui_state, internal, expires_at)
     VALUES ($1, $2, $3, $4, $5, $6, $7, $8, $9, $10, $11, now() + make_interval(secs => $12)) RETURNING *`,
    [
      input.kind,
      input.state ?? INITIAL_STATE[input.kind],
      input.requestUrl,
      input.returnTo ?? null,
      input.requestedAal ?? 'aal1',
      input.refresh ?? false,
      input.identityId ?? null,
      input.sessionId ?? null,
      input.csrfSecret ? csrfHash(input.csrfSecret) : null,
      JSON.stringify(input.uiState ?? {}),
      JSON.stringify(input.internal ?? {}),
      input.lifespanSeconds,
    ],
  )
  const flow = rows[0]
  if (!flow) throw new Error('flow insert returned no row')
  return flow
}

export async function findFlow(db: Queryable, kind: FlowKind, id: string | undefined): Promise<FlowRow | undefined> {
  if (!id || !isUuid(id)) return undefined
  const { rows } = await db.query<FlowRow>('SELECT * FROM identity.flows WHERE id = $1 AND kind = $2', [id, kind])
  return rows[0]
}

export async function saveFlow(db: Queryable, flow: FlowRow): Promise<void> {
  await db.query(
    `UPDATE identity.flows SET state = $2, active = $3, ui_state = $4, internal = $5, identity_id = $6, session_id = $7, csrf_token_hash = $8, updated_at = now()
      WHERE id = $1`,
    [flow.id, flow.state, flow.active, JSON.stringify(flow.ui_state), JSON.stringify(flow.internal), flow.identity_id, flow.session_id, flow.csrf_token_hash],
  )
}

export function isExpired(flow: FlowRow): boolean {
  return new Date(flow.expires_at).getTime() <= Date.now()
}

/** Minutes since expiry, for the "expired N minutes ago" message. */
export function minutesSinceExpiry(flow: FlowRow): number {
  return Math.max(0, (Date.now() - new Date(flow.expires_at).getTime()) / 60_000)
}

// UI nodes ------------------------------------------------------------------------------------

export type UiNode = {
  type: 'input' | 'text' | 'img' | 'a' | 'script'
  group: string
  attributes: Record<string, unknown>
  messages: UiText[]
  meta: { label?: UiText }
}

export function inputNode(
  group: string,
  name: string,
  type: string,
  options: { value?: unknown; required?: boolean; autocomplete?: string; label?: UiText; pattern?: string; maxlength?: number; onclick?: string } = {},
): UiNode {
  const { label, ...rest } = options
  const attributes: Record<string, unknown> = { name, type }
  if (rest.value !== undefined) attributes.value = rest.value
  if (rest.required) attributes.required = true
  if (rest.autocomplete) attributes.autocomplete = rest.autocomplete
  if (rest.pattern) attributes.pattern = rest.pattern
  if (rest.maxlength) attributes.maxlength = rest.maxlength
  attributes.disabled = false
  if (rest.onclick) attributes.onclick = rest.onclick
  attributes.node_type = 'input'
  return { type: 'input', group, attributes, messages: [], meta: label ? { label } : {} }
}

export function textNode(group: string, id: string, text: UiText, label?: UiText): UiNode {
  return { type: 'text', group, attributes: { id, text, node_type: 'text' }, messages: [], meta: label ? { label } : {} }
}

export function imgNode(group: string, id: string, src: string, label?: UiText): UiNode {
  return { type: 'img', group, attributes: { id, src, width: 256, height: 256, node_type: 'img' }, messages: [], meta: label ? { label } : {} }
}

export function anchorNode(group: string, id: string, href: string, title: UiText): UiNode {
  return { type: 'a', group, attributes: { id, href, title, node_type: 'a' }, messages: [], meta: {} }
}

export function scriptNode(group: string, id: string, src: string): UiNode {
  return {
    type: 'script',
    group,
    attributes: { id, src, async: true, referrerpolicy: 'no-referrer', crossorigin: 'anonymous', integrity: '', type: 'text/javascript', nonce: '', node_type: 'script' },
    messages: [],
    meta: {},
  }
}

const KEEP_VALUE_TYPES = new Set(['text', 'email', 'number', 'tel'])

/** Copies remembered values and field messages onto the rebuilt nodes. Passwords are never echoed. */
export function applyUiState(nodes: UiNode[], state: UiState): UiNode[] {
  const fields = state.fields ?? {}
  const seen = new Set<string>()
  return nodes.map((node) => {
    const name = node.attributes.name
    if (node.type !== 'input' || typeof name !== 'string') return node
    const field = fields[name]
    if (!field) return node
    const copy: UiNode = { ...node, attributes: { ...node.attributes }, messages: [...node.messages] }
    if (field.value !== undefined && KEEP_VALUE_TYPES.has(String(node.attributes.type))) copy.attributes.value = field.value
    if (field.messages?.length && node.attributes.type !== 'submit' && !seen.has(name)) {
      copy.messages.push(...field.messages)
      seen.add(name)
    }
    return copy
  })
}

/** Clears messages (and optionally values) before a new submit is validated. */
export function resetUiState(flow: FlowRow, keepValues: boolean): void {
  const fields: Record<string, FieldState> = {}
  if (keepValues) for (const [name, field] of Object.entries(flow.ui_state.fields ?? {})) fields[name] = { value: field.value }
  flow.ui_state = { fields }
}

export function addFieldMessage(flow: FlowRow, name: string, message: UiText): void {
  const fields = (flow.ui_state.fields ??= {})
  const field = (fields[name] ??= {})
  field.messages = [...(field.messages ?? []), message]
}

export function setFieldValue(flow: FlowRow, name: string, value: unknown): void {
  const fields = (flow.ui_state.fields ??= {})
  const field = (fields[name] ??= {})
  field.value = value
}

export function addFlowMessage(flow: FlowRow, message: UiText): void {
  flow.ui_state.messages = [...(flow.ui_state.messages ?? []), message]
}

export function hasErrors(flow: FlowRow): boolean {
  const all = [...(flow.ui_state.messages ?? []), ...Object.values(flow.ui_state.fields ?? {}).flatMap((f) => f.messages ?? [])]
  return all.some((m) => m.type === 'error')
}
