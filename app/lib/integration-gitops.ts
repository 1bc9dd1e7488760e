import { stringify } from 'yaml'
import { z } from 'zod'
import awsSchema from '#contract/integrations/schemas/aws.json'
import azureSchema from '#contract/integrations/schemas/azure.json'
import fluxSchema from '#contract/integrations/schemas/flux.json'
import kubernetesSchema from '#contract/integrations/schemas/kubernetes.json'
import missionControlSchema from '#contract/integrations/schemas/mission-control.json'
import prometheusSchema from '#contract/integrations/schemas/prometheus.json'
import { GITOPS_CHART_IDS, gitopsChoice, HELM_REPOSITORY, NAMESPACE_PATTERN, VALUE_PREFIX, type GitopsChartId, type ValueField } from './integration-vocabulary.ts'

/*
 * Loader/action-only: the GitOps forms of the Add Integration modal (spec 001 §2). Each chart's
 * values form is driven by a JSON schema shipped in contract/integrations/schemas (the spec's
 * charts come from a public registry, which is not reachable at run time). The form is derived
 * from the schema on the server, the submitted values are checked with a zod schema built from
 * the same JSON schema, and the Flux manifests and Helm commands are generated from what passed.
 */

/** The subset of JSON Schema the shipped chart schemas use; a schema outside it fails to load. */
export type JsonSchema = {
  type: 'object' | 'string' | 'number' | 'integer' | 'boolean' | 'array'
  title?: string
  description?: string
  default?: unknown
  enum?: string[]
  properties?: Record<string, JsonSchema>
  required?: string[]
  additionalProperties?: boolean
  items?: JsonSchema
  minimum?: number
  maximum?: number
  minLength?: number
  maxLength?: number
  pattern?: string
}

const JsonSchemaShape: z.ZodType<JsonSchema> = z.lazy(() =>
  z
    .object({
      type: z.enum(['object', 'string', 'number', 'integer', 'boolean', 'array']),
      title: z.string().optional(),
      description: z.string().optional(),
      default: z.unknown().optional(),
      enum: z.array(z.string()).min(1).optional(),
      properties: z.record(JsonSchemaShape).optional(),
      required: z.array(z.string()).optional(),
      additionalProperties: z.boolean().optional(),
      items: JsonSchemaShape.optional(),
      minimum: z.number().optional(),
      maximum: z.number().optional(),
      minLength: z.number().int().min(0).optional(),
      maxLength: z.number().int().min(0).optional(),
      pattern: z.string().optional(),
    })
    // `$schema`, `$comment` and other annotations are allowed and ignored.
    .passthrough(),
)

const SCHEMA_FILES: Record<GitopsChartId, unknown> = {
  aws: awsSchema,
  azure: azureSchema,
  prometheus: prometheusSchema,
  flux: fluxSchema,
  kubernetes: kubernetesSchema,
  'mission-control': missionControlSchema,
}

const loaded = new Map<GitopsChartId, JsonSchema>()

/** The values schema of one chart, checked against the supported subset on first use. */
export function chartSchema(id: GitopsChartId): JsonSchema {
  let schema = loaded.get(id)
  if (!schema) {
    schema = JsonSchemaShape.parse(SCHEMA_FILES[id])
    if (schema.type !== 'object') throw new Error(`The values schema of ${id} must describe an object`)
    loaded.set(id, schema)
  }
  return schema
}

function labelOf(key: string, schema: JsonSchema): string {
  return schema.title ?? key
}

function defaultText(schema: JsonSchema): string {
  if (schema.default === undefined || schema.default === null) return ''
  if (Array.isArray(schema.default)) return schema.default.map(String).join(', ')
  return String(schema.default)
}

/** The form's inputs, in the schema's order, nested objects as groups. */
export function valueFields(schema: JsonSchema, parent = ''): ValueField[] {
  const required = new Set(schema.required ?? [])
  return Object.entries(schema.properties ?? {}).map(([key, property]): ValueField => {
    const path = parent ? `${parent}.${key}` : key
    const base = { path, label: labelOf(key, property), description: property.description ?? null }
    if (property.type === 'object') return { ...base, kind: 'object', required: required.has(key), fields: valueFields(property, path) }
    if (property.type === 'boolean') return { ...base, kind: 'boolean', required: false, defaultValue: property.default === true }
    if (property.enum) return { ...base, kind: 'enum', required: required.has(key), defaultValue: defaultText(property), options: property.enum }
    const kind = property.type === 'array' ? 'list' : property.type
    return {
      ...base,
      kind,
      required: required.has(key),
      defaultValue: defaultText(property),
      ...(property.minimum !== undefined ? { min: property.minimum } : {}),
      ...(property.maximum !== undefined ? { max: property.maximum } : {}),
      ...(property.pattern && kind === 'string' ? { pattern: property.pattern } : {}),
      ...(property.maxLength !== undefined ? { maxLength: property.maxLength } : {}),
    }
  })
}

type FormReader = { getAll(name: string): Array<FormDataEntryValue> }

/**
 * The submitted values as JSON values: an empty input is no value, a number input a number (or
 * the text, for the validator to refuse), a checkbox the last of its hidden `false` and checked
 * `true`, a list input comma or line separated. Objects without any value are left out.
 */
export function readValues(form: FormReader, schema: JsonSchema, parent = ''): Record<string, unknown> | undefined {
  const out: Record<string, unknown> = {}
  for (const [key, property] of Object.entries(schema.properties ?? {})) {
    const path = parent ? `${parent}.${key}` : key
    const value = readValue(form, property, path)
    if (value !== undefined) out[key] = value
  }
  return Object.keys(out).length > 0 ? out : undefined
}

function readValue(form: FormReader, schema: JsonSchema, path: string): unknown {
  if (schema.type === 'object') return readValues(form, schema, path)
  const entries = form.getAll(`${VALUE_PREFIX}${path}`).filter((entry): entry is string => typeof entry === 'string')
  const last = entries.at(-1)
  if (last === undefined) return undefined
  if (schema.type === 'boolean') return last === 'true'
  const text = last.trim()
  if (schema.type === 'array') {
    const items = text
      .split(/[,\n]/)
      .map((item) => item.trim())
      .filter(Boolean)
    return items.length > 0 ? items : undefined
  }
  if (text === '') return undefined
  if (schema.type === 'number' || schema.type === 'integer') {
    const number = Number(text)
    return Number.isFinite(number) ? number : text
  }
  return text
}

function scalarValidator(schema: JsonSchema): z.ZodTypeAny {
  switch (schema.type) {
    case 'boolean':
      return z.boolean({ invalid_type_error: 'Must be true or false' })
    case 'number':
    case 'integer': {
      let number = z.number({ invalid_type_error: 'Must be a number' })
      if (schema.type === 'integer') number = number.int('Must be a whole number')
      if (schema.minimum !== undefined) number = number.min(schema.minimum, `Must be at least ${schema.minimum}`)
      if (schema.maximum !== undefined) number = number.max(schema.maximum, `Must be at most ${schema.maximum}`)
      return number
    }
    case 'array':
      return z.array(schema.items ? scalarValidator(schema.items) : z.unknown())
    case 'object':
      return objectValidator(schema)
    case 'string': {
      if (schema.enum) {
        const [first, ...rest] = schema.enum
        return z.enum([first!, ...rest], { errorMap: () => ({ message: `Must be one of ${schema.enum!.join(', ')}` }) })
      }
      let text = z.string({ invalid_type_error: 'Must be text' })
      if (schema.minLength !== undefined) text = text.min(schema.minLength, schema.minLength === 1 ? 'Required' : `Must be at least ${schema.minLength} characters`)
      if (schema.maxLength !== undefined) text = text.max(schema.maxLength, `Must be at most ${schema.maxLength} characters`)
      if (schema.pattern) text = text.regex(new RegExp(schema.pattern, 'u'), `Must match ${schema.pattern}`)
      return text
    }
  }
}

function objectValidator(schema: JsonSchema): z.ZodTypeAny {
  const required = new Set(schema.required ?? [])
  const shape: Record<string, z.ZodTypeAny> = {}
  for (const [key, property] of Object.entries(schema.properties ?? {})) {
    const validator = scalarValidator(property)
    shape[key] = required.has(key) ? validator : validator.optional()
  }
  const object = z.object(shape, { errorMap: (issue, ctx) => (issue.code === 'invalid_type' && issue.received === 'undefined' ? { message: 'Required' } : { message: ctx.defaultError }) })
  return schema.additionalProperties === false ? object.strict() : object.passthrough()
}

/** The zod schema of a chart's values, built from its JSON schema. */
export function valuesValidator(schema: JsonSchema): z.ZodTypeAny {
  return objectValidator(schema)
}

export type ValuesCheck = { ok: true; values: Record<string, unknown> } | { ok: false; errors: Record<string, string[]> }

/** Checks values against the chart's schema; errors come back under the field's dotted path (list items under the list). */
export function checkValues(schema: JsonSchema, values: Record<string, unknown> | undefined): ValuesCheck {
  const parsed = valuesValidator(schema).safeParse(values ?? {})
  if (parsed.success) return { ok: true, values: parsed.data as Record<string, unknown> }
  const errors: Record<string, string[]> = {}
  for (const issue of parsed.error.issues) {
    const keys = issue.code === 'unrecognized_keys' ? issue.keys.map((key) => [...issue.path, key]) : [issue.path]
    for (const path of keys) {
      const field = path.filter((part) => typeof part === 'string').join('.') || ''
      const message = issue.code === 'unrecognized_keys' ? 'Not a value of this chart' : issue.message
      errors[field] = [...(errors[field] ?? []), message]
    }
  }
  return { ok: false, errors }
}

const NAMESPACE_RE = new RegExp(NAMESPACE_PATTERN)

/** A Kubernetes namespace name (DNS label); one message per problem, 'Required' alone when empty. */
const NamespaceSchema = z
  .string()
  .trim()
  .superRefine((value, ctx) => {
    const problem = !value
      ? 'Required'
      : value.length > 63
        ? 'Must be at most 63 characters'
        : NAMESPACE_RE.test(value)
          ? null
          : 'Must be lower case letters, digits and dashes, starting and ending with a letter or digit'
    if (problem) ctx.addIssue({ code: z.ZodIssueCode.custom, message: problem })
  })

const GenerateRequestSchema = z.object({ intent: z.literal('generate'), chart: z.enum(GITOPS_CHART_IDS) })

/** Which form was posted: the Generate intent and a known chart. */
export function readGenerateRequest(form: { get(name: string): FormDataEntryValue | null }) {
  return GenerateRequestSchema.safeParse({ intent: form.get('intent'), chart: form.get('chart') })
}

export type GitopsAnswer = { ok: true; namespace: string; values: Record<string, unknown>; manifests: string; commands: string } | { ok: false; errors: Record<string, string[]> }

/** The whole GitOps form: namespace and values checked, then the manifests and commands generated. */
export function generateGitops(id: GitopsChartId, form: FormReader): GitopsAnswer {
  const schema = chartSchema(id)
  const namespace = NamespaceSchema.safeParse(form.getAll('namespace').at(-1) ?? '')
  const values = checkValues(schema, readValues(form, schema))
  const errors: Record<string, string[]> = values.ok ? {} : { ...values.errors }
  if (!namespace.success) errors.namespace = namespace.error.issues.map((issue) => issue.message)
  if (!namespace.success || !values.ok) return { ok: false, errors }
  const chart = gitopsChoice(id).chart
  const overrides = valueOverrides(schema, values.values) ?? {}
  return {
    ok: true,
    namespace: namespace.data,
    values: overrides,
    manifests: fluxManifests({ chart, namespace: namespace.data, values: overrides }),
    commands: helmCommands({ chart, namespace: namespace.data, values: overrides }),
  }
}

function sameValue(a: unknown, b: unknown): boolean {
  return JSON.stringify(a) === JSON.stringify(b)
}

/**
 * What the release must set: values that differ from the chart's defaults, plus required ones.
 * Helm merges them over the chart's own values, so repeating a default only adds noise.
 */
export function valueOverrides(schema: JsonSchema, values: Record<string, unknown>): Record<string, unknown> | undefined {
  const required = new Set(schema.required ?? [])
  const out: Record<string, unknown> = {}
  for (const [key, value] of Object.entries(values)) {
    const property = schema.properties?.[key]
    if (value === undefined || !property) continue
    if (property.type === 'object' && value && typeof value === 'object' && !Array.isArray(value)) {
      const nested = valueOverrides(property, value as Record<string, unknown>)
      if (nested) out[key] = nested
    } else if (required.has(key) || !sameValue(value, property.default ?? (property.type === 'string' ? '' : undefined))) {
      out[key] = value
    }
  }
  return Object.keys(out).length > 0 ? out : undefined
}

type Release = { chart: string; namespace: string; values: Record<string, unknown> }

/** A Namespace, the flanksource HelmRepository and the chart's HelmRelease (Flux v2 GA APIs). */
export function fluxManifests({ chart, namespace, values }: Release): string {
  const documents = [
    { apiVersion: 'v1', kind: 'Namespace', metadata: { name: namespace } },
    {
      apiVersion: 'source.toolkit.fluxcd.io/v1',
      kind: 'HelmRepository',
      metadata: { name: HELM_REPOSITORY.name, namespace },
      spec: { interval: '1h', url: HELM_REPOSITORY.url },
    },
    {
      apiVersion: 'helm.toolkit.fluxcd.io/v2',
      kind: 'HelmRelease',
      metadata: { name: chart, namespace },
      spec: {
        interval: '10m',
        chart: { spec: { chart, sourceRef: { kind: 'HelmRepository', name: HELM_REPOSITORY.name, namespace } } },
        ...(Object.keys(values).length > 0 ? { values } : {}),
      },
    },
  ]
  return documents.map((document) => stringify(document, { lineWidth: 0 })).join('---\n')
}

/** `--set` flags: one per leaf, dotted paths; Helm's own separators escaped in keys and values. */
export function setFlags(values: Record<string, unknown>, parent = ''): string[] {
  const flags: string[] = []
  for (const [key, value] of Object.entries(values)) {
    const path = `${parent}${key.replaceAll('\\', '\\\\').replaceAll('.', '\\.')}`
    if (value && typeof value === 'object' && !Array.isArray(value)) {
      flags.push(...setFlags(value as Record<string, unknown>, `${path}.`))
      continue
    }
    if (Array.isArray(value)) {
      flags.push(`--set`, `${path}={${value.map((item) => escapeSetValue(String(item))).join(',')}}`)
      continue
    }
    // --set reads "true", "42" or "null" as a bool, number or null: a string that looks like one keeps its type with --set-string.
    const text = String(value)
    const asString = typeof value === 'string' && /^(true|false|null|~|[-+]?(\d+\.?\d*|\.\d+)([eE][-+]?\d+)?)$/i.test(text)
    flags.push(asString ? '--set-string' : '--set', `${path}=${escapeSetValue(text)}`)
  }
  return flags
}

function escapeSetValue(text: string): string {
  return text.replaceAll('\\', '\\\\').replaceAll(',', '\\,')
}

/** Quotes a shell word only when it needs it, in single quotes (which keep everything literal). */
export function shellQuote(word: string): string {
  if (/^[A-Za-z0-9_./:=@%+-]+$/.test(word)) return word
  return `'${word.replaceAll("'", `'"'"'`)}'`
}

/** The Helm CLI install: add and update the repository, then install into the namespace, creating it. */
export function helmCommands({ chart, namespace, values }: Release): string {
  const flags = setFlags(values)
  const install = [`helm install ${shellQuote(chart)} ${shellQuote(`${HELM_REPOSITORY.name}/${chart}`)}`, `-n ${shellQuote(namespace)}`, '--create-namespace']
  for (let index = 0; index < flags.length; index += 2) install.push(`${flags[index]} ${shellQuote(flags[index + 1]!)}`)
  return [`helm repo add ${HELM_REPOSITORY.name} ${HELM_REPOSITORY.url}`, 'helm repo update', install.join(' \\\n  ')].join('\n')
}
