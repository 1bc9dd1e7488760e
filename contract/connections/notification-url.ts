import { envVarSourceFromStored, type EnvVarSource } from './connection-types.ts'

/**
 * Notification connection types keep their answers as one Shoutrrr URL (spec 001 §3: they "build a
 * url from their parts on submit, leaving secret placeholders in the url"). This module builds that
 * URL from a form's parts and reads one back into the parts for editing.
 *
 * Secret parts:
 * - a static value is percent-encoded in place (RFC 3986: everything but letters, digits and
 *   `-._~`), so `@`, `:`, `/`, `?`, `&`, `=`, `#`, `%` and `+` in a token cannot end its part;
 * - a Secret or Config Map source becomes the placeholder `$(secret:<name>/<key>)` or
 *   `$(configmap:<name>/<key>)`, resolved when the notification is sent. Names are Kubernetes
 *   names and keys `[-._a-zA-Z0-9]+` (the form refuses others), so a placeholder never holds a
 *   character that ends a URL part once it is replaced, and a static value never reads as one
 *   (its `$` is encoded as `%24`).
 * - `$(username)` and `$(password)` (the platform's own templating of a URL from the row's
 *   columns, resource-specs §0.3, used by URLs the reference console wrote) are read back from
 *   the columns when `parseNotificationUrl` is given them.
 *
 * The formats are Shoutrrr's (https://containrrr.dev/shoutrrr/): `smtp://`, `discord://`,
 * `googlechat://`, `ifttt://`, `mattermost://`, `matrix://`, `ntfy://`, `opsgenie://`,
 * `pushbullet://`, `pushover://`, `rocketchat://`, `slack://` (the bot API form
 * `slack://xoxb:<rest of token>@<channel>`), `teams://`, `telegram://`, `zulip://` and
 * `generic+<http|https>://`.
 */

/** A part's value: text, a port number, the Insecure TLS switch, or a secret's source. */
export type NotificationPart = string | number | boolean | EnvVarSource
export type NotificationParts = Record<string, NotificationPart | undefined>

export class NotificationUrlError extends Error {
  /** The part at fault, when one is. */
  readonly field: string | undefined
  constructor(message: string, field?: string) {
    super(message)
    this.name = 'NotificationUrlError'
    this.field = field
  }
}

const KUBERNETES_NAME_TEXT = '[a-z0-9](?:[-a-z0-9.]*[a-z0-9])?'
const KEY_TEXT = '[-._a-zA-Z0-9]+'
/** A Kubernetes object name (DNS-1123 subdomain) as a Secret or Config Map is named. */
export const KUBERNETES_NAME = new RegExp(`^${KUBERNETES_NAME_TEXT}$`)
/** A key of a Secret or Config Map. */
export const SECRET_KEY_NAME = new RegExp(`^${KEY_TEXT}$`)
const PLACEHOLDER = new RegExp(`\\$\\((secret|configmap):(${KUBERNETES_NAME_TEXT})/(${KEY_TEXT})\\)|\\$\\((username|password)\\)`, 'g')

/** The placeholder a Secret or Config Map source leaves in a URL; a static value has none. */
export function secretPlaceholder(source: EnvVarSource): string | null {
  if ('value' in source) return null
  if ('secretKeyRef' in source.valueFrom) return `$(secret:${source.valueFrom.secretKeyRef.name}/${source.valueFrom.secretKeyRef.key})`
  return `$(configmap:${source.valueFrom.configMapKeyRef.name}/${source.valueFrom.configMapKeyRef.key})`
}

/** Percent-encodes everything but RFC 3986's unreserved characters. */
function encodePart(text: string): string {
  return encodeURIComponent(text).replace(/[!'()*]/g, (char) => `%${char.charCodeAt(0).toString(16).toUpperCase()}`)
}

/** A host, or host:port, with anything else encoded. */
function encodeHost(host: string): string {
  return encodePart(host).replace(/%3A/g, ':').replace(/%5B/g, '[').replace(/%5D/g, ']')
}

function decodePart(text: string): string {
  try {
    return decodeURIComponent(text)
  } catch {
    throw new NotificationUrlError(`"${text}" is not validly percent-encoded`)
  }
}

// ---------------------------------------------------------------------------------------------
// Reading the parts a form gave

const textOf = (parts: NotificationParts, name: string, fallback = ''): string => {
  const value = parts[name]
  if (value === undefined || value === '') return fallback
  return typeof value === 'object' ? ('value' in value ? value.value : '') : String(value).trim()
}
const isOn = (parts: NotificationParts, name: string): boolean => parts[name] === true || parts[name] === 'true' || parts[name] === 'on'
const yesNo = (on: boolean): string => (on ? 'yes' : 'no')

/** A secret part as the URL carries it: its placeholder, or its static value encoded. */
function secretOf(parts: NotificationParts, name: string, encode: (text: string) => string = encodePart): string {
  const value = parts[name]
  if (value === undefined || value === '') return ''
  if (typeof value === 'object') return 'value' in value ? encode(value.value) : secretPlaceholder(value)!
  return encode(String(value))
}
const hasValue = (parts: NotificationParts, name: string): boolean => {
  const value = parts[name]
  if (value === undefined || value === '') return false
  return typeof value !== 'object' || !('value' in value) || value.value !== ''
}
const listOf = (text: string): string[] =>
  text
    .split(',')
    .map((item) => item.trim())
    .filter(Boolean)
function query(pairs: Array<[string, string | undefined]>): string {
  const kept = pairs.filter((pair): pair is [string, string] => pair[1] !== undefined && pair[1] !== '')
  return kept.length === 0 ? '' : `?${kept.map(([key, value]) => `${key}=${encodePart(value)}`).join('&')}`
}

// ---------------------------------------------------------------------------------------------
// Reading a URL back

type Token = { kind: 'source'; source: EnvVarSource } | { kind: 'column'; column: 'username' | 'password' }

type ParsedUrl = {
  scheme: string
  /** Everything before the last `@` of the authority, still encoded; null without one. */
  userinfo: string | null
  hostPort: string
  segments: string[]
  query: Map<string, string>
  tokens: Map<string, Token>
}

/**
 * Splits a URL into its parts, with each placeholder first swapped for a marker no URL part can
 * contain, because a placeholder's `:` and `/` would otherwise split it.
 */
function splitUrl(url: string): ParsedUrl {
  const tokens = new Map<string, Token>()
  const masked = url.replace(PLACEHOLDER, (_match, kind: string | undefined, name: string | undefined, key: string | undefined, column: string | undefined) => {
    const marker = `\u0001${tokens.size}\u0001`
    if (column) tokens.set(marker, { kind: 'column', column: column as 'username' | 'password' })
    else {
      const ref = { name: name!, key: key! }
      tokens.set(marker, { kind: 'source', source: kind === 'secret' ? { valueFrom: { secretKeyRef: ref } } : { valueFrom: { configMapKeyRef: ref } } })
    }
    return marker
  })
  const match = /^([a-z][a-z0-9+.-]*):\/\/([^/?#]*)([^?#]*)(?:\?([^#]*))?(?:#.*)?$/i.exec(masked.trim())
  if (!match) throw new NotificationUrlError('Not a URL of the form scheme://…')
  const authority = match[2]!
  const at = authority.lastIndexOf('@')
  const queryMap = new Map<string, string>()
  for (const pair of (match[4] ?? '').split('&').filter(Boolean)) {
    const equals = pair.indexOf('=')
    const key = equals < 0 ? pair : pair.slice(0, equals)
    // Shoutrrr reads its query with Go's url.ParseQuery: keys case-insensitive, `+` a space.
    queryMap.set(decodePart(key).toLowerCase(), equals < 0 ? '' : pair.slice(equals + 1).replace(/\+/g, '%20'))
  }
  return {
    scheme: match[1]!.toLowerCase(),
    userinfo: at < 0 ? null : authority.slice(0, at),
    hostPort: authority.slice(at + 1),
    segments: match[3]!.split('/').filter(Boolean),
    query: queryMap,
    tokens,
  }
}

type Columns = { username?: string | null; password?: string | null }

/** A secret part read back: its placeholder's source, or its static value. */
function readSecret(parsed: ParsedUrl, raw: string | undefined, columns: Columns, decode: (text: string) => string = decodePart): EnvVarSource | undefined {
  if (raw === undefined || raw === '') return undefined
  const token = parsed.tokens.get(raw)
  if (token?.kind === 'source') return token.source
  if (token?.kind === 'column') {
    const stored = columns[token.column]
    if (stored === undefined || stored === null) throw new NotificationUrlError(`The URL refers to $(${token.column}), which the connection does not have`)
    return envVarSourceFromStored(stored)
  }
  if ([...parsed.tokens.keys()].some((marker) => raw.includes(marker))) throw new NotificationUrlError('A placeholder must be a whole part of the URL')
  return { value: decode(raw) }
}
const readText = (raw: string | undefined): string | undefined => (raw === undefined || raw === '' ? undefined : decodePart(raw))
const readBool = (raw: string | undefined): boolean => raw !== undefined && ['yes', 'true', '1', 'on'].includes(decodePart(raw).toLowerCase())
function readPort(raw: string | undefined): number | undefined {
  if (raw === undefined || raw === '') return undefined
  const port = Number(raw)
  if (!Number.isInteger(port)) throw new NotificationUrlError(`"${raw}" is not a port`, 'port')
  return port
}
function splitUserinfo(userinfo: string | null): { user?: string; password?: string } {
  if (userinfo === null) return {}
  const colon = userinfo.indexOf(':')
  return colon < 0 ? { user: userinfo } : { user: userinfo.slice(0, colon), password: userinfo.slice(colon + 1) }
}
function splitHostPort(hostPort: string): { host?: string; port?: number } {
  const match = /^(.*):(\d+)$/.exec(hostPort)
  return match ? { host: readText(match[1]), port: readPort(match[2]) } : { host: readText(hostPort) }
}
function withoutEmpty(parts: NotificationParts): NotificationParts {
  return Object.fromEntries(Object.entries(parts).filter(([, value]) => value !== undefined && value !== ''))
}

// ---------------------------------------------------------------------------------------------
// The formats

type Codec = {
  schemes: readonly string[]
  build: (parts: NotificationParts) => string
  parse: (parsed: ParsedUrl, columns: Columns) => NotificationParts
}

const SLACK_TOKEN = /^(xox.|hook)-(.+)$/
const telegramToken = (text: string): string => text.split(':').map(encodePart).join(':')
const GENERIC_KEYS = ['contenttype', 'requestmethod', 'messagekey', 'titlekey', 'disabletls']

const CODECS: Record<string, Codec> = {
  discord: {
    schemes: ['discord'],
    build: (p) => `discord://${secretOf(p, 'token')}@${encodePart(textOf(p, 'webhookId'))}`,
    parse: (u, c) => ({ token: readSecret(u, u.userinfo ?? undefined, c), webhookId: readText(u.hostPort) }),
  },
  email: {
    schemes: ['smtp'],
    build: (p) => {
      const credentials = hasValue(p, 'username') || hasValue(p, 'password') ? `${secretOf(p, 'username')}:${secretOf(p, 'password')}@` : ''
      return `smtp://${credentials}${encodeHost(textOf(p, 'host'))}:${textOf(p, 'port', '587')}/${query([
        ['fromaddress', textOf(p, 'fromAddress')],
        ['fromname', textOf(p, 'fromName')],
        ['encryption', textOf(p, 'encryption', 'Auto')],
        ['auth', textOf(p, 'auth', 'Unknown')],
        ['skiptlsverify', yesNo(isOn(p, 'insecure_tls'))],
      ])}`
    },
    parse: (u, c) => {
      const { user, password } = splitUserinfo(u.userinfo)
      const { host, port } = splitHostPort(u.hostPort)
      return {
        host,
        port,
        username: readSecret(u, user, c),
        password: readSecret(u, password, c),
        fromAddress: readText(u.query.get('fromaddress')),
        fromName: readText(u.query.get('fromname')),
        encryption: readText(u.query.get('encryption')),
        auth: readText(u.query.get('auth')),
        insecure_tls: readBool(u.query.get('skiptlsverify')),
      }
    },
  },
  google_chat: {
    schemes: ['googlechat'],
    build: (p) => `googlechat://chat.googleapis.com/v1/spaces/${encodePart(textOf(p, 'webhookName'))}/messages?key=${secretOf(p, 'key')}&token=${secretOf(p, 'token')}`,
    parse: (u, c) => {
      const spaces = u.segments.indexOf('spaces')
      return { key: readSecret(u, u.query.get('key'), c), token: readSecret(u, u.query.get('token'), c), webhookName: readText(spaces < 0 ? undefined : u.segments[spaces + 1]) }
    },
  },
  ifttt: {
    schemes: ['ifttt'],
    build: (p) => `ifttt://${encodePart(textOf(p, 'webhookId'))}/`,
    parse: (u) => ({ webhookId: readText(u.hostPort) }),
  },
  mattermost: {
    schemes: ['mattermost'],
    build: (p) => {
      const user = textOf(p, 'username')
      const channel = textOf(p, 'channel')
      return `mattermost://${user ? `${encodePart(user)}@` : ''}${encodeHost(textOf(p, 'host'))}/${secretOf(p, 'token')}${channel ? `/${encodePart(channel)}` : ''}`
    },
    parse: (u, c) => ({ username: readText(u.userinfo ?? undefined), host: readText(u.hostPort), token: readSecret(u, u.segments[0], c), channel: readText(u.segments[1]) }),
  },
  matrix: {
    schemes: ['matrix'],
    build: (p) => `matrix://${encodePart(textOf(p, 'user'))}:${secretOf(p, 'password')}@${encodeHost(textOf(p, 'host'))}/${query([['disableTLS', yesNo(isOn(p, 'insecure_tls'))]])}`,
    parse: (u, c) => {
      const { user, password } = splitUserinfo(u.userinfo)
      return { user: readText(user), password: readSecret(u, password, c), host: readText(u.hostPort), insecure_tls: readBool(u.query.get('disabletls')) }
    },
  },
  ntfy: {
    schemes: ['ntfy'],
    build: (p) => {
      const credentials = textOf(p, 'username') || hasValue(p, 'password') ? `${encodePart(textOf(p, 'username'))}:${secretOf(p, 'password')}@` : ''
      return `ntfy://${credentials}${encodeHost(textOf(p, 'host', 'ntfy.sh'))}/${encodePart(textOf(p, 'topic'))}${query([['scheme', isOn(p, 'insecure_tls') ? 'http' : 'https']])}`
    },
    parse: (u, c) => {
      const { user, password } = splitUserinfo(u.userinfo)
      return { username: readText(user), password: readSecret(u, password, c), host: readText(u.hostPort), topic: readText(u.segments[0]), insecure_tls: readText(u.query.get('scheme')) === 'http' }
    },
  },
  opsgenie: {
    schemes: ['opsgenie'],
    build: (p) => `opsgenie://${encodeHost(textOf(p, 'host', 'api.opsgenie.com'))}:${textOf(p, 'port', '443')}/${secretOf(p, 'apiKey')}`,
    parse: (u, c) => ({ ...splitHostPort(u.hostPort), apiKey: readSecret(u, u.segments[0], c) }),
  },
  pushbullet: {
    schemes: ['pushbullet'],
    build: (p) => `pushbullet://${secretOf(p, 'token')}/${listOf(textOf(p, 'targets')).map(encodePart).join('/')}`,
    parse: (u, c) => ({ token: readSecret(u, u.hostPort, c), targets: u.segments.map(decodePart).join(',') }),
  },
  pushover: {
    schemes: ['pushover'],
    build: (p) => `pushover://shoutrrr:${secretOf(p, 'token')}@${encodePart(textOf(p, 'user'))}/`,
    parse: (u, c) => ({ token: readSecret(u, splitUserinfo(u.userinfo).password, c), user: readText(u.hostPort) }),
  },
  rocketchat: {
    schemes: ['rocketchat'],
    build: (p) => {
      const user = textOf(p, 'username')
      const port = textOf(p, 'port')
      const channel = textOf(p, 'channel')
      return `rocketchat://${user ? `${encodePart(user)}@` : ''}${encodeHost(textOf(p, 'host'))}${port ? `:${port}` : ''}/${secretOf(p, 'tokenA')}/${secretOf(p, 'tokenB')}${channel ? `/${encodePart(channel)}` : ''}`
    },
    parse: (u, c) => ({
      username: readText(u.userinfo ?? undefined),
      ...splitHostPort(u.hostPort),
      tokenA: readSecret(u, u.segments[0], c),
      tokenB: readSecret(u, u.segments[1], c),
      channel: readText(u.segments[2]),
    }),
  },
  slack: {
    schemes: ['slack'],
    build: (p) => {
      const token = p.botToken
      // Shoutrrr's bot form puts the token's type before a colon: xoxb-123-abc → xoxb:123-abc.
      const staticToken = token !== undefined && typeof token === 'object' && 'value' in token ? token.value : typeof token === 'string' ? token : null
      const match = staticToken === null ? null : SLACK_TOKEN.exec(staticToken)
      const userinfo = match ? `${match[1]}:${encodePart(match[2]!)}` : secretOf(p, 'botToken')
      return `slack://${userinfo}@${encodePart(textOf(p, 'channel'))}${query([['botname', textOf(p, 'botName')]])}`
    },
    parse: (u, c) => {
      const { user, password } = splitUserinfo(u.userinfo)
      const botToken =
        user !== undefined && password !== undefined && /^(xox.|hook)$/.test(user) ? { value: `${user}-${decodePart(password)}` } : readSecret(u, u.userinfo ?? undefined, c)
      return { botToken, channel: readText(u.hostPort), botName: readText(u.query.get('botname')) }
    },
  },
  teams: {
    schemes: ['teams'],
    build: (p) =>
      `teams://${encodePart(textOf(p, 'group'))}@${encodePart(textOf(p, 'tenant'))}/${encodePart(textOf(p, 'altId'))}/${encodePart(textOf(p, 'groupOwner'))}${query([['host', textOf(p, 'host', 'outlook.office.com')]])}`,
    parse: (u) => ({
      group: readText(u.userinfo ?? undefined),
      tenant: readText(u.hostPort),
      altId: readText(u.segments[0]),
      groupOwner: readText(u.segments[1]),
      host: readText(u.query.get('host')),
    }),
  },
  telegram: {
    schemes: ['telegram'],
    // A bot token is `<bot id>:<secret>`; Shoutrrr reads it back as user:password, so its colon stays.
    build: (p) => `telegram://${secretOf(p, 'token', telegramToken)}@telegram${query([['chats', listOf(textOf(p, 'chats')).join(',')]])}`,
    parse: (u, c) => ({
      token: readSecret(u, u.userinfo ?? undefined, c, (text) => text.split(':').map(decodePart).join(':')),
      chats: readText(u.query.get('chats')),
    }),
  },
  zulip_chat: {
    schemes: ['zulip'],
    build: (p) => `zulip://${encodePart(textOf(p, 'botMail'))}:${secretOf(p, 'botKey')}@${encodeHost(textOf(p, 'host'))}/`,
    parse: (u, c) => {
      const { user, password } = splitUserinfo(u.userinfo)
      return { botMail: readText(user), botKey: readSecret(u, password, c), host: readText(u.hostPort) }
    },
  },
  generic_webhook: {
    schemes: ['generic+http', 'generic+https'],
    build: (p) => {
      const target = textOf(p, 'webhookUrl')
      if (!/^https?:\/\/[^/?#]+/i.test(target)) throw new NotificationUrlError('Must be an http or https URL', 'webhookUrl')
      const own = query([
        ['contenttype', textOf(p, 'contentType', 'application/json')],
        ['requestmethod', textOf(p, 'requestMethod', 'POST')],
        ['messagekey', textOf(p, 'messageKey', 'message')],
        ['titlekey', textOf(p, 'titleKey', 'title')],
        ['disabletls', yesNo(isOn(p, 'insecure_tls'))],
      ])
      return `generic+${target}${target.includes('?') ? `&${own.slice(1)}` : own}`
    },
    parse: (u) => {
      // The target's own query stays as written; only Shoutrrr's keys are taken out of it.
      const rebuilt = `${u.scheme.slice('generic+'.length)}://${u.userinfo === null ? '' : `${u.userinfo}@`}${u.hostPort}${u.segments.length > 0 ? `/${u.segments.join('/')}` : ''}`
      return { webhookUrl: rebuilt, contentType: readText(u.query.get('contenttype')), requestMethod: readText(u.query.get('requestmethod')), messageKey: readText(u.query.get('messagekey')), titleKey: readText(u.query.get('titlekey')), insecure_tls: readBool(u.query.get('disabletls')) }
    },
  },
}

/** The notification types that keep a Shoutrrr URL (spec 001 §3). */
export const NOTIFICATION_URL_TYPES = Object.keys(CODECS)

function codecOf(type: string): Codec {
  const codec = CODECS[type]
  if (!codec) throw new NotificationUrlError(`"${type}" is not a notification type`)
  return codec
}

/** The Shoutrrr URL of a notification type's parts (the form's answers, secrets as env var sources). */
export function buildNotificationUrl(type: string, parts: NotificationParts): string {
  return codecOf(type).build(parts)
}

/**
 * The parts a notification type's URL holds, for its edit form: absent parts are left out.
 * `columns` are the row's username and password, for URLs that template them (`$(password)`).
 */
export function parseNotificationUrl(type: string, url: string, columns: Columns = {}): NotificationParts {
  const codec = codecOf(type)
  if (type === 'generic_webhook') return withoutEmpty(codec.parse(splitGenericUrl(url), columns))
  const parsed = splitUrl(url)
  if (!codec.schemes.includes(parsed.scheme)) throw new NotificationUrlError(`A ${type} URL starts with ${codec.schemes[0]}://, not ${parsed.scheme}://`)
  return withoutEmpty(codec.parse(parsed, columns))
}

/** A generic webhook URL, its target's query kept apart from Shoutrrr's own keys. */
function splitGenericUrl(url: string): ParsedUrl {
  const match = /^(generic\+https?):\/\/([^?#]*)(?:\?([^#]*))?/i.exec(url.trim())
  if (!match) throw new NotificationUrlError('A generic_webhook URL starts with generic+https:// or generic+http://')
  const ownQuery = new Map<string, string>()
  const targetQuery: string[] = []
  for (const pair of (match[3] ?? '').split('&').filter(Boolean)) {
    const equals = pair.indexOf('=')
    const key = decodePart(equals < 0 ? pair : pair.slice(0, equals)).toLowerCase()
    if (GENERIC_KEYS.includes(key)) ownQuery.set(key, equals < 0 ? '' : pair.slice(equals + 1).replace(/\+/g, '%20'))
    else targetQuery.push(pair)
  }
  const rest = match[2]!
  return {
    scheme: match[1]!.toLowerCase(),
    userinfo: null,
    hostPort: `${rest}${targetQuery.length > 0 ? `?${targetQuery.join('&')}` : ''}`,
    segments: [],
    query: ownQuery,
    tokens: new Map(),
  }
}
