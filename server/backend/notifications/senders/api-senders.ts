import { randomUUID } from 'node:crypto'
import { endpointOf, formCall, httpCall, jsonCall, NotificationSendError, parsedJson, type SendContext } from './sender-http.ts'
import type { Sender } from './sender.ts'
import { httpProtocol, titled } from './shoutrrr-url.ts'

/** Services with an API of their own: telegram, ntfy, pushover, pushbullet, opsgenie, zulip, matrix. */

function basicAuth(user: string, password: string): string {
  return `Basic ${Buffer.from(`${user}:${password}`).toString('base64')}`
}

export const telegramSender: Sender = {
  secrets: (url) => [url.password, `${url.user}:${url.password}`],
  async send(url, { title, message }, context) {
    const token = url.password ? `${url.user}:${url.password}` : url.user
    const chats = url.list('chats').concat(url.list('channels'))
    if (!token || chats.length === 0) throw url.invalid('URLs look like telegram://token@telegram?chats=@channel,123456')
    const parseMode = url.option('parsemode')
    const text = titled(title || url.option('title') || '', message, (heading) => (parseMode?.toLowerCase() === 'html' ? `<b>${heading}</b>\n` : `${heading}\n`))
    let last = { status: 0, shown: '' }
    for (const chat of chats) {
      last = await httpCall(
        context,
        endpointOf(context, 'https://api.telegram.org', `/bot${token}/sendMessage`),
        jsonCall({
          chat_id: chat,
          text,
          ...(parseMode && parseMode.toLowerCase() !== 'none' ? { parse_mode: parseMode } : {}),
          disable_web_page_preview: !url.flag('preview', true),
          disable_notification: !url.flag('notification', true),
        }),
      )
    }
    return { status: last.status, response: last.shown }
  },
}

/** Header values must be Latin-1; ntfy reads RFC 2047 encoded words for anything else. */
function headerValue(value: string): string {
  return /^[\x20-\x7e]*$/.test(value) ? value : `=?UTF-8?B?${Buffer.from(value, 'utf8').toString('base64')}?=`
}

const NTFY_HEADERS: Record<string, string> = {
  priority: 'Priority',
  tags: 'Tags',
  click: 'Click',
  icon: 'Icon',
  attach: 'Attach',
  filename: 'Filename',
  email: 'Email',
  delay: 'Delay',
  actions: 'Actions',
  cache: 'Cache',
  firebase: 'Firebase',
  markdown: 'Markdown',
}

export const ntfySender: Sender = {
  secrets: (url) => [url.password],
  async send(url, { title, message }, context) {
    const topic = url.segments.join('/')
    if (!topic) throw url.invalid('URLs look like ntfy://[user:pass@]host/topic')
    const protocol = (url.option('scheme') ?? 'https').toLowerCase() === 'http' ? 'http' : 'https'
    const headers: Record<string, string> = { 'Content-Type': 'text/plain; charset=utf-8' }
    const heading = title || url.option('title')
    if (heading) headers.Title = headerValue(heading)
    for (const [option, header] of Object.entries(NTFY_HEADERS)) {
      const value = url.option(option)
      if (value !== undefined) headers[header] = headerValue(value)
    }
    if (url.user) headers.Authorization = basicAuth(url.user, url.password)
    else if (url.password) headers.Authorization = `Bearer ${url.password}`
    const target = endpointOf(context, `${protocol}://${url.url.host || 'ntfy.sh'}`, `/${url.segments.map(encodeURIComponent).join('/')}`)
    const answer = await httpCall(context, target, { method: 'POST', headers, body: message })
    return { status: answer.status, response: answer.shown }
  },
}

export const pushoverSender: Sender = {
  secrets: (url) => [url.password, decodeURIComponent(url.url.hostname)],
  async send(url, { title, message }, context) {
    const token = url.password
    const user = decodeURIComponent(url.url.hostname)
    if (!token || !user) throw url.invalid('URLs look like pushover://shoutrrr:apiToken@userKey/?devices=device1[,device2]')
    const answer = await httpCall(
      context,
      endpointOf(context, 'https://api.pushover.net', '/1/messages.json'),
      formCall({
        token,
        user,
        message,
        title: title || url.option('title'),
        device: url.list('devices').join(','),
        priority: url.option('priority'),
        sound: url.option('sound'),
        url: url.option('url'),
        url_title: url.option('urltitle'),
      }),
    )
    return { status: answer.status, response: answer.shown }
  },
}

/** Each path segment is a target: `#tag` a channel, `a@b` an e-mail address, anything else a device. */
function pushbulletTarget(target: string): Record<string, string> {
  if (target.startsWith('#')) return { channel_tag: target.slice(1) }
  if (target.includes('@')) return { email: target }
  return { device_iden: target }
}

export const pushbulletSender: Sender = {
  secrets: (url) => [decodeURIComponent(url.url.hostname)],
  async send(url, { title, message }, context) {
    const token = decodeURIComponent(url.url.hostname)
    if (!token) throw url.invalid('URLs look like pushbullet://token[/device|/#channel|/email]')
    const targets: Record<string, string>[] = url.segments.length > 0 ? url.segments.map(pushbulletTarget) : [{}]
    let last = { status: 0, shown: '' }
    for (const target of targets) {
      last = await httpCall(
        context,
        endpointOf(context, 'https://api.pushbullet.com', '/v2/pushes'),
        jsonCall({ type: 'note', title: title || url.option('title') || '', body: message, ...target }, { 'Access-Token': token }),
      )
    }
    return { status: last.status, response: last.shown }
  },
}

/** `type:value` pairs (`team:ops,user:a@b.c`) as Opsgenie responders: e-mail-like values are usernames, UUIDs ids, the rest names. */
function opsgenieResponders(entries: string[]): Record<string, string>[] {
  return entries.map((entry): Record<string, string> => {
    const [type = '', ...rest] = entry.split(':')
    const value = rest.join(':')
    if (/^[0-9a-f]{8}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{12}$/i.test(value)) return { type, id: value }
    if (type === 'user' && value.includes('@')) return { type, username: value }
    return { type, name: value }
  })
}

export const opsgenieSender: Sender = {
  secrets: (url) => [url.segments.at(-1)],
  async send(url, { title, message }, context) {
    const segments = url.segments
    const apiKey = segments.at(-1)
    if (!apiKey) throw url.invalid('URLs look like opsgenie://host[:port][/path]/apiKey')
    const heading = title || url.option('title') || ''
    const alert: Record<string, unknown> = {
      // Opsgenie cuts an alert's message at 130 characters; the whole text goes in the description.
      message: (heading || message).slice(0, 130),
      description: heading ? message : url.option('description'),
    }
    for (const key of ['alias', 'entity', 'source', 'priority', 'note', 'user']) if (url.option(key)) alert[key] = url.option(key)
    if (url.list('tags').length) alert.tags = url.list('tags')
    if (url.list('actions').length) alert.actions = url.list('actions')
    if (url.list('responders').length) alert.responders = opsgenieResponders(url.list('responders'))
    if (url.list('visibleto').length) alert.visibleTo = opsgenieResponders(url.list('visibleto'))
    if (url.list('details').length) alert.details = Object.fromEntries(url.list('details').map((pair) => [pair.split(':')[0] ?? pair, pair.split(':').slice(1).join(':')]))
    const prefix = segments.slice(0, -1).map(encodeURIComponent).join('/')
    const target = endpointOf(context, `https://${url.url.host || 'api.opsgenie.com'}`, `${prefix ? `/${prefix}` : ''}/v2/alerts`)
    const answer = await httpCall(context, target, jsonCall(alert, { Authorization: `GenieKey ${apiKey}` }))
    return { status: answer.status, response: answer.shown }
  },
}

export const zulipSender: Sender = {
  secrets: (url) => [url.password],
  async send(url, { title, message }, context) {
    const stream = url.option('stream')
    if (!url.user || !url.password || !url.hostname || !stream) throw url.invalid('URLs look like zulip://bot-mail:bot-key@host/?stream=name&topic=name')
    // Zulip needs a topic: the URL's, else the title (Zulip cuts topics at 60 characters).
    const topic = url.option('topic')
    const content = topic ? titled(title, message, (text) => `**${text}**`) : message
    const answer = await httpCall(
      context,
      endpointOf(context, `https://${url.url.host}`, '/api/v1/messages'),
      formCall({ type: 'stream', to: stream, topic: (topic ?? title ?? '').slice(0, 60) || 'Lookout', content }, { Authorization: basicAuth(url.user, url.password) }),
    )
    return { status: answer.status, response: answer.shown }
  },
}

function matrixField(body: Record<string, unknown> | undefined, field: string): string | undefined {
  const value = body?.[field]
  return typeof value === 'string' && value ? value : undefined
}

async function matrixRoomIds(context: SendContext, base: string, auth: Record<string, string>, rooms: string[]): Promise<string[]> {
  if (rooms.length === 0) {
    // No rooms given: every room the account has joined, as Shoutrrr does.
    const joined = parsedJson(await httpCall(context, `${base}/_matrix/client/v3/joined_rooms`, { method: 'GET', headers: auth }))
    return Array.isArray(joined?.joined_rooms) ? joined.joined_rooms.filter((room): room is string => typeof room === 'string') : []
  }
  const ids: string[] = []
  for (const room of rooms) {
    if (room.startsWith('!')) {
      ids.push(room)
      continue
    }
    const alias = room.startsWith('#') ? room : `#${room}`
    const resolved = parsedJson(await httpCall(context, `${base}/_matrix/client/v3/directory/room/${encodeURIComponent(alias)}`, { method: 'GET', headers: auth }))
    const roomId = matrixField(resolved, 'room_id')
    if (!roomId) throw new NotificationSendError('matrix', `matrix: the alias ${alias} resolved to no room`)
    ids.push(roomId)
  }
  return ids
}

/**
 * `matrix://user:password@host` logs in with the password (and logs that session out after, so
 * sends do not pile up devices on the account); `matrix://:token@host` uses the password as an
 * access token.
 */
export const matrixSender: Sender = {
  secrets: (url) => [url.password],
  async send(url, { title, message }, context) {
    if (!url.hostname || !url.password) throw url.invalid('URLs look like matrix://user:password@host[:port]/?rooms=!roomId,#alias[&disableTLS=yes]')
    const base = endpointOf(context, `${httpProtocol(url)}://${url.url.host}`, '').replace(/\/+$/, '')
    let accessToken = url.password
    let loggedIn = false
    if (url.user) {
      const login = parsedJson(
        await httpCall(context, `${base}/_matrix/client/v3/login`, jsonCall({ type: 'm.login.password', identifier: { type: 'm.id.user', user: url.user }, password: url.password, initial_device_display_name: 'Lookout notifications' })),
      )
      const token = matrixField(login, 'access_token')
      if (!token) throw new NotificationSendError('matrix', 'matrix: the login answered without an access token')
      accessToken = token
      loggedIn = true
      context.secrets.add(token)
    }
    const auth = { Authorization: `Bearer ${accessToken}` }
    try {
      const roomIds = await matrixRoomIds(context, base, auth, url.list('rooms'))
      if (roomIds.length === 0) throw new NotificationSendError('matrix', 'matrix: no rooms to send to (give ?rooms= or join the account to one)')
      const body = titled(title || url.option('title') || '', message)
      let last = { status: 0, shown: '' }
      for (const roomId of roomIds) {
        last = await httpCall(context, `${base}/_matrix/client/v3/rooms/${encodeURIComponent(roomId)}/send/m.room.message/${randomUUID()}`, {
          method: 'PUT',
          headers: { 'Content-Type': 'application/json', ...auth },
          body: JSON.stringify({ msgtype: 'm.text', body }),
        })
      }
      return { status: last.status, response: last.shown }
    } finally {
      if (loggedIn && !context.signal.aborted) await httpCall(context, `${base}/_matrix/client/v3/logout`, jsonCall({}, auth)).catch(() => undefined)
    }
  },
}
