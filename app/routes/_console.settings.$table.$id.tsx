import { parseResourceSearch, type ResourceSearch } from '#app/lib/resource-search.ts'
import { parseWithZod } from '@conform-to/zod'
import { data, redirect, type ActionFunctionArgs, type LoaderFunctionArgs } from '@remix-run/node'
import { useActionData, useLoaderData, useNavigation } from '@remix-run/react'
import { lazy } from 'react'
import { requireSettingsAccess } from '#app/components/access/require-settings-access.server.ts'
import { GeneralErrorBoundary } from '#app/components/error-boundary.tsx'
import { ResourceEditorBody, type EditorAnswer } from '#app/components/resource-editor/resource-editor-body.tsx'
import type { SpecErrorDetail } from '#app/components/resource-editor/resource-form.tsx'
import { CheckTypePicker as ServerRenderedCheckTypePicker, type CheckPicker } from '#app/components/resource-editor/check-type-picker.tsx'
import { hasAccess } from '#app/lib/access.ts'
import { CUSTOM_CHECK_TYPE, getCheckTypeForm } from '#app/lib/canary-check-fields.ts'
import { canaryFromForm, canaryYamlFromForm, checkTypeFormSchema, flattenCheckFormValues, isCheckFormIntent } from '#app/lib/canary-check-forms.ts'
import { GatewayError } from '#app/lib/gateway.server.ts'
import { getEditorKind, sourceInfo, type ResourceKind } from '#app/lib/resource-editor-shapes.ts'
import { buildPayload, newResourceYaml, toResourceYaml } from '#app/lib/resource-editor.ts'
import { loadEditorJobs, refuseWrite, submitEditorPost } from '#app/lib/resource-editor-actions.server.ts'
import type { RouteHandle } from '#app/lib/route-handle.ts'
import { errorResponse } from '#app/lib/session.server.ts'
import { readToast, toastCookie } from '#app/lib/toast.server.ts'
import { stringify } from 'yaml'
import { z } from 'zod'
import { checkFormIssues, createResource, loadResource } from '#app/lib/resource-editor.server.ts'

export const handle = {
  title: (data) => {
    if (!data || typeof data !== 'object' || !('label' in data) || typeof data.label !== 'string') return 'Settings'
    const name = 'name' in data && typeof data.name === 'string' && data.name ? data.name : null
    return name ? `${data.label} / ${name}` : data.label
  },
} satisfies RouteHandle

const NEW_ID = 'new'

// What only some visits show loads when shown: the check type picker (creating a canary), the Job
// History tab and the delete dialog. The server renders each in place, so the no-JS page and
// hydration see the same markup (decisions 007, 014).
const CheckTypePicker = import.meta.env.SSR
  ? ServerRenderedCheckTypePicker
  : /* @__PURE__ */ lazy(() => import('#app/components/resource-editor/check-type-picker.tsx').then((module) => ({ default: module.CheckTypePicker })))

/**
 * A new health check starts from the grid of check types; a chosen type opens its form, or the
 * Code tab (always, for the custom type). Other kinds start in the YAML editor.
 */

function checkPickerOf(kind: ResourceKind, search: ResourceSearch): CheckPicker | null {
  if (kind.table !== 'canaries') return null
  const type = search.type
  if (type === CUSTOM_CHECK_TYPE) return { step: 'code', type }
  if (!type || !getCheckTypeForm(type)) return { step: 'grid' }
  return { step: search.view === 'code' ? 'code' : 'form', type }
}

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
  const jobs = await loadEditorJobs(args, String(row.id), search)
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

/** What the action hands back with a refusal (the editor body's answer). */
type ActionAnswer = EditorAnswer

type Done = { to: string; toast: string }


/**
 * Saves (create or update) and deletes, one discriminated union by `intent`; the check type form
 * posts its own intents to `checkFormAction`. YAML parsing, the name rules and the API's spec
 * validation are checked here and come back as issues on the fields; a success redirects (303)
 * with a toast.
 */
export async function action(args: ActionFunctionArgs) {
  const kind = kindOf(args.params.table)
  const session = await requireSettingsAccess(args, { feature: kind.feature, resource: kind.resource, access: 'write' })
  const id = args.params.id ?? ''
  const formData = await args.request.formData()
  const intent = formData.get('intent')
  if (id === NEW_ID && isCheckFormIntent(intent)) return checkFormAction(args, kind, session.user.id, formData)

  const existing =
    id === NEW_ID
      ? null
      : await loadResource(args, kind, id).catch((error: unknown) => {
          if (error instanceof GatewayError) throw errorResponse(error.status >= 400 ? error.status : 502, { message: error.message })
          throw error
        })
  if (id !== NEW_ID && !existing) throw errorResponse(404, { message: 'No resources found' })
  const { submission, answer } = await submitEditorPost(args, kind, { formData, id, existing, listHref: `/settings/${kind.table}`, userId: session.user.id })
  if (submission.status !== 'success') {
    return data<ActionAnswer>({ intent: String(intent ?? ''), result: submission.reply(), specDetail: answer.detail, view: null, values: null }, { status: answer.status })
  }
  throw redirect(submission.value.to, { status: 303, headers: { 'set-cookie': toastCookie(submission.value.toast) } })
}

/**
 * A health check type form: Create builds the canary from the answers and checks it with the
 * Canary schema the API applies (each problem on its field); 'Edit as YAML' hands the answers
 * to the Code tab as a canary document.
 */
async function checkFormAction(args: ActionFunctionArgs, kind: ResourceKind, userId: string, formData: FormData) {
  const checkForm = kind.table === 'canaries' ? getCheckTypeForm(String(formData.get('checkType') ?? '')) : undefined
  if (!checkForm) throw errorResponse(400, { message: 'Unknown check type.' })
  const answer = { status: 400, detail: {} as SpecErrorDetail }
  const addIssue = (ctx: z.RefinementCtx, field: string | null, message: string) => ctx.addIssue({ code: z.ZodIssueCode.custom, path: field ? field.split('.') : [], message })
  const submission = await parseWithZod(formData, {
    async: true,
    schema: checkTypeFormSchema(checkForm).transform(async (value, ctx): Promise<Done | { values: NonNullable<ActionAnswer['values']> }> => {
      const answers = flattenCheckFormValues(value)
      const names = { name: (answers.name ?? '').trim(), namespace: (answers.namespace ?? '').trim() }
      if (value.intent === 'form-to-code') return { values: { ...names, yaml: canaryYamlFromForm(checkForm, answers) } }
      const built = canaryFromForm(checkForm, answers)
      if (!built.ok) {
        for (const [field, message] of Object.entries(built.errors)) addIssue(ctx, field, message)
        return z.NEVER
      }
      const issues = checkFormIssues(checkForm, built.document)
      if (Object.keys(issues.errors).length > 0 || issues.rest.length > 0) {
        for (const [field, message] of Object.entries(issues.errors)) addIssue(ctx, field, message)
        if (issues.rest.length > 0) addIssue(ctx, null, issues.rest.join('; '))
        return z.NEVER
      }
      const payload = buildPayload(kind, { ...names, yaml: stringify(built.document) })
      if (!payload.ok) {
        addIssue(ctx, payload.error.field === 'spec' ? null : payload.error.field, payload.error.message)
        return z.NEVER
      }
      try {
        const created = await createResource(args, kind, payload.payload, userId)
        return { to: created ? `/settings/${kind.table}/${created}` : `/settings/${kind.table}`, toast: `${kind.singular} ${payload.payload.name} created successfully` }
      } catch (error) {
        return refuseWrite(ctx, error, kind, payload.payload, answer, { conflict: ['name'], invalid: () => [] })
      }
    }),
  })
  if (submission.status !== 'success') {
    return data<ActionAnswer>({ intent: 'create-from-form', result: submission.reply(), specDetail: null, view: null, values: null }, { status: answer.status })
  }
  if ('values' in submission.value) return data<ActionAnswer>({ intent: 'form-to-code', result: null, specDetail: null, view: 'code', values: submission.value.values })
  throw redirect(submission.value.to, { status: 303, headers: { 'set-cookie': toastCookie(submission.value.toast) } })
}

export default function SettingsResourceRoute() {
  const loaded = useLoaderData<typeof loader>()
  const answer = useActionData<typeof action>() ?? null
  const navigation = useNavigation()
  const { kind, id, picker } = loaded
  const listHref = `/settings/${kind.table}`
  const selfHref = id ? `${listHref}/${id}` : `${listHref}/${NEW_ID}`
  const busy = navigation.state === 'submitting' && navigation.formMethod?.toLowerCase() === 'post'
  return (
    <ResourceEditorBody
      kind={kind}
      loaded={loaded}
      answer={answer}
      listHref={listHref}
      selfHref={selfHref}
      busy={busy}
      testId="resource-page"
      picker={
        picker
          ? {
              step: picker.step,
              render: (view, lastResult) => <CheckTypePicker picker={picker} view={view} baseHref={selfHref} lastResult={lastResult} busy={busy} cancelHref={listHref} />,
            }
          : null
      }
    />
  )
}

export function ErrorBoundary() {
  return <GeneralErrorBoundary />
}
