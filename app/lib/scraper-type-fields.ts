import type { CheckField } from './canary-check-fields.ts'

/**
 * The scraper editor's type grid and per-type forms (spec 002 §2 "Resource editor", §5; the
 * ScrapeConfig fields of resource-specs §3.7): each scraper kind, what its form asks for, and
 * which answers are required. Field names are the ScrapeConfig's own, so a form's result is the
 * YAML a user would have written; anything else is written in the Code tab. Zod-free and free of
 * the YAML library, so the page may render from it (decision 016); `scraper-type-forms.ts` turns
 * the answers into a document.
 */

export type ScraperField = CheckField

export type ScraperTypeForm = {
  /** The spec's list name (`file`, `kubernetes`, `githubActions`…). */
  type: string
  label: string
  description: string
  fields: readonly ScraperField[]
}

/** What an item scraped from a document is called, and where its id and name are read from. */
const itemFields = (example: string): ScraperField[] => [
  { name: 'type', label: 'Config type', kind: 'text', placeholder: example, help: 'The catalog type of every item this scraper keeps.' },
  { name: 'id', label: 'Id', kind: 'text', placeholder: '$.id', help: 'A value or a JSONPath.' },
  { name: 'name', label: 'Name', kind: 'text', placeholder: '$.name', help: 'A value or a JSONPath.' },
  { name: 'items', label: 'Items', kind: 'text', placeholder: '$.items[*]', help: 'A JSONPath that splits one document into many items.' },
]

const connection: ScraperField = { name: 'connection', label: 'Connection', kind: 'text', placeholder: 'connection://default/my-connection' }

export const SCRAPER_TYPE_FORMS: readonly ScraperTypeForm[] = [
  {
    type: 'file',
    label: 'File',
    description: 'Read JSON or YAML files matched by globs, or downloaded from a URL.',
    fields: [
      { name: 'paths', label: 'Paths', kind: 'list', placeholder: '/srv/inventory/*.yaml', help: 'Globs, comma-separated.' },
      { name: 'url', label: 'URL', kind: 'text', placeholder: 'https://github.com/org/repo.git', help: 'A git, http or s3 source downloaded first.' },
      { name: 'format', label: 'Format', kind: 'text', required: true, placeholder: 'json' },
      { name: 'icon', label: 'Icon', kind: 'text', required: true, placeholder: 'file' },
      { name: 'ignore', label: 'Ignore', kind: 'list', placeholder: '**/test/*', help: 'Globs, comma-separated.' },
      ...itemFields('Inventory::Host'),
    ],
  },
  {
    type: 'http',
    label: 'HTTP',
    description: 'Request an API and keep its answer, page by page.',
    fields: [
      { name: 'url', label: 'URL', kind: 'text', required: true, placeholder: 'https://api.example.com/services' },
      { name: 'method', label: 'Method', kind: 'select', options: ['GET', 'POST', 'PUT', 'PATCH'] },
      connection,
      { name: 'body', label: 'Body', kind: 'textarea' },
      { name: 'pagination.nextPageExpr', label: 'Next page (CEL)', kind: 'text', placeholder: "has(body.next) ? body.next : null" },
      ...itemFields('App::Service'),
    ],
  },
  {
    type: 'sql',
    label: 'SQL',
    description: 'Run a query against PostgreSQL, MySQL or SQL Server; each row is one item.',
    fields: [
      { ...connection, required: true, placeholder: 'postgres://user:pass@db:5432/app' },
      { name: 'query', label: 'Query', kind: 'textarea', required: true, placeholder: 'SELECT id, name FROM tenants' },
      { name: 'driver', label: 'Driver', kind: 'select', options: ['postgres', 'mysql', 'sqlserver'] },
      ...itemFields('App::Tenant'),
    ],
  },
  {
    type: 'exec',
    label: 'Exec',
    description: 'Run a script and keep what it prints as JSON.',
    fields: [{ name: 'script', label: 'Script', kind: 'textarea', required: true, placeholder: 'echo \'{"id": "1", "name": "one"}\'' }, ...itemFields('Script::Output')],
  },
  {
    type: 'kubernetes',
    label: 'Kubernetes',
    description: 'Every object of a cluster, its events and relationships.',
    fields: [
      { name: 'clusterName', label: 'Cluster name', kind: 'text', required: true, placeholder: 'prod-eu-west-1' },
      { name: 'namespace', label: 'Namespace', kind: 'text', placeholder: 'all namespaces' },
      { name: 'kubeconfig.value', label: 'Kubeconfig', kind: 'text', placeholder: 'the in-cluster account' },
    ],
  },
  {
    type: 'kubernetesFile',
    label: 'Kubernetes file',
    description: 'Kubernetes objects read from YAML files, as if scraped from a cluster.',
    fields: [
      { name: 'paths', label: 'Paths', kind: 'list', required: true, placeholder: '/srv/manifests/*.yaml', help: 'Globs, comma-separated.' },
      { name: 'ignore', label: 'Ignore', kind: 'list', placeholder: '**/kustomization.yaml', help: 'Globs, comma-separated.' },
    ],
  },
  {
    type: 'aws',
    label: 'AWS',
    description: 'Resources, costs and findings of AWS accounts.',
    fields: [connection, { name: 'region', label: 'Regions', kind: 'list', placeholder: 'eu-west-1, us-east-1' }],
  },
  {
    type: 'azure',
    label: 'Azure',
    description: 'Resources of an Azure subscription.',
    fields: [
      { ...connection, required: true },
      { name: 'subscriptionID', label: 'Subscription ID', kind: 'text' },
      { name: 'organisation', label: 'Organisation', kind: 'text' },
    ],
  },
  {
    type: 'gcp',
    label: 'GCP',
    description: 'Resources of a Google Cloud project.',
    fields: [connection, { name: 'project', label: 'Project', kind: 'text', placeholder: 'my-project' }],
  },
  {
    type: 'githubActions',
    label: 'GitHub Actions',
    description: 'Workflow runs of a repository.',
    fields: [
      { name: 'owner', label: 'Owner', kind: 'text', required: true, placeholder: 'flanksource' },
      { name: 'repository', label: 'Repository', kind: 'text', required: true, placeholder: 'canary-checker' },
      { name: 'personalAccessToken.value', label: 'Personal access token', kind: 'text' },
    ],
  },
  {
    type: 'azureDevops',
    label: 'Azure DevOps',
    description: 'Pipelines and their runs.',
    fields: [
      { name: 'organization', label: 'Organization', kind: 'text' },
      { name: 'projects', label: 'Projects', kind: 'list', help: 'Comma-separated.' },
      { name: 'personalAccessToken.value', label: 'Personal access token', kind: 'text' },
    ],
  },
  {
    type: 'trivy',
    label: 'Trivy',
    description: 'Vulnerability and misconfiguration findings as insights.',
    fields: [
      { name: 'version', label: 'Version', kind: 'text', placeholder: '0.50.1' },
      { name: 'severity', label: 'Severities', kind: 'list', placeholder: 'CRITICAL, HIGH' },
    ],
  },
]

/** The grid's last entry: any other scraper, or several in one ScrapeConfig, written as YAML. */
export const CUSTOM_SCRAPER_TYPE = 'custom'

export function getScraperTypeForm(type: string | null | undefined): ScraperTypeForm | undefined {
  return SCRAPER_TYPE_FORMS.find((form) => form.type === type)
}

/** The ScrapeConfig default (resource-specs §3.7). */
export const DEFAULT_SCRAPER_SCHEDULE = '@every 60m'

/** The fields every type's form starts with: the ScrapeConfig's own (named apart from the scrapers' `name` and `namespace`). */
export const COMMON_SCRAPER_FIELDS: readonly ScraperField[] = [
  { name: 'configName', label: 'Name', kind: 'text', required: true, placeholder: 'my-scraper' },
  { name: 'configNamespace', label: 'Namespace', kind: 'text', placeholder: 'default' },
  { name: 'schedule', label: 'Schedule', kind: 'text', placeholder: DEFAULT_SCRAPER_SCHEDULE, help: 'Cron or @every 30m.' },
]

/** The browser's own checks for a type form: its required fields, before JavaScript loads. */
export function scraperTypeFormConstraint(form: ScraperTypeForm): Record<string, { required: boolean }> {
  return Object.fromEntries([...COMMON_SCRAPER_FIELDS, ...form.fields].map((field) => [field.name, { required: Boolean(field.required) }]))
}
