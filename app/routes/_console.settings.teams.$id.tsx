import { getFormProps, getInputProps, getTextareaProps, type SubmissionResult } from '@conform-to/react'
import { parseWithZod } from '@conform-to/zod'
import { data, redirect, type ActionFunctionArgs, type LoaderFunctionArgs } from '@remix-run/node'
import { Form, Link, useActionData, useLoaderData, useNavigation } from '@remix-run/react'
import { lazy, Suspense } from 'react'
import { z } from 'zod'
import { requireSettingsAccess } from '#app/components/access/require-settings-access.server.ts'
import { TeamSpecShape } from '#app/components/access/access-form-shapes.ts'
import { memberRemovedMessage, membersAddedMessage, TeamActionSchema, type TeamAction } from '#app/components/access/team-form.ts'
import { AddMembersDialog as ServerRenderedAddMembersDialog } from '#app/components/access/add-members-dialog.tsx'
import { JobsTab as ServerRenderedJobsTab, MembersTab as ServerRenderedMembersTab } from '#app/components/access/team-tabs.tsx'
import { ConfirmDialog as ServerRenderedConfirmDialog } from '#app/components/confirm-dialog/confirm-dialog.tsx'
import { GeneralErrorBoundary } from '#app/components/error-boundary.tsx'
import { ErrorList, Field } from '#app/components/forms.tsx'
import { InlineError } from '#app/components/inline-error.tsx'
import { Toast } from '#app/components/toast.tsx'
import { Badge } from '#app/components/ui/badge.tsx'
import { buttonVariants } from '#app/components/ui/button.tsx'
import { Trash2 } from '#app/components/ui/icons.tsx'
import { Input } from '#app/components/ui/input.tsx'
import { Label } from '#app/components/ui/label.tsx'
import { useSchemaForm } from '#app/components/use-schema-form.ts'
import { parseTeamSearch } from '#app/lib/team-search.ts'
import { hasAccess } from '#app/lib/access.ts'
import { cn } from '#app/lib/cn.ts'
import { GatewayError, type ApiArgs } from '#app/lib/gateway.server.ts'
import type { RouteHandle } from '#app/lib/route-handle.ts'
import { errorResponse } from '#app/lib/session.server.ts'
import {
  addTeamMembers,
  findPeopleByIds,
  findTeam,
  listTeamJobs,
  listTeamMembership,
  removeTeamMember,
  softDeleteTeam,
  updateTeamSpec,
  type Team,
  type TeamJob,
  type TeamPerson,
} from '#app/lib/teams.server.ts'
import { readToast, toastCookie } from '#app/lib/toast.server.ts'
import { isUuid } from '#contract/uuid.ts'

// The tables of the Members and Job History tabs and the dialogs show only when the URL (or a
// refused post) asks for them, so they load then; the server renders them in place, so the no-JS
// page and hydration see the same markup (decisions 007, 014).
const MembersTab = import.meta.env.SSR
  ? ServerRenderedMembersTab
  : /* @__PURE__ */ lazy(() => import('#app/components/access/team-tabs.tsx').then((module) => ({ default: module.MembersTab })))
const JobsTab = import.meta.env.SSR
  ? ServerRenderedJobsTab
  : /* @__PURE__ */ lazy(() => import('#app/components/access/team-tabs.tsx').then((module) => ({ default: module.JobsTab })))
const AddMembersDialog = import.meta.env.SSR
  ? ServerRenderedAddMembersDialog
  : /* @__PURE__ */ lazy(() => import('#app/components/access/add-members-dialog.tsx').then((module) => ({ default: module.AddMembersDialog })))
const ConfirmDialog = import.meta.env.SSR
  ? ServerRenderedConfirmDialog
  : /* @__PURE__ */ lazy(() => import('#app/components/confirm-dialog/confirm-dialog.tsx').then((module) => ({ default: module.ConfirmDialog })))

export const handle = {
  title: (data) => (data && typeof data === 'object' && 'team' in data ? `Teams / ${(data as { team: { name: string } }).team.name}` : 'Teams'),
  feature: 'settings.teams',
  resource: 'database',
} satisfies RouteHandle

const TABS = [
  { id: 'spec', label: 'Spec' },
  { id: 'members', label: 'Members' },
  { id: 'jobs', label: 'Job History' },
] as const

function failure(error: unknown): string {
  if (error instanceof GatewayError) return error.message
  throw error
}

async function loadTeam(args: ApiArgs, id: string | undefined): Promise<Team> {
  if (!id || !isUuid(id)) throw errorResponse(404, { message: 'No such team' })
  const team = await findTeam(args, id)
  if (!team) throw errorResponse(404, { message: 'No such team' })
  return team
}

function isReadOnly(team: Pick<Team, 'source'>): boolean {
  return Boolean(team.source && team.source !== 'UI')
}

export async function loader(args: LoaderFunctionArgs) {
  const session = await requireSettingsAccess(args, handle)
  const { toast, headers } = readToast(args.request)
  const team = await loadTeam(args, args.params.id)
  const { tab, dialog } = parseTeamSearch(new URL(args.request.url).searchParams)
  let members: TeamPerson[] = []
  let candidates: TeamPerson[] = []
  let jobs: TeamJob[] = []
  let loadError: string | null = null
  try {
    if (tab === 'members') ({ members, candidates } = await listTeamMembership(args, team.id))
    else if (tab === 'jobs') jobs = await listTeamJobs(args, team.id)
  } catch (error) {
    loadError = failure(error)
  }
  const canWrite = hasAccess(session, 'database', 'write')
  return data({ team, tab, dialog, members, candidates, jobs, loadError, toast, canWrite }, { headers })
}

/** Why a request was refused, and the field it is about ('' for the form as a whole). */
class TeamRefusal extends Error {
  constructor(
    message: string,
    readonly path: string[] = [],
  ) {
    super(message)
  }
}

/**
 * Each form on the page names its `intent`, parsed as one discriminated union; a refusal (a
 * read-only team, people gone meanwhile, the API's answer) comes back as an issue of the form
 * that sent it, a success redirects (303) with a toast.
 */
export async function action(args: ActionFunctionArgs) {
  await requireSettingsAccess(args, { ...handle, access: 'write' })
  const team = await loadTeam(args, args.params.id)
  const formData = await args.request.formData()
  const submission = await parseWithZod(formData, {
    async: true,
    schema: TeamActionSchema.transform(async (action, ctx) => {
      try {
        return await runTeamAction(args, team, action)
      } catch (error) {
        const refusal = error instanceof TeamRefusal ? error : new TeamRefusal(failure(error))
        ctx.addIssue({ code: z.ZodIssueCode.custom, path: refusal.path, message: refusal.message })
        return z.NEVER
      }
    }),
  })
  if (submission.status !== 'success') {
    return data({ intent: String(formData.get('intent') ?? ''), result: submission.reply() }, { status: 400 })
  }
  throw redirect(submission.value.to, { status: 303, headers: { 'set-cookie': toastCookie(submission.value.toast) } })
}

/** Does what the form asked; answers where to go next and the toast. */
async function runTeamAction(args: ApiArgs, team: Team, action: TeamAction): Promise<{ to: string; toast: string }> {
  const base = `/settings/teams/${team.id}`
  switch (action.intent) {
    case 'save':
      if (isReadOnly(team)) throw new TeamRefusal(`This team comes from ${team.source} and cannot be edited here.`)
      // The name stays as it is once the team exists (spec 002 §2).
      await updateTeamSpec(args, team.id, { icon: action.icon, spec: action.spec })
      return { to: base, toast: `${team.name} updated successfully` }
    case 'delete':
      if (isReadOnly(team)) throw new TeamRefusal(`This team comes from ${team.source} and cannot be deleted here.`)
      await softDeleteTeam(args, team.id)
      return { to: '/settings/teams', toast: `${team.name} deleted successfully` }
    case 'add-members': {
      const found = await findPeopleByIds(args, action.person_id)
      if (found.length !== action.person_id.length) throw new TeamRefusal('Some of the chosen people no longer exist.', ['person_id'])
      await addTeamMembers(args, team.id, action.person_id)
      const names = action.person_id.map((id) => found.find((person) => person.id.toLowerCase() === id)?.name ?? id)
      return { to: `${base}?tab=members`, toast: membersAddedMessage(names) }
    }
    case 'remove-member':
      await removeTeamMember(args, team.id, action.person_id)
      return { to: `${base}?tab=members`, toast: memberRemovedMessage(action.name || 'The member') }
  }
}

/** Forms whose fields show their own errors; the others' refusals show above the tabs' content. */
const FIELD_FORMS = new Set(['save', 'add-members'])

export default function TeamRoute() {
  const { team, tab, dialog, members, candidates, jobs, loadError, toast, canWrite } = useLoaderData<typeof loader>()
  const actionData = useActionData<typeof action>()
  const resultOf = (intent: string): SubmissionResult<string[]> | undefined => (actionData?.intent === intent ? actionData.result : undefined)
  const pageError = actionData && !FIELD_FORMS.has(actionData.intent) ? Object.values(actionData.result.error ?? {}).flat().find(Boolean) : null
  const readOnly = isReadOnly(team)
  const showAdd = canWrite && tab === 'members' && (dialog === 'add-members' || actionData?.intent === 'add-members')

  return (
    <section className="flex flex-col gap-4 p-6" data-testid="team-page">
      <nav aria-label="Breadcrumb" className="text-sm text-muted-foreground">
        <Link to="/settings/teams" className="hover:text-foreground hover:underline">
          Teams
        </Link>
        <span aria-hidden="true"> / </span>
        <span aria-current="page" className="text-foreground" data-testid="team-name">
          {team.name}
        </span>
        {team.source ? (
          <Badge variant="outline" className="ml-2">
            {team.source}
          </Badge>
        ) : null}
      </nav>
      <nav aria-label="Team tabs" className="flex gap-1 border-b" data-testid="team-tabs">
        {TABS.map((entry) => (
          <Link
            key={entry.id}
            to={`?tab=${entry.id}`}
            preventScrollReset
            aria-current={tab === entry.id ? 'page' : undefined}
            className={cn('-mb-px border-b-2 px-3 py-2 text-sm', tab === entry.id ? 'border-primary font-medium' : 'border-transparent text-muted-foreground hover:text-foreground')}
            data-testid={`tab-${entry.id}`}
          >
            {entry.label}
          </Link>
        ))}
      </nav>
      <InlineError message={loadError ?? pageError} />
      {tab === 'spec' ? <SpecForm key={team.updated_at ?? ''} team={team} editable={canWrite && !readOnly} lastResult={resultOf('save')} /> : null}
      {tab === 'members' ? (
        <Suspense fallback={null}>
          <MembersTab members={members} canWrite={canWrite} />
        </Suspense>
      ) : null}
      {tab === 'jobs' ? (
        <Suspense fallback={null}>
          <JobsTab jobs={jobs} />
        </Suspense>
      ) : null}
      {showAdd ? (
        <Suspense fallback={null}>
          <AddMembersDialog teamId={team.id} candidates={candidates} lastResult={resultOf('add-members')} />
        </Suspense>
      ) : null}
      {dialog === 'delete' && canWrite && !readOnly ? (
        <Suspense fallback={null}>
          <ConfirmDialog
            title={`Delete ${team.name}`}
            description="Are you sure you want to delete this resource?"
            closeTo={`/settings/teams/${team.id}`}
            fields={{ intent: 'delete' }}
            action={`/settings/teams/${team.id}`}
            testId="delete-team-dialog"
          />
        </Suspense>
      ) : null}
      <Toast message={toast} />
    </section>
  )
}

function SpecForm({ team, editable, lastResult }: { team: Team; editable: boolean; lastResult: SubmissionResult<string[]> | undefined }) {
  const navigation = useNavigation()
  const saving = navigation.state === 'submitting' && navigation.formData?.get('intent') === 'save'
  const [form, fields] = useSchemaForm(TeamSpecShape, {
    id: 'team-spec',
    lastResult,
    defaultValue: { icon: team.icon ?? '', spec: JSON.stringify(team.spec ?? {}, null, 2) },
  })
  const { key: specKey, ...specProps } = getTextareaProps(fields.spec)
  return (
    <Form method="post" {...getFormProps(form)} className="flex max-w-2xl flex-col gap-3" data-testid="team-spec-form">
      <input type="hidden" name="intent" value="save" />
      {!editable && isReadOnly(team) ? (
        <p className="text-sm text-muted-foreground" data-testid="team-source">
          This team was created from {team.source} and is read-only here.
        </p>
      ) : null}
      <InlineError message={form.errors?.join(' ')} />
      <div className="flex flex-col gap-1.5">
        <Label htmlFor="team-name">Name</Label>
        <Input id="team-name" value={team.name} readOnly disabled />
      </div>
      <Field labelProps={{ htmlFor: fields.icon.id, children: 'Icon' }} inputProps={{ ...getInputProps(fields.icon, { type: 'text' }), readOnly: !editable }} errors={fields.icon.errors} />
      <div className="flex flex-col gap-1.5">
        <Label htmlFor={fields.spec.id}>Spec (JSON)</Label>
        <textarea
          key={specKey}
          {...specProps}
          rows={12}
          readOnly={!editable}
          className="rounded-md border border-input bg-background p-2 font-mono text-xs aria-[invalid=true]:border-danger"
          data-testid="team-spec"
        />
        <ErrorList id={fields.spec.errorId} errors={fields.spec.errors} />
      </div>
      {editable ? (
        <div className="flex justify-between gap-2">
          <Link to="?dialog=delete" preventScrollReset className={buttonVariants({ variant: 'destructive', size: 'sm' })} data-testid="team-delete">
            <Trash2 aria-hidden="true" />
            Delete
          </Link>
          <button type="submit" disabled={saving} className={buttonVariants({ size: 'sm' })} data-testid="team-save">
            {saving ? 'Saving...' : 'Save'}
          </button>
        </div>
      ) : null}
    </Form>
  )
}

export function ErrorBoundary() {
  return <GeneralErrorBoundary />
}
