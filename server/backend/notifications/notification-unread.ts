import express, { type NextFunction, type Request, type Response } from 'express'
import { isUuid } from '#contract/uuid.ts'
import type { Db } from '#server/db/client.ts'
import type { Principal } from '#server/backend/identity/principal.ts'
import type { Authorizer } from '#server/backend/rbac/authorizer.ts'
import { Params } from '#server/backend/postgrest/sql-builder.ts'
import { historyVisibility, visibleHistoryConditions, type HistoryVisibility } from './notification-access.ts'

/**
 * The top bar bell's unread count (spec 000 §2: "the top bar bell links here with the unread
 * count"), a Lookout addition to the notification API:
 *
 *   GET  /notification/unread       → {"unread": n}   (n stops at UNREAD_CAP)
 *   POST /notification/unread/seen  → 204              (the caller has opened /notifications)
 *
 * Unread means: a send-history row that reached its recipient or failed to (status `sent` or
 * `error`; suppressed and in-flight rows are not news), created after the person last opened
 * /notifications, about a resource they may see. A person who never opened it is shown the
 * last NEVER_SEEN_WINDOW_MS rather than all history, so a new account does not start at 99+.
 * Rows are counted by when they were queued: a send queued before the visit and delivered after
 * it is not counted again. Callers without a person (a bare bootstrap token) have no count.
 */

/** Counting stops here; the bell shows "99+" from UNREAD_CAP on. */
export const UNREAD_CAP = 100
export const NEVER_SEEN_WINDOW_MS = 7 * 24 * 3600 * 1000

/**
 * One query over the partial index of delivered sends (0296), walked from the person's last
 * visit and cut at the cap, so its cost does not grow with history.
 */
export async function countUnreadNotifications(db: Db, personId: string, visibility: HistoryVisibility | null = null, now = new Date()): Promise<number> {
  const params = new Params()
  const person = params.text(personId)
  const neverSeenSince = params.text(new Date(now.getTime() - NEVER_SEEN_WINDOW_MS).toISOString())
  const visible = visibility ? visibleHistoryConditions(visibility, `split_part(h.source_event, '.', 1)`, 'h.resource_id', params) : []
  const cap = params.text(String(UNREAD_CAP))
  const { rows } = await db.query<{ unread: number }>(
    `SELECT count(*)::int AS unread FROM (
       SELECT 1 FROM notification_send_history h
       WHERE h.status IN ('sent', 'error')
         AND h.created_at > coalesce((SELECT seen_at FROM lookout.notification_reads WHERE person_id = ${person}::uuid), ${neverSeenSince}::timestamptz)
         ${visible.map((condition) => `AND ${condition}`).join(' ')}
       ORDER BY h.created_at DESC
       LIMIT ${cap}::int
     ) unread`,
    params.values,
  )
  return rows[0]?.unread ?? 0
}

/**
 * Records that the person has looked, at the database's clock (the one `created_at` comes from);
 * an earlier time never moves the mark back (two tabs, a late request).
 */
export async function markNotificationsSeen(db: Db, personId: string, at: Date | null = null): Promise<void> {
  await db.query(
    `INSERT INTO lookout.notification_reads (person_id, seen_at)
     SELECT id, coalesce($2::timestamptz, now()) FROM people WHERE id = $1::uuid
     ON CONFLICT (person_id) DO UPDATE SET seen_at = greatest(lookout.notification_reads.seen_at, EXCLUDED.seen_at)`,
    [personId, at ? at.toISOString() : null],
  )
}

/** The person behind the request; a bare token has none. */
function personOf(res: Response): string | null {
  const principal = res.locals.principal as Principal | undefined
  return principal && isUuid(principal.personId) ? principal.personId : null
}

type Handler = (req: Request, res: Response) => Promise<void>
const handle = (fn: Handler) => (req: Request, res: Response, next: NextFunction) => void fn(req, res).catch(next)

/**
 * Mounted under /notification. Both routes need only the notification read permission
 * (route-access.ts): marking what one has read changes nothing anyone else sees.
 */
export function createNotificationUnreadRouter(options: { db: Db; authorizer: Authorizer }): express.Router {
  const { db, authorizer } = options
  const router = express.Router()
  router.get(
    '/unread',
    handle(async (_req, res) => {
      const personId = personOf(res)
      if (!personId) return void res.json({ unread: null })
      const visibility = await historyVisibility(authorizer, res.locals.principal as Principal | undefined)
      res.json({ unread: await countUnreadNotifications(db, personId, visibility) })
    }),
  )
  router.post(
    '/unread/seen',
    handle(async (_req, res) => {
      const personId = personOf(res)
      if (personId) await markNotificationsSeen(db, personId)
      res.status(204).end()
    }),
  )
  return router
}
