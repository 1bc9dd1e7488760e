import { parseWithZod } from '@conform-to/zod'
import { data, redirect, type ActionFunctionArgs, type LoaderFunctionArgs } from '@remix-run/node'
import { Form, Link, useActionData, useLoaderData, useLocation, useNavigation } from '@remix-run/react'
import { lazy, Suspense } from 'react'
import { z } from 'zod'
import { PropertyDialog as ServerRenderedPropertyDialog } from '#app/components/access/property-dialog.tsx'
import { requireSettingsAccess } from '#app/components/access/require-settings-access.server.ts'
import { DataTable, type DataColumn } from '#app/components/data-table/data-table.tsx'
import { GeneralErrorBoundary } from '#app/components/error-boundary.tsx'
import { ListPage } from '#app/components/list-page/list-page.tsx'
import { Badge } from '#app/components/ui/badge.tsx'
import { buttonVariants } from '#app/components/ui/button.tsx'
import { Pencil, Trash2 } from '#app/components/ui/icons.tsx'
import { hasAccess, isAdmin, type SessionInfo } from '#app/lib/access.ts'
import { cn } from '#app/lib/cn.ts'
import { buildFeatureRows, isEditable, parseFeatureFlagsSearch, type FeatureRow, type PropertyRow } from '#app/lib/feature-flag-form-shapes.ts'
import { FeatureFlagsActionSchema } from '#app/lib/feature-flag-forms.ts'
import { GatewayError } from '#app/lib/gateway.server.ts'
import { createProperty, deleteProperty, listProperties, PropertyConflict, setFeatureDisabled, updateProperty } from '#app/lib/properties.server.ts'
import type { RouteHandle } from '#app/lib/route-handle.ts'
import { errorResponse } from '#app/lib/session.server.ts'
import { readToast, toastCookie } from '#app/lib/toast.server.ts'

// The add/edit dialog (and the form code with it) loads when it shows; the server renders it in
// place, so the no-JS page and hydration see the same markup (decisions 014, 016).
const PropertyDialog = import.meta.env.SSR
  ? ServerRenderedPropertyDialog
  : /* @__PURE__ */ lazy(() => import('#app/components/access/property-dialog.tsx').then((module) => ({ default: module.PropertyDialog })))

export const handle = { title: 'Feature Flags', feature: 'settings.feature_flags', resource: 'feature_flags' } satisfies RouteHandle

const PAGE = '/settings/feature-flags'

/**
 * Writing properties is admin-only on the API (object `database.system`, reference http-api
 * §1.7), stricter than the role table's "editor writes feature_flags"; the screen follows the
 * API so nobody is offered a button that can only fail.
 */
function canWrite(session: SessionInfo): boolean {
  return isAdmin(session) && hasAccess(session, 'feature_flags', 'write')
}

function failure(error: unknown): string {
  if (error instanceof GatewayError) return error.message
  throw error
}

export async function loader(args: LoaderFunctionArgs) {
  const session = await requireSettingsAccess(args, handle)
  const { toast, headers } = readToast(args.request)
  let properties: PropertyRow[] = []
  let loadError: string | null = null
  try {
    properties = await listProperties(args)
  } catch (error) {
    loadError = failure(error)
  }
  return data({ properties, features: buildFeatureRows(properties), loadError, toast, canWrite: canWrite(session) }, { headers })
}

export async function action(args: ActionFunctionArgs) {
  const session = await requireSettingsAccess(args, { ...handle, access: 'write' })
  if (!canWrite(session)) throw errorResponse(403, { message: 'Only admins can change feature flags' })
  const formData = await args.request.formData()
  const submission = await parseWithZod(formData, {
    async: true,
    schema: FeatureFlagsActionSchema.transform(async (value, ctx) => {
      try {
        if (value.intent === 'create') await createProperty(args, value)
        else if (value.intent === 'update') await updateProperty(args, value)
        else if (value.intent === 'delete') await deleteProperty(args, value.name)
        else await setFeatureDisabled(args, `${value.feature}.disable`, value.disabled)
        return value
      } catch (error) {
        if (error instanceof PropertyConflict) ctx.addIssue({ code: z.ZodIssueCode.custom, path: [error.field], message: error.message })
        else ctx.addIssue({ code: z.ZodIssueCode.custom, message: failure(error) })
        return z.NEVER
      }
    }),
  })
  const intent = String(formData.get('intent') ?? '')
  if (submission.status !== 'success') return data({ intent, result: submission.reply() }, { status: 400 })
  const value = submission.value
  const message =
    value.intent === 'create'
      ? `${value.name} added successfully`
      : value.intent === 'update'
        ? `${value.name} updated successfully`
        : value.intent === 'delete'
          ? `${value.name} deleted successfully`
          : `${value.feature} ${value.disabled ? 'disabled' : 'enabled'} successfully`
  throw redirect(PAGE, { status: 303, headers: { 'set-cookie': toastCookie(message) } })
}

export default function FeatureFlagsRoute() {
  const { properties, features, loadError, toast, canWrite } = useLoaderData<typeof loader>()
  const actionData = useActionData<typeof action>()
  const location = useLocation()
  const search = parseFeatureFlagsSearch(new URLSearchParams(location.search))
  const formResult = actionData && (actionData.intent === 'create' || actionData.intent === 'update') ? actionData.result : undefined
  const rowError = actionData && (actionData.intent === 'delete' || actionData.intent === 'toggle') ? Object.values(actionData.result.error ?? {}).flat().join(' ') : null
  const editing = search.dialog === 'edit' ? properties.find((row) => row.name === search.name && isEditable(row)) : undefined
  const deleting = search.dialog === 'delete' ? properties.find((row) => row.name === search.name && isEditable(row)) : undefined
  const dialog = !canWrite ? null : actionData?.intent === 'create' || search.dialog === 'add' ? 'add' : actionData?.intent === 'update' || editing ? 'edit' : null

  return (
    <div className="flex flex-col" data-testid="feature-flags-page">
      <FeatureList rows={features} canWrite={canWrite} />
      <ListPage
        testId="properties-page"
        title="Properties"
        description={canWrite ? 'Name and value pairs that tune the platform. A name ending in .disable with the value true turns that feature off.' : 'Name and value pairs that tune the platform. Only admins can change them.'}
        addAction={canWrite ? { label: 'Add property', to: '?dialog=add', testId: 'add-property' } : null}
        errors={[loadError, rowError]}
        table={{ data: properties, columns: propertyColumns, getRowId: (row) => `${row.source}:${row.name}`, testId: 'properties-table', rowTestId: 'property-row', rowAttributes: (row) => ({ 'data-name': row.name }) }}
        rowActions={canWrite ? (row) => (isEditable(row) ? <PropertyRowActions row={row} /> : <span className="text-xs text-muted-foreground">set by the server</span>) : undefined}
        confirm={
          canWrite && deleting
            ? {
                title: 'Delete property',
                description: `Are you sure you want to delete ${deleting.name}?`,
                closeTo: PAGE,
                action: PAGE,
                fields: { intent: 'delete', name: deleting.name },
                testId: 'delete-property-dialog',
              }
            : null
        }
        toast={toast}
      >
        <Suspense fallback={null}>
          {dialog === 'add' ? <PropertyDialog mode="create" lastResult={formResult} /> : null}
          {dialog === 'edit' ? <PropertyDialog mode="update" lastResult={formResult} property={editing ?? { name: search.name ?? '', value: '' }} /> : null}
        </Suspense>
      </ListPage>
    </div>
  )
}

const propertyColumns: DataColumn<PropertyRow>[] = [
  { id: 'name', header: 'Name', enableSorting: false, cell: ({ row }) => <span className="font-mono text-xs">{row.original.name}</span> },
  { id: 'value', header: 'Value', enableSorting: false, cell: ({ row }) => <span className="break-all font-mono text-xs">{row.original.value}</span> },
  { id: 'source', header: 'Source', enableSorting: false, cell: ({ row }) => row.original.source },
  { id: 'description', header: 'Description', enableSorting: false, cell: ({ row }) => <span className="text-muted-foreground">{row.original.description}</span> },
]

function PropertyRowActions({ row }: { row: PropertyRow }) {
  const name = encodeURIComponent(row.name)
  return (
    <div className="flex items-center justify-end gap-1">
      <Link to={`?dialog=edit&name=${name}`} preventScrollReset aria-label={`Edit ${row.name}`} className={buttonVariants({ variant: 'ghost', size: 'icon' })} data-testid="edit-property">
        <Pencil aria-hidden="true" />
      </Link>
      <Link to={`?dialog=delete&name=${name}`} preventScrollReset aria-label={`Delete ${row.name}`} className={buttonVariants({ variant: 'ghost', size: 'icon' })} data-testid="delete-property">
        <Trash2 aria-hidden="true" />
      </Link>
    </div>
  )
}

const STATE_BADGE = {
  enabled: { variant: 'success', label: 'Enabled' },
  disabled: { variant: 'danger', label: 'Disabled' },
  inherited: { variant: 'warning', label: 'Disabled by parent' },
} as const

function featureColumns(canWrite: boolean): DataColumn<FeatureRow>[] {
  const columns: DataColumn<FeatureRow>[] = [
    {
      id: 'feature',
      header: 'Feature',
      enableSorting: false,
      cell: ({ row }) => (
        <span className={cn('flex items-center gap-1', row.original.depth ? 'pl-6' : undefined)}>
          {row.original.depth ? (
            <span aria-hidden="true" className="text-muted-foreground">
              └
            </span>
          ) : null}
          <span className="font-medium">{row.original.feature}</span>
        </span>
      ),
    },
    { id: 'flag', header: 'Flag', enableSorting: false, cell: ({ row }) => <span className="font-mono text-xs text-muted-foreground">{row.original.flag}</span> },
    {
      id: 'state',
      header: 'State',
      enableSorting: false,
      cell: ({ row }) => {
        const badge = STATE_BADGE[row.original.state]
        return (
          <span className="flex flex-wrap items-center gap-1" data-testid="feature-state">
            <Badge variant={badge.variant}>{badge.label}</Badge>
            {row.original.disabledBy ? <span className="text-xs text-muted-foreground">{`${row.original.state === 'inherited' ? '' : 'also '}via ${row.original.disabledBy}`}</span> : null}
          </span>
        )
      },
    },
  ]
  if (!canWrite) return columns
  return [
    ...columns,
    {
      id: 'toggle',
      header: () => <span className="sr-only">Switch</span>,
      enableSorting: false,
      cell: ({ row }) => <FeatureToggle row={row.original} />,
    },
  ]
}

function FeatureToggle({ row }: { row: FeatureRow }) {
  const navigation = useNavigation()
  const busy = navigation.state === 'submitting' && navigation.formData?.get('feature') === row.feature
  if (row.isLocked) return <span className="text-xs text-muted-foreground">set by the server</span>
  const label = row.isOwnFlagSet ? 'Enable' : 'Disable'
  return (
    <Form method="post" action={PAGE} className="flex justify-end" preventScrollReset>
      <input type="hidden" name="intent" value="toggle" />
      <input type="hidden" name="feature" value={row.feature} />
      <input type="hidden" name="disabled" value={String(!row.isOwnFlagSet)} />
      <button
        type="submit"
        disabled={busy}
        aria-label={`${label} ${row.feature}`}
        className={buttonVariants({ variant: row.isOwnFlagSet ? 'default' : 'outline', size: 'sm' })}
        data-testid="feature-toggle"
      >
        {label}
      </button>
    </Form>
  )
}

function FeatureList({ rows, canWrite }: { rows: FeatureRow[]; canWrite: boolean }) {
  return (
    <section aria-labelledby="features-title" className="flex flex-col gap-2 px-6 pt-6" data-testid="features-section">
      <div className="flex flex-col gap-1">
        <h2 id="features-title" className="text-lg font-semibold">
          Features
        </h2>
        <p className="text-sm text-muted-foreground">
          A disabled feature disappears from the sidebar and its pages answer 404. Settings pages under a disabled area are disabled with it.
        </p>
      </div>
      <DataTable
        data={rows}
        columns={featureColumns(canWrite)}
        getRowId={(row) => row.feature}
        testId="features-table"
        rowTestId="feature-row"
        rowAttributes={(row) => ({ 'data-feature': row.feature, 'data-state': row.state })}
      />
    </section>
  )
}

export function ErrorBoundary() {
  return <GeneralErrorBoundary />
}
