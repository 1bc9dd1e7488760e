import { jobDetailTabs, type JobDetails } from '#app/components/jobs/job-vocabulary.ts'
import { dbClient, requireData, requirePage } from './data-client.server.ts'
import type { ApiArgs } from './gateway.server.ts'
import type { JobHistorySearch } from './job-history-search.ts'

/** The jobs history and event queue screens' data (`job_histories`, `event_queue` through /api/db). */

export type JobHistoryRow = {
  id: string
  name: string | null
  status: string | null
  resource_type: string | null
  resource_id: string | null
  resource_name: string | null
  agent: { id: string; name: string } | null
  hostname: string | null
  time_start: string | null
  time_end: string | null
  created_at: string
  duration_millis: number | null
  success_count: number | null
  error_count: number | null
  details: JobDetails | null
}

const LIST_COLUMNS = 'id,name,status,resource_type,resource_id,resource_name,agent,hostname,time_start,time_end,created_at,duration_millis,success_count,error_count,details'

export type JobHistoryFilters = Pick<JobHistorySearch, 'name' | 'resourceType' | 'status' | 'sortBy' | 'sortDesc' | 'page' | 'pageSize'> & {
  since: Date
  minDurationMs: number | null
}

/** One page of job runs, newest first unless a column is sorted; details stay on the server but for which tabs they fill. */
export async function listJobHistory(args: ApiArgs, filters: JobHistoryFilters): Promise<{ rows: JobHistoryListRow[]; total: number }> {
  let query = dbClient(args).from('job_histories').select(LIST_COLUMNS, { count: 'exact' }).gte('created_at', filters.since.toISOString())
  if (filters.name) query = query.eq('name', filters.name)
  if (filters.resourceType) query = query.eq('resource_type', filters.resourceType)
  if (filters.status) query = query.eq('status', filters.status)
  if (filters.minDurationMs !== null) query = query.gte('duration_millis', filters.minDurationMs)
  if (filters.sortBy) query = query.order(filters.sortBy, { ascending: !filters.sortDesc, nullsFirst: false })
  query = query.order('created_at', { ascending: false })
  const from = (filters.page - 1) * filters.pageSize
  const page = requirePage(await query.range(from, from + filters.pageSize - 1).returns<JobHistoryRow[]>())
  // Details can be large (a scrape's summary); the list carries only which tabs they would fill.
  return { total: page.total, rows: page.rows.map(({ details, ...row }) => ({ ...row, tabs: jobDetailTabs(details) })) }
}

export type JobHistoryListRow = Omit<JobHistoryRow, 'details'> & { tabs: ReturnType<typeof jobDetailTabs> }

export async function getJobHistory(args: ApiArgs, id: string): Promise<JobHistoryRow | null> {
  const rows = requireData(await dbClient(args).from('job_histories').select(LIST_COLUMNS).eq('id', id).limit(1).returns<JobHistoryRow[]>())
  return rows?.[0] ?? null
}

export async function listJobNames(args: ApiArgs): Promise<string[]> {
  const rows = requireData(await dbClient(args).from('job_history_names').select('name').order('name').limit(1000).returns<{ name: string }[]>())
  return (rows ?? []).map((row) => row.name)
}

// ---- event queue ---------------------------------------------------------------------------

export type EventQueueNameRow = {
  name: string
  pending: number
  failed: number
  oldest: string | null
  average_attempts: number | string | null
  last_attempt: string | null
  last_error: string | null
}

export async function listEventQueue(args: ApiArgs): Promise<EventQueueNameRow[]> {
  return requireData(await dbClient(args).from('event_queue_name_summary').select('*').order('name').limit(1000).returns<EventQueueNameRow[]>()) ?? []
}

/** Failed events of one name back in line at once: no attempts counted, no backoff, no error. */
export async function retryFailedEvents(args: ApiArgs, name: string): Promise<number> {
  const rows = requireData(
    await dbClient(args)
      .from('event_queue')
      .update({ attempts: 0, last_attempt: null, error: null })
      .eq('name', name)
      .not('error', 'is', null)
      .select('id')
      .returns<{ id: string }[]>(),
  )
  return rows?.length ?? 0
}

export async function discardFailedEvents(args: ApiArgs, name: string): Promise<number> {
  const rows = requireData(await dbClient(args).from('event_queue').delete().eq('name', name).not('error', 'is', null).select('id').returns<{ id: string }[]>())
  return rows?.length ?? 0
}
