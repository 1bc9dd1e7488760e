import { parseWithZod, getZodConstraint } from '@conform-to/zod'
import { describe, expect, it } from 'vitest'
import { buildConnectionFormSchema, connectionFormDefaults, connectionRowFromForm, EnvVarSourceSchema, type ConnectionFormValues, type ConnectionRowFields } from '#contract/connections/connection-form.ts'
import {
  CONNECTION_TYPES,
  connectionFormConstraint,
  getConnectionType,
  listVisibleConnectionTypes,
  type ConnectionField,
  type ConnectionTypeDefinition,
  type EnvVarSource,
} from '#contract/connections/connection-types.ts'
import { buildNotificationUrl, NOTIFICATION_URL_TYPES, parseNotificationUrl, type NotificationParts } from '#contract/connections/notification-url.ts'

const REQUIRED = 'This field is required'

function requireType(type: string): ConnectionTypeDefinition {
  const definition = getConnectionType(type)
  if (!definition) throw new Error(`no connection type ${type}`)
  return definition
}

/** Nested form values as the browser posts them: dotted names, checkboxes `on` when ticked. */
function toFormData(values: Record<string, unknown>, prefix = '', data = new FormData()): FormData {
  for (const [key, value] of Object.entries(values)) {
    const name = prefix ? `${prefix}.${key}` : key
    if (value === undefined || value === null || value === false) continue
    if (value === true) data.append(name, 'on')
    else if (typeof value === 'object') toFormData(value as Record<string, unknown>, name, data)
    else data.append(name, String(value))
  }
  return data
}

function submit(definition: ConnectionTypeDefinition, values: Record<string, unknown>) {
  return parseWithZod(toFormData(values), { schema: buildConnectionFormSchema(definition) })
}

function submitValid(definition: ConnectionTypeDefinition, values: Record<string, unknown>): ConnectionFormValues {
  const submission = submit(definition, values)
  if (submission.status !== 'success') throw new Error(`${definition.type}: ${JSON.stringify(submission.reply().error)}`)
  return submission.value as ConnectionFormValues
}

// Spec 001 §3, row by row: "Label | marks | where it is stored" (req = required, secret = an env var source).
const SPEC_TABLE: Record<string, string[]> = {
  anthropic: ['Model | | properties.model', 'Base URL | | url', 'API Key | req secret | password'],
  openai: ['URL | | url', 'Model | | properties.model', 'API Key | req secret | password'],
  ollama: ['URL | req | url', 'Model | | properties.model', 'API Key | req secret | password'],
  postgres: ['URL | req | url', 'Username | req secret | username', 'Password | req secret | password'],
  mysql: ['URL | req | url', 'Username | req secret | username', 'Password | req secret | password'],
  sql_server: ['URL | req | url', 'Username | req secret | username', 'Password | req secret | password'],
  http: ['URL | req | url', 'Username | req secret | username', 'Password | req secret | password', 'Insecure TLS | | insecure_tls'],
  prometheus: ['URL | req | url', 'Username | secret | username', 'Password | secret | password', 'Insecure TLS | | insecure_tls'],
  elasticsearch: ['URL | req | url', 'Username | req secret | username', 'Password | req secret | password', 'Insecure TLS | | insecure_tls'],
  mongo: ['URL | req | url', 'Username | req secret | username', 'Password | req secret | password', 'Insecure TLS | | insecure_tls'],
  ldap: ['URL | req | url', 'Username | req secret | username', 'Password | req secret | password', 'Insecure TLS | | insecure_tls'],
  redis: ['Database | req | properties.db', 'URL | req | url', 'Username | secret | username', 'Password | secret | password', 'Insecure TLS | | insecure_tls'],
  windows: ['Username | req secret | username', 'Password | req secret | password', 'Domain | | properties.domain'],
  google_cloud: ['Endpoint | req | url', 'Certificate | req secret | certificate'],
  gcs: ['Endpoint | req | url', 'Certificate | req secret | certificate'],
  sftp: ['Host | req | url', 'Username | req secret | username', 'Password | req secret | password', 'Port | | properties.port'],
  aws: ['Region | | properties.region', 'Profile | | properties.profile', 'Access Key | secret | username', 'Secret Key | secret | password', 'Insecure TLS | | properties.insecureTLS'],
  s3: [
    'Region | | properties.region',
    'Profile | | properties.profile',
    'Access Key | secret | username',
    'Secret Key | secret | password',
    'Insecure TLS | | properties.insecureTLS',
    'Bucket | req | properties.bucket',
  ],
  kubernetes: ['Certificate | secret | certificate'],
  azure_devops: ['Organization | req | username', 'Personal Access Token | req secret | password'],
  azure: ['Client ID | req | username', 'Client Secret | req secret | password', 'Tenant ID | req | properties.tenant'],
  github: ['Personal Access Token | req secret | password'],
  gitlab: ['Personal Access Token | req secret | password'],
  restic: [
    'Password | req secret | password',
    'Repository URL | req | url',
    'AWS Connection Name | req | properties.awsConnectionName',
    'Access Key | req secret | properties.accessKey',
    'Secret Key | req secret | properties.secretKey',
  ],
  smb: ['Server | req | url', 'Port | | properties.port', 'Share | req | properties.share', 'Username | | username', 'Password | secret | password'],
  jmeter: ['Host | req | url', 'Port | | properties.port'],
  dynatrace: ['Host | req | url', 'API Key | req secret | password', 'Scheme | req | properties.scheme'],
  folder: ['Path | req | properties.path'],
  git: ['URL | req | url', 'Authentication | | form', 'Username | secret | username', 'Password | secret | password', 'SSH Key | secret | certificate', 'Ref | req | properties.ref'],
  // Notification types: every part lives in the URL; "req" marks the spec's and the URL's needs.
  discord: ['Webhook ID | req | url-part', 'Token | req secret | url-part'],
  email: [
    'Host | req | url-part',
    'Port | | url-part',
    'Username | secret | url-part',
    'Password | secret | url-part',
    'From Address | req | url-part',
    'From Name | req | url-part',
    'Encryption method | | url-part',
    'SMTP authentication method | | url-part',
    'Insecure TLS | | insecure_tls',
  ],
  google_chat: ['Key | req secret | url-part', 'Token | req secret | url-part', 'Webhook Name | req | url-part'],
  ifttt: ['Webhook ID | req | url-part'],
  mattermost: ['Username | | url-part', 'Host | req | url-part', 'Token | req secret | url-part', 'Channel | | url-part'],
  matrix: ['User | | url-part', 'Password or token | req secret | url-part', 'Host | req | url-part', 'Insecure TLS | | insecure_tls'],
  ntfy: ['Username | | url-part', 'Password | secret | url-part', 'Host | req | url-part', 'Topic | req | url-part', 'Insecure TLS | | insecure_tls'],
  opsgenie: ['Host | req | url-part', 'Port | | url-part', 'API Key | req secret | url-part'],
  pushbullet: ['Token | req secret | url-part', 'Targets | req | url-part'],
  pushover: ['User | req | url-part', 'Token | req secret | url-part'],
  rocketchat: ['Username | | url-part', 'Host | req | url-part', 'Port | | url-part', 'Token A | req secret | url-part', 'Token B | req secret | url-part', 'Channel | | url-part'],
  slack: ['Channel | req | url-part', 'Bot Token | req secret | url-part', 'Bot Name | | url-part'],
  teams: ['Group | req | url-part', 'Tenant | req | url-part', 'AltID | req | url-part', 'GroupOwner | req | url-part', 'Host | req | url-part'],
  telegram: ['Token | req secret | url-part', 'Chats | req | url-part'],
  zulip_chat: ['BotMail | req | url-part', 'BotKey | req secret | url-part', 'Host | req | url-part'],
  generic_webhook: [
    'URL | req | url-part',
    'ContentType | | url-part',
    'Request Method | | url-part',
    'Message Key | | url-part',
    'Title Key | | url-part',
    'Insecure TLS | | insecure_tls',
  ],
  slackwebhook: [],
  webhook: [],
}

const SPEC_TYPES =
  'anthropic, ollama, openai, aws, s3, azure, azure_devops, discord, dynatrace, elasticsearch, email, google_cloud, generic_webhook, git, github, google_chat, http, ifttt, jmeter, kubernetes, ldap, matrix, mattermost, mongo, mysql, ntfy, opsgenie, postgres, prometheus, pushbullet, pushover, redis, restic, rocketchat, sftp, slack, slackwebhook, smb, sql_server, teams, telegram, webhook, windows, zulip_chat, folder, gcs, gitlab'.split(
    ', ',
  )

const describeField = (field: ConnectionField): string =>
  `${field.label} | ${[field.required ? 'req' : '', field.kind === 'secret' ? 'secret' : ''].filter(Boolean).join(' ')} | ${field.storage}`.replace('|  |', '| |')

describe('the connection type catalogue', () => {
  it('has the 47 types of the spec, jmeter hidden from the grid', () => {
    expect(CONNECTION_TYPES.map((definition) => definition.type).sort()).toEqual([...SPEC_TYPES].sort())
    expect(SPEC_TYPES).toHaveLength(47)
    expect(listVisibleConnectionTypes().map((definition) => definition.type)).not.toContain('jmeter')
    expect(listVisibleConnectionTypes()).toHaveLength(46)
    for (const definition of CONNECTION_TYPES) expect(definition.displayName, definition.type).not.toBe('')
  })

  it.each(Object.entries(SPEC_TABLE))('%s has the spec’s fields, marks and storage', (type, expected) => {
    const definition = requireType(type)
    expect(definition.fields.map(describeField)).toEqual(expected)
  })

  it('every form starts with Name and Namespace (default "default")', () => {
    const defaults = connectionFormDefaults(requireType('postgres'))
    expect(defaults).toMatchObject({ name: '', namespace: 'default' })
  })

  it('groups types into families for the type grid', () => {
    expect(requireType('postgres').family).toBe('database')
    expect(requireType('aws').family).toBe('cloud')
    expect(requireType('openai').family).toBe('ai')
    expect(requireType('github').family).toBe('git')
    expect(requireType('http').family).toBe('http')
    expect(CONNECTION_TYPES.filter((definition) => definition.isNotification).map((definition) => definition.type).sort()).toEqual([...NOTIFICATION_URL_TYPES].sort())
    for (const type of NOTIFICATION_URL_TYPES) expect(requireType(type).family).toBe('notification')
  })

  it.each(CONNECTION_TYPES.map((definition) => [definition.type, definition] as const))('%s: the zod-free constraint equals the schema’s', (_type, definition) => {
    expect(connectionFormConstraint(definition)).toEqual(JSON.parse(JSON.stringify(getZodConstraint(buildConnectionFormSchema(definition)))))
  })
})

describe('defaults', () => {
  it.each([
    ['sftp', 'properties.port', '22'],
    ['smb', 'properties.port', '445'],
    ['email', 'port', '587'],
    ['opsgenie', 'port', '443'],
    ['opsgenie', 'host', 'api.opsgenie.com'],
    ['redis', 'properties.db', '0'],
    ['ntfy', 'host', 'ntfy.sh'],
    ['generic_webhook', 'contentType', 'application/json'],
    ['generic_webhook', 'requestMethod', 'POST'],
    ['generic_webhook', 'messageKey', 'message'],
    ['generic_webhook', 'titleKey', 'title'],
    ['git', 'properties.ref', 'main'],
    ['git', 'authentication', 'Basic'],
    ['email', 'encryption', 'Auto'],
    ['email', 'auth', 'Unknown'],
  ])('a new %s form starts with %s = %s', (type, name, value) => {
    const defaults = connectionFormDefaults(requireType(type))
    expect(name.split('.').reduce<unknown>((node, key) => (node as Record<string, unknown>)[key], defaults)).toBe(value)
  })

  it('an unrequired field posted empty gets its default', () => {
    const sftp = submitValid(requireType('sftp'), { name: 'files', namespace: 'ops', url: 'sftp.example.com', username: { value: 'u' }, password: { value: 'p' } })
    expect(connectionRowFromForm(requireType('sftp'), sftp).properties).toEqual({ port: '22' })
    const smb = submitValid(requireType('smb'), { name: 'share', namespace: 'ops', url: 'fs.example.com', properties: { share: 'data' } })
    expect(connectionRowFromForm(requireType('smb'), smb).properties).toEqual({ port: '445', share: 'data' })
    const email = submitValid(requireType('email'), { name: 'mail', namespace: 'ops', host: 'smtp.example.com', fromAddress: 'ops@example.com', fromName: 'Ops' })
    expect(connectionRowFromForm(requireType('email'), email).url).toBe(
      'smtp://smtp.example.com:587/?fromaddress=ops%40example.com&fromname=Ops&encryption=Auto&auth=Unknown&skiptlsverify=no',
    )
    const webhook = submitValid(requireType('generic_webhook'), { name: 'hook', namespace: 'ops', webhookUrl: 'https://hooks.example.com/in' })
    expect(connectionRowFromForm(requireType('generic_webhook'), webhook).url).toBe(
      'generic+https://hooks.example.com/in?contenttype=application%2Fjson&requestmethod=POST&messagekey=message&titlekey=title&disabletls=no',
    )
  })

  it('insecure_tls is written false unless ticked (the column defaults to true)', () => {
    const values = submitValid(requireType('http'), { name: 'api', namespace: 'ops', url: 'https://api.example.com', username: { value: 'u' }, password: { value: 'p' } })
    expect(connectionRowFromForm(requireType('http'), values).insecure_tls).toBe(false)
    const ticked = submitValid(requireType('http'), { name: 'api', namespace: 'ops', url: 'https://api.example.com', username: { value: 'u' }, password: { value: 'p' }, insecure_tls: true })
    expect(connectionRowFromForm(requireType('http'), ticked).insecure_tls).toBe(true)
  })
})

describe('required fields', () => {
  it.each(CONNECTION_TYPES.map((definition) => [definition.type, definition] as const))('%s refuses its required fields empty', (_type, definition) => {
    const submission = submit(definition, { namespace: '' })
    const errors = submission.reply().error ?? {}
    const expected = ['name', 'namespace']
    for (const field of definition.fields) if (field.required) expected.push(field.kind === 'secret' ? `${field.name}.value` : field.name)
    for (const name of expected) expect(errors[name], `${definition.type} ${name}`).toEqual([REQUIRED])
    const unexpected = Object.keys(errors).filter((name) => !expected.includes(name))
    expect(unexpected).toEqual([])
  })

  it('a required Secret or Config Map source needs both its name and key', () => {
    const errors = submit(requireType('postgres'), { name: 'db', namespace: 'ops', url: 'postgres://db', username: { value: 'app' }, password: { source: 'secret', name: 'pg' } }).reply().error
    expect(errors).toEqual({ 'password.key': [REQUIRED] })
  })

  it('refuses names and keys a placeholder could not hold, and ports out of range', () => {
    const errors = submit(requireType('sftp'), {
      name: 'files',
      namespace: 'ops',
      url: 'sftp.example.com',
      username: { source: 'configmap', name: 'Bad Name', key: 'user' },
      password: { source: 'secret', name: 'creds', key: 'pass/word' },
      properties: { port: '70000' },
    }).reply().error
    expect(errors).toEqual({
      'username.name': ['Must be a lowercase name: letters, digits, "-" and "."'],
      'password.key': ['Must be letters, digits, "-", "_" and "."'],
      'properties.port': ['Must be 65535 or less'],
    })
  })
})

describe('secret fields', () => {
  const postgres = requireType('postgres')
  const base = { name: 'db', namespace: 'ops', url: 'postgres://$(username):$(password)@db:5432/app', username: { value: 'app' } }

  it.each([
    ['static', { source: 'static', value: 's3cr3t' }, { value: 's3cr3t' }, 's3cr3t'],
    ['configmap', { source: 'configmap', name: 'pg-config', key: 'password' }, { valueFrom: { configMapKeyRef: { name: 'pg-config', key: 'password' } } }, 'configmap://pg-config/password'],
    ['secret', { source: 'secret', name: 'pg-creds', key: 'password' }, { valueFrom: { secretKeyRef: { name: 'pg-creds', key: 'password' } } }, 'secret://pg-creds/password'],
  ])('accepts a %s source and stores it in its column', (_mode, posted, source, stored) => {
    const values = submitValid(postgres, { ...base, password: posted })
    expect(values.password).toEqual(source)
    expect(EnvVarSourceSchema.parse(source)).toEqual(source)
    const row = connectionRowFromForm(postgres, values)
    expect(row.password).toBe(stored)
    expect(connectionFormDefaults(postgres, row).password).toEqual(posted)
  })

  it('keeps only the chosen mode’s answers (switching mode clears the other)', () => {
    const values = submitValid(postgres, { ...base, password: { source: 'secret', value: 'left over', name: 'pg-creds', key: 'password' } })
    expect(values.password).toEqual({ valueFrom: { secretKeyRef: { name: 'pg-creds', key: 'password' } } })
    const back = submitValid(postgres, { ...base, password: { source: 'static', value: 'typed', name: 'pg-creds', key: 'password' } })
    expect(back.password).toEqual({ value: 'typed' })
  })

  it('the env var source schema refuses two modes at once or a bad reference', () => {
    expect(EnvVarSourceSchema.safeParse({ value: 'x', valueFrom: { secretKeyRef: { name: 'a', key: 'b' } } }).success).toBe(false)
    expect(EnvVarSourceSchema.safeParse({ valueFrom: { secretKeyRef: { name: 'a' } } }).success).toBe(false)
    expect(EnvVarSourceSchema.safeParse({ valueFrom: { configMapKeyRef: { name: 'UPPER', key: 'k' } } }).success).toBe(false)
  })

  it('a masked password (***) opens as a static value and posts back unchanged', () => {
    const row: ConnectionRowFields = { name: 'db', namespace: 'ops', type: 'postgres', url: 'postgres://db', username: 'secret://pg/user', password: '***', certificate: null, insecure_tls: false, properties: {} }
    const again = connectionRowFromForm(postgres, submitValid(postgres, connectionFormDefaults(postgres, row)))
    expect(again).toEqual(row)
  })
})

/** A filled form for a type: every field answered, secrets in turn static, Secret and Config Map. */
function filledForm(definition: ConnectionTypeDefinition): Record<string, unknown> {
  const values: Record<string, unknown> = { name: `my-${definition.type}`, namespace: 'ops' }
  let secretTurn = 0
  const set = (path: string, value: unknown) => {
    const keys = path.split('.')
    const last = keys.pop()!
    let node = values
    for (const key of keys) node = (node[key] ??= {}) as Record<string, unknown>
    node[last] = value
  }
  for (const field of definition.fields) {
    if (field.kind === 'secret') {
      const turn = secretTurn++ % 3
      set(field.name, turn === 0 ? { source: 'static', value: `p@ss:w/rd?&=#%+ é ${field.name}` } : { source: turn === 1 ? 'secret' : 'configmap', name: 'creds', key: field.name.replace(/\W/g, '-') })
    } else if (field.kind === 'checkbox') set(field.name, true)
    else if (field.kind === 'number') set(field.name, field.name.endsWith('db') ? 3 : 2525)
    else if (field.kind === 'select') set(field.name, field.options!.at(-1))
    else if (field.name === 'webhookUrl') set(field.name, 'https://hooks.example.com/in/abc?team=ops')
    else if (field.name === 'host' || field.name === 'url') set(field.name, 'service.example.com')
    else set(field.name, `${field.label.replace(/\W/g, '')}-value`)
  }
  return values
}

describe('row ↔ form', () => {
  it.each(CONNECTION_TYPES.map((definition) => [definition.type, definition] as const))('%s: form → row → form → row gives the same row', (_type, definition) => {
    const row = connectionRowFromForm(definition, submitValid(definition, filledForm(definition)))
    expect(row.type).toBe(definition.type)
    const defaults = connectionFormDefaults(definition, row)
    expect(connectionRowFromForm(definition, submitValid(definition, defaults))).toEqual(row)
  })

  it('stores each answer where the catalogue says', () => {
    const redis = requireType('redis')
    const row = connectionRowFromForm(
      redis,
      submitValid(redis, { name: 'cache', namespace: 'ops', url: 'redis://cache:6379', properties: { db: '2' }, password: { source: 'secret', name: 'redis', key: 'pw' }, insecure_tls: true }),
    )
    expect(row).toEqual({ name: 'cache', namespace: 'ops', type: 'redis', url: 'redis://cache:6379', username: null, password: 'secret://redis/pw', certificate: null, insecure_tls: true, properties: { db: '2' } })
    const aws = requireType('aws')
    const awsRow = connectionRowFromForm(aws, submitValid(aws, { name: 'prod', namespace: 'ops', properties: { region: 'eu-west-1', insecureTLS: true }, username: { value: 'AKIA' } }))
    expect(awsRow).toMatchObject({ username: 'AKIA', password: null, insecure_tls: false, properties: { region: 'eu-west-1', insecureTLS: 'true' } })
  })

  it('git keeps only the chosen authentication’s credentials', () => {
    const git = requireType('git')
    const posted = { name: 'repo', namespace: 'ops', url: 'git@github.com:org/repo.git', username: { value: 'me' }, password: { value: 'pw' }, certificate: { source: 'secret', name: 'deploy-key', key: 'id_ed25519' }, properties: { ref: 'main' } }
    const ssh = connectionRowFromForm(git, submitValid(git, { ...posted, authentication: 'SSH' }))
    expect(ssh).toMatchObject({ username: null, password: null, certificate: 'secret://deploy-key/id_ed25519', properties: { ref: 'main' } })
    expect(connectionFormDefaults(git, ssh).authentication).toBe('SSH')
    const basic = connectionRowFromForm(git, submitValid(git, { ...posted, authentication: 'Basic', properties: { ref: 'release' } }))
    expect(basic).toMatchObject({ username: 'me', password: 'pw', certificate: null, properties: { ref: 'release' } })
    expect(connectionFormDefaults(git, basic).authentication).toBe('Basic')
  })
})

const STATIC_SPECIAL = 'p@ss:w/rd?&=#%+ é $(secret:a/b)'
const SECRET_REF: EnvVarSource = { valueFrom: { secretKeyRef: { name: 'chat-creds', key: 'token' } } }
const CONFIG_REF: EnvVarSource = { valueFrom: { configMapKeyRef: { name: 'chat-config', key: 'key.id' } } }

/** Each notification type's parts, secrets as a static value with special characters, a Secret and a Config Map in turn. */
function notificationParts(type: string): NotificationParts {
  const values = filledForm(requireType(type))
  const parts: NotificationParts = {}
  let turn = 0
  for (const field of requireType(type).fields) {
    if (field.kind === 'secret') parts[field.name] = [{ value: STATIC_SPECIAL }, SECRET_REF, CONFIG_REF][turn++ % 3]
    else if (field.kind === 'number') parts[field.name] = 2525
    else if (field.name === 'targets' || field.name === 'chats') parts[field.name] = '#ops,@on-call'
    else parts[field.name] = values[field.name] as NotificationParts[string]
  }
  return parts
}

describe('notification URLs', () => {
  it.each(NOTIFICATION_URL_TYPES)('%s: form → URL → form keeps every part', (type) => {
    const parts = notificationParts(type)
    const url = buildNotificationUrl(type, parts)
    expect(parseNotificationUrl(type, url)).toEqual(parts)
  })

  it.each(NOTIFICATION_URL_TYPES.filter((type) => requireType(type).fields.some((field) => field.kind === 'secret')))(
    '%s: Secret and Config Map sources stay placeholders, static values are encoded',
    (type) => {
      const secretFields = requireType(type).fields.filter((field) => field.kind === 'secret')
      for (const [source, placeholder] of [
        [SECRET_REF, '$(secret:chat-creds/token)'],
        [CONFIG_REF, '$(configmap:chat-config/key.id)'],
      ] as const) {
        const parts = { ...notificationParts(type), ...Object.fromEntries(secretFields.map((field) => [field.name, source])) }
        const url = buildNotificationUrl(type, parts)
        expect(url.split(placeholder).length - 1, url).toBe(secretFields.length)
        expect(parseNotificationUrl(type, url)).toEqual(parts)
      }
      const parts = { ...notificationParts(type), ...Object.fromEntries(secretFields.map((field) => [field.name, { value: STATIC_SPECIAL }])) }
      const url = buildNotificationUrl(type, parts)
      expect(url).not.toContain('$(')
      expect(url).not.toContain('#')
      expect(url).not.toContain(' ')
      expect(url).toContain('p%40ss')
      expect(parseNotificationUrl(type, url)).toEqual(parts)
    },
  )

  it.each([
    ['discord', { webhookId: '123456', token: { value: 'abc/def' } }, 'discord://abc%2Fdef@123456'],
    ['discord', { webhookId: '123456', token: SECRET_REF }, 'discord://$(secret:chat-creds/token)@123456'],
    ['slack', { channel: 'C0123', botToken: { value: 'xoxb-123456789012-abcDEF' }, botName: 'Look Out' }, 'slack://xoxb:123456789012-abcDEF@C0123?botname=Look%20Out'],
    ['telegram', { token: { value: '110201543:AAHdqTcv' }, chats: '@ops, 1234' }, 'telegram://110201543:AAHdqTcv@telegram?chats=%40ops%2C1234'],
    ['pushover', { user: 'u123', token: CONFIG_REF }, 'pushover://shoutrrr:$(configmap:chat-config/key.id)@u123/'],
    ['ntfy', { host: 'ntfy.sh', topic: 'alerts', insecure_tls: true }, 'ntfy://ntfy.sh/alerts?scheme=http'],
    ['opsgenie', { apiKey: { value: 'k' } }, 'opsgenie://api.opsgenie.com:443/k'],
    ['teams', { group: 'g', tenant: 't', altId: 'a', groupOwner: 'o' }, 'teams://g@t/a/o?host=outlook.office.com'],
    ['rocketchat', { username: 'bot', host: 'chat.example.com', port: 3000, tokenA: { value: 'A' }, tokenB: { value: 'B' }, channel: '#general' }, 'rocketchat://bot@chat.example.com:3000/A/B/%23general'],
    ['google_chat', { webhookName: 'AAA', key: { value: 'k' }, token: SECRET_REF }, 'googlechat://chat.googleapis.com/v1/spaces/AAA/messages?key=k&token=$(secret:chat-creds/token)'],
    ['zulip_chat', { botMail: 'bot@example.com', botKey: { value: 'key' }, host: 'zulip.example.com' }, 'zulip://bot%40example.com:key@zulip.example.com/'],
    ['matrix', { user: '', password: { value: 'tok' }, host: 'matrix.org' }, 'matrix://:tok@matrix.org/?disableTLS=no'],
    ['mattermost', { host: 'mm.example.com:8065', token: { value: 'tok' } }, 'mattermost://mm.example.com:8065/tok'],
    ['pushbullet', { token: { value: 'tok' }, targets: 'phone, #channel' }, 'pushbullet://tok/phone/%23channel'],
    ['ifttt', { webhookId: 'hook1' }, 'ifttt://hook1/'],
  ] as const)('%s writes Shoutrrr’s format', (type, parts, url) => {
    expect(buildNotificationUrl(type, parts as NotificationParts)).toBe(url)
  })

  it('a generic webhook keeps its target’s own query apart from Shoutrrr’s keys', () => {
    const parts = { webhookUrl: 'https://hooks.example.com/in?team=ops&x=a%20b', contentType: 'text/plain', requestMethod: 'GET', messageKey: 'text', titleKey: 'subject', insecure_tls: true }
    const url = buildNotificationUrl('generic_webhook', parts)
    expect(url).toBe('generic+https://hooks.example.com/in?team=ops&x=a%20b&contenttype=text%2Fplain&requestmethod=GET&messagekey=text&titlekey=subject&disabletls=yes')
    expect(parseNotificationUrl('generic_webhook', url)).toEqual(parts)
    const refused = submit(requireType('generic_webhook'), { name: 'hook', namespace: 'ops', webhookUrl: 'ftp://files' }).reply().error
    expect(refused).toEqual({ webhookUrl: ['Must be an http or https URL'] })
  })

  it('reads a URL that templates the row’s columns ($(password)) back into their sources', () => {
    const row = { name: 'chat', namespace: 'ops', type: 'discord', url: 'discord://$(password)@123456', username: null, password: 'secret://discord/token', certificate: null, insecure_tls: false, properties: {} }
    expect(connectionFormDefaults(requireType('discord'), row)).toMatchObject({ webhookId: '123456', token: { source: 'secret', name: 'discord', key: 'token' } })
  })

  it('refuses a URL of another scheme', () => {
    expect(() => parseNotificationUrl('slack', 'discord://a@b')).toThrow('A slack URL starts with slack://, not discord://')
  })
})
