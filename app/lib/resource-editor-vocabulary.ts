import type { Resource } from './access.ts'
import type { Feature } from './features.ts'
import { SETTINGS_TABLES } from './navigation.ts'

/**
 * The generic resource editor's vocabulary (decision 016): which tables it edits, their list
 * columns, row sources and job history, without zod or the YAML library. Shared by the page
 * (`resource-editor-shapes.ts`) and the rules the action applies to a post (`resource-editor.ts`),
 * so neither imports the other.
 */

export type ResourceKind = {
  table: string
  label: string
  /** Singular, for messages ("Canary created"). */
  singular: string
  feature: Feature
  resource: Resource
  /** What the list reads: `<table>_with_status` unless the table is read directly (http-api §4.7). */
  listRelation: string
  /** The document kind users keep in git; a pasted document of another kind is refused. */
  kind: string
  apiVersion: string
  namespaced: boolean
  hasLabels: boolean
  /** The value job_history.resource_type carries for this table's rows. */
  jobResourceType: string
}

/** The editable kinds. Teams are not here: they have their own pages with a Members tab. */
export const RESOURCE_KINDS = {
  canaries: {
    table: 'canaries',
    label: 'Canaries',
    singular: 'Canary',
    feature: SETTINGS_TABLES.canaries.feature,
    resource: SETTINGS_TABLES.canaries.resource,
    listRelation: 'canaries_with_status',
    kind: 'Canary',
    apiVersion: 'canaries.flanksource.com/v1',
    namespaced: true,
    hasLabels: true,
    jobResourceType: 'canary',
  },
  topologies: {
    table: 'topologies',
    label: 'Topologies',
    singular: 'Topology',
    feature: SETTINGS_TABLES.topologies.feature,
    resource: SETTINGS_TABLES.topologies.resource,
    listRelation: 'topologies_with_status',
    kind: 'Topology',
    apiVersion: 'canaries.flanksource.com/v1',
    namespaced: true,
    hasLabels: true,
    jobResourceType: 'topology',
  },
  incident_rules: {
    table: 'incident_rules',
    label: 'Incident Rules',
    singular: 'Incident rule',
    feature: SETTINGS_TABLES.incident_rules.feature,
    resource: SETTINGS_TABLES.incident_rules.resource,
    listRelation: 'incident_rules',
    kind: 'IncidentRule',
    apiVersion: 'mission-control.flanksource.com/v1',
    namespaced: false,
    hasLabels: false,
    jobResourceType: 'incident_rule',
  },
  logging_backends: {
    table: 'logging_backends',
    label: 'Log Backends',
    singular: 'Log backend',
    feature: 'settings.logging_backends',
    resource: 'logging_backends',
    // No status view exists for log backends: they run no jobs.
    listRelation: 'logging_backends',
    kind: 'LoggingBackend',
    apiVersion: 'mission-control.flanksource.com/v1',
    namespaced: false,
    hasLabels: true,
    jobResourceType: 'logging_backend',
  },
  config_scrapers: {
    table: 'config_scrapers',
    label: 'Catalog Scrapers',
    singular: 'Catalog scraper',
    feature: 'settings.config_scraper',
    resource: 'config_scrapers',
    listRelation: 'config_scrapers_with_status',
    kind: 'ScrapeConfig',
    apiVersion: 'configs.flanksource.com/v1',
    namespaced: true,
    hasLabels: false,
    jobResourceType: 'config_scraper',
  },
  views: {
    table: 'views',
    label: 'Views',
    singular: 'View',
    feature: 'views',
    resource: 'views',
    // Views run no jobs, so no status view exists.
    listRelation: 'views',
    kind: 'View',
    apiVersion: 'mission-control.flanksource.com/v1',
    namespaced: true,
    hasLabels: true,
    jobResourceType: 'view',
  },
} as const satisfies Record<string, ResourceKind>

export type ResourceTable = keyof typeof RESOURCE_KINDS

/**
 * The kinds served under /settings/{table}. Config scrapers live under /catalog/scrapers
 * (spec 000 §2), so they are not reachable here even though the editor can handle them.
 */
const SETTINGS_EDITOR_TABLES: readonly ResourceTable[] = ['canaries', 'topologies', 'incident_rules', 'logging_backends', 'views']

export function getEditorKind(table: string | undefined): ResourceKind | null {
  if (!table || !(SETTINGS_EDITOR_TABLES as readonly string[]).includes(table)) return null
  return RESOURCE_KINDS[table as ResourceTable]
}

/** The list's default page size: the platform's settings lists read 100 rows (http-api §4.7). */
export const SETTINGS_LIST_LIMIT = 100
export const RESOURCE_LIST_PAGE_SIZES = [50, SETTINGS_LIST_LIMIT, 200] as const

// ---------------------------------------------------------------------------------------------
// The list's URL state

/** The list's sortable columns; `status` is the last job's, which only `*_with_status` views carry. */
export type ResourceListColumn = 'name' | 'namespace' | 'source' | 'status' | 'updated_at' | 'created_at'

export function hasJobStatus(kind: Pick<ResourceKind, 'listRelation'>): boolean {
  return kind.listRelation.endsWith('_with_status')
}

export function resourceListColumns(kind: Pick<ResourceKind, 'namespaced' | 'listRelation'>): ResourceListColumn[] {
  return ['name', ...(kind.namespaced ? (['namespace'] as const) : []), 'source', ...(hasJobStatus(kind) ? (['status'] as const) : []), 'updated_at', 'created_at']
}

export type ResourceListSearch = {
  /** null: the platform's order, newest first. */
  sortBy: ResourceListColumn | null
  sortDesc: boolean
  page: number
  pageSize: number
}

export const JOB_HISTORY_PAGE_SIZE = 150
export const DELETE_CONFIRMATION = 'Are you sure you want to delete this resource?'

// ---------------------------------------------------------------------------------------------
// Source: who owns a row

export type ResourceRow = {
  id?: string
  name?: string | null
  namespace?: string | null
  labels?: unknown
  spec?: unknown
  source?: string | null
  agent_id?: string | null
  [column: string]: unknown
}

export type SourceInfo = {
  readOnly: boolean
  /** Where the resource came from, in words (spec 002 §2: agent, component, Kubernetes custom resource, local file). */
  origin: string
  href?: string
}

const LOCAL_AGENT_ID = '00000000-0000-0000-0000-000000000000'

/** A row is editable only when the UI (or nobody in particular) created it. */
export function sourceInfo(row: Pick<ResourceRow, 'source' | 'agent_id'>): SourceInfo {
  const source = (row.source ?? '').trim()
  const agent = row.agent_id && row.agent_id !== LOCAL_AGENT_ID ? row.agent_id : null
  if (agent) return { readOnly: true, origin: 'an agent', href: `/settings/agents?id=${encodeURIComponent(agent)}` }
  if (source === '' || source === 'UI') return { readOnly: false, origin: 'the UI' }
  const component = /^component=(.+)$/.exec(source)
  if (component) return { readOnly: true, origin: 'a component', href: `/topology/${encodeURIComponent(component[1]!)}` }
  const check = /^check=(.+)$/.exec(source)
  if (check) return { readOnly: true, origin: 'a health check', href: `/health?checkId=${encodeURIComponent(check[1]!)}` }
  switch (source) {
    case 'KubernetesCRD':
    case 'CRDSync':
      return { readOnly: true, origin: 'a Kubernetes custom resource' }
    case 'ConfigFile':
      return { readOnly: true, origin: 'a local file' }
    case 'Topology':
      return { readOnly: true, origin: 'a topology' }
    case 'Push':
      return { readOnly: true, origin: 'an agent (pushed)' }
    case 'ApplicationCRD':
      return { readOnly: true, origin: 'an application' }
    case 'System':
      return { readOnly: true, origin: 'the system' }
    case 'Demo':
      return { readOnly: true, origin: 'the demo data' }
    default:
      return { readOnly: true, origin: source }
  }
}

// ---------------------------------------------------------------------------------------------
// YAML document ↔ row

export type EditorField = 'name' | 'namespace' | 'spec'

export const EMPTY_SPEC = 'The spec is empty.'

export type JobHistoryRow = {
  id: string
  name?: string | null
  status?: string | null
  resource_type?: string | null
  resource_name?: string | null
  hostname?: string | null
  time_start?: string | null
  time_end?: string | null
  created_at?: string | null
  duration_millis?: number | null
  success_count?: number | null
  error_count?: number | null
  details?: unknown
  agent?: { id?: string | null; name?: string | null } | null
}

export type JobStatusTone = 'success' | 'warning' | 'danger' | 'secondary' | 'outline'

/** Statuses are colour-coded (spec 002 §2 "Job history"). */
export function jobStatusTone(status: string | null | undefined): JobStatusTone {
  switch ((status ?? '').toUpperCase()) {
    case 'SUCCESS':
      return 'success'
    case 'WARNING':
      return 'warning'
    case 'FAILED':
      return 'danger'
    case 'RUNNING':
      return 'secondary'
    default:
      return 'outline'
  }
}

export type JobDetailsTab = { id: 'errors' | 'scrape_summary' | 'summary'; label: string; content: unknown }

function hasContent(value: unknown): boolean {
  if (value === null || value === undefined || value === '') return false
  if (Array.isArray(value)) return value.length > 0
  if (typeof value === 'object') return Object.keys(value).length > 0
  return true
}

/** The tabs of the details modal that have something to show; none means no modal. */
export function jobDetailsTabs(details: unknown): JobDetailsTab[] {
  if (!isPlainObject(details)) return []
  const tabs: JobDetailsTab[] = [
    { id: 'errors', label: 'Errors', content: details.errors },
    { id: 'scrape_summary', label: 'Scrape Summary', content: details.scrape_summary },
    { id: 'summary', label: 'Reconcile Summary', content: details.summary },
  ]
  return tabs.filter((tab) => hasContent(tab.content))
}


function isPlainObject(value: unknown): value is Record<string, unknown> {
  return typeof value === 'object' && value !== null && !Array.isArray(value)
}
