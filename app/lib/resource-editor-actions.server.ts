import { parseWithZod } from '@conform-to/zod'
import { z } from 'zod'
import type { SpecErrorDetail } from '#app/components/resource-editor/resource-form.tsx'
import type { ApiArgs } from './gateway.server.ts'
import { GatewayError } from './gateway.server.ts'
import { buildPayload, formFieldOfEditorError, NewResourceActionSchema, ResourceActionSchema, type ResourcePayload } from './resource-editor.ts'
import { createResource, deleteResource, loadJobHistory, updateResource, writeFailure } from './resource-editor.server.ts'
import type { ResourceSearch } from './resource-search.ts'
import { sourceInfo, type JobHistoryRow, type ResourceKind, type ResourceRow } from './resource-editor-vocabulary.ts'

/**
 * The resource editor's post, shared by /settings/{table}/{id} and /catalog/scrapers/{id}: save
 * (create or update) and delete as one discriminated union by `intent`, and the API's refusal of a
 * write as an issue on the field it is about.
 */

/** The status a refused post answers with, and the spec error's line and the API's details. */
export type WriteAnswer = { status: number; detail: SpecErrorDetail }

/** Where a successful post goes, with its toast. */
export type EditorDone = { to: string; toast: string }

/**
 * The API's refusal of a write: a 409 on the name field, a 400/422 on the field `invalidPath`
 * names for its message (the spec), anything else for the whole form with the API's status.
 */
export function refuseWrite(ctx: z.RefinementCtx, error: unknown, kind: ResourceKind, payload: ResourcePayload, answer: WriteAnswer, paths: { conflict: string[]; invalid: (message: string) => string[] }) {
  const { message, details } = writeFailure(error, kind, payload)
  const status = error instanceof GatewayError ? error.status : 500
  if (status === 409) ctx.addIssue({ code: z.ZodIssueCode.custom, path: paths.conflict, message })
  else if (status === 400 || status === 422) {
    answer.detail.details = details
    ctx.addIssue({ code: z.ZodIssueCode.custom, path: paths.invalid(message), message })
  } else {
    answer.status = status >= 400 && status < 600 ? status : 502
    ctx.addIssue({ code: z.ZodIssueCode.custom, message })
  }
  return z.NEVER
}

/**
 * Parses and carries out the editor form's post for `existing` (null: a new resource under
 * `listHref`). YAML parsing, the name rules and the API's validation come back as issues on the
 * fields; a resource whose source is not UI refuses every write (409).
 */
export async function submitEditorPost(
  args: ApiArgs,
  kind: ResourceKind,
  { formData, id, existing, listHref, userId }: { formData: FormData; id: string; existing: ResourceRow | null; listHref: string; userId: string },
) {
  const info = existing ? sourceInfo(existing) : null
  const name = existing ? String(existing.name ?? existing.id ?? '') : ''
  const answer: WriteAnswer = { status: 400, detail: {} }
  const submission = await parseWithZod(formData, {
    async: true,
    schema: (existing ? ResourceActionSchema : NewResourceActionSchema).transform(async (value, ctx): Promise<EditorDone> => {
      if (info?.readOnly) {
        answer.status = 409
        ctx.addIssue({ code: z.ZodIssueCode.custom, message: `This resource was created by ${info.origin} and cannot be changed here.` })
        return z.NEVER
      }
      if (value.intent === 'delete') {
        try {
          await deleteResource(args, kind, id)
        } catch (error) {
          if (!(error instanceof GatewayError)) throw error
          answer.status = error.status >= 400 ? error.status : 502
          ctx.addIssue({ code: z.ZodIssueCode.custom, message: error.message })
          return z.NEVER
        }
        return { to: listHref, toast: `${kind.singular} ${name} deleted successfully` }
      }
      const built = buildPayload(kind, value, existing)
      if (!built.ok) {
        answer.detail.line = built.error.line ?? null
        ctx.addIssue({ code: z.ZodIssueCode.custom, path: [formFieldOfEditorError(built.error.field)], message: built.error.message })
        return z.NEVER
      }
      try {
        if (existing) {
          await updateResource(args, kind, id, built.payload)
          return { to: `${listHref}/${id}`, toast: `${kind.singular} ${name} updated successfully` }
        }
        const created = await createResource(args, kind, built.payload, userId)
        return { to: created ? `${listHref}/${created}` : listHref, toast: `${kind.singular} ${built.payload.name} created successfully` }
      } catch (error) {
        return refuseWrite(ctx, error, kind, built.payload, answer, { conflict: ['name'], invalid: () => ['yaml'] })
      }
    }),
  })
  return { submission, answer }
}

/** The Job History tab's page of runs, with the job whose details are open; an API refusal is shown in the tab. */
export type EditorJobs = { rows: JobHistoryRow[]; total: number | null; page: number; error: string | null; openJobId: string | null; openJobTab: string | null }

/** The Job History tab of one resource, or null when another tab is open. */
export async function loadEditorJobs(args: ApiArgs, resourceId: string, search: Pick<ResourceSearch, 'tab' | 'page' | 'job' | 'jobTab'>): Promise<EditorJobs | null> {
  if (search.tab !== 'jobs') return null
  const open = { openJobId: search.job, openJobTab: search.jobTab }
  try {
    return { ...(await loadJobHistory(args, resourceId, search.page)), page: search.page, error: null, ...open }
  } catch (error) {
    if (!(error instanceof GatewayError)) throw error
    return { rows: [], total: null, page: search.page, error: error.message, ...open }
  }
}
