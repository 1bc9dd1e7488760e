import { parseWithZod } from '@conform-to/zod'
import { data, redirect, type ActionFunctionArgs, type LoaderFunctionArgs } from '@remix-run/node'
import { Form, useActionData, useLoaderData, useNavigation } from '@remix-run/react'
import { lazy } from 'react'
import { stringify } from 'yaml'
import { z } from 'zod'
import { ScraperTypePicker as ServerRenderedScraperTypePicker, type ScraperPicker } from '#app/components/catalog/scraper-type-picker.tsx'
import { GeneralErrorBoundary } from '#app/components/error-boundary.tsx'
import { ResourceEditorBody, type EditorAnswer } from '#app/components/resource-editor/resource-editor-body.tsx'
import type { SpecErrorDetail } from '#app/components/resource-editor/resource-form.tsx'
import { buttonVariants } from '#app/components/ui/button.tsx'
import { Play } from '#app/components/ui/icons.tsx'
import { hasAccess } from '#app/lib/access.ts'
import { apiJson, GatewayError } from '#app/lib/gateway.server.ts'
import { buildPayload, newResourceYaml, toResourceYaml } from '#app/lib/resource-editor.ts'
import { createResource, loadResource } from '#app/lib/resource-editor.server.ts'
import { RESOURCE_KINDS, sourceInfo, type ResourceKind } from '#app/lib/resource-editor-vocabulary.ts'
import { parseResourceSearch, type ResourceSearch } from '#app/lib/resource-search.ts'
import { loadEditorJobs, refuseWrite, submitEditorPost } from '#app/lib/resource-editor-actions.server.ts'
import type { RouteHandle } from '#app/lib/route-handle.ts'
import { CUSTOM_SCRAPER_TYPE, getScraperTypeForm } from '#app/lib/scraper-type-fields.ts'
import { flattenScraperAnswers, isScraperFormIntent, pathOfMessage, scrapeConfigFromForm, scrapeConfigYamlFromForm, scraperFieldOfPath, scraperFormIssues, scraperTypeFormSchema } from '#app/lib/scraper-type-forms.ts'
import { errorResponse, requireAccess } from '#app/lib/session.server.ts'
import { readToast, toastCookie } from '#app/lib/toast.server.ts'

export const handle = {
  title: (data) => (data && typeof data === 'object' && 'title' in data && typeof data.title === 'string' ? data.title : 'Catalog Scraper'),
  feature: 'settings.config_scraper',
  resource: 'config_scrapers',
} satisfies RouteHandle

const NEW_ID = 'new'
const KIND: ResourceKind = RESOURCE_KINDS.config_scrapers
const LIST_HREF = '/catalog/scrapers'

// What only some visits show loads when shown, rendered in place by the server (decisions 007, 014).
const ScraperTypePicker = import.meta.env.SSR
  ? ServerRenderedScraperTypePicker
  : /* @__PURE__ */ lazy(() => import('#app/components/catalog/scraper-type-picker.tsx').then((module) => ({ default: module.ScraperTypePicker })))

/** A new scraper starts from the grid of scraper types; a chosen type opens its form, or the Code tab (always, for the custom type). */
function pickerOf(search: ResourceSearch): ScraperPicker {
  const type = search.type
  if (type === CUSTOM_SCRAPER_TYPE) return { step: 'code', type }
  if (!type || !getScraperTypeForm(type)) return { step: 'grid' }
  return { step: search.view === 'code' ? 'code' : 'form', type }
}

function loadScraper(args: LoaderFunctionArgs | ActionFunctionArgs, id: string) {
  return loadResource(args, KIND, id).catch((error: unknown) => {
    if (error instanceof GatewayError) throw errorResponse(error.status >= 400 ? error.status : 502, { message: error.message })
    throw error
  })
}

/**
 * /catalog/scrapers/{id} and /catalog/scrapers/new (spec 002 §2 "Resource editor"): the
 * ScrapeConfig in the generic resource editor — a grid of scraper types and a form per type when
 * creating, the YAML (Code) otherwise, read-only when the scraper did not come from the UI — and
 * its Job History.
 */
export async function loader(args: LoaderFunctionArgs) {
  const session = await requireAccess(args, handle)
  const canWrite = hasAccess(session, KIND.resource, 'write')
  const { toast, headers } = readToast(args.request)
  const search = parseResourceSearch(new URL(args.request.url))
  const id = args.params.id ?? ''
  const base = { canWrite, toast, now: new Date().toISOString() }

  if (id === NEW_ID) {
    if (!canWrite) throw errorResponse(403, { message: 'You do not have permission to access this page' })
    const picker = pickerOf(search)
    const template = picker.step !== 'grid' ? scrapeConfigYamlFromForm(getScraperTypeForm(picker.type), {}) : newResourceYaml(KIND)
    return data(
      {
        ...base,
        mode: 'create' as const,
        id: null,
        name: null,
        title: 'Catalog Scrapers / New',
        missing: false,
        source: null,
        info: { readOnly: false, origin: 'the UI' },
        values: { yaml: template, name: '', namespace: '' },
        version: `new:${picker.step !== 'grid' ? `${picker.type}:${picker.step}` : ''}`,
        picker: picker as ScraperPicker | null,
        tab: 'spec' as const,
        jobs: null,
        dialog: null,
      },
      { headers },
    )
  }

  const row = await loadScraper(args, id)
  if (!row) {
    return data(
      { ...base, mode: 'edit' as const, id, name: null, title: 'Catalog Scraper', missing: true, source: null, info: { readOnly: true, origin: '' }, values: { yaml: '', name: '', namespace: '' }, version: '', picker: null, tab: 'spec' as const, jobs: null, dialog: null },
      { status: 404, headers },
    )
  }
  const jobs = await loadEditorJobs(args, String(row.id), search)
  const info = sourceInfo(row)
  const name = typeof row.name === 'string' ? row.name : String(row.id)
  return data(
    {
      ...base,
      mode: 'edit' as const,
      id: String(row.id),
      name,
      title: `Catalog Scrapers / ${name}`,
      missing: false,
      source: typeof row.source === 'string' ? row.source : null,
      info,
      values: { yaml: toResourceYaml(KIND, row), name: row.name ?? '', namespace: row.namespace ?? '' },
      version: `${row.id}:${String(row.updated_at ?? '')}`,
      picker: null,
      tab: search.tab,
      jobs,
      dialog: search.dialog === 'delete' && canWrite && !info.readOnly ? ('delete' as const) : null,
    },
    { headers },
  )
}

type ActionAnswer = EditorAnswer

type Done = { to: string; toast: string }


/**
 * Saves (create or update), deletes and runs (`intent=run`: `POST /config/run/{id}`); a type form
 * posts its own intents to `typeFormAction`. YAML parsing, the name rules and the API's
 * validation come back as issues on the fields; a success redirects (303) with a toast.
 */
export async function action(args: ActionFunctionArgs) {
  const session = await requireAccess(args, { ...handle, access: 'write' })
  const id = args.params.id ?? ''
  const formData = await args.request.formData()
  const intent = formData.get('intent')
  if (id === NEW_ID && isScraperFormIntent(intent)) return typeFormAction(args, session.user.id, formData)

  const existing = id === NEW_ID ? null : await loadScraper(args, id)
  if (id !== NEW_ID && !existing) throw errorResponse(404, { message: 'No resources found' })
  const selfHref = `${LIST_HREF}/${id}`
  if (existing && intent === 'run') {
    try {
      await apiJson(args, `/config/run/${encodeURIComponent(id)}`, { method: 'POST' })
    } catch (error) {
      if (!(error instanceof GatewayError)) throw error
      return data<ActionAnswer>({ intent: 'run', result: { status: 'error', error: { '': [error.message] } }, specDetail: null, view: null, values: null }, { status: error.status >= 400 && error.status < 600 ? error.status : 502 })
    }
    throw redirect(`${selfHref}?tab=jobs`, { status: 303, headers: { 'set-cookie': toastCookie(`Scraper ${existing.name ?? id} ran`) } })
  }
  const { submission, answer } = await submitEditorPost(args, KIND, { formData, id, existing, listHref: LIST_HREF, userId: session.user.id })
  if (submission.status !== 'success') {
    return data<ActionAnswer>({ intent: String(intent ?? ''), result: submission.reply(), specDetail: answer.detail, view: null, values: null }, { status: answer.status })
  }
  throw redirect(submission.value.to, { status: 303, headers: { 'set-cookie': toastCookie(submission.value.toast) } })
}

/**
 * A scraper type form: Create builds the ScrapeConfig from the answers and saves it (the API's
 * refusal lands on the field its path names); 'Edit as YAML' hands the answers to the Code tab.
 */
async function typeFormAction(args: ActionFunctionArgs, userId: string, formData: FormData) {
  const form = getScraperTypeForm(String(formData.get('scraperType') ?? ''))
  if (!form) throw errorResponse(400, { message: 'Unknown scraper type.' })
  const answer = { status: 400, detail: {} as SpecErrorDetail }
  const submission = await parseWithZod(formData, {
    async: true,
    schema: scraperTypeFormSchema(form).transform(async (value, ctx): Promise<Done | { values: NonNullable<ActionAnswer['values']> }> => {
      const answers = flattenScraperAnswers(value)
      const names = { name: (answers.configName ?? '').trim(), namespace: (answers.configNamespace ?? '').trim() }
      if (value.intent === 'form-to-code') return { values: { ...names, yaml: scrapeConfigYamlFromForm(form, answers) } }
      const built = scrapeConfigFromForm(form, answers)
      if (!built.ok) {
        for (const [field, message] of Object.entries(built.errors)) ctx.addIssue({ code: z.ZodIssueCode.custom, path: field.split('.'), message })
        return z.NEVER
      }
      const issues = scraperFormIssues(form, built.document)
      if (Object.keys(issues.errors).length > 0 || issues.rest.length > 0) {
        for (const [field, message] of Object.entries(issues.errors)) ctx.addIssue({ code: z.ZodIssueCode.custom, path: field.split('.'), message })
        if (issues.rest.length > 0) ctx.addIssue({ code: z.ZodIssueCode.custom, message: issues.rest.join('; ') })
        return z.NEVER
      }
      const payload = buildPayload(KIND, { ...names, yaml: stringify(built.document) })
      if (!payload.ok) {
        const field = payload.error.field === 'name' ? 'configName' : payload.error.field === 'namespace' ? 'configNamespace' : null
        ctx.addIssue({ code: z.ZodIssueCode.custom, path: field ? [field] : [], message: payload.error.message })
        return z.NEVER
      }
      try {
        const created = await createResource(args, KIND, payload.payload, userId)
        return { to: created ? `${LIST_HREF}/${created}` : LIST_HREF, toast: `${KIND.singular} ${payload.payload.name} created successfully` }
      } catch (error) {
        return refuseWrite(ctx, error, KIND, payload.payload, answer, {
          conflict: ['configName'],
          invalid: (message) => {
            const path = pathOfMessage(message)
            const field = path ? scraperFieldOfPath(form, path) : null
            return field ? field.split('.') : []
          },
        })
      }
    }),
  })
  if (submission.status !== 'success') {
    return data<ActionAnswer>({ intent: 'create-from-form', result: submission.reply(), specDetail: null, view: null, values: null }, { status: answer.status })
  }
  if ('values' in submission.value) return data<ActionAnswer>({ intent: 'form-to-code', result: null, specDetail: null, view: 'code', values: submission.value.values })
  throw redirect(submission.value.to, { status: 303, headers: { 'set-cookie': toastCookie(submission.value.toast) } })
}

export default function CatalogScraperRoute() {
  const loaded = useLoaderData<typeof loader>()
  const answer = useActionData<typeof action>() ?? null
  const navigation = useNavigation()
  const { mode, id, missing, canWrite, picker } = loaded
  const selfHref = `${LIST_HREF}/${id ?? NEW_ID}`
  const busy = navigation.state === 'submitting' && navigation.formMethod?.toLowerCase() === 'post'
  return (
    <ResourceEditorBody
      kind={KIND}
      loaded={loaded}
      answer={answer}
      listHref={LIST_HREF}
      selfHref={selfHref}
      busy={busy}
      testId="scraper-page"
      picker={
        picker
          ? {
              step: picker.step,
              render: (view, lastResult) => <ScraperTypePicker picker={picker} view={view} baseHref={selfHref} lastResult={lastResult} busy={busy} cancelHref={LIST_HREF} />,
            }
          : null
      }
      actions={
        mode === 'edit' && !missing && canWrite ? (
          <Form method="post">
            <button type="submit" name="intent" value="run" className={buttonVariants({ variant: 'outline', size: 'sm' })} disabled={busy} data-testid="scraper-run">
              <Play aria-hidden="true" />
              Run Now
            </button>
          </Form>
        ) : null
      }
    />
  )
}

export function ErrorBoundary() {
  return <GeneralErrorBoundary />
}
