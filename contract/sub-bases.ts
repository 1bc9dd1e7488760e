/*
 * The /api sub-bases: the gateway routes on them and the embedded backend mounts them, so both
 * sides read the one list. Pure data, safe in the browser bundle.
 */

/** The backends a sub-base can belong to, named after the platform's services. */
export type ServiceName = 'mission-control' | 'postgrest' | 'canary-checker' | 'config-db' | 'apm-hub' | 'kratos'

export type SubBase = {
  /** Path under /api as the browser sends it. */
  base: string
  service: ServiceName
  /** What the console uses it for, shown in 501/502 messages and the README. */
  purpose: string
}

/**
 * Every /api sub-base the spec names (000 §7, http-api.md §1.1), longest first so that
 * `/apm/search` wins over a shorter match. Order matters only between overlapping bases.
 */
export const SUB_BASES: readonly SubBase[] = [
  { base: '/apm/search', service: 'apm-hub', purpose: 'log search (deprecated apm-hub)' },
  { base: '/resources/search', service: 'mission-control', purpose: 'resource search' },
  { base: '/db', service: 'postgrest', purpose: 'PostgREST data API' },
  { base: '/canary', service: 'canary-checker', purpose: 'health checks' },
  { base: '/config', service: 'config-db', purpose: 'config scrapers' },
  { base: '/catalog', service: 'mission-control', purpose: 'configuration catalog' },
  { base: '/snapshot', service: 'mission-control', purpose: 'topology snapshots' },
  { base: '/agent', service: 'mission-control', purpose: 'agents' },
  { base: '/upstream', service: 'mission-control', purpose: 'agent push (agents send their results here)' },
  { base: '/logs', service: 'mission-control', purpose: 'logs' },
  { base: '/auth', service: 'mission-control', purpose: 'accounts and tokens' },
  { base: '/people', service: 'mission-control', purpose: 'people' },
  { base: '/playbook', service: 'mission-control', purpose: 'playbooks' },
  { base: '/view', service: 'mission-control', purpose: 'custom views' },
  { base: '/artifacts', service: 'mission-control', purpose: 'artifacts' },
  { base: '/rbac', service: 'mission-control', purpose: 'roles and permissions' },
  { base: '/notification', service: 'mission-control', purpose: 'notifications' },
  { base: '/connection', service: 'mission-control', purpose: 'connections' },
  { base: '/about', service: 'mission-control', purpose: 'version' },
  { base: '/properties', service: 'mission-control', purpose: 'feature flags and settings' },
  { base: '/kubeconfig', service: 'mission-control', purpose: 'kubeconfig download' },
  { base: '/mcp', service: 'mission-control', purpose: 'MCP server' },
  { base: '/.ory', service: 'kratos', purpose: 'identity flows' },
]

export function findSubBase(path: string): SubBase | undefined {
  return SUB_BASES.find((entry) => path === entry.base || path.startsWith(`${entry.base}/`) || path.startsWith(`${entry.base}?`))
}
