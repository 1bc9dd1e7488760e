import { data, type LoaderFunctionArgs } from '@remix-run/node'
import { Link, useLoaderData, useLocation } from '@remix-run/react'
import type { ReactNode } from 'react'
import type { DataColumn } from '#app/components/data-table/data-table.tsx'
import { DateTime } from '#app/components/date-time.tsx'
import { GeneralErrorBoundary } from '#app/components/error-boundary.tsx'
import { ListPage } from '#app/components/list-page/list-page.tsx'
import { NotificationsNav, ResourceHealthBadge, SendStatusBadge } from '#app/components/notifications/notification-parts.tsx'
import { buttonVariants } from '#app/components/ui/button.tsx'
import { cn } from '#app/lib/cn.ts'
import { NOTIFICATIONS_HREF, SEND_HISTORY_PAGE_SIZE, SEND_STATUSES } from '#app/lib/notification-form-shapes.ts'
import { getSendHistory, listSendHistory, recipientNames, ruleNames, type SendHistoryDetail, type SendHistoryRow } from '#app/lib/notifications.server.ts'
import type { RouteHandle } from '#app/lib/route-handle.ts'
import { requireAccess, toErrorResponse } from '#app/lib/session.server.ts'

export const handle = {
  title: (loaded) => (loaded && typeof loaded === 'object' && 'title' in loaded && typeof loaded.title === 'string' ? loaded.title : 'Notifications'),
  feature: 'settings.notifications',
  resource: 'notifications',
} satisfies RouteHandle

/** Reads `?status=&page=&send=` without zod (a bad value is no filter, page 1, no send). */
function readParams(url: URL) {
  const status = url.searchParams.get('status')
  const page = Number(url.searchParams.get('page'))
  return {
    status: status && (SEND_STATUSES as readonly string[]).includes(status) ? status : null,
    page: Number.isInteger(page) && page >= 1 && page <= 100_000 ? page : 1,
    send: url.searchParams.get('send'),
  }
}

type ShownSend = SendHistoryRow & { rule: string; recipient: string }

/**
 * /notifications/resource/{id}: the sends about one resource, newest first, each with its
 * status; `?send=<id>` opens one send (`GET /notification/send_history/{id}`) with the body it
 * rendered, its error and what it led to.
 */
export async function loader(args: LoaderFunctionArgs) {
  await requireAccess(args, handle)
  const resourceId = args.params.resourceId ?? ''
  const params = readParams(new URL(args.request.url))
  try {
    const [{ rows, total }, detail] = await Promise.all([listSendHistory(args, resourceId, params), params.send ? getSendHistory(args, params.send) : null])
    const [rules, names] = await Promise.all([
      ruleNames(args, [...rows.map((row) => row.notification_id), ...(detail ? [detail.notification_id] : [])]),
      recipientNames(args, { people: rows.map((row) => row.person_id ?? ''), teams: rows.map((row) => row.team_id ?? ''), playbooks: [] }),
    ])
    const recipientOf = (row: SendHistoryRow) =>
      row.person_id ? `person ${names.person(row.person_id) ?? row.person_id}` : row.team_id ? `team ${names.team(row.team_id) ?? row.team_id}` : row.connection_id ? 'connection' : row.playbook_run_id ? 'playbook' : ''
    const shown: ShownSend[] = rows.map((row) => ({ ...row, rule: rules[row.notification_id] ?? row.notification_id, recipient: recipientOf(row) }))
    const resource = detail?.resource ?? rows[0]?.resource ?? null
    const name = resource?.name || resourceId
    return data({
      resourceId,
      title: `Notifications / ${name}`,
      resource: resource ? { name, type: resource.type ?? null, kind: detail?.resource_kind ?? rows[0]?.resource_kind ?? null, health: resource.health ?? null, deleted: Boolean(resource.deleted_at) } : null,
      rows: shown,
      total,
      params,
      detail: detail && detail.resource_id === resourceId ? { ...detail, rule: rules[detail.notification_id] ?? detail.notification_id } : null,
      detailMissing: Boolean(params.send) && !(detail && detail.resource_id === resourceId),
    })
  } catch (error) {
    throw toErrorResponse(error)
  }
}

function sendHref(search: string, id: string | null): string {
  const params = new URLSearchParams(search)
  if (id) params.set('send', id)
  else params.delete('send')
  const query = params.toString()
  return query ? `?${query}` : '?'
}

function statusHref(status: string | null): string {
  return status ? `?status=${encodeURIComponent(status)}` : '?'
}

export default function ResourceNotificationsRoute() {
  const { resourceId, resource, rows, total, params, detail, detailMissing } = useLoaderData<typeof loader>()
  const { search } = useLocation()
  const columns: DataColumn<ShownSend>[] = [
    {
      id: 'created_at',
      header: 'Time',
      enableSorting: false,
      cell: ({ row }) => (
        <Link to={sendHref(search, row.original.id)} preventScrollReset className="whitespace-nowrap tabular-nums hover:underline" data-testid="send-link">
          <DateTime value={row.original.created_at} />
        </Link>
      ),
    },
    { id: 'status', header: 'Status', enableSorting: false, cell: ({ row }) => <SendStatusBadge status={row.original.status} /> },
    { id: 'event', header: 'Event', enableSorting: false, cell: ({ row }) => <code className="text-xs">{row.original.source_event}</code> },
    { id: 'rule', header: 'Rule', enableSorting: false, cell: ({ row }) => <span data-testid="send-rule">{row.original.rule}</span> },
    { id: 'recipient', header: 'Recipient', enableSorting: false, cell: ({ row }) => <span className="text-muted-foreground">{row.original.recipient}</span> },
    { id: 'count', header: 'Count', enableSorting: false, cell: ({ row }) => <span className="tabular-nums">{row.original.count}</span> },
    {
      id: 'error',
      header: 'Error',
      enableSorting: false,
      cell: ({ row }) => (
        <span className="block max-w-sm truncate text-danger" title={row.original.error ?? undefined}>
          {row.original.error}
        </span>
      ),
    },
  ]
  return (
    <>
      <NotificationsNav current="notifications" />
      <ListPage
        testId="resource-notifications-page"
        description={
          resource ? (
            <span className="flex flex-wrap items-center gap-2" data-testid="resource-heading">
              <span className="font-medium text-foreground">{resource.name}</span>
              {resource.kind ? <span>{resource.kind}</span> : null}
              {resource.type ? <span>· {resource.type}</span> : null}
              <ResourceHealthBadge health={resource.health} />
              {resource.deleted ? <span>(deleted)</span> : null}
            </span>
          ) : (
            'No notifications were sent about this resource.'
          )
        }
        filterBar={
          <div className="flex flex-wrap items-center gap-1" data-testid="send-status-filter">
            <Link to={NOTIFICATIONS_HREF} className={buttonVariants({ variant: 'ghost', size: 'sm' })} data-testid="resource-back">
              Back
            </Link>
            {[null, ...SEND_STATUSES].map((status) => (
              <Link
                key={status ?? 'all'}
                to={statusHref(status)}
                aria-current={params.status === status ? 'true' : undefined}
                className={cn(buttonVariants({ variant: params.status === status ? 'secondary' : 'ghost', size: 'sm' }))}
                data-testid={`send-status-${status ?? 'all'}`}
              >
                {status ?? 'All'}
              </Link>
            ))}
            {resource?.kind ? (
              <Link to={`/notifications/silences/add?resource=${resource.kind}:${resourceId}`} className={cn(buttonVariants({ variant: 'outline', size: 'sm' }), 'ml-auto')} data-testid="resource-silence">
                Silence
              </Link>
            ) : null}
          </div>
        }
        errors={[detailMissing ? 'That send was not found.' : null]}
        table={{
          data: rows,
          columns,
          getRowId: (row) => row.id,
          rowHref: (row) => sendHref(search, row.id),
          rowClassName: (row) => (detail?.id === row.id ? 'bg-muted' : undefined),
          pagination: { page: params.page, pageCount: Math.max(1, Math.ceil(total / SEND_HISTORY_PAGE_SIZE)), pageSize: SEND_HISTORY_PAGE_SIZE, pageSizes: [SEND_HISTORY_PAGE_SIZE], totalRows: total },
          testId: 'send-history-table',
          rowTestId: 'send-row',
          rowAttributes: (row) => ({ 'data-status': row.status ?? '' }),
        }}
      >
        {detail ? <SendDetail detail={detail} closeHref={sendHref(search, null)} /> : null}
      </ListPage>
    </>
  )
}

/** One send: what it was, the body it rendered and why it failed or was held back. */
function SendDetail({ detail, closeHref }: { detail: SendHistoryDetail & { rule: string }; closeHref: string }) {
  const facts: [string, ReactNode][] = [
    ['Status', <SendStatusBadge key="status" status={detail.status} />],
    ['Event', <code key="event">{detail.source_event}</code>],
    ['Rule', detail.rule],
    ['Time', <DateTime key="time" value={detail.created_at} />],
    ['Count', detail.count],
    ['Retries', detail.retries],
    ['Delivery time', detail.duration_millis !== null && detail.duration_millis !== undefined ? `${detail.duration_millis} ms` : '—'],
    ['Health at the time', detail.resource_health ?? '—'],
  ]
  return (
    <section className="flex flex-col gap-3 rounded-md border bg-card p-4" aria-label="Send" data-testid="send-detail" data-status={detail.status ?? ''}>
      <div className="flex items-center justify-between">
        <h2 className="text-sm font-semibold">Send</h2>
        <Link to={closeHref} preventScrollReset className={buttonVariants({ variant: 'ghost', size: 'sm' })} data-testid="send-detail-close">
          Close
        </Link>
      </div>
      <dl className="grid grid-cols-[max-content_1fr] gap-x-4 gap-y-1 text-sm">
        {facts.map(([label, value]) => (
          <div key={label} className="contents">
            <dt className="text-muted-foreground">{label}</dt>
            <dd>{value}</dd>
          </div>
        ))}
        {detail.silenced_by ? (
          <div className="contents">
            <dt className="text-muted-foreground">Silenced by</dt>
            <dd>
              <Link to={`/notifications/silences/${detail.silenced_by}`} className="hover:underline" data-testid="send-silence-link">
                {detail.silenced_by}
              </Link>
            </dd>
          </div>
        ) : null}
        {detail.playbook_run ? (
          <div className="contents">
            <dt className="text-muted-foreground">Playbook run</dt>
            <dd>
              <Link to={`/playbooks/runs/${detail.playbook_run.id}`} className="hover:underline">
                {detail.playbook_run.playbook_name ?? detail.playbook_run.id} ({detail.playbook_run.status})
              </Link>
            </dd>
          </div>
        ) : null}
      </dl>
      {detail.error ? (
        <p role="alert" className="rounded-md border border-danger/40 bg-danger/10 px-3 py-2 text-sm text-danger" data-testid="send-error">
          {detail.error}
        </p>
      ) : null}
      <div className="flex flex-col gap-1">
        <h3 className="text-xs font-medium text-muted-foreground">Body</h3>
        {detail.body ? (
          <pre className="max-h-96 overflow-auto whitespace-pre-wrap rounded-md border bg-muted/40 p-3 font-mono text-xs" data-testid="send-body">
            {detail.body}
          </pre>
        ) : (
          <p className="text-sm text-muted-foreground" data-testid="send-body-empty">
            No body was rendered for this send.
          </p>
        )}
      </div>
    </section>
  )
}

export function ErrorBoundary() {
  return <GeneralErrorBoundary />
}
