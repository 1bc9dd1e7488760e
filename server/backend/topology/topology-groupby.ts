import type { TopologyComponentSpec } from '#contract/topology/topology-document.ts'
import type { SelectorInput } from './component-selectors.ts'
import type { EvaluatedComponent, TopologyRow } from './topology-model.ts'

/**
 * `groupBy {tag, selector}` (resource-specs §3.6). canary-checker reads the values the config tag
 * `tag` takes among the configs `selector` matches, and runs the whole topology once per value with
 * `tag=value` added to every config selector (tagSelector) and component selector
 * (labelSelector). A run here has one root, so each value becomes a group component under it
 * (name = the value, type = the tag). When no config carries the tag, the evaluated components
 * themselves are grouped by their label `tag` (those without it stay under the root).
 */

function withTerm(existing: unknown, term: string): string {
  return typeof existing === 'string' && existing.trim() !== '' ? `${existing.trim()},${term}` : term
}

/** Config selectors with `tag=value` in their tagSelector (a deep copy). */
export function injectConfigTag(configs: SelectorInput[] | undefined, tag: string, value: string): SelectorInput[] | undefined {
  return configs?.map((config) => ({ ...config, tagSelector: withTerm(config.tagSelector, `${tag}=${value}`) }))
}

/** The component specs with `tag=value` in every config and component selector, at any depth (a deep copy). */
export function injectTagFilter(specs: TopologyComponentSpec[], tag: string, value: string): TopologyComponentSpec[] {
  const term = `${tag}=${value}`
  return specs.map((spec) => {
    const copy: TopologyComponentSpec = { ...spec }
    if (spec.configs) copy.configs = injectConfigTag(spec.configs, tag, value)
    if (spec.selectors) copy.selectors = spec.selectors.map((selector) => ({ ...selector, labelSelector: withTerm(selector.labelSelector, term) }))
    if (spec.components) copy.components = injectTagFilter(spec.components, tag, value)
    if (spec.forEach) {
      const forEach = { ...spec.forEach }
      if (forEach.configs) forEach.configs = injectConfigTag(forEach.configs, tag, value)
      if (forEach.selectors) forEach.selectors = forEach.selectors.map((selector) => ({ ...selector, labelSelector: withTerm(selector.labelSelector, term) }))
      if (forEach.components) forEach.components = injectTagFilter(forEach.components, tag, value)
      copy.forEach = forEach
    }
    return copy
  })
}

export function groupComponent(root: EvaluatedComponent, tag: string, value: string, topology: TopologyRow): EvaluatedComponent {
  return {
    name: value,
    type: tag,
    externalId: `${root.externalId}/${value}`,
    namespace: topology.namespace,
    labels: { ...(topology.labels ?? {}), [tag]: value },
    inlineCanaries: [],
    links: { checks: [], configs: [], components: [], teams: [] },
    children: [],
  }
}

/** The root's children with those labelled `tag` moved into one group component per value (in order of first appearance). */
export function groupByLabel(root: EvaluatedComponent, tag: string, topology: TopologyRow): EvaluatedComponent[] {
  const groups = new Map<string, EvaluatedComponent>()
  const result: EvaluatedComponent[] = []
  for (const child of root.children) {
    const value = child.labels?.[tag]
    if (value === undefined || value === '') {
      result.push(child)
      continue
    }
    let group = groups.get(value)
    if (!group) {
      group = groupComponent(root, tag, value, topology)
      groups.set(value, group)
      result.push(group)
    }
    group.children.push(child)
  }
  return result
}
