import type { Request } from 'express'
import type { ValidateWriteInput, ValidateWriteResult } from '#server/backend/postgrest/router.ts'
import type { Principal } from '#server/backend/identity/principal.ts'
import type { Authorizer } from '#server/backend/rbac/authorizer.ts'
import { isUuid } from '#contract/uuid.ts'
import { isAdmin, missingOverSubject } from '#server/backend/rbac/dominance.ts'

// What anyone may change on their own row: how they are shown. Not the email (it is the login
// and the recovery address), the type, the team or the deletion mark.
const SELF_FIELDS = new Set(['name', 'avatar', 'title', 'phone', 'organization', 'properties', 'updated_at', 'updated_by'])

const ACTIONS = { POST: 'create', PATCH: 'update', DELETE: 'delete' } as const

function onlyId(req: Request): string | undefined {
  const value = req.query.id
  if (typeof value !== 'string' || !value.startsWith('eq.')) return undefined
  const id = value.slice(3)
  return isUuid(id) ? id : undefined
}

function refuse(message: string): ValidateWriteResult {
  return { ok: false, status: 403, code: '42501', message, details: 'people rows are identities: beyond your own row they need people:update' }
}

/**
 * `people` sits in the matrix's database area, which editors write; but a person's row is their
 * identity (its email receives their recovery links), so (issue 10 §9) through /api/db:
 *  - without `people:<action>` in the identities area a caller may only PATCH their own row
 *    (`id=eq.<self>`), and only the fields in SELF_FIELDS;
 *  - a non-admin holding it may change one person at a time, and only people they dominate
 *    (no editing an admin's email to take over the account).
 */
export function createPeopleWriteValidator(authorizer: Authorizer) {
  return async (input: ValidateWriteInput): Promise<ValidateWriteResult> => {
    if (input.relation !== 'people') return { ok: true }
    const principal = input.req.res?.locals.principal as Principal | undefined
    if (!principal) return { ok: true }
    if (await isAdmin(authorizer, principal)) return { ok: true }
    const action = ACTIONS[input.method]
    const holder = (await authorizer.authorize(principal, { object: 'people', area: 'identities', action })).allowed
    const id = onlyId(input.req)
    if (!holder) {
      if (input.method !== 'PATCH' || id !== principal.personId) {
        return refuse(`${action === 'create' ? 'creating people' : `${action === 'update' ? 'changing' : 'deleting'} another person's row`} needs people:${action}`)
      }
      const fields = Object.keys(input.rows[0] ?? {}).filter((key) => !SELF_FIELDS.has(key))
      if (fields.length > 0) return refuse(`changing ${fields.join(', ')} of your own row needs people:update`)
      return { ok: true }
    }
    if (input.method === 'POST') {
      // An upsert would rewrite an existing person's row without the checks below.
      if (/resolution=/.test(String(input.req.headers.prefer ?? ''))) return refuse('people rows are changed with PATCH (id=eq.<id>), not by upsert')
      return { ok: true }
    }
    if (!id) return refuse('people rows can only be changed one at a time (id=eq.<id>) unless you are an admin')
    const above = await missingOverSubject(authorizer, input.db, principal, 'person', id)
    if (above) return refuse(`you cannot change person ${id}: they hold ${above.action} on ${above.object}, which you do not`)
    return { ok: true }
  }
}
