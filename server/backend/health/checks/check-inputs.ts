import type { CheckRunContext, StoredConnection } from '../check-result.ts'
import type { EnvVar } from '#contract/canary/canary-spec.schema.ts'
import type { Queryable } from '#server/db/client.ts'
import { renderFieldTemplate } from '../go-template.ts'
import { isUuid } from '#contract/uuid.ts'
import { assertResolvable, ConnectionSecretError, openStoredConnection } from '#server/backend/connections/connection-secrets.ts'

/** A spec value the engine cannot use: the run is invalid (a configuration problem), not failed. */
export class CheckInputError extends Error {}

/**
 * The value of an EnvVar. Without Kubernetes there is no secret or config-map store, so
 * `valueFrom` is reported as a configuration error naming the field rather than silently unset.
 */
export function envValue(value: EnvVar | undefined, field: string): string | undefined {
  if (value === undefined || value === null) return undefined
  if (typeof value === 'string') return value
  if (value.value !== undefined) return value.value
  if (value.valueFrom) {
    const source = Object.keys(value.valueFrom).find((key) => (value.valueFrom as Record<string, unknown>)[key])
    throw new CheckInputError(`${field}: valueFrom.${source ?? '?'} cannot be resolved (no Kubernetes secret store); use value or a connection`)
  }
  return undefined
}

export function isConnectionReference(value: string): boolean {
  return value.startsWith('connection://') || isUuid(value)
}

/**
 * The stored connection a reference names (§0.3): `connection://<namespace>/<name>`,
 * `connection://<name>` (the caller's namespace), a UUID, the legacy `connection://<type>/<name>`
 * (the first segment retried as a type) and the three-segment form (first segment ignored).
 * Shared by the check engine and the scrapers.
 */
export async function findConnection(db: Queryable, ref: string, namespace: string): Promise<StoredConnection | null> {
  let where: string
  let params: unknown[]
  if (!ref.startsWith('connection://')) {
    where = 'id = $1::uuid'
    params = [ref]
  } else {
    const parts = ref.slice('connection://'.length).split('/').filter(Boolean)
    const name = parts[parts.length - 1] ?? ''
    const ns = parts.length >= 2 ? parts[parts.length - 2]! : namespace
    // `connection://<type>/<name>` is legacy: retry the first segment as a type (§0.3).
    where = 'name = $1 AND (namespace = $2 OR ($3 AND type = $2))'
    params = [name, ns, parts.length === 2]
  }
  const { rows } = await db.query<{ id: string; name: string; namespace: string; type: string; url: string | null; username: string | null; password: string | null; properties: Record<string, unknown> | null; insecure_tls: boolean | null }>(
    `SELECT id, name, namespace, type, url, username, password, properties, insecure_tls FROM connections
     WHERE deleted_at IS NULL AND ${where} ORDER BY (namespace = $${params.length + 1}) DESC LIMIT 1`,
    [...params, namespace],
  )
  const row = rows[0]
  if (!row) return null
  // Secrets are sealed at rest (connections/connection-secrets.ts): the server's own users get them opened.
  const connection = await openStoredConnection(db, { ...row, properties: row.properties ?? {}, insecureTls: row.insecure_tls ?? false })
  try {
    assertResolvable({ ...connection, certificate: null })
  } catch (error) {
    if (error instanceof ConnectionSecretError) throw new CheckInputError(error.message)
    throw error
  }
  return connection
}

export type ResolvedAccess = {
  url: string
  username?: string
  password?: string
  properties: Record<string, unknown>
  connection?: StoredConnection
}

/**
 * URL and credentials from the spec and its optional `connection` (§0.3): an inline URL
 * overrides the stored one; inline credentials only fill what the connection lacks. The URL is
 * then `$()`-templated with username, password, domain, name and namespace.
 */
export async function resolveAccess(
  spec: Record<string, unknown>,
  context: Pick<CheckRunContext, 'resolveConnection' | 'templatesEnabled' | 'targets'> & { canary: { namespace: string } },
  options: { urlKeys?: string[]; connectionIsUrl?: boolean } = {},
): Promise<ResolvedAccess> {
  const urlKeys = options.urlKeys ?? ['url']
  let url = urlKeys.map((key) => spec[key]).find((value): value is string => typeof value === 'string' && value !== '') ?? ''
  let username = envValue(spec.username as EnvVar | undefined, 'username')
  let password = envValue(spec.password as EnvVar | undefined, 'password')
  let properties: Record<string, unknown> = {}
  let connection: StoredConnection | undefined
  const reference = typeof spec.connection === 'string' ? spec.connection.trim() : ''
  if (reference) {
    if (isConnectionReference(reference)) {
      const namespace = typeof spec.namespace === 'string' ? spec.namespace : context.canary.namespace
      const found = await context.resolveConnection(reference, namespace)
      if (!found) throw new CheckInputError(`connection ${reference} was not found`)
      // A stored connection's credentials go only to the connection's own URL unless the canary
      // is trusted (written by an exec holder): otherwise anyone who may write a canary could
      // send them to a host of their choosing and read what they may not (connections).
      if (url && url !== (found.url ?? '') && (await context.targets?.isRestricted())) {
        throw new CheckInputError(`connection ${reference}: its credentials go only to its own URL; an inline URL next to it needs a canary written by someone with the exec permission`)
      }
      connection = found
      if (!url && found.url) url = found.url
      username = found.username ?? username
      password = found.password ?? password
      properties = found.properties
    } else if (options.connectionIsUrl && !url) {
      url = reference
    }
  }
  if (context.templatesEnabled && url.includes('$(')) {
    const domain = username?.includes('@') ? username.slice(username.indexOf('@') + 1) : ''
    url = renderFieldTemplate(url, {
      username: username ?? '',
      password: password ?? '',
      domain,
      name: typeof spec.name === 'string' ? spec.name : '',
      namespace: context.canary.namespace,
    })
  }
  return { url, username, password, properties, connection }
}

export function headersOf(list: unknown): Record<string, string> {
  const headers: Record<string, string> = {}
  if (!Array.isArray(list)) return headers
  list.forEach((entry: EnvVar, index) => {
    if (typeof entry === 'string') {
      const at = entry.indexOf(':')
      if (at > 0) headers[entry.slice(0, at).trim()] = entry.slice(at + 1).trim()
      return
    }
    if (!entry?.name) throw new CheckInputError(`headers[${index}].name is required`)
    const value = envValue(entry, `headers[${index}]`)
    if (value !== undefined) headers[entry.name] = value
  })
  return headers
}
