import { endpointOf, httpCall, jsonCall, NotificationSendError, parsedJson } from './sender-http.ts'
import type { Sender } from './sender.ts'
import { httpProtocol, secretQueryValues, titled, type ShoutrrrUrl } from './shoutrrr-url.ts'

/** Services that take one webhook POST: generic, slack, teams, discord, mattermost, googlechat, rocketchat, ifttt. */

const GENERIC_OPTIONS = ['template', 'contenttype', 'method', 'requestmethod', 'titlekey', 'messagekey', 'disabletls']

function basicAuth(user: string, password: string): string {
  return `Basic ${Buffer.from(`${user}:${password}`).toString('base64')}`
}

/** `host[:port]` as written, with IPv6 brackets kept. */
function authority(url: ShoutrrrUrl): string {
  return url.url.host
}

export const genericSender: Sender = {
  secrets: (url) => [url.password, ...secretQueryValues(url.url)],
  async send(url, { title, message, properties = {} }, context) {
    const protocol = url.scheme === 'generic+http' || (url.scheme === 'generic' && url.flag('disabletls')) ? 'http' : 'https'
    // Shoutrrr's `@Name=value` options become request headers and `$key=value` extra JSON fields.
    const headers: Record<string, string> = {}
    const extras: Record<string, string> = {}
    const rest = new URLSearchParams()
    for (const [key, value] of url.remainingQuery(GENERIC_OPTIONS)) {
      if (key.startsWith('@') && key.length > 1) headers[key.slice(1)] = value
      else if (key.startsWith('$') && key.length > 1) extras[key.slice(1)] = value
      else rest.append(key, value)
    }
    const search = rest.toString()
    const target = endpointOf(context, `${protocol}://${authority(url)}`, `${url.url.pathname}${search ? `?${search}` : ''}`)
    if (url.user || url.password) headers.Authorization = basicAuth(url.user, url.password)
    const template = url.option('template')
    const contentType = url.option('contenttype') ?? (template && template !== 'json' ? 'text/plain' : 'application/json')
    const body = contentType.includes('json')
      ? JSON.stringify({ ...properties, ...extras, [url.option('titlekey') ?? 'title']: title, [url.option('messagekey') ?? 'message']: message })
      : titled(title, message, (text) => `${text}\n`)
    const method = (url.option('method') ?? url.option('requestmethod') ?? 'POST').toUpperCase()
    const answer = await httpCall(context, target, { method, headers: { 'Content-Type': contentType, ...headers }, body })
    return { status: answer.status, response: answer.shown }
  },
}

/** `slack://hook:A/B/C@webhook` is no parsable URL (the slashes end the authority): Shoutrrr also writes the tokens with dashes. */
function prepareSlack(raw: string): string {
  return raw.replace(/^(slack:\/\/hook:)([^@?]+)@/i, (_, prefix: string, tokens: string) => `${prefix}${tokens.replace(/\//g, '-')}@`)
}

function slackWebhookTokens(url: ShoutrrrUrl): string[] | undefined {
  if (url.user === 'hook') return url.password.split(/[-/]/).filter(Boolean)
  if (!url.user && url.segments.length === 2) return [decodeURIComponent(url.url.hostname), ...url.segments]
  return undefined
}

export const slackSender: Sender = {
  prepare: prepareSlack,
  secrets(url) {
    const tokens = slackWebhookTokens(url)
    if (tokens) return [tokens[2], url.password]
    return [url.password, url.password ? `${url.user}-${url.password}` : url.user]
  },
  async send(url, { title, message }, context) {
    const heading = title || url.option('title') || ''
    const color = url.option('color')
    const text = color ? heading || message : titled(heading, message, (text) => `*${text}*`)
    const payload: Record<string, unknown> = { text }
    if (color) payload.attachments = [{ color, text: message }]
    if (url.option('botname')) payload.username = url.option('botname')
    const icon = url.option('icon')
    if (icon) payload[/^https?:\/\//.test(icon) ? 'icon_url' : 'icon_emoji'] = icon
    if (url.option('thread_ts')) payload.thread_ts = url.option('thread_ts')
    const tokens = slackWebhookTokens(url)
    if (tokens) {
      if (tokens.length !== 3) throw url.invalid('webhook URLs look like slack://hook:A-B-C@webhook (the three tokens of the webhook)')
      const answer = await httpCall(context, endpointOf(context, 'https://hooks.slack.com', `/services/${tokens.map(encodeURIComponent).join('/')}`), jsonCall(payload))
      return { status: answer.status, response: answer.shown }
    }
    const token = url.password ? `${url.user}-${url.password}` : url.user
    if (!/^xox[a-z]-/.test(token)) throw url.invalid('URLs need a webhook (slack://hook:A-B-C@webhook) or a bot token (slack://xoxb:TOKEN@CHANNEL)')
    payload.channel = url.option('channel') ?? decodeURIComponent(url.url.hostname)
    const answer = await httpCall(context, endpointOf(context, 'https://slack.com', '/api/chat.postMessage'), jsonCall(payload, { Authorization: `Bearer ${token}`, 'Content-Type': 'application/json; charset=utf-8' }))
    // The Web API answers 200 with {ok: false, error} when it refuses.
    const parsed = parsedJson(answer)
    if (parsed && parsed.ok === false) {
      const reason = typeof parsed.error === 'string' ? parsed.error : 'unknown error'
      throw new NotificationSendError('slack', `slack: chat.postMessage refused the message: ${context.secrets.redact(reason)}`, { status: answer.status, retryable: reason === 'ratelimited' })
    }
    return { status: answer.status, response: answer.shown }
  },
}

/** Power Automate / Workflows endpoints take an Adaptive Card; Office 365 connector webhooks a MessageCard. */
function isWorkflowsUrl(target: URL): boolean {
  return target.pathname.includes('/workflows/') || /(logic\.azure\.com|powerplatform\.com|powerautomate)/i.test(target.hostname)
}

function teamsTarget(url: ShoutrrrUrl, base: string | undefined): string {
  if (url.scheme === 'teams+https' || url.scheme === 'teams+http') {
    const protocol = url.scheme.slice('teams+'.length)
    const origin = base ?? `${protocol}://${authority(url)}`
    return `${origin.replace(/\/+$/, '')}${url.url.pathname}${url.url.search}`
  }
  const [altId, groupOwner, extraId] = url.segments
  if (!url.user || !url.hostname || !altId || !groupOwner) throw url.invalid('URLs look like teams://group@tenant/altId/groupOwner[/extraId]?host=<org>.webhook.office.com')
  const origin = base ?? `https://${url.option('host') ?? 'outlook.office.com'}`
  const path = [`${encodeURIComponent(url.user)}@${encodeURIComponent(url.hostname)}`, 'IncomingWebhook', altId, groupOwner, ...(extraId ? [extraId] : [])]
  return `${origin.replace(/\/+$/, '')}/webhookb2/${path.map((part, index) => (index === 0 ? part : encodeURIComponent(part))).join('/')}`
}

export const teamsSender: Sender = {
  secrets(url) {
    if (url.scheme.startsWith('teams+')) {
      const segments = url.segments
      const hook = segments.indexOf('IncomingWebhook')
      return [...secretQueryValues(url.url), ...(hook >= 0 ? segments.slice(hook + 1) : [])]
    }
    return url.segments
  },
  async send(url, { title, message }, context) {
    const target = teamsTarget(url, context.options.baseUrls?.teams)
    const heading = title || url.option('title') || ''
    const body = isWorkflowsUrl(new URL(target))
      ? {
          type: 'message',
          attachments: [
            {
              contentType: 'application/vnd.microsoft.card.adaptive',
              content: {
                $schema: 'http://adaptivecards.io/schemas/adaptive-card.json',
                type: 'AdaptiveCard',
                version: '1.4',
                body: [...(heading ? [{ type: 'TextBlock', text: heading, weight: 'Bolder', size: 'Medium', wrap: true }] : []), { type: 'TextBlock', text: message, wrap: true }],
              },
            },
          ],
        }
      : {
          '@type': 'MessageCard',
          '@context': 'https://schema.org/extensions',
          summary: (heading || message).slice(0, 100),
          ...(heading ? { title: heading } : {}),
          text: message,
          ...(url.option('color') ? { themeColor: url.option('color')!.replace(/^#/, '') } : {}),
        }
    const answer = await httpCall(context, target, jsonCall(body))
    return { status: answer.status, response: answer.shown }
  },
}

export const discordSender: Sender = {
  secrets: (url) => [url.user, url.password],
  async send(url, { title, message }, context) {
    const token = url.password ? `${url.user}:${url.password}` : url.user
    const webhookId = decodeURIComponent(url.url.hostname)
    if (!token || !webhookId) throw url.invalid('URLs look like discord://token@webhookid')
    const heading = title || url.option('title') || ''
    const payload: Record<string, unknown> = heading
      ? { embeds: [{ title: heading.slice(0, 256), description: message.slice(0, 4096), ...(url.option('color') ? { color: Number.parseInt(url.option('color')!.replace(/^#|^0x/i, ''), 16) || undefined } : {}) }] }
      : { content: message.slice(0, 2000) }
    if (url.option('username')) payload.username = url.option('username')
    if (url.option('avatar') ?? url.option('avatarurl')) payload.avatar_url = url.option('avatar') ?? url.option('avatarurl')
    const query = url.option('thread_id') ? `?thread_id=${encodeURIComponent(url.option('thread_id')!)}` : ''
    const target = endpointOf(context, 'https://discord.com', `/api/webhooks/${encodeURIComponent(webhookId)}/${encodeURIComponent(token)}${query}`)
    const answer = await httpCall(context, target, jsonCall(payload))
    return { status: answer.status, response: answer.shown }
  },
}

export const mattermostSender: Sender = {
  secrets: (url) => [url.segments[0], url.password],
  async send(url, { title, message }, context) {
    const [token, channel] = url.segments
    if (!url.hostname || !token) throw url.invalid('URLs look like mattermost://[user@]host[:port]/token[/channel]')
    const payload: Record<string, unknown> = { text: titled(title || url.option('title') || '', message, (text) => `#### ${text}`) }
    if (url.user) payload.username = url.user
    if (channel ?? url.option('channel')) payload.channel = channel ?? url.option('channel')
    if (url.option('icon')) payload[/^https?:\/\//.test(url.option('icon')!) ? 'icon_url' : 'icon_emoji'] = url.option('icon')
    const target = endpointOf(context, `${httpProtocol(url)}://${authority(url)}`, `/hooks/${encodeURIComponent(token)}`)
    const answer = await httpCall(context, target, jsonCall(payload))
    return { status: answer.status, response: answer.shown }
  },
}

export const googleChatSender: Sender = {
  secrets: (url) => secretQueryValues(url.url),
  async send(url, { title, message }, context) {
    if (!url.url.searchParams.get('key') || !url.url.searchParams.get('token')) throw url.invalid('URLs look like googlechat://chat.googleapis.com/v1/spaces/SPACE/messages?key=KEY&token=TOKEN')
    const host = authority(url) || 'chat.googleapis.com'
    const target = endpointOf(context, `https://${host}`, `${url.url.pathname}${url.url.search}`)
    const answer = await httpCall(context, target, jsonCall({ text: titled(title, message, (text) => `*${text}*`) }, { 'Content-Type': 'application/json; charset=UTF-8' }))
    return { status: answer.status, response: answer.shown }
  },
}

export const rocketChatSender: Sender = {
  secrets: (url) => [url.segments[1]],
  async send(url, { title, message }, context) {
    const [tokenA, tokenB, channelSegment] = url.segments
    if (!url.hostname || !tokenA || !tokenB) throw url.invalid('URLs look like rocketchat://[user@]host[:port]/tokenA/tokenB[/channel]')
    const payload: Record<string, unknown> = { text: titled(title || url.option('title') || '', message, (text) => `*${text}*`) }
    if (url.user) payload.username = url.user
    const channel = channelSegment ?? url.option('channel')
    if (channel) payload.channel = /^[#@]/.test(channel) ? channel : `#${channel}`
    const target = endpointOf(context, `${httpProtocol(url)}://${authority(url)}`, `/hooks/${encodeURIComponent(tokenA)}/${encodeURIComponent(tokenB)}`)
    const answer = await httpCall(context, target, jsonCall(payload))
    return { status: answer.status, response: answer.shown }
  },
}

/** The message goes into `value{messagevalue}` (default 2) and the title, if `titlevalue` names one, into that value. */
export const iftttSender: Sender = {
  secrets: (url) => [decodeURIComponent(url.url.hostname)],
  async send(url, { title, message }, context) {
    const webhookId = decodeURIComponent(url.url.hostname)
    const events = url.list('events')
    if (!webhookId || events.length === 0) throw url.invalid('URLs look like ifttt://webhookID/?events=event1[,event2]')
    const values: Record<string, string> = {}
    for (const index of [1, 2, 3]) {
      const value = url.option(`value${index}`)
      if (value !== undefined) values[`value${index}`] = value
    }
    const messageValue = Number(url.option('messagevalue') ?? '2')
    const titleValue = Number(url.option('titlevalue') ?? '0')
    if (titleValue >= 1 && titleValue <= 3 && titleValue === messageValue) throw url.invalid('titlevalue and messagevalue must name different values')
    if (messageValue >= 1 && messageValue <= 3) values[`value${messageValue}`] = message
    if (titleValue >= 1 && titleValue <= 3) values[`value${titleValue}`] = title
    let last = { status: 0, shown: '' }
    for (const event of events) {
      last = await httpCall(context, endpointOf(context, 'https://maker.ifttt.com', `/trigger/${encodeURIComponent(event)}/with/key/${encodeURIComponent(webhookId)}`), jsonCall(values))
    }
    return { status: last.status, response: last.shown }
  },
}
