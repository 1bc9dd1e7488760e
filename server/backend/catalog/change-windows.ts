import type { Db } from '#server/db/client.ts'

/**
 * Change counts per config item over the last 3, 7 and 30 days, kept in
 * lookout.config_change_windows (migration 0267) for the catalog summary: the reference answers
 * those three windows from pre-aggregated tables (http-api.md §2.2.1) that lag until refreshed.
 * Here a summary asking for one of them uses the counts while they are under ten minutes old,
 * and any summary finding them over a minute old starts one refresh in the background (one per
 * database at a time: an advisory lock), so the counts lag by about a minute on a busy catalog.
 * Until the first refresh has finished, the summary counts live.
 */

export const WINDOW_COLUMNS: Record<string, string> = { '3d': 'changes_3d', '7d': 'changes_7d', '30d': 'changes_30d' }
const USABLE_MS = 10 * 60_000
const REFRESH_AFTER_MS = 60_000
// An arbitrary constant naming this refresh among the database's advisory locks.
const REFRESH_LOCK = 140_267

export type ChangeWindows = {
  /** The column to read for this `changes.since`, or null when the summary must count live. */
  columnFor(since: string | undefined): Promise<string | null>
  /** Recounts now (tests, and the background refresh). Resolves false when another process holds the refresh. */
  refresh(): Promise<boolean>
}

export function createChangeWindows(db: Db, onError: (error: unknown) => void): ChangeWindows {
  let running: Promise<boolean> | null = null

  async function refresh(): Promise<boolean> {
    return db.transaction(async (tx) => {
      const { rows } = await tx.query<{ locked: boolean }>('SELECT pg_try_advisory_xact_lock($1) AS locked', [REFRESH_LOCK])
      if (!rows[0]?.locked) return false
      await tx.exec(`
        DELETE FROM lookout.config_change_windows;
        INSERT INTO lookout.config_change_windows (config_id, changes_3d, changes_7d, changes_30d)
        SELECT cc.config_id,
          count(*) FILTER (WHERE cc.created_at > now() - interval '3 days'),
          count(*) FILTER (WHERE cc.created_at > now() - interval '7 days'),
          count(*)
        FROM public.config_changes cc
        WHERE cc.created_at > now() - interval '30 days'
        GROUP BY cc.config_id;
        UPDATE lookout.config_change_windows_state SET counted_at = now();`)
      // The summary joins these rows to every item: its plan needs their count, which changed.
      await tx.exec('ANALYZE lookout.config_change_windows')
      return true
    })
  }

  function refreshInBackground(): void {
    if (running) return
    running = refresh()
      .catch((error: unknown) => {
        onError(error)
        return false
      })
      .finally(() => {
        running = null
      })
  }

  return {
    refresh,
    async columnFor(since) {
      const column = since ? WINDOW_COLUMNS[since] : undefined
      if (!column) return null
      const { rows } = await db.query<{ age_ms: number | null }>(
        `SELECT (extract(epoch FROM now() - counted_at) * 1000)::float8 AS age_ms FROM lookout.config_change_windows_state`,
      )
      const age = rows[0]?.age_ms ?? null
      if (age === null || age > REFRESH_AFTER_MS) refreshInBackground()
      return age !== null && age <= USABLE_MS ? column : null
    },
  }
}
