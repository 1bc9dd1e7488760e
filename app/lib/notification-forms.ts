import type { CustomService } from '#contract/notifications/notification-rule-row.ts'
import { parseWithZod } from '@conform-to/zod'
import { stringify } from 'yaml'
import { z } from 'zod'
import { formatDuration, parseDurationMs } from '#contract/canary/duration.ts'
import { parseYamlDocuments, YamlInputError } from '#contract/yaml-input.ts'
import { isUuid } from '#contract/uuid.ts'
import { NOTIFICATION_EVENTS, RECIPIENT_KINDS, type RecipientKind } from './notification-vocabulary.ts'
import { resourceNameField, resourceNamespaceField } from './resource-name-fields.ts'

export * from './notification-vocabulary.ts'

/**
 * The notification forms' server side (only actions, loaders and tests import it; pages render
 * from `notification-form-shapes.ts`): the rule editor's schema and the translation between a
 * rule's `Notification` spec (resource-specs §3.1) and its `notifications` row (data-model §8.1),
 * and the silence form's schema with its times (spec 000 §5: "Indefinitely" is `until: null`).
 */

const optionalText = (max: number, label: string) => z.string().trim().max(max, `The ${label} must be at most ${max} characters.`).optional()

export const NotificationRuleFormSchema = z.object({
  intent: z.literal('save'),
  name: resourceNameField,
  namespace: resourceNamespaceField,
  events: z.array(z.string()).optional(),
  title: optionalText(500, 'title'),
  filter: optionalText(4000, 'filter'),
  repeatInterval: optionalText(50, 'repeat interval'),
  recipientKind: z.enum(RECIPIENT_KINDS).optional(),
  recipient: optionalText(2000, 'recipient'),
  spec: z.string().optional(),
})
export type NotificationRuleFormValue = z.infer<typeof NotificationRuleFormSchema>

/** What the editor shows: the Form tab's fields as text, the rest of the spec as YAML. */
export type NotificationRuleFormValues = {
  name: string
  namespace: string
  events: string[]
  title: string
  filter: string
  repeatInterval: string
  recipientKind: RecipientKind | ''
  recipient: string
  spec: string
}

/** One recipient of a rule (`to`, and `fallback` with its `delay`). */
export type RuleRecipient = {
  person?: string
  team?: string
  email?: string
  connection?: string
  url?: string
  playbook?: string
  webhook?: Record<string, unknown>
  properties?: Record<string, unknown>
  delay?: string
}

/** A rule's spec (resource-specs §3.1). */
export type NotificationRuleSpec = {
  events?: string[]
  title?: string
  template?: string
  filter?: string
  to?: RuleRecipient
  fallback?: RuleRecipient
  repeatInterval?: string
  groupBy?: string[]
  groupByInterval?: string
  waitFor?: string
  waitForEvalPeriod?: string
  inhibitions?: unknown[]
}


/** The `notifications` columns the editor reads and writes. */
export type NotificationRuleColumns = {
  name: string
  namespace: string
  events: string[]
  title: string | null
  template: string | null
  filter: string | null
  properties: Record<string, unknown> | null
  playbook_id: string | null
  person_id: string | null
  team_id: string | null
  repeat_interval: string | null
  inhibitions: unknown[] | null
  wait_for: number | string | null
  wait_for_eval_period: number | string | null
  group_by: string[] | null
  group_by_interval: number | string | null
  custom_services: CustomService[] | null
  fallback_delay: number | string | null
  fallback_custom_services: CustomService[] | null
  fallback_playbook_id: string | null
  fallback_person_id: string | null
  fallback_team_id: string | null
}

/** Names of the people, teams and playbooks a stored rule points at, for showing its spec. */
export type RecipientNames = { person: (id: string) => string | undefined; team: (id: string) => string | undefined; playbook: (id: string) => string | undefined }

/** Finds the id a spec's person (id or e-mail), team (name or id) or playbook (name, namespace/name or id) names. */
export type RecipientResolver = { person(ref: string): Promise<string | null>; team(ref: string): Promise<string | null>; playbook(ref: string): Promise<string | null> }

/** A refusal of the rule: its message, the form field it belongs to ('spec' for the Code tab) and the YAML line. */
export class RuleSpecProblem extends Error {
  constructor(
    message: string,
    readonly field: keyof NotificationRuleFormValues | null = 'spec',
    readonly line?: number,
  ) {
    super(message)
    this.name = 'RuleSpecProblem'
  }
}

const NANOS_PER_MS = 1_000_000
const isPlainObject = (value: unknown): value is Record<string, unknown> => typeof value === 'object' && value !== null && !Array.isArray(value)

function nanosToDuration(value: number | string | null | undefined): string | undefined {
  const nanos = Number(value ?? 0)
  return Number.isFinite(nanos) && nanos > 0 ? formatDuration(nanos / NANOS_PER_MS) : undefined
}

function durationToNanos(value: unknown, path: string): number | null {
  if (value === undefined || value === null || value === '') return null
  const ms = parseDurationMs(value)
  if (ms === null) throw new RuleSpecProblem(`${path}: "${String(value)}" is not a duration such as 30s, 5m or 1h`)
  return Math.round(ms * NANOS_PER_MS)
}

const RECIPIENT_KEYS = ['person', 'team', 'email', 'connection', 'url', 'playbook', 'webhook'] as const

/** The recipient a stored row's columns describe: person, team, the first custom service, or the playbook. */
function recipientOf(
  columns: { person_id: string | null; team_id: string | null; playbook_id: string | null; custom_services: CustomService[] | null; properties?: Record<string, unknown> | null },
  names: RecipientNames,
): RuleRecipient | undefined {
  if (columns.person_id) return { person: names.person(columns.person_id) ?? columns.person_id, ...(columns.properties ? { properties: columns.properties } : {}) }
  if (columns.team_id) return { team: names.team(columns.team_id) ?? columns.team_id }
  const service = Array.isArray(columns.custom_services) ? columns.custom_services[0] : undefined
  if (service) {
    const recipient: RuleRecipient = {}
    for (const key of ['email', 'connection', 'url', 'webhook'] as const) if (service[key]) Object.assign(recipient, { [key]: service[key] })
    if (service.properties && Object.keys(service.properties).length > 0) recipient.properties = service.properties
    return recipient
  }
  if (columns.playbook_id) return { playbook: names.playbook(columns.playbook_id) ?? columns.playbook_id }
  return undefined
}

/** A stored rule as its `Notification` spec (the editor's starting point and its YAML). */
export function ruleSpecOf(row: NotificationRuleColumns, names: RecipientNames): NotificationRuleSpec {
  const spec: NotificationRuleSpec = { events: row.events ?? [] }
  if (row.title) spec.title = row.title
  if (row.template) spec.template = row.template
  if (row.filter) spec.filter = row.filter
  const to = recipientOf(row, names)
  if (to) spec.to = to
  if (row.repeat_interval) spec.repeatInterval = row.repeat_interval
  if (row.group_by?.length) spec.groupBy = row.group_by
  const groupByInterval = nanosToDuration(row.group_by_interval)
  if (groupByInterval) spec.groupByInterval = groupByInterval
  const waitFor = nanosToDuration(row.wait_for)
  if (waitFor) spec.waitFor = waitFor
  const waitForEvalPeriod = nanosToDuration(row.wait_for_eval_period)
  if (waitForEvalPeriod) spec.waitForEvalPeriod = waitForEvalPeriod
  if (Array.isArray(row.inhibitions) && row.inhibitions.length > 0) spec.inhibitions = row.inhibitions
  const fallback = recipientOf(
    { person_id: row.fallback_person_id, team_id: row.fallback_team_id, playbook_id: row.fallback_playbook_id, custom_services: row.fallback_custom_services },
    names,
  )
  if (fallback) {
    const delay = nanosToDuration(row.fallback_delay)
    spec.fallback = { ...fallback, ...(delay ? { delay } : {}) }
  }
  return spec
}

/** The Form tab's keys of the spec; everything else is the Code tab's YAML. */
const FORM_KEYS = ['events', 'title', 'filter', 'repeatInterval', 'to'] as const

/** A simple `to` (one scalar recipient without properties) goes to the Form tab; any other stays in the YAML. */
function formRecipient(to: RuleRecipient | undefined): { kind: RecipientKind; value: string } | null {
  if (!to) return null
  const keys = Object.keys(to)
  if (keys.length !== 1) return null
  const kind = keys[0] as RecipientKind
  const value = to[kind]
  return (RECIPIENT_KINDS as readonly string[]).includes(kind) && typeof value === 'string' ? { kind, value } : null
}

const yamlOf = (value: Record<string, unknown>) => (Object.keys(value).length === 0 ? '' : stringify(value, { lineWidth: 0 }))

/** A spec split for the editor: Name, Namespace and the Form tab's fields, the rest as YAML. */
export function ruleFormValues(name: string, namespace: string, spec: NotificationRuleSpec): NotificationRuleFormValues {
  const recipient = formRecipient(spec.to)
  const rest: Record<string, unknown> = {}
  for (const [key, value] of Object.entries(spec)) {
    if (key === 'to' && recipient) continue
    if (key !== 'to' && (FORM_KEYS as readonly string[]).includes(key)) continue
    rest[key] = value
  }
  return {
    name,
    namespace,
    events: spec.events ?? [],
    title: spec.title ?? '',
    filter: spec.filter ?? '',
    repeatInterval: spec.repeatInterval ?? '',
    recipientKind: recipient?.kind ?? '',
    recipient: recipient?.value ?? '',
    spec: yamlOf(rest),
  }
}

/** The Code tab's YAML: a bare spec, or a whole `kind: Notification` document (taken for its spec and metadata). */
function readSpecYaml(text: string): { spec: Record<string, unknown>; metadata: Record<string, unknown> | null } {
  if (!text.trim()) return { spec: {}, metadata: null }
  let documents
  try {
    documents = parseYamlDocuments(text).filter((document) => !document.empty)
  } catch (error) {
    if (!(error instanceof YamlInputError)) throw error
    const problem = error.problems[0]!
    throw new RuleSpecProblem(problem.message.replace(/^invalid/, 'Invalid'), 'spec', problem.line)
  }
  if (documents.length === 0) return { spec: {}, metadata: null }
  if (documents.length > 1) throw new RuleSpecProblem(`Paste one Notification at a time (found ${documents.length} documents).`)
  const value = documents[0]!.value
  if (!isPlainObject(value)) throw new RuleSpecProblem('The spec must be a YAML mapping (key: value pairs).', 'spec', 1)
  if (!('kind' in value || 'apiVersion' in value || 'metadata' in value)) return { spec: value, metadata: null }
  if (value.kind !== 'Notification') throw new RuleSpecProblem(`kind: expected Notification, got ${JSON.stringify(value.kind)}`)
  if (!isPlainObject(value.spec)) throw new RuleSpecProblem('spec: must be a mapping')
  return { spec: value.spec, metadata: isPlainObject(value.metadata) ? value.metadata : null }
}

const SPEC_KEYS = new Set(['events', 'title', 'template', 'filter', 'to', 'fallback', 'repeatInterval', 'groupBy', 'groupByInterval', 'waitFor', 'waitForEvalPeriod', 'inhibitions'])

function checkRecipient(value: unknown, path: string): RuleRecipient {
  if (!isPlainObject(value)) throw new RuleSpecProblem(`${path}: must be a mapping with one of ${RECIPIENT_KEYS.join(', ')}`)
  const named = RECIPIENT_KEYS.filter((key) => value[key] !== undefined && value[key] !== null && value[key] !== '')
  if (named.length !== 1) throw new RuleSpecProblem(`${path}: name exactly one of ${RECIPIENT_KEYS.join(', ')}${named.length ? ` (got ${named.join(', ')})` : ''}`)
  for (const key of named) {
    if (key === 'webhook' ? !isPlainObject(value[key]) : typeof value[key] !== 'string') throw new RuleSpecProblem(`${path}.${key}: must be ${key === 'webhook' ? 'a mapping' : 'text'}`)
  }
  if (value.properties !== undefined && !isPlainObject(value.properties)) throw new RuleSpecProblem(`${path}.properties: must be a mapping`)
  return value as RuleRecipient
}

/**
 * Form answers → the rule's spec: the Form tab's fields with the Code tab's YAML. A field given
 * in both places must agree; given in one, that one counts (so a pasted document keeps its
 * events and recipient).
 */
export function ruleSpecFromForm(value: NotificationRuleFormValue): { name: string; namespace: string; spec: NotificationRuleSpec } {
  const read = readSpecYaml(value.spec ?? '')
  const namespace = value.namespace || 'default'
  const metadata = read.metadata
  if (metadata?.name !== undefined && metadata.name !== value.name) throw new RuleSpecProblem(`metadata.name (${String(metadata.name)}) and the Name field (${value.name}) disagree.`)
  if (metadata?.namespace !== undefined && metadata.namespace !== namespace) throw new RuleSpecProblem(`metadata.namespace (${String(metadata.namespace)}) and the Namespace field (${namespace}) disagree.`)
  const spec: Record<string, unknown> = { ...read.spec }
  const unknown = Object.keys(spec).filter((key) => !SPEC_KEYS.has(key))
  if (unknown.length > 0) throw new RuleSpecProblem(`${unknown[0]}: not a field of a Notification spec (${[...SPEC_KEYS].join(', ')})`)

  const events = value.events?.filter(Boolean) ?? []
  if (events.length > 0) {
    if (Array.isArray(spec.events) && spec.events.length > 0 && [...spec.events].sort().join() !== [...events].sort().join()) {
      throw new RuleSpecProblem('events: the spec and the Events field disagree; keep one.')
    }
    spec.events = events
  }
  if (!Array.isArray(spec.events) || spec.events.length === 0) throw new RuleSpecProblem('Choose at least one event.', 'events')
  const unknownEvent = spec.events.find((event) => typeof event !== 'string' || !NOTIFICATION_EVENTS.includes(event))
  if (unknownEvent !== undefined) throw new RuleSpecProblem(`events: ${JSON.stringify(unknownEvent)} is not an event of the reference`, Array.isArray(read.spec.events) ? 'spec' : 'events')

  for (const [field, key] of [
    ['title', 'title'],
    ['filter', 'filter'],
    ['repeatInterval', 'repeatInterval'],
  ] as const) {
    const typed = value[field] ?? ''
    const written = spec[key]
    if (written !== undefined && typeof written !== 'string') throw new RuleSpecProblem(`${key}: must be text`)
    if (typed && typeof written === 'string' && written.trim() && written.trim() !== typed) throw new RuleSpecProblem(`${key}: the spec and the form disagree; keep one.`)
    if (typed) spec[key] = typed
  }
  if (typeof spec.repeatInterval === 'string' && parseDurationMs(spec.repeatInterval) === null) {
    throw new RuleSpecProblem(`"${spec.repeatInterval}" is not a duration such as 30m or 4h`, value.repeatInterval ? 'repeatInterval' : 'spec')
  }

  const typedRecipient = value.recipientKind && value.recipient ? { [value.recipientKind]: value.recipient } : null
  if (value.recipientKind && !value.recipient) throw new RuleSpecProblem('Enter the recipient.', 'recipient')
  if (typedRecipient && spec.to !== undefined) throw new RuleSpecProblem('to: the recipient is set both in the form and in the spec; keep one.')
  if (typedRecipient) spec.to = typedRecipient
  if (spec.to === undefined) throw new RuleSpecProblem('Choose a recipient.', 'recipientKind')
  spec.to = checkRecipient(spec.to, 'to')
  if (spec.fallback !== undefined) {
    if (!isPlainObject(spec.fallback)) throw new RuleSpecProblem('fallback: must be a mapping')
    const { delay, ...recipient } = spec.fallback
    if (delay !== undefined && typeof delay !== 'string') throw new RuleSpecProblem('fallback.delay: must be a duration such as 5m')
    spec.fallback = { ...checkRecipient(recipient, 'fallback'), ...(delay ? { delay } : {}) }
  }
  if (spec.groupBy !== undefined && !(Array.isArray(spec.groupBy) && spec.groupBy.every((entry) => typeof entry === 'string'))) throw new RuleSpecProblem('groupBy: must be a list of text')
  if (spec.inhibitions !== undefined && !Array.isArray(spec.inhibitions)) throw new RuleSpecProblem('inhibitions: must be a list')
  return { name: value.name, namespace, spec: spec as NotificationRuleSpec }
}

type RecipientColumns = { person_id: string | null; team_id: string | null; playbook_id: string | null; custom_services: CustomService[] | null; properties: Record<string, unknown> | null }

async function recipientColumns(recipient: RuleRecipient | undefined, resolve: RecipientResolver, path: string, field: keyof NotificationRuleFormValues): Promise<RecipientColumns> {
  const columns: RecipientColumns = { person_id: null, team_id: null, playbook_id: null, custom_services: null, properties: null }
  if (!recipient) return columns
  const properties = recipient.properties && Object.keys(recipient.properties).length > 0 ? recipient.properties : undefined
  const lookup = async (kind: 'person' | 'team' | 'playbook', ref: string) => {
    const id = await resolve[kind](ref.trim())
    if (!id) throw new RuleSpecProblem(`${path}.${kind}: no ${kind} ${JSON.stringify(ref)} was found`, field)
    return id
  }
  if (recipient.person) {
    columns.person_id = await lookup('person', recipient.person)
    columns.properties = properties ?? null
  } else if (recipient.team) columns.team_id = await lookup('team', recipient.team)
  else if (recipient.playbook) columns.playbook_id = await lookup('playbook', recipient.playbook)
  else {
    const kind = (['email', 'connection', 'url', 'webhook'] as const).find((key) => recipient[key])!
    columns.custom_services = [{ name: kind, [kind]: recipient[kind], ...(properties ? { properties } : {}) }]
  }
  return columns
}

/** The spec → the row's columns, people, teams and playbooks looked up by the resolver. */
export async function ruleColumnsOf(name: string, namespace: string, spec: NotificationRuleSpec, resolve: RecipientResolver, typedRecipient: boolean): Promise<NotificationRuleColumns> {
  const to = await recipientColumns(spec.to, resolve, 'to', typedRecipient ? 'recipient' : 'spec')
  const fallback = await recipientColumns(spec.fallback, resolve, 'fallback', 'spec')
  return {
    name,
    namespace,
    events: spec.events ?? [],
    title: spec.title || null,
    template: spec.template || null,
    filter: spec.filter || null,
    properties: to.properties,
    playbook_id: to.playbook_id,
    person_id: to.person_id,
    team_id: to.team_id,
    repeat_interval: spec.repeatInterval || null,
    inhibitions: spec.inhibitions?.length ? spec.inhibitions : null,
    wait_for: durationToNanos(spec.waitFor, 'waitFor'),
    wait_for_eval_period: durationToNanos(spec.waitForEvalPeriod, 'waitForEvalPeriod'),
    group_by: spec.groupBy?.length ? spec.groupBy : null,
    group_by_interval: durationToNanos(spec.groupByInterval, 'groupByInterval'),
    custom_services: to.custom_services,
    fallback_delay: spec.fallback ? durationToNanos(spec.fallback.delay, 'fallback.delay') : null,
    fallback_custom_services: fallback.custom_services,
    fallback_playbook_id: fallback.playbook_id,
    fallback_person_id: fallback.person_id,
    fallback_team_id: fallback.team_id,
  }
}

/** A new rule's starting values. */
export const NEW_RULE_VALUES: NotificationRuleFormValues = {
  name: '',
  namespace: 'default',
  events: [],
  title: '',
  filter: '',
  repeatInterval: '',
  recipientKind: '',
  recipient: '',
  spec: '',
}

// ---- Silences ----------------------------------------------------------------------------------

/** `datetime-local` answers, read as UTC (the form says so), or a full timestamp. */
const LOCAL_DATE_TIME = /^\d{4}-\d{2}-\d{2}T\d{2}:\d{2}(:\d{2}(\.\d+)?)?$/

export function parseFormTime(text: string): Date | null {
  const date = new Date(LOCAL_DATE_TIME.test(text) ? `${text}Z` : text)
  return Number.isNaN(date.getTime()) ? null : date
}

/** A time as a `datetime-local` value in UTC (minutes). */
export function formTimeOf(value: string | Date | null | undefined): string {
  if (!value) return ''
  const date = value instanceof Date ? value : new Date(value)
  return Number.isNaN(date.getTime()) ? '' : date.toISOString().slice(0, 16)
}

const RESOURCE_VALUE = /^(config|check|component|canary):([0-9a-fA-F-]{36})$/

export const SilenceFormSchema = z
  .object({
    intent: z.enum(['save', 'preview']),
    resource: z.string().trim().max(60).optional(),
    description: optionalText(1000, 'description'),
    from: z.string().trim().optional(),
    until: z.string().trim().optional(),
    indefinitely: z.boolean().optional(),
    recursive: z.boolean().optional(),
    filter: optionalText(4000, 'filter'),
  })
  .superRefine((value, ctx) => {
    if (value.resource && !(RESOURCE_VALUE.test(value.resource) && isUuid(value.resource.split(':')[1]!))) {
      ctx.addIssue({ code: z.ZodIssueCode.custom, path: ['resource'], message: 'Choose a resource from the list.' })
    }
    const from = value.from ? parseFormTime(value.from) : null
    if (value.from && !from) ctx.addIssue({ code: z.ZodIssueCode.custom, path: ['from'], message: 'Enter a date and time.' })
    if (value.intent === 'preview') return
    if (!value.indefinitely) {
      const until = value.until ? parseFormTime(value.until) : null
      if (!value.until) ctx.addIssue({ code: z.ZodIssueCode.custom, path: ['until'], message: 'Enter when the silence ends, or choose Indefinitely.' })
      else if (!until) ctx.addIssue({ code: z.ZodIssueCode.custom, path: ['until'], message: 'Enter a date and time.' })
      else if (until.getTime() < (from ?? new Date()).getTime()) ctx.addIssue({ code: z.ZodIssueCode.custom, path: ['until'], message: 'Until must be after From.' })
    }
    if (!value.resource && !value.filter) ctx.addIssue({ code: z.ZodIssueCode.custom, path: ['resource'], message: 'Choose a resource or write a filter.' })
  })
export type SilenceFormValue = z.infer<typeof SilenceFormSchema>

export type SilenceResourceKey = 'config_id' | 'check_id' | 'component_id' | 'canary_id'

/** The resource select's value (`config:<id>`) as the API's column. */
export function silenceResourceOf(value: string | undefined): { key: SilenceResourceKey; id: string } | null {
  const match = value ? RESOURCE_VALUE.exec(value) : null
  return match ? { key: `${match[1] as 'config' | 'check' | 'component' | 'canary'}_id`, id: match[2]!.toLowerCase() } : null
}

/** The silence the form describes, as `POST /notification/silence` and the PATCH take it (until null = indefinitely). */
export function silenceBodyOf(value: SilenceFormValue): {
  description: string | null
  from: string | null
  until: string | null
  recursive: boolean
  filter: string | null
  config_id: string | null
  check_id: string | null
  component_id: string | null
  canary_id: string | null
} {
  const resource = silenceResourceOf(value.resource)
  const from = value.from ? parseFormTime(value.from) : null
  const until = !value.indefinitely && value.until ? parseFormTime(value.until) : null
  return {
    description: value.description || null,
    from: from ? from.toISOString() : null,
    until: until ? until.toISOString() : null,
    recursive: value.recursive === true,
    filter: value.filter || null,
    config_id: resource?.key === 'config_id' ? resource.id : null,
    check_id: resource?.key === 'check_id' ? resource.id : null,
    component_id: resource?.key === 'component_id' ? resource.id : null,
    canary_id: resource?.key === 'canary_id' ? resource.id : null,
  }
}

/** Which field an API refusal of a silence belongs to (http-api §2.3.2 messages). */
export function silenceRefusalField(message: string): 'filter' | 'until' | 'from' | 'resource' | null {
  if (/^invalid filter/i.test(message)) return 'filter'
  if (/`from`.*`until`|until/i.test(message)) return 'until'
  if (/\bfrom\b/i.test(message)) return 'from'
  if (/config_id|check_id|component_id|canary_id/.test(message)) return 'resource'
  return null
}

/** Why the API refused a silence: its message, put on the field it is about. */
export class SilenceRefusal extends Error {
  constructor(
    message: string,
    readonly status: number,
  ) {
    super(message)
    this.name = 'SilenceRefusal'
  }
}

export type SilenceHandlers<Preview> = {
  save(body: ReturnType<typeof silenceBodyOf>): Promise<void>
  preview(body: ReturnType<typeof silenceBodyOf>): Promise<Preview>
}

/**
 * Parses a silence form's post: `intent=preview` hands the target to `preview` and returns its
 * result with the submission (so the page keeps its answers); `intent=save` hands the silence
 * to `save`, whose `SilenceRefusal` becomes an issue on the field it names (or the form).
 */
export async function submitSilenceForm<Preview>(formData: FormData, handlers: SilenceHandlers<Preview>) {
  let status = 400
  let preview: Preview | null = null
  const submission = await parseWithZod(formData, {
    async: true,
    schema: SilenceFormSchema.transform(async (value, ctx) => {
      const body = silenceBodyOf(value)
      if (value.intent === 'preview') {
        preview = await handlers.preview(body)
        return value
      }
      try {
        await handlers.save(body)
        return value
      } catch (error) {
        if (!(error instanceof SilenceRefusal)) throw error
        status = error.status
        const field = silenceRefusalField(error.message)
        ctx.addIssue({ code: z.ZodIssueCode.custom, path: field ? [field] : [], message: error.message })
        return z.NEVER
      }
    }),
  })
  return { submission, status, preview: preview as Preview | null }
}
