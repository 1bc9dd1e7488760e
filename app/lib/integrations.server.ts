import { dbClient, requirePage } from './data-client.server.ts'
import { GatewayError, type ApiArgs } from './gateway.server.ts'
import { toIlikeTerm } from './incidents.ts'
import type { IntegrationSearch } from './integration-search.ts'

export type IntegrationRow = {
  id: string
  name: string
  description: string
  integration_type: string
  source: string | null
  created_at: string
  created_by: string | null
  creator_name: string | null
  job_status: string | null
  job_time_start: string | null
  job_success_count: number | null
  job_error_count: number | null
  job_details: { errors?: unknown } | null
  job_last_failed: string | null
}

const INTEGRATION_SELECT =
  'id,name,description,integration_type,source,created_at,created_by,creator_name,job_status,job_time_start,job_success_count,job_error_count,job_details,job_last_failed'

/**
 * A page of integrations (scrapers, topologies, log backends) with their last run, from
 * `integrations_with_status`; a page past the end (the list shrank) gives the first page.
 */
export async function listIntegrations(args: ApiArgs, search: IntegrationSearch): Promise<{ rows: IntegrationRow[]; total: number; page: number }> {
  const read = (page: number) => {
    // The view keeps deleted log backends (as the platform's does); the list shows live ones only.
    let query = dbClient(args).from('integrations_with_status').select(INTEGRATION_SELECT, { count: 'exact' }).is('deleted_at', null)
    const term = toIlikeTerm(search.search)
    if (term) query = query.ilike('name', `*${term}*`)
    if (search.type) query = query.eq('integration_type', search.type)
    if (search.status) query = query.eq('job_status', search.status)
    const from = (page - 1) * search.pageSize
    return query
      .order(search.sortBy, { ascending: !search.sortDesc, nullsFirst: false })
      .order('id', { ascending: true })
      .range(from, from + search.pageSize - 1)
      .returns<IntegrationRow[]>()
  }
  try {
    return { ...requirePage(await read(search.page)), page: search.page }
  } catch (error) {
    if (!(error instanceof GatewayError) || error.status !== 416 || search.page === 1) throw error
    return { ...requirePage(await read(1)), page: 1 }
  }
}

/** The first error messages of a run's details (`job_details.errors`), for the list's Errors column. */
export function jobErrors(details: IntegrationRow['job_details']): string[] {
  const errors = details?.errors
  if (typeof errors === 'string' && errors) return [errors]
  if (!Array.isArray(errors)) return []
  return errors
    .map((error) => (typeof error === 'string' ? error : JSON.stringify(error)))
    .filter(Boolean)
    .slice(0, 3)
}
