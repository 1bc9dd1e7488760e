import type { NextFunction, Request, Response } from 'express'
import type { Logger } from 'pino'
import type { Db } from '#server/db/client.ts'
import type { Principal } from '#server/backend/identity/principal.ts'
import type { AuthorizeRequest, AuthorizeResult } from '#server/backend/postgrest/router.ts'
import { relationAccess, type RelationAccess } from './access-map.ts'
import type { Authorizer } from './authorizer.ts'
import type { ResourceRef } from './conditions.ts'
import { routeAccess } from './route-access.ts'
import { isUuid } from '#contract/uuid.ts'

export const ACCESS_DENIED = 'unauthorized. Access Denied'

function principalOrUndefined(res: Response): Principal | undefined {
  return res.locals.principal as Principal | undefined
}

function rbacHeaders(res: Response, subject: string, object: string, action: string) {
  res.setHeader('X-Rbac-Subject', subject)
  res.setHeader('X-Rbac-Object', object)
  res.setHeader('X-Rbac-Action', action)
}

/** The RBAC middleware's refusal (http-api.md §1.7): 403 plain text plus X-Rbac-* headers. */
export function denyAccess(res: Response, subject: string, object: string, action: string): void {
  rbacHeaders(res, subject, object, action)
  res.status(403).type('text/plain').send(ACCESS_DENIED)
}

/**
 * Guards every non-`/db` sub-base: the object from the sub-base (and path), the action from
 * the method unless the route says otherwise. Runs after requireCredentials.
 */
export function requireRouteAccess(authorizer: Authorizer, logger?: Logger) {
  return async (req: Request, res: Response, next: NextFunction): Promise<void> => {
    try {
      const access = routeAccess(req.method, req.path)
      if (access.kind === 'skip') return next()
      const principal = principalOrUndefined(res)
      if (!principal) {
        // Public paths (webhooks, login) have no principal and decide for themselves.
        return next()
      }
      if (access.kind === 'authenticated') return next()
      if (access.kind === 'unsupported-method') {
        rbacHeaders(res, principal.personId, '', req.method)
        res.status(403).type('text/plain').send('unauthorized. RBAC policy not configured correctly')
        return
      }
      const decision = await authorizer.authorize(principal, { area: access.area, object: access.object, action: access.action })
      if (decision.allowed) return next()
      logger?.info({ subject: principal.personId, reason: decision.reason }, 'access denied')
      denyAccess(res, principal.personId, access.object, access.action)
    } catch (error) {
      next(error)
    }
  }
}

// Relations whose rows carry tags/labels and agent ids, for narrowed permissions.
const RESOURCE_QUERIES: Record<string, string> = {
  config_items: `SELECT id::text, name, NULL::text AS namespace, type, coalesce(tags, '{}'::jsonb) || coalesce(labels, '{}'::jsonb) AS tags, agent_id::text FROM config_items WHERE id = $1`,
  canaries: `SELECT id::text, name, namespace, NULL::text AS type, labels AS tags, agent_id::text FROM canaries WHERE id = $1`,
  checks: `SELECT id::text, name, namespace, type, labels AS tags, agent_id::text FROM checks WHERE id = $1`,
  components: `SELECT id::text, name, namespace, type, labels AS tags, agent_id::text FROM components WHERE id = $1`,
  playbooks: `SELECT id::text, name, namespace, NULL::text AS type, NULL::jsonb AS tags, NULL::text AS agent_id FROM playbooks WHERE id = $1`,
  connections: `SELECT id::text, name, namespace, type, NULL::jsonb AS tags, NULL::text AS agent_id FROM connections WHERE id = $1`,
  views: `SELECT id::text, name, namespace, NULL::text AS type, labels AS tags, NULL::text AS agent_id FROM views WHERE id = $1`,
}
const RESOURCE_SOURCE: Record<string, string> = { configs: 'config_items', config_detail: 'config_items', connections_list: 'connections' }

/** `?id=eq.<uuid>` (exactly one id filter) names a single resource. */
function singleId(req: Request): string | undefined {
  const value = req.query.id
  if (typeof value !== 'string' || !value.startsWith('eq.')) return undefined
  const id = value.slice(3)
  return isUuid(id) ? id : undefined
}

async function loadResource(db: Db, relation: string, access: RelationAccess, id: string): Promise<ResourceRef | undefined> {
  const sql = RESOURCE_QUERIES[RESOURCE_SOURCE[relation] ?? relation]
  if (!sql || !access.resource) return undefined
  const { rows } = await db.query<{ id: string; name: string | null; namespace: string | null; type: string | null; tags: Record<string, unknown> | null; agent_id: string | null }>(sql, [id])
  const row = rows[0]
  if (!row) return undefined
  const tags: Record<string, string> = {}
  for (const [key, value] of Object.entries(row.tags ?? {})) tags[key] = String(value)
  return {
    kind: access.resource,
    id: row.id,
    ...(row.name !== null ? { name: row.name } : {}),
    ...(row.namespace !== null ? { namespace: row.namespace } : {}),
    ...(row.type !== null ? { type: row.type } : {}),
    tags,
    ...(row.agent_id !== null ? { agentId: row.agent_id } : {}),
  }
}

// Writes to these change what the authorizer loads: drop the cache once they land.
const POLICY_RELATIONS = new Set(['permissions', 'permission_groups', 'casbin_rule', 'team_members', 'teams', 'people', 'access_tokens'])

/**
 * `/db` authorization. `guard` runs before the PostgREST router: a relation outside the map
 * answers 404 with an empty body (http-api.md §4.1) and never reaches the database. `authorize`
 * is the router's hook: a refusal keeps PostgREST's error shape (`{code: "42501", message,
 * details, hint}`) because PostgREST clients parse that body, with the message and X-Rbac-*
 * headers of the RBAC middleware so both kinds of client see the same refusal. The router asks
 * about every relation a request reaches (embeds, junctions, an RPC's result rows): each gets
 * the answer a direct read of it gets, the guard's 404 included.
 */
export function createDbAuthorization(options: { db: Db; authorizer: Authorizer; logger?: Logger }) {
  const { db, authorizer, logger } = options

  function parse(req: Request): { name: string; kind: 'table' | 'rpc' } | undefined {
    const segments = req.path.split('/').filter(Boolean)
    try {
      if (segments.length === 1) return { name: decodeURIComponent(segments[0]!), kind: 'table' }
      if (segments.length === 2 && segments[0] === 'rpc') return { name: decodeURIComponent(segments[1]!), kind: 'rpc' }
    } catch {
      return undefined
    }
    return undefined
  }

  function guard(req: Request, res: Response, next: NextFunction): void {
    const target = parse(req)
    if (target && !relationAccess(target.name, target.kind)) {
      res.status(404).end()
      return
    }
    if (target && req.method !== 'GET' && req.method !== 'HEAD' && POLICY_RELATIONS.has(target.name)) {
      res.on('finish', () => authorizer.invalidate())
    }
    next()
  }

  async function decide(request: AuthorizeRequest, access: RelationAccess | undefined, id: string | undefined): Promise<AuthorizeResult> {
    const res = request.req.res
    const principal = res ? principalOrUndefined(res) : undefined
    if (!principal) return { allowed: false, status: 401, message: 'Not logged in' }
    if (!access) return { allowed: false, status: 404, message: 'Not found' }
    // Deliberate departure from the spec's matrix (docs/decisions/005): the token table is never
    // served through the data API, to anyone. Its rows are credentials (hashes, owners, expiry);
    // an editor who could insert one for an admin would hold the admin's power. Tokens are
    // managed through /api/auth/create_token, /tokens and /token/{id}, as the platform does.
    if (access.area === 'kratos') {
      if (res) rbacHeaders(res, principal.personId, access.object, request.action)
      return { allowed: false, status: 403, message: ACCESS_DENIED }
    }
    let resource: ResourceRef | undefined
    if (id && (await authorizer.dependsOnResource(principal, access.object, access.area))) {
      resource = await loadResource(db, request.relation, access, id)
    }
    const decision = await authorizer.authorize(principal, { area: access.area, object: access.object, action: request.action, resource })
    if (decision.allowed) return { allowed: true }
    logger?.info({ subject: principal.personId, reason: decision.reason }, 'access denied')
    if (res) rbacHeaders(res, principal.personId, access.object, request.action)
    return { allowed: false, status: 403, message: ACCESS_DENIED }
  }

  // One request asks about many relations (embeds at any depth) and each authorizer call costs
  // a policy evaluation, so answers are shared within the request: the answer rests only on the
  // area, object and action, and on the row when the top relation's id filter names one.
  const decided = new WeakMap<Request, Map<string, Promise<AuthorizeResult>>>()

  function authorize(request: AuthorizeRequest): Promise<AuthorizeResult> {
    const access = relationAccess(request.relation, request.kind)
    // The query's id filter names rows of the top relation only, never those of an embed.
    const id = access?.resource && !request.related ? singleId(request.req) : undefined
    const key = access
      ? [access.area, access.object, request.action, id ? `${request.relation}/${id}` : ''].join('\u0000')
      : `\u0000${request.kind}\u0000${request.relation}`
    let verdicts = decided.get(request.req)
    if (!verdicts) decided.set(request.req, (verdicts = new Map()))
    let verdict = verdicts.get(key)
    if (!verdict) verdicts.set(key, (verdict = decide(request, access, id)))
    return verdict
  }

  return { guard, authorize }
}
