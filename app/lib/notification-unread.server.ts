import { z } from 'zod'
import { hasAccess, type SessionInfo } from './access.ts'
import { isFeatureDisabled } from './features.ts'
import { apiFetch, type ApiArgs } from './gateway.server.ts'
import { consoleLog } from './log.server.ts'
import { NOTIFICATIONS_HREF } from './notification-vocabulary.ts'

/**
 * The top bar bell (spec 000 §2): whether the person may open /notifications, and how many sends
 * they have not seen there. "Unread" is defined by the API (server/backend/notifications/
 * notification-unread.ts): sent or failed sends queued since the person last opened
 * /notifications, about resources they may see, counted up to 100 ("99+").
 */

export type NotificationBell = {
  /** Null when the count is unknown (an upstream without the endpoint, a token without a person). */
  unread: number | null
}

const UnreadSchema = z.object({ unread: z.number().int().min(0).nullable() })

/**
 * The bell, or null for someone who may not read notifications (or has them switched off): they
 * get no link and no count. On /notifications itself the count is not asked for — the page is
 * marking it all seen at the same time.
 */
export async function getNotificationBell(args: ApiArgs, session: SessionInfo, switchedOff: ReadonlySet<string>): Promise<NotificationBell | null> {
  if (!hasAccess(session, 'notifications', 'read') || isFeatureDisabled('settings.notifications', switchedOff)) return null
  if (new URL(args.request.url).pathname === NOTIFICATIONS_HREF) return { unread: 0 }
  try {
    const response = await apiFetch(args, '/notification/unread')
    if (!response.ok) return { unread: null }
    const body = UnreadSchema.safeParse(await response.json())
    return { unread: body.success ? body.data.unread : null }
  } catch (error) {
    // The count is a hint; the page renders without it.
    consoleLog.warn({ err: error }, 'the unread notification count could not be loaded')
    return { unread: null }
  }
}

/**
 * Opening /notifications is reading them. The loader runs on a GET, which vouches for no origin
 * (gateway.server.ts), so this call vouches for the console's own: a foreign page linking to
 * /notifications would mark no more than the visit it causes does anyway.
 */
export async function markNotificationsSeen(args: ApiArgs): Promise<void> {
  try {
    const response = await apiFetch(args, '/notification/unread/seen', { method: 'POST', headers: { origin: new URL(args.request.url).origin } })
    if (!response.ok && response.status !== 404) consoleLog.warn({ status: response.status }, 'notifications could not be marked seen')
  } catch (error) {
    consoleLog.warn({ err: error }, 'notifications could not be marked seen')
  }
}
