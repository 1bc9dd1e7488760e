import type { Area } from './access-map.ts'

/**
 * What a request to a non-`/db` sub-base needs: nothing beyond a principal (handlers check
 * further, e.g. token delete = creator or admin), or `object:action` on an area.
 */
export type RouteAccess =
  | { kind: 'authenticated' }
  | { kind: 'check'; area: Area | null; object: string; action: string }
  | { kind: 'unsupported-method' }
  /** Not decided here: `/db` (PostgREST hook) and paths no service answers. */
  | { kind: 'skip' }

export function actionForMethod(method: string): string | undefined {
  switch (method.toUpperCase()) {
    case 'GET':
    case 'HEAD':
      return 'read'
    case 'POST':
      return 'create'
    case 'PUT':
    case 'PATCH':
      return 'update'
    case 'DELETE':
      return 'delete'
    default:
      return undefined
  }
}

type Rule = {
  /** Path pattern under the backend root; `*` matches one segment, a trailing `**` the rest. */
  path: string
  methods?: string[]
  access: 'authenticated' | { area: Area | null; object: string; action?: string }
}

// First match wins; an `action` left out is derived from the method.
const RULES: Rule[] = [
  // Signing in and out must work whatever the caller's roles (a viewer's session logs out too).
  { path: '/auth/login', access: 'authenticated' },
  { path: '/auth/logout', access: 'authenticated' },
  { path: '/auth/basic/**', access: 'authenticated' },
  { path: '/auth/kratos/**', access: 'authenticated' },
  { path: '/auth/whoami', access: 'authenticated' },
  { path: '/auth/create_token', access: 'authenticated' },
  { path: '/auth/tokens', access: 'authenticated' },
  { path: '/auth/token/*', access: 'authenticated' },
  { path: '/auth/invite_user', access: { area: 'auth', object: 'auth', action: 'update' } },
  { path: '/auth/**', access: { area: 'auth', object: 'auth' } },
  { path: '/about', access: 'authenticated' },
  { path: '/kubeconfig', access: { area: 'auth', object: 'kubernetes-proxy', action: 'create' } },
  // The console reads properties (feature flags) on every start, whatever a token's scope.
  { path: '/properties', methods: ['GET', 'HEAD'], access: 'authenticated' },
  { path: '/properties', access: { area: 'feature_flags', object: 'database.system' } },

  { path: '/people/update', methods: ['POST'], access: { area: 'identities', object: 'people', action: 'update' } },
  { path: '/people/*', methods: ['DELETE'], access: { area: 'identities', object: 'people', action: 'delete' } },
  { path: '/people/**', access: { area: 'database', object: 'people' } },

  { path: '/rbac/*/update_role', access: { area: 'rbac', object: 'rbac', action: 'update' } },
  { path: '/rbac/subject-access-reviews', access: { area: 'rbac', object: 'rbac', action: 'read' } },
  { path: '/rbac/subject-access-search', access: { area: 'rbac', object: 'rbac', action: 'read' } },
  { path: '/rbac/**', access: { area: 'rbac', object: 'rbac' } },

  // Webhooks authenticate with their own secrets (public paths), whoever else is signed in.
  { path: '/canary/webhook/**', access: 'authenticated' },
  { path: '/playbook/webhook/**', access: 'authenticated' },
  // Running a topology writes its components: the topology object, not canaries.
  { path: '/canary/run/topology/*', methods: ['POST'], access: { area: 'topologies', object: 'topology', action: 'run' } },
  { path: '/canary/run/**', methods: ['POST'], access: { area: 'canaries', object: 'canaries', action: 'run' } },
  { path: '/canary/api/topology', access: { area: 'topologies', object: 'topology', action: 'read' } },
  { path: '/canary/api/summary', access: { area: 'canaries', object: 'canaries', action: 'read' } },
  { path: '/canary/api/graph', access: { area: 'canaries', object: 'canaries', action: 'read' } },
  { path: '/canary/**', access: { area: 'canaries', object: 'canaries' } },

  { path: '/config/run/*', methods: ['POST'], access: { area: 'config_scrapers', object: 'database.config_scrapers', action: 'create' } },
  { path: '/config/**', access: { area: 'database', object: 'catalog' } },
  { path: '/catalog/config-items/bulk-delete', access: { area: 'database', object: 'catalog', action: 'delete' } },
  // These POSTs carry a query in the body: they read.
  { path: '/catalog/summary', access: { area: 'database', object: 'catalog', action: 'read' } },
  { path: '/catalog/changes', access: { area: 'database', object: 'catalog', action: 'read' } },
  { path: '/catalog/report/**', access: { area: 'database', object: 'catalog', action: 'read' } },
  { path: '/catalog/**', access: { area: 'database', object: 'catalog' } },
  { path: '/resources/search/**', access: { area: 'database', object: 'catalog', action: 'read' } },
  { path: '/application/**', access: { area: 'database', object: 'application', action: 'read' } },

  { path: '/snapshot/config/**', access: { area: 'database', object: 'catalog', action: 'read' } },
  { path: '/snapshot/**', access: { area: 'topologies', object: 'topology', action: 'read' } },
  { path: '/agent/generate', access: { area: 'agents', object: 'agent', action: 'update' } },
  { path: '/agent/token', access: { area: 'agents', object: 'agent', action: 'update' } },
  { path: '/agent/**', access: { area: 'agents', object: 'agent' } },
  // Only the agent role (and admins) push: the object alone, since the agents area would let
  // editors write rows in an agent's name.
  { path: '/upstream/**', access: { area: null, object: 'agent-push' } },
  { path: '/logs/**', access: { area: 'logging_backends', object: 'logs', action: 'read' } },
  { path: '/apm/search/**', access: { area: 'logging_backends', object: 'logs', action: 'read' } },
  { path: '/artifacts/**', access: { area: 'database', object: 'artifact', action: 'read' } },

  { path: '/playbook/run', methods: ['POST'], access: { area: 'playbook_runs', object: 'playbooks', action: 'playbook:run' } },
  { path: '/playbook/run/approve/*', access: { area: 'playbook_runs', object: 'playbooks', action: 'playbook:approve' } },
  { path: '/playbook/run/cancel/*', access: { area: 'playbook_runs', object: 'playbooks', action: 'playbook:cancel' } },
  { path: '/playbook/run/**', access: { area: 'playbook_runs', object: 'playbooks', action: 'read' } },
  { path: '/playbook/*/params', access: { area: 'playbooks', object: 'playbooks', action: 'read' } },
  { path: '/playbook/list', access: { area: 'playbooks', object: 'playbooks', action: 'read' } },
  { path: '/playbook/**', access: { area: 'playbooks', object: 'playbooks' } },

  // Views are fetched with POST (variables in the body): every /view call reads.
  { path: '/view/**', access: { area: 'views', object: 'views', action: 'read' } },
  { path: '/dashboard/**', access: { area: 'views', object: 'views', action: 'read' } },

  { path: '/notification/summary', access: { area: 'notifications', object: 'notification', action: 'read' } },
  { path: '/notification/silence_preview', access: { area: 'notifications', object: 'notification', action: 'read' } },
  { path: '/notification/send_history/**', access: { area: 'notifications', object: 'notification', action: 'read' } },
  // Marking one's own notifications seen is part of reading them.
  { path: '/notification/unread/**', access: { area: 'notifications', object: 'notification', action: 'read' } },
  { path: '/notification/silence', methods: ['POST'], access: { area: 'notifications', object: 'notification', action: 'create' } },
  { path: '/notification/**', access: { area: 'notifications', object: 'notification' } },

  { path: '/connection/test/*', access: { area: 'connections', object: 'connection', action: 'update' } },
  { path: '/connection/**', access: { area: 'connections', object: 'connection' } },

  { path: '/mcp/**', access: { area: null, object: 'mcp', action: 'mcp:use' } },
]

function matches(pattern: string, path: string): boolean {
  const want = pattern.split('/').filter(Boolean)
  const have = path.split('/').filter(Boolean)
  for (let index = 0; index < want.length; index++) {
    const part = want[index]!
    if (part === '**') return true
    if (index >= have.length) return false
    if (part !== '*' && part !== have[index]) return false
  }
  return want.length === have.length
}

function matchesRule(rule: Rule, path: string): boolean {
  if (matches(rule.path, path)) return true
  // `/x/**` also covers `/x` itself.
  return rule.path.endsWith('/**') && matches(rule.path.slice(0, -3), path)
}

export function routeAccess(method: string, path: string): RouteAccess {
  if (path === '/db' || path.startsWith('/db/')) return { kind: 'skip' }
  const upper = method.toUpperCase()
  for (const rule of RULES) {
    if (rule.methods && !rule.methods.includes(upper)) continue
    if (!matchesRule(rule, path)) continue
    if (rule.access === 'authenticated') return { kind: 'authenticated' }
    const action = rule.access.action ?? actionForMethod(upper)
    if (!action) return { kind: 'unsupported-method' }
    return { kind: 'check', area: rule.access.area, object: rule.access.object, action }
  }
  return { kind: 'skip' }
}

/** Objects the rules name, so token scopes can be checked against the full list. */
export function routeObjects(): string[] {
  return [...new Set(RULES.flatMap((rule) => (rule.access === 'authenticated' ? [] : [rule.access.object])))]
}
