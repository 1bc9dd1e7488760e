import { getConnectionType } from '#contract/connections/connection-types.ts'
import { NOTIFICATION_URL_TYPES, parseNotificationUrl, type NotificationPart } from '#contract/connections/notification-url.ts'
import type { Queryable } from '#server/db/client.ts'
import type { StoredConnection } from '#server/backend/health/check-result.ts'
import { openSecret, sealSecret, isSealed } from '#server/backend/secrets/sealed-secrets.ts'

/**
 * Secrets of `connections` rows at rest (issue 17 item 1): `password`, `certificate`, secret
 * `properties` values and the secrets inside `url` are sealed with the key of the secret playbook
 * parameters (sealed-secrets.ts: AES-256-GCM, LOOKOUT_SECRET_KEY or the key kept in the
 * database), so one key protects every secret of the server.
 *
 * Whole columns and properties keep sealed-secrets' stored form (`lookout:enc:v1:…`). A URL
 * keeps its shape and only its secret parts are replaced by a URL-safe token
 * (`lookout~enc~v1~<env|db>~<base64url>~`): the scheme and host stay readable, so
 * `connection_category(url)` and the list still work, and the token survives every URL part
 * (userinfo, path, query) because it holds only unreserved characters.
 *
 * References (`secret://name/key`, `configmap://…`, `helm://…`, `serviceaccount://…`), the
 * masked `***` the console sends back, empty values and `$(…)` templates are stored as written.
 */

export const MASK = '***'
const STORED_PREFIX = 'lookout:enc:v1:'
const URL_TOKEN = /lookout~enc~v1~(env|db)~([A-Za-z0-9_-]+)~/g
const REFERENCE = /^(secret|configmap|helm|serviceaccount):\/\//
const PLACEHOLDER = /^\$\([^()]*\)$/
/** Property keys that hold a secret whatever the type's form says (restic's keys, API tokens…). */
const SECRET_PROPERTY_NAMES = /^(password|passwd|secret|secretkey|secret_key|clientsecret|client_secret|token|accesstoken|access_token|apikey|api_key|accesskey|access_key|privatekey|private_key|bearer|personalaccesstoken)$/i
/** Query parameters of a URL that carry a credential. */
const SECRET_QUERY_NAMES = /^(password|passwd|pass|secret|token|access_token|accesstoken|apikey|api_key|api-key|key|auth|sig|signature|client_secret)$/i

/** A value that is kept as written: empty, the mask, a reference to a secret store, a placeholder, or already sealed. */
export function isPlainStorable(value: string): boolean {
  return value === '' || value === MASK || REFERENCE.test(value) || PLACEHOLDER.test(value.trim()) || value.includes('lookout~enc~v1~') || isSealed(value)
}

/** Whether a value points at a Kubernetes secret store (or a URL holds such a placeholder). */
export function kubernetesReferenceOf(value: string): string | null {
  const match = REFERENCE.exec(value)
  if (match) return value
  const placeholder = /\$\((secret|configmap):[^()]+\)/.exec(value)
  return placeholder ? placeholder[0] : null
}

export class ConnectionSecretError extends Error {}

/** The `properties` keys of a type that hold secrets: the type's secret fields kept in properties, and the usual secret names. */
export function isSecretProperty(type: string | undefined, key: string): boolean {
  if (SECRET_PROPERTY_NAMES.test(key)) return true
  const definition = type ? getConnectionType(type) : null
  return Boolean(definition?.fields.some((field) => field.kind === 'secret' && field.storage === `properties.${key}`))
}

function percentEncoded(text: string): string {
  return encodeURIComponent(text).replace(/[!'()*]/g, (char) => `%${char.charCodeAt(0).toString(16).toUpperCase()}`)
}

function staticPart(part: NotificationPart | undefined): string | null {
  if (typeof part === 'string') return part
  if (part && typeof part === 'object' && 'value' in part) return part.value
  return null
}

/**
 * The substrings of a URL that are secrets, as they appear in it: the userinfo password, credential
 * query parameters, and for notification types the parts their form marks secret.
 */
export function urlSecrets(url: string, type?: string): string[] {
  const found = new Set<string>()
  const schemeEnd = url.indexOf('://')
  if (schemeEnd < 0) return []
  const rest = url.slice(schemeEnd + 3)
  const authority = rest.split(/[/?#]/, 1)[0] ?? ''
  const at = authority.lastIndexOf('@')
  if (at >= 0) {
    const userinfo = authority.slice(0, at)
    const colon = userinfo.indexOf(':')
    if (colon >= 0) found.add(userinfo.slice(colon + 1))
    // Shoutrrr URLs without a user (discord://token@id, telegram://token@telegram) keep the token there.
    else if (type && NOTIFICATION_URL_TYPES.includes(type)) found.add(userinfo)
  }
  const query = rest.includes('?') ? rest.slice(rest.indexOf('?') + 1).split('#')[0]! : ''
  for (const pair of query.split('&')) {
    const equals = pair.indexOf('=')
    if (equals > 0 && SECRET_QUERY_NAMES.test(pair.slice(0, equals))) found.add(pair.slice(equals + 1))
  }
  if (type && NOTIFICATION_URL_TYPES.includes(type)) {
    const definition = getConnectionType(type)
    try {
      const parts = parseNotificationUrl(type, url)
      for (const field of definition?.fields ?? []) {
        if (field.kind !== 'secret' || field.storage !== 'url-part') continue
        const value = staticPart(parts[field.name])
        if (value) {
          found.add(percentEncoded(value))
          found.add(value)
        }
      }
    } catch {
      // A URL its codec cannot read keeps the generic rules above.
    }
  }
  return [...found].filter((secret) => secret !== '' && !isPlainStorable(secret) && rest.includes(secret)).sort((a, b) => b.length - a.length)
}

/** Replaces each secret of `url` (after its scheme) with what `replace` gives. */
async function replaceUrlSecrets(url: string, type: string | undefined, replace: (secret: string) => Promise<string>): Promise<string> {
  const secrets = urlSecrets(url, type)
  if (secrets.length === 0) return url
  const schemeEnd = url.indexOf('://') + 3
  let rest = url.slice(schemeEnd)
  for (const secret of secrets) {
    if (!rest.includes(secret)) continue
    rest = rest.split(secret).join(await replace(secret))
  }
  return url.slice(0, schemeEnd) + rest
}

async function sealUrlPart(db: Queryable, secret: string): Promise<string> {
  const stored = await sealSecret(db, secret)
  const [source, packed] = stored.slice(STORED_PREFIX.length).split(':') as [string, string]
  return `lookout~enc~v1~${source}~${Buffer.from(packed, 'base64').toString('base64url')}~`
}

export async function sealValue(db: Queryable, value: string): Promise<string> {
  return isPlainStorable(value) ? value : sealSecret(db, value)
}

/** A URL with its secret parts sealed in place. */
export async function sealUrl(db: Queryable, url: string, type?: string): Promise<string> {
  return replaceUrlSecrets(url, type, (secret) => sealUrlPart(db, secret))
}

/** A URL with its sealed parts opened. */
export async function openUrl(db: Queryable, url: string): Promise<string> {
  const tokens = [...url.matchAll(URL_TOKEN)]
  let out = url
  for (const token of tokens) {
    const stored = `${STORED_PREFIX}${token[1]}:${Buffer.from(token[2]!, 'base64url').toString('base64')}`
    out = out.split(token[0]).join(await openSecret(db, stored))
  }
  return out
}

/** What a reader who may not edit the connection sees of a URL: sealed and plain secrets as `***`. */
export function maskUrl(url: string, type?: string): string {
  const sealedMasked = url.replace(URL_TOKEN, MASK)
  const secrets = urlSecrets(sealedMasked, type)
  if (secrets.length === 0) return sealedMasked
  const schemeEnd = sealedMasked.indexOf('://') + 3
  let rest = sealedMasked.slice(schemeEnd)
  for (const secret of secrets) rest = rest.split(secret).join(MASK)
  return sealedMasked.slice(0, schemeEnd) + rest
}

/** mask_secret of migration 0011: `***` unless empty or a reference. */
export function maskValue(value: unknown): unknown {
  if (typeof value !== 'string' || value === '' || REFERENCE.test(value)) return value
  return MASK
}

function isRecord(value: unknown): value is Record<string, unknown> {
  return Boolean(value) && typeof value === 'object' && !Array.isArray(value)
}

/** A row as written to `connections`, with its secrets sealed (the write hook). Absent columns stay absent. */
export async function sealConnectionRow(db: Queryable, row: Record<string, unknown>, knownType?: string): Promise<Record<string, unknown>> {
  const out = { ...row }
  const type = typeof row.type === 'string' ? row.type : knownType
  for (const column of ['password', 'certificate'] as const) {
    if (typeof out[column] === 'string') out[column] = await sealValue(db, out[column])
  }
  if (typeof out.url === 'string') out.url = await sealUrl(db, out.url, type)
  if (isRecord(out.properties)) {
    const properties: Record<string, unknown> = {}
    for (const [key, value] of Object.entries(out.properties)) {
      properties[key] = typeof value === 'string' && isSecretProperty(type, key) ? await sealValue(db, value) : value
    }
    out.properties = properties
  }
  return out
}

/** A stored value opened; values never sealed come back as they are. */
export async function openValue(db: Queryable, value: string): Promise<string> {
  return isSealed(value) ? openSecret(db, value) : value
}

/** A row read from `connections` with every sealed value opened (for its editors and the server's own use). */
export async function openConnectionRow<T extends Record<string, unknown>>(db: Queryable, row: T): Promise<T> {
  const out: Record<string, unknown> = { ...row }
  for (const column of ['username', 'password', 'certificate'] as const) {
    if (typeof out[column] === 'string') out[column] = await openValue(db, out[column])
  }
  if (typeof out.url === 'string') out.url = await openUrl(db, out.url)
  if (isRecord(out.properties)) {
    const properties: Record<string, unknown> = {}
    for (const [key, value] of Object.entries(out.properties)) properties[key] = typeof value === 'string' ? await openValue(db, value) : value
    out.properties = properties
  }
  return out as T
}

/** A row read from `connections` as a reader who may not edit it sees it: every secret `***`, references shown. */
export function maskConnectionRow<T extends Record<string, unknown>>(row: T): T {
  const out: Record<string, unknown> = { ...row }
  const type = typeof row.type === 'string' ? row.type : undefined
  for (const column of ['username', 'password', 'certificate'] as const) {
    if (column in out) out[column] = maskValue(out[column])
  }
  if (typeof out.url === 'string') out.url = maskUrl(out.url, type)
  if (isRecord(out.properties)) {
    const properties: Record<string, unknown> = {}
    for (const [key, value] of Object.entries(out.properties)) {
      properties[key] = isSealed(value) || (typeof value === 'string' && isSecretProperty(type, key)) ? maskValue(value) : value
    }
    out.properties = properties
  }
  return out as T
}

/** A decrypted connection as the server's own users get it, plus its certificate. */
export type OpenedConnection = StoredConnection & { certificate: string | null }

/**
 * Refuses a connection whose credentials live in a Kubernetes Secret or Config Map: this server
 * has no Kubernetes API to read them from, and using the reference text as the secret would
 * only fail later with a misleading authentication error.
 */
export function assertResolvable(connection: Pick<OpenedConnection, 'url' | 'username' | 'password' | 'certificate' | 'properties' | 'name' | 'namespace'>): void {
  const fields: [string, unknown][] = [
    ['url', connection.url],
    ['username', connection.username],
    ['password', connection.password],
    ['certificate', connection.certificate],
    ...Object.entries(connection.properties).map(([key, value]): [string, unknown] => [`properties.${key}`, value]),
  ]
  for (const [field, value] of fields) {
    if (typeof value !== 'string') continue
    const reference = kubernetesReferenceOf(value)
    if (reference) {
      throw new ConnectionSecretError(
        `connection ${connection.namespace}/${connection.name}: ${field} refers to ${reference}; resolving Secret and Config Map references needs Kubernetes, which this server does not have (store the value itself instead)`,
      )
    }
  }
}

/** A stored connection (as findConnection returns it) with its sealed values opened. */
export async function openStoredConnection<T extends StoredConnection & { certificate?: string | null }>(db: Queryable, connection: T): Promise<T> {
  return openConnectionRow(db, connection as T & Record<string, unknown>)
}
