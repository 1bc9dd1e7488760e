/**
 * The connection type catalogue (spec 001 §3 "Connection types"): every type the console offers,
 * what its form asks for, which answers are required or secret, their defaults, and where each
 * answer lives in a `connections` row (data-model §10.5; resource-specs §3.5).
 *
 * Zod-free on purpose: the type grid and the per-type forms render from this module, and a page
 * must not load zod (decision 016). `connection-form.ts` builds the schema a post is parsed with
 * from these descriptions, and `connectionFormConstraint` below repeats the native constraints
 * that schema implies (tests keep the two equal).
 *
 * Required marks: the spec writes "(req)" after a run of credentials ("URL, Username, Password
 * (req)"); the mark covers the whole run, as the reference console's forms do (elasticsearch,
 * windows, sftp). The AI types are the exception: their Model and Base URL are optional there and
 * only the API Key is required. The spec
 * marks no notification field but email's From Address and From Name; the parts a Shoutrrr URL
 * cannot be built without (the webhook of discord, the token of telegram…) are required here too,
 * and say so with `requiredFor: 'url'`.
 */

/** The value of a secret field: a static value, or a key of a Config Map or Secret (resource-specs §0.2). */
export type EnvVarSource =
  | { value: string }
  | { valueFrom: { configMapKeyRef: { name: string; key: string } } }
  | { valueFrom: { secretKeyRef: { name: string; key: string } } }

/** How a secret field's form says where its value comes from ("Static value, Config Map or Secret"). */
export const SECRET_SOURCES = ['static', 'configmap', 'secret'] as const
export type SecretSource = (typeof SECRET_SOURCES)[number]
export const SECRET_SOURCE_LABELS: Record<SecretSource, string> = { static: 'Static value', configmap: 'Config Map', secret: 'Secret' }

/** The sub-fields a secret field posts, after its own name: `password.source`, `password.value`… */
export const SECRET_SUBFIELDS = ['source', 'value', 'name', 'key'] as const

export const REQUIRED_MESSAGE = 'This field is required'

export const CONNECTION_FAMILIES = ['database', 'cloud', 'notification', 'git', 'ai', 'http', 'other'] as const
export type ConnectionFamily = (typeof CONNECTION_FAMILIES)[number]

/** The row columns a field may be stored in; `properties.<key>` is a key of the row's `properties`. */
export type ConnectionColumn = 'url' | 'username' | 'password' | 'certificate' | 'insecure_tls'

/**
 * Where an answer is kept: a column, a `properties` key (always a string there: the platform reads
 * properties as a string map), a part of the Shoutrrr URL a notification type builds (`url-part`),
 * or nowhere (`form`: a choice that only shapes the other answers, such as git's Authentication).
 */
export type FieldStorage = 'name' | 'namespace' | ConnectionColumn | `properties.${string}` | 'url-part' | 'form'

export type ConnectionFieldKind = 'text' | 'number' | 'checkbox' | 'select' | 'secret'

export type ConnectionField = {
  /** The conform field name; a secret field posts `<name>.source`, `<name>.value`, `<name>.name`, `<name>.key`. */
  name: string
  /** The label the spec gives the field. */
  label: string
  kind: ConnectionFieldKind
  required?: boolean
  /** Why a field the spec leaves unmarked is required: the notification URL needs it. */
  requiredFor?: 'url'
  default?: string | number | boolean
  options?: readonly string[]
  /** A certificate, kubeconfig or SSH key: a textarea rather than one line. */
  multiline?: boolean
  /** For number fields: the accepted range. */
  min?: number
  max?: number
  /** Shown only when git's Authentication is this choice. */
  shownWhen?: { field: string; equals: string }
  storage: FieldStorage
  help?: string
}

export type ConnectionTypeDefinition = {
  /** The `connections.type` value. */
  type: string
  displayName: string
  family: ConnectionFamily
  /** Kept out of the type grid (spec: "jmeter (hidden)"). */
  hidden?: boolean
  /** A notification type: its answers are built into a Shoutrrr URL on submit (`notification-url.ts`). */
  isNotification?: boolean
  /** The type's own fields, after the Name and Namespace every form has. */
  fields: readonly ConnectionField[]
}

/** Every connection form starts with these (spec: "Name (required) and Namespace (required, default 'default')"). */
export const COMMON_CONNECTION_FIELDS: readonly ConnectionField[] = [
  { name: 'name', label: 'Name', kind: 'text', required: true, storage: 'name' },
  { name: 'namespace', label: 'Namespace', kind: 'text', required: true, default: 'default', storage: 'namespace' },
]

const PORT = { kind: 'number', min: 1, max: 65_535 } as const

function secret(name: string, label: string, storage: FieldStorage, options: Partial<ConnectionField> = {}): ConnectionField {
  return { name, label, kind: 'secret', storage, ...options }
}
const column = (name: ConnectionColumn, label: string, options: Partial<ConnectionField> = {}): ConnectionField => ({ name, label, kind: 'text', storage: name, ...options })
const property = (key: string, label: string, options: Partial<ConnectionField> = {}): ConnectionField => ({
  name: `properties.${key}`,
  label,
  kind: 'text',
  storage: `properties.${key}`,
  ...options,
})
const insecureTls: ConnectionField = { name: 'insecure_tls', label: 'Insecure TLS', kind: 'checkbox', default: false, storage: 'insecure_tls' }
/** A part of a notification URL; `required` parts the spec leaves unmarked are needed by the URL. */
const part = (name: string, label: string, options: Partial<ConnectionField> = {}): ConnectionField => ({
  name,
  label,
  kind: 'text',
  storage: 'url-part',
  ...options,
})
const secretPart = (name: string, label: string, options: Partial<ConnectionField> = {}): ConnectionField => part(name, label, { kind: 'secret', ...options })
const requiredPart = { required: true, requiredFor: 'url' } as const

const urlUserPassword = (required: boolean, tls: boolean): ConnectionField[] => [
  column('url', 'URL', { required }),
  secret('username', 'Username', 'username', { required }),
  secret('password', 'Password', 'password', { required }),
  ...(tls ? [insecureTls] : []),
]
const awsFields: ConnectionField[] = [
  property('region', 'Region'),
  property('profile', 'Profile'),
  secret('username', 'Access Key', 'username'),
  secret('password', 'Secret Key', 'password'),
  { name: 'properties.insecureTLS', label: 'Insecure TLS', kind: 'checkbox', default: false, storage: 'properties.insecureTLS' },
]
const googleCloudFields: ConnectionField[] = [
  column('url', 'Endpoint', { required: true }),
  secret('certificate', 'Certificate', 'certificate', { required: true, multiline: true }),
]
const personalAccessToken = secret('password', 'Personal Access Token', 'password', { required: true })

export const CONNECTION_TYPES: readonly ConnectionTypeDefinition[] = [
  {
    type: 'anthropic',
    displayName: 'Anthropic',
    family: 'ai',
    fields: [property('model', 'Model'), column('url', 'Base URL', { help: 'When calls go through a proxy.' }), secret('password', 'API Key', 'password', { required: true })],
  },
  {
    type: 'ollama',
    displayName: 'Ollama',
    family: 'ai',
    fields: [column('url', 'URL', { required: true }), property('model', 'Model'), secret('password', 'API Key', 'password', { required: true })],
  },
  {
    type: 'openai',
    displayName: 'OpenAI',
    family: 'ai',
    fields: [column('url', 'URL', { help: 'When calls go through a proxy.' }), property('model', 'Model'), secret('password', 'API Key', 'password', { required: true })],
  },
  { type: 'aws', displayName: 'AWS', family: 'cloud', fields: awsFields },
  { type: 's3', displayName: 'AWS S3', family: 'cloud', fields: [...awsFields, property('bucket', 'Bucket', { required: true })] },
  {
    type: 'azure',
    displayName: 'Azure',
    family: 'cloud',
    fields: [
      column('username', 'Client ID', { required: true }),
      secret('password', 'Client Secret', 'password', { required: true }),
      property('tenant', 'Tenant ID', { required: true }),
    ],
  },
  {
    type: 'azure_devops',
    displayName: 'Azure DevOps',
    family: 'git',
    fields: [column('username', 'Organization', { required: true }), personalAccessToken],
  },
  {
    type: 'discord',
    displayName: 'Discord',
    family: 'notification',
    isNotification: true,
    fields: [part('webhookId', 'Webhook ID', requiredPart), secretPart('token', 'Token', requiredPart)],
  },
  {
    type: 'dynatrace',
    displayName: 'Dynatrace',
    family: 'http',
    fields: [
      column('url', 'Host', { required: true }),
      secret('password', 'API Key', 'password', { required: true }),
      property('scheme', 'Scheme', { required: true, help: 'https or http' }),
    ],
  },
  { type: 'elasticsearch', displayName: 'Elasticsearch', family: 'database', fields: urlUserPassword(true, true) },
  {
    type: 'email',
    displayName: 'Email',
    family: 'notification',
    isNotification: true,
    fields: [
      part('host', 'Host', requiredPart),
      part('port', 'Port', { ...PORT, default: 587 }),
      secretPart('username', 'Username'),
      secretPart('password', 'Password', { help: 'SMTP server password or hash (for OAuth2)' }),
      part('fromAddress', 'From Address', { required: true }),
      part('fromName', 'From Name', { required: true }),
      part('encryption', 'Encryption method', { kind: 'select', options: ['None', 'ExplicitTLS', 'ImplicitTLS', 'Auto'], default: 'Auto' }),
      part('auth', 'SMTP authentication method', { kind: 'select', options: ['None', 'Plain', 'CRAMMD5', 'Unknown', 'OAuth2'], default: 'Unknown' }),
      { ...insecureTls },
    ],
  },
  { type: 'google_cloud', displayName: 'Google Cloud', family: 'cloud', fields: googleCloudFields },
  {
    type: 'generic_webhook',
    displayName: 'Generic Webhook',
    family: 'notification',
    isNotification: true,
    fields: [
      part('webhookUrl', 'URL', requiredPart),
      part('contentType', 'ContentType', { default: 'application/json' }),
      part('requestMethod', 'Request Method', { kind: 'select', options: ['POST', 'GET'], default: 'POST' }),
      part('messageKey', 'Message Key', { default: 'message' }),
      part('titleKey', 'Title Key', { default: 'title' }),
      { ...insecureTls },
    ],
  },
  {
    type: 'git',
    displayName: 'Git',
    family: 'git',
    fields: [
      column('url', 'URL', { required: true }),
      { name: 'authentication', label: 'Authentication', kind: 'select', options: ['Basic', 'SSH'], default: 'Basic', storage: 'form' },
      secret('username', 'Username', 'username', { shownWhen: { field: 'authentication', equals: 'Basic' } }),
      secret('password', 'Password', 'password', { shownWhen: { field: 'authentication', equals: 'Basic' } }),
      secret('certificate', 'SSH Key', 'certificate', { multiline: true, shownWhen: { field: 'authentication', equals: 'SSH' } }),
      property('ref', 'Ref', { required: true, default: 'main' }),
    ],
  },
  { type: 'github', displayName: 'GitHub', family: 'git', fields: [personalAccessToken] },
  {
    type: 'google_chat',
    displayName: 'Google Chat',
    family: 'notification',
    isNotification: true,
    fields: [secretPart('key', 'Key', requiredPart), secretPart('token', 'Token', requiredPart), part('webhookName', 'Webhook Name', requiredPart)],
  },
  { type: 'http', displayName: 'HTTP', family: 'http', fields: urlUserPassword(true, true) },
  {
    type: 'ifttt',
    displayName: 'IFTTT',
    family: 'notification',
    isNotification: true,
    fields: [part('webhookId', 'Webhook ID', requiredPart)],
  },
  {
    type: 'jmeter',
    displayName: 'JMeter',
    family: 'http',
    hidden: true,
    fields: [column('url', 'Host', { required: true }), property('port', 'Port', { ...PORT })],
  },
  { type: 'kubernetes', displayName: 'Kubernetes', family: 'cloud', fields: [secret('certificate', 'Certificate', 'certificate', { multiline: true, help: 'A kubeconfig.' })] },
  { type: 'ldap', displayName: 'LDAP', family: 'other', fields: urlUserPassword(true, true) },
  {
    type: 'matrix',
    displayName: 'Matrix',
    family: 'notification',
    isNotification: true,
    fields: [
      part('user', 'User', { help: 'Empty when the password is an access token.' }),
      secretPart('password', 'Password or token', requiredPart),
      part('host', 'Host', requiredPart),
      { ...insecureTls },
    ],
  },
  {
    type: 'mattermost',
    displayName: 'Mattermost',
    family: 'notification',
    isNotification: true,
    fields: [
      part('username', 'Username', { help: 'Overrides the webhook’s user.' }),
      part('host', 'Host', { ...requiredPart, help: 'host or host:port' }),
      secretPart('token', 'Token', requiredPart),
      part('channel', 'Channel', { help: 'Overrides the webhook’s channel.' }),
    ],
  },
  { type: 'mongo', displayName: 'MongoDB', family: 'database', fields: urlUserPassword(true, true) },
  { type: 'mysql', displayName: 'MySQL', family: 'database', fields: urlUserPassword(true, false) },
  {
    type: 'ntfy',
    displayName: 'Ntfy',
    family: 'notification',
    isNotification: true,
    fields: [
      part('username', 'Username'),
      secretPart('password', 'Password'),
      part('host', 'Host', { ...requiredPart, default: 'ntfy.sh' }),
      part('topic', 'Topic', requiredPart),
      { ...insecureTls, help: 'Sends over http instead of https.' },
    ],
  },
  {
    type: 'opsgenie',
    displayName: 'OpsGenie',
    family: 'notification',
    isNotification: true,
    fields: [
      // The spec redacts the default host; api.opsgenie.com is Shoutrrr's and the reference console's.
      part('host', 'Host', { ...requiredPart, default: 'api.opsgenie.com' }),
      part('port', 'Port', { ...PORT, default: 443 }),
      secretPart('apiKey', 'API Key', requiredPart),
    ],
  },
  { type: 'postgres', displayName: 'Postgres', family: 'database', fields: urlUserPassword(true, false) },
  {
    type: 'prometheus',
    displayName: 'Prometheus',
    family: 'http',
    fields: [column('url', 'URL', { required: true }), secret('username', 'Username', 'username'), secret('password', 'Password', 'password'), insecureTls],
  },
  {
    type: 'pushbullet',
    displayName: 'Pushbullet',
    family: 'notification',
    isNotification: true,
    fields: [secretPart('token', 'Token', requiredPart), part('targets', 'Targets', { ...requiredPart, help: 'Devices, channels (#name) or e-mails, comma-separated.' })],
  },
  {
    type: 'pushover',
    displayName: 'Pushover',
    family: 'notification',
    isNotification: true,
    fields: [part('user', 'User', requiredPart), secretPart('token', 'Token', requiredPart)],
  },
  {
    type: 'redis',
    displayName: 'Redis',
    family: 'database',
    fields: [
      property('db', 'Database', { kind: 'number', required: true, default: 0, min: 0 }),
      column('url', 'URL', { required: true }),
      secret('username', 'Username', 'username'),
      secret('password', 'Password', 'password'),
      insecureTls,
    ],
  },
  {
    type: 'restic',
    displayName: 'Restic',
    family: 'other',
    fields: [
      secret('password', 'Password', 'password', { required: true }),
      column('url', 'Repository URL', { required: true }),
      property('awsConnectionName', 'AWS Connection Name', { required: true }),
      secret('properties.accessKey', 'Access Key', 'properties.accessKey', { required: true }),
      secret('properties.secretKey', 'Secret Key', 'properties.secretKey', { required: true }),
    ],
  },
  {
    type: 'rocketchat',
    displayName: 'Rocket.Chat',
    family: 'notification',
    isNotification: true,
    fields: [
      part('username', 'Username'),
      part('host', 'Host', requiredPart),
      part('port', 'Port', { ...PORT }),
      secretPart('tokenA', 'Token A', requiredPart),
      secretPart('tokenB', 'Token B', requiredPart),
      part('channel', 'Channel', { help: '#channel or @user' }),
    ],
  },
  {
    type: 'sftp',
    displayName: 'SFTP',
    family: 'other',
    fields: [
      column('url', 'Host', { required: true }),
      secret('username', 'Username', 'username', { required: true }),
      secret('password', 'Password', 'password', { required: true }),
      property('port', 'Port', { ...PORT, default: 22 }),
    ],
  },
  {
    type: 'slack',
    displayName: 'Slack',
    family: 'notification',
    isNotification: true,
    fields: [
      part('channel', 'Channel', { ...requiredPart, help: 'The channel id, Cxxxxxxxxxx.' }),
      secretPart('botToken', 'Bot Token', requiredPart),
      part('botName', 'Bot Name'),
    ],
  },
  // The spec lists slackwebhook and webhook as types without fields of their own.
  { type: 'slackwebhook', displayName: 'Slack Webhook', family: 'notification', fields: [] },
  {
    type: 'smb',
    displayName: 'SMB',
    family: 'other',
    fields: [
      column('url', 'Server', { required: true }),
      property('port', 'Port', { ...PORT, default: 445 }),
      property('share', 'Share', { required: true }),
      column('username', 'Username'),
      secret('password', 'Password', 'password'),
    ],
  },
  { type: 'sql_server', displayName: 'SQL Server', family: 'database', fields: urlUserPassword(true, false) },
  {
    type: 'teams',
    displayName: 'Microsoft Teams',
    family: 'notification',
    isNotification: true,
    fields: [
      part('group', 'Group', requiredPart),
      part('tenant', 'Tenant', requiredPart),
      part('altId', 'AltID', requiredPart),
      part('groupOwner', 'GroupOwner', requiredPart),
      // The spec redacts the default host; outlook.office.com is the reference console's.
      part('host', 'Host', { ...requiredPart, default: 'outlook.office.com' }),
    ],
  },
  {
    type: 'telegram',
    displayName: 'Telegram',
    family: 'notification',
    isNotification: true,
    fields: [secretPart('token', 'Token', requiredPart), part('chats', 'Chats', { ...requiredPart, help: 'Chat ids or @channel names, comma-separated.' })],
  },
  { type: 'webhook', displayName: 'Webhook', family: 'http', fields: [] },
  {
    type: 'windows',
    displayName: 'Windows',
    family: 'other',
    fields: [secret('username', 'Username', 'username', { required: true }), secret('password', 'Password', 'password', { required: true }), property('domain', 'Domain')],
  },
  {
    type: 'zulip_chat',
    displayName: 'Zulip Chat',
    family: 'notification',
    isNotification: true,
    fields: [part('botMail', 'BotMail', requiredPart), secretPart('botKey', 'BotKey', requiredPart), part('host', 'Host', requiredPart)],
  },
  { type: 'folder', displayName: 'Folder', family: 'other', fields: [property('path', 'Path', { required: true })] },
  { type: 'gcs', displayName: 'Google Cloud Storage', family: 'cloud', fields: googleCloudFields },
  { type: 'gitlab', displayName: 'GitLab', family: 'git', fields: [personalAccessToken] },
]

// Built on first use, so a page that imports only this module's helpers is not sent the catalogue.
let typesByName: Map<string, ConnectionTypeDefinition> | undefined

/** The definition of a `connections.type`, or null for a type the console has no form for. */
export function getConnectionType(type: string): ConnectionTypeDefinition | null {
  typesByName ??= new Map(CONNECTION_TYPES.map((definition) => [definition.type, definition]))
  return typesByName.get(type) ?? null
}

/** What the type grid shows: every type but the hidden ones, by family then display name. */
export function listVisibleConnectionTypes(): ConnectionTypeDefinition[] {
  return CONNECTION_TYPES.filter((definition) => !definition.hidden).sort(
    (a, b) => CONNECTION_FAMILIES.indexOf(a.family) - CONNECTION_FAMILIES.indexOf(b.family) || a.displayName.localeCompare(b.displayName),
  )
}

/** Every field of a type's form, Name and Namespace first. */
export function getConnectionFormFields(definition: ConnectionTypeDefinition): readonly ConnectionField[] {
  return [...COMMON_CONNECTION_FIELDS, ...definition.fields]
}

// ---------------------------------------------------------------------------------------------
// Secret values as the row stores them

const SECRET_REFERENCE = /^(secret|configmap):\/\/([^/]+)\/(.+)$/

/**
 * An env var source as a `connections` column or property keeps it: the static value itself, or
 * `secret://<name>/<key>` / `configmap://<name>/<key>`, the reference forms data-model §10.5 names
 * (`connection_details` shows those unmasked). A static value that itself starts with one of those
 * prefixes would be read back as a reference; the platform has the same ambiguity.
 */
export function envVarSourceToStored(source: EnvVarSource): string {
  if ('value' in source) return source.value
  if ('secretKeyRef' in source.valueFrom) return `secret://${source.valueFrom.secretKeyRef.name}/${source.valueFrom.secretKeyRef.key}`
  return `configmap://${source.valueFrom.configMapKeyRef.name}/${source.valueFrom.configMapKeyRef.key}`
}

/** The env var source a stored column or property value describes (`***`, a masked static value, stays static). */
export function envVarSourceFromStored(stored: string): EnvVarSource {
  const match = SECRET_REFERENCE.exec(stored)
  if (!match) return { value: stored }
  const ref = { name: match[2]!, key: match[3]! }
  return match[1] === 'secret' ? { valueFrom: { secretKeyRef: ref } } : { valueFrom: { configMapKeyRef: ref } }
}

/** The form's view of an env var source: the mode and the one mode's answers. */
export type SecretFormValue = { source: SecretSource; value?: string; name?: string; key?: string }

export function envVarSourceToForm(source: EnvVarSource | undefined): SecretFormValue {
  if (!source) return { source: 'static', value: '' }
  if ('value' in source) return { source: 'static', value: source.value }
  if ('secretKeyRef' in source.valueFrom) return { source: 'secret', ...source.valueFrom.secretKeyRef }
  return { source: 'configmap', ...source.valueFrom.configMapKeyRef }
}

// ---------------------------------------------------------------------------------------------
// Native constraints (decision 016)

/** The browser's native constraints of one field, as conform's `getZodConstraint` derives them. */
export type ConnectionFieldConstraint = { required?: boolean; minLength?: number; min?: number; max?: number; pattern?: string }

const escapeForPattern = (text: string): string => text.replace(/[|\\{}()[\]^$+*?.]/g, '\\$&')

/**
 * The native constraints of a type's form, equal to `getZodConstraint` of the schema
 * `connection-form.ts` builds for it, for pages that must not load zod.
 */
export function connectionFormConstraint(definition: ConnectionTypeDefinition): Record<string, ConnectionFieldConstraint> {
  const constraint: Record<string, ConnectionFieldConstraint> = {}
  for (const field of getConnectionFormFields(definition)) {
    const isRequired = field.required === true
    if (field.kind === 'secret') {
      constraint[field.name] = { required: false }
      constraint[`${field.name}.source`] = { required: false, pattern: SECRET_SOURCES.map(escapeForPattern).join('|') }
      for (const sub of ['value', 'name', 'key']) constraint[`${field.name}.${sub}`] = { required: false }
      continue
    }
    const entry: ConnectionFieldConstraint = { required: isRequired }
    if (field.kind === 'text' && isRequired) entry.minLength = 1
    if (field.kind === 'number') {
      if (field.min !== undefined) entry.min = field.min
      if (field.max !== undefined) entry.max = field.max
    }
    if (field.kind === 'select' && field.options) entry.pattern = field.options.map(escapeForPattern).join('|')
    constraint[field.name] = entry
    if (field.name.includes('.')) constraint[field.name.slice(0, field.name.indexOf('.'))] ??= { required: false }
  }
  return constraint
}
