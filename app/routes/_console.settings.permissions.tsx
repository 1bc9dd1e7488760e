import { data, redirect, type ActionFunctionArgs, type LoaderFunctionArgs } from '@remix-run/node'
import { Link, useActionData, useLoaderData, useSearchParams } from '@remix-run/react'
import { Pencil, Plus, Trash2 } from '#app/components/ui/icons.tsx'
import { useMemo } from 'react'
import { PermissionDialog, type PermissionChoices } from '#app/components/access/permission-dialog.tsx'
import { requireSettingsAccess } from '#app/components/access/require-settings-access.server.ts'
import { ConfirmDialog } from '#app/components/confirm-dialog/confirm-dialog.tsx'
import { DateTime } from '#app/components/date-time.tsx'
import { GeneralErrorBoundary } from '#app/components/error-boundary.tsx'
import { InlineError } from '#app/components/inline-error.tsx'
import { Toast } from '#app/components/toast.tsx'
import { Badge } from '#app/components/ui/badge.tsx'
import { buttonVariants } from '#app/components/ui/button.tsx'
import { Table, TableBody, TableCell, TableHead, TableHeader, TableRow } from '#app/components/ui/table.tsx'
import { hasAccess } from '#app/lib/access.ts'
import { GatewayError, type ApiArgs } from '#app/lib/gateway.server.ts'
import { createPermission, deletePermission, findPermissionSummary, listPermissionSummaries, loadPermissionChoices, updatePermission } from '#app/lib/permissions.server.ts'
import {
  EMPTY_PERMISSION,
  applyPermissionIntent,
  parsePermissionIntent,
  permissionToForm,
  readPermissionForm,
  validatePermission,
  type PermissionFormValues,
  type PermissionRowInput,
} from '#app/lib/permissions-form.ts'
import type { RouteHandle } from '#app/lib/route-handle.ts'
import { readToast, toastCookie } from '#app/lib/toast.server.ts'
import { EmptyTableRow } from '#app/components/data-table/table-parts.tsx'
import { isUuid } from '#contract/uuid.ts'

export const handle = { title: 'Permissions', feature: 'settings.permissions', resource: 'permissions' } satisfies RouteHandle

const PAGE_SIZE = 50
type Named = { id?: string; name?: string; email?: string | null } | null
type SummaryRow = PermissionRowInput & {
  id: string
  source?: string | null
  created_at?: string | null
  updated_at?: string | null
  object_selector?: unknown
  person?: Named
  team?: Named
  notification?: Named
  playbook?: Named
  config_object?: Named & { type?: string }
  component_object?: Named
  canary_object?: Named
  playbook_object?: Named
  connection_object?: Named & { type?: string }
}

function subjectLabel(row: SummaryRow): string {
  switch (row.subject_type) {
    case 'person':
      return row.person?.name ?? row.subject ?? ''
    case 'team':
      return row.team?.name ?? row.subject ?? ''
    case 'notification':
      return row.notification?.name ?? row.subject ?? ''
    case 'playbook':
      return row.playbook?.name ?? row.subject ?? ''
    default:
      return row.subject ?? ''
  }
}

function resourceLabel(row: SummaryRow): string {
  if (row.object) return row.object
  const named = row.config_object ?? row.component_object ?? row.canary_object ?? row.playbook_object ?? row.connection_object
  if (named?.name) return named.name
  const id = row.config_id ?? row.component_id ?? row.canary_id ?? row.playbook_id ?? row.connection_id
  if (id) return id
  return row.object_selector ? 'Selector' : ''
}

function resourceKindLabel(row: SummaryRow): string {
  if (row.object) return 'Global'
  if (row.config_id) return 'Catalog'
  if (row.component_id) return 'Component'
  if (row.canary_id) return 'Canary'
  if (row.playbook_id) return 'Playbook'
  if (row.connection_id) return 'Connection'
  return row.object_selector ? 'Selector' : ''
}

function failure(error: unknown): string {
  if (error instanceof GatewayError) return error.message
  throw error
}

async function loadPermission(args: ApiArgs, id: string): Promise<SummaryRow | null> {
  if (!isUuid(id)) return null
  return findPermissionSummary<SummaryRow>(args, id)
}

export async function loader(args: LoaderFunctionArgs) {
  const session = await requireSettingsAccess(args, handle)
  const { toast, headers } = readToast(args.request)
  const url = new URL(args.request.url)
  const page = Math.max(1, Number.parseInt(url.searchParams.get('page') ?? '1', 10) || 1)
  const dialog = url.searchParams.get('dialog')
  const id = url.searchParams.get('id')

  let rows: SummaryRow[] = []
  let total = 0
  let loadError: string | null = null
  try {
    const listed = await listPermissionSummaries<SummaryRow>(args, page, PAGE_SIZE)
    rows = listed.rows
    total = listed.total
  } catch (error) {
    loadError = failure(error)
  }

  let editor: { id: string | null; values: PermissionFormValues; choices: PermissionChoices; error: string | null } | null = null
  if (dialog === 'permission') {
    let values = EMPTY_PERMISSION
    let error: string | null = null
    if (id) {
      try {
        const row = await loadPermission(args, id)
        if (row) values = permissionToForm(row)
        else error = 'This permission does not exist (any more).'
      } catch (caught) {
        error = failure(caught)
      }
    }
    editor = { id, values, choices: await loadPermissionChoices(args), error }
  }
  // Permission rows are rbac work (decision 008): the API refuses them to anyone without rbac:update,
  // so the controls follow that, not the matrix's `permissions` area.
  const canWrite = hasAccess(session, 'rbac', 'write')
  return data({ rows, total, page, pageSize: PAGE_SIZE, loadError, toast, editor, canWrite }, { headers })
}

export async function action(args: ActionFunctionArgs) {
  const session = await requireSettingsAccess(args, { ...handle, resource: 'rbac', access: 'write' })
  const form = await args.request.formData()
  const intent = parsePermissionIntent(form.get('intent'))
  const id = String(form.get('id') ?? new URL(args.request.url).searchParams.get('id') ?? '')

  if (intent.type === 'delete') {
    if (!isUuid(id)) return data({ intent: 'delete' as const, error: 'No permission was chosen.' }, { status: 400 })
    try {
      await deletePermission(args, id)
    } catch (error) {
      return data({ intent: 'delete' as const, error: failure(error) }, { status: 400 })
    }
    throw redirect('/settings/permissions', { headers: { 'set-cookie': toastCookie('Permission deleted') } })
  }

  const values = applyPermissionIntent(readPermissionForm(form), intent)
  if (intent.type === 'subject' || intent.type === 'resource') {
    return data({ intent: 'edit' as const, values, errors: {} as Record<string, string> })
  }
  if (intent.type !== 'save') {
    return data({ intent: 'edit' as const, values, errors: { form: 'Unknown request.' } as Record<string, string> }, { status: 400 })
  }
  const result = validatePermission(values)
  if (!result.payload) return data({ intent: 'edit' as const, values, errors: result.errors }, { status: 400 })
  try {
    if (id) {
      if (!isUuid(id)) return data({ intent: 'edit' as const, values, errors: { form: 'No such permission.' } as Record<string, string> }, { status: 400 })
      await updatePermission(args, id, result.payload, session.user.id)
    } else {
      await createPermission(args, result.payload, session.user.id)
    }
  } catch (error) {
    // A grant beyond what the author holds comes back 403 with its reason: shown in the dialog.
    return data({ intent: 'edit' as const, values, errors: { form: failure(error) } as Record<string, string> }, { status: 400 })
  }
  throw redirect('/settings/permissions', { headers: { 'set-cookie': toastCookie(id ? 'Permission updated' : 'Permission added') } })
}

export default function PermissionsRoute() {
  const { rows, total, page, pageSize, loadError, toast, editor, canWrite } = useLoaderData<typeof loader>()
  const actionData = useActionData<typeof action>()
  const [searchParams] = useSearchParams()
  const pageCount = Math.max(1, Math.ceil(total / pageSize))
  const deleteId = searchParams.get('dialog') === 'delete' ? searchParams.get('id') : null
  const editValues = actionData?.intent === 'edit' ? actionData.values : null
  const initial = useMemo(() => editValues ?? editor?.values ?? EMPTY_PERMISSION, [editValues, editor])
  const pageHref = (target: number) => {
    const params = new URLSearchParams(searchParams)
    params.delete('dialog')
    params.delete('id')
    params.set('page', String(target))
    return `?${params.toString()}`
  }

  return (
    <section className="flex flex-col gap-4 p-6" data-testid="permissions-page">
      <div className="flex items-center justify-between">
        <p className="text-sm text-muted-foreground">Who may do what, on which resources.</p>
        {canWrite ? (
          <Link to="?dialog=permission" preventScrollReset className={buttonVariants({ size: 'sm' })} data-testid="add-permission">
            <Plus aria-hidden="true" />
            Add Permission
          </Link>
        ) : null}
      </div>
      <InlineError message={loadError} />
      {actionData?.intent === 'delete' ? <InlineError message={actionData.error} /> : null}
      <Table data-testid="permissions-table">
        <TableHeader>
          <TableRow>
            <TableHead>Subject</TableHead>
            <TableHead>Resource</TableHead>
            <TableHead>Action</TableHead>
            <TableHead>Effect</TableHead>
            <TableHead>Description</TableHead>
            <TableHead>Source</TableHead>
            <TableHead>Updated</TableHead>
            <TableHead className="w-20" />
          </TableRow>
        </TableHeader>
        <TableBody>
          {rows.length === 0 ? (
            <EmptyTableRow colSpan={8} />
          ) : (
            rows.map((row) => (
              <TableRow key={row.id} data-testid="permission-row" data-id={row.id}>
                <TableCell>
                  <span className="mr-1.5 text-xs text-muted-foreground">{row.subject_type === 'group' ? 'role' : row.subject_type}</span>
                  <span data-testid="permission-subject">{subjectLabel(row)}</span>
                </TableCell>
                <TableCell>
                  <span className="mr-1.5 text-xs text-muted-foreground">{resourceKindLabel(row)}</span>
                  <span data-testid="permission-resource">{resourceLabel(row)}</span>
                </TableCell>
                <TableCell className="font-mono text-xs" data-testid="permission-action">
                  {row.action}
                </TableCell>
                <TableCell>{row.deny ? <Badge variant="danger">deny</Badge> : <Badge variant="success">allow</Badge>}</TableCell>
                <TableCell className="max-w-64 truncate" data-testid="permission-description">
                  {row.description ?? ''}
                </TableCell>
                <TableCell>{row.source ?? ''}</TableCell>
                <TableCell><DateTime value={row.updated_at ?? row.created_at} /></TableCell>
                <TableCell>
                  {canWrite ? (
                    <div className="flex gap-1">
                      <Link to={`?dialog=permission&id=${row.id}`} preventScrollReset aria-label="Edit permission" className={buttonVariants({ variant: 'ghost', size: 'icon' })} data-testid="edit-permission">
                        <Pencil aria-hidden="true" />
                      </Link>
                      <Link to={`?dialog=delete&id=${row.id}`} preventScrollReset aria-label="Delete permission" className={buttonVariants({ variant: 'ghost', size: 'icon' })} data-testid="delete-permission">
                        <Trash2 aria-hidden="true" />
                      </Link>
                    </div>
                  ) : null}
                </TableCell>
              </TableRow>
            ))
          )}
        </TableBody>
      </Table>
      {pageCount > 1 ? (
        <nav aria-label="Pagination" className="flex items-center justify-end gap-2 text-sm" data-testid="permissions-pagination">
          <Link to={pageHref(Math.max(1, page - 1))} aria-disabled={page <= 1} className={buttonVariants({ variant: 'outline', size: 'sm' })}>
            Previous
          </Link>
          <span>
            Page {page} of {pageCount}
          </span>
          <Link to={pageHref(Math.min(pageCount, page + 1))} aria-disabled={page >= pageCount} className={buttonVariants({ variant: 'outline', size: 'sm' })}>
            Next
          </Link>
        </nav>
      ) : null}
      {editor && canWrite ? (
        <PermissionDialog
          key={editor.id ?? 'new'}
          id={editor.id}
          initial={initial}
          errors={{ ...(actionData?.intent === 'edit' ? actionData.errors : {}), ...(editor.error ? { form: editor.error } : {}) }}
          choices={editor.choices}
          closeTo="/settings/permissions"
          formAction={editor.id ? `/settings/permissions?dialog=permission&id=${editor.id}` : '/settings/permissions?dialog=permission'}
        />
      ) : null}
      {deleteId && canWrite ? (
        <ConfirmDialog
          title="Delete Permission"
          description="Are you sure you want to delete the permission?"
          closeTo="/settings/permissions"
          action="/settings/permissions"
          fields={{ intent: 'delete', id: deleteId }}
          testId="delete-permission-dialog"
        />
      ) : null}
      <Toast message={toast} />
    </section>
  )
}

export function ErrorBoundary() {
  return <GeneralErrorBoundary />
}
