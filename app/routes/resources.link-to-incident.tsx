import { redirect, type ActionFunctionArgs, type LoaderFunctionArgs } from '@remix-run/node'
import {
  evidenceTargetFields,
  linkPageHref,
  safeReturnTo,
  LINK_SUCCESS,
  parseEvidenceTarget,
  readLinkFormValues,
  validateLink,
  type FieldErrors,
} from '#app/lib/incidents.ts'
import { listHypothesisOptions, runLinkPlan, searchIncidentOptions, type HypothesisOption, type IncidentOption } from '#app/lib/incidents.server.ts'
import type { RouteGuard } from '#app/lib/route-handle.ts'
import { requireAccess } from '#app/lib/session.server.ts'
import { toastCookie } from '#app/lib/toast.server.ts'

/**
 * The link-to-incident dialog's endpoints (001 §2). GET `?q=` searches incidents and
 * `?incident=` lists one incident's hypotheses (for fetchers). POST links: a fetcher (which
 * sends `_fetcher=1`) gets the outcome as data; a plain form post is redirected to the incident
 * with the success toast, or back to the dialog page with its messages.
 */

const GUARD: RouteGuard = { feature: 'incidents', resource: 'incident' }

export type LinkSearchResult = { incidents: IncidentOption[] } | { hypotheses: HypothesisOption[] }
export type LinkSubmitResult = { ok: true; incidentId: string; message: string } | { ok: false; errors: FieldErrors }

export async function loader(args: LoaderFunctionArgs): Promise<LinkSearchResult> {
  await requireAccess(args, GUARD)
  const url = new URL(args.request.url)
  const incident = url.searchParams.get('incident')
  if (incident) return { hypotheses: await listHypothesisOptions(args, incident) }
  return { incidents: await searchIncidentOptions(args, url.searchParams.get('q') ?? '') }
}

export async function action(args: ActionFunctionArgs) {
  const session = await requireAccess(args, { ...GUARD, access: 'write' })
  const form = await args.request.formData()
  const isFetcher = form.get('_fetcher') === '1'
  const get = (name: string) => form.get(name)
  // The evidence's own description travels as `description`; what the user typed is `note`.
  const target = parseEvidenceTarget(get)
  const values = readLinkFormValues((name) => (name === 'description' ? form.get('note') : form.get(name)))
  const returnTo = safeReturnTo(form.get('returnTo'))
  if (!target) {
    const errors = { form: 'Nothing to link: the evidence target is missing or invalid' }
    if (isFetcher) return { ok: false, errors } satisfies LinkSubmitResult
    throw new Response(errors.form, { status: 400 })
  }
  const { plan, errors } = validateLink(target, values)
  const outcome = plan ? await runLinkPlan(args, session.user.id, plan) : { ok: false as const, errors: errors ?? {} }
  if (isFetcher) {
    return (outcome.ok ? { ok: true, incidentId: outcome.incidentId, message: LINK_SUCCESS } : outcome) satisfies LinkSubmitResult
  }
  if (outcome.ok) {
    throw redirect(`/incidents/${outcome.incidentId}`, { status: 303, headers: { 'set-cookie': toastCookie(LINK_SUCCESS) } })
  }
  throw redirect(linkPageHref(evidenceTargetFields(target), values, outcome.errors, returnTo), { status: 303 })
}
