import type { Queryable } from '#server/db/client.ts'
import type { Principal } from '#server/backend/identity/principal.ts'
import { recordSpecTrust } from '#server/backend/health/check-trust.ts'
import type { ValidateWriteInput, ValidateWriteResult } from '#server/backend/postgrest/router.ts'
import type { Authorizer } from '#server/backend/rbac/authorizer.ts'
import { holdsExec, subjectOf } from '#server/backend/rbac/exec-permission.ts'
import { LogBackendSpecSchema, readsServerData, specIssues } from './log-backend-spec.ts'

/**
 * The `/db` write hook of `logging_backends`: a spec must be one this Lookout can search (400
 * naming the field otherwise); one that reads this server's files or Lookout's own database
 * needs the exec permission (403); and the specs an exec holder writes are marked trusted
 * (check-trust.ts, relation logging_backends), so only those reach the server's own addresses,
 * disk and database when searched. A later edit by anyone else leaves the new spec untrusted.
 */
export function createLogBackendWriteValidator(db: Queryable, authorizer: Authorizer) {
  return async (input: ValidateWriteInput): Promise<ValidateWriteResult> => {
    if (input.relation !== 'logging_backends' || input.method === 'DELETE') return { ok: true }
    const principal = input.req.res?.locals.principal as Principal | undefined
    for (const [index, row] of input.rows.entries()) {
      if (!('spec' in row)) continue
      const where = input.rows.length > 1 ? `[${index}] ` : ''
      const parsed = LogBackendSpecSchema.safeParse(row.spec)
      if (!parsed.success) return { ok: false, status: 400, code: '23514', message: `${where}${specIssues(parsed.error)}` }
      if (!principal) continue
      const subject = subjectOf(principal)
      const trusted = await holdsExec(authorizer, subject)
      const serverData = readsServerData(row.spec)
      if (serverData && !trusted) {
        return { ok: false, status: 403, code: '42501', message: `${where}log backends that read this server's files or Lookout's own database need the exec permission, which you do not hold (${serverData})` }
      }
      if (trusted) await recordSpecTrust(db, row.spec, subject)
    }
    return { ok: true }
  }
}
