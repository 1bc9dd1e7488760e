/** What the jobs history page renders from (spec 002 §2 "Job history", §9); zod-free so the page may import it. */

export const JOB_STATUSES = ['RUNNING', 'SUCCESS', 'WARNING', 'FAILED'] as const
export type JobStatusFilter = (typeof JOB_STATUSES)[number]
export const DEFAULT_JOB_STATUS: JobStatusFilter = 'SUCCESS'
/** The status select's "every status" value (the empty value would read as the SUCCESS default). */
export const ALL_JOB_STATUSES = 'all'

export const JOB_RESOURCE_TYPES = ['canary', 'topology', 'config_scraper'] as const
export type JobResourceType = (typeof JOB_RESOURCE_TYPES)[number]

/** The duration filter: jobs that took at least this long. */
export const JOB_DURATIONS = [
  ['15s', 15_000],
  ['30s', 30_000],
  ['1m', 60_000],
  ['2m', 120_000],
  ['3m', 180_000],
  ['5m', 300_000],
  ['10m', 600_000],
  ['15m', 900_000],
] as const
export type JobDuration = (typeof JOB_DURATIONS)[number][0]

/** Time ranges back from now; the spec's default is the last 2 days. */
export const JOB_RANGES = [
  ['1h', 'Last 1 hour', 60],
  ['6h', 'Last 6 hours', 360],
  ['1d', 'Last 1 day', 1440],
  ['2d', 'Last 2 days', 2880],
  ['1w', 'Last 7 days', 10080],
  ['1mo', 'Last 30 days', 43200],
] as const
export type JobRange = (typeof JOB_RANGES)[number][0]
export const DEFAULT_JOB_RANGE: JobRange = '2d'

export const JOB_PAGE_SIZES = [50, 100, 150, 200] as const
export const DEFAULT_JOB_PAGE_SIZE = 150

export const JOB_SORT_COLUMNS = ['name', 'resource_type', 'status', 'time_start', 'duration_millis', 'success_count', 'error_count'] as const
export type JobSortColumn = (typeof JOB_SORT_COLUMNS)[number]

export const JOB_DETAIL_TABS = [
  ['errors', 'Errors'],
  ['scrape', 'Scrape Summary'],
  ['summary', 'Reconcile Summary'],
] as const
export type JobDetailTab = (typeof JOB_DETAIL_TABS)[number][0]

export type JobDetails = { errors?: unknown; scrape_summary?: unknown; summary?: unknown } & Record<string, unknown>

function present(value: unknown): boolean {
  if (value === null || value === undefined) return false
  if (Array.isArray(value)) return value.length > 0
  if (typeof value === 'object') return Object.keys(value).length > 0
  return value !== ''
}

/** Which of the modal's tabs have something to show; none means the modal is not offered. */
export function jobDetailTabs(details: JobDetails | null | undefined): JobDetailTab[] {
  if (!details) return []
  const tabs: JobDetailTab[] = []
  if (present(details.errors)) tabs.push('errors')
  if (present(details.scrape_summary)) tabs.push('scrape')
  if (present(details.summary)) tabs.push('summary')
  return tabs
}

/** Spec 002 §2 "Links produced by this area": the resource column by resource type, followed by its id. */
export function jobResourceHref(resourceType: string | null, resourceId: string | null): string | null {
  if (!resourceType || !resourceId) return null
  const id = encodeURIComponent(resourceId)
  switch (resourceType) {
    case 'canary':
      return `/settings/canaries/${id}`
    case 'config_scraper':
    case 'catalog_scraper':
      return `/catalog/scrapers/${id}`
    case 'topology':
      return `/settings/topologies/${id}`
    case 'config':
      return `/catalog/${id}`
    case 'playbook':
      // The console has no page at /playbooks/{id}; the runs of that playbook are what the job is about.
      return `/playbooks/runs?${new URLSearchParams({ playbook: resourceId }).toString()}`
    default:
      return null
  }
}

export function jobStatusVariant(status: string | null): 'success' | 'warning' | 'danger' | 'secondary' | 'outline' {
  switch (status) {
    case 'SUCCESS':
      return 'success'
    case 'WARNING':
      return 'warning'
    case 'FAILED':
      return 'danger'
    case 'RUNNING':
      return 'outline'
    default:
      return 'secondary'
  }
}
