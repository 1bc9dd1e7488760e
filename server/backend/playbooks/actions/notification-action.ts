import net from 'node:net'
import nodemailer from 'nodemailer'
import { httpRequest } from '#server/backend/health/checks/http-client.ts'
import type { TargetGuard } from '#server/backend/health/checks/target-guard.ts'
import type { ActionContext, ActionOutcome } from '../playbook-model.ts'
import { actionTargets, ActionInputError, objectOf, resolveActionAccess, stringOf } from './action-access.ts'

/**
 * `notification` (resource-specs §2.5): `url` (a Shoutrrr URL) or `connection` (whose URL is one),
 * `title`, `message`, `properties`, `attachments` (SMTP only). This Lookout has no notification
 * senders of its own yet, so the schemes are spoken here: `generic` webhooks, `slack` (webhook
 * tokens or a bot token) and `smtp` (through nodemailer, the library the identity mailer uses;
 * that mailer itself is bound to the server's SMTP_URL and its outbox, not to a URL per action).
 * Any other scheme fails the action naming it. The result is `{title, message}`.
 */

export type WebhookRequest = { url: string; method: string; headers: Record<string, string>; body: string }

const DEFAULT_TIMEOUT_MS = 30_000

function flag(value: string | null): boolean {
  return value !== null && ['yes', 'true', '1'].includes(value.toLowerCase())
}

/**
 * The HTTP request a `generic` or `slack` Shoutrrr URL stands for. `generic://host/path` posts
 * over https (`disabletls=yes`: http), `generic+http(s)://` says the scheme outright; the
 * Shoutrrr options (`template`, `contenttype`, `method`/`requestmethod`, `titlekey`,
 * `messagekey`, `disabletls`) are consumed and other query parameters stay on the target URL.
 */
export function webhookRequest(shoutrrr: string, title: string, message: string, properties: Record<string, unknown> = {}): WebhookRequest {
  let url: URL
  try {
    url = new URL(shoutrrr)
  } catch {
    throw new ActionInputError('notification.url is not a URL')
  }
  const scheme = url.protocol.replace(/:$/, '').toLowerCase()
  if (scheme === 'generic' || scheme === 'generic+http' || scheme === 'generic+https') {
    const options = new Map<string, string>()
    for (const key of ['template', 'contenttype', 'method', 'requestmethod', 'titlekey', 'messagekey', 'disabletls']) {
      const value = url.searchParams.get(key)
      if (value !== null) options.set(key, value)
      url.searchParams.delete(key)
    }
    const protocol = scheme === 'generic+http' || (scheme === 'generic' && flag(options.get('disabletls') ?? null)) ? 'http:' : 'https:'
    const target = `${protocol}//${url.username ? `${url.username}${url.password ? `:${url.password}` : ''}@` : ''}${url.host}${url.pathname}${url.search}`
    const template = options.get('template')
    const contentType = options.get('contenttype') ?? (template && template !== 'json' ? 'text/plain' : 'application/json')
    const body = contentType.includes('json')
      ? JSON.stringify({ ...properties, [options.get('titlekey') ?? 'title']: title, [options.get('messagekey') ?? 'message']: message })
      : title ? `${title}\n\n${message}` : message
    return { url: target, method: (options.get('method') ?? options.get('requestmethod') ?? 'POST').toUpperCase(), headers: { 'Content-Type': contentType }, body }
  }
  if (scheme === 'slack') {
    const text = title ? `*${title}*\n${message}` : message
    const channel = url.searchParams.get('channel') ?? ''
    const payload = (extra: Record<string, unknown>) => JSON.stringify({ text, ...(url.searchParams.get('botname') ? { username: url.searchParams.get('botname') } : {}), ...extra })
    // slack://hook:A-B-C@webhook (or the older slack://A/B/C): an incoming webhook;
    // slack://xoxb:TOKEN@CHANNEL: the bot API.
    if (url.username === 'hook' || (!url.username && url.pathname.split('/').filter(Boolean).length === 2)) {
      const tokens = url.username === 'hook'
        ? decodeURIComponent(url.password).split(/[-/]/).filter(Boolean)
        : [url.host, ...url.pathname.split('/').filter(Boolean)].map(decodeURIComponent)
      if (tokens.length !== 3) throw new ActionInputError('slack webhook URLs look like slack://hook:A-B-C@webhook (the three tokens of the webhook)')
      return { url: `https://hooks.slack.com/services/${tokens.join('/')}`, method: 'POST', headers: { 'Content-Type': 'application/json' }, body: payload({}) }
    }
    const token = url.password ? `${decodeURIComponent(url.username)}-${decodeURIComponent(url.password)}` : decodeURIComponent(url.username)
    if (!/^xox[a-z]-/.test(token)) throw new ActionInputError('slack URLs need a webhook (slack://hook:A-B-C@webhook) or a bot token (slack://xoxb:TOKEN@CHANNEL)')
    return {
      url: 'https://slack.com/api/chat.postMessage',
      method: 'POST',
      headers: { 'Content-Type': 'application/json; charset=utf-8', Authorization: `Bearer ${token}` },
      body: payload({ channel: channel || decodeURIComponent(url.host) }),
    }
  }
  throw new ActionInputError(`unsupported notification URL scheme "${scheme}": this Lookout sends generic:// (generic+https://, generic+http://) webhooks, slack:// and smtp://`)
}

type Attachment = { filename: string; content: string; contentType?: string }

async function sendMail(shoutrrr: string, title: string, message: string, attachments: Attachment[], targets: TargetGuard, signal: AbortSignal): Promise<void> {
  const url = new URL(shoutrrr)
  const params = url.searchParams
  const from = params.get('fromaddress') ?? params.get('from')
  const to = (params.get('toaddresses') ?? params.get('to') ?? '').split(',').map((entry) => entry.trim()).filter(Boolean)
  if (!from) throw new ActionInputError('smtp notification URLs need ?from=<address>')
  if (to.length === 0) throw new ActionInputError('smtp notification URLs need ?to=<address>[,<address>]')
  const host = url.hostname.replace(/^\[|\]$/g, '')
  const port = Number(url.port) || 25
  const admission = await targets.admit(host, port)
  const encryption = (params.get('encryption') ?? 'auto').toLowerCase()
  const secure = encryption === 'implicittls' || encryption === 'implicit' || port === 465
  const transport = nodemailer.createTransport({
    host: admission?.address ?? host,
    port,
    secure,
    ignoreTLS: encryption === 'none',
    requireTLS: encryption === 'explicittls',
    auth: url.username && (params.get('auth') ?? 'plain').toLowerCase() !== 'none' ? { user: decodeURIComponent(url.username), pass: decodeURIComponent(url.password) } : undefined,
    tls: { servername: net.isIP(host) ? undefined : host, rejectUnauthorized: !flag(params.get('skiptlsverify')) },
    connectionTimeout: DEFAULT_TIMEOUT_MS,
    greetingTimeout: DEFAULT_TIMEOUT_MS,
    socketTimeout: DEFAULT_TIMEOUT_MS,
  })
  const abort = () => transport.close()
  signal.addEventListener('abort', abort, { once: true })
  try {
    await transport.sendMail({
      from: params.get('fromname') ? { name: params.get('fromname')!, address: from } : from,
      to,
      subject: title || params.get('subject') || 'Playbook notification',
      text: message,
      attachments: attachments.map((attachment) => ({ filename: attachment.filename, content: attachment.content, contentType: attachment.contentType })),
    })
  } finally {
    signal.removeEventListener('abort', abort)
    transport.close()
  }
}

export async function runNotificationAction(spec: Record<string, unknown>, context: ActionContext): Promise<ActionOutcome> {
  const title = stringOf(spec.title)
  const message = stringOf(spec.message)
  const properties = objectOf(spec.properties)
  let shoutrrr = stringOf(spec.url).trim()
  if (!shoutrrr && stringOf(spec.connection).trim()) {
    const access = await resolveActionAccess({ connection: spec.connection }, context)
    shoutrrr = access.url
    if (!shoutrrr) throw new ActionInputError(`connection ${stringOf(spec.connection)} has no notification URL`)
  }
  if (!shoutrrr) throw new ActionInputError('notification.url or notification.connection is required')
  const result = { title, message }
  const scheme = shoutrrr.slice(0, Math.max(0, shoutrrr.indexOf(':'))).toLowerCase()
  const attachments = Array.isArray(spec.attachments) ? (spec.attachments as unknown[]).map((entry, index): Attachment => {
    const attachment = objectOf(entry)
    if (!attachment.filename) throw new ActionInputError(`notification.attachments[${index}].filename is required`)
    return { filename: stringOf(attachment.filename), content: stringOf(attachment.content), contentType: stringOf(attachment.contentType) || undefined }
  }) : []
  if (scheme === 'smtp' || scheme === 'smtps') {
    await sendMail(shoutrrr, title, message, attachments, actionTargets(context), context.signal)
    return { result }
  }
  if (attachments.length > 0) throw new ActionInputError('notification.attachments are sent by smtp:// only')
  const request = webhookRequest(shoutrrr, title, message, properties)
  const response = await httpRequest(request.url, { method: request.method, headers: request.headers, body: request.body, signal: context.signal, targets: actionTargets(context) })
  const answer = response.body.toString('utf8').slice(0, 2_000)
  if (response.status < 200 || response.status >= 300) {
    return { result, error: `the notification was refused: ${request.method} ${new URL(request.url).origin} answered ${response.status}${answer ? `: ${answer}` : ''}` }
  }
  // Slack's API answers 200 with {ok: false, error} when it refuses.
  if (request.url.startsWith('https://slack.com/api/')) {
    try {
      const parsed = JSON.parse(answer) as { ok?: boolean; error?: string }
      if (parsed.ok === false) return { result, error: `slack refused the notification: ${parsed.error ?? 'unknown error'}` }
    } catch {
      // Not JSON: the status already said it was taken.
    }
  }
  return { result }
}
