import { data, type ActionFunctionArgs, type LoaderFunctionArgs } from '@remix-run/node'
import { Link, useActionData, useLoaderData, useLocation, useNavigation } from '@remix-run/react'
import { lazy, Suspense } from 'react'
import { CatalogFilters } from '#app/components/catalog/catalog-filters.tsx'
import type { DataColumn } from '#app/components/data-table/data-table.tsx'
import { DateTime } from '#app/components/date-time.tsx'
import { GeneralErrorBoundary } from '#app/components/error-boundary.tsx'
import { AddIntegrationDialog as ServerRenderedAddIntegrationDialog, type GitopsResult } from '#app/components/integrations/add-integration-dialog.tsx'
import { ListPage } from '#app/components/list-page/list-page.tsx'
import { Badge } from '#app/components/ui/badge.tsx'
import { buttonVariants } from '#app/components/ui/button.tsx'
import { Pencil } from '#app/components/ui/icons.tsx'
import { hasAccess } from '#app/lib/access.ts'
import { getSwitchedOffNames, isFeatureDisabled } from '#app/lib/features.ts'
import { chartSchema, generateGitops, readGenerateRequest, valueFields } from '#app/lib/integration-gitops.ts'
import { parseIntegrationSearch } from '#app/lib/integration-search.ts'
import {
  ADD_CHOOSE,
  DEFAULT_GITOPS_NAMESPACE,
  DIRECT_CHOICES,
  gitopsChoice,
  INTEGRATION_TYPES,
  integrationTypeLabel,
  JOB_STATUSES,
  VALUE_PREFIX,
  type GitopsChartId,
} from '#app/lib/integration-vocabulary.ts'
import { jobErrors, listIntegrations, type IntegrationRow } from '#app/lib/integrations.server.ts'
import type { RouteHandle } from '#app/lib/route-handle.ts'
import { getProperties, requireAccess, toErrorResponse } from '#app/lib/session.server.ts'
import { readToast } from '#app/lib/toast.server.ts'

export const handle = { title: 'Integrations', feature: 'settings.integrations', resource: 'integrations' } satisfies RouteHandle

// The modal (and its form code) loads when it opens; the server renders it in place (decisions 007, 014).
const AddIntegrationDialog = import.meta.env.SSR
  ? ServerRenderedAddIntegrationDialog
  : /* @__PURE__ */ lazy(() => import('#app/components/integrations/add-integration-dialog.tsx').then((module) => ({ default: module.AddIntegrationDialog })))

/**
 * /settings/integrations (spec 000 §2, 001 §2): scrapers, topologies and log backends from
 * `integrations_with_status` with their last run, filtered, sorted and paged in the URL; editing
 * (`/settings/integrations/{type}/{id}`) and the Add Integration modal (`?add=`) need write access.
 */
export async function loader(args: LoaderFunctionArgs) {
  const session = await requireAccess(args, handle)
  const search = parseIntegrationSearch(new URL(args.request.url).searchParams)
  const canWrite = hasAccess(session, 'integrations', 'write')
  const { toast, headers } = readToast(args.request)
  try {
    const [page, properties] = await Promise.all([listIntegrations(args, search), canWrite && search.add ? getProperties(args) : null])
    const switchedOff = getSwitchedOffNames(properties ?? [])
    const direct = DIRECT_CHOICES.filter((choice) => hasAccess(session, choice.resource, 'write') && !(choice.feature && isFeatureDisabled(choice.feature, switchedOff))).map(({ id, label, href }) => ({ id, label, href }))
    const add = canWrite ? search.add : null
    const form =
      add && add !== ADD_CHOOSE
        ? { id: add, label: gitopsChoice(add).label, chart: gitopsChoice(add).chart, namespace: DEFAULT_GITOPS_NAMESPACE, fields: valueFields(chartSchema(add)) }
        : null
    // Log backends have no runs: the view gives them an empty status, shown as never run.
    const rows = page.rows.map((row) => ({ ...row, job_status: row.job_status || null, errors: jobErrors(row.job_details), job_details: null }))
    return data({ search: { ...search, page: page.page }, rows, total: page.total, canWrite, add, direct, form, toast, now: new Date().toISOString() }, { headers })
  } catch (error) {
    throw toErrorResponse(error)
  }
}

/**
 * Generate: the namespace and values are checked against the chart's JSON schema and the Flux
 * manifests and Helm commands come back on the page; nothing is written. The values form is
 * shaped by the schema at run time, so it is read field by field (`generateGitops`) rather than
 * through one static conform schema.
 */
export async function action(args: ActionFunctionArgs) {
  await requireAccess(args, { ...handle, access: 'write' })
  const formData = await args.request.formData()
  const parsed = readGenerateRequest(formData)
  if (!parsed.success) return data<GitopsResult | null>(null, { status: 400 })
  const submitted: Record<string, string> = {}
  for (const [name, value] of formData) if (typeof value === 'string' && (name === 'namespace' || name.startsWith(VALUE_PREFIX))) submitted[name] = value
  const answer = generateGitops(parsed.data.chart, formData)
  if (!answer.ok) return data<GitopsResult>({ chart: parsed.data.chart, submitted, errors: answer.errors, output: null }, { status: 400 })
  return data<GitopsResult>({ chart: parsed.data.chart, submitted, errors: {}, output: { manifests: answer.manifests, commands: answer.commands } })
}

type Row = IntegrationRow & { errors: string[] }

const JOB_TONE: Record<string, 'success' | 'danger' | 'warning' | 'secondary'> = { SUCCESS: 'success', FAILED: 'danger', WARNING: 'warning', RUNNING: 'secondary' }

const editHref = (row: Pick<Row, 'integration_type' | 'id'>) => `/settings/integrations/${row.integration_type}/${row.id}`

function columns(canWrite: boolean, now: Date): DataColumn<Row>[] {
  return [
    {
      id: 'name',
      header: 'Name',
      accessorFn: (row) => row.name,
      cell: ({ row }) =>
        canWrite ? (
          <Link to={editHref(row.original)} className="font-medium hover:underline" data-testid="integration-link">
            {row.original.name}
          </Link>
        ) : (
          <span className="font-medium" data-testid="integration-name">
            {row.original.name}
          </span>
        ),
    },
    { id: 'integration_type', header: 'Type', accessorFn: (row) => row.integration_type, cell: ({ row }) => <span data-testid="integration-type">{integrationTypeLabel(row.original.integration_type)}</span> },
    {
      id: 'job_status',
      header: 'Status',
      accessorFn: (row) => row.job_status,
      cell: ({ row }) => (row.original.job_status ? <Badge variant={JOB_TONE[row.original.job_status] ?? 'outline'} data-testid="integration-status">{row.original.job_status}</Badge> : <span className="text-muted-foreground">Not run</span>),
    },
    { id: 'job_time_start', header: 'Last run', accessorFn: (row) => row.job_time_start, cell: ({ row }) => <DateTime value={row.original.job_time_start} now={now} className="whitespace-nowrap tabular-nums" /> },
    {
      id: 'errors',
      header: 'Errors',
      enableSorting: false,
      cell: ({ row }) =>
        row.original.errors.length > 0 ? (
          <ul className="flex max-w-md flex-col text-xs text-danger" data-testid="integration-errors">
            {row.original.errors.map((error, index) => (
              <li key={index} className="truncate" title={error}>
                {error}
              </li>
            ))}
          </ul>
        ) : row.original.job_error_count ? (
          <span className="text-xs text-danger">{row.original.job_error_count} errors</span>
        ) : null,
    },
    {
      id: 'created_at',
      header: 'Created',
      accessorFn: (row) => row.created_at,
      cell: ({ row }) => (
        <span className="flex flex-col">
          <DateTime value={row.original.created_at} now={now} className="whitespace-nowrap tabular-nums" />
          {row.original.creator_name ? <span className="text-xs text-muted-foreground">{row.original.creator_name}</span> : null}
        </span>
      ),
    },
  ]
}

/** The list's URL with `add` set to one step of the modal, or removed. */
function withAdd(search: string, add: string | null): string {
  const params = new URLSearchParams(search)
  params.delete('index')
  if (add) params.set('add', add)
  else params.delete('add')
  const query = params.toString()
  return query ? `?${query}` : '/settings/integrations'
}

export default function IntegrationsRoute() {
  const { search, rows, total, canWrite, add, direct, form, toast, now } = useLoaderData<typeof loader>()
  const result = useActionData<typeof action>() ?? null
  const location = useLocation()
  const navigation = useNavigation()
  const busy = navigation.state === 'submitting' && navigation.formMethod?.toLowerCase() === 'post'
  const pageCount = Math.max(1, Math.ceil(total / search.pageSize))
  return (
    <ListPage
      testId="integrations-page"
      description="Catalog scrapers, topologies and log backends, with their last run."
      addAction={canWrite ? { label: 'Add Integration', to: withAdd(location.search, ADD_CHOOSE), testId: 'integration-add' } : null}
      filterBar={
        <CatalogFilters
          testId="integration-filters"
          search={search.search}
          searchPlaceholder="Search by name"
          selects={[
            { name: 'type', label: 'Type', value: search.type, options: INTEGRATION_TYPES },
            { name: 'status', label: 'Status', value: search.status, options: JOB_STATUSES },
          ]}
        />
      }
      table={{
        data: rows,
        columns: columns(canWrite, new Date(now)),
        getRowId: (row) => `${row.integration_type}:${row.id}`,
        rowHref: canWrite ? editHref : undefined,
        urlSorting: { id: search.sortBy, desc: search.sortDesc },
        pagination: { page: search.page, pageCount, pageSize: search.pageSize, totalRows: total },
        testId: 'integrations-table',
        rowTestId: 'integration-row',
      }}
      rowActions={
        canWrite
          ? (row) => (
              <Link to={editHref(row)} aria-label={`Edit ${row.name}`} className={buttonVariants({ variant: 'ghost', size: 'icon' })} data-testid="integration-edit">
                <Pencil aria-hidden="true" />
              </Link>
            )
          : undefined
      }
      toast={toast}
    >
      {add ? (
        <Suspense fallback={null}>
          <AddIntegrationDialog
            closeTo={withAdd(location.search, null)}
            chooseHref={withAdd(location.search, ADD_CHOOSE)}
            chartHref={(id: GitopsChartId) => withAdd(location.search, id)}
            direct={direct}
            form={form}
            result={result}
            busy={busy}
          />
        </Suspense>
      ) : null}
    </ListPage>
  )
}

export function ErrorBoundary() {
  return <GeneralErrorBoundary />
}
