import { JSONPath } from 'jsonpath-plus'
import type { Db } from '#server/db/client.ts'
import { isUuid } from '#contract/uuid.ts'
import { asText, evaluateTemplateObject, isTemplateSet, type TemplateObjectInput } from '#server/backend/health/expressions.ts'
import { resolveConfigLinks, type SelectorInput } from './component-selectors.ts'
import type { LookupRunner } from './topology-lookup.ts'
import type { ComponentProperty } from './topology-model.ts'

/**
 * Component properties (resource-specs §3.6 "Property fields"): the stored shape, and the two
 * sources a property may name — `lookup` (a canary spec whose display gives the value) and
 * `configLookup` (a value read from a config item).
 */

const TEXT_FIELDS = ['label', 'tooltip', 'icon', 'text', 'type', 'color', 'unit', 'status', 'lastTransition'] as const
const NUMBER_FIELDS = ['value', 'min', 'max'] as const

function numberOf(value: unknown): number | undefined {
  if (typeof value === 'number' && Number.isFinite(value)) return value
  if (typeof value === 'string' && /^-?\d+(\.\d+)?$/.test(value.trim())) return Number(value)
  return undefined
}

/** A spec (or looked-up) property as stored; null without a name. Sources (lookup, configLookup) are not stored. */
export function toComponentProperty(input: Record<string, unknown>): ComponentProperty | null {
  if (typeof input.name !== 'string' || input.name === '') return null
  const property: ComponentProperty = { name: input.name }
  for (const field of TEXT_FIELDS) {
    const value = input[field]
    if (typeof value === 'string') property[field] = value
    else if (field === 'text' && (typeof value === 'number' || typeof value === 'boolean')) property.text = String(value)
  }
  for (const field of NUMBER_FIELDS) {
    const value = numberOf(input[field])
    if (value !== undefined) property[field] = value
  }
  if (typeof input.order === 'number' && Number.isInteger(input.order)) property.order = input.order
  if (typeof input.headline === 'boolean') property.headline = input.headline
  if (typeof input.hidden === 'boolean') property.hidden = input.hidden
  if (Array.isArray(input.links)) {
    property.links = input.links
      .filter((link): link is Record<string, unknown> => Boolean(link) && typeof link === 'object' && !Array.isArray(link))
      .map((link) => Object.fromEntries(['type', 'url', 'tooltip', 'icon', 'text', 'label'].filter((key) => typeof link[key] === 'string').map((key) => [key, link[key]])))
  }
  return property
}

/** `properties` as templates see them (canary-checker's Properties.AsMap): name → text, or value when there is no text. */
export function propertiesAsMap(properties: readonly Record<string, unknown>[] | undefined): Record<string, unknown> {
  const map: Record<string, unknown> = {}
  for (const property of properties ?? []) {
    if (typeof property.name !== 'string') continue
    map[property.name] = typeof property.text === 'string' && property.text !== '' ? property.text : property.value ?? null
  }
  return map
}

/**
 * What evaluating one spec property gives: properties for the component(s) the spec entry made,
 * or (a lookup answering `[{name, properties}]`) properties for components found by name.
 */
export type PropertyOutcome =
  | { kind: 'properties'; properties: ComponentProperty[] }
  | { kind: 'components'; components: { name: string; properties: ComponentProperty[] }[] }

export class PropertyError extends Error {}

type PropertyContext = { db: Db; lookup: LookupRunner; lookupName: string; current?: { properties?: ComponentProperty[] } }

export async function evaluateProperty(context: PropertyContext, spec: Record<string, unknown>): Promise<PropertyOutcome> {
  if (spec.configLookup && typeof spec.configLookup === 'object') {
    return { kind: 'properties', properties: [await lookupConfigProperty(context, spec, spec.configLookup as ConfigLookup)] }
  }
  if (spec.lookup && typeof spec.lookup === 'object') {
    const outputs = await context.lookup(context.lookupName, spec.lookup as Record<string, unknown>)
    const first = outputs[0]
    const base = toComponentProperty(spec)!
    if (first === undefined) return { kind: 'properties', properties: [base] }
    const text = typeof first === 'string' ? first : JSON.stringify(first)
    const parsed = parseList(text)
    if (parsed && parsed.length > 0 && parsed.every((item) => item && typeof item === 'object' && !Array.isArray(item))) {
      const items = parsed as Record<string, unknown>[]
      // `[{name, properties: [...]}]`: properties of several components at once (canary-checker's summary lookups).
      if ('properties' in items[0]!) {
        return {
          kind: 'components',
          components: items
            .filter((item) => typeof item.name === 'string')
            .map((item) => ({ name: item.name as string, properties: propertyList(item.properties) })),
        }
      }
      if ('name' in items[0]!) return { kind: 'properties', properties: propertyList(items) }
    }
    // A plain value: the property's text, as canary-checker sets it.
    return { kind: 'properties', properties: [{ ...base, text }] }
  }
  const property = toComponentProperty(spec)
  if (!property) throw new PropertyError('name: is required')
  return { kind: 'properties', properties: [property] }
}

function parseList(text: string): unknown[] | null {
  const trimmed = text.trim()
  if (!trimmed.startsWith('[')) return null
  try {
    const value = JSON.parse(trimmed) as unknown
    return Array.isArray(value) ? value : null
  } catch {
    return null
  }
}

function propertyList(value: unknown): ComponentProperty[] {
  if (!Array.isArray(value)) return []
  return value
    .filter((item): item is Record<string, unknown> => Boolean(item) && typeof item === 'object' && !Array.isArray(item))
    .map(toComponentProperty)
    .filter((property): property is ComponentProperty => property !== null)
}

type ConfigLookup = { id?: string; config?: SelectorInput; field?: string; display?: TemplateObjectInput }

type ConfigRow = { id: string; name: string | null; type: string | null; config_class: string | null; config: unknown; tags: Record<string, string> | null; labels: Record<string, string> | null; health: string | null; status: string | null }

async function readConfig(db: Db, id: string): Promise<ConfigRow | null> {
  const { rows } = await db.query<ConfigRow>(
    'SELECT id, name, type, config_class, config, tags, labels, health, status FROM config_items WHERE id = $1 AND deleted_at IS NULL',
    [id],
  )
  return rows[0] ?? null
}

/**
 * `configLookup {id | config, field, display}`: `id` is a config item's id — or, as in
 * canary-checker, the name of a property of the current component whose value is the config's
 * name; `config` is a config selector (the first match is read). `field` is a JSONPath into the
 * config's JSON; `display` (expr / template) renders the text from `config`, `config_type`, the
 * item's columns and `value` (what `field` found). Without display, a numeric field is the
 * property's value and anything else its text. A config that is not there leaves the property
 * without a value, as in canary-checker.
 */
async function lookupConfigProperty(context: PropertyContext, spec: Record<string, unknown>, lookup: ConfigLookup): Promise<ComponentProperty> {
  const property = toComponentProperty(spec)!
  if (!lookup.field && !isTemplateSet(lookup.display)) throw new PropertyError('configLookup: set field or display')
  let configId: string | undefined
  if (lookup.id && isUuid(lookup.id)) {
    configId = lookup.id
  } else {
    const selector: SelectorInput = { ...(lookup.config ?? {}) }
    if (lookup.id) {
      const named = context.current?.properties?.find((candidate) => candidate.name === lookup.id)
      const name = named ? (named.text ?? (named.value !== undefined ? String(named.value) : undefined)) : undefined
      if (name !== undefined && name !== '') selector.name = name
    }
    if (Object.keys(selector).length === 0) throw new PropertyError(`configLookup.id: "${lookup.id}" is neither a config id nor a property of this component, and no config selector is set`)
    configId = (await resolveConfigLinks(context.db, selector))[0]?.configId
  }
  const config = configId ? await readConfig(context.db, configId) : null
  if (!config) return property

  let value: unknown
  if (lookup.field) {
    try {
      value = config.config && typeof config.config === 'object' ? (JSONPath({ path: lookup.field, json: config.config as object, wrap: true }) as unknown[])[0] : undefined
    } catch (error) {
      throw new PropertyError(`configLookup.field: ${(error as Error).message}`)
    }
  }
  if (isTemplateSet(lookup.display)) {
    const variables = {
      id: config.id,
      name: config.name,
      type: config.type,
      config_class: config.config_class,
      tags: config.tags ?? {},
      labels: config.labels ?? {},
      health: config.health,
      status: config.status,
      config: config.config ?? {},
      config_type: config.type,
      value: value ?? null,
    }
    try {
      return { ...property, text: asText(evaluateTemplateObject(lookup.display, variables)) }
    } catch (error) {
      throw new PropertyError(`configLookup.display: ${(error as Error).message}`)
    }
  }
  const number = typeof value === 'number' && Number.isFinite(value) ? value : undefined
  if (number !== undefined) return { ...property, value: number }
  if (value === undefined || value === null) return property
  return { ...property, text: asText(value) }
}
