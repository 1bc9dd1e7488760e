import { data, type LoaderFunctionArgs } from '@remix-run/node'
import { Link, useLoaderData } from '@remix-run/react'
import { CatalogFilters } from '#app/components/catalog/catalog-filters.tsx'
import type { DataColumn } from '#app/components/data-table/data-table.tsx'
import { DateTime } from '#app/components/date-time.tsx'
import { GeneralErrorBoundary } from '#app/components/error-boundary.tsx'
import { ListPage } from '#app/components/list-page/list-page.tsx'
import { Count, NotificationsNav, ResourceHealthBadge } from '#app/components/notifications/notification-parts.tsx'
import { GatewayError } from '#app/lib/gateway.server.ts'
import { RESOURCE_KINDS, SEND_STATUSES, SUMMARY_PAGE_SIZES } from '#app/lib/notification-form-shapes.ts'
import { parseNotificationListParams, summarizeNotifications, type NotificationSummaryRow } from '#app/lib/notifications.server.ts'
import { markNotificationsSeen } from '#app/lib/notification-unread.server.ts'
import type { RouteHandle } from '#app/lib/route-handle.ts'
import { requireAccess, toErrorResponse } from '#app/lib/session.server.ts'
import { readToast } from '#app/lib/toast.server.ts'

export const handle = { title: 'Notifications', feature: 'settings.notifications', resource: 'notifications' } satisfies RouteHandle

/**
 * /notifications (spec 000 §2, issue 17): notified resources, most recently seen first, with
 * their health, last message and sent / error / suppressed counts (`POST /notification/summary`);
 * search, status, resource kind, deleted resources and the page live in the URL.
 */
export async function loader(args: LoaderFunctionArgs) {
  await requireAccess(args, handle)
  const params = parseNotificationListParams(new URL(args.request.url).searchParams)
  const { toast, headers } = readToast(args.request)
  // Opening this page clears the top bar bell's unread count.
  const seen = markNotificationsSeen(args)
  try {
    const [{ rows, total }] = await Promise.all([summarizeNotifications(args, params), seen])
    return data({ rows, total, params, toast, error: null }, { headers })
  } catch (error) {
    // The summary's refusal (a bad filter, a denied scope, an upstream down) shows above the empty table.
    if (error instanceof GatewayError) return data({ rows: [], total: 0, params, toast, error: error.message }, { headers })
    throw toErrorResponse(error)
  }
}

const columns: DataColumn<NotificationSummaryRow>[] = [
  {
    id: 'resource',
    header: 'Resource',
    enableSorting: false,
    cell: ({ row }) => {
      const resource = row.original.resource
      return resource?.id ? (
        <Link to={`/notifications/resource/${resource.id}`} className="font-medium hover:underline" data-testid="notification-resource-link">
          {resource.name || resource.id}
        </Link>
      ) : (
        <span className="text-muted-foreground">unknown</span>
      )
    },
  },
  {
    id: 'type',
    header: 'Type',
    enableSorting: false,
    cell: ({ row }) => (
      <span className="whitespace-nowrap text-muted-foreground">
        {row.original.resource_kind}
        {row.original.resource_type ? ` · ${row.original.resource_type}` : ''}
      </span>
    ),
  },
  { id: 'health', header: 'Health', enableSorting: false, cell: ({ row }) => <ResourceHealthBadge health={row.original.resource_health} testId="notification-health" /> },
  {
    id: 'last_message',
    header: 'Last message',
    enableSorting: false,
    cell: ({ row }) => (
      <span className="block max-w-md truncate" title={row.original.last_message ?? undefined} data-testid="notification-last-message">
        {row.original.last_message}
      </span>
    ),
  },
  { id: 'sent', header: 'Sent', enableSorting: false, cell: ({ row }) => <Count value={row.original.sent} tone="success" testId="notification-sent" /> },
  { id: 'error', header: 'Error', enableSorting: false, cell: ({ row }) => <Count value={row.original.error} tone="danger" testId="notification-error" /> },
  { id: 'suppressed', header: 'Suppressed', enableSorting: false, cell: ({ row }) => <Count value={row.original.suppressed} tone="muted" testId="notification-suppressed" /> },
  { id: 'in_progress', header: 'In progress', enableSorting: false, cell: ({ row }) => <Count value={row.original.in_progress} tone="muted" testId="notification-in-progress" /> },
  { id: 'last_seen', header: 'Last seen', enableSorting: false, cell: ({ row }) => <DateTime value={row.original.last_seen} className="whitespace-nowrap tabular-nums" /> },
]

export default function NotificationsRoute() {
  const { rows, total, params, toast, error } = useLoaderData<typeof loader>()
  const pageCount = Math.max(1, Math.ceil(total / params.pageSize))
  return (
    <>
      <NotificationsNav current="notifications" />
      <ListPage
        testId="notifications-page"
        description="Resources that notifications were sent about, with what happened to each send."
        filterBar={
          <CatalogFilters
            testId="notification-filters"
            search={params.search}
            searchPlaceholder="Search by resource name"
            selects={[
              { name: 'status', label: 'Status', value: params.status, options: SEND_STATUSES, allLabel: 'All statuses' },
              { name: 'resourceKind', label: 'Resource', value: params.resourceKind, options: RESOURCE_KINDS, allLabel: 'All resources' },
              { name: 'includeDeleted', label: 'Deleted resources', value: params.includeDeleted ? 'true' : null, options: [{ value: 'true', label: 'Shown' }], allLabel: 'Hidden' },
            ]}
          />
        }
        errors={[error]}
        table={{
          data: rows,
          columns,
          getRowId: (row) => row.resource?.id ?? `${row.resource_kind}:${row.last_seen}`,
          rowHref: (row) => (row.resource?.id ? `/notifications/resource/${row.resource.id}` : undefined),
          pagination: { page: params.page, pageCount, pageSize: params.pageSize, pageSizes: SUMMARY_PAGE_SIZES, totalRows: total, testId: 'notifications-pagination' },
          testId: 'notifications-table',
          rowTestId: 'notification-row',
        }}
        toast={toast}
      />
    </>
  )
}

export function ErrorBoundary() {
  return <GeneralErrorBoundary />
}
