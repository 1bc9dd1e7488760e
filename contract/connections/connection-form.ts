import { z } from 'zod'
import {
  envVarSourceFromStored,
  envVarSourceToForm,
  envVarSourceToStored,
  getConnectionFormFields,
  REQUIRED_MESSAGE,
  SECRET_SOURCES,
  type ConnectionField,
  type ConnectionTypeDefinition,
  type EnvVarSource,
  type SecretFormValue,
} from './connection-types.ts'
import { buildNotificationUrl, KUBERNETES_NAME, NotificationUrlError, parseNotificationUrl, SECRET_KEY_NAME, type NotificationParts } from './notification-url.ts'

/**
 * One connection type's form (conform field names from `connection-types.ts`: `url`,
 * `password.source`, `password.value`, `properties.db`…): the zod schema its post is parsed with,
 * and the translation between its answers and a `connections` row, both ways. Actions and the API
 * import this module; pages render from `connection-types.ts` (decision 016).
 */

const NAME_MESSAGE = 'Must be a lowercase name: letters, digits, "-" and "."'
const KEY_MESSAGE = 'Must be letters, digits, "-", "_" and "."'

const KeyRefSchema = z.object({
  name: z.string().regex(KUBERNETES_NAME, NAME_MESSAGE),
  key: z.string().regex(SECRET_KEY_NAME, KEY_MESSAGE),
})

/**
 * An env var source as resource-specs §0.2 writes it, in the three modes the console offers:
 * `{ value }`, `{ valueFrom: { configMapKeyRef: { name, key } } }` or
 * `{ valueFrom: { secretKeyRef: { name, key } } }`.
 */
export const EnvVarSourceSchema: z.ZodType<EnvVarSource> = z.union([
  z.object({ value: z.string() }).strict(),
  z.object({ valueFrom: z.object({ configMapKeyRef: KeyRefSchema }).strict() }).strict(),
  z.object({ valueFrom: z.object({ secretKeyRef: KeyRefSchema }).strict() }).strict(),
])

/** What a parsed form holds: its answers by conform name, secrets as env var sources, properties nested. */
export type ConnectionFormValues = { name: string; namespace: string } & Record<string, unknown>

/** The `connections` columns a form writes (data-model §10.5); `properties` values are strings. */
export type ConnectionRowFields = {
  name: string
  namespace: string
  type: string
  url: string | null
  username: string | null
  password: string | null
  certificate: string | null
  insecure_tls: boolean
  properties: Record<string, string>
}

// ---------------------------------------------------------------------------------------------
// The schema

/**
 * A secret field's four sub-fields, read as the env var source of the chosen mode only (spec:
 * "Switching mode clears the other mode's value"), or undefined when nothing was given.
 */
function secretFieldSchema(field: ConnectionField) {
  return z
    .object({
      source: z.enum(SECRET_SOURCES).default('static'),
      value: z.string().optional(),
      name: z.string().trim().optional(),
      key: z.string().trim().optional(),
    })
    .optional()
    .superRefine((answer, ctx) => {
      const source = answer?.source ?? 'static'
      if (source === 'static') {
        if (field.required && !answer?.value) ctx.addIssue({ code: z.ZodIssueCode.custom, path: ['value'], message: REQUIRED_MESSAGE })
        return
      }
      const hasAny = Boolean(answer?.name || answer?.key)
      if (!field.required && !hasAny) return
      if (!answer?.name) ctx.addIssue({ code: z.ZodIssueCode.custom, path: ['name'], message: REQUIRED_MESSAGE })
      else if (!KUBERNETES_NAME.test(answer.name)) ctx.addIssue({ code: z.ZodIssueCode.custom, path: ['name'], message: NAME_MESSAGE })
      if (!answer?.key) ctx.addIssue({ code: z.ZodIssueCode.custom, path: ['key'], message: REQUIRED_MESSAGE })
      else if (!SECRET_KEY_NAME.test(answer.key)) ctx.addIssue({ code: z.ZodIssueCode.custom, path: ['key'], message: KEY_MESSAGE })
    })
    .transform((answer): EnvVarSource | undefined => {
      const source = answer?.source ?? 'static'
      if (source === 'static') return answer?.value ? { value: answer.value } : undefined
      if (!answer?.name || !answer.key) return undefined
      const ref = { name: answer.name, key: answer.key }
      return source === 'secret' ? { valueFrom: { secretKeyRef: ref } } : { valueFrom: { configMapKeyRef: ref } }
    })
}

function numberFieldSchema(field: ConnectionField) {
  let schema = z.number({ required_error: REQUIRED_MESSAGE, invalid_type_error: 'Must be a number' }).int('Must be a whole number')
  if (field.min !== undefined) schema = schema.min(field.min, `Must be ${field.min} or more`)
  if (field.max !== undefined) schema = schema.max(field.max, `Must be ${field.max} or less`)
  if (field.required) return schema
  return typeof field.default === 'number' ? schema.default(field.default) : schema.optional()
}

function selectFieldSchema(field: ConnectionField) {
  const options = (field.options ?? []) as [string, ...string[]]
  const schema = z.enum(options, {
    errorMap: (issue, ctx) => ({ message: issue.code === 'invalid_type' && ctx.data === undefined ? REQUIRED_MESSAGE : `Must be one of ${options.join(', ')}` }),
  })
  if (field.required) return schema
  return typeof field.default === 'string' ? schema.default(field.default) : schema.optional()
}

function textFieldSchema(field: ConnectionField) {
  if (field.required) return z.string({ required_error: REQUIRED_MESSAGE }).trim().min(1, REQUIRED_MESSAGE)
  return typeof field.default === 'string' ? z.string().trim().default(field.default) : z.string().trim().optional()
}

function fieldSchema(field: ConnectionField): z.ZodTypeAny {
  switch (field.kind) {
    case 'secret':
      return secretFieldSchema(field)
    case 'number':
      return numberFieldSchema(field)
    case 'checkbox':
      return z.boolean().default(false)
    case 'select':
      return selectFieldSchema(field)
    case 'text':
      return textFieldSchema(field)
  }
}

/** Groups `properties.db` under `properties`, as conform nests dotted names. */
function nestedShape(fields: readonly ConnectionField[]): z.ZodRawShape {
  const shape: z.ZodRawShape = {}
  const groups = new Map<string, ConnectionField[]>()
  for (const field of fields) {
    const dot = field.name.indexOf('.')
    if (dot < 0) shape[field.name] = fieldSchema(field)
    else {
      const group = field.name.slice(0, dot)
      groups.set(group, [...(groups.get(group) ?? []), { ...field, name: field.name.slice(dot + 1) }])
    }
  }
  for (const [group, members] of groups) shape[group] = z.object(nestedShape(members)).default({})
  return shape
}

/**
 * The schema one connection type's post is parsed with (`parseWithZod(formData, { schema })`):
 * required answers refused with 'This field is required' (spec 001 §5), unrequired empty answers
 * given their default, secrets read as env var sources, and a notification type's URL built once
 * to report a part it cannot be built from.
 */
export function buildConnectionFormSchema(definition: ConnectionTypeDefinition) {
  const schema = z.object(nestedShape(getConnectionFormFields(definition)))
  if (!definition.isNotification) return schema
  return schema.superRefine((values, ctx) => {
    try {
      buildNotificationUrl(definition.type, notificationParts(definition, values))
    } catch (error) {
      if (!(error instanceof NotificationUrlError)) throw error
      ctx.addIssue({ code: z.ZodIssueCode.custom, path: error.field ? [error.field] : [], message: error.message })
    }
  })
}

// ---------------------------------------------------------------------------------------------
// Form ↔ row

function readPath(values: Record<string, unknown>, path: string): unknown {
  return path.split('.').reduce<unknown>((node, key) => (node && typeof node === 'object' ? (node as Record<string, unknown>)[key] : undefined), values)
}

function writePath(target: Record<string, unknown>, path: string, value: unknown): void {
  const keys = path.split('.')
  const last = keys.pop()!
  let node = target
  for (const key of keys) {
    if (typeof node[key] !== 'object' || node[key] === null) node[key] = {}
    node = node[key] as Record<string, unknown>
  }
  node[last] = value
}

function notificationParts(definition: ConnectionTypeDefinition, values: Record<string, unknown>): NotificationParts {
  const parts: NotificationParts = {}
  for (const field of definition.fields) parts[field.name] = readPath(values, field.name) as NotificationParts[string]
  return parts
}

/** A parsed answer as a column or property keeps it; null for no answer. */
function storedText(field: ConnectionField, value: unknown): string | null {
  if (value === undefined || value === null || value === '') return null
  if (field.kind === 'secret') return envVarSourceToStored(value as EnvVarSource)
  return String(value)
}

/**
 * The `connections` row fields of a parsed form. Columns a type does not use are null, and
 * `insecure_tls` is always written (the column defaults to true, data-model note 13). A notification
 * type keeps its answers in `url` only; git keeps the credentials of the chosen Authentication.
 */
export function connectionRowFromForm(definition: ConnectionTypeDefinition, values: ConnectionFormValues): ConnectionRowFields {
  const row: ConnectionRowFields = {
    name: values.name,
    namespace: values.namespace,
    type: definition.type,
    url: null,
    username: null,
    password: null,
    certificate: null,
    insecure_tls: false,
    properties: {},
  }
  if (definition.isNotification) {
    row.url = buildNotificationUrl(definition.type, notificationParts(definition, values))
    row.insecure_tls = values.insecure_tls === true
    return row
  }
  const isSsh = definition.type === 'git' && values.authentication === 'SSH'
  for (const field of definition.fields) {
    const value = readPath(values, field.name)
    const storage = field.storage
    if (storage === 'form' || storage === 'url-part' || storage === 'name' || storage === 'namespace') continue
    if (definition.type === 'git' && (isSsh ? storage === 'username' || storage === 'password' : storage === 'certificate')) continue
    if (storage === 'insecure_tls') row.insecure_tls = value === true
    else if (storage.startsWith('properties.')) {
      const text = field.kind === 'checkbox' ? String(value === true) : storedText(field, value)
      if (text !== null) row.properties[storage.slice('properties.'.length)] = text
    } else row[storage as 'url' | 'username' | 'password' | 'certificate'] = storedText(field, value)
  }
  return row
}

/** A form's starting values: conform's `defaultValue`, nested as the field names are. */
export type ConnectionFormDefaults = Record<string, unknown>

/** One answer as the form shows it: text for text and numbers, a boolean for a checkbox. */
function formValue(field: ConnectionField, value: unknown): unknown {
  if (field.kind === 'secret') return envVarSourceToForm(value as EnvVarSource | undefined) satisfies SecretFormValue
  if (field.kind === 'checkbox') return value === true || value === 'true'
  if (value === undefined || value === null || value === '') return field.default === undefined ? '' : String(field.default)
  return String(value)
}

/**
 * The values a type's form starts from: the catalogue's defaults for a new connection, or what an
 * existing row holds (a notification type's parts read back from its URL). Secrets stored as
 * `secret://` / `configmap://` references open in that mode; a masked `***` opens as a static
 * value, which the table's trigger keeps when it is posted back unchanged.
 * @throws NotificationUrlError when a notification row's `url` is not of its type's format.
 */
export function connectionFormDefaults(definition: ConnectionTypeDefinition, row?: Partial<ConnectionRowFields> | null): ConnectionFormDefaults {
  const defaults: ConnectionFormDefaults = { name: row?.name ?? '', namespace: row?.namespace ?? 'default' }
  let answers: Record<string, unknown> = {}
  if (row && definition.isNotification && row.url) {
    answers = parseNotificationUrl(definition.type, row.url, { username: row.username, password: row.password })
  } else if (row && !definition.isNotification) {
    for (const field of definition.fields) {
      const storage = field.storage
      if (storage === 'form' || storage === 'url-part' || storage === 'name' || storage === 'namespace') continue
      const stored = storage.startsWith('properties.') ? row.properties?.[storage.slice('properties.'.length)] : row[storage as keyof ConnectionRowFields]
      if (stored === undefined || stored === null || stored === '') continue
      answers[field.name] = field.kind === 'secret' ? envVarSourceFromStored(String(stored)) : stored
    }
    if (definition.type === 'git') answers.authentication = row.certificate ? 'SSH' : 'Basic'
  }
  for (const field of definition.fields) writePath(defaults, field.name, formValue(field, answers[field.name]))
  return defaults
}
