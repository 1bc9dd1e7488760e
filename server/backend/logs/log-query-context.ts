import type { Queryable } from '#server/db/client.ts'
import { CheckInputError, findConnection, resolveAccess, type ResolvedAccess } from '#server/backend/health/checks/check-inputs.ts'
import type { TargetGuard } from '#server/backend/health/checks/target-guard.ts'
import { LogInputError } from './log-line.ts'

/** Where and for whom one log query runs: the playbook action and `POST /logs` each build one. */
export type LogQueryContext = {
  db: Queryable
  signal?: AbortSignal
  /** Unrestricted for what an exec holder wrote; the untrusted-canary fence otherwise (check-trust.ts). */
  targets: TargetGuard
  /** The namespace a `connection://<name>` reference is looked up in. */
  namespace: string
}

/** The time range and size of one query. */
export type LogWindow = { start: Date; end: Date; limit: number }

export { LOG_SEARCH_DEFAULT_LIMIT as DEFAULT_LOG_LIMIT, LOG_SEARCH_MAX_LIMIT as MAX_LOG_LIMIT } from '#contract/logs/log-search.ts'

/** URL and credentials of a backend block (its `connection`, `url`, `username`, `password`), as checks resolve them (§0.3). */
export async function resolveBackendAccess(block: Record<string, unknown>, context: LogQueryContext): Promise<ResolvedAccess> {
  try {
    return await resolveAccess(
      block,
      {
        resolveConnection: (ref, namespace) => findConnection(context.db, ref, namespace),
        templatesEnabled: true,
        targets: context.targets,
        canary: { namespace: context.namespace },
      },
      { connectionIsUrl: true },
    )
  } catch (error) {
    if (error instanceof CheckInputError) throw new LogInputError(error.message)
    throw error
  }
}
