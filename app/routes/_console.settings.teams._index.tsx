import { getFormProps, getInputProps, getTextareaProps, type SubmissionResult } from '@conform-to/react'
import { parseWithZod } from '@conform-to/zod'
import { data, redirect, type ActionFunctionArgs, type LoaderFunctionArgs } from '@remix-run/node'
import { Form, Link, useActionData, useLoaderData, useNavigation, useSearchParams } from '@remix-run/react'
import type { ColumnDef } from '@tanstack/react-table'
import { z } from 'zod'
import { requireSettingsAccess } from '#app/components/access/require-settings-access.server.ts'
import { CreateTeamSchema, DEFAULT_TEAM_ICON } from '#app/components/access/team-form.ts'
import { DateTime } from '#app/components/date-time.tsx'
import { GeneralErrorBoundary } from '#app/components/error-boundary.tsx'
import { ErrorList, Field } from '#app/components/forms.tsx'
import { InlineError } from '#app/components/inline-error.tsx'
import { ListPage } from '#app/components/list-page/list-page.tsx'
import { Modal } from '#app/components/modal/modal.tsx'
import { buttonVariants } from '#app/components/ui/button.tsx'
import { Label } from '#app/components/ui/label.tsx'
import { useSchemaForm } from '#app/components/use-schema-form.ts'
import { hasAccess } from '#app/lib/access.ts'
import { GatewayError } from '#app/lib/gateway.server.ts'
import type { RouteHandle } from '#app/lib/route-handle.ts'
import { createTeam, listTeamsWithMemberCounts, type TeamListRow } from '#app/lib/teams.server.ts'
import { readToast, toastCookie } from '#app/lib/toast.server.ts'

/** Takes /settings/teams from the generic `$table` route: teams get members (spec 002 §2). */
export const handle = { title: 'Teams', feature: 'settings.teams', resource: 'database' } satisfies RouteHandle

function failure(error: unknown): string {
  if (error instanceof GatewayError) return error.message
  throw error
}

export async function loader(args: LoaderFunctionArgs) {
  const session = await requireSettingsAccess(args, handle)
  const { toast, headers } = readToast(args.request)
  let teams: TeamListRow[] = []
  let loadError: string | null = null
  try {
    teams = await listTeamsWithMemberCounts(args)
  } catch (error) {
    loadError = failure(error)
  }
  return data({ teams, loadError, toast, canWrite: hasAccess(session, 'database', 'write') }, { headers })
}

export async function action(args: ActionFunctionArgs) {
  const session = await requireSettingsAccess(args, { ...handle, access: 'write' })
  const formData = await args.request.formData()
  let id: string | undefined
  const submission = await parseWithZod(formData, {
    async: true,
    schema: CreateTeamSchema.transform(async (value, ctx) => {
      try {
        id = await createTeam(args, { ...value, createdBy: session.user.id })
        return value
      } catch (error) {
        const message = failure(error)
        // The live-name uniqueness is the database's: say it in the form's words.
        const duplicate = error instanceof GatewayError && error.status === 409
        ctx.addIssue({ code: z.ZodIssueCode.custom, path: duplicate ? ['name'] : [], message: duplicate ? `A team named ${value.name} already exists` : message })
        return z.NEVER
      }
    }),
  })
  if (submission.status !== 'success') return data({ result: submission.reply() }, { status: 400 })
  throw redirect(id ? `/settings/teams/${id}?tab=members` : '/settings/teams', {
    status: 303,
    headers: { 'set-cookie': toastCookie(`${submission.value.name} created successfully`) },
  })
}

const columns: ColumnDef<TeamListRow, unknown>[] = [
  {
    id: 'name',
    header: 'Name',
    enableSorting: false,
    cell: ({ row }) => (
      <Link to={`/settings/teams/${row.original.id}`} className="font-medium hover:underline">
        {row.original.name}
      </Link>
    ),
  },
  { id: 'members', header: 'Members', enableSorting: false, cell: ({ row }) => row.original.members },
  { id: 'source', header: 'Source', enableSorting: false, cell: ({ row }) => row.original.source ?? '' },
  { id: 'created', header: 'Created', enableSorting: false, cell: ({ row }) => <DateTime value={row.original.created_at} /> },
  { id: 'updated', header: 'Updated', enableSorting: false, cell: ({ row }) => <DateTime value={row.original.updated_at} /> },
]

export default function TeamsRoute() {
  const { teams, loadError, toast, canWrite } = useLoaderData<typeof loader>()
  const actionData = useActionData<typeof action>()
  const [searchParams] = useSearchParams()
  const showCreate = canWrite && (searchParams.get('dialog') === 'new' || Boolean(actionData))

  return (
    <ListPage
      testId="teams-page"
      description="Teams group people for incidents, notifications and permissions."
      addAction={canWrite ? { label: 'Add Team', to: '?dialog=new', testId: 'add-team' } : null}
      errors={[loadError]}
      table={{ data: teams, columns, getRowId: (team) => team.id, testId: 'teams-table', rowTestId: 'team-row' }}
      toast={toast}
    >
      {showCreate ? <CreateTeamDialog lastResult={actionData?.result} /> : null}
    </ListPage>
  )
}

function CreateTeamDialog({ lastResult }: { lastResult: SubmissionResult<string[]> | undefined }) {
  const navigation = useNavigation()
  const creating = navigation.state === 'submitting'
  const [form, fields] = useSchemaForm(CreateTeamSchema, {
    id: 'team-create',
    lastResult,
    // Errors sit above the Save button: revalidating on blur would move it from under the click.
    shouldRevalidate: 'onInput',
    defaultValue: { icon: DEFAULT_TEAM_ICON, spec: '{}' },
  })
  const { key: specKey, ...specProps } = getTextareaProps(fields.spec)
  return (
    <Modal title="Add Team" closeTo="/settings/teams" size="very-small" expandable={false} testId="team-create-dialog">
      <Form method="post" action="/settings/teams?dialog=new" {...getFormProps(form)} className="flex flex-col gap-3" data-testid="team-create-form">
        <InlineError message={form.errors?.join(' ')} />
        <Field labelProps={{ htmlFor: fields.name.id, children: 'Name' }} inputProps={getInputProps(fields.name, { type: 'text' })} errors={fields.name.errors} />
        <Field labelProps={{ htmlFor: fields.icon.id, children: 'Icon' }} inputProps={getInputProps(fields.icon, { type: 'text' })} errors={fields.icon.errors} />
        <div className="flex flex-col gap-1.5">
          <Label htmlFor={fields.spec.id}>Spec (JSON)</Label>
          <textarea key={specKey} {...specProps} rows={6} className="rounded-md border bg-background p-2 font-mono text-xs" />
          <ErrorList id={fields.spec.errorId} errors={fields.spec.errors} />
        </div>
        <div className="flex justify-end">
          <button type="submit" disabled={creating} className={buttonVariants({ size: 'sm' })} data-testid="team-create-submit">
            {creating ? 'Saving...' : 'Save'}
          </button>
        </div>
      </Form>
    </Modal>
  )
}

export function ErrorBoundary() {
  return <GeneralErrorBoundary />
}
