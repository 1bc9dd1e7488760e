import { data, redirect, type ActionFunctionArgs, type LoaderFunctionArgs, type MetaFunction } from '@remix-run/node'
import { Form, Link, useActionData, useLoaderData, useNavigation, useRevalidator } from '@remix-run/react'
import { useEffect, useRef } from 'react'
import { useEventSource } from 'remix-utils/sse/react'
import { z } from 'zod'
import { isFinalRunStatus } from '#contract/playbook/playbook-vocabulary.ts'
import { DateTime } from '#app/components/date-time.tsx'
import { GeneralErrorBoundary } from '#app/components/error-boundary.tsx'
import { InlineError } from '#app/components/inline-error.tsx'
import { ActionOutput } from '#app/components/playbooks/action-output.tsx'
import { formatRunDuration, RunStatusBadge } from '#app/components/playbooks/run-status.tsx'
import { Toast } from '#app/components/toast.tsx'
import { buttonVariants } from '#app/components/ui/button.tsx'
import { Download } from '#app/components/ui/icons.tsx'
import { hasAccess } from '#app/lib/access.ts'
import { GatewayError } from '#app/lib/gateway.server.ts'
import { approveRun, cancelRun, getRun, isRunApprover, type RunAction, type RunDetailRow } from '#app/lib/playbooks.server.ts'
import type { RouteHandle } from '#app/lib/route-handle.ts'
import { errorResponse, requireAccess, toErrorResponse } from '#app/lib/session.server.ts'
import { readToast, toastCookie } from '#app/lib/toast.server.ts'

export const handle = {
  title: (loaderData) => (loaderData && typeof loaderData === 'object' && 'title' in loaderData && typeof loaderData.title === 'string' ? loaderData.title : 'Playbook Run'),
  feature: 'playbooks',
  resource: 'playbook_runs',
} satisfies RouteHandle

/** How often the page reloads without JavaScript while the run has not ended. */
const NO_JS_REFRESH_SECONDS = 2

const REDACTED = '[REDACTED]'

function resourceOf(run: RunDetailRow): { kind: string; name: string; href: string } | null {
  if (run.config) return { kind: 'Config', name: run.config.name, href: `/catalog/${run.config.id}` }
  if (run.component) return { kind: 'Component', name: run.component.name, href: `/topology/${run.component.id}` }
  if (run.check) return { kind: 'Check', name: run.check.name, href: `/health?${new URLSearchParams({ checkId: run.check.id }).toString()}` }
  return null
}

/** The run's parameters for display, secret ones (by the run's own spec) shown as [REDACTED]. */
function shownParameters(run: RunDetailRow): { name: string; label: string; value: string }[] {
  const specs = run.spec?.parameters ?? run.playbooks?.spec?.parameters ?? []
  // In the playbook's own order (the stored object's keys come back in jsonb's order); others last.
  const rank = (name: string) => {
    const index = specs.findIndex((param) => param.name === name)
    return index < 0 ? specs.length : index
  }
  const entries = Object.entries(run.parameters ?? {}).sort(([a], [b]) => rank(a) - rank(b) || a.localeCompare(b))
  return entries.map(([name, value]) => {
    const spec = specs.find((param) => param.name === name)
    const text = spec?.type === 'secret' ? REDACTED : typeof value === 'string' ? value : JSON.stringify(value)
    return { name, label: spec?.label || name, value: text }
  })
}

/**
 * /playbooks/runs/{id} (issue 16 item 6): status and timing, parameters, who ran and approved
 * it, each action with its status, duration, attempt, output and artifacts, child runs, and
 * Approve and Cancel for those allowed. Live through /playbooks/runs/{id}/events with
 * JavaScript; a meta refresh while the run has not ended without.
 */
export async function loader(args: LoaderFunctionArgs) {
  const session = await requireAccess(args, handle)
  const { toast, headers } = readToast(args.request)
  try {
    const found = await getRun(args, args.params.id ?? '')
    if (!found) throw errorResponse(404, { message: 'No such playbook run' })
    const { run, children, actions } = found
    const final = isFinalRunStatus(run.status)
    const approval = run.spec?.approval ?? run.playbooks?.spec?.approval
    const canApprove = run.status === 'pending_approval' && hasAccess(session, 'playbook_runs', 'write') && (await isRunApprover(args, session.user, approval))
    const canCancel = !final && hasAccess(session, 'playbooks', 'write')
    return data(
      {
        run: {
          id: run.id,
          status: run.status,
          error: run.error,
          created_at: run.created_at,
          scheduled_time: run.scheduled_time,
          start_time: run.start_time,
          end_time: run.end_time,
          parent_id: run.parent_id,
          playbook: run.playbooks ? { id: run.playbooks.id, title: run.playbooks.title || run.playbooks.name } : null,
          created_by: run.created_by?.name ?? null,
          approvals: (run.playbook_approvals ?? []).map((approvalRow) => ({
            id: approvalRow.id,
            created_at: approvalRow.created_at,
            who: approvalRow.person_id?.name ?? approvalRow.person_id?.email ?? approvalRow.team_id?.name ?? '',
          })),
          approvers: [...(approval?.approvers?.people ?? []), ...(approval?.approvers?.teams ?? [])],
          resource: resourceOf(run),
          parameters: shownParameters(run),
        },
        children: children.map((child) => ({ id: child.id, status: child.status, title: child.playbooks?.title || child.playbooks?.name || child.id, start_time: child.start_time, end_time: child.end_time })),
        actions: actions.map((action) => ({ ...action, child: action.playbook_run_id !== run.id })),
        final,
        canApprove,
        canCancel,
        toast,
        now: new Date().toISOString(),
        title: `Playbook Run ${run.playbooks?.title || run.playbooks?.name || run.id}`,
      },
      { headers },
    )
  } catch (error) {
    throw toErrorResponse(error)
  }
}

const RunIntentSchema = z.object({ intent: z.enum(['approve', 'cancel']) })

export async function action(args: ActionFunctionArgs) {
  await requireAccess(args, { ...handle, access: 'write' })
  const id = args.params.id ?? ''
  const parsed = RunIntentSchema.safeParse(Object.fromEntries(await args.request.formData()))
  if (!parsed.success) return data({ error: 'Unknown action' }, { status: 400 })
  try {
    const message = parsed.data.intent === 'approve' ? await approveRun(args, id) : await cancelRun(args, id)
    return redirect(`/playbooks/runs/${id}`, { status: 303, headers: { 'set-cookie': toastCookie(message) } })
  } catch (error) {
    if (!(error instanceof GatewayError)) throw error
    return data({ error: error.message }, { status: error.status >= 400 && error.status < 500 ? error.status : 502 })
  }
}

/** With JavaScript: reload the run's data whenever the server says it progressed. */
function useLiveRun(id: string, final: boolean) {
  const progress = useEventSource(`/playbooks/runs/${id}/events`, { event: 'progress', enabled: !final })
  const revalidator = useRevalidator()
  // The last event seen and the last one reloaded for: an event that arrives while a reload is
  // under way gets its own reload once that one is done.
  const seen = useRef<string | null>(null)
  useEffect(() => {
    if (!progress || seen.current === progress || revalidator.state !== 'idle') return
    seen.current = progress
    revalidator.revalidate()
  }, [progress, revalidator])
}

function Figure({ label, children, testId }: { label: string; children: React.ReactNode; testId?: string }) {
  return (
    <div className="flex flex-col gap-0.5" data-testid={testId}>
      <dt className="text-xs text-muted-foreground">{label}</dt>
      <dd className="text-sm">{children}</dd>
    </div>
  )
}

export default function PlaybookRunRoute() {
  const { run, children, actions, final, canApprove, canCancel, toast, now: nowText } = useLoaderData<typeof loader>()
  const actionData = useActionData<typeof action>()
  const navigation = useNavigation()
  useLiveRun(run.id, final)
  const now = new Date(nowText)
  const busy = navigation.state === 'submitting' ? navigation.formData?.get('intent') : null
  return (
    <div className="flex flex-col gap-4 p-6" data-testid="playbook-run" data-run-id={run.id} data-run-status={run.status}>
      {final ? null : (
        <noscript>
          <meta httpEquiv="refresh" content={String(NO_JS_REFRESH_SECONDS)} />
        </noscript>
      )}
      <header className="flex flex-wrap items-start justify-between gap-3">
        <div className="flex flex-col gap-1">
          <nav className="text-sm text-muted-foreground">
            <Link to="/playbooks/runs" className="hover:underline">
              Playbook Runs
            </Link>
            {run.parent_id ? (
              <>
                {' / '}
                <Link to={`/playbooks/runs/${run.parent_id}`} className="hover:underline" data-testid="run-parent">
                  Parent run
                </Link>
              </>
            ) : null}
          </nav>
          <div className="flex flex-wrap items-center gap-2">
            <h1 className="text-lg font-semibold" data-testid="run-title">
              {run.playbook ? run.playbook.title : run.id}
            </h1>
            <RunStatusBadge status={run.status} testId="run-status" />
          </div>
        </div>
        <div className="flex flex-wrap gap-2">
          {canApprove ? (
            <Form method="post">
              <button type="submit" name="intent" value="approve" className={buttonVariants({ size: 'sm' })} disabled={Boolean(busy)} data-testid="run-approve">
                {busy === 'approve' ? 'Approving…' : 'Approve'}
              </button>
            </Form>
          ) : null}
          {canCancel ? (
            <Form method="post">
              <button type="submit" name="intent" value="cancel" className={buttonVariants({ variant: 'outline', size: 'sm' })} disabled={Boolean(busy)} data-testid="run-cancel">
                {busy === 'cancel' ? 'Cancelling…' : 'Cancel'}
              </button>
            </Form>
          ) : null}
          {run.playbook ? (
            <Link to={`/playbooks/runs?${new URLSearchParams({ playbook: run.playbook.id }).toString()}`} className={buttonVariants({ variant: 'ghost', size: 'sm' })}>
              Other runs
            </Link>
          ) : null}
        </div>
      </header>
      {actionData && 'error' in actionData ? <InlineError message={actionData.error} /> : null}
      {run.error ? <InlineError message={run.error} /> : null}
      <dl className="flex flex-wrap gap-x-8 gap-y-2 rounded-md border bg-card p-4">
        {run.resource ? (
          <Figure label={run.resource.kind} testId="run-resource">
            <Link to={run.resource.href} className="hover:underline">
              {run.resource.name}
            </Link>
          </Figure>
        ) : null}
        <Figure label="Created">
          <DateTime value={run.created_at} now={now} />
        </Figure>
        <Figure label="Started" testId="run-started">
          {run.start_time ? <DateTime value={run.start_time} now={now} /> : <span className="text-muted-foreground">not yet</span>}
        </Figure>
        {run.end_time ? (
          <Figure label="Ended" testId="run-ended">
            <DateTime value={run.end_time} now={now} />
          </Figure>
        ) : null}
        <Figure label="Duration" testId="run-duration">
          {formatRunDuration(run.start_time, run.end_time, now) || '—'}
        </Figure>
        <Figure label="Run by" testId="run-created-by">
          {run.created_by ?? 'a trigger'}
        </Figure>
        {run.approvers.length ? (
          <Figure label="Approvers" testId="run-approvers">
            {run.approvers.join(', ')}
          </Figure>
        ) : null}
        {run.approvals.length ? (
          <Figure label="Approved by" testId="run-approved-by">
            {run.approvals.map((approval) => approval.who).join(', ')}
          </Figure>
        ) : null}
      </dl>
      <section className="flex flex-col gap-2" aria-labelledby="run-parameters">
        <h2 id="run-parameters" className="text-sm font-semibold">
          Parameters
        </h2>
        {run.parameters.length ? (
          <dl className="grid grid-cols-[max-content_1fr] gap-x-6 gap-y-1 rounded-md border bg-card p-4 text-sm" data-testid="run-parameters">
            {run.parameters.map((param) => (
              <div key={param.name} className="contents" data-testid="run-parameter" data-name={param.name}>
                <dt className="text-muted-foreground">{param.label}</dt>
                <dd className="break-all font-mono text-xs">{param.value}</dd>
              </div>
            ))}
          </dl>
        ) : (
          <p className="text-sm text-muted-foreground">No parameters</p>
        )}
      </section>
      <section className="flex flex-col gap-2" aria-labelledby="run-actions">
        <h2 id="run-actions" className="text-sm font-semibold">
          Actions
        </h2>
        {actions.length ? (
          <ol className="flex flex-col gap-3" data-testid="run-actions">
            {actions.map((action) => (
              <ActionCard key={action.id} action={action} runId={run.id} now={now} />
            ))}
          </ol>
        ) : (
          <p className="text-sm text-muted-foreground" data-testid="run-no-actions">
            {run.status === 'pending_approval' ? 'Waiting for approval.' : final ? 'No actions ran.' : 'No action has started yet.'}
          </p>
        )}
      </section>
      {children.length ? (
        <section className="flex flex-col gap-2" aria-labelledby="run-children">
          <h2 id="run-children" className="text-sm font-semibold">
            Child runs
          </h2>
          <ul className="flex flex-col gap-1" data-testid="run-children">
            {children.map((child) => (
              <li key={child.id} className="flex items-center gap-2 text-sm">
                <Link to={`/playbooks/runs/${child.id}`} className="hover:underline">
                  {child.title}
                </Link>
                <RunStatusBadge status={child.status} />
                <span className="text-xs text-muted-foreground tabular-nums">{formatRunDuration(child.start_time, child.end_time, now)}</span>
              </li>
            ))}
          </ul>
        </section>
      ) : null}
      {toast ? <Toast message={toast} /> : null}
    </div>
  )
}

function ActionCard({ action, runId, now }: { action: RunAction & { child: boolean }; runId: string; now: Date }) {
  const attempt = (action.retry_count ?? 0) + 1
  return (
    <li className="flex flex-col gap-2 rounded-md border bg-card p-4" data-testid="run-action" data-action-name={action.name} data-action-status={action.status}>
      <div className="flex flex-wrap items-center gap-2">
        <h3 className="font-medium">{action.name}</h3>
        <RunStatusBadge status={action.status} testId="action-status" />
        {action.child ? <span className="text-xs text-muted-foreground">(child run)</span> : null}
        <span className="text-xs text-muted-foreground tabular-nums" data-testid="action-duration">
          {formatRunDuration(action.start_time, action.end_time, now)}
        </span>
        <span className="text-xs text-muted-foreground" data-testid="action-attempt">
          attempt {attempt}
        </span>
      </div>
      {action.error ? (
        <p className="whitespace-pre-wrap break-all text-sm text-danger" data-testid="action-error">
          {action.error}
        </p>
      ) : null}
      <ActionOutput result={action.result} />
      {action.artifacts?.length ? (
        <ul className="flex flex-wrap gap-2" data-testid="action-artifacts">
          {action.artifacts.map((artifact) => (
            <li key={artifact.id}>
              <a href={`/playbooks/runs/${runId}/artifacts/${artifact.id}`} download={artifact.filename} className={buttonVariants({ variant: 'outline', size: 'sm' })} data-testid="action-artifact">
                <Download aria-hidden="true" />
                {artifact.filename}
              </a>
            </li>
          ))}
        </ul>
      ) : null}
    </li>
  )
}

export const meta: MetaFunction<typeof loader> = ({ data: loaderData }) => [{ title: loaderData?.title ?? 'Playbook Run' }]

export function ErrorBoundary() {
  return <GeneralErrorBoundary />
}
