/*
 * The integrations screen's vocabulary (spec 001 §2 "Add Integration modal"): what the page
 * renders, free of zod, yaml and the chart schemas so none of them reaches the browser bundle
 * (decision 016). The schemas and the YAML/command generation are in `integration-gitops.ts`.
 */

export const GITOPS_CHART_IDS = ['aws', 'azure', 'prometheus', 'flux', 'kubernetes', 'mission-control'] as const
export type GitopsChartId = (typeof GITOPS_CHART_IDS)[number]

/**
 * The 'Add via GitOps' choices in the spec's order. Chart names are those the flanksource chart
 * repository publishes: the registry's integration charts are `mission-control-<name>`, the
 * platform itself is `mission-control`.
 */
export const GITOPS_CHOICES: ReadonlyArray<{ id: GitopsChartId; label: string; chart: string; description: string }> = [
  { id: 'aws', label: 'AWS', chart: 'mission-control-aws', description: 'Scrape AWS resources, CloudTrail changes and cost reports' },
  { id: 'azure', label: 'Azure', chart: 'mission-control-azure', description: 'Scrape Azure resources and activity logs' },
  { id: 'prometheus', label: 'Prometheus', chart: 'mission-control-prometheus', description: 'A topology of Prometheus and its targets' },
  { id: 'flux', label: 'Flux', chart: 'mission-control-flux', description: 'A topology of Flux kustomizations and Helm releases' },
  { id: 'kubernetes', label: 'Kubernetes', chart: 'mission-control-kubernetes', description: 'Scrape a cluster into the catalog, with its topology and playbooks' },
  { id: 'mission-control', label: 'Mission Control', chart: 'mission-control', description: 'The platform itself' },
]

export const DIRECT_CHOICES = [
  { id: 'topology', label: 'Custom Topology', href: '/settings/integrations/topologies/new', resource: 'topologies', feature: null },
  { id: 'scraper', label: 'Catalog Scraper', href: '/catalog/scrapers/new', resource: 'config_scrapers', feature: null },
  { id: 'log-backends', label: 'Log Backends', href: '/settings/logging_backends/new', resource: 'logging_backends', feature: 'logs' },
] as const
export type DirectChoice = (typeof DIRECT_CHOICES)[number]

export const HELM_REPOSITORY = { name: 'flanksource', url: 'https://flanksource.github.io/charts' } as const
export const DEFAULT_GITOPS_NAMESPACE = 'mission-control'
export const NAMESPACE_PATTERN = String.raw`^[a-z0-9]([a-z0-9\-]*[a-z0-9])?$`
export const FLUX_WARNING = 'You will need to have Kubernetes chart installed in flux to use this option.'

/** The `?add=` values: the choice list, or one GitOps chart's form. */
export const ADD_CHOOSE = 'choose'
export type AddState = typeof ADD_CHOOSE | GitopsChartId | null

export function parseAddState(value: string | null): AddState {
  if (value === null) return null
  if ((GITOPS_CHART_IDS as readonly string[]).includes(value)) return value as GitopsChartId
  return ADD_CHOOSE
}

export function gitopsChoice(id: GitopsChartId) {
  return GITOPS_CHOICES.find((choice) => choice.id === id) ?? GITOPS_CHOICES[0]!
}

/** One input of the values form, derived from the chart's JSON schema on the server. */
export type ValueField =
  | { kind: 'string' | 'number' | 'integer' | 'list'; path: string; label: string; description: string | null; required: boolean; defaultValue: string; min?: number; max?: number; pattern?: string; maxLength?: number }
  | { kind: 'enum'; path: string; label: string; description: string | null; required: boolean; defaultValue: string; options: string[] }
  | { kind: 'boolean'; path: string; label: string; description: string | null; required: false; defaultValue: boolean }
  | { kind: 'object'; path: string; label: string; description: string | null; required: boolean; fields: ValueField[] }

/** Form field names of the values: `values.<dotted path>`. */
export const VALUE_PREFIX = 'values.'

export const INTEGRATION_TYPES = [
  { value: 'scrapers', label: 'Catalog Scraper' },
  { value: 'topologies', label: 'Topology' },
  { value: 'logging_backends', label: 'Log Backend' },
] as const
export type IntegrationType = (typeof INTEGRATION_TYPES)[number]['value']

export const INTEGRATION_SORT_COLUMNS = ['name', 'integration_type', 'job_status', 'job_time_start', 'created_at'] as const
export type IntegrationSortColumn = (typeof INTEGRATION_SORT_COLUMNS)[number]

export const JOB_STATUSES = ['SUCCESS', 'FAILED', 'WARNING', 'RUNNING'] as const

export function integrationTypeLabel(type: string): string {
  return INTEGRATION_TYPES.find((entry) => entry.value === type)?.label ?? type
}
