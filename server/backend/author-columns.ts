import type { ValidateWriteInput, ValidateWriteResult } from '#server/backend/postgrest/router.ts'
import type { Principal } from '#server/backend/identity/principal.ts'
import type { Authorizer } from '#server/backend/rbac/authorizer.ts'
import { isAdmin } from '#server/backend/rbac/dominance.ts'

/**
 * `created_by` / `updated_by` name who wrote a row; history, notifications and the console show
 * them as the author. Taken from the body, anyone could write in someone else's name, so
 * (issue 10 §9) on /api/db writes they come from the caller: on insert `created_by` is the
 * caller's person id, on update `created_by` is left alone and `updated_by` is the caller.
 * An admin may carry them (an import keeps its authors); when an admin sends none, the admin's
 * own id is used the same way. Only relations that have the column are touched.
 */
export function createAuthorColumnsValidator(authorizer: Authorizer) {
  return async (input: ValidateWriteInput): Promise<ValidateWriteResult> => {
    if (input.method === 'DELETE') return { ok: true }
    const hasCreatedBy = input.columns.has('created_by')
    const hasUpdatedBy = input.columns.has('updated_by')
    if (!hasCreatedBy && !hasUpdatedBy) return { ok: true }
    const principal = input.req.res?.locals.principal as Principal | undefined
    if (!principal) return { ok: true }
    const admin = await isAdmin(authorizer, principal)
    const me = principal.personId
    const rows = input.rows.map((sent) => {
      const row = { ...sent }
      if (input.method === 'POST') {
        if (hasCreatedBy && !(admin && typeof sent.created_by === 'string')) row.created_by = me
        if (hasUpdatedBy && 'updated_by' in sent && !admin) row.updated_by = me
      } else {
        if (!admin) delete row.created_by
        // An update that changes nothing (an empty body) stays one.
        if (hasUpdatedBy && Object.keys(row).length > 0 && !(admin && typeof sent.updated_by === 'string')) row.updated_by = me
      }
      return row
    })
    return { ok: true, rows }
  }
}
