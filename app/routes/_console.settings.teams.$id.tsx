import { data, redirect, type ActionFunctionArgs, type LoaderFunctionArgs } from '@remix-run/node'
import { Form, Link, useActionData, useLoaderData, useNavigation, useSearchParams } from '@remix-run/react'
import { Trash2, UserPlus } from '#app/components/ui/icons.tsx'
import { requireSettingsAccess } from '#app/components/access/require-settings-access.server.ts'
import { memberRemovedMessage, membersAddedMessage, readTeamForm } from '#app/components/access/team-form.ts'
import { ConfirmDialog } from '#app/components/confirm-dialog/confirm-dialog.tsx'
import { GeneralErrorBoundary } from '#app/components/error-boundary.tsx'
import { ErrorList } from '#app/components/forms.tsx'
import { InlineError } from '#app/components/inline-error.tsx'
import { Modal } from '#app/components/modal/modal.tsx'
import { Toast } from '#app/components/toast.tsx'
import { Badge } from '#app/components/ui/badge.tsx'
import { buttonVariants } from '#app/components/ui/button.tsx'
import { Input } from '#app/components/ui/input.tsx'
import { Label } from '#app/components/ui/label.tsx'
import { Table, TableBody, TableCell, TableHead, TableHeader, TableRow } from '#app/components/ui/table.tsx'
import { hasAccess } from '#app/lib/access.ts'
import { cn } from '#app/lib/cn.ts'
import { GatewayError, type ApiArgs } from '#app/lib/gateway.server.ts'
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
  type TeamJob as Job,
  type TeamPerson as Person,
} from '#app/lib/teams.server.ts'
import type { RouteHandle } from '#app/lib/route-handle.ts'
import { errorResponse } from '#app/lib/session.server.ts'
import { readToast, toastCookie } from '#app/lib/toast.server.ts'

export const handle = {
  title: (data) => (data && typeof data === 'object' && 'team' in data ? `Teams / ${(data as { team: { name: string } }).team.name}` : 'Teams'),
  feature: 'settings.teams',
  resource: 'database',
} satisfies RouteHandle

const UUID = /^[0-9a-f]{8}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{12}$/i
const TABS = [
  { id: 'spec', label: 'Spec' },
  { id: 'members', label: 'Members' },
  { id: 'jobs', label: 'Job History' },
] as const
type Tab = (typeof TABS)[number]['id']


function failure(error: unknown): string {
  if (error instanceof GatewayError) return error.message
  throw error
}

async function loadTeam(args: ApiArgs, id: string | undefined): Promise<Team> {
  if (!id || !UUID.test(id)) throw errorResponse(404, { message: 'No such team' })
  const team = await findTeam(args, id)
  if (!team) throw errorResponse(404, { message: 'No such team' })
  return team
}

function tabOf(value: string | null): Tab {
  return TABS.some((tab) => tab.id === value) ? (value as Tab) : 'spec'
}

export async function loader(args: LoaderFunctionArgs) {
  const session = await requireSettingsAccess(args, handle)
  const { toast, headers } = readToast(args.request)
  const team = await loadTeam(args, args.params.id)
  const url = new URL(args.request.url)
  const tab = tabOf(url.searchParams.get('tab'))
  let members: Person[] = []
  let candidates: Person[] = []
  let jobs: Job[] = []
  let loadError: string | null = null
  try {
    if (tab === 'members') {
      const membership = await listTeamMembership(args, team.id)
      members = membership.members
      candidates = membership.candidates
    } else if (tab === 'jobs') {
      jobs = await listTeamJobs(args, team.id)
    }
  } catch (error) {
    loadError = failure(error)
  }
  const canWrite = hasAccess(session, 'database', 'write')
  return data({ team, tab, members, candidates, jobs, loadError, toast, canWrite }, { headers })
}

type ActionResult = { intent: string; error?: string; errors?: Record<string, string> }

export async function action(args: ActionFunctionArgs) {
  await requireSettingsAccess(args, { ...handle, access: 'write' })
  const team = await loadTeam(args, args.params.id)
  const base = `/settings/teams/${team.id}`
  const form = await args.request.formData()
  const intent = String(form.get('intent') ?? '')
  const readOnly = Boolean(team.source && team.source !== 'UI')
  try {
    switch (intent) {
      case 'save': {
        if (readOnly) return data<ActionResult>({ intent, error: `This team comes from ${team.source} and cannot be edited here.` }, { status: 400 })
        const { errors, row } = readTeamForm(form, { requireName: false })
        if (!row) return data<ActionResult>({ intent, errors }, { status: 400 })
        // Name stays as it is once the team exists (spec 002 §2).
        await updateTeamSpec(args, team.id, row)
        throw redirect(base, { headers: { 'set-cookie': toastCookie(`${team.name} updated successfully`) } })
      }
      case 'delete': {
        if (readOnly) return data<ActionResult>({ intent, error: `This team comes from ${team.source} and cannot be deleted here.` }, { status: 400 })
        await softDeleteTeam(args, team.id)
        throw redirect('/settings/teams', { headers: { 'set-cookie': toastCookie(`${team.name} deleted successfully`) } })
      }
      case 'add-members': {
        const ids = [...new Set(form.getAll('person_id').map(String))].filter((id) => UUID.test(id))
        if (ids.length === 0) return data<ActionResult>({ intent, error: 'Choose at least one person to add.' }, { status: 400 })
        const found = await findPeopleByIds(args, ids)
        if (found.length !== ids.length) return data<ActionResult>({ intent, error: 'Some of the chosen people no longer exist.' }, { status: 400 })
        await addTeamMembers(args, team.id, ids)
        const names = ids.map((id) => found.find((person) => person.id === id)?.name ?? id)
        throw redirect(`${base}?tab=members`, { headers: { 'set-cookie': toastCookie(membersAddedMessage(names)) } })
      }
      case 'remove-member': {
        const personId = String(form.get('person_id') ?? '')
        const name = String(form.get('name') ?? 'The member')
        if (!UUID.test(personId)) return data<ActionResult>({ intent, error: 'No member was chosen.' }, { status: 400 })
        await removeTeamMember(args, team.id, personId)
        throw redirect(`${base}?tab=members`, { headers: { 'set-cookie': toastCookie(memberRemovedMessage(name)) } })
      }
      default:
        return data<ActionResult>({ intent, error: 'Unknown request.' }, { status: 400 })
    }
  } catch (error) {
    if (error instanceof Response) throw error
    return data<ActionResult>({ intent, error: failure(error) }, { status: 400 })
  }
}

function SpecTab({ team, canWrite, readOnly, errors }: { team: Team; canWrite: boolean; readOnly: boolean; errors: Record<string, string> }) {
  const navigation = useNavigation()
  const saving = navigation.state === 'submitting' && navigation.formData?.get('intent') === 'save'
  const editable = canWrite && !readOnly
  return (
    <Form method="post" className="flex max-w-2xl flex-col gap-3" data-testid="team-spec-form" noValidate>
      <input type="hidden" name="intent" value="save" />
      {readOnly ? (
        <p className="text-sm text-muted-foreground" data-testid="team-source">
          This team was created from {team.source} and is read-only here.
        </p>
      ) : null}
      <div className="flex flex-col gap-1.5">
        <Label htmlFor="team-name">Name</Label>
        <Input id="team-name" value={team.name} readOnly disabled />
      </div>
      <div className="flex flex-col gap-1.5">
        <Label htmlFor="team-icon">Icon</Label>
        <Input id="team-icon" name="icon" defaultValue={team.icon ?? ''} readOnly={!editable} />
      </div>
      <div className="flex flex-col gap-1.5">
        <Label htmlFor="team-spec">Spec (JSON)</Label>
        <textarea
          id="team-spec"
          name="spec"
          rows={12}
          defaultValue={JSON.stringify(team.spec ?? {}, null, 2)}
          readOnly={!editable}
          className="rounded-md border bg-background p-2 font-mono text-xs"
        />
        <ErrorList errors={[errors.spec]} />
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

function MembersTab({ members, canWrite }: { members: Person[]; canWrite: boolean }) {
  return (
    <div className="flex flex-col gap-3" data-testid="team-members">
      {canWrite ? (
        <div className="flex justify-end">
          <Link to="?tab=members&dialog=add-members" preventScrollReset className={buttonVariants({ size: 'sm' })} data-testid="add-members">
            <UserPlus aria-hidden="true" />
            Add Members
          </Link>
        </div>
      ) : null}
      {members.length === 0 ? (
        <p className="py-6 text-center text-sm text-muted-foreground" data-testid="members-empty">
          You haven't added any team members to the team yet.
        </p>
      ) : (
        <Table data-testid="members-table">
          <TableHeader>
            <TableRow>
              <TableHead>Name</TableHead>
              <TableHead>Email</TableHead>
              <TableHead className="w-12" />
            </TableRow>
          </TableHeader>
          <TableBody>
            {members.map((member) => (
              <TableRow key={member.id} data-testid="member-row">
                <TableCell>{member.name}</TableCell>
                <TableCell>{member.email ?? ''}</TableCell>
                <TableCell>
                  {canWrite ? (
                    <Form method="post">
                      <input type="hidden" name="intent" value="remove-member" />
                      <input type="hidden" name="person_id" value={member.id} />
                      <input type="hidden" name="name" value={member.name} />
                      <button type="submit" aria-label={`Remove ${member.name}`} className={buttonVariants({ variant: 'ghost', size: 'icon' })} data-testid="remove-member">
                        <Trash2 aria-hidden="true" />
                      </button>
                    </Form>
                  ) : null}
                </TableCell>
              </TableRow>
            ))}
          </TableBody>
        </Table>
      )}
    </div>
  )
}

function JobsTab({ jobs }: { jobs: Job[] }) {
  return (
    <Table data-testid="team-jobs">
      <TableHeader>
        <TableRow>
          <TableHead>Name</TableHead>
          <TableHead>Status</TableHead>
          <TableHead>Started</TableHead>
          <TableHead>Duration</TableHead>
          <TableHead>Success</TableHead>
          <TableHead>Errors</TableHead>
        </TableRow>
      </TableHeader>
      <TableBody>
        {jobs.length === 0 ? (
          <TableRow>
            <TableCell colSpan={6} className="text-center text-muted-foreground">
              No data available
            </TableCell>
          </TableRow>
        ) : (
          jobs.map((job) => (
            <TableRow key={job.id}>
              <TableCell>{job.name ?? ''}</TableCell>
              <TableCell>{job.status ?? ''}</TableCell>
              <TableCell className="whitespace-nowrap">{(job.time_start ?? '').slice(0, 19).replace('T', ' ')}</TableCell>
              <TableCell>{job.duration_millis != null ? `${job.duration_millis} ms` : ''}</TableCell>
              <TableCell>{job.success_count ?? 0}</TableCell>
              <TableCell>{job.error_count ?? 0}</TableCell>
            </TableRow>
          ))
        )}
      </TableBody>
    </Table>
  )
}

export default function TeamRoute() {
  const { team, tab, members, candidates, jobs, loadError, toast, canWrite } = useLoaderData<typeof loader>()
  const actionData = useActionData<typeof action>()
  const [searchParams] = useSearchParams()
  const navigation = useNavigation()
  const dialog = searchParams.get('dialog')
  const readOnly = Boolean(team.source && team.source !== 'UI')
  const adding = navigation.state === 'submitting' && navigation.formData?.get('intent') === 'add-members'
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
      <InlineError message={loadError ?? actionData?.error} />
      {tab === 'spec' ? <SpecTab team={team} canWrite={canWrite} readOnly={readOnly} errors={actionData?.errors ?? {}} /> : null}
      {tab === 'members' ? <MembersTab members={members} canWrite={canWrite} /> : null}
      {tab === 'jobs' ? <JobsTab jobs={jobs} /> : null}
      {showAdd ? (
        <Modal title="Add Members" closeTo="?tab=members" size="very-small" expandable={false} testId="add-members-dialog">
          <Form method="post" action={`/settings/teams/${team.id}?tab=members&dialog=add-members`} className="flex flex-col gap-3" data-testid="add-members-form">
            <input type="hidden" name="intent" value="add-members" />
            {candidates.length === 0 ? (
              <p className="text-sm text-muted-foreground">Everyone is in this team already.</p>
            ) : (
              <fieldset className="flex max-h-72 flex-col gap-1 overflow-y-auto rounded-md border p-2">
                <legend className="sr-only">People</legend>
                {candidates.map((person) => (
                  <label key={person.id} className="flex items-center gap-2 text-sm">
                    <input type="checkbox" name="person_id" value={person.id} data-email={person.email ?? ''} />
                    <span>{person.name}</span>
                    {person.email ? <span className="truncate text-xs text-muted-foreground">{person.email}</span> : null}
                  </label>
                ))}
              </fieldset>
            )}
            <div className="flex justify-end">
              <button type="submit" disabled={adding || candidates.length === 0} className={buttonVariants({ size: 'sm' })} data-testid="add-members-submit">
                {adding ? 'Adding...' : 'Add'}
              </button>
            </div>
          </Form>
        </Modal>
      ) : null}
      {dialog === 'delete' && canWrite && !readOnly ? (
        <ConfirmDialog
          title={`Delete ${team.name}`}
          description="Are you sure you want to delete this resource?"
          closeTo={`/settings/teams/${team.id}`}
          fields={{ intent: 'delete' }}
          action={`/settings/teams/${team.id}`}
          testId="delete-team-dialog"
        />
      ) : null}
      <Toast message={toast} />
    </section>
  )
}

export function ErrorBoundary() {
  return <GeneralErrorBoundary />
}
