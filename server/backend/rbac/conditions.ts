import type { ResourceKind } from './access-map.ts'

/** The concrete thing a request touches, when known: lets narrowed permissions apply. */
export type ResourceRef = {
  kind?: ResourceKind
  id?: string
  name?: string
  namespace?: string
  type?: string
  tags?: Record<string, string>
  agentId?: string
}

export type ResourceSelector = {
  id?: string
  name?: string
  namespace?: string
  types?: string[]
  tagSelector?: string
  agent?: string
}

/**
 * What narrows one stored permission beyond subject/object/action. A permission with any of
 * these fields only ever matches a request that names a resource it fits; `until` alone does
 * not need a resource.
 */
export type PermissionCondition = {
  until?: number
  tags?: Record<string, string>
  agents?: string[]
  resourceId?: { kind: ResourceKind; id: string }
  selectors?: { kind: ResourceKind; selector: ResourceSelector }[]
}

export function needsResource(condition: PermissionCondition): boolean {
  return Boolean(condition.tags || condition.agents || condition.resourceId || condition.selectors)
}

function globMatch(pattern: string, value: string | undefined): boolean {
  if (pattern === '' || pattern === '*') return true
  if (value === undefined) return false
  const negate = pattern.startsWith('!')
  const body = negate ? pattern.slice(1) : pattern
  const regex = new RegExp(`^${body.split('*').map((part) => part.replace(/[.+?^${}()|[\]\\]/g, '\\$&')).join('.*')}$`)
  return regex.test(value) !== negate
}

/** `k=v,k2!=v2,k3` — the label-selector subset permissions use. */
export function tagSelectorMatches(selector: string, tags: Record<string, string> | undefined): boolean {
  const actual = tags ?? {}
  for (const raw of selector.split(',')) {
    const term = raw.trim()
    if (!term) continue
    const notEquals = term.indexOf('!=')
    if (notEquals > 0) {
      if (actual[term.slice(0, notEquals).trim()] === term.slice(notEquals + 2).trim()) return false
      continue
    }
    const equals = term.indexOf('=')
    if (equals > 0) {
      const key = term.slice(0, equals).trim()
      const value = term.slice(equals + (term[equals + 1] === '=' ? 2 : 1)).trim()
      if (actual[key] !== value) return false
      continue
    }
    if (term.startsWith('!')) {
      if (term.slice(1) in actual) return false
    } else if (!(term in actual)) {
      return false
    }
  }
  return true
}

function selectorMatches(kind: ResourceKind, selector: ResourceSelector, resource: ResourceRef): boolean {
  if (resource.kind && resource.kind !== kind) return false
  if (selector.id && selector.id !== resource.id) return false
  if (selector.name && !globMatch(selector.name, resource.name)) return false
  if (selector.namespace && !globMatch(selector.namespace, resource.namespace)) return false
  if (selector.types?.length && !selector.types.some((type) => globMatch(type, resource.type))) return false
  if (selector.tagSelector && !tagSelectorMatches(selector.tagSelector, resource.tags)) return false
  if (selector.agent && selector.agent !== 'all' && selector.agent !== resource.agentId) return false
  return true
}

/** Whether a narrowed permission applies to this request, evaluated at request time. */
export function conditionHolds(condition: PermissionCondition, resource: ResourceRef | undefined, now: number): boolean {
  if (condition.until !== undefined && condition.until <= now) return false
  if (!needsResource(condition)) return true
  if (!resource) return false
  if (condition.resourceId) {
    if (resource.id !== condition.resourceId.id) return false
    if (resource.kind && resource.kind !== condition.resourceId.kind) return false
  }
  if (condition.tags) {
    const tags = resource.tags
    if (!tags) return false
    for (const [key, value] of Object.entries(condition.tags)) if (tags[key] !== value) return false
  }
  if (condition.agents) {
    if (!condition.agents.includes('*') && (!resource.agentId || !condition.agents.includes(resource.agentId))) return false
  }
  if (condition.selectors && !condition.selectors.some(({ kind, selector }) => selectorMatches(kind, selector, resource))) {
    return false
  }
  return true
}

const SELECTOR_KINDS: Record<string, ResourceKind> = {
  configs: 'config',
  components: 'component',
  canaries: 'canary',
  checks: 'check',
  playbooks: 'playbook',
  connections: 'connection',
  views: 'view',
}

/** Reads a stored `object_selector` ({configs: [...], playbooks: [...]}); unknown keys are ignored. */
export function parseObjectSelector(value: unknown): { kind: ResourceKind; selector: ResourceSelector }[] {
  if (!value || typeof value !== 'object' || Array.isArray(value)) return []
  const result: { kind: ResourceKind; selector: ResourceSelector }[] = []
  for (const [key, list] of Object.entries(value as Record<string, unknown>)) {
    const kind = SELECTOR_KINDS[key]
    if (!kind || !Array.isArray(list)) continue
    for (const item of list) {
      if (!item || typeof item !== 'object') continue
      const raw = item as Record<string, unknown>
      const text = (field: string) => (typeof raw[field] === 'string' ? (raw[field] as string) : undefined)
      result.push({
        kind,
        selector: {
          id: text('id'),
          name: text('name'),
          namespace: text('namespace'),
          types: Array.isArray(raw.types) ? raw.types.filter((t): t is string => typeof t === 'string') : undefined,
          tagSelector: text('tagSelector'),
          agent: text('agent'),
        },
      })
    }
  }
  return result
}

export const SELECTOR_KIND_OBJECTS: Record<ResourceKind, string> = {
  config: 'catalog',
  component: 'topology',
  canary: 'canaries',
  check: 'canaries',
  playbook: 'playbooks',
  connection: 'connection',
  view: 'views',
}
