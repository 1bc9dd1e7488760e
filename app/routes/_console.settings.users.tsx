import { getFormProps, getInputProps, getSelectProps, type SubmissionResult } from '@conform-to/react'
import { parseWithZod } from '@conform-to/zod'
import { data, redirect, type ActionFunctionArgs, type LoaderFunctionArgs } from '@remix-run/node'
import { Form, Link, useActionData, useLoaderData, useNavigation, useSearchParams } from '@remix-run/react'
import type { ColumnDef } from '@tanstack/react-table'
import { z } from 'zod'
import { requireSettingsAccess } from '#app/components/access/require-settings-access.server.ts'
import { InviteSchema, UsersActionSchema } from '#app/components/access/user-forms.ts'
import { DateTime } from '#app/components/date-time.tsx'
import { GeneralErrorBoundary } from '#app/components/error-boundary.tsx'
import { ErrorList, Field } from '#app/components/forms.tsx'
import { InlineError } from '#app/components/inline-error.tsx'
import { ListPage } from '#app/components/list-page/list-page.tsx'
import { Modal } from '#app/components/modal/modal.tsx'
import { Badge } from '#app/components/ui/badge.tsx'
import { buttonVariants } from '#app/components/ui/button.tsx'
import { Trash2, UserPlus } from '#app/components/ui/icons.tsx'
import { Label } from '#app/components/ui/label.tsx'
import { useSchemaForm } from '#app/components/use-schema-form.ts'
import { hasAccess } from '#app/lib/access.ts'
import { GatewayError } from '#app/lib/gateway.server.ts'
import { invitableRoles } from '#app/lib/invitable-roles.ts'
import { deleteUser, inviteUser, listUsersWithRoles, setUserRole, type PersonWithRoles } from '#app/lib/people.server.ts'
import { ROLE_SUBJECTS } from '#app/lib/permissions-form.ts'
import type { RouteHandle } from '#app/lib/route-handle.ts'
import { readToast, toastCookie } from '#app/lib/toast.server.ts'

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
type Invited = { email: string; link: string; role: string }

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

function InviteDialog({ lastResult, invited, roles }: { lastResult: SubmissionResult<string[]> | undefined; invited: Invited | null; roles: string[] }) {
  const navigation = useNavigation()
  const sending = navigation.state === 'submitting' && navigation.formData?.get('intent') === 'invite'
  const [form, fields] = useSchemaForm(InviteSchema, {
    id: 'invite',
    lastResult,
    shouldRevalidate: 'onBlur',
  })
  const { key: roleKey, ...roleProps } = getSelectProps(fields.role)
  return (
    <Modal title={invited ? 'User invited' : 'Invite User'} closeTo="/settings/users" size="very-small" expandable={false} testId="invite-dialog">
      {invited ? (
        <div className="flex flex-col gap-3 text-sm" data-testid="invite-result">
          <p>
            An invitation was sent to <strong>{invited.email}</strong> with the role <strong>{invited.role}</strong>.
          </p>
          {invited.link ? (
            <>
              <p className="text-muted-foreground">If mail does not reach them, share this one-time sign-in link:</p>
              <code className="break-all rounded-md border bg-muted p-2 text-xs" data-testid="invite-link">
                {invited.link}
              </code>
            </>
          ) : (
            <p className="text-muted-foreground" data-testid="invite-mailed">
              Invitation mailed: the one-time sign-in link went to their inbox only.
            </p>
          )}
          <div className="flex justify-end">
            <Link to="/settings/users" className={buttonVariants({ size: 'sm' })} data-testid="invite-done">
              Done
            </Link>
          </div>
        </div>
      ) : (
        <Form method="post" action="/settings/users?dialog=invite" {...getFormProps(form)} className="flex flex-col gap-3" data-testid="invite-form">
          <input type="hidden" name="intent" value="invite" />
          <InlineError message={form.errors?.join(' ')} />
          <div className="grid grid-cols-2 gap-3">
            <Field labelProps={{ htmlFor: fields.firstName.id, children: 'First name' }} inputProps={getInputProps(fields.firstName, { type: 'text' })} errors={fields.firstName.errors} />
            <Field labelProps={{ htmlFor: fields.lastName.id, children: 'Last name' }} inputProps={getInputProps(fields.lastName, { type: 'text' })} errors={fields.lastName.errors} />
          </div>
          <Field labelProps={{ htmlFor: fields.email.id, children: 'Email' }} inputProps={getInputProps(fields.email, { type: 'email' })} errors={fields.email.errors} />
          <div className="flex flex-col gap-1.5">
            <Label htmlFor={fields.role.id}>Role</Label>
            <select key={roleKey} {...roleProps} className="h-9 rounded-md border bg-background px-2 text-sm" data-testid="invite-role">
              <option value="">Select a role</option>
              {roles.map((role) => (
                <option key={role} value={role}>
                  {role}
                </option>
              ))}
            </select>
            <ErrorList id={fields.role.errorId} errors={fields.role.errors} />
          </div>
          <div className="flex justify-end">
            <button type="submit" disabled={sending} className={buttonVariants({ size: 'sm' })} data-testid="invite-submit">
              {sending ? 'Inviting...' : 'Invite'}
            </button>
          </div>
        </Form>
      )}
    </Modal>
  )
}

const columns: ColumnDef<PersonWithRoles, unknown>[] = [
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
      {showInvite ? <InviteDialog lastResult={inviteResult} invited={invited} roles={roles} /> : null}
    </ListPage>
  )
}

export function ErrorBoundary() {
  return <GeneralErrorBoundary />
}
