import { execFile } from 'node:child_process'
import { mkdtemp, rm, stat, writeFile } from 'node:fs/promises'
import { tmpdir } from 'node:os'
import path from 'node:path'
import { Client as LdapClient } from 'ldapts'
import nodemailer from 'nodemailer'
import SftpClient from 'ssh2-sftp-client'
import { Connection as TdsConnection, type ConnectionConfiguration } from 'tedious'
import { parseNotificationUrl, type NotificationPart } from '#contract/connections/notification-url.ts'
import type { CheckResult, CheckRunContext, CheckRunner } from '#server/backend/health/check-result.ts'
import { renderFieldTemplate } from '#server/backend/health/go-template.ts'
import { httpRequest, type HttpRequestOptions, type HttpResponse } from '#server/backend/health/checks/http-client.ts'
import { runMongoCheck } from '#server/backend/health/checks/mongo-check.ts'
import { runRedisCheck } from '#server/backend/health/checks/redis-check.ts'
import { runMysqlCheck, runPostgresCheck } from '#server/backend/health/checks/sql-check.ts'
import { UNRESTRICTED, type TargetGuard } from '#server/backend/health/checks/target-guard.ts'
import { redactSecrets } from '#server/backend/secrets/sealed-secrets.ts'
import type { OpenedConnection } from './connection-secrets.ts'

/**
 * `POST /api/connection/test/{id}` (http-api §2.7.1): one real probe per connection type. The
 * database, cache and document-store probes run the health checks' own runners (sql-check,
 * redis-check, mongo-check) on a one-off spec; HTTP-speaking types go through the checks' HTTP
 * client and are recorded as HAR entries; the rest use their protocol's client. Every probe
 * dials only what `targets` admits, and ends within `timeoutMs`.
 */

export class ProbeError extends Error {}

/** One HAR 1.2 entry (http://www.softwareishard.com/blog/har-12-spec/), secrets redacted. */
export type HarEntry = {
  startedDateTime: string
  time: number
  request: { method: string; url: string; httpVersion: string; headers: { name: string; value: string }[]; queryString: { name: string; value: string }[]; headersSize: number; bodySize: number }
  response: { status: number; statusText: string; httpVersion: string; headers: { name: string; value: string }[]; content: { size: number; mimeType: string; text?: string }; redirectURL: string; headersSize: number; bodySize: number }
  cache: Record<string, never>
  timings: { send: number; wait: number; receive: number }
}

export type ProbeOutcome = { payload?: Record<string, unknown>; entries?: HarEntry[] }

export type ProbeContext = {
  targets: TargetGuard
  timeoutMs: number
  signal: AbortSignal
  entries: HarEntry[]
  /** Values never shown in an error or a HAR entry. */
  secrets: string[]
}

type Probe = (connection: OpenedConnection, context: ProbeContext) => Promise<Record<string, unknown> | void>

const HAR_BODY_LIMIT = 4096
const SENSITIVE_HEADERS = new Set(['authorization', 'proxy-authorization', 'cookie', 'set-cookie', 'x-api-key'])

function withoutCredentials(url: string): string {
  try {
    const parsed = new URL(url)
    if (parsed.password) parsed.password = '[REDACTED]'
    return parsed.toString()
  } catch {
    return url
  }
}

/** A request through the checks' HTTP client, recorded as a HAR entry. */
async function recordedRequest(url: string, options: HttpRequestOptions, context: ProbeContext): Promise<HttpResponse> {
  const started = new Date()
  const startedAt = performance.now()
  const headers = { 'user-agent': 'canary-checker/lookout', ...options.headers }
  const response = await httpRequest(url, { ...options, headers, signal: context.signal, targets: context.targets })
  const time = Math.round(performance.now() - startedAt)
  const shownUrl = redactSecrets(withoutCredentials(url), context.secrets)
  const mimeType = response.headers['content-type'] ?? ''
  const text = response.body.subarray(0, HAR_BODY_LIMIT).toString('utf8')
  context.entries.push({
    startedDateTime: started.toISOString(),
    time,
    request: {
      method: options.method ?? 'GET',
      url: shownUrl,
      httpVersion: 'HTTP/1.1',
      headers: Object.entries(headers).map(([name, value]) => ({ name, value: SENSITIVE_HEADERS.has(name.toLowerCase()) ? '[REDACTED]' : redactSecrets(value, context.secrets) })),
      queryString: [...new URL(shownUrl).searchParams].map(([name, value]) => ({ name, value })),
      headersSize: -1,
      bodySize: options.body ? Buffer.byteLength(options.body) : 0,
    },
    response: {
      status: response.status,
      statusText: response.statusText,
      httpVersion: 'HTTP/1.1',
      headers: Object.entries(response.headers).map(([name, value]) => ({ name, value: SENSITIVE_HEADERS.has(name) ? '[REDACTED]' : value })),
      content: { size: response.body.length, mimeType, ...(text ? { text: redactSecrets(text, context.secrets) } : {}) },
      redirectURL: response.headers.location ?? '',
      headersSize: -1,
      bodySize: response.body.length,
    },
    cache: {},
    timings: { send: 0, wait: time, receive: 0 },
  })
  return response
}

function basicAuth(connection: OpenedConnection): Record<string, string> {
  if (!connection.username && !connection.password) return {}
  return { authorization: `Basic ${Buffer.from(`${connection.username ?? ''}:${connection.password ?? ''}`).toString('base64')}` }
}

function requireUrl(connection: OpenedConnection, what = 'url'): string {
  const url = connection.url?.trim() ?? ''
  if (!url) throw new ProbeError(`the connection has no ${what}`)
  return url
}

function tlsOf(connection: OpenedConnection): HttpRequestOptions['tls'] {
  return { rejectUnauthorized: !connection.insecureTls }
}

async function expectOk(response: HttpResponse, url: string): Promise<void> {
  if (response.status >= 400) throw new ProbeError(`${url} answered ${response.status} ${response.statusText}`.trim())
}

const probeHttp: Probe = async (connection, context) => {
  const url = requireUrl(connection)
  const response = await recordedRequest(url, { headers: basicAuth(connection), tls: tlsOf(connection), maxRedirects: 5 }, context)
  await expectOk(response, withoutCredentials(url))
  return { status: response.status }
}

/** Elasticsearch and OpenSearch answer their name and version at the root. */
const probeSearchEngine: Probe = async (connection, context) => {
  const base = requireUrl(connection).replace(/\/+$/, '')
  const response = await recordedRequest(`${base}/`, { headers: { accept: 'application/json', ...basicAuth(connection) }, tls: tlsOf(connection) }, context)
  await expectOk(response, withoutCredentials(base))
  try {
    const body = JSON.parse(response.body.toString('utf8')) as { cluster_name?: string; version?: { number?: string } }
    return { ...(body.cluster_name ? { cluster_name: body.cluster_name } : {}), ...(body.version?.number ? { version: body.version.number } : {}) }
  } catch {
    throw new ProbeError(`${withoutCredentials(base)} did not answer as Elasticsearch or OpenSearch (not JSON)`)
  }
}

const probePrometheus: Probe = async (connection, context) => {
  const base = requireUrl(connection).replace(/\/+$/, '')
  const response = await recordedRequest(`${base}/api/v1/status/buildinfo`, { headers: { accept: 'application/json', ...basicAuth(connection) }, tls: tlsOf(connection) }, context)
  await expectOk(response, withoutCredentials(base))
  let body: { status?: string; data?: { version?: string } }
  try {
    body = JSON.parse(response.body.toString('utf8')) as typeof body
  } catch {
    throw new ProbeError(`${withoutCredentials(base)} did not answer as Prometheus (not JSON)`)
  }
  if (body.status !== 'success') throw new ProbeError(`${withoutCredentials(base)} did not answer as Prometheus (status ${String(body.status)})`)
  return body.data?.version ? { version: body.data.version } : {}
}

// ---------------------------------------------------------------------------------------------
// Health-check runners

function checkContext(connection: OpenedConnection, context: ProbeContext): CheckRunContext {
  return {
    signal: context.signal,
    timeoutMs: context.timeoutMs,
    canary: { id: '', name: connection.name, namespace: connection.namespace, labels: {}, annotations: {} },
    check: { id: '', name: connection.name, type: connection.type, description: '', labels: {}, endpoint: '' },
    templatesEnabled: false,
    resolveConnection: async () => null,
    lastResult: async () => null,
    targets: context.targets,
  }
}

async function runCheck(runner: CheckRunner, spec: Record<string, unknown>, connection: OpenedConnection, context: ProbeContext): Promise<CheckResult> {
  const [result] = await runner({ name: connection.name, timeout: Math.ceil(context.timeoutMs / 1000), ...spec }, checkContext(connection, context))
  if (!result) throw new ProbeError('the probe gave no result')
  if (!result.pass) throw new ProbeError(result.errors.join('; ') || result.message || 'the probe failed')
  return result
}

/** A database URL with the connection's username and password when it names none itself. */
function withCredentials(url: string, connection: OpenedConnection): string {
  if (!connection.username && !connection.password) return url
  try {
    const parsed = new URL(url)
    if (parsed.username || parsed.password || !parsed.host) return url
    if (connection.username) parsed.username = connection.username
    if (connection.password) parsed.password = connection.password
    return parsed.toString()
  } catch {
    return url
  }
}

const probePostgres: Probe = async (connection, context) => {
  await runCheck(runPostgresCheck, { url: withCredentials(requireUrl(connection), connection), query: 'SELECT 1' }, connection, context)
}

const probeMysql: Probe = async (connection, context) => {
  await runCheck(runMysqlCheck, { url: withCredentials(requireUrl(connection), connection), query: 'SELECT 1' }, connection, context)
}

const probeRedis: Probe = async (connection, context) => {
  const result = await runCheck(runRedisCheck, { url: requireUrl(connection), username: connection.username ?? undefined, password: connection.password ?? undefined, db: connection.properties.db ?? 0 }, connection, context)
  return { reply: result.message }
}

const probeMongo: Probe = async (connection, context) => {
  await runCheck(runMongoCheck, { url: requireUrl(connection), username: connection.username || undefined, password: connection.password || undefined }, connection, context)
}

// ---------------------------------------------------------------------------------------------
// Other protocols

/** `host[:port]` from a bare host or any `scheme://…` URL. */
function hostPortOf(text: string, defaultPort: number): { host: string; port: number } {
  const withScheme = /^[a-z][a-z0-9+.-]*:\/\//i.test(text) ? text : `tcp://${text}`
  let parsed: URL
  try {
    parsed = new URL(withScheme)
  } catch {
    throw new ProbeError(`"${text}" is not a host or URL`)
  }
  const host = parsed.hostname.replace(/^\[|\]$/g, '')
  if (!host) throw new ProbeError(`"${text}" names no host`)
  return { host, port: parsed.port ? Number(parsed.port) : defaultPort }
}

async function admitted(context: ProbeContext, host: string, port: number): Promise<string> {
  const admission = await context.targets.admit(host, port)
  return admission?.address ?? host
}

/** SQL Server: `sqlserver://user:pass@host:1433?database=db` or `Server=host,1433;Database=db;User Id=u;Password=p`. */
function sqlServerConfig(url: string, connection: OpenedConnection): { host: string; port: number; database?: string; user?: string; password?: string; encrypt: boolean; trust: boolean } {
  if (/^(sqlserver|mssql):\/\//i.test(url)) {
    const parsed = new URL(url.replace(/^mssql:/i, 'sqlserver:'))
    const params = parsed.searchParams
    const flag = (name: string) => [...params].find(([key]) => key.toLowerCase() === name)?.[1]?.toLowerCase()
    return {
      host: parsed.hostname.replace(/^\[|\]$/g, ''),
      port: parsed.port ? Number(parsed.port) : 1433,
      database: [...params].find(([key]) => key.toLowerCase() === 'database')?.[1] || parsed.pathname.replace(/^\//, '') || undefined,
      user: decodeURIComponent(parsed.username) || connection.username || undefined,
      password: decodeURIComponent(parsed.password) || connection.password || undefined,
      encrypt: flag('encrypt') === 'true',
      trust: connection.insecureTls || flag('trustservercertificate') === 'true',
    }
  }
  const pairs = new Map<string, string>()
  for (const piece of url.split(';')) {
    const equals = piece.indexOf('=')
    if (equals > 0) pairs.set(piece.slice(0, equals).trim().toLowerCase(), piece.slice(equals + 1).trim())
  }
  const server = pairs.get('server') ?? pairs.get('data source') ?? pairs.get('address')
  if (!server) throw new ProbeError('the SQL Server URL names no server (sqlserver://host:1433?database=… or Server=host,1433;…)')
  const [host, port] = server.replace(/^tcp:/i, '').split(',')
  return {
    host: host!.trim(),
    port: port ? Number(port) : 1433,
    database: pairs.get('database') ?? pairs.get('initial catalog'),
    user: pairs.get('user id') ?? pairs.get('uid') ?? pairs.get('user') ?? connection.username ?? undefined,
    password: pairs.get('password') ?? pairs.get('pwd') ?? connection.password ?? undefined,
    encrypt: pairs.get('encrypt')?.toLowerCase() === 'true',
    trust: connection.insecureTls || pairs.get('trustservercertificate')?.toLowerCase() === 'true',
  }
}

const probeSqlServer: Probe = async (connection, context) => {
  const config = sqlServerConfig(requireUrl(connection), connection)
  const server = await admitted(context, config.host, config.port)
  const options: ConnectionConfiguration = {
    server,
    authentication: { type: 'default', options: { userName: config.user ?? '', password: config.password ?? '' } },
    options: {
      port: config.port,
      database: config.database,
      encrypt: config.encrypt,
      trustServerCertificate: config.trust,
      connectTimeout: context.timeoutMs,
      requestTimeout: context.timeoutMs,
      ...(server !== config.host ? { serverName: config.host } : {}),
    },
  }
  const tds = new TdsConnection(options)
  const abort = () => tds.close()
  context.signal.addEventListener('abort', abort, { once: true })
  try {
    await new Promise<void>((resolve, reject) => {
      tds.on('error', reject)
      tds.connect((error) => (error ? reject(error) : resolve()))
    })
  } catch (error) {
    throw new ProbeError(`failed to connect to SQL Server ${config.host}:${config.port}: ${(error as Error).message}`)
  } finally {
    context.signal.removeEventListener('abort', abort)
    tds.close()
  }
}

const probeLdap: Probe = async (connection, context) => {
  const url = requireUrl(connection)
  if (!/^ldaps?:\/\//i.test(url)) throw new ProbeError(`"${url}" is not an ldap:// or ldaps:// URL`)
  const secure = /^ldaps:/i.test(url)
  const { host, port } = hostPortOf(url, secure ? 636 : 389)
  const address = await admitted(context, host, port)
  const dialled = new URL(url)
  dialled.hostname = address.includes(':') ? `[${address}]` : address
  dialled.port = String(port)
  const client = new LdapClient({
    url: `${dialled.protocol}//${dialled.host}`,
    timeout: context.timeoutMs,
    connectTimeout: context.timeoutMs,
    tlsOptions: { rejectUnauthorized: !connection.insecureTls, ...(address !== host ? { servername: host } : {}) },
  })
  const abort = () => void client.unbind().catch(() => undefined)
  context.signal.addEventListener('abort', abort, { once: true })
  try {
    if (connection.username) await client.bind(connection.username, connection.password ?? '')
    // Without credentials, the root DSE answers anonymous readers on every LDAP server.
    else await client.search('', { scope: 'base', filter: '(objectClass=*)', attributes: ['namingContexts'] })
  } catch (error) {
    throw new ProbeError(`LDAP ${host}:${port}: ${(error as Error).message || (error as Error).name}`)
  } finally {
    context.signal.removeEventListener('abort', abort)
    await client.unbind().catch(() => undefined)
  }
}

function partText(part: NotificationPart | undefined): string {
  if (part === undefined) return ''
  if (typeof part === 'object') return 'value' in part ? part.value : ''
  return String(part)
}

/** `email` connections keep a Shoutrrr `smtp://` URL (notification-url.ts); the probe logs in without sending. */
const probeSmtp: Probe = async (connection, context) => {
  const url = requireUrl(connection)
  let parts
  try {
    parts = parseNotificationUrl('email', url, { username: connection.username, password: connection.password })
  } catch (error) {
    throw new ProbeError(`the SMTP URL cannot be read: ${(error as Error).message}`)
  }
  const host = partText(parts.host)
  if (!host) throw new ProbeError('the SMTP URL names no host')
  const port = Number(partText(parts.port) || 587)
  const encryption = partText(parts.encryption) || 'Auto'
  const auth = partText(parts.auth).toLowerCase()
  const user = partText(parts.username)
  const address = await admitted(context, host, port)
  const transport = nodemailer.createTransport({
    host: address,
    port,
    secure: encryption === 'ImplicitTLS' || (encryption === 'Auto' && port === 465),
    requireTLS: encryption === 'ExplicitTLS',
    ignoreTLS: encryption === 'None',
    ...(user && auth !== 'none' ? { auth: { user, pass: partText(parts.password) } } : {}),
    tls: { rejectUnauthorized: !(parts.insecure_tls === true || connection.insecureTls), servername: host },
    connectionTimeout: context.timeoutMs,
    greetingTimeout: context.timeoutMs,
    socketTimeout: context.timeoutMs,
  })
  const abort = () => transport.close()
  context.signal.addEventListener('abort', abort, { once: true })
  try {
    await transport.verify()
  } catch (error) {
    throw new ProbeError(`SMTP ${host}:${port}: ${(error as Error).message}`)
  } finally {
    context.signal.removeEventListener('abort', abort)
    transport.close()
  }
}

const probeSftp: Probe = async (connection, context) => {
  const text = requireUrl(connection, 'host')
  const defaultPort = Number(connection.properties.port ?? 22) || 22
  const { host, port } = hostPortOf(text, defaultPort)
  const address = await admitted(context, host, port)
  const client = new SftpClient()
  const abort = () => void client.end().catch(() => undefined)
  context.signal.addEventListener('abort', abort, { once: true })
  try {
    await client.connect({ host: address, port, username: connection.username ?? '', password: connection.password ?? undefined, readyTimeout: context.timeoutMs, retries: 0 })
    const folder = typeof connection.properties.path === 'string' && connection.properties.path !== '' ? connection.properties.path : '.'
    const exists = await client.exists(folder)
    if (!exists) throw new Error(`${folder} does not exist`)
    return { cwd: await client.cwd() }
  } catch (error) {
    throw new ProbeError(`SFTP ${host}:${port}: ${(error as Error).message}`)
  } finally {
    context.signal.removeEventListener('abort', abort)
    await client.end().catch(() => undefined)
  }
}

const LOCAL_GIT = /^(file:|\/|\.|~)/i

/**
 * `git ls-remote` with the machine's git, as `exec.checkout` clones (git-checkout.ts): the
 * password reaches git through an askpass script reading the environment and an SSH key through
 * GIT_SSH_COMMAND, both in a private temporary folder, never in argv or the URL. Only the
 * network transports are allowed (no `ext::` commands), and local repositories only for callers
 * whose targets are not fenced.
 */
const probeGit: Probe = async (connection, context) => {
  const url = requireUrl(connection)
  const restricted = await context.targets.isRestricted()
  if (LOCAL_GIT.test(url) && restricted) {
    throw new ProbeError("a local git repository is one of this server's files; testing it needs the exec permission")
  }
  if (restricted) {
    const scp = /^(?:[^@/]+@)?([^:/]+):(?!\/)/.exec(url)
    const target = scp ? { host: scp[1]!, port: 22 } : hostPortOf(url, /^https:/i.test(url) ? 443 : /^ssh:/i.test(url) ? 22 : /^git:/i.test(url) ? 9418 : 80)
    await context.targets.admit(target.host, target.port)
  }
  const folder = await mkdtemp(path.join(tmpdir(), 'lookout-git-probe-'))
  try {
    const env: Record<string, string> = {
      PATH: process.env.PATH ?? '/usr/bin:/bin',
      HOME: folder,
      GIT_TERMINAL_PROMPT: '0',
      GIT_CONFIG_NOSYSTEM: '1',
      GIT_ALLOW_PROTOCOL: restricted ? 'http:https:ssh:git' : 'http:https:ssh:git:file',
    }
    if (connection.username || connection.password) {
      const askpass = path.join(folder, 'askpass')
      await writeFile(askpass, '#!/bin/sh\ncase "$1" in\n  Username*) printf "%s" "$LOOKOUT_GIT_USERNAME" ;;\n  *) printf "%s" "$LOOKOUT_GIT_PASSWORD" ;;\nesac\n', { mode: 0o700 })
      env.GIT_ASKPASS = askpass
      env.LOOKOUT_GIT_USERNAME = connection.username ?? ''
      env.LOOKOUT_GIT_PASSWORD = connection.password ?? ''
    }
    if (connection.certificate) {
      const key = path.join(folder, 'key')
      await writeFile(key, connection.certificate.endsWith('\n') ? connection.certificate : `${connection.certificate}\n`, { mode: 0o600 })
      env.GIT_SSH_COMMAND = `ssh -i '${key}' -o IdentitiesOnly=yes -o BatchMode=yes -o StrictHostKeyChecking=accept-new -o UserKnownHostsFile='${path.join(folder, 'known_hosts')}'`
    }
    const output = await new Promise<string>((resolve, reject) => {
      execFile('git', ['ls-remote', '--', url], { env: env as NodeJS.ProcessEnv, encoding: 'utf8', cwd: folder, timeout: context.timeoutMs, signal: context.signal, maxBuffer: 16 * 1024 * 1024 }, (error, stdout, stderr) => {
        if (error) reject(new ProbeError(`git ls-remote ${url}: ${(stderr.trim() || error.message).split('\n').map((line) => line.trim()).filter(Boolean).slice(0, 3).join(' ')}`))
        else resolve(stdout)
      })
    })
    const refs = output.split('\n').filter(Boolean).map((line) => line.split('\t')[1] ?? '')
    const wanted = typeof connection.properties.ref === 'string' ? connection.properties.ref.trim() : ''
    if (wanted && !refs.some((ref) => ref === wanted || ref === `refs/heads/${wanted}` || ref === `refs/tags/${wanted}`)) {
      throw new ProbeError(`git ls-remote ${url}: the repository has no ref ${wanted}`)
    }
    return { refs: refs.length }
  } finally {
    await rm(folder, { recursive: true, force: true })
  }
}

/** A folder of this server: its own files, so only for callers whose targets are not fenced (as folder checks). */
const probeFolder: Probe = async (connection, context) => {
  const folder = typeof connection.properties.path === 'string' && connection.properties.path !== '' ? connection.properties.path : connection.url ?? ''
  if (!folder) throw new ProbeError('the connection has no path')
  if (await context.targets.isRestricted()) throw new ProbeError("a folder is one of this server's files; testing it needs the exec permission")
  let stats
  try {
    stats = await stat(folder)
  } catch (error) {
    throw new ProbeError(`${folder}: ${(error as NodeJS.ErrnoException).code === 'ENOENT' ? 'no such folder' : (error as Error).message}`)
  }
  if (!stats.isDirectory()) throw new ProbeError(`${folder} is not a folder`)
}

const PROBES: Record<string, Probe> = {
  http: probeHttp,
  webhook: probeHttp,
  postgres: probePostgres,
  mysql: probeMysql,
  sql_server: probeSqlServer,
  redis: probeRedis,
  mongo: probeMongo,
  elasticsearch: probeSearchEngine,
  opensearch: probeSearchEngine,
  prometheus: probePrometheus,
  ldap: probeLdap,
  email: probeSmtp,
  smtp: probeSmtp,
  sftp: probeSftp,
  git: probeGit,
  folder: probeFolder,
}

export const TESTABLE_CONNECTION_TYPES = Object.keys(PROBES)

/** The connection's URL with `$(username)`, `$(password)`, `$(domain)`, `$(name)` and `$(namespace)` filled in (resource-specs §0.3). */
export function templatedConnection(connection: OpenedConnection): OpenedConnection {
  if (!connection.url?.includes('$(')) return connection
  const username = connection.username ?? ''
  const url = renderFieldTemplate(connection.url, {
    username,
    password: connection.password ?? '',
    domain: username.includes('@') ? username.slice(username.indexOf('@') + 1) : '',
    name: connection.name,
    namespace: connection.namespace,
  })
  return { ...connection, url }
}

/**
 * Probes a connection (its values opened and resolved). Resolves with what the answer's
 * `payload` holds; rejects with a ProbeError whose message is the answer's `error`.
 */
export async function probeConnection(
  stored: OpenedConnection,
  options: { targets?: TargetGuard; timeoutMs?: number } = {},
): Promise<ProbeOutcome> {
  const probe = PROBES[stored.type]
  if (!probe) throw new ProbeError(`testing ${stored.type} connections is not supported`)
  const timeoutMs = options.timeoutMs ?? 10_000
  const controller = new AbortController()
  const secrets = [stored.password, stored.certificate].filter((value): value is string => Boolean(value))
  const context: ProbeContext = { targets: options.targets ?? UNRESTRICTED, timeoutMs, signal: controller.signal, entries: [], secrets }
  let timer: NodeJS.Timeout | undefined
  const deadline = new Promise<never>((_resolve, reject) => {
    timer = setTimeout(() => {
      controller.abort()
      reject(new ProbeError(`the test timed out after ${timeoutMs} ms`))
    }, timeoutMs)
  })
  try {
    const connection = templatedConnection(stored)
    const payload = await Promise.race([probe(connection, context), deadline])
    return { ...(payload && Object.keys(payload).length > 0 ? { payload } : {}), ...(context.entries.length > 0 ? { entries: context.entries } : {}) }
  } catch (error) {
    const message = error instanceof ProbeError ? error.message : controller.signal.aborted ? `the test timed out after ${timeoutMs} ms` : (error as Error).message || String(error)
    throw new ProbeError(redactSecrets(message, secrets))
  } finally {
    clearTimeout(timer)
    if (!controller.signal.aborted) controller.abort()
  }
}
