import { stringify } from 'yaml'
import { z } from 'zod'
import { COMMON_CHECK_FIELDS, DEFAULT_SCHEDULE, type CheckField, type CheckFormErrors, type CheckFormValues, type CheckTypeForm } from './canary-check-fields.ts'

export * from './canary-check-fields.ts'

/**
 * How a health check type form's answers become a Canary document (YAML for the Code tab) and
 * the schema its post is parsed with. Actions and tests import this module; pages render from
 * `canary-check-fields.ts` (re-exported here), which has neither zod nor the YAML library
 * (decision 016).
 */

function setPath(target: Record<string, unknown>, path: string, value: unknown): void {
  const parts = path.split('.')
  let node = target
  for (const part of parts.slice(0, -1)) {
    if (typeof node[part] !== 'object' || node[part] === null) node[part] = {}
    node = node[part] as Record<string, unknown>
  }
  node[parts.at(-1)!] = value
}

function listOf(text: string): string[] {
  return text.split(',').map((item) => item.trim()).filter(Boolean)
}

/**
 * One answer as the check's field wants it. `value` is always the best reading (the text where
 * it is not a number), so the Code tab can show what was typed; `error` says why a save refuses it.
 */
function readField(field: CheckField, raw: string): { value: unknown; error?: string } {
  if (field.kind === 'number') {
    const number = Number(raw)
    return Number.isFinite(number) && number >= 0 ? { value: number } : { value: raw, error: `${field.label} must be a number of 0 or more.` }
  }
  if (field.kind === 'number-list') {
    const items = listOf(raw).map((item) => (Number.isInteger(Number(item)) ? Number(item) : item))
    return items.every((item) => typeof item === 'number') ? { value: items } : { value: items, error: `${field.label} must be whole numbers separated by commas.` }
  }
  if (field.kind === 'list') return { value: listOf(raw) }
  if (field.kind === 'select' && field.options && !field.options.includes(raw)) return { value: raw, error: `${field.label} must be one of ${field.options.join(', ')}.` }
  return { value: raw }
}

/** Why an answer (as typed) is refused, or undefined. */
function fieldIssue(field: CheckField, raw: string | undefined): string | undefined {
  const text = (raw ?? '').trim()
  if (!text) return field.required ? `${field.label} is required.` : undefined
  return readField(field, text).error
}

/** The canary a type form describes, every answer in its best reading, with the refusals. */
function readCanary(form: CheckTypeForm, values: CheckFormValues, fallbackCheckName: string) {
  const text = (name: string) => (values[name] ?? '').trim()
  const errors: CheckFormErrors = {}
  const check: Record<string, unknown> = { name: text('checkName') || text('name') || fallbackCheckName }
  for (const field of form.fields) {
    const raw = text(field.name)
    const issue = fieldIssue(field, raw)
    if (issue) errors[field.name] = issue
    if (raw) setPath(check, field.name, readField(field, raw).value)
  }
  const document = {
    apiVersion: 'canaries.flanksource.com/v1',
    kind: 'Canary',
    metadata: { name: text('name'), namespace: text('namespace') || 'default' },
    spec: { schedule: text('schedule') || DEFAULT_SCHEDULE, [form.type]: [check] },
  }
  return { document, check, errors }
}

/**
 * The Canary document a type form describes, or the fields at fault. Only shape is judged here
 * (numbers are numbers, required fields are filled); the canary validation the API applies to
 * every write still runs when it is saved.
 */
export function canaryFromForm(form: CheckTypeForm, values: CheckFormValues): { ok: true; document: Record<string, unknown> } | { ok: false; errors: CheckFormErrors } {
  const { document, errors } = readCanary(form, values, '')
  const nameIssue = fieldIssue(COMMON_CHECK_FIELDS[0]!, values.name)
  if (nameIssue) errors.name = nameIssue
  return Object.keys(errors).length > 0 ? { ok: false, errors } : { ok: true, document }
}

/** The YAML the Code tab starts from: the form's answers, with the type's placeholders for required fields left empty. */
export function canaryYamlFromForm(form: CheckTypeForm | undefined, values: CheckFormValues): string {
  if (!form) {
    const name = (values.name ?? '').trim()
    const namespace = (values.namespace ?? '').trim() || 'default'
    const schedule = (values.schedule ?? '').trim() || DEFAULT_SCHEDULE
    return stringify({ apiVersion: 'canaries.flanksource.com/v1', kind: 'Canary', metadata: { name, namespace }, spec: { schedule } }, { lineWidth: 0 })
  }
  const { document, check } = readCanary(form, values, `${form.type}-check`)
  for (const field of form.fields) {
    if (field.required && !(values[field.name] ?? '').trim()) setPath(check, field.name, field.placeholder ?? '')
  }
  return stringify(document, { lineWidth: 0 })
}

/**
 * The form field a validation path points at: `spec.http[0].url` → `url`,
 * `spec.http[0].test.expr` → `test.expr`, `spec.schedule` → `schedule`, `metadata.name` → `name`.
 */
export function formFieldOfPath(form: CheckTypeForm, path: string): string | null {
  if (path === 'metadata.name' || path === 'name') return 'name'
  if (path === 'metadata.namespace' || path === 'namespace') return 'namespace'
  if (path === 'spec.schedule' || path === 'spec.interval') return 'schedule'
  const prefix = `spec.${form.type}[0].`
  if (!path.startsWith(prefix)) return null
  const rest = path.slice(prefix.length).replace(/\[\d+\]$/, '')
  if (rest === 'name') return 'checkName'
  const field = form.fields.find(
    (candidate) => rest === candidate.name || rest.startsWith(`${candidate.name}.`) || rest.startsWith(`${candidate.name}[`) || candidate.name.startsWith(`${rest}.`),
  )
  return field ? field.name : null
}

// ---------------------------------------------------------------------------------------------
// The type form as a conform + zod form

/** The form's two submit buttons: Create, and 'Edit as YAML' (which carries the answers to the Code tab unchecked). */
export const CHECK_FORM_INTENTS = ['create-from-form', 'form-to-code'] as const
export type CheckFormIntent = (typeof CHECK_FORM_INTENTS)[number]

export function isCheckFormIntent(value: unknown): value is CheckFormIntent {
  return (CHECK_FORM_INTENTS as readonly unknown[]).includes(value)
}

/** The form's answers as posted; a dotted field (`test.expr`) arrives nested, as conform reads names. */
function answersShape(fields: readonly CheckField[]): z.ZodRawShape {
  const shape: Record<string, z.ZodTypeAny> = {}
  const nested = new Map<string, CheckField[]>()
  for (const field of fields) {
    const [head, ...rest] = field.name.split('.')
    if (rest.length === 0) shape[head!] = z.string().max(10_000).optional()
    else nested.set(head!, [...(nested.get(head!) ?? []), { ...field, name: rest.join('.') }])
  }
  for (const [head, inner] of nested) shape[head] = z.object(answersShape(inner)).optional()
  return shape
}

/** The parsed answers back as one string per field name (`test.expr`), as the canary builder reads them. */
export function flattenCheckFormValues(value: Record<string, unknown>, prefix = ''): CheckFormValues {
  const values: CheckFormValues = {}
  for (const [key, entry] of Object.entries(value)) {
    if (!prefix && (key === 'intent' || key === 'checkType')) continue
    if (typeof entry === 'string') values[`${prefix}${key}`] = entry
    else if (entry && typeof entry === 'object' && !Array.isArray(entry)) Object.assign(values, flattenCheckFormValues(entry as Record<string, unknown>, `${prefix}${key}.`))
  }
  return values
}

/**
 * One type form's schema. Create checks every answer (required fields, numbers, lists, choices)
 * with the messages the canary builder uses; 'Edit as YAML' takes the answers as they are. The
 * intent defaults to Create, so revalidating while typing (no button pressed) checks as Create
 * would. The canary validation the API applies is the action's, as issues on the same fields.
 */
export function checkTypeFormSchema(form: CheckTypeForm) {
  const fields = [...COMMON_CHECK_FIELDS, ...form.fields]
  return z
    .object({ intent: z.enum(CHECK_FORM_INTENTS).default('create-from-form'), checkType: z.literal(form.type), ...answersShape(fields) })
    .superRefine((value, ctx) => {
      if (value.intent !== 'create-from-form') return
      const values = flattenCheckFormValues(value)
      for (const field of fields) {
        const message = fieldIssue(field, values[field.name])
        if (message) ctx.addIssue({ code: z.ZodIssueCode.custom, path: field.name.split('.'), message })
      }
    })
}
