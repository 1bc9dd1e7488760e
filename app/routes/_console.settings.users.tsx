import { data, redirect, type ActionFunctionArgs, type LoaderFunctionArgs } from '@remix-run/node'
import { Form, Link, useActionData, useLoaderData, useNavigation, useSearchParams } from '@remix-run/react'
import { Trash2, UserPlus } from '#app/components/ui/icons.tsx'
import { z } from 'zod'
import { requireSettingsAccess } from '#app/components/access/require-settings-access.server.ts'
import { ConfirmDialog } from '#app/components/confirm-dialog/confirm-dialog.tsx'
import { GeneralErrorBoundary } from '#app/components/error-boundary.tsx'
import { ErrorList, Field } from '#app/components/forms.tsx'
import { InlineError } from '#app/components/inline-error.tsx'
import { Modal } from '#app/components/modal/modal.tsx'
import { Toast } from '#app/components/toast.tsx'
import { Badge } from '#app/components/ui/badge.tsx'
import { buttonVariants } from '#app/components/ui/button.tsx'
import { Label } from '#app/components/ui/label.tsx'
import { Table, TableBody, TableCell, TableHead, TableHeader, TableRow } from '#app/components/ui/table.tsx'
import { hasAccess } from '#app/lib/access.ts'
import { invitableRoles } from '#app/lib/invitable-roles.ts'
import { apiJson, GatewayError } from '#app/lib/gateway.server.ts'
import { ROLE_SUBJECTS } from '#app/lib/permissions-form.ts'
import type { RouteHandle } from '#app/lib/route-handle.ts'
import { readToast, toastCookie } from '#app/lib/toast.server.ts'
import { EmptyTableRow } from '#app/components/data-table/table-parts.tsx'

export const handle = { title: 'Users', feature: 'settings.users', resource: 'identities' } satisfies RouteHandle

const UUID = /^[0-9a-f]{8}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{12}$/i

/** Spec 000 §6: an invitation names the person and the role they start with. */
const InviteSchema = z.object({
  firstName: z.string().trim().max(100, 'At most 100 characters'),
  lastName: z.string().trim().max(100, 'At most 100 characters'),
  email: z.string().trim().min(1, 'Email is required').email('Enter a valid email address'),
  role: z.enum(ROLE_SUBJECTS, { errorMap: () => ({ message: 'Role is required' }) }),
})

type InviteValues = { firstName: string; lastName: string; email: string; role: string }
type PersonRole = { id: string; name: string; email: string | null; roles?: string[] | null }
type PersonRow = { id: string; created_at?: string | null; last_login?: string | null }

function failure(error: unknown): string {
  if (error instanceof GatewayError) return error.message
  throw error
}

export async function loader(args: LoaderFunctionArgs) {
  const session = await requireSettingsAccess(args, handle)
  const { toast, headers } = readToast(args.request)
  let users: Array<PersonRole & { created_at: string | null; last_login: string | null }> = []
  let loadError: string | null = null
  try {
    const [roles, people] = await Promise.all([
      apiJson<PersonRole[]>(args, '/db/people_roles?order=name.asc'),
      apiJson<PersonRow[]>(args, '/db/people?select=id,created_at,last_login&deleted_at=is.null&email=not.is.null'),
    ])
    const details = new Map((Array.isArray(people.data) ? people.data : []).map((row) => [row.id, row]))
    users = (Array.isArray(roles.data) ? roles.data : [])
      .filter((row) => details.has(row.id))
      .map((row) => ({ ...row, created_at: details.get(row.id)?.created_at ?? null, last_login: details.get(row.id)?.last_login ?? null }))
  } catch (error) {
    loadError = failure(error)
  }
  return data(
    { users, loadError, toast, canWrite: hasAccess(session, 'identities', 'write'), me: session.user.id, roles: invitableRoles(session) },
    { headers },
  )
}

type InviteResult =
  | { intent: 'invite'; errors: Record<string, string>; values: InviteValues; invited?: undefined }
  /** `link` is empty unless the caller is an admin: the API returns the one-time link to admins only. */
  | { intent: 'invite'; invited: { email: string; link: string; role: string }; errors?: undefined; values?: undefined }
type RowResult = { intent: 'role' | 'delete'; error: string }

export async function action(args: ActionFunctionArgs) {
  await requireSettingsAccess(args, { ...handle, access: 'write' })
  const form = await args.request.formData()
  const intent = form.get('intent')

  if (intent === 'invite') {
    const values: InviteValues = {
      firstName: String(form.get('firstName') ?? ''),
      lastName: String(form.get('lastName') ?? ''),
      email: String(form.get('email') ?? ''),
      role: String(form.get('role') ?? ''),
    }
    const parsed = InviteSchema.safeParse(values)
    if (!parsed.success) {
      const errors: Record<string, string> = {}
      for (const issue of parsed.error.issues) errors[String(issue.path[0] ?? 'form')] ??= issue.message
      return data<InviteResult>({ intent: 'invite', errors, values }, { status: 400 })
    }
    try {
      const { data: body } = await apiJson<{ link?: string }>(args, '/auth/invite_user', { method: 'POST', json: parsed.data })
      return data<InviteResult>({ intent: 'invite', invited: { email: parsed.data.email, role: parsed.data.role, link: body?.link ?? '' } })
    } catch (error) {
      return data<InviteResult>({ intent: 'invite', errors: { form: failure(error) }, values }, { status: 400 })
    }
  }

  const id = String(form.get('id') ?? '')
  const name = String(form.get('name') ?? 'The user')
  if (!UUID.test(id)) return data<RowResult>({ intent: intent === 'role' ? 'role' : 'delete', error: 'No user was chosen.' }, { status: 400 })
  if (intent === 'role') {
    const role = String(form.get('role') ?? '')
    if (!(ROLE_SUBJECTS as readonly string[]).includes(role)) return data<RowResult>({ intent: 'role', error: 'Role is required' }, { status: 400 })
    try {
      await apiJson(args, '/people/update', { method: 'POST', json: { id, role } })
    } catch (error) {
      return data<RowResult>({ intent: 'role', error: failure(error) }, { status: 400 })
    }
    throw redirect('/settings/users', { headers: { 'set-cookie': toastCookie(`${name} is now ${role}`) } })
  }
  if (intent === 'delete') {
    try {
      await apiJson(args, `/people/${id}`, { method: 'DELETE' })
    } catch (error) {
      return data<RowResult>({ intent: 'delete', error: failure(error) }, { status: 400 })
    }
    throw redirect('/settings/users', { headers: { 'set-cookie': toastCookie(`${name} deleted successfully`) } })
  }
  return data<RowResult>({ intent: 'delete', error: 'Unknown request.' }, { status: 400 })
}

function InviteDialog({ result, roles }: { result: InviteResult | undefined; roles: string[] }) {
  const navigation = useNavigation()
  const sending = navigation.state === 'submitting' && navigation.formData?.get('intent') === 'invite'
  const errors = result?.errors ?? {}
  const values = result?.values
  return (
    <Modal title={result?.invited ? 'User invited' : 'Invite User'} closeTo="/settings/users" size="very-small" expandable={false} testId="invite-dialog">
      {result?.invited ? (
        <div className="flex flex-col gap-3 text-sm" data-testid="invite-result">
          <p>
            An invitation was sent to <strong>{result.invited.email}</strong> with the role <strong>{result.invited.role}</strong>.
          </p>
          {result.invited.link ? (
            <>
              <p className="text-muted-foreground">If mail does not reach them, share this one-time sign-in link:</p>
              <code className="break-all rounded-md border bg-muted p-2 text-xs" data-testid="invite-link">
                {result.invited.link}
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
        <Form method="post" action="/settings/users?dialog=invite" className="flex flex-col gap-3" data-testid="invite-form" noValidate>
          <input type="hidden" name="intent" value="invite" />
          <InlineError message={errors.form} />
          <div className="grid grid-cols-2 gap-3">
            <Field labelProps={{ htmlFor: 'invite-first', children: 'First name' }} inputProps={{ name: 'firstName', defaultValue: values?.firstName ?? '' }} errors={[errors.firstName]} />
            <Field labelProps={{ htmlFor: 'invite-last', children: 'Last name' }} inputProps={{ name: 'lastName', defaultValue: values?.lastName ?? '' }} errors={[errors.lastName]} />
          </div>
          <Field labelProps={{ htmlFor: 'invite-email', children: 'Email' }} inputProps={{ name: 'email', type: 'email', required: true, defaultValue: values?.email ?? '' }} errors={[errors.email]} />
          <div className="flex flex-col gap-1.5">
            <Label htmlFor="invite-role">Role</Label>
            <select id="invite-role" name="role" defaultValue={values?.role ?? ''} className="h-9 rounded-md border bg-background px-2 text-sm" data-testid="invite-role">
              <option value="">Select a role</option>
              {roles.map((role) => (
                <option key={role} value={role}>
                  {role}
                </option>
              ))}
            </select>
            <ErrorList errors={[errors.role]} />
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

export default function UsersRoute() {
  const { users, loadError, toast, canWrite, me, roles } = useLoaderData<typeof loader>()
  const actionData = useActionData<typeof action>() as InviteResult | RowResult | undefined
  const [searchParams] = useSearchParams()
  const inviteResult = actionData?.intent === 'invite' ? actionData : undefined
  const rowError = actionData && actionData.intent !== 'invite' ? actionData.error : null
  const showInvite = canWrite && (searchParams.get('dialog') === 'invite' || Boolean(inviteResult))
  const deleteId = searchParams.get('dialog') === 'delete' ? searchParams.get('id') : null
  const deleting = users.find((user) => user.id === deleteId)

  return (
    <section className="flex flex-col gap-4 p-6" data-testid="users-page">
      <div className="flex items-center justify-between">
        <p className="text-sm text-muted-foreground">People who can sign in, and their roles.</p>
        {canWrite ? (
          <Link to="?dialog=invite" preventScrollReset className={buttonVariants({ size: 'sm' })} data-testid="invite-user">
            <UserPlus aria-hidden="true" />
            Invite User
          </Link>
        ) : null}
      </div>
      <InlineError message={loadError ?? rowError} />
      <Table data-testid="users-table">
        <TableHeader>
          <TableRow>
            <TableHead>Name</TableHead>
            <TableHead>Email</TableHead>
            <TableHead>Roles</TableHead>
            <TableHead>Created</TableHead>
            <TableHead>Last login</TableHead>
            <TableHead className="w-64" />
          </TableRow>
        </TableHeader>
        <TableBody>
          {users.length === 0 ? (
            <EmptyTableRow colSpan={6} />
          ) : (
            users.map((user) => (
              <TableRow key={user.id} data-testid="user-row" data-email={user.email ?? ''}>
                <TableCell>{user.name}</TableCell>
                <TableCell>{user.email}</TableCell>
                <TableCell data-testid="user-roles">
                  <span className="flex flex-wrap gap-1">
                    {(user.roles ?? []).map((role) => (
                      <Badge key={role} variant="secondary">
                        {role}
                      </Badge>
                    ))}
                  </span>
                </TableCell>
                <TableCell className="whitespace-nowrap">{(user.created_at ?? '').slice(0, 10)}</TableCell>
                <TableCell className="whitespace-nowrap">{(user.last_login ?? '').slice(0, 19).replace('T', ' ')}</TableCell>
                <TableCell>
                  {canWrite && user.id !== me ? (
                    <div className="flex items-center justify-end gap-1">
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
                  ) : null}
                </TableCell>
              </TableRow>
            ))
          )}
        </TableBody>
      </Table>
      {showInvite ? <InviteDialog result={inviteResult} roles={roles} /> : null}
      {deleting && canWrite ? (
        <ConfirmDialog
          title="Delete User"
          description={`Are you sure you want to delete ${deleting.name}?`}
          closeTo="/settings/users"
          action="/settings/users"
          fields={{ intent: 'delete', id: deleting.id, name: deleting.name }}
          testId="delete-user-dialog"
        />
      ) : null}
      <Toast message={toast ?? (inviteResult?.invited ? `${inviteResult.invited.email} invited successfully` : null)} />
    </section>
  )
}

export function ErrorBoundary() {
  return <GeneralErrorBoundary />
}
