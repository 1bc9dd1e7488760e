import { getFormProps, getSelectProps, getTextareaProps, type SubmissionResult } from '@conform-to/react'
import { parseWithZod } from '@conform-to/zod'
import { data, redirect, type ActionFunctionArgs, type LoaderFunctionArgs } from '@remix-run/node'
import { Form, Link, useActionData, useLoaderData } from '@remix-run/react'
import { Trash2, UserPlus } from '#app/components/ui/icons.tsx'
import { z } from 'zod'
import { DateTime } from '#app/components/date-time.tsx'
import { GeneralErrorBoundary } from '#app/components/error-boundary.tsx'
import { ErrorList } from '#app/components/forms.tsx'
import { HypothesisTree } from '#app/components/incidents/hypothesis-tree.tsx'
import { IncidentStatusBadge, SeverityBadge } from '#app/components/incidents/incident-badges.tsx'
import { SELECT_CLASS, SEVERITY_OPTIONS, TYPE_OPTIONS } from '#app/components/incidents/incident-fields.tsx'
import { InlineError } from '#app/components/inline-error.tsx'
import { Toast } from '#app/components/toast.tsx'
import { Button } from '#app/components/ui/button.tsx'
import { useSchemaForm } from '#app/components/use-schema-form.ts'
import { hasAccess } from '#app/lib/access.ts'
import { AddResponderShape, CommentShape, IncidentDetailsShape, StatusChangeShape } from '#app/lib/incident-form-shapes.ts'
import { IncidentActionSchema, type IncidentAction } from '#app/lib/incident-forms.ts'
import { buildTimeline, shapeHypothesisTree, type TimelineEntry } from '#app/lib/incident-detail.ts'
import { INCIDENT_STATUSES, isUuid, labelOf } from '#app/lib/incidents.ts'
import {
  addComment,
  addResponder,
  createHypothesis,
  getIncidentDetail,
  getWriteErrorMessage,
  listPeople,
  listTeams,
  removeResponder,
  setEvidenceDefinitionOfDone,
  setEvidenceDone,
  updateHypothesisStatus,
  updateIncidentDetails,
  updateIncidentStatus,
} from '#app/lib/incidents.server.ts'
import type { RouteHandle } from '#app/lib/route-handle.ts'
import type { ApiArgs } from '#app/lib/gateway.server.ts'
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
    // The hypothesis tree and the timeline are built here, so their rules stay on the server and
    // the page only draws them (decision 010).
    const { history, hypotheses, ...shown } = detail
    const hypothesisTree = shapeHypothesisTree(hypotheses)
    const timeline = buildTimeline(history, detail.comments)
    return data({ detail: shown, hypothesisTree, timeline, people, teams, toast, canWrite: hasAccess(session, 'incident', 'write') }, { headers })
  } catch (error) {
    throw toErrorResponse(error)
  }
}

/**
 * Each form on the page names its `intent`, parsed as one discriminated union. A failure comes
 * back to the form that sent it (`form`: its intent and, for per-row forms, the row); a success
 * redirects back (303) with a toast, so a reload never re-posts.
 */
export async function action(args: ActionFunctionArgs) {
  const session = await requireAccess(args, { ...handle, access: 'write' })
  const incidentId = args.params.id ?? ''
  if (!isUuid(incidentId)) throw errorResponse(404, { message: 'Incident not found' })
  const formData = await args.request.formData()
  const submission = await parseWithZod(formData, {
    async: true,
    schema: IncidentActionSchema.transform(async (action, ctx) => {
      try {
        return await runIncidentAction(args, session.user.id, incidentId, action)
      } catch (error) {
        const message = getWriteErrorMessage(error)
        if (!message) throw error
        ctx.addIssue({ code: z.ZodIssueCode.custom, message })
        return z.NEVER
      }
    }),
  })
  if (submission.status !== 'success') {
    const field = (name: string) => String(formData.get(name) ?? '')
    const form = getFormKey(field('intent'), field('intent') === 'add-hypothesis' ? field('parent_id') : field('id'))
    const message = Object.values(submission.error ?? {}).flat().find(Boolean) ?? 'Request failed'
    return data({ result: submission.reply(), form, message }, { status: 400 })
  }
  throw redirect(`/incidents/${incidentId}`, { status: 303, headers: { 'set-cookie': toastCookie(submission.value) } })
}

/** Does what the form asked; answers the toast. */
async function runIncidentAction(args: ApiArgs, userId: string, incidentId: string, action: IncidentAction): Promise<string> {
  switch (action.intent) {
    case 'status':
      await updateIncidentStatus(args, incidentId, action.status)
      return `Status changed to ${labelOf(action.status)}`
    case 'details':
      await updateIncidentDetails(args, incidentId, {
        severity: action.severity,
        type: action.type,
        commanderId: action.commander_id ?? null,
        communicatorId: action.communicator_id ?? null,
      })
      return 'Incident updated successfully'
    case 'add-responder':
      await addResponder(args, userId, incidentId, action.responder)
      return 'Responder added successfully'
    case 'remove-responder':
      await removeResponder(args, action.id)
      return 'Responder removed successfully'
    case 'add-hypothesis':
      await createHypothesis(args, userId, { incidentId, title: action.title, type: action.type, parentId: action.parent_id ?? null, status: 'possible' })
      return `${labelOf(action.type)} added successfully`
    case 'hypothesis-status':
      await updateHypothesisStatus(args, action.id, action.status)
      return 'Hypothesis updated successfully'
    case 'evidence-dod':
      await setEvidenceDefinitionOfDone(args, action.id, action.value)
      return 'Evidence updated successfully'
    case 'evidence-done':
      await setEvidenceDone(args, action.id, action.value)
      return 'Evidence updated successfully'
    case 'comment':
      await addComment(args, userId, incidentId, action.comment)
      return 'Comment added successfully'
  }
}

/** Which form on the page a result belongs to: its intent, and the row for per-row forms. */
function getFormKey(intent: string, row: string): string {
  return row ? `${intent}:${row}` : intent
}

/** Forms made of a button alone report their failure in the page header. */
const HEADER_FORMS = new Set(['status', 'remove-responder', 'evidence-dod', 'evidence-done'])

export default function IncidentDetailRoute() {
  const { detail, hypothesisTree, timeline, people, teams, toast, canWrite } = useLoaderData<typeof loader>()
  const actionData = useActionData<typeof action>()
  const { incident } = detail
  const getResult = (form: string): SubmissionResult | undefined => (actionData?.form === form ? actionData.result : undefined)
  const formIntent = actionData?.form.split(':')[0] ?? ''
  // Forms with fields show their own errors; the rest (and an unknown intent) show here.
  const headerError = actionData && (HEADER_FORMS.has(formIntent) || !KNOWN_FORMS.has(formIntent)) ? actionData.message : null

  return (
    <div className="flex flex-col gap-6 p-6" data-testid="incident-page">
      <nav aria-label="Breadcrumb" className="text-sm text-muted-foreground">
        <Link to="/incidents" className="hover:text-foreground hover:underline">
          Incidents
        </Link>{' '}
        / <span className="whitespace-nowrap font-mono text-xs text-foreground" data-testid="incident-id">{incident.incident_id}</span>
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
          {/* Writers see the commander and communicator once, in the form that changes them. */}
          {canWrite ? null : (
            <>
              <dt className="text-muted-foreground">Commander</dt>
              <dd data-testid="incident-commander">{incident.commander?.name ?? '—'}</dd>
              <dt className="text-muted-foreground">Communicator</dt>
              <dd data-testid="incident-communicator">{incident.communicator?.name ?? '—'}</dd>
            </>
          )}
          <dt className="text-muted-foreground">Created</dt>
          <dd className="tabular-nums"><DateTime value={incident.created_at} /></dd>
          <dt className="text-muted-foreground">Created by</dt>
          <dd>{incident.created_by?.name ?? ''}</dd>
        </dl>
        <InlineError message={headerError} />
        {canWrite ? (
          <div className="flex flex-wrap items-end gap-4 border-t pt-3">
            <StatusForm status={incident.status} result={getResult('status')} />
            <DetailsForm key={incident.updated_at} incident={incident} people={people} result={getResult('details')} />
          </div>
        ) : null}
      </header>
      <div className="grid grid-cols-1 gap-6 lg:grid-cols-[2fr_1fr]">
        <div className="flex flex-col gap-6">
          <HypothesisTree roots={hypothesisTree} canWrite={canWrite} getResult={getResult} />
          <CommentsPanel comments={detail.comments} canWrite={canWrite} result={getResult('comment')} />
        </div>
        <div className="flex flex-col gap-6">
          <RespondersPanel responders={detail.responders} people={people} teams={teams} canWrite={canWrite} result={getResult('add-responder')} />
          <HistoryTimeline entries={timeline} />
        </div>
      </div>
      <Toast message={toast} />
    </div>
  )
}

const KNOWN_FORMS = new Set(['status', 'details', 'add-responder', 'remove-responder', 'add-hypothesis', 'hypothesis-status', 'evidence-dod', 'evidence-done', 'comment'])

function StatusForm({ status, result }: { status: string; result: SubmissionResult | undefined }) {
  const [form, fields] = useSchemaForm(StatusChangeShape, {
    id: 'incident-status',
    lastResult: result,
    defaultValue: { status },
  })
  const { key: _key, ...statusProps } = getSelectProps(fields.status)
  return (
    <Form method="post" preventScrollReset {...getFormProps(form)} className="flex items-end gap-2" data-testid="status-form">
      <input type="hidden" name="intent" value="status" />
      <label className="flex flex-col gap-1 text-sm font-medium">
        Status
        {/* Keyed by the stored status so a change made elsewhere shows after the reload. */}
        <select {...statusProps} key={status} className={SELECT_CLASS} data-testid="status-select">
          {INCIDENT_STATUSES.map((value) => (
            <option key={value} value={value}>
              {labelOf(value)}
            </option>
          ))}
        </select>
      </label>
      <Button type="submit" variant="outline" size="sm" data-testid="status-submit">
        Change status
      </Button>
    </Form>
  )
}

function DetailsForm({
  incident,
  people,
  result,
}: {
  incident: Detail['incident']
  people: Array<{ id: string; name: string }>
  result: SubmissionResult | undefined
}) {
  const [form, fields] = useSchemaForm(IncidentDetailsShape, {
    id: 'incident-details',
    lastResult: result,
    defaultValue: {
      severity: incident.severity === 'medium' ? 'Medium' : incident.severity,
      type: incident.type,
      commander_id: incident.commander_id ?? '',
      communicator_id: incident.communicator_id ?? '',
    },
  })
  const personOptions = people.map((p) => ({ value: p.id, label: p.name }))
  return (
    <Form method="post" preventScrollReset {...getFormProps(form)} className="flex flex-wrap items-end gap-2" data-testid="details-form">
      <input type="hidden" name="intent" value="details" />
      <HeaderSelect field={fields.severity} label="Severity" options={SEVERITY_OPTIONS} />
      <HeaderSelect field={fields.type} label="Type" options={TYPE_OPTIONS} />
      <HeaderSelect field={fields.commander_id} label="Commander" options={personOptions} placeholder="No commander" />
      <HeaderSelect field={fields.communicator_id} label="Communicator" options={personOptions} placeholder="No communicator" />
      <Button type="submit" variant="outline" size="sm" data-testid="details-submit">
        Save
      </Button>
      <ErrorList id={form.errorId} errors={Object.values(form.allErrors).flat()} />
    </Form>
  )
}

type SelectFieldMetadata = Parameters<typeof getSelectProps>[0]

function HeaderSelect({ field, label, options, placeholder }: { field: SelectFieldMetadata; label: string; options: ReadonlyArray<{ value: string; label: string }>; placeholder?: string }) {
  const { key: _key, ...props } = getSelectProps(field)
  const value = typeof field.initialValue === 'string' ? field.initialValue : ''
  const known = options.some((option) => option.value === value)
  return (
    <label className="flex flex-col gap-1 text-sm font-medium">
      {label}
      <select {...props} className={SELECT_CLASS} data-testid={`details-${field.name}`}>
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
  result,
}: {
  responders: Detail['responders']
  people: Array<{ id: string; name: string }>
  teams: Array<{ id: string; name: string }>
  canWrite: boolean
  result: SubmissionResult | undefined
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
                // A button alone: nothing to validate before posting.
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
      {canWrite ? <AddResponderForm people={people} teams={teams} result={result} /> : null}
    </section>
  )
}

function AddResponderForm({ people, teams, result }: { people: Array<{ id: string; name: string }>; teams: Array<{ id: string; name: string }>; result: SubmissionResult | undefined }) {
  const [form, fields] = useSchemaForm(AddResponderShape, {
    id: 'add-responder',
    lastResult: result,
  })
  const { key: _key, ...responderProps } = getSelectProps(fields.responder)
  return (
    <Form method="post" preventScrollReset {...getFormProps(form)} className="flex flex-col gap-1" data-testid="add-responder-form">
      <input type="hidden" name="intent" value="add-responder" />
      <div className="flex items-center gap-2">
        <label htmlFor={fields.responder.id} className="sr-only">
          Person or team
        </label>
        <select {...responderProps} className={`${SELECT_CLASS} flex-1`} data-testid="responder-select">
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
      <ErrorList id={fields.responder.errorId} errors={[...(form.errors ?? []), ...(fields.responder.errors ?? [])]} />
    </Form>
  )
}

function CommentsPanel({ comments, canWrite, result }: { comments: Detail['comments']; canWrite: boolean; result: SubmissionResult | undefined }) {
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
              <DateTime value={comment.created_at} className="tabular-nums" />
            </div>
            <p className="whitespace-pre-wrap">{comment.comment}</p>
          </li>
        ))}
      </ul>
      {canWrite ? <CommentForm result={result} /> : null}
    </section>
  )
}

function CommentForm({ result }: { result: SubmissionResult | undefined }) {
  const [form, fields] = useSchemaForm(CommentShape, {
    id: 'comment',
    lastResult: result,
  })
  const { key: _key, ...commentProps } = getTextareaProps(fields.comment)
  return (
    <Form method="post" preventScrollReset {...getFormProps(form)} className="flex flex-col gap-2" data-testid="comment-form">
      <input type="hidden" name="intent" value="comment" />
      <label htmlFor={fields.comment.id} className="sr-only">
        Comment
      </label>
      <textarea {...commentProps} rows={3} placeholder="Add a comment" className="rounded-md border border-input bg-card px-3 py-2 text-sm" data-testid="comment-text" />
      <ErrorList id={fields.comment.errorId} errors={[...(form.errors ?? []), ...(fields.comment.errors ?? [])]} />
      <div>
        <Button type="submit" size="sm" data-testid="comment-submit">
          Comment
        </Button>
      </div>
    </Form>
  )
}

function HistoryTimeline({ entries }: { entries: TimelineEntry[] }) {
  return (
    <section aria-labelledby="history-heading" className="flex flex-col gap-3 rounded-lg border bg-card p-4" data-testid="history">
      <h2 id="history-heading" className="text-base font-semibold">
        Timeline
      </h2>
      {entries.length === 0 ? <p className="text-sm text-muted-foreground">Nothing happened yet.</p> : null}
      <ol className="flex flex-col gap-2 border-l-2 pl-3 text-sm">
        {entries.map((entry) => (
          <li key={entry.id} data-testid="history-entry" data-history-type={entry.type}>
            <p className="break-words">
              <span className="font-medium">{entry.actor}</span> {entry.text}
              {entry.quote !== null ? <span className="whitespace-pre-wrap text-muted-foreground"> {entry.quote}</span> : null}
            </p>
            <div className="text-xs tabular-nums text-muted-foreground">
              <DateTime value={entry.created_at} testId="history-time" />
            </div>
          </li>
        ))}
      </ol>
    </section>
  )
}

export function ErrorBoundary() {
  return <GeneralErrorBoundary />
}
