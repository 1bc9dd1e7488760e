import type { ValidateWriteInput, ValidateWriteResult } from '#server/backend/postgrest/router.ts'
import type { Principal } from '#server/backend/identity/credentials.ts'
import type { Authorizer } from './authorizer.ts'

// The object a resource-specific grant is about, for rows that name a resource instead of an object.
const RESOURCE_OBJECTS: [column: string, object: string][] = [
  ['config_id', 'catalog'],
  ['canary_id', 'canaries'],
  ['playbook_id', 'playbooks'],
  ['component_id', 'topology'],
  ['connection_id', 'connection'],
]

function grantsOf(row: Record<string, unknown>): { object: string; actions: string[] }[] {
  const actions = String(row.action ?? '')
    .split(',')
    .map((action) => action.trim())
    .filter(Boolean)
  const objects = new Set<string>()
  if (typeof row.object === 'string' && row.object) objects.add(row.object)
  for (const [column, object] of RESOURCE_OBJECTS) if (row[column]) objects.add(object)
  // A selector-only grant can reach any object: treat it as the widest one.
  if (objects.size === 0 && row.object_selector) objects.add('*')
  return [...objects].map((object) => ({ object, actions }))
}

/**
 * The spec's matrix lets editors write the permissions table. Without a limit an editor could
 * grant themselves anything; so a permission a caller writes may only allow what the caller may
 * do already (denials are always fine: they only take power away). Admins pass, as `*` on `*`.
 */
export function createPermissionWriteValidator(authorizer: Authorizer) {
  return async (input: ValidateWriteInput): Promise<ValidateWriteResult> => {
    if (input.relation !== 'permissions' || input.method === 'DELETE') return { ok: true }
    const principal = input.req.res?.locals.principal as Principal | undefined
    if (!principal) return { ok: true }
    let rows = input.rows
    if (input.method === 'PATCH') {
      // The grant after the update is the stored row with the sent fields on top.
      const id = /^eq\.([0-9a-f-]{36})$/i.exec(String(input.req.query.id ?? ''))?.[1]
      if (!id) {
        const admin = await authorizer.authorize(principal, { object: '*', action: '*' })
        if (admin.allowed) return { ok: true }
        return refuse('permissions can only be updated one at a time (id=eq.<id>) unless you are an admin')
      }
      const { rows: stored } = await input.db.query<Record<string, unknown>>('SELECT * FROM permissions WHERE id = $1', [id])
      rows = stored.map((row) => ({ ...row, ...input.rows[0] }))
    }
    for (const row of rows) {
      if (row.deny === true) continue
      for (const { object, actions } of grantsOf(row)) {
        for (const action of actions) {
          const decision = await authorizer.authorize(principal, { object, action })
          if (!decision.allowed) return refuse(`you cannot grant ${action} on ${object}: you do not hold it yourself`)
        }
      }
    }
    return { ok: true }
  }
}

function refuse(message: string): ValidateWriteResult {
  return { ok: false, status: 403, code: '42501', message, details: 'a permission may only grant what its author holds' }
}
