import { z } from 'zod'

/**
 * The scopes an access token can be limited to (spec 002 §3): mcp has the single action '*',
 * playbooks add playbook:approve and playbook:run, the rest read/create/update/delete.
 */
export const SCOPE_OBJECTS = ['mcp', 'canaries', 'catalog', 'application', 'playbooks', 'notification', 'exec'] as const

const CRUD = ['read', 'create', 'update', 'delete'] as const

export const SCOPE_ACTIONS: Record<(typeof SCOPE_OBJECTS)[number], readonly string[]> = {
  mcp: ['*'],
  canaries: CRUD,
  catalog: CRUD,
  application: CRUD,
  playbooks: [...CRUD, 'playbook:approve', 'playbook:run'],
  notification: CRUD,
  // A token writing exec checks (e.g. CI applying canaries) must be given this explicitly.
  exec: ['exec:run'],
}

export type ScopeEntry = { subject: ''; object: string; action: string }

export const TOKEN_EXPIRY_OPTIONS = ['never'] as const

/** Checkbox values are `object/action`; anything not in the table is ignored. */
export function parseScopes(values: string[]): ScopeEntry[] {
  const seen = new Set<string>()
  const scopes: ScopeEntry[] = []
  for (const value of values) {
    const slash = value.indexOf('/')
    const object = value.slice(0, slash)
    const action = value.slice(slash + 1)
    if (slash < 0 || !Object.hasOwn(SCOPE_ACTIONS, object)) continue
    if (!SCOPE_ACTIONS[object as keyof typeof SCOPE_ACTIONS].includes(action) || seen.has(value)) continue
    seen.add(value)
    scopes.push({ subject: '', object, action })
  }
  return scopes
}

export type CreateTokenInput = { name: string; expiry: string; scope: ScopeEntry[] }

/** Spec 002 §5: the name is required and whitespace alone does not count; only 'never' expires. */
export const CreateTokenSchema = z.object({
  intent: z.literal('create'),
  name: z.string({ required_error: 'Name is required' }).trim().min(1, 'Name is required'),
  expiry: z.enum(TOKEN_EXPIRY_OPTIONS, { errorMap: () => ({ message: 'Expiry must be never' }) }).default('never'),
  // Checkbox values are `object/action`; the payload wants entries.
  scope: z.array(z.string()).default([]).transform(parseScopes),
})

export const DeleteTokenSchema = z.object({
  intent: z.literal('delete'),
  id: z.string().min(1),
  name: z.string().default('Token'),
})

/** The tokens page posts two forms, told apart by a hidden `intent`. */
export const TokenActionSchema = z.discriminatedUnion('intent', [CreateTokenSchema, DeleteTokenSchema])
