import { ROLE_MATRIX } from '#contract/role-matrix.ts'
import { hasAccess, isAdmin, type SessionInfo } from './access.ts'
import { ROLE_SUBJECTS } from './role-subjects.ts'

/**
 * Roles this session could give someone: every area the role reads or writes must be one the
 * session reads or writes too (an inviter only gives what they hold, issue 10 §1). A hint for
 * the form; the API checks every grant of the role and has the last word.
 */
export function invitableRoles(session: Pick<SessionInfo, 'roles' | 'permissions'>): string[] {
  if (isAdmin(session)) return [...ROLE_SUBJECTS]
  return ROLE_SUBJECTS.filter((role) => {
    const grants = ROLE_MATRIX[role]
    return grants.read.every((area) => hasAccess(session, area, 'read')) && grants.write.every((area) => hasAccess(session, area, 'write'))
  })
}
