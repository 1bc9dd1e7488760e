import { getFormProps } from '@conform-to/react'
import { parseWithZod } from '@conform-to/zod'
import { data, redirect, type ActionFunctionArgs, type LoaderFunctionArgs } from '@remix-run/node'
import { Form, useActionData, useLoaderData, useSubmit } from '@remix-run/react'
import { Search } from '#app/components/ui/icons.tsx'
import { lazy, Suspense, useRef } from 'react'
import { useHydrated } from 'remix-utils/use-hydrated'
import { GeneralErrorBoundary } from '#app/components/error-boundary.tsx'
import { IncidentChoices } from '#app/components/incidents/incident-choices.tsx'
import { LinkStepForm as ServerRenderedLinkStepForm } from '#app/components/incidents/link-to-incident.tsx'
import { useSchemaForm } from '#app/components/use-schema-form.ts'
import { Button } from '#app/components/ui/button.tsx'
import { Input } from '#app/components/ui/input.tsx'
import { Label } from '#app/components/ui/label.tsx'
import { UrlDialog } from '#app/components/ui/dialog.tsx'
import { evidenceTargetFields, isUuid, LINK_SUCCESS, NEW_OPTION, parseEvidenceTarget, safeReturnTo } from '#app/lib/incidents.ts'
import { ChooseIncidentShape } from '#app/lib/incident-form-shapes.ts'
import { ChooseIncidentSchema } from '#app/lib/incident-forms.ts'
import { getIncidentOption, getLinkActionSchema, listHypothesisOptions, searchIncidentOptions } from '#app/lib/incidents.server.ts'
import type { RouteHandle } from '#app/lib/route-handle.ts'
import { errorResponse, requireAccess } from '#app/lib/session.server.ts'
import { toastCookie } from '#app/lib/toast.server.ts'

// The link form shows once an incident is chosen, so it (with the incident and hypothesis
// fields) loads then; the server renders it in place, so the no-JS page and hydration see the
// same markup (decisions 007, 014).
const LinkStepForm = import.meta.env.SSR
  ? ServerRenderedLinkStepForm
  : /* @__PURE__ */ lazy(() => import('#app/components/incidents/link-to-incident.tsx').then((module) => ({ default: module.LinkStepForm })))

/**
 * The link-to-incident dialog as a page, for browsers without JavaScript: step one searches and
 * picks an incident (a GET, so the choice is a link like any filter), step two is the link form,
 * which posts here and comes back with its `reply()` when something is missing. Hydrated, the
 * search also runs as the user types.
 */
export const handle = { title: 'Link to Incident', feature: 'incidents', resource: 'incident', access: 'write' } satisfies RouteHandle

export async function loader(args: LoaderFunctionArgs) {
  await requireAccess(args, handle)
  const params = new URL(args.request.url).searchParams
  const target = parseEvidenceTarget((name) => params.get(name))
  if (!target) throw errorResponse(400, { message: 'Nothing to link: the evidence target is missing or invalid' })
  const query = params.get('q') ?? ''
  const chosen = params.get('incident') ?? ''
  const incident = chosen === NEW_OPTION || isUuid(chosen) ? chosen : ''
  const [incidents, chosenOption, hypotheses] = await Promise.all([
    searchIncidentOptions(args, query),
    isUuid(incident) ? getIncidentOption(args, incident) : Promise.resolve(null),
    isUuid(incident) ? listHypothesisOptions(args, incident) : Promise.resolve([]),
  ])
  // The chosen incident stays offered even when the current search would not find it.
  const options = chosenOption && !incidents.some((option) => option.id === chosenOption.id) ? [chosenOption, ...incidents] : incidents
  return { target, query, incident, incidents: options, hypotheses, returnTo: safeReturnTo(params.get('returnTo')) }
}

/**
 * Two forms post here: step one (`intent=choose`) answers the chosen incident as a redirect to
 * step two, or its `reply()` saying what is missing; step two links.
 */
export async function action(args: ActionFunctionArgs) {
  const session = await requireAccess(args, handle)
  const formData = await args.request.formData()
  // The evidence's own description travels as `description`; what the user typed is `note`.
  const target = parseEvidenceTarget((name) => formData.get(name))
  if (formData.get('intent') === 'choose') {
    if (!target) throw errorResponse(400, { message: 'Nothing to link: the evidence target is missing or invalid' })
    const submission = parseWithZod(formData, { schema: ChooseIncidentSchema })
    if (submission.status !== 'success') return data({ step: 'choose' as const, result: submission.reply() }, { status: 400 })
    const next = new URLSearchParams(evidenceTargetFields(target))
    if (submission.value.q) next.set('q', submission.value.q)
    next.set('incident', submission.value.incident)
    const returnTo = safeReturnTo(formData.get('returnTo'))
    if (returnTo) next.set('returnTo', returnTo)
    throw redirect(`/incidents/link?${next.toString()}`, { status: 303 })
  }
  const submission = await parseWithZod(formData, { async: true, schema: getLinkActionSchema(args, session.user.id, target) })
  if (submission.status !== 'success') return data({ step: 'link' as const, result: submission.reply() }, { status: 400 })
  throw redirect(`/incidents/${submission.value}`, { status: 303, headers: { 'set-cookie': toastCookie(LINK_SUCCESS) } })
}

export default function LinkToIncidentRoute() {
  const { target, query, incident, incidents, hypotheses, returnTo } = useLoaderData<typeof loader>()
  const actionData = useActionData<typeof action>()
  const submit = useSubmit()
  const isHydrated = useHydrated()
  const timer = useRef<ReturnType<typeof setTimeout> | null>(null)
  const fields = evidenceTargetFields(target)
  const closeTo = returnTo || '/incidents'
  const [stepForm, stepFields] = useSchemaForm(ChooseIncidentShape, {
    id: 'link-incident-step',
    lastResult: actionData?.step === 'choose' ? actionData.result : undefined,
    defaultValue: { incident, q: query },
  })
  const hidden = (
    <>
      {fields.map(([name, value]) => (
        <input key={name} type="hidden" name={name} value={value} />
      ))}
      {returnTo ? <input type="hidden" name="returnTo" value={returnTo} /> : null}
    </>
  )
  // Plain radios, not conform's collection props: the choice is not `required` natively, so a
  // post without one reaches the server and its reply says what is missing.
  const radios = new Map([...incidents.map((option) => option.id), NEW_OPTION].map((value) => [value, { name: stepFields.incident.name, value, defaultChecked: incident === value }]))

  return (
    <UrlDialog title="Link to Incident" closeTo={closeTo} size="medium" testId="link-to-incident-dialog">
      {/* Searching is a GET like any filter (a new search clears the choice); choosing posts. */}
      <Form method="get" className="flex flex-col gap-1.5" data-testid="link-incident-search-form" preventScrollReset replace>
        {hidden}
        <Label htmlFor="link-incident-search">Incident</Label>
        <div className="flex gap-2">
          <Input
            id="link-incident-search"
            name="q"
            type="search"
            defaultValue={query}
            placeholder="Search incidents"
            data-testid="link-incident-search"
            onChange={(event) => {
              if (!isHydrated) return
              const form = event.currentTarget.form
              if (timer.current) clearTimeout(timer.current)
              timer.current = setTimeout(() => form && submit(form, { replace: true, preventScrollReset: true }), 100)
            }}
          />
          <Button type="submit" variant="outline" data-testid="link-incident-search-submit">
            <Search aria-hidden="true" />
            Search
          </Button>
        </div>
      </Form>
      <Form method="post" {...getFormProps(stepForm)} className="flex flex-col gap-3" data-testid="link-incident-step" preventScrollReset>
        {hidden}
        <input type="hidden" name="intent" value="choose" />
        <input type="hidden" name="q" value={query} />
        <IncidentChoices incidents={incidents} radios={radios} errors={stepFields.incident.errors} />
        <div>
          <Button type="submit" variant="secondary" size="sm" data-testid="link-incident-choose">
            Choose incident
          </Button>
        </div>
      </Form>
      {incident ? (
        // Keyed by the incident: another choice starts a fresh form.
        <Suspense fallback={null}>
          <LinkStepForm
            key={incident}
            fields={fields}
            incident={incident}
            query={query}
            hypotheses={hypotheses}
            description={target.description}
            closeTo={closeTo}
            result={actionData?.step === 'link' ? actionData.result : undefined}
          />
        </Suspense>
      ) : null}
    </UrlDialog>
  )
}

export function ErrorBoundary() {
  return <GeneralErrorBoundary />
}
