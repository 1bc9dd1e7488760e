import { data, redirect, type ActionFunctionArgs, type LoaderFunctionArgs } from '@remix-run/node'
import { Form, Link, useActionData, useLoaderData } from '@remix-run/react'
import { Trash2, UserPlus } from '#app/components/ui/icons.tsx'
import { GeneralErrorBoundary } from '#app/components/error-boundary.tsx'
import { ErrorList } from '#app/components/forms.tsx'
import { HypothesisTree } from '#app/components/incidents/hypothesis-tree.tsx'
import { IncidentStatusBadge, SeverityBadge } from '#app/components/incidents/incident-badges.tsx'
import { SELECT_CLASS, SEVERITY_OPTIONS, TYPE_OPTIONS } from '#app/components/incidents/incident-fields.tsx'
import { InlineError } from '#app/components/inline-error.tsx'
import { Toast } from '#app/components/toast.tsx'
import { Button } from '#app/components/ui/button.tsx'
import { hasAccess } from '#app/lib/access.ts'
import {
  describeHistory,
  formatTimestamp,
  HYPOTHESIS_TYPES,
  INCIDENT_STATUSES,
  isHypothesisStatus,
  isIncidentStatus,
  isIncidentType,
  isSeverityOption,
  isUuid,
  labelOf,
  REQUIRED_MESSAGE,
  SEVERITY_REQUIRED,
  TYPE_REQUIRED,
} from '#app/lib/incidents.ts'
import { createHypothesis, findResponderId, getIncidentDetail, getWriteErrorMessage, listPeople, listTeams, patchRow, postRow } from '#app/lib/incidents.server.ts'
import type { RouteHandle } from '#app/lib/route-handle.ts'
import { errorResponse, requireAccess, toErrorResponse } from '#app/lib/session.server.ts'
import { readToast, toastCookie } from '#app/lib/toast.server.ts'

export const handle = {
  title: (data) => {
    const incident = (data as { detail?: { incident?: { incident_id?: string; title?: string } } } | undefined)?.detail?.incident
    return incident ? `${incident.incident_id}: ${incident.title}` : 'Incident'
  },
  feature: 'incidents',
  resource: 'incident',
} satisfies RouteHandle

export async function loader(args: LoaderFunctionArgs) {
  const session = await requireAccess(args, handle)
  const id = args.params.id ?? ''
  const { toast, headers } = readToast(args.request)
  try {
    const [detail, people, teams] = await Promise.all([getIncidentDetail(args, id), listPeople(args), listTeams(args)])
    if (!detail) throw errorResponse(404, { message: 'Incident not found' })
    return data({ detail, people, teams, toast, canWrite: hasAccess(session, 'incident', 'write') }, { headers })
  } catch (error) {
    throw toErrorResponse(error)
  }
}

type ActionError = { intent: string; target?: string; message: string }

/** Each form on the page names its `intent`; a success redirects back (303) so a reload never re-posts. */
export async function action(args: ActionFunctionArgs) {
  const session = await requireAccess(args, { ...handle, access: 'write' })
  const incidentId = args.params.id ?? ''
  if (!isUuid(incidentId)) throw errorResponse(404, { message: 'Incident not found' })
  const form = await args.request.formData()
  const field = (name: string) => String(form.get(name) ?? '').trim()
  const intent = field('intent')
  const fail = (message: string, target?: string) => data({ error: { intent, target, message } satisfies ActionError }, { status: 400 })
  const back = (message: string) => redirect(`/incidents/${incidentId}`, { status: 303, headers: { 'set-cookie': toastCookie(message) } })
  const userId = session.user.id

  try {
    switch (intent) {
      case 'status': {
        const status = field('status')
        if (!isIncidentStatus(status)) return fail(`Status must be one of ${INCIDENT_STATUSES.join(', ')}`)
        const now = new Date().toISOString()
        await patchRow(args, 'incidents', incidentId, { status, ...(status === 'resolved' ? { resolved: now } : status === 'closed' ? { closed: now } : {}) })
        return back(`Status changed to ${labelOf(status)}`)
      }
      case 'details': {
        const severity = field('severity')
        const type = field('type')
        if (!isSeverityOption(severity) && severity !== 'medium') return fail(SEVERITY_REQUIRED, 'severity')
        if (!isIncidentType(type)) return fail(TYPE_REQUIRED, 'type')
        const person = (name: string) => (isUuid(field(name)) ? field(name) : null)
        await patchRow(args, 'incidents', incidentId, { severity, type, commander_id: person('commander_id'), communicator_id: person('communicator_id') })
        return back('Incident updated successfully')
      }
      case 'add-responder': {
        const [kind, id] = field('responder').split(':')
        if (!isUuid(id) || (kind !== 'person' && kind !== 'team')) return fail(REQUIRED_MESSAGE, 'responder')
        // A team is reached through its own channel; the reference stores those as email responders.
        await postRow(args, 'responders', kind === 'person' ? { incident_id: incidentId, type: 'person', person_id: id, created_by: userId } : { incident_id: incidentId, type: 'email', team_id: id, created_by: userId })
        return back('Responder added successfully')
      }
      case 'remove-responder': {
        const id = field('id')
        if (!isUuid(id)) return fail('Unknown responder', 'responder')
        await patchRow(args, 'responders', id, { deleted_at: 'now()' })
        return back('Responder removed successfully')
      }
      case 'add-hypothesis': {
        const title = field('title')
        const type = field('type')
        const parentId = field('parent_id')
        const target = parentId || 'root'
        if (!title) return fail(REQUIRED_MESSAGE, target)
        if (!(HYPOTHESIS_TYPES as readonly string[]).includes(type)) return fail(`Type must be one of ${HYPOTHESIS_TYPES.join(', ')}`, target)
        try {
          await createHypothesis(args, userId, { incidentId, title, type, parentId: parentId || null, status: 'possible' })
        } catch (error) {
          const message = getWriteErrorMessage(error)
          if (!message) throw error
          return fail(message, target)
        }
        return back(`${labelOf(type)} added successfully`)
      }
      case 'hypothesis-status': {
        const id = field('id')
        const status = field('status')
        if (!isUuid(id)) return fail('Unknown hypothesis')
        if (!isHypothesisStatus(status)) return fail('Pick a hypothesis status', id)
        await patchRow(args, 'hypotheses', id, { status })
        return back('Hypothesis updated successfully')
      }
      case 'evidence-dod':
      case 'evidence-done': {
        const id = field('id')
        if (!isUuid(id)) return fail('Unknown evidence')
        const value = field('value') === 'true'
        await patchRow(args, 'evidences', id, intent === 'evidence-dod' ? { definition_of_done: value, ...(value ? {} : { done: false }) } : { done: value })
        return back('Evidence updated successfully')
      }
      case 'comment': {
        const comment = field('comment')
        if (!comment) return fail(REQUIRED_MESSAGE, 'comment')
        // A comment by one of the incident's responders is attributed to that responder, which
        // is what puts it on the timeline (the trigger writes responder.commented only then).
        const responderId = await findResponderId(args, incidentId, userId)
        await postRow(args, 'comments', { incident_id: incidentId, comment, created_by: userId, ...(responderId ? { responder_id: responderId } : {}) })
        return back('Comment added successfully')
      }
      default:
        return fail('Unknown action')
    }
  } catch (error) {
    const message = getWriteErrorMessage(error)
    if (!message) throw error
    return fail(message)
  }
}

export default function IncidentDetailRoute() {
  const { detail, people, teams, toast, canWrite } = useLoaderData<typeof loader>()
  const actionData = useActionData<typeof action>()
  const error = actionData?.error ?? null
  const { incident } = detail
  const untargeted = error && !error.target ? error.message : null

  return (
    <div className="flex flex-col gap-6 p-6" data-testid="incident-page">
      <nav aria-label="Breadcrumb" className="text-sm text-muted-foreground">
        <Link to="/incidents" className="hover:text-foreground hover:underline">
          Incidents
        </Link>{' '}
        / <span className="font-mono text-xs text-foreground">{incident.incident_id}</span>
      </nav>
      <header className="flex flex-col gap-3 rounded-lg border bg-card p-4" data-testid="incident-header">
        <div className="flex flex-wrap items-center gap-2">
          <h1 className="text-lg font-semibold" data-testid="incident-title">
            {incident.title}
          </h1>
          <SeverityBadge severity={incident.severity} />
          <IncidentStatusBadge status={incident.status} />
          <span className="text-sm text-muted-foreground">{labelOf(incident.type)}</span>
        </div>
        {incident.description ? <p className="text-sm text-muted-foreground">{incident.description}</p> : null}
        <dl className="grid grid-cols-2 gap-x-6 gap-y-1 text-sm sm:grid-cols-4">
          <dt className="text-muted-foreground">Commander</dt>
          <dd data-testid="incident-commander">{incident.commander?.name ?? '—'}</dd>
          <dt className="text-muted-foreground">Communicator</dt>
          <dd data-testid="incident-communicator">{incident.communicator?.name ?? '—'}</dd>
          <dt className="text-muted-foreground">Created</dt>
          <dd>{formatTimestamp(incident.created_at)}</dd>
          <dt className="text-muted-foreground">Created by</dt>
          <dd>{incident.created_by?.name ?? ''}</dd>
        </dl>
        <InlineError message={untargeted} />
        {canWrite ? (
          <div className="flex flex-wrap items-end gap-4 border-t pt-3">
            <Form method="post" preventScrollReset className="flex items-end gap-2" data-testid="status-form">
              <input type="hidden" name="intent" value="status" />
              <label className="flex flex-col gap-1 text-sm font-medium">
                Status
                <select name="status" defaultValue={incident.status} key={incident.status} className={SELECT_CLASS} data-testid="status-select">
                  {INCIDENT_STATUSES.map((status) => (
                    <option key={status} value={status}>
                      {labelOf(status)}
                    </option>
                  ))}
                </select>
              </label>
              <Button type="submit" variant="outline" size="sm" data-testid="status-submit">
                Change status
              </Button>
            </Form>
            <Form method="post" preventScrollReset className="flex flex-wrap items-end gap-2" data-testid="details-form" key={incident.updated_at}>
              <input type="hidden" name="intent" value="details" />
              <HeaderSelect name="severity" label="Severity" value={incident.severity === 'medium' ? 'Medium' : incident.severity} options={SEVERITY_OPTIONS} />
              <HeaderSelect name="type" label="Type" value={incident.type} options={TYPE_OPTIONS} />
              <HeaderSelect name="commander_id" label="Commander" value={incident.commander_id ?? ''} options={people.map((p) => ({ value: p.id, label: p.name }))} placeholder="No commander" />
              <HeaderSelect name="communicator_id" label="Communicator" value={incident.communicator_id ?? ''} options={people.map((p) => ({ value: p.id, label: p.name }))} placeholder="No communicator" />
              <Button type="submit" variant="outline" size="sm" data-testid="details-submit">
                Save
              </Button>
              <ErrorList errors={[error?.intent === 'details' ? error.message : undefined]} />
            </Form>
          </div>
        ) : null}
      </header>
      <div className="grid grid-cols-1 gap-6 lg:grid-cols-[2fr_1fr]">
        <div className="flex flex-col gap-6">
          <HypothesisTree hypotheses={detail.hypotheses} canWrite={canWrite} error={error && (error.intent === 'add-hypothesis' || error.intent === 'hypothesis-status') ? error : null} />
          <CommentsPanel comments={detail.comments} canWrite={canWrite} error={error?.intent === 'comment' ? error.message : undefined} />
        </div>
        <div className="flex flex-col gap-6">
          <RespondersPanel responders={detail.responders} people={people} teams={teams} canWrite={canWrite} error={error?.intent === 'add-responder' ? error.message : undefined} />
          <HistoryTimeline history={detail.history} />
        </div>
      </div>
      <Toast message={toast} />
    </div>
  )
}

function HeaderSelect({ name, label, value, options, placeholder }: { name: string; label: string; value: string; options: ReadonlyArray<{ value: string; label: string }>; placeholder?: string }) {
  const known = options.some((option) => option.value === value)
  return (
    <label className="flex flex-col gap-1 text-sm font-medium">
      {label}
      <select name={name} defaultValue={value} className={SELECT_CLASS} data-testid={`details-${name}`}>
        {placeholder !== undefined ? <option value="">{placeholder}</option> : null}
        {!known && value ? <option value={value}>{labelOf(value)}</option> : null}
        {options.map((option) => (
          <option key={option.value} value={option.value}>
            {option.label}
          </option>
        ))}
      </select>
    </label>
  )
}

type Detail = ReturnType<typeof useLoaderData<typeof loader>>['detail']

function RespondersPanel({
  responders,
  people,
  teams,
  canWrite,
  error,
}: {
  responders: Detail['responders']
  people: Array<{ id: string; name: string }>
  teams: Array<{ id: string; name: string }>
  canWrite: boolean
  error?: string
}) {
  return (
    <section aria-labelledby="responders-heading" className="flex flex-col gap-3 rounded-lg border bg-card p-4" data-testid="responders">
      <h2 id="responders-heading" className="text-base font-semibold">
        Responders
      </h2>
      {responders.length === 0 ? <p className="text-sm text-muted-foreground">No responders yet.</p> : null}
      <ul className="flex flex-col gap-1 text-sm">
        {responders.map((responder) => {
          const name = responder.person?.name ?? responder.team?.name ?? labelOf(responder.type)
          return (
            <li key={responder.id} className="flex items-center gap-2" data-testid="responder">
              <span className="flex-1">{name}</span>
              <span className="text-xs text-muted-foreground">{responder.team ? 'Team' : labelOf(responder.type)}</span>
              {canWrite ? (
                <Form method="post" preventScrollReset>
                  <input type="hidden" name="intent" value="remove-responder" />
                  <input type="hidden" name="id" value={responder.id} />
                  <Button type="submit" variant="ghost" size="icon" aria-label={`Remove ${name}`}>
                    <Trash2 aria-hidden="true" />
                  </Button>
                </Form>
              ) : null}
            </li>
          )
        })}
      </ul>
      {canWrite ? (
        <Form method="post" preventScrollReset className="flex flex-col gap-1" data-testid="add-responder-form">
          <input type="hidden" name="intent" value="add-responder" />
          <div className="flex items-center gap-2">
            <label htmlFor="responder-select" className="sr-only">
              Person or team
            </label>
            <select id="responder-select" name="responder" defaultValue="" className={`${SELECT_CLASS} flex-1`} data-testid="responder-select">
              <option value="">Select a person or team</option>
              <optgroup label="People">
                {people.map((person) => (
                  <option key={person.id} value={`person:${person.id}`}>
                    {person.name}
                  </option>
                ))}
              </optgroup>
              <optgroup label="Teams">
                {teams.map((team) => (
                  <option key={team.id} value={`team:${team.id}`}>
                    {team.name}
                  </option>
                ))}
              </optgroup>
            </select>
            <Button type="submit" variant="outline" size="sm" data-testid="add-responder-submit">
              <UserPlus aria-hidden="true" />
              Add
            </Button>
          </div>
          <ErrorList errors={[error]} />
        </Form>
      ) : null}
    </section>
  )
}

function CommentsPanel({ comments, canWrite, error }: { comments: Detail['comments']; canWrite: boolean; error?: string }) {
  return (
    <section aria-labelledby="comments-heading" className="flex flex-col gap-3" data-testid="comments">
      <h2 id="comments-heading" className="text-base font-semibold">
        Comments
      </h2>
      <ul className="flex flex-col gap-2">
        {comments.map((comment) => (
          <li key={comment.id} className="rounded-md border bg-card p-3 text-sm" data-testid="comment">
            <div className="mb-1 flex items-center gap-2 text-xs text-muted-foreground">
              <span className="font-medium text-foreground">{comment.created_by?.name ?? 'Someone'}</span>
              <span>{formatTimestamp(comment.created_at)}</span>
            </div>
            <p className="whitespace-pre-wrap">{comment.comment}</p>
          </li>
        ))}
      </ul>
      {canWrite ? (
        <Form method="post" preventScrollReset className="flex flex-col gap-2" data-testid="comment-form">
          <input type="hidden" name="intent" value="comment" />
          <label htmlFor="comment-text" className="sr-only">
            Comment
          </label>
          <textarea id="comment-text" name="comment" rows={3} placeholder="Add a comment" className="rounded-md border border-input bg-card px-3 py-2 text-sm" data-testid="comment-text" />
          <ErrorList errors={[error]} />
          <div>
            <Button type="submit" size="sm" data-testid="comment-submit">
              Comment
            </Button>
          </div>
        </Form>
      ) : null}
    </section>
  )
}

function HistoryTimeline({ history }: { history: Detail['history'] }) {
  return (
    <section aria-labelledby="history-heading" className="flex flex-col gap-3 rounded-lg border bg-card p-4" data-testid="history">
      <h2 id="history-heading" className="text-base font-semibold">
        Timeline
      </h2>
      {history.length === 0 ? <p className="text-sm text-muted-foreground">Nothing happened yet.</p> : null}
      <ol className="flex flex-col gap-2 border-l-2 pl-3 text-sm">
        {history.map((entry) => (
          <li key={entry.id} data-testid="history-entry" data-history-type={entry.type ?? ''}>
            <span className="font-medium">{entry.created_by?.name ?? 'Someone'}</span> {describeHistory(entry.type, entry.description)}
            <div className="text-xs text-muted-foreground">{formatTimestamp(entry.created_at)}</div>
          </li>
        ))}
      </ol>
    </section>
  )
}

export function ErrorBoundary() {
  return <GeneralErrorBoundary />
}
