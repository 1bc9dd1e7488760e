import { genericSender, slackSender, teamsSender, discordSender, mattermostSender, googleChatSender, rocketChatSender, iftttSender } from './webhook-senders.ts'
import { telegramSender, ntfySender, pushoverSender, pushbulletSender, opsgenieSender, zulipSender, matrixSender } from './api-senders.ts'
import {
  DEFAULT_TIMEOUT_MS,
  NotificationSendError,
  SENDER_SCHEMES,
  Secrets,
  targetGuardOf,
  type NotificationMessage,
  type SendContext,
  type SenderScheme,
  type SendOptions,
  type SendResult,
} from './sender-http.ts'
import type { Sender } from './sender.ts'
import { isSecretQueryKey, ShoutrrrUrl } from './shoutrrr-url.ts'
import { smtpSender } from './smtp-sender.ts'

/**
 * Notification senders: a Shoutrrr URL plus a message becomes one delivery over the service's
 * own API. No database here: the delivery pipeline and the playbook `notification` action hand
 * over the URL and the message. The URL forms, and where each goes:
 *
 *   smtp://[user:pass@]host[:port]/?fromaddress=&fromname=&toaddresses=a,b&encryption=&auth=&usehtml=&skiptlsverify=
 *                                        → SMTP through nodemailer (smtp-sender.ts)
 *   generic://host/path?…  generic+http(s)://…   → {method, default POST} http(s)://host/path?<other options>;
 *       template, contenttype, method/requestmethod, titlekey, messagekey, disabletls are consumed,
 *       `@Header=v` become headers, `$key=v` extra JSON fields, user:pass basic auth
 *   slack://xoxb:TOKEN@CHANNEL           → POST slack.com/api/chat.postMessage (Authorization: Bearer)
 *   slack://hook:A-B-C@webhook, slack://hook:A/B/C@webhook, slack://A/B/C → POST hooks.slack.com/services/A/B/C
 *   teams://group@tenant/altId/groupOwner[/extraId]?host=org.webhook.office.com
 *                                        → POST https://host/webhookb2/group@tenant/IncomingWebhook/altId/groupOwner[/extraId] (MessageCard)
 *   teams+https://<webhook or Workflows URL> → POST to it (Workflows/Power Automate URLs get an Adaptive Card)
 *   discord://token@webhookid            → POST discord.com/api/webhooks/{id}/{token}
 *   mattermost://[user@]host[:port]/token[/channel] → POST https://host/hooks/{token} (disabletls=yes: http)
 *   googlechat://chat.googleapis.com/v1/spaces/X/messages?key=&token= → POST https://<same path and query>
 *   telegram://token@telegram?chats=@a,123 → POST api.telegram.org/bot{token}/sendMessage, once per chat
 *   ntfy://[user:pass@]host/topic[?scheme=http&priority=&tags=…] → POST host/topic (Title, Priority, Tags… headers)
 *   pushover://shoutrrr:token@userKey/?devices= → POST api.pushover.net/1/messages.json (form)
 *   pushbullet://token[/device|/#channel|/email…] → POST api.pushbullet.com/v2/pushes (Access-Token), once per target
 *   opsgenie://host[:port][/path]/apiKey  → POST https://host/v2/alerts (Authorization: GenieKey)
 *   rocketchat://[user@]host[:port]/tokenA/tokenB[/channel] → POST https://host/hooks/tokenA/tokenB
 *   zulip://botmail:botkey@host/?stream=&topic= → POST https://host/api/v1/messages (basic auth, form)
 *   matrix://user:password@host[:port]/?rooms=!id,#alias&disableTLS=yes → client-server API: login (or
 *       matrix://:token@host), resolve aliases, PUT m.room.message into each room, logout
 *   ifttt://webhookID/?events=a,b&value1=…&messagevalue=2&titlevalue= → POST maker.ifttt.com/trigger/{event}/with/key/{id}
 *
 * `#` is literal in these URLs (channels, aliases). A message's `properties` override the URL's
 * query options, as Shoutrrr's params do. Every send has one deadline (timeoutMs, default 30 s)
 * and the caller's abort signal; `guard` is asked before every connection, and when it answers
 * the addresses it vetted the connection is pinned to them (targetGuardOf); anything but 2xx is a
 * NotificationSendError carrying the status and whether a retry may help. Secrets of the URL are
 * masked in every message, result and `target`.
 */

export { NotificationSendError, SENDER_SCHEMES, targetGuardOf }
export type { NotificationMessage, SenderScheme, SendOptions, SendResult }
export type { NotificationAttachment } from './sender-http.ts'

const SENDERS: Record<SenderScheme, Sender> = {
  smtp: smtpSender,
  generic: genericSender,
  slack: slackSender,
  teams: teamsSender,
  discord: discordSender,
  mattermost: mattermostSender,
  googlechat: googleChatSender,
  telegram: telegramSender,
  ntfy: ntfySender,
  pushover: pushoverSender,
  pushbullet: pushbulletSender,
  opsgenie: opsgenieSender,
  rocketchat: rocketChatSender,
  zulip: zulipSender,
  matrix: matrixSender,
  ifttt: iftttSender,
}

/** The scheme as written (`generic+https`) and the sender it belongs to (`generic`). */
function serviceOf(raw: string): { scheme: string; service?: SenderScheme } {
  const scheme = raw.trim().slice(0, Math.max(0, raw.trim().indexOf(':'))).toLowerCase()
  const family = scheme.split('+')[0] ?? ''
  const service = (SENDER_SCHEMES as readonly string[]).includes(family) ? (family as SenderScheme) : undefined
  // Only generic and teams take a `+http(s)` form.
  if (service && scheme !== family && !((family === 'generic' || family === 'teams') && /^\w+\+https?$/.test(scheme))) return { scheme }
  return { scheme, service }
}

function unsupported(scheme: string): NotificationSendError {
  return new NotificationSendError(scheme || 'unknown', `unsupported notification URL scheme "${scheme}": supported are ${SENDER_SCHEMES.join(', ')} (and generic+http, generic+https, teams+https)`)
}

/** Masks everything secret in the URL but keeps what says where it goes. */
function maskedUrl(raw: string, url: ShoutrrrUrl, sender: Sender): string {
  const secrets = new Secrets().add(...sender.secrets(url))
  // The password and secret-named query values never show, even when too short for text masking.
  const queryStart = raw.indexOf('?')
  const [head, query] = queryStart < 0 ? [raw, ''] : [raw.slice(0, queryStart), raw.slice(queryStart + 1)]
  const maskedHead = url.url.password ? head.replace(`:${url.url.password}@`, ':***@') : head
  const maskedQuery = query
    .split('&')
    .map((pair) => {
      const equals = pair.indexOf('=')
      return equals > 0 && isSecretQueryKey(pair.slice(0, equals)) ? `${pair.slice(0, equals)}=***` : pair
    })
    .join('&')
  return secrets.redact(queryStart < 0 ? maskedHead : `${maskedHead}?${maskedQuery}`)
}

export function describeTarget(shoutrrrUrl: string): string {
  const raw = shoutrrrUrl.trim()
  const { scheme, service } = serviceOf(raw)
  if (!service) {
    // Unknown services: keep the scheme and host, hide credentials, path and query.
    try {
      const url = new URL(raw)
      return `${scheme}://${url.username || url.password ? '***@' : ''}${url.host}${url.pathname.length > 1 || url.search ? '/***' : ''}`
    } catch {
      return `${scheme || 'unknown'}://***`
    }
  }
  const sender = SENDERS[service]
  try {
    return maskedUrl(sender.prepare ? sender.prepare(raw) : raw, new ShoutrrrUrl(sender.prepare ? sender.prepare(raw) : raw), sender)
  } catch {
    return `${scheme}://***`
  }
}

export async function sendNotification(shoutrrrUrl: string, message: NotificationMessage, options: SendOptions = {}): Promise<SendResult> {
  const { scheme, service } = serviceOf(shoutrrrUrl)
  if (!service) throw unsupported(scheme)
  const sender = SENDERS[service]
  const raw = sender.prepare ? sender.prepare(shoutrrrUrl.trim()) : shoutrrrUrl.trim()
  const url = new ShoutrrrUrl(raw, message.properties)
  const target = maskedUrl(raw, url, sender)
  if (service !== 'smtp' && (message.attachments?.length ?? 0) > 0) {
    throw new NotificationSendError(scheme, `${scheme}: attachments are sent by smtp only`)
  }
  const timeoutMs = options.timeoutMs ?? DEFAULT_TIMEOUT_MS
  const deadline = AbortSignal.timeout(timeoutMs)
  const signal = options.signal ? AbortSignal.any([options.signal, deadline]) : deadline
  const context: SendContext = {
    scheme: service,
    options,
    signal,
    timeoutMs,
    secrets: new Secrets().add(...sender.secrets(url)),
    timedOut: () => deadline.aborted && !options.signal?.aborted,
  }
  const outcome = await sender.send(url, message, context)
  return { scheme, target, ...outcome }
}
