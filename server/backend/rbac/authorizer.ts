import { newEnforcer, newModelFromString, type Enforcer } from 'casbin'
import type { Db } from '#server/db/client.ts'
import { areaOfObject, type Area } from './access-map.ts'
import {
  CONDITIONAL,
  PostgresPolicyAdapter,
  TEAM_PREFIX,
  type LoadedPermission,
  type PolicySubject,
} from './casbin-adapter.ts'
import { conditionHolds, needsResource, type PermissionCondition, type ResourceRef } from './conditions.ts'

/**
 * Request: subject, the spec's resource area, the permission object, the action and the
 * resource (or a sentinel when none is known). A policy's object may name the object, the
 * area, or `*`; deny wins over allow.
 */
const MODEL = `
[request_definition]
r = sub, area, obj, act, res

[policy_definition]
p = sub, obj, act, eft, cond, id

[role_definition]
g = _, _

[policy_effect]
e = some(where (p.eft == allow)) && !some(where (p.eft == deny))

[matchers]
m = g(r.sub, p.sub) && grantMatch(r.area, r.obj, r.act, p.obj, p.act) && conditionMatch(p.cond, p.id, r.res)
`

/** Who is asking: a person (roles from casbin plus any the credential itself carries) or a notification/playbook. */
export type AccessSubject =
  | { personId: string; roles?: string[]; via?: string }
  | { subjectType: 'notification' | 'playbook'; id: string }

export type AccessRequest = {
  /** Permission object (`catalog`, `playbooks`, …) or an area name. */
  object: string
  /** The matrix area; derived from the object when omitted. `null` = outside the matrix (e.g. mcp). */
  area?: Area | null
  action: string
  resource?: ResourceRef
}

export type Decision = { allowed: boolean; reason: string }

export type EffectivePermission = {
  id: string
  subject: string
  object: string
  action: string
  deny?: true
  condition?: string
}

export type Authorizer = {
  authorize(subject: AccessSubject, request: AccessRequest): Promise<Decision>
  effectivePermissions(subject: AccessSubject): Promise<EffectivePermission[]>
  /** Roles of a person: casbin assignments (transitively) plus credential-implied roles. */
  rolesOf(subject: AccessSubject): Promise<string[]>
  /** The subject's stored permissions that carry a condition (tags, agents, ids, selectors, until): row-level access reads them. */
  narrowedPermissions(subject: AccessSubject): Promise<LoadedPermission[]>
  /** Whether a resource could change the answer for this object (narrowed rules exist). */
  dependsOnResource(subject: AccessSubject, object: string, area?: Area | null): Promise<boolean>
  /** Drops cached policy: after writes to roles, permissions, teams or people. */
  invalidate(): void
  /**
   * Told by the process's listener for writes to the policy tables (migration 0230, server.ts):
   * while it is up, every write anywhere empties this cache, so entries may live
   * `followedTtlMs`; while it is down, `cacheTtlMs` bounds how stale another process's write
   * can leave an answer.
   */
  followChanges(listening: boolean): void
}

// Actions that a grant on the *area* implies: the matrix speaks of read/write only, while
// requests name finer actions (Run Now, playbook run/approve/cancel).
const IMPLIED_BY: Record<string, string[]> = {
  run: ['create'],
  'playbook:run': ['create'],
  'playbook:approve': ['create', 'update'],
  'playbook:cancel': ['update'],
}

function actionCovers(granted: string, requested: string, viaArea: boolean): boolean {
  if (granted === '*' || granted === requested) return true
  const colon = granted.indexOf(':')
  if (colon > 0 && granted.slice(colon + 1) === '*' && requested.startsWith(granted.slice(0, colon + 1))) return true
  return viaArea && (IMPLIED_BY[requested]?.includes(granted) ?? false)
}

export function grantMatch(area: string, object: string, action: string, policyObject: string, policyAction: string): boolean {
  const actions = policyAction.split(',').map((value) => value.trim())
  if (policyObject === '*' || policyObject === object) {
    if (actions.some((granted) => actionCovers(granted, action, false))) return true
  }
  if (area !== '' && policyObject === area) {
    if (actions.some((granted) => actionCovers(granted, action, true))) return true
  }
  return false
}

const NO_RESOURCE = Object.freeze({ none: true })
/** Distinct (area, object, action) requests kept per subject: the access map names a few hundred. */
const MAX_DECISIONS = 2000

type Built = {
  enforcer: Enforcer
  subject: string
  roles: string[]
  teams: string[]
  permissions: LoadedPermission[]
  conditions: Map<string, PermissionCondition>
  /** Objects (and '*') named by rules that need a resource to apply. */
  narrowedObjects: Set<string>
  /**
   * Decisions already taken for requests without a resource, while the subject has no
   * conditional permission: the enforcer's answer then depends only on the loaded policy, which
   * this object lives and dies with. (casbin's own enforce cache keys on the request's strings
   * but is not used by enforceEx, and it would cache the resource sentinel's decisions as well.)
   */
  decisions: Map<string, [boolean, string[]]> | null
}

function policySubject(subject: AccessSubject): PolicySubject {
  if ('personId' in subject) {
    const implicit = subject.via === 'bootstrap-token' ? ['admin', ...(subject.roles ?? [])] : (subject.roles ?? [])
    return { type: 'person', id: subject.personId, implicitRoles: [...new Set(implicit)] }
  }
  return { type: subject.subjectType, id: subject.id }
}

function subjectKey(subject: PolicySubject): string {
  return subject.type === 'person' ? `person:${subject.id}:${subject.implicitRoles.join(',')}` : `${subject.type}:${subject.id}`
}

function casbinSubject(subject: PolicySubject): string {
  return subject.type === 'person' ? subject.id : `${subject.type}:${subject.id}`
}

export function describeCondition(condition: PermissionCondition): string {
  const parts: string[] = []
  if (condition.resourceId) parts.push(`${condition.resourceId.kind}_id == '${condition.resourceId.id}'`)
  if (condition.tags) parts.push(`tags ⊇ {${Object.entries(condition.tags).map(([k, v]) => `${k}=${v}`).join(',')}}`)
  if (condition.agents) parts.push(`agent in [${condition.agents.join(',')}]`)
  if (condition.selectors) parts.push(`matches ${JSON.stringify(condition.selectors.map(({ kind, selector }) => ({ kind, ...selector })))}`)
  if (condition.until !== undefined) parts.push(`until ${new Date(condition.until).toISOString()}`)
  return parts.join(' && ')
}

/**
 * The casbin-based authorizer. Each subject gets its own small enforcer (role grants plus the
 * permissions that name it, its roles or its teams) loaded through a filtered adapter and kept
 * for `cacheTtlMs`: several processes share the database, so a short TTL bounds how stale a
 * process can be, and local writes call `invalidate()` for immediate effect here.
 */
export function createAuthorizer(
  db: Db,
  options: { cacheTtlMs?: number; followedTtlMs?: number; maxCached?: number } = {},
): Authorizer {
  const unfollowedTtl = options.cacheTtlMs ?? 3000
  const followedTtl = options.followedTtlMs ?? 60_000
  let following = false
  const maxCached = options.maxCached ?? 500
  const cache = new Map<string, { at: number; built: Promise<Built> }>()
  let generation = 0

  async function build(subject: PolicySubject): Promise<Built> {
    const adapter = new PostgresPolicyAdapter(db)
    const enforcer = await newEnforcer(newModelFromString(MODEL))
    enforcer.setAdapter(adapter)
    await enforcer.addFunction('grantMatch', (...args: unknown[]) =>
      grantMatch(String(args[0] ?? ''), String(args[1] ?? ''), String(args[2] ?? ''), String(args[3] ?? ''), String(args[4] ?? '')),
    )
    await enforcer.addFunction('conditionMatch', (...args: unknown[]) => {
      if (args[0] !== CONDITIONAL) return true
      const condition = adapter.conditions.get(String(args[1]))
      if (!condition) return false
      const resource = args[2] === NO_RESOURCE ? undefined : (args[2] as ResourceRef)
      return conditionHolds(condition, resource, Date.now())
    })
    await enforcer.loadFilteredPolicy({ subject })
    const sub = casbinSubject(subject)
    const linked = await enforcer.getImplicitRolesForUser(sub)
    const narrowedObjects = new Set<string>()
    for (const permission of adapter.permissions) {
      if (permission.condition && needsResource(permission.condition)) {
        for (const object of permission.object.split(',')) narrowedObjects.add(object)
      }
    }
    return {
      enforcer,
      subject: sub,
      roles: linked.filter((role) => !role.startsWith(TEAM_PREFIX)),
      teams: linked.filter((role) => role.startsWith(TEAM_PREFIX)).map((role) => role.slice(TEAM_PREFIX.length)),
      permissions: [...adapter.permissions],
      conditions: adapter.conditions,
      narrowedObjects,
      decisions: adapter.conditions.size === 0 ? new Map() : null,
    }
  }

  function load(subject: AccessSubject): Promise<Built> {
    const resolved = policySubject(subject)
    const key = subjectKey(resolved)
    const now = Date.now()
    const hit = cache.get(key)
    // A permission's `until` is checked when a request is decided (conditionMatch), never cached.
    if (hit && now - hit.at < (following ? followedTtl : unfollowedTtl)) return hit.built
    const startedIn = generation
    const built = build(resolved)
    cache.set(key, { at: now, built })
    built.then(
      () => {
        if (startedIn !== generation) cache.delete(key)
      },
      () => cache.delete(key),
    )
    if (cache.size > maxCached) {
      const oldest = cache.keys().next().value
      if (oldest !== undefined) cache.delete(oldest)
    }
    return built
  }

  function decide(built: Built, area: string, request: AccessRequest): [boolean, string[]] {
    const memo = request.resource ? null : built.decisions
    const key = memo ? `${area}\0${request.object}\0${request.action}` : ''
    const known = memo?.get(key)
    if (known) return known
    const decision = built.enforcer.enforceExSync(built.subject, area, request.object, request.action, request.resource ?? NO_RESOURCE)
    if (memo && memo.size < MAX_DECISIONS) memo.set(key, decision)
    return decision
  }

  function areaFor(request: AccessRequest): string {
    if (request.area === null) return ''
    return request.area ?? areaOfObject(request.object) ?? ''
  }

  return {
    async authorize(subject, request) {
      // The bootstrap token is the operator's way back in: no stored deny (say one that slipped
      // in against the admin group) may lock it out, or a lock-out could never be undone.
      if ('personId' in subject && subject.via === 'bootstrap-token') {
        return { allowed: true, reason: `${request.object}:${request.action} allowed to the bootstrap token (never denied)` }
      }
      const built = await load(subject)
      const area = areaFor(request)
      const [allowed, explain] = decide(built, area, request)
      const target = `${request.object}${area && area !== request.object ? ` (${area})` : ''}:${request.action}`
      if (allowed) {
        const rule = explain.length > 0 ? ` by ${explain[0]}:${explain[1]}:${explain[2]}${explain[5] && explain[5] !== 'na' ? ` [permission ${explain[5]}]` : ''}` : ''
        return { allowed, reason: `${target} allowed${rule}` }
      }
      if (explain.length > 0 && explain[3] === 'deny') {
        return { allowed, reason: `${target} denied by ${explain[5] && explain[5] !== 'na' ? `permission ${explain[5]}` : `rule ${explain.slice(0, 3).join(':')}`}` }
      }
      return { allowed, reason: `${target} not granted to ${built.subject}` }
    },

    async effectivePermissions(subject) {
      const built = await load(subject)
      const holders = new Set([built.subject, ...built.roles, ...built.teams.map((team) => `${TEAM_PREFIX}${team}`)])
      const result: EffectivePermission[] = []
      for (const rule of await built.enforcer.getPolicy()) {
        const [sub = '', object = '', action = '', effect, , id = 'na'] = rule
        if (id !== 'na' || !holders.has(sub)) continue
        result.push({ id: 'na', subject: sub, object, action, ...(effect === 'deny' ? { deny: true as const } : {}) })
      }
      for (const permission of built.permissions) {
        if (permission.condition?.until !== undefined && permission.condition.until <= Date.now()) continue
        result.push({
          id: permission.id,
          subject: permission.subject,
          object: permission.object,
          action: permission.action,
          ...(permission.deny ? { deny: true as const } : {}),
          ...(permission.condition ? { condition: describeCondition(permission.condition) } : {}),
        })
      }
      return result
    },

    async rolesOf(subject) {
      return (await load(subject)).roles
    },

    async narrowedPermissions(subject) {
      return (await load(subject)).permissions.filter((permission) => permission.condition !== undefined)
    },

    async dependsOnResource(subject, object, area) {
      const built = await load(subject)
      if (built.narrowedObjects.has(object) || built.narrowedObjects.has('*')) return true
      const resolvedArea = area === null ? undefined : (area ?? areaOfObject(object))
      return resolvedArea !== undefined && built.narrowedObjects.has(resolvedArea)
    },

    invalidate() {
      generation += 1
      cache.clear()
    },

    followChanges(listening) {
      generation += 1
      cache.clear()
      following = listening
    },
  }
}
