import {
  describeTarget,
  NotificationSendError,
  sendNotification,
  targetGuardOf,
  type NotificationAttachment,
} from '#server/backend/notifications/senders/index.ts'
import type { ActionContext, ActionOutcome } from '../playbook-model.ts'
import { actionTargets, ActionInputError, objectOf, resolveActionAccess, stringOf } from './action-access.ts'

/**
 * `notification` (resource-specs §2.5): `url` (a Shoutrrr URL) or `connection` (whose URL is one),
 * `title`, `message`, `properties`, `attachments` (SMTP only). Delivery is the notification
 * senders' (every scheme they speak), so a playbook and a notification rule send alike;
 * `properties` are Shoutrrr's params (they override the URL's options; generic webhooks add
 * them to the JSON body). The playbook's fence applies: a playbook no exec holder wrote may not
 * reach this server's own addresses, and every connection goes to the address the fence vetted.
 * The result is `{title, message}`.
 */

function attachmentsOf(value: unknown): NotificationAttachment[] {
  if (value === undefined || value === null) return []
  if (!Array.isArray(value)) throw new ActionInputError('notification.attachments must be a list of {filename, content, contentType}')
  return value.map((entry: unknown, index) => {
    const attachment = objectOf(entry)
    const filename = stringOf(attachment.filename)
    if (!filename) throw new ActionInputError(`notification.attachments[${index}].filename is required`)
    return { filename, content: stringOf(attachment.content), contentType: stringOf(attachment.contentType) || undefined }
  })
}

/** Shoutrrr's params are strings; other values are written as JSON so nothing reads `[object Object]`. */
function propertiesOf(value: unknown): Record<string, string> {
  return Object.fromEntries(
    Object.entries(objectOf(value))
      .filter(([, entry]) => entry !== undefined && entry !== null)
      .map(([key, entry]) => [key, typeof entry === 'string' ? entry : JSON.stringify(entry)]),
  )
}

export async function runNotificationAction(spec: Record<string, unknown>, context: ActionContext): Promise<ActionOutcome> {
  const title = stringOf(spec.title)
  const message = stringOf(spec.message)
  let shoutrrr = stringOf(spec.url).trim()
  if (!shoutrrr && stringOf(spec.connection).trim()) {
    const access = await resolveActionAccess({ connection: spec.connection }, context)
    shoutrrr = access.url
    if (!shoutrrr) throw new ActionInputError(`connection ${stringOf(spec.connection)} has no notification URL`)
  }
  if (!shoutrrr) throw new ActionInputError('notification.url or notification.connection is required')
  const result = { title, message }
  const attachments = attachmentsOf(spec.attachments)
  try {
    const sent = await sendNotification(
      shoutrrr,
      { title, message, properties: propertiesOf(spec.properties), attachments },
      { signal: context.signal, guard: targetGuardOf(actionTargets(context)) },
    )
    context.logger.debug({ target: sent.target, status: sent.status }, 'playbook notification sent')
    return { result }
  } catch (error) {
    // The senders mask the URL's secrets in their messages; anything else is no delivery failure.
    if (!(error instanceof NotificationSendError)) throw error
    context.logger.debug({ target: describeTarget(shoutrrr), error: error.message }, 'playbook notification failed')
    return { result, error: error.message }
  }
}
