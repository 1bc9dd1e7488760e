/**
 * The spec's role matrix (002 §6) as data. Pure and dependency-free on purpose: the server's
 * area map and the console's client-side access checks (app/lib/access.ts) both read it, so the
 * two can never drift. The server enforces it through casbin rows seeded in 0110_rbac.sql.
 */
export const AREAS = [
  'database',
  'rbac',
  'auth',
  'responder',
  'incident',
  'evidences',
  'comments',
  'canaries',
  'topologies',
  'config_scrapers',
  'identities',
  'connections',
  'kratos',
  'agents',
  'feature_flags',
  'logging_backends',
  'integrations',
  'notifications',
  'playbooks',
  'playbook_runs',
  'permissions',
  'views',
] as const
export type Area = (typeof AREAS)[number]

export const ROLES = ['admin', 'editor', 'viewer', 'guest', 'commander', 'responder'] as const
export type Role = (typeof ROLES)[number]

const RESTRICTED_READ: readonly Area[] = ['rbac', 'identities', 'connections']
const INCIDENT_WRITE: readonly Area[] = ['responder', 'incident', 'evidences', 'comments']
const BROAD_READ = AREAS.filter((area) => !RESTRICTED_READ.includes(area))

export const ROLE_MATRIX: Record<Role, { read: readonly Area[]; write: readonly Area[] }> = {
  admin: { read: AREAS, write: AREAS },
  editor: { read: AREAS, write: BROAD_READ },
  commander: { read: BROAD_READ, write: INCIDENT_WRITE },
  responder: { read: BROAD_READ, write: INCIDENT_WRITE },
  viewer: { read: BROAD_READ, write: [] },
  guest: { read: BROAD_READ, write: [] },
}
