import { stringify } from 'yaml'
import { z } from 'zod'
import { parseScrapeConfigObject, ScrapeConfigValidationError } from '#contract/catalog/scrape-config-document.ts'
import { COMMON_SCRAPER_FIELDS, DEFAULT_SCRAPER_SCHEDULE, type ScraperField, type ScraperTypeForm } from './scraper-type-fields.ts'

/**
 * How a scraper type form's answers become a ScrapeConfig (YAML for the Code tab, the document
 * for a save) and the schema its post is parsed with. Actions and tests import this module; the
 * page renders from `scraper-type-fields.ts` (decision 016).
 */

export type ScraperFormValues = Record<string, string>
export type ScraperFormErrors = Record<string, string>

export const SCRAPER_FORM_INTENTS = ['create-from-form', 'form-to-code'] as const
export type ScraperFormIntent = (typeof SCRAPER_FORM_INTENTS)[number]

export function isScraperFormIntent(value: unknown): value is ScraperFormIntent {
  return (SCRAPER_FORM_INTENTS as readonly unknown[]).includes(value)
}

/** An answer as the ScrapeConfig wants it, and why a save would refuse it. */
function readAnswer(field: ScraperField, raw: string): { value: unknown; error?: string } {
  const text = raw.trim()
  if (!text) return { value: undefined, error: field.required ? `${field.label} is required.` : undefined }
  if (field.kind === 'list') return { value: text.split(',').map((item) => item.trim()).filter(Boolean) }
  if (field.kind === 'number') {
    const number = Number(text)
    return Number.isFinite(number) && number >= 0 ? { value: number } : { value: text, error: `${field.label} must be a number of 0 or more.` }
  }
  if (field.kind === 'select' && field.options && !field.options.includes(text)) return { value: text, error: `${field.label} must be one of ${field.options.join(', ')}.` }
  return { value: field.kind === 'textarea' ? raw.replace(/\s+$/, '') : text }
}

/** Sets `a.b.c` inside an object, making the objects on the way. */
function assignPath(target: Record<string, unknown>, path: string, value: unknown): void {
  const keys = path.split('.')
  const last = keys.pop()!
  const parent = keys.reduce<Record<string, unknown>>((node, key) => {
    if (typeof node[key] !== 'object' || node[key] === null) node[key] = {}
    return node[key] as Record<string, unknown>
  }, target)
  parent[last] = value
}

/** The ScrapeConfig the answers describe, every answer in its best reading, with the refusals. */
function readScrapeConfig(form: ScraperTypeForm, values: ScraperFormValues, withPlaceholders: boolean) {
  const errors: ScraperFormErrors = {}
  const entry: Record<string, unknown> = {}
  for (const field of form.fields) {
    const answer = readAnswer(field, values[field.name] ?? '')
    if (answer.error) errors[field.name] = answer.error
    if (answer.value !== undefined) assignPath(entry, field.name, answer.value)
    else if (withPlaceholders && field.required) assignPath(entry, field.name, field.placeholder ?? '')
  }
  for (const field of COMMON_SCRAPER_FIELDS) {
    const issue = readAnswer(field, values[field.name] ?? '').error
    if (issue) errors[field.name] = issue
  }
  const text = (name: string) => (values[name] ?? '').trim()
  const document = {
    apiVersion: 'configs.flanksource.com/v1',
    kind: 'ScrapeConfig',
    metadata: { name: text('configName'), namespace: text('configNamespace') || 'default' },
    spec: { schedule: text('schedule') || DEFAULT_SCRAPER_SCHEDULE, [form.type]: [entry] },
  }
  return { document, errors }
}

/** The ScrapeConfig a type form describes, or the fields at fault (the API's own validation still runs on save). */
export function scrapeConfigFromForm(form: ScraperTypeForm, values: ScraperFormValues): { ok: true; document: Record<string, unknown> } | { ok: false; errors: ScraperFormErrors } {
  const { document, errors } = readScrapeConfig(form, values, false)
  return Object.keys(errors).length > 0 ? { ok: false, errors } : { ok: true, document }
}

/** The YAML the Code tab starts from: the answers, with the type's examples in required fields left empty. */
export function scrapeConfigYamlFromForm(form: ScraperTypeForm | undefined, values: ScraperFormValues): string {
  if (!form) {
    const name = (values.configName ?? '').trim()
    const namespace = (values.configNamespace ?? '').trim() || 'default'
    return stringify({ apiVersion: 'configs.flanksource.com/v1', kind: 'ScrapeConfig', metadata: { name, namespace }, spec: { schedule: DEFAULT_SCRAPER_SCHEDULE } }, { lineWidth: 0 })
  }
  return stringify(readScrapeConfig(form, values, true).document, { lineWidth: 0 })
}

/**
 * The form field an API refusal is about, from the path its message names:
 * `spec.sql[0].query` → `query`, `spec.kubernetes[0].kubeconfig.value` → `kubeconfig.value`,
 * `spec.schedule` → `schedule`, `metadata.name` → `configName`.
 */
export function scraperFieldOfPath(form: ScraperTypeForm, path: string): string | null {
  if (path === 'metadata.name') return 'configName'
  if (path === 'metadata.namespace') return 'configNamespace'
  if (path === 'spec.schedule') return 'schedule'
  const prefix = `spec.${form.type}[0].`
  if (!path.startsWith(prefix)) return null
  const rest = path.slice(prefix.length).replace(/\[\d+\].*$/, '')
  const field = form.fields.find((candidate) => rest === candidate.name || rest.startsWith(`${candidate.name}.`) || candidate.name.startsWith(`${rest}.`))
  return field?.name ?? null
}

/** Reads the `spec.x[0].y` path at the head of an API message (`spec.sql[0].query: is required`). */
export function pathOfMessage(message: string): string | null {
  const match = /^((?:spec|metadata)(?:\.[A-Za-z_][\w]*(?:\[\d+\])?)+)\s*:/.exec(message)
  return match ? match[1]! : null
}

/**
 * A type form's ScrapeConfig checked with the schema the data API applies to every write, so a
 * problem shows on its field rather than as a path in a YAML the user never wrote.
 */
export function scraperFormIssues(form: ScraperTypeForm, document: Record<string, unknown>): { errors: ScraperFormErrors; rest: string[] } {
  const errors: ScraperFormErrors = {}
  const rest: string[] = []
  try {
    parseScrapeConfigObject(document)
  } catch (error) {
    if (!(error instanceof ScrapeConfigValidationError)) throw error
    for (const issue of error.issues) {
      const field = scraperFieldOfPath(form, issue.path)
      if (field && !errors[field]) errors[field] = issue.message
      else if (!field) rest.push(issue.path ? `${issue.path}: ${issue.message}` : issue.message)
    }
  }
  return { errors, rest }
}

/** The posted answers (dotted fields arrive nested, as conform reads names). */
function answersShape(fields: readonly ScraperField[]): z.ZodRawShape {
  const groups = new Map<string, ScraperField[]>()
  const shape: Record<string, z.ZodTypeAny> = {}
  for (const field of fields) {
    const dot = field.name.indexOf('.')
    if (dot < 0) {
      shape[field.name] = z.string().max(10_000).optional()
      continue
    }
    const head = field.name.slice(0, dot)
    groups.set(head, [...(groups.get(head) ?? []), { ...field, name: field.name.slice(dot + 1) }])
  }
  for (const [head, inner] of groups) shape[head] = z.object(answersShape(inner)).optional()
  return shape
}

/** The parsed answers as one string per field name (`selector.kind`). */
export function flattenScraperAnswers(value: Record<string, unknown>, prefix = ''): ScraperFormValues {
  return Object.entries(value).reduce<ScraperFormValues>((values, [key, entry]) => {
    if (!prefix && (key === 'intent' || key === 'scraperType')) return values
    if (typeof entry === 'string') values[`${prefix}${key}`] = entry
    else if (entry && typeof entry === 'object' && !Array.isArray(entry)) Object.assign(values, flattenScraperAnswers(entry as Record<string, unknown>, `${prefix}${key}.`))
    return values
  }, {})
}

/**
 * One type form's schema: Create checks every answer (required fields, numbers, choices) with the
 * builder's messages; 'Edit as YAML' takes the answers as they are.
 */
export function scraperTypeFormSchema(form: ScraperTypeForm) {
  const fields = [...COMMON_SCRAPER_FIELDS, ...form.fields]
  return z
    .object({ intent: z.enum(SCRAPER_FORM_INTENTS).default('create-from-form'), scraperType: z.literal(form.type), ...answersShape(fields) })
    .superRefine((value, ctx) => {
      if (value.intent !== 'create-from-form') return
      const built = scrapeConfigFromForm(form, flattenScraperAnswers(value))
      if (built.ok) return
      for (const [field, message] of Object.entries(built.errors)) ctx.addIssue({ code: z.ZodIssueCode.custom, path: field.split('.'), message })
    })
}
