import { data, redirect, type ActionFunctionArgs, type LoaderFunctionArgs } from '@remix-run/node'
import { Form, Link, useActionData, useLoaderData, useNavigation } from '@remix-run/react'
import { CatalogFilters } from '#app/components/catalog/catalog-filters.tsx'
import type { DataColumn } from '#app/components/data-table/data-table.tsx'
import { DateTime } from '#app/components/date-time.tsx'
import { GeneralErrorBoundary } from '#app/components/error-boundary.tsx'
import { ListPage } from '#app/components/list-page/list-page.tsx'
import { NotificationsNav } from '#app/components/notifications/notification-parts.tsx'
import { Badge } from '#app/components/ui/badge.tsx'
import { buttonVariants } from '#app/components/ui/button.tsx'
import { hasAccess } from '#app/lib/access.ts'
import { GatewayError } from '#app/lib/gateway.server.ts'
import { SILENCE_STATES, SILENCES_HREF, type SilenceState } from '#app/lib/notification-form-shapes.ts'
import { endSilence, getSilence, listSilences, parseSilenceListParams, silenceResourceLabels, silenceResourceValue, silenceState } from '#app/lib/notifications.server.ts'
import type { RouteHandle } from '#app/lib/route-handle.ts'
import { errorResponse, requireAccess, toErrorResponse } from '#app/lib/session.server.ts'
import { readToast, toastCookie } from '#app/lib/toast.server.ts'

export const handle = { title: 'Notification Silences', feature: 'settings.notifications', resource: 'notifications' } satisfies RouteHandle

type ShownSilence = {
  id: string
  resource: string | null
  description: string | null
  filter: string | null
  error: string | null
  from: string | null
  until: string | null
  recursive: boolean
  state: SilenceState
  created_at: string
}

/**
 * /notifications/silences: live silences, newest first, each active, expired or indefinite
 * (`?state=` filters, `?search=` on the description or name), with Edit and End (a form post
 * setting `until` to now).
 */
export async function loader(args: LoaderFunctionArgs) {
  const session = await requireAccess(args, handle)
  const params = parseSilenceListParams(new URL(args.request.url).searchParams)
  const { toast, headers } = readToast(args.request)
  const now = new Date()
  try {
    const silences = await listSilences(args, params, now)
    const labels = await silenceResourceLabels(args, silences)
    const rows: ShownSilence[] = silences.map((silence) => {
      const resource = silenceResourceValue(silence)
      return {
        id: silence.id,
        resource: resource ? (labels[resource] ?? resource) : null,
        description: silence.description,
        filter: silence.filter,
        error: silence.error,
        from: silence.from,
        until: silence.until,
        recursive: silence.recursive === true,
        state: silenceState(silence, now),
        created_at: silence.created_at,
      }
    })
    return data({ rows, params, toast, canWrite: hasAccess(session, 'notifications', 'write') }, { headers })
  } catch (error) {
    throw toErrorResponse(error)
  }
}

/** `intent=end` with the silence's `id`: its `until` becomes now (http-api §2.3.2). */
export async function action(args: ActionFunctionArgs) {
  await requireAccess(args, { ...handle, access: 'write' })
  const formData = await args.request.formData()
  if (formData.get('intent') !== 'end') throw errorResponse(400, { message: 'Unknown action.' })
  const id = String(formData.get('id') ?? '')
  try {
    if (!(await getSilence(args, id))) throw errorResponse(404, { message: 'No resources found' })
    await endSilence(args, id)
  } catch (error) {
    if (error instanceof GatewayError) return data({ error: error.message }, { status: error.status >= 400 && error.status < 600 ? error.status : 502 })
    throw error
  }
  throw redirect(SILENCES_HREF, { status: 303, headers: { 'set-cookie': toastCookie('Silence updated successfully') } })
}

const STATE_VARIANT: Record<SilenceState, 'success' | 'secondary' | 'warning'> = { active: 'success', expired: 'secondary', indefinite: 'warning' }

export default function SilencesRoute() {
  const { rows, params, toast, canWrite } = useLoaderData<typeof loader>()
  const failed = useActionData<typeof action>()
  const navigation = useNavigation()
  const busyId = navigation.state === 'submitting' ? String(navigation.formData?.get('id') ?? '') : null
  const columns: DataColumn<ShownSilence>[] = [
    {
      id: 'resource',
      header: 'Resource',
      enableSorting: false,
      cell: ({ row }) => (
        <Link to={`${SILENCES_HREF}/${row.original.id}`} className="font-medium hover:underline" data-testid="silence-link">
          {row.original.resource ?? 'Any resource'}
          {row.original.recursive ? <span className="ml-1 text-xs font-normal text-muted-foreground">(recursive)</span> : null}
        </Link>
      ),
    },
    { id: 'description', header: 'Description', enableSorting: false, cell: ({ row }) => <span data-testid="silence-description">{row.original.description}</span> },
    {
      id: 'filter',
      header: 'Filter',
      enableSorting: false,
      cell: ({ row }) => (
        <span className="flex max-w-xs flex-col">
          {row.original.filter ? (
            <code className="truncate text-xs" title={row.original.filter}>
              {row.original.filter}
            </code>
          ) : null}
          {row.original.error ? <span className="text-xs text-danger">{row.original.error}</span> : null}
        </span>
      ),
    },
    { id: 'from', header: 'From', enableSorting: false, cell: ({ row }) => <DateTime value={row.original.from} className="whitespace-nowrap tabular-nums" /> },
    {
      id: 'until',
      header: 'Until',
      enableSorting: false,
      cell: ({ row }) => (row.original.until ? <DateTime value={row.original.until} className="whitespace-nowrap tabular-nums" testId="silence-until" /> : <span data-testid="silence-until">Indefinitely</span>),
    },
    {
      id: 'state',
      header: 'State',
      enableSorting: false,
      cell: ({ row }) => (
        <Badge variant={STATE_VARIANT[row.original.state]} data-testid="silence-state" data-state={row.original.state}>
          {row.original.state}
        </Badge>
      ),
    },
  ]
  return (
    <>
      <NotificationsNav current="silences" />
      <ListPage
        testId="silences-page"
        description="Silences hold back notifications about a resource, or those a filter matches, for a while or indefinitely."
        addAction={canWrite ? { label: 'Add Silence', to: `${SILENCES_HREF}/add`, testId: 'silence-add' } : null}
        filterBar={
          <CatalogFilters
            testId="silence-filters"
            search={params.search}
            searchPlaceholder="Search by description"
            selects={[{ name: 'state', label: 'State', value: params.state, options: SILENCE_STATES, allLabel: 'All' }]}
          />
        }
        errors={[failed?.error]}
        table={{ data: rows, columns, getRowId: (row) => row.id, testId: 'silences-table', rowTestId: 'silence-row', rowAttributes: (row) => ({ 'data-description': row.description ?? '' }) }}
        rowActions={
          canWrite
            ? (row) => (
                <span className="flex items-center gap-1">
                  <Link to={`${SILENCES_HREF}/${row.id}`} className={buttonVariants({ variant: 'ghost', size: 'sm' })} data-testid="silence-edit">
                    Edit
                  </Link>
                  {row.state === 'expired' ? null : (
                    <Form method="post" preventScrollReset>
                      <input type="hidden" name="id" value={row.id} />
                      <button type="submit" name="intent" value="end" disabled={busyId === row.id} className={buttonVariants({ variant: 'outline', size: 'sm' })} data-testid="silence-end">
                        End
                      </button>
                    </Form>
                  )}
                </span>
              )
            : undefined
        }
        toast={toast}
      />
    </>
  )
}

export function ErrorBoundary() {
  return <GeneralErrorBoundary />
}
