import { data, redirect, type ActionFunctionArgs, type LoaderFunctionArgs } from '@remix-run/node'
import { Link, useActionData, useLoaderData, useNavigation } from '@remix-run/react'
import { requireSettingsAccess } from '#app/components/access/require-settings-access.server.ts'
import { ConfirmDialog } from '#app/components/confirm-dialog/confirm-dialog.tsx'
import { GeneralErrorBoundary } from '#app/components/error-boundary.tsx'
import { InlineError } from '#app/components/inline-error.tsx'
import { JobHistory } from '#app/components/resource-editor/job-history.tsx'
import { ResourceForm, type FormFailure } from '#app/components/resource-editor/resource-form.tsx'
import { ResourceTabs } from '#app/components/resource-editor/resource-tabs.tsx'
import { CheckTypeFormView, CheckTypeGrid, CheckTypeTabs } from '#app/components/resource-editor/check-type-picker.tsx'
import { SourceNotice } from '#app/components/resource-editor/source-notice.tsx'
import { Toast } from '#app/components/toast.tsx'
import { hasAccess } from '#app/lib/access.ts'
import { canaryFromForm, canaryYamlFromForm, CUSTOM_CHECK_TYPE, getCheckTypeForm, type CheckFormErrors, type CheckFormValues } from '#app/lib/canary-check-forms.ts'
import { GatewayError } from '#app/lib/gateway.server.ts'
import {
  buildPayload,
  DELETE_CONFIRMATION,
  getEditorKind,
  newResourceYaml,
  sourceInfo,
  toResourceYaml,
  type JobHistoryRow,
  type ResourceKind,
  type ResourcePayload,
} from '#app/lib/resource-editor.ts'
import type { RouteHandle } from '#app/lib/route-handle.ts'
import { errorResponse } from '#app/lib/session.server.ts'
import { readToast, toastCookie } from '#app/lib/toast.server.ts'
import { stringify } from 'yaml'
import { z } from 'zod'
import { checkFormIssues, createResource, deleteResource, loadJobHistory, loadResource, updateResource, writeFailure } from '#app/lib/resource-editor.server.ts'

export const handle = {
  title: (data) => {
    if (!data || typeof data !== 'object' || !('label' in data) || typeof data.label !== 'string') return 'Settings'
    const name = 'name' in data && typeof data.name === 'string' && data.name ? data.name : null
    return name ? `${data.label} / ${name}` : data.label
  },
} satisfies RouteHandle

const NEW_ID = 'new'

/**
 * A new health check starts from the grid of check types; a chosen type opens its form, or the
 * Code tab (always, for the custom type). Other kinds start in the YAML editor.
 */
type CheckPicker = { step: 'grid' } | { step: 'form' | 'code'; type: string }

/**
 * This page's search parameters: the tab, the job history page and open job, and the new
 * health check's type and view. An unknown or bad value falls back to its default.
 */
const ResourceSearchSchema = z.object({
  tab: z.enum(['spec', 'jobs']).catch('spec'),
  page: z.coerce.number().int().min(1).max(10_000).catch(1),
  job: z.string().max(200).nullable().catch(null),
  jobTab: z.string().max(100).nullable().catch(null),
  type: z.string().max(100).nullable().catch(null),
  view: z.enum(['form', 'code']).nullable().catch(null),
  dialog: z.enum(['delete']).nullable().catch(null),
})
type ResourceSearch = z.infer<typeof ResourceSearchSchema>

function parseResourceSearch(url: URL): ResourceSearch {
  const value = (name: string) => url.searchParams.get(name)
  return ResourceSearchSchema.parse({
    tab: value('tab') ?? undefined,
    page: value('page') ?? undefined,
    job: value('job'),
    jobTab: value('jobTab'),
    type: value('type'),
    view: value('view'),
    dialog: value('dialog'),
  })
}

function checkPickerOf(kind: ResourceKind, search: ResourceSearch): CheckPicker | null {
  if (kind.table !== 'canaries') return null
  const type = search.type
  if (type === CUSTOM_CHECK_TYPE) return { step: 'code', type }
  if (!type || !getCheckTypeForm(type)) return { step: 'grid' }
  return { step: search.view === 'code' ? 'code' : 'form', type }
}

/** What a refused check type form hands back: its answers and the fields at fault. */
type CheckFormFailure = { values: CheckFormValues; errors: CheckFormErrors; formError: string | null }

function kindOf(table: string | undefined): ResourceKind {
  const kind = getEditorKind(table)
  if (!kind) throw errorResponse(404, { message: 'No such settings page' })
  return kind
}

export async function loader(args: LoaderFunctionArgs) {
  const kind = kindOf(args.params.table)
  const session = await requireSettingsAccess(args, { feature: kind.feature, resource: kind.resource })
  const canWrite = hasAccess(session, kind.resource, 'write')
  const { toast, headers } = readToast(args.request)
  const search = parseResourceSearch(new URL(args.request.url))
  const id = args.params.id ?? ''
  const base = { table: kind.table, label: kind.label, kind, canWrite, toast, now: new Date().toISOString() }

  if (id === NEW_ID) {
    if (!canWrite) throw errorResponse(403, { message: 'You do not have permission to access this page' })
    const picker = checkPickerOf(kind, search)
    const template = picker && picker.step !== 'grid' ? canaryYamlFromForm(getCheckTypeForm(picker.type), {}) : newResourceYaml(kind)
    return data(
      {
        ...base,
        mode: 'create' as const,
        id: null,
        name: null,
        missing: false,
        source: null,
        info: { readOnly: false, origin: 'the UI' },
        values: { yaml: template, name: '', namespace: '' },
        version: `new:${picker && picker.step !== 'grid' ? `${picker.type}:${picker.step}` : ''}`,
        picker,
        tab: 'spec' as const,
        jobs: null,
        dialog: null,
      },
      { headers },
    )
  }

  const row = await loadResource(args, kind, id).catch((error: unknown) => {
    if (error instanceof GatewayError) throw errorResponse(error.status >= 400 ? error.status : 502, { message: error.message })
    throw error
  })
  if (!row) {
    return data(
      { ...base, mode: 'edit' as const, id, name: null, missing: true, source: null, info: { readOnly: true, origin: '' }, values: { yaml: '', name: '', namespace: '' }, version: '', picker: null, tab: 'spec' as const, jobs: null, dialog: null },
      { status: 404, headers },
    )
  }
  const tab = search.tab
  let jobs: { rows: JobHistoryRow[]; total: number | null; page: number; error: string | null; openJobId: string | null; openJobTab: string | null } | null = null
  if (tab === 'jobs') {
    const page = search.page
    const open = { openJobId: search.job, openJobTab: search.jobTab }
    try {
      jobs = { ...(await loadJobHistory(args, String(row.id), page)), page, error: null, ...open }
    } catch (error) {
      if (!(error instanceof GatewayError)) throw error
      jobs = { rows: [], total: null, page, error: error.message, ...open }
    }
  }
  const info = sourceInfo(row)
  return data(
    {
      ...base,
      mode: 'edit' as const,
      id: String(row.id),
      name: typeof row.name === 'string' ? row.name : String(row.id),
      missing: false,
      source: typeof row.source === 'string' ? row.source : null,
      info,
      values: { yaml: toResourceYaml(kind, row), name: row.name ?? '', namespace: row.namespace ?? '' },
      version: `${row.id}:${String(row.updated_at ?? '')}`,
      picker: null,
      tab,
      jobs,
      dialog: search.dialog === 'delete' && canWrite && !info.readOnly ? ('delete' as const) : null,
    },
    { headers },
  )
}

type ActionResult = FormFailure & { checkForm?: CheckFormFailure; view?: 'code' }

function refused(failure: ActionResult, status = 400) {
  return data<ActionResult>(failure, { status })
}

function formValues(form: FormData): CheckFormValues {
  const values: CheckFormValues = {}
  for (const [key, value] of form) if (typeof value === 'string' && key !== 'intent' && key !== 'checkType') values[key] = value
  return values
}

/** A write the API refused, placed on the field it is about. */
function apiRefusal(error: unknown, kind: ResourceKind, payload: ResourcePayload, values: FormFailure['values']) {
  const { message, details } = writeFailure(error, kind, payload)
  const status = error instanceof GatewayError ? error.status : 500
  if (status === 409) return refused({ error: { field: 'name', message }, values })
  if (status === 400 || status === 422) return refused({ error: { field: 'spec', message }, details, values })
  return refused({ error: null, formError: message, values }, status >= 400 && status < 600 ? status : 502)
}

export async function action(args: ActionFunctionArgs) {
  const kind = kindOf(args.params.table)
  const session = await requireSettingsAccess(args, { feature: kind.feature, resource: kind.resource, access: 'write' })
  const id = args.params.id ?? ''
  const form = await args.request.formData()
  const intent = String(form.get('intent') ?? '')
  const values = { yaml: String(form.get('yaml') ?? ''), name: String(form.get('name') ?? ''), namespace: String(form.get('namespace') ?? '') }

  if (id === NEW_ID && (intent === 'create-from-form' || intent === 'form-to-code')) {
    const checkForm = getCheckTypeForm(String(form.get('checkType') ?? ''))
    if (kind.table !== 'canaries' || !checkForm) return refused({ error: null, formError: 'Unknown check type.', values })
    const answers = formValues(form)
    const names = { name: answers.name ?? '', namespace: answers.namespace ?? '' }
    if (intent === 'form-to-code') return data<ActionResult>({ error: null, values: { ...names, yaml: canaryYamlFromForm(checkForm, answers) }, view: 'code' })
    const fail = (errors: CheckFormErrors, formError: string | null = null, status = 400) =>
      refused({ error: null, values: { ...names, yaml: '' }, checkForm: { values: answers, errors, formError } }, status)
    const built = canaryFromForm(checkForm, answers)
    if (!built.ok) return fail(built.errors)
    const issues = checkFormIssues(checkForm, built.document)
    if (Object.keys(issues.errors).length > 0 || issues.rest.length > 0) return fail(issues.errors, issues.rest.join('; ') || null)
    const payload = buildPayload(kind, { ...names, yaml: stringify(built.document) })
    if (!payload.ok) return fail(payload.error.field === 'spec' ? {} : { [payload.error.field]: payload.error.message }, payload.error.field === 'spec' ? payload.error.message : null)
    let created: string | null
    try {
      created = await createResource(args, kind, payload.payload, session.user.id)
    } catch (error) {
      const { message } = writeFailure(error, kind, payload.payload)
      const status = error instanceof GatewayError ? error.status : 500
      return status === 409 ? fail({ name: message }, null, 409) : fail({}, message, status >= 400 && status < 600 ? status : 502)
    }
    throw redirect(created ? `/settings/${kind.table}/${created}` : `/settings/${kind.table}`, {
      headers: { 'set-cookie': toastCookie(`${kind.singular} ${payload.payload.name} created successfully`) },
    })
  }

  if (id === NEW_ID) {
    if (intent !== 'save') return refused({ error: null, formError: 'Unknown action.', values })
    const built = buildPayload(kind, values)
    if (!built.ok) return refused({ error: built.error, values })
    let created: string | null
    try {
      created = await createResource(args, kind, built.payload, session.user.id)
    } catch (error) {
      return apiRefusal(error, kind, built.payload, values)
    }
    throw redirect(created ? `/settings/${kind.table}/${created}` : `/settings/${kind.table}`, {
      headers: { 'set-cookie': toastCookie(`${kind.singular} ${built.payload.name} created successfully`) },
    })
  }

  const existing = await loadResource(args, kind, id).catch((error: unknown) => {
    if (error instanceof GatewayError) throw errorResponse(error.status >= 400 ? error.status : 502, { message: error.message })
    throw error
  })
  if (!existing) throw errorResponse(404, { message: 'No resources found' })
  const info = sourceInfo(existing)
  const name = existing.name ?? existing.id ?? ''
  if (info.readOnly) {
    return refused({ error: null, formError: `This resource was created by ${info.origin} and cannot be changed here.`, values }, 409)
  }
  switch (intent) {
    case 'save': {
      const built = buildPayload(kind, values, existing)
      if (!built.ok) return refused({ error: built.error, values })
      try {
        await updateResource(args, kind, id, built.payload)
      } catch (error) {
        return apiRefusal(error, kind, built.payload, values)
      }
      throw redirect(`/settings/${kind.table}/${id}`, { headers: { 'set-cookie': toastCookie(`${kind.singular} ${name} updated successfully`) } })
    }
    case 'delete': {
      try {
        await deleteResource(args, kind, id)
      } catch (error) {
        if (!(error instanceof GatewayError)) throw error
        return refused({ error: null, formError: error.message, values }, error.status >= 400 ? error.status : 502)
      }
      throw redirect(`/settings/${kind.table}`, { headers: { 'set-cookie': toastCookie(`${kind.singular} ${name} deleted successfully`) } })
    }
    default:
      return refused({ error: null, formError: 'Unknown action.', values })
  }
}

export default function SettingsResourceRoute() {
  const loaded = useLoaderData<typeof loader>()
  const failure = useActionData<typeof action>() ?? null
  const navigation = useNavigation()
  const { kind, mode, id, name, missing, info, source, canWrite, tab, jobs, dialog, toast, now, picker } = loaded
  const listHref = `/settings/${kind.table}`
  const selfHref = id ? `${listHref}/${id}` : `${listHref}/${NEW_ID}`
  const busy = navigation.state === 'submitting' && navigation.formMethod?.toLowerCase() === 'post'
  const readOnly = info.readOnly || !canWrite

  return (
    <section className="flex flex-col gap-4 p-6" data-testid="resource-page" data-table={kind.table} data-read-only={readOnly} data-mode={mode}>
      <nav aria-label="Breadcrumb" className="text-sm text-muted-foreground">
        <ol className="flex items-center gap-1.5">
          <li>
            <Link to={listHref} className="hover:text-foreground hover:underline" data-testid="breadcrumb-list">
              {kind.label}
            </Link>
          </li>
          <li aria-hidden="true">/</li>
          <li aria-current="page" className="truncate text-foreground" data-testid="breadcrumb-current">
            {mode === 'create' ? `New ${kind.singular.toLowerCase()}` : (name ?? id)}
          </li>
        </ol>
      </nav>
      {missing ? (
        <div className="flex flex-col items-start gap-3 py-10" data-testid="resource-missing">
          <p className="text-muted-foreground">No resources found</p>
          <Link to={listHref} className="text-sm underline-offset-4 hover:underline">
            Back to {kind.label}
          </Link>
        </div>
      ) : (
        <>
          {mode === 'edit' ? (
            <ResourceTabs
              current={tab}
              tabs={[
                { id: 'spec', label: 'Spec', href: selfHref },
                { id: 'jobs', label: 'Job History', href: `${selfHref}?tab=jobs` },
              ]}
            />
          ) : null}
          {picker?.step === 'grid' ? <CheckTypeGrid baseHref={selfHref} /> : null}
          {picker && picker.step !== 'grid' ? <CheckTypeTabs baseHref={selfHref} type={picker.type} view={failure?.view ?? picker.step} /> : null}
          {picker?.step === 'form' && failure?.view !== 'code' ? (
            <CheckTypeFormView
              form={getCheckTypeForm(picker.type)!}
              values={failure?.checkForm?.values ?? {}}
              errors={failure?.checkForm?.errors ?? {}}
              formError={failure?.checkForm?.formError ?? failure?.formError}
              busy={busy}
              cancelHref={listHref}
            />
          ) : picker?.step === 'grid' ? null : tab === 'spec' ? (
            <>
              <SourceNotice info={info} source={source} />
              {!canWrite && !info.readOnly ? <p className="text-sm text-muted-foreground" data-testid="no-write-access">You can look at this resource but not change it.</p> : null}
              <ResourceForm
                key={loaded.version}
                kind={kind}
                mode={mode}
                values={failure?.values ?? loaded.values}
                failure={failure}
                readOnly={readOnly}
                canDelete={mode === 'edit' && !readOnly}
                cancelHref={listHref}
                deleteHref={`${selfHref}?dialog=delete`}
                busy={busy}
              />
            </>
          ) : jobs ? (
            <>
              <InlineError message={jobs.error} />
              <JobHistory rows={jobs.rows} total={jobs.total} page={jobs.page} now={now} baseHref={`${selfHref}?tab=jobs${jobs.page > 1 ? `&page=${jobs.page}` : ''}`} openJobId={jobs.openJobId} openJobTab={jobs.openJobTab} />
            </>
          ) : null}
        </>
      )}
      {dialog === 'delete' ? <ConfirmDialog title={`Delete ${name ?? ''}`} description={DELETE_CONFIRMATION} closeTo={selfHref} fields={{ intent: 'delete' }} busy={busy} testId="delete-dialog" /> : null}
      <Toast message={toast} />
    </section>
  )
}

export function ErrorBoundary() {
  return <GeneralErrorBoundary />
}
