import { stringify } from 'yaml'
import { z } from 'zod'

/**
 * The health check editor's type grid and per-type forms (spec 002 §2 "Resource editor"): each
 * check type the engine runs, the fields its form asks for, and how the answers become a Canary
 * document. Field names are the Canary resource's own (resource-specs §1), so a form's result is
 * the same YAML a user would have written; anything the form does not cover is written in the
 * Code tab.
 */

export type CheckFieldKind = 'text' | 'number' | 'textarea' | 'select' | 'list' | 'number-list'

export type CheckField = {
  /** The check's field (`thresholdMillis`), or a dotted path inside it (`test.expr`). */
  name: string
  label: string
  kind: CheckFieldKind
  required?: boolean
  placeholder?: string
  help?: string
  options?: readonly string[]
}

export type CheckTypeForm = {
  type: string
  label: string
  description: string
  fields: readonly CheckField[]
}

const threshold: CheckField = { name: 'thresholdMillis', label: 'Latency threshold (ms)', kind: 'number', placeholder: '1000', help: 'Slower runs fail.' }
const sqlFields = (example: string): CheckField[] => [
  { name: 'url', label: 'Connection URL', kind: 'text', required: true, placeholder: example },
  { name: 'query', label: 'Query', kind: 'textarea', placeholder: 'SELECT 1' },
  { name: 'results', label: 'Expected rows', kind: 'number', placeholder: '1' },
]

export const CHECK_TYPE_FORMS: readonly CheckTypeForm[] = [
  {
    type: 'http',
    label: 'HTTP',
    description: 'Request a URL and check the status code, body and response time.',
    fields: [
      { name: 'url', label: 'URL', kind: 'text', required: true, placeholder: 'https://example.com/health' },
      { name: 'method', label: 'Method', kind: 'select', options: ['GET', 'POST', 'PUT', 'PATCH', 'DELETE', 'HEAD', 'OPTIONS'] },
      { name: 'responseCodes', label: 'Accepted status codes', kind: 'number-list', placeholder: '200, 201', help: 'Comma-separated; any 2xx when empty.' },
      { name: 'responseContent', label: 'Body must contain', kind: 'text' },
      threshold,
      { name: 'maxSSLExpiry', label: 'Minimum days of certificate validity', kind: 'number', placeholder: '7' },
      { name: 'test.expr', label: 'Test (CEL)', kind: 'text', placeholder: "json.status == 'ok'" },
    ],
  },
  {
    type: 'tcp',
    label: 'TCP',
    description: 'Open a TCP connection to a host and port.',
    fields: [{ name: 'endpoint', label: 'Endpoint', kind: 'text', required: true, placeholder: 'db.internal:5432' }, threshold],
  },
  {
    type: 'dns',
    label: 'DNS',
    description: 'Resolve a name and check the records returned.',
    fields: [
      { name: 'query', label: 'Name to resolve', kind: 'text', required: true, placeholder: 'example.com' },
      { name: 'querytype', label: 'Record type', kind: 'select', options: ['A', 'AAAA', 'CNAME', 'MX', 'NS', 'PTR', 'SRV', 'TXT'] },
      { name: 'server', label: 'DNS server', kind: 'text', placeholder: '8.8.8.8', help: 'The host resolver when empty.' },
      { name: 'port', label: 'Port', kind: 'number', placeholder: '53' },
      { name: 'minrecords', label: 'Minimum records', kind: 'number', placeholder: '1' },
      { name: 'exactreply', label: 'Exact reply', kind: 'list', placeholder: '93.184.216.34', help: 'Comma-separated.' },
      threshold,
    ],
  },
  {
    type: 'icmp',
    label: 'ICMP (ping)',
    description: 'Ping a host and check round-trip time and packet loss.',
    fields: [
      { name: 'endpoint', label: 'Host', kind: 'text', required: true, placeholder: '10.0.0.1' },
      { name: 'packetCount', label: 'Packets', kind: 'number', placeholder: '5' },
      threshold,
      { name: 'packetLossThreshold', label: 'Maximum packet loss (%)', kind: 'number', placeholder: '0' },
    ],
  },
  {
    type: 'exec',
    label: 'Exec',
    description: 'Run a script; a non-zero exit fails the check.',
    fields: [
      { name: 'script', label: 'Script', kind: 'textarea', required: true, placeholder: 'curl -fsS http://localhost:8080/ready' },
      { name: 'timeout', label: 'Timeout', kind: 'text', placeholder: '30s' },
    ],
  },
  {
    type: 'folder',
    label: 'Folder',
    description: 'Count, age and size of the files in a folder.',
    fields: [
      { name: 'path', label: 'Path', kind: 'text', required: true, placeholder: '/var/backups' },
      { name: 'minCount', label: 'Minimum files', kind: 'number' },
      { name: 'maxCount', label: 'Maximum files', kind: 'number' },
      { name: 'maxAge', label: 'Newest file at most this old', kind: 'text', placeholder: '25h' },
      { name: 'minSize', label: 'Minimum size', kind: 'text', placeholder: '10Mi' },
    ],
  },
  { type: 'postgres', label: 'PostgreSQL', description: 'Run a query and check the rows it returns.', fields: sqlFields('postgres://user:password@db:5432/app') },
  { type: 'mysql', label: 'MySQL', description: 'Run a query and check the rows it returns.', fields: sqlFields('mysql://user:password@db:3306/app') },
  {
    type: 'redis',
    label: 'Redis',
    description: 'Connect and PING.',
    fields: [
      { name: 'url', label: 'Address', kind: 'text', required: true, placeholder: 'redis:6379' },
      { name: 'db', label: 'Database', kind: 'number', placeholder: '0' },
    ],
  },
  {
    type: 'mongodb',
    label: 'MongoDB',
    description: 'Connect and ping the server.',
    fields: [{ name: 'url', label: 'Connection URL', kind: 'text', required: true, placeholder: 'mongodb://mongo:27017' }],
  },
  {
    type: 'elasticsearch',
    label: 'Elasticsearch',
    description: 'Search an index and check the number of hits.',
    fields: [
      { name: 'url', label: 'URL', kind: 'text', required: true, placeholder: 'http://elasticsearch:9200' },
      { name: 'index', label: 'Index', kind: 'text', placeholder: 'logs-*' },
      { name: 'query', label: 'Query (JSON)', kind: 'textarea', placeholder: '{"query": {"match_all": {}}}' },
      { name: 'results', label: 'Expected hits', kind: 'number' },
    ],
  },
  {
    type: 'alertmanager',
    label: 'Alertmanager',
    description: 'Turn firing alerts into check results.',
    fields: [
      { name: 'url', label: 'URL', kind: 'text', required: true, placeholder: 'http://alertmanager:9093' },
      { name: 'alerts', label: 'Alert names', kind: 'list', placeholder: 'KubePodCrashLooping', help: 'Comma-separated; every alert when empty.' },
      { name: 'ignore', label: 'Ignore alerts', kind: 'list', help: 'Comma-separated.' },
    ],
  },
  {
    type: 'prometheus',
    label: 'Prometheus',
    description: 'Run a PromQL query and test its result.',
    fields: [
      { name: 'url', label: 'URL', kind: 'text', required: true, placeholder: 'http://prometheus:9090' },
      { name: 'query', label: 'Query', kind: 'text', required: true, placeholder: 'up{job="api"}' },
      { name: 'test.expr', label: 'Test (CEL)', kind: 'text', placeholder: 'results[0].value == 1' },
    ],
  },
]

/** The grid's last entry: any other type, written as YAML. */
export const CUSTOM_CHECK_TYPE = 'custom'

export function getCheckTypeForm(type: string | null | undefined): CheckTypeForm | undefined {
  return CHECK_TYPE_FORMS.find((form) => form.type === type)
}

export const DEFAULT_SCHEDULE = '@every 5m'

/** The fields every type's form starts with: the canary's and the check's own. */
export const COMMON_CHECK_FIELDS: readonly CheckField[] = [
  { name: 'name', label: 'Name', kind: 'text', required: true, placeholder: 'my-canary' },
  { name: 'namespace', label: 'Namespace', kind: 'text', placeholder: 'default' },
  { name: 'schedule', label: 'Schedule', kind: 'text', placeholder: DEFAULT_SCHEDULE, help: 'Cron or @every 30s.' },
  { name: 'checkName', label: 'Check name', kind: 'text', placeholder: 'the canary name' },
]

export type CheckFormValues = Record<string, string>
export type CheckFormErrors = Record<string, string>

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

/** The browser's own checks for a type form: its required fields, before JavaScript loads. */
export function checkTypeFormConstraint(form: CheckTypeForm): Record<string, { required: boolean }> {
  return Object.fromEntries([...COMMON_CHECK_FIELDS, ...form.fields].map((field) => [field.name, { required: Boolean(field.required) }]))
}
