import { parseWithZod } from '@conform-to/zod'
import { data, type ActionFunctionArgs, type LoaderFunctionArgs } from '@remix-run/node'
import { LINK_SUCCESS, parseEvidenceTarget } from '#app/lib/incidents.ts'
import { getLinkActionSchema, listHypothesisOptions, searchIncidentOptions, type HypothesisOption, type IncidentOption } from '#app/lib/incidents.server.ts'
import type { RouteGuard } from '#app/lib/route-handle.ts'
import { requireAccess } from '#app/lib/session.server.ts'

/**
 * The link-to-incident dialog's endpoints for fetchers (001 §2). GET `?q=` searches incidents
 * and `?incident=` lists one incident's hypotheses. POST links and answers the outcome as data:
 * the form's `reply()`, and on success the incident. Without JavaScript the dialog's own page
 * (`_console.incidents.link.tsx`) posts to itself instead.
 */

const GUARD: RouteGuard = { feature: 'incidents', resource: 'incident' }

export type LinkSearchResult = { incidents: IncidentOption[] } | { hypotheses: HypothesisOption[] }

export async function loader(args: LoaderFunctionArgs): Promise<LinkSearchResult> {
  await requireAccess(args, GUARD)
  const url = new URL(args.request.url)
  const incident = url.searchParams.get('incident')
  if (incident) return { hypotheses: await listHypothesisOptions(args, incident) }
  return { incidents: await searchIncidentOptions(args, url.searchParams.get('q') ?? '') }
}

export async function action(args: ActionFunctionArgs) {
  const session = await requireAccess(args, { ...GUARD, access: 'write' })
  const formData = await args.request.formData()
  // The evidence's own description travels as `description`; what the user typed is `note`.
  const target = parseEvidenceTarget((name) => formData.get(name))
  const submission = await parseWithZod(formData, { async: true, schema: getLinkActionSchema(args, session.user.id, target) })
  if (submission.status !== 'success') return data({ result: submission.reply() }, { status: 400 })
  return { result: submission.reply({ resetForm: true }), incidentId: submission.value, message: LINK_SUCCESS }
}
