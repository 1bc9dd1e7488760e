import { z } from 'zod'
import { resourceDocumentSchema, ResourceValidationError, zodIssues } from '#contract/resource-document.ts'
import { buildNotificationUrl, NotificationUrlError, type NotificationParts } from './notification-url.ts'
import type { EnvVarSource } from './connection-types.ts'

/**
 * The Connection resource (`mission-control.flanksource.com/v1`, kind `Connection`,
 * resource-specs §3.5) as users write it for `npx lookout apply -f`: one typed block
 * (`postgres:`, `http:`, `slack:` …) plus optional `properties`, or the deprecated flat fields.
 * It becomes the flat `connections` row (data-model §10.5) the data API stores: EnvVar values
 * as the row keeps them (a static value, or `secret://name/key` / `configmap://name/key` /
 * `helm://name/key` / `serviceaccount://name`), and the notification blocks as the Shoutrrr URL
 * the console's forms build (notification-url.ts).
 */

export const CONNECTION_API_VERSION = 'mission-control.flanksource.com/v1'

const text = z.string({ invalid_type_error: 'must be a string' })
const nonEmpty = text.min(1, 'must not be empty')
const optionalBoolean = z.boolean({ invalid_type_error: 'must be true or false' }).optional()
const port = z.union([z.number().int().min(1).max(65_535), z.string().regex(/^\d{1,5}$/, 'must be a port number')], { errorMap: () => ({ message: 'must be a port number' }) })

const ValueFromSchema = z
  .object({
    secretKeyRef: z.object({ name: nonEmpty, key: nonEmpty }).passthrough().optional(),
    configMapKeyRef: z.object({ name: nonEmpty, key: nonEmpty }).passthrough().optional(),
    helmRef: z.object({ name: nonEmpty, key: nonEmpty }).passthrough().optional(),
    serviceAccount: nonEmpty.optional(),
  })
  .passthrough()
  .superRefine((source, ctx) => {
    const set = (['secretKeyRef', 'configMapKeyRef', 'helmRef', 'serviceAccount'] as const).filter((key) => source[key] !== undefined)
    if (set.length !== 1) ctx.addIssue({ code: z.ZodIssueCode.custom, message: set.length === 0 ? 'needs one of secretKeyRef, configMapKeyRef, helmRef, serviceAccount' : `set only one of ${set.join(', ')}` })
  })
/** EnvVar (resource-specs §0.2): a plain string, `{value}` or `{valueFrom}`. */
const EnvVarSchema = z.union([text, z.object({ name: text.optional(), value: text.optional(), valueFrom: ValueFromSchema.optional() }).passthrough()], {
  errorMap: () => ({ message: 'must be a string or {value | valueFrom}' }),
})
type EnvVar = z.infer<typeof EnvVarSchema>

const block = (shape: z.ZodRawShape) => z.object(shape).passthrough()
const ev = EnvVarSchema.optional()
const sqlShape = { url: ev, host: ev, username: ev, password: ev, database: ev, insecureTLS: optionalBoolean }
const httpShape = {
  url: ev,
  insecureTLS: optionalBoolean,
  username: ev,
  password: ev,
  bearer: ev,
  oauth: block({ clientID: ev, clientSecret: ev, tokenURL: text.optional(), scope: z.union([text, z.array(text)]).optional(), params: z.record(text).optional() }).optional(),
  tls: block({ ca: ev, cert: ev, key: ev, insecureSkipVerify: optionalBoolean, handshakeTimeout: z.unknown().optional() }).optional(),
  headers: z.array(z.unknown()).optional(),
  awsSigV4: z.unknown().optional(),
}
const awsShape = { url: ev, region: text.optional(), profile: text.optional(), insecureTLS: optionalBoolean, accessKey: ev, secretKey: ev, sessionToken: ev, assumeRole: text.optional() }
const azureShape = { clientID: ev, clientSecret: ev, tenantID: ev }
const gcpShape = { endpoint: ev, certificate: ev, project: text.optional() }
const aiShape = { model: text.optional(), url: ev, apiKey: ev }

/** Each typed block and the `connections.type` it stores (data-model value set). */
const BLOCKS = {
  postgres: { type: 'postgres', schema: block(sqlShape) },
  mysql: { type: 'mysql', schema: block(sqlShape) },
  mssql: { type: 'sql_server', schema: block({ ...sqlShape, trustServerCertificate: optionalBoolean }) },
  mongo: { type: 'mongo', schema: block({ ...sqlShape, replicaSet: text.optional() }) },
  redis: { type: 'redis', schema: block({ url: ev, username: ev, password: ev }) },
  elasticsearch: { type: 'elasticsearch', schema: block({ url: ev, username: ev, password: ev, insecureTLS: optionalBoolean }) },
  opensearch: { type: 'opensearch', schema: block({ url: ev, username: ev, password: ev, insecureTLS: optionalBoolean }) },
  loki: { type: 'loki', schema: block({ url: ev, username: ev, password: ev }) },
  http: { type: 'http', schema: block(httpShape) },
  prometheus: { type: 'prometheus', schema: block({ url: ev, username: ev, password: ev, bearer: ev, oauth: httpShape.oauth, tls: httpShape.tls }) },
  aws: { type: 'aws', schema: block(awsShape) },
  s3: { type: 's3', schema: block({ ...awsShape, bucket: text.optional(), usePathStyle: optionalBoolean }) },
  awskms: { type: 'aws_kms', schema: block({ ...awsShape, keyID: text.optional() }) },
  azure: { type: 'azure', schema: block(azureShape) },
  azureKeyVault: { type: 'azure_key_vault', schema: block({ ...azureShape, keyID: text.optional() }) },
  azureDevops: { type: 'azure_devops', schema: block({ url: ev, organization: ev, personalAccessToken: ev }) },
  gcp: { type: 'google_cloud', schema: block(gcpShape) },
  gcs: { type: 'gcs', schema: block({ ...gcpShape, bucket: text.optional() }) },
  gcpkms: { type: 'gcp_kms', schema: block({ ...gcpShape, keyID: text.optional() }) },
  git: { type: 'git', schema: block({ url: ev, ref: text.optional(), certificate: ev, username: ev, password: ev }) },
  github: { type: 'github', schema: block({ url: ev, personalAccessToken: ev }) },
  gitlab: { type: 'gitlab', schema: block({ url: ev, personalAccessToken: ev }) },
  kubernetes: { type: 'kubernetes', schema: block({ certificate: ev }) },
  folder: { type: 'folder', schema: block({ path: nonEmpty }) },
  sftp: { type: 'sftp', schema: block({ host: nonEmpty, username: ev, password: ev, port: port.optional(), path: text.optional() }) },
  smb: { type: 'smb', schema: block({ server: nonEmpty, username: ev, password: ev, port: port.optional(), share: text.optional() }) },
  openai: { type: 'openai', schema: block(aiShape) },
  anthropic: { type: 'anthropic', schema: block(aiShape) },
  ollama: { type: 'ollama', schema: block(aiShape) },
  gemini: { type: 'gemini', schema: block({ model: text.optional(), apiKey: ev }) },
  facet: { type: 'facet', schema: block({ url: ev, token: ev, timestampUrl: text.optional() }) },
  slack: { type: 'slack', schema: block({ token: ev, channel: text.optional(), botName: text.optional(), color: text.optional(), icon: text.optional(), thread_ts: text.optional(), title: text.optional() }) },
  smtp: {
    type: 'email',
    schema: block({
      host: nonEmpty,
      port: port.optional(),
      username: ev,
      password: ev,
      insecureTLS: optionalBoolean,
      encryption: z.enum(['None', 'ExplicitTLS', 'ImplicitTLS', 'Auto'], { errorMap: () => ({ message: 'must be one of None, ExplicitTLS, ImplicitTLS, Auto' }) }).optional(),
      auth: z.enum(['none', 'plain', 'oauth2', 'None', 'Plain', 'OAuth2'], { errorMap: () => ({ message: 'must be one of none, plain, oauth2' }) }).optional(),
      fromAddress: text.optional(),
      fromName: text.optional(),
      toAddresses: z.union([text, z.array(text)]).optional(),
      subject: text.optional(),
      headers: z.record(text).optional(),
    }),
  },
  telegram: { type: 'telegram', schema: block({ token: ev, chats: z.union([text, z.array(text)]).optional() }) },
  discord: { type: 'discord', schema: block({ token: ev, webhookID: text.optional() }) },
  ntfy: { type: 'ntfy', schema: block({ topic: text.optional(), host: text.optional(), username: ev, password: ev }) },
  pushbullet: { type: 'pushbullet', schema: block({ token: ev, targets: z.union([text, z.array(text)]).optional() }) },
  pushover: { type: 'pushover', schema: block({ token: ev, user: text.optional() }) },
} as const
type BlockKey = keyof typeof BLOCKS
export const CONNECTION_BLOCKS = Object.keys(BLOCKS) as BlockKey[]

const MetadataSchema = z
  .object({
    name: z.string({ required_error: 'is required', invalid_type_error: 'must be a string' }).min(1, 'must not be empty'),
    namespace: text.optional(),
    labels: z.record(text).optional(),
    annotations: z.record(text).optional(),
  })
  .passthrough()

const SpecSchema = z
  .object({
    ...Object.fromEntries(CONNECTION_BLOCKS.map((key) => [key, BLOCKS[key].schema.optional()])),
    properties: z.record(z.union([text, z.number(), z.boolean()])).optional(),
    // Deprecated flat fields (resource-specs §3.5).
    type: text.optional(),
    url: ev,
    port: port.optional(),
    username: ev,
    password: ev,
    certificate: ev,
    insecure_tls: optionalBoolean,
  })
  .passthrough()
  .superRefine((spec, ctx) => {
    const blocks = CONNECTION_BLOCKS.filter((key) => (spec as Record<string, unknown>)[key] !== undefined)
    if (blocks.length > 1) ctx.addIssue({ code: z.ZodIssueCode.custom, message: `set only one connection type, not ${blocks.join(', ')}` })
    if (blocks.length === 0 && !spec.type) ctx.addIssue({ code: z.ZodIssueCode.custom, message: `needs one connection type block (${CONNECTION_BLOCKS.join(', ')}) or the deprecated type` })
  })

export const ConnectionDocumentSchema = resourceDocumentSchema(CONNECTION_API_VERSION, 'Connection', MetadataSchema, SpecSchema)

/** The flat `connections` row a Connection document becomes (without id and source). */
export type ConnectionRowInput = {
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

export type ParsedConnection = { name: string; namespace: string; row: ConnectionRowInput }

/** An EnvVar as its source, for the Shoutrrr URL builder. */
function sourceOf(value: EnvVar | undefined): EnvVarSource | undefined {
  if (value === undefined) return undefined
  if (typeof value === 'string') return { value }
  if (value.valueFrom?.secretKeyRef) return { valueFrom: { secretKeyRef: { name: value.valueFrom.secretKeyRef.name, key: value.valueFrom.secretKeyRef.key } } }
  if (value.valueFrom?.configMapKeyRef) return { valueFrom: { configMapKeyRef: { name: value.valueFrom.configMapKeyRef.name, key: value.valueFrom.configMapKeyRef.key } } }
  return value.value === undefined ? undefined : { value: value.value }
}

/** An EnvVar as a `connections` column keeps it (data-model §10.5 reference forms). */
export function storedEnvVar(value: EnvVar | undefined): string | null {
  if (value === undefined) return null
  if (typeof value === 'string') return value
  const from = value.valueFrom
  if (from?.secretKeyRef) return `secret://${from.secretKeyRef.name}/${from.secretKeyRef.key}`
  if (from?.configMapKeyRef) return `configmap://${from.configMapKeyRef.name}/${from.configMapKeyRef.key}`
  if (from?.helmRef) return `helm://${from.helmRef.name}/${from.helmRef.key}`
  if (from?.serviceAccount) return `serviceaccount://${from.serviceAccount}`
  return value.value ?? null
}

const listText = (value: string | string[] | undefined): string | undefined => (Array.isArray(value) ? value.join(',') : value)

/** A SQL block's URL: its `url`, or one built from `host` and `database` (credentials come from the columns). */
function sqlUrl(scheme: string, spec: Record<string, unknown>, extra = ''): string | null {
  const url = storedEnvVar(spec.url as EnvVar | undefined)
  if (url) return url
  const host = storedEnvVar(spec.host as EnvVar | undefined)
  if (!host) return null
  if (/^[a-z]+:\/\//.test(host)) return host
  const database = storedEnvVar(spec.database as EnvVar | undefined) ?? ''
  if (scheme === 'sqlserver') return `sqlserver://${host}${database ? `?database=${encodeURIComponent(database)}` : ''}`
  return `${scheme}://${host}/${encodeURIComponent(database)}${extra}`
}

/** The row fields of one typed block. */
function rowOfBlock(key: BlockKey, spec: Record<string, unknown>): Omit<ConnectionRowInput, 'name' | 'namespace' | 'type'> {
  const s = (name: string) => storedEnvVar(spec[name] as EnvVar | undefined)
  const properties: Record<string, string> = {}
  const keep = (name: string, value: unknown) => {
    if (value === undefined || value === null || value === '') return
    properties[name] = typeof value === 'object' ? JSON.stringify(value) : String(value)
  }
  const insecure = spec.insecureTLS === true
  const base = { url: null as string | null, username: s('username'), password: s('password'), certificate: null as string | null, insecure_tls: insecure, properties }
  switch (key) {
    case 'postgres':
      return { ...base, url: sqlUrl('postgres', spec) }
    case 'mysql':
      return { ...base, url: sqlUrl('mysql', spec) }
    case 'mssql':
      keep('trustServerCertificate', spec.trustServerCertificate)
      return { ...base, url: sqlUrl('sqlserver', spec), insecure_tls: spec.trustServerCertificate === true }
    case 'mongo':
      return { ...base, url: sqlUrl('mongodb', spec, typeof spec.replicaSet === 'string' ? `?replicaSet=${encodeURIComponent(spec.replicaSet)}` : '') }
    case 'redis':
    case 'elasticsearch':
    case 'opensearch':
    case 'loki':
      return { ...base, url: s('url') }
    case 'http':
    case 'prometheus': {
      keep('bearer', s('bearer'))
      const oauth = spec.oauth as Record<string, unknown> | undefined
      if (oauth) {
        keep('clientID', storedEnvVar(oauth.clientID as EnvVar | undefined))
        keep('clientSecret', storedEnvVar(oauth.clientSecret as EnvVar | undefined))
        keep('tokenURL', oauth.tokenURL)
        keep('scope', listText(oauth.scope as string | string[] | undefined))
        keep('params', oauth.params)
      }
      const tls = spec.tls as Record<string, unknown> | undefined
      if (tls) {
        keep('ca', storedEnvVar(tls.ca as EnvVar | undefined))
        keep('cert', storedEnvVar(tls.cert as EnvVar | undefined))
        keep('privateKey', storedEnvVar(tls.key as EnvVar | undefined))
        keep('handshakeTimeout', tls.handshakeTimeout)
      }
      keep('headers', spec.headers)
      keep('awsSigV4', spec.awsSigV4)
      return { ...base, url: s('url'), insecure_tls: insecure || tls?.insecureSkipVerify === true }
    }
    case 'aws':
    case 's3':
    case 'awskms':
      for (const name of ['region', 'profile', 'assumeRole', 'bucket', 'keyID']) keep(name, spec[name])
      keep('sessionToken', s('sessionToken'))
      keep('usePathStyle', spec.usePathStyle)
      if (spec.insecureTLS !== undefined) keep('insecureTLS', spec.insecureTLS)
      return { ...base, url: s('url'), username: s('accessKey'), password: s('secretKey') }
    case 'azure':
    case 'azureKeyVault':
      keep('tenant', s('tenantID'))
      keep('keyID', spec.keyID)
      return { ...base, username: s('clientID'), password: s('clientSecret') }
    case 'azureDevops':
      return { ...base, url: s('url'), username: s('organization'), password: s('personalAccessToken') }
    case 'gcp':
    case 'gcs':
    case 'gcpkms':
      keep('project', spec.project)
      keep('bucket', spec.bucket)
      keep('keyID', spec.keyID)
      return { ...base, url: s('endpoint'), certificate: s('certificate') }
    case 'git':
      keep('ref', spec.ref)
      return { ...base, url: s('url'), certificate: s('certificate') }
    case 'github':
    case 'gitlab':
      return { ...base, url: s('url'), password: s('personalAccessToken') }
    case 'kubernetes':
      return { ...base, certificate: s('certificate') }
    case 'folder':
      keep('path', spec.path)
      return base
    case 'sftp':
      keep('port', spec.port ?? 22)
      keep('path', spec.path)
      return { ...base, url: String(spec.host) }
    case 'smb':
      keep('port', spec.port ?? 445)
      keep('share', spec.share)
      return { ...base, url: String(spec.server) }
    case 'openai':
    case 'anthropic':
    case 'ollama':
    case 'gemini':
      keep('model', spec.model)
      return { ...base, url: s('url'), password: s('apiKey') }
    case 'facet':
      keep('timestampUrl', spec.timestampUrl)
      return { ...base, url: s('url'), password: s('token') }
    default:
      return notificationRow(key, spec, base)
  }
}

/** The notification blocks: their Shoutrrr URL, as the console's forms build it. */
function notificationRow(key: BlockKey, spec: Record<string, unknown>, base: Omit<ConnectionRowInput, 'name' | 'namespace' | 'type'>): Omit<ConnectionRowInput, 'name' | 'namespace' | 'type'> {
  const source = (name: string) => sourceOf(spec[name] as EnvVar | undefined)
  const textOf = (name: string) => (typeof spec[name] === 'string' || typeof spec[name] === 'number' ? String(spec[name]) : undefined)
  let parts: NotificationParts
  const properties = { ...base.properties }
  switch (key) {
    case 'slack':
      parts = { channel: textOf('channel'), botToken: source('token'), botName: textOf('botName') }
      for (const name of ['color', 'icon', 'thread_ts', 'title']) if (textOf(name)) properties[name] = textOf(name)!
      break
    case 'smtp':
      parts = {
        host: textOf('host'),
        port: textOf('port') ?? '587',
        username: source('username'),
        password: source('password'),
        fromAddress: textOf('fromAddress'),
        fromName: textOf('fromName'),
        encryption: textOf('encryption') ?? 'Auto',
        auth: { none: 'None', plain: 'Plain', oauth2: 'OAuth2' }[String(spec.auth ?? '').toLowerCase()] ?? 'Unknown',
        insecure_tls: spec.insecureTLS === true,
      }
      if (spec.toAddresses !== undefined) properties.to = listText(spec.toAddresses as string | string[])!
      if (textOf('subject')) properties.subject = textOf('subject')!
      if (spec.headers !== undefined) properties.headers = JSON.stringify(spec.headers)
      break
    case 'telegram':
      parts = { token: source('token'), chats: listText(spec.chats as string | string[] | undefined) }
      break
    case 'discord':
      parts = { token: source('token'), webhookId: textOf('webhookID') }
      break
    case 'ntfy':
      parts = { topic: textOf('topic'), host: textOf('host') ?? 'ntfy.sh', username: textOf('username') ?? storedEnvVar(spec.username as EnvVar | undefined) ?? undefined, password: source('password') }
      break
    case 'pushbullet':
      parts = { token: source('token'), targets: listText(spec.targets as string | string[] | undefined) }
      break
    case 'pushover':
      parts = { token: source('token'), user: textOf('user') }
      break
    default:
      throw new NotificationUrlError(`${key} is not a notification block`)
  }
  return { ...base, username: null, password: null, url: buildNotificationUrl(BLOCKS[key].type, parts), insecure_tls: spec.insecureTLS === true, properties }
}

/**
 * A parsed Connection document as its `connections` row. Throws ResourceValidationError with
 * every problem's field path (under `prefix`, e.g. the document's index in a file).
 */
export function parseConnectionDocument(document: unknown, prefix: (string | number)[] = []): ParsedConnection {
  const parsed = ConnectionDocumentSchema.safeParse(document)
  if (!parsed.success) throw new ResourceValidationError(zodIssues(parsed.error, prefix))
  const { metadata, spec } = parsed.data
  const name = metadata.name
  const namespace = metadata.namespace || 'default'
  const raw = spec as Record<string, unknown>
  const key = CONNECTION_BLOCKS.find((candidate) => raw[candidate] !== undefined)
  let fields: Omit<ConnectionRowInput, 'name' | 'namespace' | 'type'>
  let type: string
  try {
    if (key) {
      type = BLOCKS[key].type
      fields = rowOfBlock(key, raw[key] as Record<string, unknown>)
    } else {
      type = spec.type!
      const properties: Record<string, string> = {}
      if (spec.port !== undefined) properties.port = String(spec.port)
      fields = {
        url: storedEnvVar(spec.url),
        username: storedEnvVar(spec.username),
        password: storedEnvVar(spec.password),
        certificate: storedEnvVar(spec.certificate),
        insecure_tls: spec.insecure_tls === true,
        properties,
      }
    }
  } catch (error) {
    if (error instanceof NotificationUrlError) {
      throw new ResourceValidationError([{ path: [...prefix.map(String), 'spec', ...(key ? [key] : []), ...(error.field ? [error.field] : [])].join('.'), message: error.message }])
    }
    throw error
  }
  for (const [propertyKey, value] of Object.entries(spec.properties ?? {})) fields.properties[propertyKey] = String(value)
  return { name, namespace, row: { name, namespace, type, ...fields } }
}
