import type { SubmissionResult } from '@conform-to/react'
import { parseWithZod } from '@conform-to/zod'
import { data, redirect, type ActionFunctionArgs, type LoaderFunctionArgs } from '@remix-run/node'
import { Link, useActionData, useLoaderData, useNavigation, useParams } from '@remix-run/react'
import { lazy, Suspense } from 'react'
import { stringify } from 'yaml'
import { z } from 'zod'
import { ConfirmDialog as ServerRenderedConfirmDialog } from '#app/components/confirm-dialog/confirm-dialog.tsx'
import { GeneralErrorBoundary } from '#app/components/error-boundary.tsx'
import { TopologyForm, type TopologyFormValues, type TopologySpecDetail } from '#app/components/integrations/topology-form.tsx'
import { NotBuilt } from '#app/components/not-built.tsx'
import { SourceNotice } from '#app/components/resource-editor/source-notice.tsx'
import { Toast } from '#app/components/toast.tsx'
import { GatewayError } from '#app/lib/gateway.server.ts'
import { DELETE_CONFIRMATION, sourceInfo, type ResourceRow } from '#app/lib/resource-editor-vocabulary.ts'
import { deleteResource, loadResource, writeFailure } from '#app/lib/resource-editor.server.ts'
import type { RouteHandle } from '#app/lib/route-handle.ts'
import { errorResponse, requireAccess } from '#app/lib/session.server.ts'
import { readToast, toastCookie } from '#app/lib/toast.server.ts'
import { saveTopology } from '#app/lib/topology-integration.server.ts'
import { checkLabelRows, TOPOLOGY_KIND, TopologyActionSchema, topologyPayload } from '#app/lib/topology-form.ts'

export const handle = { title: 'Integration', feature: 'settings.integrations', resource: 'integrations', access: 'write' } satisfies RouteHandle

const NEW_ID = 'new'
const LIST_HREF = '/settings/integrations'

// The delete dialog loads when opened; the server renders it in place (decisions 007, 014).
const ConfirmDialog = import.meta.env.SSR
  ? ServerRenderedConfirmDialog
  : /* @__PURE__ */ lazy(() => import('#app/components/confirm-dialog/confirm-dialog.tsx').then((module) => ({ default: module.ConfirmDialog })))

/** The integration types this page edits itself; scrapers and log backends keep their own editors. */
const isTopologyType = (type: string | undefined) => type === 'topologies'

/** Where `integrations_with_status`'s other types are edited (its `integration_type` names the first segment). */
const OTHER_EDITORS: Record<string, (id: string) => string> = {
  scrapers: (id) => `/catalog/scrapers/${encodeURIComponent(id)}`,
  logging_backends: (id) => `/settings/logging_backends/${encodeURIComponent(id)}`,
}

function formValuesOf(row: ResourceRow): TopologyFormValues {
  const labels = row.labels && typeof row.labels === 'object' ? Object.entries(row.labels as Record<string, unknown>).map(([key, value]) => ({ key, value: String(value ?? '') })) : []
  const spec = row.spec && typeof row.spec === 'object' && Object.keys(row.spec).length > 0 ? stringify(row.spec, { lineWidth: 0 }) : ''
  return { name: String(row.name ?? ''), namespace: String(row.namespace ?? 'default'), labels, spec }
}

async function loadTopology(args: LoaderFunctionArgs | ActionFunctionArgs, id: string) {
  return loadResource(args, TOPOLOGY_KIND, id).catch((error: unknown) => {
    if (error instanceof GatewayError) throw errorResponse(error.status >= 400 ? error.status : 502, { message: error.message })
    throw error
  })
}

export async function loader(args: LoaderFunctionArgs) {
  await requireAccess(args, handle)
  const type = args.params.type ?? ''
  if (Object.hasOwn(OTHER_EDITORS, type)) throw redirect(OTHER_EDITORS[type]!(args.params.id ?? ''))
  if (!isTopologyType(args.params.type)) return data({ kind: 'other' as const })
  await requireAccess(args, { resource: 'topologies', access: 'write' })
  const { toast, headers } = readToast(args.request)
  const id = args.params.id ?? ''
  const dialog = new URL(args.request.url).searchParams.get('dialog') === 'delete' ? ('delete' as const) : null
  if (id === NEW_ID) {
    const values: TopologyFormValues = { name: '', namespace: 'default', labels: [], spec: stringify({ type: '', components: [] }, { lineWidth: 0 }) }
    return data({ kind: 'topology' as const, mode: 'create' as const, id: null, name: null, values, info: { readOnly: false, origin: 'the UI' }, source: null, dialog: null, toast, version: 'new' }, { headers })
  }
  const row = await loadTopology(args, id)
  if (!row) throw errorResponse(404, { message: 'No resources found' })
  const info = sourceInfo(row)
  return data(
    {
      kind: 'topology' as const,
      mode: 'edit' as const,
      id: String(row.id),
      name: String(row.name ?? row.id),
      values: formValuesOf(row),
      info,
      source: typeof row.source === 'string' ? row.source : null,
      dialog: dialog && !info.readOnly ? dialog : null,
      toast,
      version: `${row.id}:${String(row.updated_at ?? '')}`,
    },
    { headers },
  )
}

type Answer = { result: SubmissionResult<string[]>; specDetail: TopologySpecDetail | null }

/**
 * Save (create or update) and delete. The form's fields and the spec (by the Topology schema the
 * API applies) are checked here and come back on their fields; the API's own refusal (a name in
 * use, a spec it rejects, no exec permission) is shown the same way. Success goes back to the
 * integrations list with a toast (spec 001 §2).
 */
export async function action(args: ActionFunctionArgs) {
  await requireAccess(args, handle)
  if (!isTopologyType(args.params.type)) throw errorResponse(404, { message: 'No such integration type' })
  const session = await requireAccess(args, { resource: 'topologies', access: 'write' })
  const id = args.params.id ?? ''
  const existing = id === NEW_ID ? null : await loadTopology(args, id)
  if (id !== NEW_ID && !existing) throw errorResponse(404, { message: 'No resources found' })
  const info = existing ? sourceInfo(existing) : null
  const specDetail: TopologySpecDetail = {}
  let status = 400
  const submission = await parseWithZod(await args.request.formData(), {
    async: true,
    schema: TopologyActionSchema.superRefine((value, ctx) => (value.intent === 'save' ? checkLabelRows(value, ctx) : undefined)).transform(async (value, ctx): Promise<string> => {
      if (info?.readOnly) {
        status = 409
        ctx.addIssue({ code: z.ZodIssueCode.custom, message: `This topology was created by ${info.origin} and cannot be changed here.` })
        return z.NEVER
      }
      if (value.intent === 'delete') {
        if (!existing) {
          ctx.addIssue({ code: z.ZodIssueCode.custom, message: 'There is nothing to delete yet.' })
          return z.NEVER
        }
        try {
          await deleteResource(args, TOPOLOGY_KIND, id)
        } catch (error) {
          if (!(error instanceof GatewayError)) throw error
          status = error.status >= 400 ? error.status : 502
          ctx.addIssue({ code: z.ZodIssueCode.custom, message: error.message })
          return z.NEVER
        }
        return `Topology ${String(existing.name ?? '')} deleted successfully`
      }
      const built = topologyPayload(value)
      if (!built.ok) {
        specDetail.line = built.problem.line ?? null
        specDetail.details = built.problem.details ?? null
        ctx.addIssue({ code: z.ZodIssueCode.custom, path: ['spec'], message: built.problem.message })
        return z.NEVER
      }
      try {
        await saveTopology(args, existing ? String(existing.id) : null, built.payload, session.user.id)
        return `Topology ${built.payload.name} ${existing ? 'updated' : 'created'} successfully`
      } catch (error) {
        const { message, details } = writeFailure(error, TOPOLOGY_KIND, built.payload)
        const failed = error instanceof GatewayError ? error.status : 500
        if (failed === 409) ctx.addIssue({ code: z.ZodIssueCode.custom, path: ['name'], message })
        else if (failed === 400 || failed === 422) {
          specDetail.details = details
          ctx.addIssue({ code: z.ZodIssueCode.custom, path: ['spec'], message })
        } else {
          status = failed >= 400 && failed < 600 ? failed : 502
          ctx.addIssue({ code: z.ZodIssueCode.custom, message })
        }
        return z.NEVER
      }
    }),
  })
  if (submission.status !== 'success') return data<Answer>({ result: submission.reply(), specDetail }, { status: submission.status === undefined ? 200 : status })
  throw redirect(LIST_HREF, { status: 303, headers: { 'set-cookie': toastCookie(submission.value) } })
}

export default function IntegrationRoute() {
  const loaded = useLoaderData<typeof loader>()
  const { type, id } = useParams()
  if (loaded.kind !== 'topology') return <NotBuilt title={`Integration ${type ?? ''} / ${id ?? ''}`} capability="The editor for one integration of this type." />
  return <TopologyIntegration />
}

function TopologyIntegration() {
  const loaded = useLoaderData<typeof loader>()
  const answer = useActionData<typeof action>() ?? null
  const navigation = useNavigation()
  if (loaded.kind !== 'topology') return null
  const busy = navigation.state === 'submitting' && navigation.formMethod?.toLowerCase() === 'post'
  const selfHref = `${LIST_HREF}/topologies/${loaded.id ?? NEW_ID}`
  return (
    <section className="flex max-w-4xl flex-col gap-4 p-6" data-testid="topology-integration" data-mode={loaded.mode}>
      <nav aria-label="Breadcrumb" className="text-sm text-muted-foreground">
        <ol className="flex items-center gap-1.5">
          <li>
            <Link to={LIST_HREF} className="hover:text-foreground hover:underline">
              Integrations
            </Link>
          </li>
          <li aria-hidden="true">/</li>
          <li aria-current="page" className="truncate text-foreground">
            {loaded.mode === 'create' ? 'New topology' : loaded.name}
          </li>
        </ol>
      </nav>
      <SourceNotice info={loaded.info} source={loaded.source} />
      <TopologyForm
        key={loaded.version}
        mode={loaded.mode}
        values={loaded.values}
        lastResult={answer?.result}
        specDetail={answer?.specDetail}
        readOnly={loaded.info.readOnly}
        busy={busy}
        backHref={LIST_HREF}
        deleteHref={`${selfHref}?dialog=delete`}
      />
      {loaded.dialog === 'delete' ? (
        <Suspense fallback={null}>
          <ConfirmDialog title={`Delete ${loaded.name ?? ''}`} description={DELETE_CONFIRMATION} closeTo={selfHref} fields={{ intent: 'delete' }} busy={busy} testId="delete-dialog" />
        </Suspense>
      ) : null}
      <Toast message={loaded.toast} />
    </section>
  )
}

export function ErrorBoundary() {
  return <GeneralErrorBoundary />
}
