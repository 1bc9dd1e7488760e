/**
 * Who may see what, derived from whoami (spec 002 §6). The role table is the client-side half
 * of the authoriser; unconditional permission rows from whoami add to it and deny rows take
 * away. Selector (`condition`) rules are row-level and are left to the API to enforce.
 */

import { AREAS, ROLE_MATRIX } from '#contract/role-matrix.ts'

export const RESOURCES = AREAS

export type Resource = (typeof RESOURCES)[number]
export type Access = 'read' | 'write'

export type PermissionRow = {
  object?: string
  action?: string
  deny?: boolean
  condition?: string
}

export type SessionInfo = {
  user: { id: string; name: string; email?: string; avatar?: string }
  roles: string[]
  permissions: PermissionRow[]
}

const ROLE_TABLE: Record<string, { read: readonly Resource[]; write: readonly Resource[] }> = ROLE_MATRIX

/** Roles that can change something; a user holding none of them only looks. */
const ACTING_ROLES = ['admin', 'editor', 'commander', 'responder']

function grantsOf(action: string | undefined): Access[] {
  switch (action) {
    case '*':
      return ['read', 'write']
    case 'read':
      return ['read']
    case 'create':
    case 'update':
    case 'delete':
      return ['write']
    default:
      // Compound lists such as "create,read,update,delete".
      if (action && action.includes(',')) {
        return [...new Set(action.split(',').flatMap((part) => grantsOf(part.trim())))]
      }
      return []
  }
}

function rowMatches(row: PermissionRow, resource: Resource, access: Access): boolean {
  if (row.condition) return false
  if (row.object !== '*' && row.object !== resource) return false
  return grantsOf(row.action).includes(access)
}

export function hasAccess(session: Pick<SessionInfo, 'roles' | 'permissions'>, resource: Resource, access: Access): boolean {
  const permissions = session.permissions ?? []
  if (permissions.some((row) => row.deny && rowMatches(row, resource, access))) return false
  for (const role of session.roles ?? []) {
    const grants = ROLE_TABLE[role]
    if (grants && grants[access].includes(resource)) return true
  }
  return permissions.some((row) => !row.deny && rowMatches(row, resource, access))
}

export function isAdmin(session: Pick<SessionInfo, 'roles'>): boolean {
  return (session.roles ?? []).includes('admin')
}

/**
 * Viewers and guests do not get the settings group. Inherited roles mean an editor's whoami
 * may also list "viewer", so "viewer" here means: holds no role that can act.
 */
export function isViewerOnly(session: Pick<SessionInfo, 'roles'>): boolean {
  return !(session.roles ?? []).some((role) => ACTING_ROLES.includes(role))
}
