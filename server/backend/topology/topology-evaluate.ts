import type { Db } from '#server/db/client.ts'
import { isUuid } from '#contract/uuid.ts'
import { TopologyComponentSchema, TopologySpecSchema, type TopologyComponentSpec, type TopologySpec } from '#contract/topology/topology-document.ts'
import { formatPath } from '#contract/canary/canary-document.ts'
import { asText, evaluateTemplateObject, isTemplateSet, type TemplateObjectInput } from '#server/backend/health/expressions.ts'
import { configTagValues, resolveCheckLinks, resolveComponentLinks, resolveConfigLinks, selectorIdOf, type SelectorInput } from './component-selectors.ts'
import { INLINE_SELECTOR } from './inline-canaries.ts'
import { applyForEach } from './topology-foreach.ts'
import { groupByLabel, groupComponent, injectConfigTag, injectTagFilter } from './topology-groupby.ts'
import { componentsOfOutputs, createLookupRunner, type LookupRunner } from './topology-lookup.ts'
import type { ComponentProperty, EvaluatedComponent, TopologyEvaluation, TopologyRow, TopologyRunOptions } from './topology-model.ts'
import { evaluateProperty, propertiesAsMap, toComponentProperty } from './topology-properties.ts'

/**
 * Spec → component tree (topology-model.ts), reading the database and running lookups but
 * writing nothing. A part that fails (a lookup, a template, a selector) is reported in `errors`
 * naming the component and the field, and the rest of the tree is still produced.
 */

/** Looked-up components may nest; past this depth the output is refused rather than recursed into. */
const MAX_DEPTH = 64

type Scope = { externalId: string; path: string; namespace: string; depth: number }
type ParentLookup = { name?: string; namespace?: string; type?: string; externalID?: string }

function message(error: unknown): string {
  return error instanceof Error ? error.message : String(error)
}

function emptyComponent(name: string, type: string, externalId: string): EvaluatedComponent {
  return { name, type, externalId, inlineCanaries: [], links: { checks: [], configs: [], components: [], teams: [] }, children: [] }
}

function stringMap(value: unknown): Record<string, string> | undefined {
  if (!value || typeof value !== 'object' || Array.isArray(value)) return undefined
  return Object.fromEntries(Object.entries(value).filter(([, v]) => typeof v === 'string')) as Record<string, string>
}

/** What `id` templates see (canary-checker's GetAsEnvironment): `self` (also `component`) and `properties`. */
function componentVariables(component: EvaluatedComponent): Record<string, unknown> {
  const self = {
    name: component.name,
    namespace: component.namespace ?? '',
    type: component.type,
    icon: component.icon ?? '',
    tooltip: component.tooltip ?? '',
    text: component.text ?? '',
    owner: component.owner ?? '',
    lifecycle: component.lifecycle ?? '',
    description: component.description ?? '',
    status: component.status ?? '',
    health: component.health ?? '',
    hidden: component.hidden ?? false,
    order: component.order ?? 0,
    labels: component.labels ?? {},
    external_id: component.externalId,
    properties: component.properties ?? [],
  }
  return { self, component: self, properties: propertiesAsMap(component.properties as Record<string, unknown>[] | undefined) }
}

function mergeProperties(target: EvaluatedComponent, properties: ComponentProperty[]): void {
  const list = target.properties ?? []
  for (const property of properties) {
    const existing = list.find((candidate) => candidate.name === property.name)
    if (existing) Object.assign(existing, property)
    else list.push(property)
  }
  target.properties = list
}

function addUnique<T>(list: T[], items: T[], key: (item: T) => string): void {
  const seen = new Set(list.map(key))
  for (const item of items) {
    const k = key(item)
    if (seen.has(k)) continue
    seen.add(k)
    list.push(item)
  }
}

class Evaluation {
  readonly errors: string[] = []
  incomplete = false
  private readonly parentLookups = new Map<EvaluatedComponent, ParentLookup>()

  constructor(
    private readonly db: Db,
    private readonly topology: TopologyRow,
    private readonly options: TopologyRunOptions,
    private readonly lookup: LookupRunner,
  ) {}

  private report(where: string, field: string, error: unknown): void {
    this.errors.push(`${where}: ${field}: ${message(error)}`)
  }

  private stopIfAborted(): void {
    if (this.options.signal?.aborted) throw new Error('the topology run was stopped')
  }

  async root(spec: TopologySpec): Promise<EvaluatedComponent> {
    const topology = this.topology
    const where = `topology ${topology.namespace}/${topology.name}`
    const root = emptyComponent(topology.name, spec.type ?? '', `${topology.namespace}/${topology.name}`)
    root.namespace = topology.namespace
    if (spec.icon) root.icon = spec.icon
    if (spec.tooltip) root.tooltip = spec.tooltip
    if (spec.text ?? spec.label) root.text = spec.text ?? spec.label
    if (spec.owner) root.owner = spec.owner
    root.labels = { ...(topology.labels ?? {}) }
    if (spec.healthExpr) root.healthExpr = spec.healthExpr
    if (spec.statusExpr) root.statusExpr = spec.statusExpr
    if (spec.configs) root.configs = spec.configs

    await this.applyProperties(spec.properties ?? [], [root], where)
    root.externalId = this.templatedId(spec.id as TemplateObjectInput | undefined, root, where) ?? root.externalId
    await this.applyConfigLinks(root, spec.configs ?? [], where)

    const scope: Scope = { externalId: root.externalId, path: '', namespace: topology.namespace, depth: 1 }
    const groupBy = spec.groupBy as { tag?: string; selector?: SelectorInput } | undefined
    const components = (spec.components ?? []) as TopologyComponentSpec[]
    if (groupBy?.tag) {
      let values: string[] = []
      try {
        values = await configTagValues(this.db, groupBy.tag, groupBy.selector)
      } catch (error) {
        this.report(where, 'groupBy.selector', error)
      }
      if (values.length > 0) {
        // canary-checker runs the topology once per tag value with that value injected into
        // every config and component selector; here each run becomes one group under the root.
        for (const value of values) {
          const group = groupComponent(root, groupBy.tag, value, topology)
          // The topology's own config queries, narrowed to this value, belong to its group.
          const configs = injectConfigTag(spec.configs, groupBy.tag, value)
          if (configs) {
            group.configs = configs
            await this.applyConfigLinks(group, configs, `${where} group ${value}`)
          }
          const groupScope: Scope = { externalId: group.externalId, path: value, namespace: topology.namespace, depth: 2 }
          group.children = await this.components(injectTagFilter(components, groupBy.tag, value), groupScope, where, 'components')
          this.inheritTopologyLabels(group.children)
          root.children.push(group)
        }
      } else {
        root.children = await this.components(components, scope, where, 'components')
        this.inheritTopologyLabels(root.children)
        root.children = groupByLabel(root, groupBy.tag, topology)
      }
    } else {
      root.children = await this.components(components, scope, where, 'components')
      this.inheritTopologyLabels(root.children)
    }
    this.reparent(root)
    return root
  }

  /** Topology labels reach the top-level components, never overriding their own (as canary-checker). */
  private inheritTopologyLabels(children: EvaluatedComponent[]): void {
    const labels = this.topology.labels ?? {}
    if (Object.keys(labels).length === 0) return
    for (const child of children) child.labels = { ...labels, ...(child.labels ?? {}) }
  }

  private async components(specs: TopologyComponentSpec[], parent: Scope, where: string, field: string): Promise<EvaluatedComponent[]> {
    const results: EvaluatedComponent[] = []
    for (const [index, spec] of specs.entries()) {
      this.stopIfAborted()
      if (parent.depth > MAX_DEPTH) {
        this.report(where, `${field}[${index}]`, `components nest deeper than ${MAX_DEPTH} levels; the rest is left out`)
        break
      }
      if (spec.lookup) results.push(...(await this.lookedUp(spec, parent, where, `${field}[${index}]`)))
      else results.push(await this.component(spec, parent))
    }
    return results
  }

  /**
   * A component spec with a lookup stands for the components the lookup yields (canary-checker:
   * "a lookup translates flatly into a list of components"); they take its place under its parent.
   */
  private async lookedUp(spec: TopologyComponentSpec, parent: Scope, parentWhere: string, field: string): Promise<EvaluatedComponent[]> {
    const label = spec.name ? `component ${parent.path ? `${parent.path}/` : ''}${spec.name}` : parentWhere
    const lookupField = spec.name ? 'lookup' : `${field}.lookup`
    let items: Record<string, unknown>[]
    try {
      items = componentsOfOutputs(await this.lookup(spec.name ?? this.topology.name, spec.lookup as Record<string, unknown>))
    } catch (error) {
      this.report(label, lookupField, error)
      this.incomplete = true
      return []
    }

    // Spec properties are evaluated once and given to every looked-up component.
    const shared: ComponentProperty[] = []
    const byName: { name: string; properties: ComponentProperty[] }[] = []
    for (const [index, property] of (spec.properties ?? []).entries()) {
      try {
        const outcome = await evaluateProperty({ db: this.db, lookup: this.lookup, lookupName: property.name }, property)
        if (outcome.kind === 'properties') shared.push(...outcome.properties)
        else byName.push(...outcome.components)
      } catch (error) {
        this.report(label, `properties[${index}]${property.lookup ? '.lookup' : property.configLookup ? '.configLookup' : ''}`, error)
        const fallback = toComponentProperty(property)
        if (fallback) shared.push(fallback)
      }
    }

    const results: EvaluatedComponent[] = []
    for (const [index, raw] of items.entries()) {
      let item = this.fromLookup(raw, label, `${lookupField}: item ${index}`)
      if (spec.forEach) {
        try {
          item = applyForEach(item, spec.forEach as Record<string, unknown>)
        } catch (error) {
          this.report(label, `forEach (item ${index}${typeof raw.name === 'string' ? ` ${raw.name}` : ''})`, error)
        }
      }
      // icon and lifecycle as in canary-checker; type too, so untyped items take the lookup's type.
      for (const key of ['icon', 'lifecycle', 'type'] as const) if (item[key] === undefined && spec[key] !== undefined) item[key] = spec[key]
      const parsed = TopologyComponentSchema.safeParse(item)
      if (!parsed.success) {
        const issue = parsed.error.issues[0]!
        this.report(label, `${lookupField}: item ${index}${issue.path.length ? `.${formatPath(issue.path)}` : ''}`, issue.message)
        continue
      }
      results.push(await this.component(parsed.data, parent, { properties: shared, id: spec.id as TemplateObjectInput | undefined }))
    }
    for (const entry of byName) {
      const target = results.find((component) => component.name === entry.name)
      if (target) mergeProperties(target, entry.properties)
    }
    return results
  }

  /**
   * A looked-up object as a component spec. Its output comes from outside the spec (an HTTP
   * answer, a script), so it may not declare lookups of its own (of components or properties),
   * config lookups nor inline checks: those would run, read the catalog, or be stored as
   * canaries with the trust of whoever wrote the topology.
   */
  private fromLookup(raw: Record<string, unknown>, where: string, field: string): Record<string, unknown> {
    const item: Record<string, unknown> = { ...raw }
    delete item.lookup
    delete item.forEach
    if (item.externalID === undefined) {
      const alias = item.external_id ?? item.externalId ?? (typeof item.id === 'string' ? item.id : undefined)
      if (typeof alias === 'string' && alias !== '') item.externalID = alias
    }
    delete item.external_id
    delete item.externalId
    // An id in a lookup's output is the source's own (or a template it has no business running).
    delete item.id
    if (Array.isArray(item.checks)) {
      const checks = (item.checks as unknown[]).filter((entry) => !(entry && typeof entry === 'object' && 'inline' in entry))
      if (checks.length !== item.checks.length) this.report(where, `${field}.checks`, 'inline checks from a lookup are ignored; write them in the spec (forEach.checks)')
      item.checks = checks
    }
    if (Array.isArray(item.properties)) {
      item.properties = (item.properties as unknown[]).map((property, index) => {
        if (!property || typeof property !== 'object' || Array.isArray(property)) return property
        const { lookup, configLookup, ...rest } = property as Record<string, unknown>
        if (lookup !== undefined || configLookup !== undefined) this.report(where, `${field}.properties[${index}]`, 'lookup and configLookup from a lookup are ignored; write them in the spec (forEach.properties)')
        return rest
      })
    }
    if (Array.isArray(item.components)) {
      item.components = (item.components as unknown[]).map((child, index) =>
        child && typeof child === 'object' && !Array.isArray(child) ? this.fromLookup(child as Record<string, unknown>, where, `${field}.components[${index}]`) : child,
      )
    }
    return item
  }

  /** One component without a lookup, with its children (any depth). */
  private async component(
    spec: TopologyComponentSpec,
    parent: Scope,
    inherited: { properties?: ComponentProperty[]; id?: TemplateObjectInput } = {},
  ): Promise<EvaluatedComponent> {
    const name = spec.name ?? ''
    const path = parent.path ? `${parent.path}/${name}` : name
    const where = `component ${path}`
    const component = emptyComponent(name, spec.type ?? '', '')
    component.namespace = spec.namespace || parent.namespace
    for (const key of ['icon', 'tooltip', 'text', 'owner', 'lifecycle', 'description', 'statusReason', 'statusExpr', 'healthExpr'] as const) {
      const value = spec[key]
      if (typeof value === 'string' && value !== '') component[key] = value
    }
    if (typeof spec.order === 'number') component.order = spec.order
    if (typeof spec.hidden === 'boolean') component.hidden = spec.hidden
    if (spec.status) component.status = spec.status
    if (spec.health) component.health = spec.health
    const labels = stringMap(spec.labels)
    if (labels && Object.keys(labels).length > 0) component.labels = labels
    if (spec.selectors) component.selectors = spec.selectors
    if (spec.checks) component.componentChecks = spec.checks
    if (spec.configs) component.configs = spec.configs
    if (spec.logs) component.logSelectors = spec.logs
    if (spec.configID) component.configId = spec.configID
    if (spec.parentLookup) this.parentLookups.set(component, spec.parentLookup as ParentLookup)

    await this.applyProperties(spec.properties ?? [], [component], where)
    if (inherited.properties?.length) mergeProperties(component, inherited.properties.map((property) => ({ ...property })))

    const explicit = typeof spec.externalID === 'string' && spec.externalID !== '' ? spec.externalID : undefined
    const template = (spec.id as TemplateObjectInput | undefined) ?? inherited.id
    component.externalId = explicit ?? this.templatedId(template, component, where) ?? `${parent.externalId}/${name}`

    await this.applyLinks(component, spec, where)
    component.children = await this.components((spec.components ?? []) as TopologyComponentSpec[], {
      externalId: component.externalId,
      path,
      namespace: component.namespace,
      depth: parent.depth + 1,
    }, where, 'components')
    return component
  }

  private templatedId(template: TemplateObjectInput | undefined, component: EvaluatedComponent, where: string): string | undefined {
    if (!isTemplateSet(template)) return undefined
    try {
      const id = asText(evaluateTemplateObject(template, componentVariables(component))).trim()
      if (id === '') throw new Error('the template gave an empty id')
      return id
    } catch (error) {
      this.report(where, 'id', error)
      return undefined
    }
  }

  private async applyProperties(specs: TopologyComponentSpec['properties'] & object, targets: EvaluatedComponent[], where: string): Promise<void> {
    for (const [index, property] of specs.entries()) {
      this.stopIfAborted()
      try {
        const outcome = await evaluateProperty({ db: this.db, lookup: this.lookup, lookupName: property.name, current: targets[0] }, property)
        if (outcome.kind === 'properties') {
          for (const target of targets) mergeProperties(target, outcome.properties.map((p) => ({ ...p })))
        } else {
          for (const entry of outcome.components) {
            const target = targets.find((candidate) => candidate.name === entry.name)
            if (target) mergeProperties(target, entry.properties)
          }
        }
      } catch (error) {
        this.report(where, `properties[${index}]${property.lookup ? '.lookup' : property.configLookup ? '.configLookup' : ''}`, error)
        // The property stays (without the value it could not get), so a passing failure does not drop it from the card.
        const fallback = toComponentProperty(property)
        if (fallback) for (const target of targets) mergeProperties(target, [{ ...fallback }])
      }
    }
  }

  private async applyConfigLinks(component: EvaluatedComponent, configs: SelectorInput[], where: string): Promise<void> {
    for (const [index, selector] of configs.entries()) {
      try {
        const links = await resolveConfigLinks(this.db, selector)
        addUnique(component.links.configs, links, (link) => `${link.configId}|${link.selectorId}`)
        const id = typeof selector.id === 'string' ? selector.id : undefined
        if (!component.configId && id && isUuid(id) && links.some((link) => link.configId === id)) component.configId = id
      } catch (error) {
        this.report(where, `configs[${index}]`, error)
      }
    }
  }

  private async applyLinks(component: EvaluatedComponent, spec: TopologyComponentSpec, where: string): Promise<void> {
    for (const [index, entry] of (spec.checks ?? []).entries()) {
      if (entry.inline) component.inlineCanaries.push({ selectorId: INLINE_SELECTOR, spec: entry.inline as Record<string, unknown> })
      if (entry.selector) {
        try {
          addUnique(component.links.checks, await resolveCheckLinks(this.db, entry.selector), (link) => `${link.checkId}|${link.selectorId}`)
        } catch (error) {
          this.report(where, `checks[${index}].selector`, error)
        }
      }
    }
    await this.applyConfigLinks(component, (spec.configs ?? []) as SelectorInput[], where)
    for (const [index, selector] of (spec.selectors ?? []).entries()) {
      try {
        addUnique(component.links.components, await resolveComponentLinks(this.db, selector), (link) => `${link.componentId}|${link.selectorId}`)
      } catch (error) {
        this.report(where, `selectors[${index}]`, error)
      }
    }
    // `relationships [{type, ref}]`: `ref` names another component by id.
    for (const [index, relationship] of (spec.relationships ?? []).entries()) {
      if (!isUuid(relationship.ref)) {
        this.report(where, `relationships[${index}].ref`, `"${relationship.ref}" is not a component id`)
        continue
      }
      try {
        const links = await resolveComponentLinks(this.db, { id: relationship.ref })
        if (links.length === 0) this.report(where, `relationships[${index}].ref`, `no live component ${relationship.ref}`)
        const selectorId = `relationship:${selectorIdOf(relationship)}`
        addUnique(component.links.components, links.map((link) => ({ ...link, selectorId })), (link) => `${link.componentId}|${link.selectorId}`)
      } catch (error) {
        this.report(where, `relationships[${index}]`, error)
      }
    }
  }

  /**
   * `parentLookup {name, namespace, type, externalID}` moves a component under another one of the
   * same tree (found by externalID, else by name, type and namespace), as canary-checker does
   * after a run; a component that names no existing parent stays where it is.
   */
  private reparent(root: EvaluatedComponent): void {
    if (this.parentLookups.size === 0) return
    const byExternalId = new Map<string, EvaluatedComponent>()
    const byKey = new Map<string, EvaluatedComponent>()
    const parentOf = new Map<EvaluatedComponent, EvaluatedComponent>()
    const key = (name: string | undefined, type: string | undefined, namespace: string | undefined) => `${name ?? ''}\u0000${type ?? ''}\u0000${namespace ?? ''}`
    const index = (component: EvaluatedComponent) => {
      byExternalId.set(component.externalId, component)
      byKey.set(key(component.name, component.type, component.namespace), component)
      for (const child of component.children) {
        parentOf.set(child, component)
        index(child)
      }
    }
    index(root)
    const isWithin = (candidate: EvaluatedComponent, ancestor: EvaluatedComponent): boolean => {
      for (let node: EvaluatedComponent | undefined = candidate; node; node = parentOf.get(node)) if (node === ancestor) return true
      return false
    }
    for (const [component, lookup] of this.parentLookups) {
      const current = parentOf.get(component)
      if (!current) continue
      const target = lookup.externalID ? byExternalId.get(lookup.externalID) : byKey.get(key(lookup.name, lookup.type, lookup.namespace ?? component.namespace))
      if (!target || target === current || isWithin(target, component)) continue
      current.children = current.children.filter((child) => child !== component)
      target.children.push(component)
      parentOf.set(component, target)
    }
  }
}

/** Spec → component tree. Reads the spec defensively: it was validated on write, but a row may predate a rule. */
export async function evaluateTopology(db: Db, topology: TopologyRow, options: TopologyRunOptions = {}): Promise<TopologyEvaluation> {
  const evaluation = new Evaluation(db, topology, options, createLookupRunner(db, topology, options))
  const parsed = TopologySpecSchema.safeParse(topology.spec ?? {})
  if (!parsed.success) {
    const root = emptyComponent(topology.name, typeof topology.spec?.type === 'string' ? topology.spec.type : '', `${topology.namespace}/${topology.name}`)
    root.namespace = topology.namespace
    root.labels = { ...(topology.labels ?? {}) }
    const errors = parsed.error.issues.map((issue) => `topology ${topology.namespace}/${topology.name}: ${formatPath(['spec', ...issue.path])}: ${issue.message}`)
    return { root, errors, incomplete: true }
  }
  const root = await evaluation.root(parsed.data)
  return { root, errors: evaluation.errors, ...(evaluation.incomplete ? { incomplete: true } : {}) }
}
