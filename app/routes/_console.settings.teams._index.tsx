import { parseWithZod } from '@conform-to/zod'
import { data, redirect, type ActionFunctionArgs, type LoaderFunctionArgs } from '@remix-run/node'
import { Link, useActionData, useLoaderData, useSearchParams } from '@remix-run/react'
import { lazy, Suspense } from 'react'
import { z } from 'zod'
import type { DataColumn } from '#app/components/data-table/data-table.tsx'
import { requireSettingsAccess } from '#app/components/access/require-settings-access.server.ts'
import { CreateTeamDialog as ServerRenderedCreateTeamDialog } from '#app/components/access/create-team-dialog.tsx'
import { CreateTeamSchema } from '#app/components/access/team-form.ts'
import { DateTime } from '#app/components/date-time.tsx'
import { GeneralErrorBoundary } from '#app/components/error-boundary.tsx'
import { ListPage } from '#app/components/list-page/list-page.tsx'
import { hasAccess } from '#app/lib/access.ts'
import { GatewayError } from '#app/lib/gateway.server.ts'
import type { RouteHandle } from '#app/lib/route-handle.ts'
import { createTeam, listTeamsWithMemberCounts, type TeamListRow } from '#app/lib/teams.server.ts'
import { readToast, toastCookie } from '#app/lib/toast.server.ts'

// The create dialog (and the form library with it) loads when it opens; the server renders it in
// place, so the no-JS page and hydration see the same markup (decisions 007, 014).
const CreateTeamDialog = import.meta.env.SSR
  ? ServerRenderedCreateTeamDialog
  : /* @__PURE__ */ lazy(() => import('#app/components/access/create-team-dialog.tsx').then((module) => ({ default: module.CreateTeamDialog })))

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

const columns: DataColumn<TeamListRow>[] = [
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
      {showCreate ? (
        <Suspense fallback={null}>
          <CreateTeamDialog lastResult={actionData?.result} />
        </Suspense>
      ) : null}
    </ListPage>
  )
}

export function ErrorBoundary() {
  return <GeneralErrorBoundary />
}
