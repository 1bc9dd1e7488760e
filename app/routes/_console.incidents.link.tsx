import type { LoaderFunctionArgs } from '@remix-run/node'
import { Form, Link, useLoaderData, useSubmit } from '@remix-run/react'
import { Search } from '#app/components/ui/icons.tsx'
import { useRef } from 'react'
import { useHydrated } from 'remix-utils/use-hydrated'
import { GeneralErrorBoundary } from '#app/components/error-boundary.tsx'
import { DescriptionField, HypothesisChoices, IncidentChoices, NewIncidentFields } from '#app/components/incidents/link-to-incident.tsx'
import { InlineError } from '#app/components/inline-error.tsx'
import { Button, buttonVariants } from '#app/components/ui/button.tsx'
import { Input } from '#app/components/ui/input.tsx'
import { Label } from '#app/components/ui/label.tsx'
import { UrlDialog } from '#app/components/ui/dialog.tsx'
import { evidenceTargetFields, getDefaultHypothesis, isUuid, NEW_OPTION, parseEvidenceTarget, readLinkFormValues, safeReturnTo } from '#app/lib/incidents.ts'
import { getIncidentOption, listHypothesisOptions, searchIncidentOptions } from '#app/lib/incidents.server.ts'
import { LINK_RESOURCE } from '#app/lib/evidence-target.ts'
import type { RouteHandle } from '#app/lib/route-handle.ts'
import { errorResponse, requireAccess } from '#app/lib/session.server.ts'

/**
 * The link-to-incident dialog as a page, for browsers without JavaScript: step one searches and
 * picks an incident (GET), step two picks a hypothesis and posts to the dialog's resource route.
 * Hydrated, the search also runs as the user types.
 */
export const handle = { title: 'Link to Incident', feature: 'incidents', resource: 'incident', access: 'write' } satisfies RouteHandle

export async function loader(args: LoaderFunctionArgs) {
  await requireAccess(args, handle)
  const params = new URL(args.request.url).searchParams
  const target = parseEvidenceTarget((name) => params.get(name))
  if (!target) throw errorResponse(400, { message: 'Nothing to link: the evidence target is missing or invalid' })
  const values = readLinkFormValues((name) => params.get(name === 'description' ? 'note' : name))
  const query = params.get('q') ?? ''
  const errors = Object.fromEntries([...params.entries()].filter(([name]) => name.startsWith('err_')).map(([name, message]) => [name.slice(4), message]))
  const [incidents, chosen, hypotheses] = await Promise.all([
    searchIncidentOptions(args, query),
    isUuid(values.incident) ? getIncidentOption(args, values.incident) : Promise.resolve(null),
    isUuid(values.incident) ? listHypothesisOptions(args, values.incident) : Promise.resolve([]),
  ])
  // The chosen incident stays offered even when the current search would not find it.
  const options = chosen && !incidents.some((incident) => incident.id === chosen.id) ? [chosen, ...incidents] : incidents
  return {
    target,
    values: { ...values, description: values.description || target.description },
    query,
    errors,
    incidents: options,
    hypotheses,
    returnTo: safeReturnTo(params.get('returnTo')),
  }
}

export default function LinkToIncidentRoute() {
  const { target, values, query, errors, incidents, hypotheses, returnTo } = useLoaderData<typeof loader>()
  const submit = useSubmit()
  const isHydrated = useHydrated()
  const timer = useRef<ReturnType<typeof setTimeout> | null>(null)
  const fields = evidenceTargetFields(target)
  const isNew = values.incident === NEW_OPTION
  const isChosen = isNew || isUuid(values.incident)
  const closeTo = returnTo || '/incidents'

  return (
    <UrlDialog title="Link to Incident" closeTo={closeTo} size="medium" testId="link-to-incident-dialog">
      <InlineError message={errors.form} />
      <Form method="get" className="flex flex-col gap-3" data-testid="link-incident-step" preventScrollReset replace>
        {fields.map(([name, value]) => (
          <input key={name} type="hidden" name={name} value={value} />
        ))}
        {returnTo ? <input type="hidden" name="returnTo" value={returnTo} /> : null}
        <div className="flex flex-col gap-1.5">
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
            <Button type="submit" variant="outline" name="incident" value="" data-testid="link-incident-search-submit">
              <Search aria-hidden="true" />
              Search
            </Button>
          </div>
        </div>
        <IncidentChoices incidents={incidents} chosen={values.incident} error={errors.incident} />
        <div>
          <Button type="submit" variant="secondary" size="sm" data-testid="link-incident-choose">
            Choose incident
          </Button>
        </div>
      </Form>
      {isChosen ? (
        <Form reloadDocument method="post" action={LINK_RESOURCE} className="flex flex-col gap-3 border-t pt-3" data-testid="link-to-incident-form">
          {fields.map(([name, value]) => (
            <input key={name} type="hidden" name={name} value={value} />
          ))}
          <input type="hidden" name="incident" value={values.incident} />
          {returnTo ? <input type="hidden" name="returnTo" value={returnTo} /> : null}
          {isNew ? (
            <NewIncidentFields values={{ ...values, incidentTitle: values.incidentTitle || query }} errors={errors} />
          ) : (
            <HypothesisChoices hypotheses={hypotheses} chosen={getDefaultHypothesis(hypotheses, values.hypothesis)} title={values.hypothesisTitle} error={errors.hypothesis} />
          )}
          <DescriptionField value={values.description} />
          <div className="flex justify-end gap-2">
            <Link to={closeTo} className={buttonVariants({ variant: 'outline' })}>
              Cancel
            </Link>
            <Button type="submit" data-testid="link-submit">
              Link
            </Button>
          </div>
        </Form>
      ) : null}
    </UrlDialog>
  )
}

export function ErrorBoundary() {
  return <GeneralErrorBoundary />
}
