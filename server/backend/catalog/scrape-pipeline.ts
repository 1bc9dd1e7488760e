import { createHash } from 'node:crypto'
import { JSONPath } from 'jsonpath-plus'
import { evaluateCel } from '#server/backend/health/expressions.ts'
import { renderGoTemplate } from '#server/backend/health/go-template.ts'
import type { ScrapedDocument } from './scrapers/scraper-source.ts'

/**
 * What every scraper shares (resource-specs §3.7), from the documents a source fetched to the
 * items the store writes: `items` splitting, the common fields as static values or JSONPath,
 * `transform` (a CEL or Go-template script, exclude, mask, aliases, locations, relationship
 * rules), createFields/deleteFields. Pure: nothing here touches the database.
 */

export type RelationshipSelector = {
  id?: string
  externalId?: string
  type?: string
  name?: string
  namespace?: string
  labels?: Record<string, string>
  relation: string
  parent: boolean
}

export type AnalysisInput = {
  analyzer: string
  analysis_type?: string
  severity?: string
  summary?: string
  message?: string
  status?: string
  analysis?: unknown
}

export type ChangeMapping = { filter?: string; type?: string; severity?: string; action?: string; summary?: string }

export type ScrapedItem = {
  /** type + external id: how a re-scrape finds the stored item. */
  key: string
  externalId: string
  aliases: string[]
  type: string
  configClass: string
  name: string | null
  status: string | null
  health: string | null
  description: string | null
  icon: string | null
  labels: Record<string, string>
  tags: Record<string, string>
  properties: unknown[] | null
  config: unknown
  source: string
  createdAt: string | null
  deletedAt: string | null
  locations: string[]
  analysis: AnalysisInput[]
  relationships: RelationshipSelector[]
  /** The entry's `transform.changes`, applied to the changes the store derives for this item. */
  changeRules: { mapping: ChangeMapping[]; exclude: string[] }
}

type Entry = Record<string, unknown>

export class ScrapeItemError extends Error {}

const isJsonPath = (value: string) => value === '$' || value.startsWith('$.') || value.startsWith('$[')

function jsonPathAll(path: string, json: unknown): unknown[] {
  if (json === null || json === undefined || typeof json !== 'object') return []
  try {
    return JSONPath({ path, json: json as object, wrap: true }) as unknown[]
  } catch (error) {
    throw new ScrapeItemError(`JSONPath ${path}: ${(error as Error).message}`)
  }
}

function scalarText(value: unknown): string | null {
  if (value === undefined || value === null) return null
  if (typeof value === 'string') return value
  if (typeof value === 'number' || typeof value === 'boolean' || typeof value === 'bigint') return String(value)
  return JSON.stringify(value)
}

/** A common field: static text, or the first value a JSONPath finds in the config. */
function fieldValue(spec: unknown, config: unknown): string | null {
  if (typeof spec !== 'string' || spec === '') return null
  if (!isJsonPath(spec)) return spec
  return scalarText(jsonPathAll(spec, config)[0])
}

function asRecord(value: unknown): Record<string, unknown> | null {
  return value && typeof value === 'object' && !Array.isArray(value) ? (value as Record<string, unknown>) : null
}

function stringRecord(value: unknown): Record<string, string> {
  const out: Record<string, string> = {}
  for (const [key, item] of Object.entries(asRecord(value) ?? {})) {
    const text = scalarText(item)
    if (text !== null) out[key] = text
  }
  return out
}

/** `format: properties` reads `key=value` lines (Java properties) into an object. */
function parseProperties(text: string): Record<string, string> {
  const out: Record<string, string> = {}
  for (const raw of text.split(/\r?\n/)) {
    const line = raw.trim()
    if (!line || line.startsWith('#') || line.startsWith('!')) continue
    const match = /^([^=:\s]+)\s*[=:\s]\s*(.*)$/.exec(line)
    if (match) out[match[1]!] = match[2]!
  }
  return out
}

/** Splits one fetched document into item configs by `items` (a JSONPath), or keeps it whole. */
function splitItems(entry: Entry, config: unknown): unknown[] {
  let value = config
  if (entry.format === 'properties' && typeof value === 'string') value = parseProperties(value)
  if (typeof entry.items !== 'string' || entry.items === '') return [value]
  const found = jsonPathAll(entry.items, value)
  // `$.services` (one array) and `$.services[*]` (its elements) both mean one item per element.
  return found.length === 1 && Array.isArray(found[0]) ? (found[0] as unknown[]) : found
}

/**
 * `transform.expr` (CEL) or `transform.gotemplate` over `{config}`. The output is JSON (a Go
 * template renders text that is parsed): an object with a `config` key is a full scrape result
 * whose `id`, `name`, `type`, `analysis`, `aliases`… override the entry's fields; any other object
 * is the new config; a list is one item per element.
 */
function runScript(transform: Record<string, unknown>, config: unknown): { config: unknown; overrides: Record<string, unknown> }[] {
  let output: unknown
  if (typeof transform.expr === 'string' && transform.expr !== '') {
    output = evaluateCel(transform.expr, { config })
  } else if (typeof transform.gotemplate === 'string' && transform.gotemplate !== '') {
    output = renderGoTemplate(transform.gotemplate, { config } as Record<string, unknown>)
  } else if (transform.javascript || transform.jsonpath) {
    throw new ScrapeItemError('transform: javascript and jsonpath scripts are not supported here; use expr (CEL) or gotemplate')
  } else {
    return [{ config, overrides: {} }]
  }
  if (typeof output === 'string') {
    const text = output
    try {
      output = JSON.parse(text)
    } catch {
      throw new ScrapeItemError(`transform output is not JSON: ${text.slice(0, 200)}`)
    }
  }
  const results = Array.isArray(output) ? output : [output]
  return results.map((result) => {
    const record = asRecord(result)
    if (record && 'config' in record) {
      const { config: inner, ...overrides } = record
      return { config: inner, overrides }
    }
    return { config: result, overrides: {} }
  })
}

function typeMatches(patterns: unknown, type: string): boolean {
  const list = Array.isArray(patterns) ? patterns : typeof patterns === 'string' ? [patterns] : []
  if (list.length === 0) return true
  return list.some((pattern) => {
    if (typeof pattern !== 'string') return false
    const regex = new RegExp(`^${pattern.replace(/[.+^${}()|[\]\\]/g, '\\$&').replace(/\*/g, '.*').replace(/\?/g, '.')}$`)
    return regex.test(type)
  })
}

/** Visits every match of a JSONPath with its parent so it can be removed or replaced in place. */
function eachMatch(config: unknown, path: string, visit: (parent: Record<string, unknown> | unknown[], key: string | number, value: unknown) => void) {
  if (config === null || typeof config !== 'object') return
  const matches = JSONPath({ path, json: config as object, resultType: 'all', wrap: true }) as { parent: unknown; parentProperty: string | number; value: unknown }[]
  // Deepest and last first, so removing array elements does not shift the ones still to visit.
  for (const match of [...matches].reverse()) {
    if (match.parent && typeof match.parent === 'object') visit(match.parent as Record<string, unknown>, match.parentProperty, match.value)
  }
}

function maskValue(kind: string, value: unknown): unknown {
  const text = typeof value === 'string' ? value : JSON.stringify(value) ?? ''
  if (kind === 'md5sum' || kind === 'md5') return createHash('md5').update(text).digest('hex')
  if (kind === 'sha256sum' || kind === 'sha256') return createHash('sha256').update(text).digest('hex')
  if (kind === 'sha1sum' || kind === 'sha1') return createHash('sha1').update(text).digest('hex')
  return kind
}

function celTrue(expression: unknown, variables: Record<string, unknown>): boolean {
  if (typeof expression !== 'string' || expression.trim() === '') return true
  const result = evaluateCel(expression, variables)
  return result === true || result === 'true'
}

function renderAliasValue(template: string, variables: Record<string, unknown>): string {
  if (isJsonPath(template)) return scalarText(jsonPathAll(template, variables.config)[0]) ?? ''
  return template.includes('{{') ? renderGoTemplate(template, variables) : template
}

function lookup(spec: unknown, variables: Record<string, unknown>, labels: Record<string, string>): string | undefined {
  if (typeof spec === 'string') return spec
  const record = asRecord(spec)
  if (!record) return undefined
  if (typeof record.value === 'string') return record.value
  if (typeof record.label === 'string') return labels[record.label]
  if (typeof record.expr === 'string') return scalarText(evaluateCel(record.expr, variables)) ?? undefined
  return undefined
}

function relationshipSelectors(rules: unknown, variables: Record<string, unknown>, labels: Record<string, string>): RelationshipSelector[] {
  if (!Array.isArray(rules)) return []
  const selectors: RelationshipSelector[] = []
  for (const rule of rules) {
    const record = asRecord(rule)
    if (!record || !celTrue(record.filter, variables)) continue
    const relation = typeof record.relation === 'string' && record.relation !== '' ? record.relation : 'related'
    const parent = record.parent === true
    if (typeof record.expr === 'string' && record.expr !== '') {
      const output = evaluateCel(record.expr, variables)
      for (const one of Array.isArray(output) ? output : [output]) {
        const found = asRecord(one)
        if (!found) continue
        selectors.push({
          id: scalarText(found.id) ?? undefined,
          externalId: scalarText(found.external_id ?? found.externalID) ?? undefined,
          type: scalarText(found.type) ?? undefined,
          name: scalarText(found.name) ?? undefined,
          namespace: scalarText(found.namespace) ?? undefined,
          labels: found.labels ? stringRecord(found.labels) : undefined,
          relation,
          parent,
        })
      }
      continue
    }
    const selectorLabels: Record<string, string> = {}
    for (const [key, value] of Object.entries(asRecord(record.labels) ?? {})) {
      const text = lookup(value, variables, labels)
      if (text !== undefined) selectorLabels[key] = text
    }
    const selector: RelationshipSelector = {
      id: lookup(record.id, variables, labels),
      externalId: lookup(record.external_id, variables, labels),
      type: lookup(record.type, variables, labels),
      name: lookup(record.name, variables, labels),
      namespace: lookup(record.namespace, variables, labels),
      labels: Object.keys(selectorLabels).length > 0 ? selectorLabels : undefined,
      relation,
      parent,
    }
    // A selector that names nothing would link the item to every config.
    if (selector.id || selector.externalId || selector.name || selector.labels) selectors.push(selector)
  }
  return selectors
}

const MONTHS = ['jan', 'feb', 'mar', 'apr', 'may', 'jun', 'jul', 'aug', 'sep', 'oct', 'nov', 'dec']

/** Go layout elements (time.Format reference time Mon Jan 2 15:04:05 MST 2006), longest first. */
const LAYOUT_TOKENS: [string, string, string][] = [
  ['January', 'month', '[A-Za-z]+'], ['Monday', 'skip', '[A-Za-z]+'], ['2006', 'year', '\\d{4}'],
  ['Z07:00', 'zone', 'Z|[+-]\\d{2}:\\d{2}'], ['-07:00', 'zone', '[+-]\\d{2}:\\d{2}'], ['Z0700', 'zone', 'Z|[+-]\\d{4}'],
  ['-0700', 'zone', '[+-]\\d{4}'], ['.000000000', 'fraction', '\\.\\d+'], ['.999999999', 'fraction', '(?:\\.\\d+)?'],
  ['.000000', 'fraction', '\\.\\d+'], ['.999999', 'fraction', '(?:\\.\\d+)?'], ['.000', 'fraction', '\\.\\d+'],
  ['.999', 'fraction', '(?:\\.\\d+)?'], ['Jan', 'month', '[A-Za-z]{3}'], ['Mon', 'skip', '[A-Za-z]{3}'], ['MST', 'skip', '[A-Z]{2,5}'],
  ['15', 'hour', '\\d{2}'], ['03', 'hour12', '\\d{2}'], ['01', 'month', '\\d{2}'], ['02', 'day', '\\d{2}'], ['_2', 'day', ' ?\\d{1,2}'],
  ['04', 'minute', '\\d{2}'], ['05', 'second', '\\d{2}'], ['06', 'year2', '\\d{2}'], ['PM', 'ampm', 'AM|PM'], ['pm', 'ampm', 'am|pm'],
  ['1', 'month', '\\d{1,2}'], ['2', 'day', '\\d{1,2}'], ['3', 'hour12', '\\d{1,2}'], ['4', 'minute', '\\d{1,2}'], ['5', 'second', '\\d{1,2}'],
]

/**
 * Reads `text` by a Go time layout (`timestampFormat`, e.g. `2006-01-02 15:04:05`); a time
 * without a zone is UTC. Null when the text does not fit the layout.
 */
export function parseGoTime(text: string, layout: string): Date | null {
  const fields: string[] = []
  let pattern = ''
  for (let index = 0; index < layout.length;) {
    const token = LAYOUT_TOKENS.find(([element]) => layout.startsWith(element, index))
    if (token) {
      fields.push(token[1])
      pattern += `(${token[2]})`
      index += token[0].length
    } else {
      pattern += layout[index]!.replace(/[.*+?^${}()|[\]\\]/g, '\\$&')
      index += 1
    }
  }
  const match = new RegExp(`^${pattern}$`).exec(text.trim())
  if (!match) return null
  const parts = { year: 1970, month: 1, day: 1, hour: 0, minute: 0, second: 0, ms: 0, offsetMin: 0, pm: null as boolean | null }
  fields.forEach((field, position) => {
    const value = match[position + 1] ?? ''
    switch (field) {
      case 'year': parts.year = Number(value); break
      case 'year2': parts.year = 2000 + Number(value); break
      case 'month': parts.month = /^\d+$/.test(value) ? Number(value) : MONTHS.indexOf(value.slice(0, 3).toLowerCase()) + 1; break
      case 'day': parts.day = Number(value.trim()); break
      case 'hour': case 'hour12': parts.hour = Number(value); break
      case 'minute': parts.minute = Number(value); break
      case 'second': parts.second = Number(value); break
      case 'fraction': parts.ms = value ? Math.round(Number(`0${value}`) * 1000) : 0; break
      case 'ampm': parts.pm = value.toLowerCase() === 'pm'; break
      case 'zone': {
        if (value === 'Z') break
        const zone = /^([+-])(\d{2}):?(\d{2})$/.exec(value)
        if (zone) parts.offsetMin = (zone[1] === '-' ? -1 : 1) * (Number(zone[2]) * 60 + Number(zone[3]))
        break
      }
    }
  })
  if (parts.pm !== null) parts.hour = (parts.hour % 12) + (parts.pm ? 12 : 0)
  if (parts.month < 1) return null
  const time = Date.UTC(parts.year, parts.month - 1, parts.day, parts.hour, parts.minute, parts.second, parts.ms) - parts.offsetMin * 60_000
  return Number.isNaN(time) ? null : new Date(time)
}

/** The first createFields/deleteFields path with a value, as a time (the entry's `timestampFormat`, RFC 3339 by default; numbers are Unix seconds or ms). */
function timestampOf(paths: unknown, config: unknown, layout: unknown): string | null {
  if (!Array.isArray(paths)) return null
  for (const path of paths) {
    if (typeof path !== 'string') continue
    const value = isJsonPath(path) ? jsonPathAll(path, config)[0] : undefined
    if (value === undefined || value === null || value === '') continue
    const time = typeof value === 'number'
      ? new Date(value < 1e12 ? value * 1000 : value)
      : typeof layout === 'string' && layout !== ''
        ? parseGoTime(String(value), layout) ?? new Date(Number.NaN)
        : new Date(String(value))
    if (!Number.isNaN(time.getTime())) return time.toISOString()
  }
  return null
}

function analysisList(value: unknown): AnalysisInput[] {
  if (!Array.isArray(value)) return []
  return value.flatMap((item) => {
    const record = asRecord(item)
    const analyzer = record && scalarText(record.analyzer)
    if (!record || !analyzer) return []
    return [{
      analyzer,
      analysis_type: scalarText(record.analysis_type ?? record.type) ?? undefined,
      severity: scalarText(record.severity) ?? undefined,
      summary: scalarText(record.summary) ?? undefined,
      message: scalarText(record.message) ?? undefined,
      status: scalarText(record.status) ?? undefined,
      analysis: record.analysis,
    }]
  })
}

/**
 * One entry's documents to items. Problems with one item (no id, a failing expression) go to
 * `errors` and the rest of the items still count.
 */
export function documentsToItems(entry: Entry, documents: ScrapedDocument[], errors: string[]): ScrapedItem[] {
  const items: ScrapedItem[] = []
  const transform = asRecord(entry.transform) ?? {}
  const changes = asRecord(transform.changes) ?? {}
  const changeRules = {
    mapping: (Array.isArray(changes.mapping) ? changes.mapping : []) as ChangeMapping[],
    exclude: (Array.isArray(changes.exclude) ? changes.exclude : []).filter((rule): rule is string => typeof rule === 'string'),
  }
  for (const document of documents) {
    let configs: unknown[]
    try {
      configs = splitItems(entry, document.config)
    } catch (error) {
      errors.push(`${document.source}: ${(error as Error).message}`)
      continue
    }
    configs.forEach((raw, index) => {
      const where = configs.length > 1 ? `${document.source} [${index}]` : document.source
      try {
        for (const { config: scripted, overrides } of runScript(transform, raw)) {
          items.push(buildItem(entry, document, scripted, overrides, transform, changeRules))
        }
      } catch (error) {
        errors.push(`${where}: ${(error as Error).message}`)
      }
    })
  }
  return items
}

function buildItem(
  entry: Entry,
  document: ScrapedDocument,
  original: unknown,
  overrides: Record<string, unknown>,
  transform: Record<string, unknown>,
  changeRules: ScrapedItem['changeRules'],
): ScrapedItem {
  const defaults = document.defaults ?? {}
  const pick = (field: string, fallback: string | undefined) =>
    scalarText(overrides[field]) ?? fieldValue(entry[field], original) ?? fallback ?? null
  const externalId = pick('id', defaults.id)
  if (!externalId) throw new ScrapeItemError('no id: set the entry\'s id (static or a JSONPath such as $.metadata.uid)')
  const type = pick('type', defaults.type)
  if (!type) throw new ScrapeItemError('no type: set the entry\'s type (static, e.g. App::Service, or a JSONPath)')
  const labels: Record<string, string> = { ...(defaults.labels ?? {}) }
  for (const [key, spec] of Object.entries(asRecord(entry.labels) ?? {})) {
    const value = fieldValue(spec, original)
    if (value !== null) labels[key] = value
  }
  Object.assign(labels, stringRecord(overrides.labels))
  const tags: Record<string, string> = {}
  // The namespace a source knows about surfaces as configs.namespace (tags.namespace).
  if (defaults.labels?.namespace) tags.namespace = defaults.labels.namespace
  for (const tag of Array.isArray(entry.tags) ? entry.tags : []) {
    const record = asRecord(tag)
    if (!record || typeof record.name !== 'string') continue
    const value = typeof record.value === 'string' ? record.value
      : typeof record.label === 'string' ? labels[record.label] ?? null
      : typeof record.jsonpath === 'string' ? scalarText(jsonPathAll(record.jsonpath, original)[0])
      : null
    if (value !== null && value !== undefined) tags[record.name] = value
  }
  Object.assign(tags, stringRecord(overrides.tags))

  // exclude and mask rewrite the stored config, never the document other items may share.
  let config = original
  const excludes = Array.isArray(transform.exclude) ? transform.exclude : []
  const masks = Array.isArray(transform.mask) ? transform.mask : []
  if ((excludes.length > 0 || masks.length > 0) && config !== null && typeof config === 'object') {
    config = structuredClone(config)
    for (const rule of excludes) {
      const record = asRecord(rule)
      if (!record || typeof record.jsonpath !== 'string' || !typeMatches(record.types, type)) continue
      eachMatch(config, record.jsonpath, (parent, key) => {
        if (Array.isArray(parent)) parent.splice(Number(key), 1)
        else delete parent[key as string]
      })
    }
    for (const rule of masks) {
      const record = asRecord(rule)
      if (!record || typeof record.jsonpath !== 'string' || typeof record.value !== 'string') continue
      if (!celTrue(record.selector, { config, type, name: externalId })) continue
      const kind = record.value
      eachMatch(config, record.jsonpath, (parent, key, value) => {
        ;(parent as Record<string | number, unknown>)[key] = maskValue(kind, value)
      })
    }
  }

  const name = pick('name', defaults.name) ?? externalId
  const variables = { config, id: externalId, name, type, labels, tags }
  const aliases: string[] = []
  const locations: string[] = []
  const collect = (rules: unknown, into: string[]) => {
    for (const rule of Array.isArray(rules) ? rules : []) {
      const record = asRecord(rule)
      if (!record || !typeMatches(record.type, type)) continue
      for (const template of Array.isArray(record.values) ? record.values : []) {
        if (typeof template !== 'string') continue
        const value = renderAliasValue(template, variables)
        if (value && !into.includes(value)) into.push(value)
      }
    }
  }
  collect(transform.aliases, aliases)
  collect(transform.locations, locations)
  for (const alias of Array.isArray(overrides.aliases) ? overrides.aliases : []) {
    const text = scalarText(alias)
    if (text && !aliases.includes(text)) aliases.push(text)
  }

  const properties = Array.isArray(overrides.properties) ? overrides.properties : Array.isArray(entry.properties) ? entry.properties : null
  const deletedAt = timestampOf(entry.deleteFields, original, entry.timestampFormat)
  return {
    key: `${type}\u0000${externalId}`,
    externalId,
    aliases: aliases.filter((alias) => alias !== externalId),
    type,
    configClass: pick('class', defaults.class) ?? type,
    name,
    status: pick('status', defaults.status),
    health: pick('health', defaults.health),
    description: pick('description', defaults.description),
    icon: typeof entry.icon === 'string' && entry.icon !== '' ? entry.icon : null,
    labels,
    tags,
    properties,
    config,
    source: document.source,
    createdAt: timestampOf(entry.createFields, original, entry.timestampFormat) ?? defaults.createdAt ?? null,
    deletedAt,
    locations,
    analysis: analysisList(overrides.analysis),
    relationships: relationshipSelectors(transform.relationship, variables, labels),
    changeRules,
  }
}
