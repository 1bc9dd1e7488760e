import { parseWithZod } from '@conform-to/zod'
import { data, redirect, type ActionFunctionArgs, type LoaderFunctionArgs } from '@remix-run/node'
import { Form, Link, useActionData, useLoaderData, useSearchParams } from '@remix-run/react'
import { lazy, Suspense } from 'react'
import { z } from 'zod'
import type { DataColumn } from '#app/components/data-table/data-table.tsx'
import { requireSettingsAccess } from '#app/components/access/require-settings-access.server.ts'
import { InviteDialog as ServerRenderedInviteDialog, type InvitedUser } from '#app/components/access/invite-dialog.tsx'
import { UsersActionSchema } from '#app/components/access/user-forms.ts'
import { DateTime } from '#app/components/date-time.tsx'
import { GeneralErrorBoundary } from '#app/components/error-boundary.tsx'
import { ListPage } from '#app/components/list-page/list-page.tsx'
import { Badge } from '#app/components/ui/badge.tsx'
import { buttonVariants } from '#app/components/ui/button.tsx'
import { Trash2, UserPlus } from '#app/components/ui/icons.tsx'
import { hasAccess } from '#app/lib/access.ts'
import { GatewayError } from '#app/lib/gateway.server.ts'
import { invitableRoles } from '#app/lib/invitable-roles.ts'
import { deleteUser, inviteUser, listUsersWithRoles, setUserRole, type PersonWithRoles } from '#app/lib/people.server.ts'
import { ROLE_SUBJECTS } from '#app/lib/role-subjects.ts'
import type { RouteHandle } from '#app/lib/route-handle.ts'
import { readToast, toastCookie } from '#app/lib/toast.server.ts'

// The invite dialog (and the form library with it) loads when it opens; the server renders it in
// place, so the no-JS page and hydration see the same markup (decisions 007, 014).
const InviteDialog = import.meta.env.SSR
  ? ServerRenderedInviteDialog
  : /* @__PURE__ */ lazy(() => import('#app/components/access/invite-dialog.tsx').then((module) => ({ default: module.InviteDialog })))

export const handle = { title: 'Users', feature: 'settings.users', resource: 'identities' } satisfies RouteHandle

function failure(error: unknown): string {
  if (error instanceof GatewayError) return error.message
  throw error
}

export async function loader(args: LoaderFunctionArgs) {
  const session = await requireSettingsAccess(args, handle)
  const { toast, headers } = readToast(args.request)
  let users: PersonWithRoles[] = []
  let loadError: string | null = null
  try {
    users = await listUsersWithRoles(args)
  } catch (error) {
    loadError = failure(error)
  }
  return data(
    { users, loadError, toast, canWrite: hasAccess(session, 'identities', 'write'), me: session.user.id, roles: invitableRoles(session) },
    { headers },
  )
}

/** `link` is empty unless the caller is an admin: the API returns the one-time link to admins only. */
type Invited = InvitedUser

export async function action(args: ActionFunctionArgs) {
  await requireSettingsAccess(args, { ...handle, access: 'write' })
  const formData = await args.request.formData()
  let invited = null as Invited | null
  const submission = await parseWithZod(formData, {
    async: true,
    schema: UsersActionSchema.transform(async (value, ctx) => {
      try {
        if (value.intent === 'invite') {
          const { intent: _intent, ...invite } = value
          const { link } = await inviteUser(args, invite)
          invited = { email: value.email, role: value.role, link }
        } else if (value.intent === 'role') {
          await setUserRole(args, value.id, value.role)
        } else {
          await deleteUser(args, value.id)
        }
        return value
      } catch (error) {
        ctx.addIssue({ code: z.ZodIssueCode.custom, message: failure(error) })
        return z.NEVER
      }
    }),
  })
  const intent = formData.get('intent') === 'invite' ? ('invite' as const) : ('row' as const)
  if (submission.status !== 'success') return data({ intent, result: submission.reply(), invited: null }, { status: 400 })
  const value = submission.value
  if (value.intent === 'role') throw redirect('/settings/users', { status: 303, headers: { 'set-cookie': toastCookie(`${value.name} is now ${value.role}`) } })
  if (value.intent === 'delete') throw redirect('/settings/users', { status: 303, headers: { 'set-cookie': toastCookie(`${value.name} deleted successfully`) } })
  // The invitation's one-time link (admins only) is shown in the answer to this POST, never
  // carried through a redirect.
  return data({ intent, result: submission.reply({ resetForm: true }), invited })
}

const columns: DataColumn<PersonWithRoles>[] = [
  { id: 'name', header: 'Name', enableSorting: false, cell: ({ row }) => row.original.name },
  { id: 'email', header: 'Email', enableSorting: false, cell: ({ row }) => row.original.email },
  {
    id: 'roles',
    header: 'Roles',
    enableSorting: false,
    cell: ({ row }) => (
      <span className="flex flex-wrap gap-1" data-testid="user-roles">
        {(row.original.roles ?? []).map((role) => (
          <Badge key={role} variant="secondary">
            {role}
          </Badge>
        ))}
      </span>
    ),
  },
  { id: 'created', header: 'Created', enableSorting: false, cell: ({ row }) => <DateTime value={row.original.created_at} /> },
  { id: 'last_login', header: 'Last login', enableSorting: false, cell: ({ row }) => <DateTime value={row.original.last_login} /> },
]

function UserRowActions({ user }: { user: PersonWithRoles }) {
  return (
    <div className="flex w-64 items-center justify-end gap-1">
      <Form method="post" className="flex items-center gap-1">
        <input type="hidden" name="intent" value="role" />
        <input type="hidden" name="id" value={user.id} />
        <input type="hidden" name="name" value={user.name} />
        <select name="role" aria-label={`Role of ${user.name}`} defaultValue={user.roles?.find((role) => (ROLE_SUBJECTS as readonly string[]).includes(role)) ?? ''} className="h-8 rounded-md border bg-background px-1 text-xs">
          <option value="">role</option>
          {ROLE_SUBJECTS.map((role) => (
            <option key={role} value={role}>
              {role}
            </option>
          ))}
        </select>
        <button type="submit" className={buttonVariants({ variant: 'outline', size: 'sm' })}>
          Set role
        </button>
      </Form>
      <Link to={`?dialog=delete&id=${user.id}`} preventScrollReset aria-label={`Delete ${user.name}`} className={buttonVariants({ variant: 'ghost', size: 'icon' })}>
        <Trash2 aria-hidden="true" />
      </Link>
    </div>
  )
}

export default function UsersRoute() {
  const { users, loadError, toast, canWrite, me, roles } = useLoaderData<typeof loader>()
  const actionData = useActionData<typeof action>()
  const [searchParams] = useSearchParams()
  const invited = actionData?.invited ?? null
  const inviteResult = actionData?.intent === 'invite' && !invited ? actionData.result : undefined
  const rowError = actionData?.intent === 'row' ? Object.values(actionData.result.error ?? {}).flat().join(' ') : null
  const showInvite = canWrite && (searchParams.get('dialog') === 'invite' || Boolean(inviteResult) || Boolean(invited))
  const deleteId = searchParams.get('dialog') === 'delete' ? searchParams.get('id') : null
  const deleting = users.find((user) => user.id === deleteId)

  return (
    <ListPage
      testId="users-page"
      description="People who can sign in, and their roles."
      addAction={canWrite ? { label: 'Invite User', to: '?dialog=invite', testId: 'invite-user', icon: <UserPlus aria-hidden="true" /> } : null}
      errors={[loadError ?? rowError]}
      table={{ data: users, columns, getRowId: (user) => user.id, testId: 'users-table', rowTestId: 'user-row', rowAttributes: (user) => ({ 'data-email': user.email ?? '' }) }}
      rowActions={(user) => (canWrite && user.id !== me ? <UserRowActions user={user} /> : null)}
      confirm={
        deleting && canWrite
          ? {
              title: 'Delete User',
              description: `Are you sure you want to delete ${deleting.name}?`,
              closeTo: '/settings/users',
              action: '/settings/users',
              fields: { intent: 'delete', id: deleting.id, name: deleting.name },
              testId: 'delete-user-dialog',
            }
          : null
      }
      toast={toast ?? (invited ? `${invited.email} invited successfully` : null)}
    >
      {showInvite ? (
        <Suspense fallback={null}>
          <InviteDialog lastResult={inviteResult} invited={invited} roles={roles} />
        </Suspense>
      ) : null}
    </ListPage>
  )
}

export function ErrorBoundary() {
  return <GeneralErrorBoundary />
}
