import { parseWithZod } from '@conform-to/zod'
import { data, redirect, type ActionFunctionArgs, type LoaderFunctionArgs } from '@remix-run/node'
import { Form, useActionData, useLoaderData, useNavigation } from '@remix-run/react'
import { z } from 'zod'
import { requireSettingsAccess } from '#app/components/access/require-settings-access.server.ts'
import type { DataColumn } from '#app/components/data-table/data-table.tsx'
import { DateTime } from '#app/components/date-time.tsx'
import { GeneralErrorBoundary } from '#app/components/error-boundary.tsx'
import { ListPage } from '#app/components/list-page/list-page.tsx'
import { Badge } from '#app/components/ui/badge.tsx'
import { buttonVariants } from '#app/components/ui/button.tsx'
import { isAdmin } from '#app/lib/access.ts'
import { EventQueueActionSchema } from '#app/lib/event-queue-forms.ts'
import { GatewayError } from '#app/lib/gateway.server.ts'
import { discardFailedEvents, listEventQueue, retryFailedEvents, type EventQueueNameRow } from '#app/lib/jobs.server.ts'
import type { RouteHandle } from '#app/lib/route-handle.ts'
import { errorResponse, toErrorResponse } from '#app/lib/session.server.ts'
import { readToast, toastCookie } from '#app/lib/toast.server.ts'

export const handle = { title: 'Event Queue', feature: 'settings.event_queue_status', resource: 'database' } satisfies RouteHandle

const PAGE = '/settings/event-queue-status'

/**
 * /settings/event-queue-status (issue 18 item 3): per event name what waits in the queue, what
 * failed, the oldest event, the average attempts and the last error; admins retry or discard the
 * failed events of a name. The API refuses those writes to anyone else (events/event-queue-write-guard.ts).
 */
export async function loader(args: LoaderFunctionArgs) {
  const session = await requireSettingsAccess(args, handle)
  const { toast, headers } = readToast(args.request)
  try {
    const rows = await listEventQueue(args)
    return data({ rows, toast, canManage: isAdmin(session), now: new Date().toISOString() }, { headers })
  } catch (error) {
    throw toErrorResponse(error)
  }
}

export async function action(args: ActionFunctionArgs) {
  const session = await requireSettingsAccess(args, { ...handle, access: 'write' })
  if (!isAdmin(session)) throw errorResponse(403, { message: 'Only admins can retry or discard events' })
  const formData = await args.request.formData()
  const submission = await parseWithZod(formData, {
    async: true,
    schema: EventQueueActionSchema.transform(async (value, ctx) => {
      try {
        const count = value.intent === 'retry' ? await retryFailedEvents(args, value.name) : await discardFailedEvents(args, value.name)
        return { ...value, count }
      } catch (error) {
        if (!(error instanceof GatewayError)) throw error
        ctx.addIssue({ code: z.ZodIssueCode.custom, message: error.message })
        return z.NEVER
      }
    }),
  })
  if (submission.status !== 'success') return data({ name: String(formData.get('name') ?? ''), result: submission.reply() }, { status: 400 })
  const { intent, name, count } = submission.value
  const plural = count === 1 ? 'event' : 'events'
  const message = intent === 'retry' ? `${count} failed ${name} ${plural} queued again` : `${count} failed ${name} ${plural} discarded`
  throw redirect(PAGE, { status: 303, headers: { 'set-cookie': toastCookie(message) } })
}

export default function EventQueueRoute() {
  const { rows, toast, canManage, now } = useLoaderData<typeof loader>()
  const actionData = useActionData<typeof action>()
  const navigation = useNavigation()
  const busy = navigation.state === 'submitting' ? String(navigation.formData?.get('name') ?? '') : null
  const failure = actionData ? Object.values(actionData.result.error ?? {}).flat().join(' ') : null
  const columns: DataColumn<EventQueueNameRow>[] = [
    { id: 'name', header: 'Event', accessorFn: (row) => row.name, cell: ({ row }) => <span className="font-medium">{row.original.name}</span> },
    { id: 'pending', header: 'Pending', accessorFn: (row) => Number(row.pending), cell: ({ row }) => <span className="tabular-nums" data-testid="event-pending">{row.original.pending}</span> },
    {
      id: 'failed',
      header: 'Failed',
      accessorFn: (row) => Number(row.failed),
      cell: ({ row }) => (
        <Badge variant={Number(row.original.failed) > 0 ? 'danger' : 'secondary'} data-testid="event-failed">
          {row.original.failed}
        </Badge>
      ),
    },
    { id: 'oldest', header: 'Oldest', accessorFn: (row) => row.oldest, cell: ({ row }) => <DateTime value={row.original.oldest} now={now} className="whitespace-nowrap tabular-nums" /> },
    {
      id: 'average_attempts',
      header: 'Average attempts',
      accessorFn: (row) => Number(row.average_attempts ?? 0),
      cell: ({ row }) => <span className="tabular-nums">{Number(row.original.average_attempts ?? 0).toFixed(2)}</span>,
    },
    {
      id: 'last_error',
      header: 'Last error',
      enableSorting: false,
      cell: ({ row }) =>
        row.original.last_error ? (
          <span className="flex max-w-md flex-col text-xs" data-testid="event-last-error">
            <span className="truncate text-danger" title={row.original.last_error}>
              {row.original.last_error}
            </span>
            <DateTime value={row.original.last_attempt} now={now} className="text-muted-foreground" />
          </span>
        ) : null,
    },
  ]
  return (
    <ListPage
      testId="event-queue-page"
      description="Events waiting to be handled, per event name. A failed event is retried with a growing delay until it gives up; admins can queue the failed events of a name again at once, or discard them."
      errors={[failure ? `${actionData?.name}: ${failure}` : null]}
      table={{
        data: rows,
        columns,
        getRowId: (row) => row.name,
        testId: 'event-queue-table',
        rowTestId: 'event-row',
        rowAttributes: (row) => ({ 'data-name': row.name }),
        emptyMessage: 'The event queue is empty',
      }}
      rowActions={
        canManage
          ? (row) =>
              Number(row.failed) > 0 ? (
                <Form method="post" preventScrollReset className="flex gap-2">
                  <input type="hidden" name="name" value={row.name} />
                  <button type="submit" name="intent" value="retry" disabled={busy === row.name} className={buttonVariants({ variant: 'outline', size: 'sm' })} data-testid="event-retry">
                    Retry
                  </button>
                  <button type="submit" name="intent" value="discard" disabled={busy === row.name} className={buttonVariants({ variant: 'destructive', size: 'sm' })} data-testid="event-discard">
                    Discard
                  </button>
                </Form>
              ) : null
          : undefined
      }
      toast={toast}
    />
  )
}

export function ErrorBoundary() {
  return <GeneralErrorBoundary />
}
