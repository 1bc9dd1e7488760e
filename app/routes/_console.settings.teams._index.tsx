import { data, redirect, type ActionFunctionArgs, type LoaderFunctionArgs } from '@remix-run/node'
import { Form, Link, useActionData, useLoaderData, useNavigation, useSearchParams } from '@remix-run/react'
import { Plus } from '#app/components/ui/icons.tsx'
import { requireSettingsAccess } from '#app/components/access/require-settings-access.server.ts'
import { readTeamForm, type TeamFormValues } from '#app/components/access/team-form.ts'
import { GeneralErrorBoundary } from '#app/components/error-boundary.tsx'
import { ErrorList, Field } from '#app/components/forms.tsx'
import { InlineError } from '#app/components/inline-error.tsx'
import { Modal } from '#app/components/modal/modal.tsx'
import { Toast } from '#app/components/toast.tsx'
import { buttonVariants } from '#app/components/ui/button.tsx'
import { Label } from '#app/components/ui/label.tsx'
import { Table, TableBody, TableCell, TableHead, TableHeader, TableRow } from '#app/components/ui/table.tsx'
import { hasAccess } from '#app/lib/access.ts'
import { apiJson, GatewayError } from '#app/lib/gateway.server.ts'
import type { RouteHandle } from '#app/lib/route-handle.ts'
import { readToast, toastCookie } from '#app/lib/toast.server.ts'
import { EmptyTableRow } from '#app/components/data-table/table-parts.tsx'

/** Takes /settings/teams from the generic `$table` route: teams get members (spec 002 §2). */
export const handle = { title: 'Teams', feature: 'settings.teams', resource: 'database' } satisfies RouteHandle

type TeamRow = { id: string; name: string; icon?: string | null; source?: string | null; created_at?: string | null; updated_at?: string | null }

function failure(error: unknown): string {
  if (error instanceof GatewayError) return error.message
  throw error
}

export async function loader(args: LoaderFunctionArgs) {
  const session = await requireSettingsAccess(args, handle)
  const { toast, headers } = readToast(args.request)
  let teams: Array<TeamRow & { members: number }> = []
  let loadError: string | null = null
  try {
    const [list, members] = await Promise.all([
      apiJson<TeamRow[]>(args, '/db/teams?select=id,name,icon,source,created_at,updated_at&deleted_at=is.null&order=name.asc'),
      apiJson<{ team_id: string }[]>(args, '/db/team_members?select=team_id'),
    ])
    const counts = new Map<string, number>()
    for (const row of Array.isArray(members.data) ? members.data : []) counts.set(row.team_id, (counts.get(row.team_id) ?? 0) + 1)
    teams = (Array.isArray(list.data) ? list.data : []).map((team) => ({ ...team, members: counts.get(team.id) ?? 0 }))
  } catch (error) {
    loadError = failure(error)
  }
  return data({ teams, loadError, toast, canWrite: hasAccess(session, 'database', 'write') }, { headers })
}

type CreateResult = { errors: Record<string, string>; values: TeamFormValues }

export async function action(args: ActionFunctionArgs) {
  const session = await requireSettingsAccess(args, { ...handle, access: 'write' })
  const form = await args.request.formData()
  const { values, errors, row } = readTeamForm(form, { requireName: true })
  if (!row) return data<CreateResult>({ errors, values }, { status: 400 })
  let id: string | undefined
  try {
    const { data: created } = await apiJson<{ id: string }[]>(args, '/db/teams', {
      method: 'POST',
      json: { ...row, name: values.name, source: 'UI', created_by: session.user.id },
      headers: { prefer: 'return=representation' },
    })
    id = Array.isArray(created) ? created[0]?.id : undefined
  } catch (error) {
    const message = failure(error)
    // The live-name uniqueness is the database's: say it in the form's words.
    const duplicate = error instanceof GatewayError && error.status === 409
    return data<CreateResult>({ errors: duplicate ? { name: `A team named ${values.name} already exists` } : { form: message }, values }, { status: 400 })
  }
  throw redirect(id ? `/settings/teams/${id}?tab=members` : '/settings/teams', {
    headers: { 'set-cookie': toastCookie(`${values.name} created successfully`) },
  })
}

export default function TeamsRoute() {
  const { teams, loadError, toast, canWrite } = useLoaderData<typeof loader>()
  const actionData = useActionData<typeof action>()
  const [searchParams] = useSearchParams()
  const navigation = useNavigation()
  const creating = navigation.state === 'submitting'
  const showCreate = canWrite && (searchParams.get('dialog') === 'new' || Boolean(actionData))
  const errors = actionData?.errors ?? {}

  return (
    <section className="flex flex-col gap-4 p-6" data-testid="teams-page">
      <div className="flex items-center justify-between">
        <p className="text-sm text-muted-foreground">Teams group people for incidents, notifications and permissions.</p>
        {canWrite ? (
          <Link to="?dialog=new" preventScrollReset className={buttonVariants({ size: 'sm' })} data-testid="add-team">
            <Plus aria-hidden="true" />
            Add Team
          </Link>
        ) : null}
      </div>
      <InlineError message={loadError} />
      <Table data-testid="teams-table">
        <TableHeader>
          <TableRow>
            <TableHead>Name</TableHead>
            <TableHead>Members</TableHead>
            <TableHead>Source</TableHead>
            <TableHead>Created</TableHead>
            <TableHead>Updated</TableHead>
          </TableRow>
        </TableHeader>
        <TableBody>
          {teams.length === 0 ? (
            <EmptyTableRow colSpan={5} />
          ) : (
            teams.map((team) => (
              <TableRow key={team.id} data-testid="team-row">
                <TableCell>
                  <Link to={`/settings/teams/${team.id}`} className="font-medium hover:underline">
                    {team.name}
                  </Link>
                </TableCell>
                <TableCell>{team.members}</TableCell>
                <TableCell>{team.source ?? ''}</TableCell>
                <TableCell className="whitespace-nowrap">{(team.created_at ?? '').slice(0, 10)}</TableCell>
                <TableCell className="whitespace-nowrap">{(team.updated_at ?? '').slice(0, 19).replace('T', ' ')}</TableCell>
              </TableRow>
            ))
          )}
        </TableBody>
      </Table>
      {showCreate ? (
        <Modal title="Add Team" closeTo="/settings/teams" size="very-small" expandable={false} testId="team-create-dialog">
          <Form method="post" action="/settings/teams?dialog=new" className="flex flex-col gap-3" data-testid="team-create-form" noValidate>
            <InlineError message={errors.form} />
            <Field labelProps={{ htmlFor: 'team-name', children: 'Name' }} inputProps={{ name: 'name', required: true, defaultValue: actionData?.values.name ?? '' }} errors={[errors.name]} />
            <Field labelProps={{ htmlFor: 'team-icon', children: 'Icon' }} inputProps={{ name: 'icon', defaultValue: actionData?.values.icon ?? 'group' }} errors={[errors.icon]} />
            <div className="flex flex-col gap-1.5">
              <Label htmlFor="team-spec">Spec (JSON)</Label>
              <textarea id="team-spec" name="spec" rows={6} defaultValue={actionData?.values.spec ?? '{}'} className="rounded-md border bg-background p-2 font-mono text-xs" />
              <ErrorList errors={[errors.spec]} />
            </div>
            <div className="flex justify-end">
              <button type="submit" disabled={creating} className={buttonVariants({ size: 'sm' })} data-testid="team-create-submit">
                {creating ? 'Saving...' : 'Save'}
              </button>
            </div>
          </Form>
        </Modal>
      ) : null}
      <Toast message={toast} />
    </section>
  )
}

export function ErrorBoundary() {
  return <GeneralErrorBoundary />
}
