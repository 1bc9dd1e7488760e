import { parseWithZod } from '@conform-to/zod'
import { data, redirect, type ActionFunctionArgs, type LoaderFunctionArgs } from '@remix-run/node'
import { Link, useActionData, useLoaderData } from '@remix-run/react'
import { lazy, Suspense } from 'react'
import { z } from 'zod'
import type { DataColumn } from '#app/components/data-table/data-table.tsx'
import { PermissionDialog as ServerRenderedPermissionDialog } from '#app/components/access/permission-dialog.tsx'
import { requireSettingsAccess } from '#app/components/access/require-settings-access.server.ts'
import { DateTime } from '#app/components/date-time.tsx'
import { GeneralErrorBoundary } from '#app/components/error-boundary.tsx'
import { ListPage } from '#app/components/list-page/list-page.tsx'
import { Badge } from '#app/components/ui/badge.tsx'
import { buttonVariants } from '#app/components/ui/button.tsx'
import { Pencil, Trash2 } from '#app/components/ui/icons.tsx'
import { hasAccess } from '#app/lib/access.ts'
import { GatewayError } from '#app/lib/gateway.server.ts'
import {
  createPermission,
  deletePermission,
  findPermissionSummary,
  listPermissionSummaries,
  loadPermissionChoices,
  updatePermission,
  type PermissionSummaryRow,
} from '#app/lib/permissions.server.ts'
import { PermissionActionSchema, parsePermissionsSearch } from '#app/lib/permissions-form.ts'
import {
  PERMISSION_PAGE_SIZES,
  permissionToFormDefault,
  toPermissionPayload,
  type PermissionChoices,
  type PermissionFormInput,
} from '#app/lib/permissions-form-shapes.ts'
import type { RouteHandle } from '#app/lib/route-handle.ts'
import { readToast, toastCookie } from '#app/lib/toast.server.ts'

// The dialog (and the form code with it) loads when it shows; the server renders it in place, so
// the no-JS page and hydration see the same markup (decisions 014, 016).
const PermissionDialog = import.meta.env.SSR
  ? ServerRenderedPermissionDialog
  : /* @__PURE__ */ lazy(() => import('#app/components/access/permission-dialog.tsx').then((module) => ({ default: module.PermissionDialog })))

export const handle = { title: 'Permissions', feature: 'settings.permissions', resource: 'permissions' } satisfies RouteHandle

function failure(error: unknown): string {
  if (error instanceof GatewayError) return error.message
  throw error
}

type Editor = { id: string | null; defaultValue: Partial<PermissionFormInput>; choices: PermissionChoices; loadError: string | null }

export async function loader(args: LoaderFunctionArgs) {
  const session = await requireSettingsAccess(args, handle)
  const { toast, headers } = readToast(args.request)
  const search = parsePermissionsSearch(new URL(args.request.url).searchParams)
  // Permission rows are rbac work (decision 008): the API refuses them to anyone without rbac:update,
  // so the controls follow that, not the matrix's `permissions` area.
  const canWrite = hasAccess(session, 'rbac', 'write')

  let rows: PermissionSummaryRow[] = []
  let total = 0
  let loadError: string | null = null
  try {
    ;({ rows, total } = await listPermissionSummaries(args, search))
  } catch (error) {
    loadError = failure(error)
  }

  let editor: Editor | null = null
  if (canWrite && search.dialog === 'permission') {
    let defaultValue: Partial<PermissionFormInput> = {}
    let editError: string | null = null
    if (search.id) {
      try {
        const row = await findPermissionSummary(args, search.id)
        if (row) defaultValue = permissionToFormDefault(row)
        else editError = 'This permission does not exist (any more).'
      } catch (error) {
        editError = failure(error)
      }
    }
    editor = { id: search.id, defaultValue, choices: await loadPermissionChoices(args), loadError: editError }
  }
  return data({ rows, total, search, loadError, toast, editor, canWrite }, { headers })
}

const TOASTS = { add: 'Permission added', edit: 'Permission updated', delete: 'Permission deleted' } as const

export async function action(args: ActionFunctionArgs) {
  const session = await requireSettingsAccess(args, { ...handle, resource: 'rbac', access: 'write' })
  const formData = await args.request.formData()
  const submission = await parseWithZod(formData, {
    async: true,
    // A kind button (a conform intent) only re-renders the form: nothing is written then.
    schema: (intent) =>
      PermissionActionSchema.transform(async (value, ctx) => {
        if (intent !== null) return value
        try {
          if (value.intent === 'delete') await deletePermission(args, value.id)
          else if (value.intent === 'edit') await updatePermission(args, value.id, toPermissionPayload(value), session.user.id)
          else await createPermission(args, toPermissionPayload(value), session.user.id)
          return value
        } catch (error) {
          // The backend's guards (no grant beyond what the author holds, no admin lock-out) answer
          // 403 with their reason: it shows in the dialog, or above the list for a delete.
          ctx.addIssue({ code: z.ZodIssueCode.custom, message: failure(error) })
          return z.NEVER
        }
      }),
  })
  const isDelete = formData.get('intent') === 'delete'
  if (submission.status !== 'success') {
    return data({ isDelete, result: submission.reply() }, { status: submission.status === 'error' ? 400 : 200 })
  }
  throw redirect('/settings/permissions', { status: 303, headers: { 'set-cookie': toastCookie(TOASTS[submission.value.intent]) } })
}

function subjectLabel(row: PermissionSummaryRow): string {
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

function resourceLabel(row: PermissionSummaryRow): string {
  if (row.object) return row.object
  const named = row.config_object ?? row.component_object ?? row.canary_object ?? row.playbook_object ?? row.connection_object
  if (named?.name) return named.name
  return row.config_id ?? row.component_id ?? row.canary_id ?? row.playbook_id ?? row.connection_id ?? (row.object_selector ? 'Selector' : '')
}

function resourceKindLabel(row: PermissionSummaryRow): string {
  if (row.object) return 'Global'
  if (row.config_id) return 'Catalog'
  if (row.component_id) return 'Component'
  if (row.canary_id) return 'Canary'
  if (row.playbook_id) return 'Playbook'
  if (row.connection_id) return 'Connection'
  return row.object_selector ? 'Selector' : ''
}

const columns: DataColumn<PermissionSummaryRow>[] = [
  {
    id: 'subject',
    header: 'Subject',
    enableSorting: false,
    cell: ({ row }) => (
      <>
        <span className="mr-1.5 text-xs text-muted-foreground">{row.original.subject_type === 'group' ? 'role' : row.original.subject_type}</span>
        <span data-testid="permission-subject">{subjectLabel(row.original)}</span>
      </>
    ),
  },
  {
    id: 'resource',
    header: 'Resource',
    enableSorting: false,
    cell: ({ row }) => (
      <>
        <span className="mr-1.5 text-xs text-muted-foreground">{resourceKindLabel(row.original)}</span>
        <span data-testid="permission-resource">{resourceLabel(row.original)}</span>
      </>
    ),
  },
  {
    id: 'action',
    header: 'Action',
    // An accessor makes a column sortable for tanstack; the order itself comes from the server.
    accessorFn: (row) => row.action ?? '',
    cell: ({ row }) => (
      <span className="font-mono text-xs" data-testid="permission-action">
        {row.original.action}
      </span>
    ),
  },
  { id: 'effect', header: 'Effect', accessorFn: (row) => Boolean(row.deny), cell: ({ row }) => (row.original.deny ? <Badge variant="danger">deny</Badge> : <Badge variant="success">allow</Badge>) },
  {
    id: 'description',
    header: 'Description',
    accessorFn: (row) => row.description ?? '',
    cell: ({ row }) => (
      <span className="block max-w-64 truncate" data-testid="permission-description">
        {row.original.description ?? ''}
      </span>
    ),
  },
  { id: 'source', header: 'Source', accessorFn: (row) => row.source ?? '', cell: ({ row }) => row.original.source ?? '' },
  {
    id: 'updated',
    header: 'Updated',
    accessorFn: (row) => row.updated_at ?? '',
    cell: ({ row }) => <DateTime value={row.original.updated_at ?? row.original.created_at} />,
  },
]

function PermissionRowActions({ row }: { row: PermissionSummaryRow }) {
  return (
    <div className="flex gap-1">
      <Link to={`?dialog=permission&id=${row.id}`} preventScrollReset aria-label="Edit permission" className={buttonVariants({ variant: 'ghost', size: 'icon' })} data-testid="edit-permission">
        <Pencil aria-hidden="true" />
      </Link>
      <Link to={`?dialog=delete&id=${row.id}`} preventScrollReset aria-label="Delete permission" className={buttonVariants({ variant: 'ghost', size: 'icon' })} data-testid="delete-permission">
        <Trash2 aria-hidden="true" />
      </Link>
    </div>
  )
}

export default function PermissionsRoute() {
  const { rows, total, search, loadError, toast, editor, canWrite } = useLoaderData<typeof loader>()
  const actionData = useActionData<typeof action>()
  const pageCount = Math.max(1, Math.ceil(total / search.pageSize))
  const deleteError = actionData?.isDelete ? Object.values(actionData.result.error ?? {}).flat().join(' ') : null
  const formResult = actionData && !actionData.isDelete ? actionData.result : undefined
  const showPager = pageCount > 1 || search.pageSize !== PERMISSION_PAGE_SIZES[0]

  return (
    <ListPage
      testId="permissions-page"
      description="Who may do what, on which resources."
      addAction={canWrite ? { label: 'Add Permission', to: '?dialog=permission', testId: 'add-permission' } : null}
      errors={[loadError, deleteError]}
      table={{
        data: rows,
        columns,
        getRowId: (row) => row.id,
        testId: 'permissions-table',
        rowTestId: 'permission-row',
        rowAttributes: (row) => ({ 'data-id': row.id }),
        urlSorting: { id: search.sortBy, desc: search.sortDesc },
        pagination: showPager
          ? { page: search.page, pageCount, pageSize: search.pageSize, pageSizes: PERMISSION_PAGE_SIZES, totalRows: total, testId: 'permissions-pagination' }
          : undefined,
      }}
      rowActions={canWrite ? (row) => <PermissionRowActions row={row} /> : undefined}
      confirm={
        canWrite && search.dialog === 'delete' && search.id
          ? {
              title: 'Delete Permission',
              description: 'Are you sure you want to delete the permission?',
              closeTo: '/settings/permissions',
              action: '/settings/permissions',
              fields: { intent: 'delete', id: search.id },
              testId: 'delete-permission-dialog',
            }
          : null
      }
      toast={toast}
    >
      {editor ? (
        <Suspense fallback={null}>
          <PermissionDialog
            key={editor.id ?? 'new'}
            id={editor.id}
            defaultValue={editor.defaultValue}
            lastResult={formResult}
            choices={editor.choices}
            loadError={editor.loadError}
            closeTo="/settings/permissions"
            formAction={editor.id ? `/settings/permissions?dialog=permission&id=${editor.id}` : '/settings/permissions?dialog=permission'}
          />
        </Suspense>
      ) : null}
    </ListPage>
  )
}

export function ErrorBoundary() {
  return <GeneralErrorBoundary />
}
