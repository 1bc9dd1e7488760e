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

/** The browser's own checks for a type form: its required fields, before JavaScript loads. */
export function checkTypeFormConstraint(form: CheckTypeForm): Record<string, { required: boolean }> {
  return Object.fromEntries([...COMMON_CHECK_FIELDS, ...form.fields].map((field) => [field.name, { required: Boolean(field.required) }]))
}
