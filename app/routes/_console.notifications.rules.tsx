import { data, redirect, type ActionFunctionArgs, type LoaderFunctionArgs } from '@remix-run/node'
import { Form, Link, useActionData, useLoaderData, useNavigation } from '@remix-run/react'
import type { DataColumn } from '#app/components/data-table/data-table.tsx'
import { DateTime } from '#app/components/date-time.tsx'
import { GeneralErrorBoundary } from '#app/components/error-boundary.tsx'
import { ListPage } from '#app/components/list-page/list-page.tsx'
import { NotificationsNav } from '#app/components/notifications/notification-parts.tsx'
import { Badge } from '#app/components/ui/badge.tsx'
import { buttonVariants } from '#app/components/ui/button.tsx'
import { hasAccess } from '#app/lib/access.ts'
import { GatewayError } from '#app/lib/gateway.server.ts'
import { RULES_HREF } from '#app/lib/notification-form-shapes.ts'
import { getNotificationRule, listNotificationRules, recipientNames, setNotificationRuleEnabled, type NotificationRuleRow } from '#app/lib/notifications.server.ts'
import type { RouteHandle } from '#app/lib/route-handle.ts'
import { errorResponse, requireAccess, toErrorResponse } from '#app/lib/session.server.ts'
import { readToast, toastCookie } from '#app/lib/toast.server.ts'

export const handle = { title: 'Notification Rules', feature: 'settings.notifications', resource: 'notifications' } satisfies RouteHandle

type ShownRule = {
  id: string
  name: string
  namespace: string | null
  events: string[]
  recipients: string[]
  filter: string | null
  error: string | null
  error_at: string | null
  enabled: boolean
  source: string | null
}

function recipientsOf(rule: NotificationRuleRow, names: Awaited<ReturnType<typeof recipientNames>>): string[] {
  const shown: string[] = []
  if (rule.person_id) shown.push(`person: ${rule.person?.email || rule.person?.name || names.person(rule.person_id) || rule.person_id}`)
  if (rule.team_id) shown.push(`team: ${rule.team?.name || names.team(rule.team_id) || rule.team_id}`)
  for (const service of Array.isArray(rule.custom_services) ? rule.custom_services : []) {
    const target = service.connection ?? service.email ?? (service.url ? service.url.replace(/:\/\/[^@/]*@/, '://***@') : null) ?? (service.webhook ? 'webhook' : null)
    shown.push(`${service.connection ? 'connection' : service.email ? 'email' : service.url ? 'url' : 'webhook'}: ${target ?? service.name ?? ''}`)
  }
  if (rule.playbook_id) shown.push(`playbook: ${names.playbook(rule.playbook_id) ?? rule.playbook_id}`)
  return shown
}

/**
 * /notifications/rules (spec 000 §9: up to 1000, by name): each rule's events, recipients,
 * filter, last error and whether it is enabled, with Enable/Disable as a form post. Spec 002's
 * subject link `/notifications/rules?id={id}` opens the rule's editor.
 */
export async function loader(args: LoaderFunctionArgs) {
  const session = await requireAccess(args, handle)
  const id = new URL(args.request.url).searchParams.get('id')
  if (id) throw redirect(`${RULES_HREF}/${encodeURIComponent(id)}`)
  const { toast, headers } = readToast(args.request)
  try {
    const rules = await listNotificationRules(args)
    const names = await recipientNames(args, { people: [], teams: [], playbooks: rules.map((rule) => rule.playbook_id ?? '') })
    const rows: ShownRule[] = rules.map((rule) => ({
      id: rule.id,
      name: rule.name,
      namespace: rule.namespace,
      events: rule.events ?? [],
      recipients: recipientsOf(rule, names),
      filter: rule.filter,
      error: rule.error,
      error_at: rule.error_at,
      enabled: rule.deleted_at === null,
      source: rule.source,
    }))
    return data({ rows, toast, canWrite: hasAccess(session, 'notifications', 'write') }, { headers })
  } catch (error) {
    throw toErrorResponse(error)
  }
}

/** `intent=enable|disable` with the rule's `id`: 303 back to the list with the spec's toast. */
export async function action(args: ActionFunctionArgs) {
  await requireAccess(args, { ...handle, access: 'write' })
  const formData = await args.request.formData()
  const intent = String(formData.get('intent') ?? '')
  const id = String(formData.get('id') ?? '')
  if (intent !== 'enable' && intent !== 'disable') throw errorResponse(400, { message: 'Unknown action.' })
  const rule = await getNotificationRule(args, id).catch((error: unknown) => {
    throw toErrorResponse(error)
  })
  if (!rule) throw errorResponse(404, { message: 'No resources found' })
  try {
    await setNotificationRuleEnabled(args, rule.id, intent === 'enable')
  } catch (error) {
    if (!(error instanceof GatewayError)) throw error
    const message = error.status === 409 ? `Another live notification is named ${rule.name} in namespace ${rule.namespace ?? 'default'}; rename one before enabling this one.` : error.message
    return data({ error: message, id: rule.id }, { status: error.status >= 400 && error.status < 600 ? error.status : 502 })
  }
  throw redirect(RULES_HREF, { status: 303, headers: { 'set-cookie': toastCookie('Notification updated successfully') } })
}

export default function NotificationRulesRoute() {
  const { rows, toast, canWrite } = useLoaderData<typeof loader>()
  const failed = useActionData<typeof action>()
  const navigation = useNavigation()
  const busyId = navigation.state === 'submitting' ? String(navigation.formData?.get('id') ?? '') : null
  const columns: DataColumn<ShownRule>[] = [
    {
      id: 'name',
      header: 'Name',
      enableSorting: false,
      cell: ({ row }) => (
        <Link to={`${RULES_HREF}/${row.original.id}`} className="font-medium hover:underline" data-testid="rule-link">
          {row.original.name}
          {row.original.namespace ? <span className="ml-1 text-xs font-normal text-muted-foreground">{row.original.namespace}</span> : null}
        </Link>
      ),
    },
    {
      id: 'events',
      header: 'Events',
      enableSorting: false,
      cell: ({ row }) => (
        <span className="flex max-w-xs flex-wrap gap-1" data-testid="rule-events">
          {row.original.events.map((event) => (
            <Badge key={event} variant="outline">
              {event}
            </Badge>
          ))}
        </span>
      ),
    },
    {
      id: 'recipients',
      header: 'Recipients',
      enableSorting: false,
      cell: ({ row }) => (
        <span className="flex flex-col text-xs" data-testid="rule-recipients">
          {row.original.recipients.map((recipient) => (
            <span key={recipient} className="max-w-xs truncate">
              {recipient}
            </span>
          ))}
        </span>
      ),
    },
    {
      id: 'filter',
      header: 'Filter',
      enableSorting: false,
      cell: ({ row }) => (row.original.filter ? <code className="block max-w-xs truncate text-xs" title={row.original.filter}>{row.original.filter}</code> : null),
    },
    {
      id: 'error',
      header: 'Last error',
      enableSorting: false,
      cell: ({ row }) =>
        row.original.error ? (
          <span className="flex max-w-xs flex-col text-xs text-danger" data-testid="rule-error">
            <span className="truncate" title={row.original.error}>
              {row.original.error}
            </span>
            <DateTime value={row.original.error_at} className="text-muted-foreground" />
          </span>
        ) : null,
    },
    {
      id: 'enabled',
      header: 'Enabled',
      enableSorting: false,
      cell: ({ row }) => (
        <span className="flex items-center gap-2">
          <Badge variant={row.original.enabled ? 'success' : 'secondary'} data-testid="rule-enabled" data-enabled={String(row.original.enabled)}>
            {row.original.enabled ? 'Enabled' : 'Disabled'}
          </Badge>
          {canWrite ? (
            <Form method="post" preventScrollReset>
              <input type="hidden" name="id" value={row.original.id} />
              <button
                type="submit"
                name="intent"
                value={row.original.enabled ? 'disable' : 'enable'}
                disabled={busyId === row.original.id}
                className={buttonVariants({ variant: 'outline', size: 'sm' })}
                data-testid="rule-toggle"
              >
                {row.original.enabled ? 'Disable' : 'Enable'}
              </button>
            </Form>
          ) : null}
        </span>
      ),
    },
  ]
  return (
    <>
      <NotificationsNav current="rules" />
      <ListPage
        testId="notification-rules-page"
        description="Which events notify whom. A disabled rule matches no event until it is enabled again."
        addAction={canWrite ? { label: 'Add Rule', to: `${RULES_HREF}/new`, testId: 'rule-add' } : null}
        errors={[failed?.error]}
        table={{
          data: rows,
          columns,
          getRowId: (row) => row.id,
          testId: 'notification-rules-table',
          rowTestId: 'rule-row',
          rowAttributes: (row) => ({ 'data-name': row.name }),
        }}
        toast={toast}
      />
    </>
  )
}

export function ErrorBoundary() {
  return <GeneralErrorBoundary />
}
