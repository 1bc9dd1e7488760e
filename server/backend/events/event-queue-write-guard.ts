import type { ValidateWriteInput, ValidateWriteResult } from '#server/backend/postgrest/router.ts'
import type { Principal } from '#server/backend/identity/principal.ts'
import type { Authorizer } from '#server/backend/rbac/authorizer.ts'
import { isAdmin } from '#server/backend/rbac/dominance.ts'

/**
 * Rewriting the event queue (retrying or discarding failed events from the event queue status
 * page) changes what the platform does next for every resource, so only admins may do it. The
 * role matrix alone would let editors write the whole `database` area, which the queue is in.
 */
export function createEventQueueWriteValidator(authorizer: Authorizer) {
  return async (input: ValidateWriteInput): Promise<ValidateWriteResult> => {
    if (input.relation !== 'event_queue') return { ok: true }
    const principal = input.req.res?.locals.principal as Principal | undefined
    if (principal && (await isAdmin(authorizer, principal))) return { ok: true }
    return { ok: false, status: 403, code: '42501', message: 'Only an admin may retry or discard queued events' }
  }
}
